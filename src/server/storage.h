// Opens the storage (ARCHITECTURE.md §1): the metadata in <data>/nubo.db
// (SQLite) or in the PostgreSQL database `database` names, the chunk files
// in <data>/chunks, <data>/tmp.
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

// How logs and messages name the metadata database (never a password).
std::string DatabaseName(const std::string& data_dir, const std::string& database);

// `database`: empty for SQLite at DatabasePath(data_dir), or a postgres://
// URL. `migrate`: apply pending migrations (serve does); otherwise refuse a
// database that needs them.
Result<Storage> OpenStorage(const std::string& data_dir, const std::string& database,
                            bool migrate);

// Applies pending migrations; returns how many ran.
Result<int> MigrateDatabase(const std::string& data_dir, const std::string& database);

}  // namespace nubo::server
