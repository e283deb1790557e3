// SQLite MetaStore: WAL, synchronous=FULL (a commit survives power loss),
// foreign keys on, busy_timeout; one writer connection (serialized) plus a
// pool of reader connections; each connection caches its prepared
// statements. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "meta/meta_store.h"

namespace nubo::meta {

// Whether the derive job can do anything for a file of this name and type
// (media::DeriveWanted). SQLite's triggers ask it through the SQL function
// nubo_derive_wanted (migration 0032) before they queue a job, so a file
// none applies to never writes one; empty: every file is queued.
using DeriveWanted = std::function<bool(std::string_view name, std::string_view mime)>;

struct SqliteOptions {
  int max_readers = 8;
  int busy_timeout_ms = 5000;
  // Apply pending migrations at open (serve does; `nubo migrate` is explicit).
  bool migrate = true;
  DeriveWanted derive_wanted;
};

// Opens (creating if needed) the database at `path`. Refuses (Unsupported)
// a database whose schema is newer than this binary's migrations, and one
// that needs migrations when `migrate` is false.
Result<std::unique_ptr<MetaStore>> OpenSqlite(const std::string& path, SqliteOptions options = {});

// Applies pending migrations; returns how many ran.
Result<int> MigrateSqlite(const std::string& path);

}  // namespace nubo::meta
