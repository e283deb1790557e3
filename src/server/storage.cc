#include "server/storage.h"

#include "blob/disk/disk_chunk_store.h"
#include "files/files.h"
#include "media/derive_job.h"
#include "meta/pg/pg_store.h"
#include "meta/sqlite/sqlite_store.h"
#include "util/fs.h"

namespace nubo::server {

std::string DatabasePath(const std::string& data_dir) { return data_dir + "/nubo.db"; }

std::string DatabaseName(const std::string& data_dir, const std::string& database) {
  return database.empty() ? DatabasePath(data_dir) : "the PostgreSQL database (storage.database)";
}

Result<Storage> OpenStorage(const std::string& data_dir, const std::string& database,
                            bool migrate) {
  NUBO_RETURN_IF_ERROR(MakeDirsDurable(data_dir));
  Storage s;
  if (database.empty()) {
    meta::SqliteOptions o;
    o.migrate = migrate;
    o.derive_wanted = media::DeriveWanted;
    NUBO_ASSIGN_OR_RETURN(s.meta, meta::OpenSqlite(DatabasePath(data_dir), o));
  } else {
    meta::PgOptions o;
    o.migrate = migrate;
    NUBO_ASSIGN_OR_RETURN(s.meta, meta::OpenPostgres(database, o));
  }
  // Listing keys of rows that predate them (or an older ICU) are part of
  // bringing the schema up to date: listings order by them.
  if (migrate) NUBO_RETURN_IF_ERROR(files::FillSortKeys(*s.meta).status());
  NUBO_ASSIGN_OR_RETURN(auto disk,
                        blob::DiskChunkStore::Open(data_dir + "/chunks", data_dir + "/tmp"));
  s.chunks = std::move(disk);
  return s;
}

Result<int> MigrateDatabase(const std::string& data_dir, const std::string& database) {
  if (!database.empty()) return meta::MigratePostgres(database);
  return meta::MigrateSqlite(DatabasePath(data_dir));
}

}  // namespace nubo::server
