// The MetaStore's transaction and schema upkeep over any engine behind
// meta/sql. SQLite's store and PostgreSQL's run the same statements
// through these; where the engines' SQL differs, the code asks
// Conn::dialect(). Internal to meta. (Defined in meta/sqlite/sqlite_store.cc
// for now, where the statements grew up.)
#pragma once

#include <memory>
#include <vector>

#include "meta/meta_store.h"
#include "meta/migrations.h"
#include "meta/sql/sql.h"

namespace nubo::meta::sql {

// A transaction's operations on `c`, which the caller has begun (and
// commits or rolls back).
std::unique_ptr<WriteTxn> NewTxn(Conn& c);

// The schema's version (0: empty database).
Result<int> CurrentVersion(Conn& c);

// Applies every migration of `all` above the current version, each in its
// own transaction with its version row, so a crash leaves whole
// migrations. Refuses (Unsupported) a database newer than `all`, and one
// that needs migrations when `allowed` is false. Returns how many ran.
Result<int> ApplyMigrations(Conn& c, const std::vector<Migration>& all, bool allowed);

}  // namespace nubo::meta::sql
