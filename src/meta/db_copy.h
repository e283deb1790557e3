// Moving an installation's metadata from SQLite to PostgreSQL (`nubo db
// copy`): every row of every table, in one PostgreSQL transaction, then
// read back and compared. The chunk files stay where they are; the copy is
// metadata only. See docs/postgresql.md ("Moving from SQLite").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace nubo::meta {

struct CopiedTable {
  std::string name;
  int64_t rows = 0;
};

struct CopyReport {
  std::vector<CopiedTable> tables;  // in the order they were copied
  int64_t rows = 0;                 // over every table
  // SQLite tables with no PostgreSQL counterpart, left behind: SQLite's
  // search index (FTS5 and what is derived from it). The text it indexes
  // (doc_text) is copied, and PostgreSQL indexes it its own way as it
  // arrives (a generated tsvector column, migrations/pg/0028).
  std::vector<std::string> left_behind;
  int schema_version = 0;
};

struct CopyOptions {
  // Rows per INSERT (one round trip each); PostgreSQL checks foreign keys
  // at the end of each statement, so tests copy row by row to hold the
  // order of the rows to account.
  size_t batch_rows = 500;
};

// Copies the SQLite database at `sqlite_path` into the PostgreSQL database
// `conninfo` names, which must be empty or at this binary's schema
// version (another version is refused untouched), is migrated, and must
// hold no installation (no user, drive, node, manifest or chunk; what a
// fresh schema seeds is replaced). Refuses (FailedPrecondition) a source that is not at this
// binary's schema version, and either side while a `nubo serve` process
// is alive on it. Row ids, node ids and every value are kept; the
// target's id sequences continue after the largest id the source ever
// gave out. All or nothing: the target commits once, after every row is
// in; then each table is read back from the target and its row count and
// a digest of its rows' values must equal the source's (Internal when
// not). The source is only read, inside one snapshot.
Result<CopyReport> CopySqliteToPostgres(const std::string& sqlite_path, const std::string& conninfo,
                                        CopyOptions options = {});

}  // namespace nubo::meta
