// Schema migrations: numbered .sql files in meta/migrations/, embedded in
// the binary at build time (CMake generates migrations_embedded.cc).
#pragma once

#include <string_view>
#include <vector>

namespace nubo::meta {

struct Migration {
  int version;            // PERSISTED: the file's number; never renumber
  std::string_view name;  // file name
  std::string_view sql;
};

// SQLite's (meta/migrations/*.sql), in ascending version order.
const std::vector<Migration>& Migrations();
// PostgreSQL's (meta/migrations/pg/*.sql): a baseline at version 25, then
// the same numbers as SQLite's.
const std::vector<Migration>& PgMigrations();

}  // namespace nubo::meta
