// Opens the embedded storage under the data directory (ARCHITECTURE.md §1):
// <data>/nubo.db (SQLite), <data>/chunks (chunk files), <data>/tmp.
#pragma once

#include <memory>
#include <string>

#include "blob/chunk_store.h"
#include "meta/meta_store.h"

namespace nubo::server {

struct Storage {
  std::unique_ptr<meta::MetaStore> meta;
  std::unique_ptr<blob::ChunkStore> chunks;
};

std::string DatabasePath(const std::string& data_dir);

// `migrate`: apply pending migrations (serve does); otherwise refuse a
// database that needs them.
Result<Storage> OpenStorage(const std::string& data_dir, bool migrate);

}  // namespace nubo::server
