// SQLite MetaStore: WAL, synchronous=FULL (a commit survives power loss),
// foreign keys on, busy_timeout; one writer connection (serialized) plus a
// pool of reader connections; each connection caches its prepared
// statements. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "meta/meta_store.h"

namespace nubo::meta {

struct SqliteOptions {
  int max_readers = 8;
  int busy_timeout_ms = 5000;
  // Apply pending migrations at open (serve does; `nubo migrate` is explicit).
  bool migrate = true;
};

// Opens (creating if needed) the database at `path`. Refuses (Unsupported)
// a database whose schema is newer than this binary's migrations, and one
// that needs migrations when `migrate` is false.
Result<std::unique_ptr<MetaStore>> OpenSqlite(const std::string& path, SqliteOptions options = {});

// Applies pending migrations; returns how many ran.
Result<int> MigrateSqlite(const std::string& path);

}  // namespace nubo::meta
