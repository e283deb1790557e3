// PostgreSQL MetaStore: a pool of libpq connections; reads in a
// REPEATABLE READ READ ONLY transaction (one snapshot, like SQLite's, and
// side by side with writes); writes one at a time across every process on
// the database (an advisory lock, as SQLite has one writer), the writes
// that wait in one process grouped into one transaction (group_commit.h),
// retried with jittered backoff when the server reports a deadlock or
// serialization failure — so a write callback may run more than once and
// must not act outside the transaction. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "meta/meta_store.h"

namespace nubo::meta {

struct PgOptions {
  int max_connections = 8;
  // Attempts of a write before its serialization failure is returned.
  int max_attempts = 12;
  // Apply pending migrations at open (serve does; `nubo migrate` is explicit).
  bool migrate = true;
};

// Opens the database `conninfo` names (a libpq connection string or a
// postgres:// URI). Refuses (Unsupported) a schema newer than this
// binary's migrations, and one that needs migrations when `migrate` is
// false.
Result<std::unique_ptr<MetaStore>> OpenPostgres(const std::string& conninfo,
                                                PgOptions options = {});

// Applies pending migrations; returns how many ran.
Result<int> MigratePostgres(const std::string& conninfo);

}  // namespace nubo::meta
