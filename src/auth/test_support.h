// Shared fixtures for auth tests: cheap Argon2 parameters (tests verify
// behaviour, not cost) and a throwaway SQLite MetaStore.
#pragma once

#include <filesystem>
#include <memory>

#include "auth/password.h"
#include "meta/sqlite/sqlite_store.h"
#include "util/ids.h"

namespace nubo::auth::testing {

inline PasswordParams CheapParams() {
  PasswordParams p;
  p.ops_limit = 1;
  p.mem_limit = 8 << 20;
  return p;
}

// A fresh database in a temp directory, removed on destruction.
struct TempMeta {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nubo-authtest-" + RandomHex(6));
  std::unique_ptr<meta::MetaStore> store;
  TempMeta() {
    std::filesystem::create_directories(dir);
    store = std::move(meta::OpenSqlite((dir / "m.db").string())).value();
  }
  ~TempMeta() {
    store.reset();
    std::filesystem::remove_all(dir);
  }
};

}  // namespace nubo::auth::testing
