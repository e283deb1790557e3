#include "meta/sqlite/sqlite_media.h"

#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"

#include "meta/sqlite/sqlite_search.h"

namespace nubo::meta::sqlite {

namespace {

std::string_view ValueText(sqlite3_value* v) {
  const unsigned char* p = sqlite3_value_text(v);  // before _bytes: it may convert
  if (!p) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v))};
}

void DeriveWantedFunction(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  const auto& wanted = *static_cast<const DeriveWanted*>(sqlite3_user_data(ctx));
  bool yes = true;  // in doubt, queue: a job that finds nothing to do costs only itself
  try {
    yes = wanted(ValueText(argv[0]), ValueText(argv[1]));
  } catch (...) {
  }
  sqlite3_result_int(ctx, yes ? 1 : 0);
}

// A job row's columns in JobFrom's order.
#define NUBO_JOB_COLS "id, kind, node_id, gen, run_at, attempts, lease_until, last_error"
constexpr const char* kJobSelect = "SELECT " NUBO_JOB_COLS " FROM jobs ";

JobRow JobFrom(const Stmt& s) {
  JobRow j;
  j.id = s.Int(0);
  j.kind = s.Text(1);
  j.node_id = s.Int(2);
  j.gen = s.Int(3);
  j.run_at_ms = s.Int(4);
  j.attempts = s.Int(5);
  j.lease_until_ms = s.Int(6);
  j.last_error = s.Text(7);
  return j;
}

DerivedRow DerivedFrom(const Stmt& s) {
  DerivedRow d;
  d.hash = s.Hash(0);
  d.variant = static_cast<int>(s.Int(1));
  d.state = static_cast<int>(s.Int(2));
  d.bytes = s.Int(3);
  d.created_at_ms = s.Int(4);
  return d;
}

Status CountStat(sql::Conn& c, const std::string& kind, bool done) {
  NUBO_PREPARE(s, c,
               "INSERT INTO job_stats (kind, done, failed) VALUES (?1, ?2, ?3) "
               "ON CONFLICT (kind) DO UPDATE SET done = job_stats.done + ?2, "
               "failed = job_stats.failed + ?3");
  s.Bind(1, kind).Bind(2, int64_t{done ? 1 : 0}).Bind(3, int64_t{done ? 0 : 1});
  return s.Exec();
}

}  // namespace

Result<JobCounts> CountJobs(sql::Conn& c, int64_t now_ms) {
  JobCounts out;
  {
    NUBO_PREPARE(s, c,
                 "SELECT count(*) FILTER (WHERE lease_until > ?1), "
                 "count(*) FILTER (WHERE lease_until <= ?1 AND attempts > 0), "
                 "count(*) FILTER (WHERE lease_until <= ?1 AND attempts = 0) FROM jobs");
    s.Bind(1, now_ms);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) {
      out.running = s.Int(0);
      out.retrying = s.Int(1);
      out.due = s.Int(2);
    }
  }
  NUBO_PREPARE(s, c, "SELECT COALESCE(sum(done), 0), COALESCE(sum(failed), 0) FROM job_stats");
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (row) {
    out.done = s.Int(0);
    out.failed = s.Int(1);
  }
  return out;
}

Result<bool> JobDue(sql::Conn& c, int64_t now_ms) {
  NUBO_PREPARE(s, c, "SELECT 1 FROM jobs WHERE run_at <= ?1 AND lease_until <= ?1 LIMIT 1");
  s.Bind(1, now_ms);
  return s.Step();
}

Result<std::vector<JobRow>> ListRetryingJobs(sql::Conn& c, size_t limit) {
  static const std::string sql =
      std::string(kJobSelect) +
      "WHERE attempts > 0 AND last_error != '' ORDER BY run_at DESC LIMIT ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, static_cast<int64_t>(limit));
  return Rows<JobRow>(s, JobFrom);
}

Result<std::optional<DerivedRow>> GetDerived(sql::Conn& c, const Digest& hash, int variant) {
  NUBO_PREPARE(s, c,
               "SELECT hash, variant, state, bytes, created_at FROM derived "
               "WHERE hash = ? AND variant = ?");
  s.Bind(1, hash).Bind(2, int64_t{variant});
  return One<DerivedRow>(s, DerivedFrom);
}

Result<std::vector<DerivedRow>> ListDerived(sql::Conn& c, const Digest& after_hash,
                                            int after_variant, size_t limit) {
  NUBO_PREPARE(s, c,
               "SELECT hash, variant, state, bytes, created_at FROM derived "
               "WHERE (hash, variant) > (?, ?) ORDER BY hash, variant LIMIT ?");
  s.Bind(1, after_hash).Bind(2, int64_t{after_variant}).Bind(3, static_cast<int64_t>(limit));
  return Rows<DerivedRow>(s, DerivedFrom);
}

Status DeleteDerived(sql::Conn& c, const Digest& hash, int variant) {
  NUBO_PREPARE(s, c, "DELETE FROM derived WHERE hash = ? AND variant = ?");
  s.Bind(1, hash).Bind(2, int64_t{variant});
  return s.Exec();
}

Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
    Conn& c, const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) {
  std::vector<std::pair<int64_t, std::string>> out;
  // One row at a time: snippet() runs only for the page's rows, never for
  // every match of the query.
  NUBO_PREPARE(s, c,
               "SELECT snippet(doc_text, 0, char(2), char(3), '…', 16) FROM doc_text "
               "WHERE doc_text MATCH ?1 AND rowid = ?2");
  for (int64_t id : node_ids) {
    for (const std::string& match : matches) {
      s.Bind(1, match).Bind(2, id);
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (row) out.emplace_back(id, s.Text(0));
      s.Reset();
      if (row) break;
    }
  }
  return out;
}

Result<bool> HasText(Conn& c, int64_t node_id) {
  NUBO_PREPARE(s, c, "SELECT 1 FROM doc_text WHERE rowid = ?");
  s.Bind(1, node_id);
  return s.Step();
}

PhotoRow PhotoFrom(const Stmt& s, int col) {
  PhotoRow p;
  p.node_id = s.Int(col);
  p.drive_id = s.Int(col + 1);
  p.taken_at_ms = s.Int(col + 2);
  p.taken_exact = s.Int(col + 3) != 0;
  p.width = s.Int(col + 4);
  p.height = s.Int(col + 5);
  p.orientation = static_cast<int>(s.Int(col + 6));
  p.camera = s.Text(col + 7);
  if (!s.IsNull(col + 8)) p.lat = s.Real(col + 8);
  if (!s.IsNull(col + 9)) p.lon = s.Real(col + 9);
  return p;
}

Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(sql::Conn& c, int64_t drive_id) {
  // The index range of the drive, newest first; months from the stored
  // wall-clock time.
  NUBO_PREPARE(s, c,
               c.dialect() == sql::Dialect::kSqlite
                   ? "SELECT strftime('%Y-%m', p.taken_at / 1000, 'unixepoch') AS m, count(*) "
                     "FROM photos p JOIN nodes n ON n.id = p.node_id "
                     "WHERE p.drive_id = ? AND n.trash_root IS NULL GROUP BY m ORDER BY m DESC"
                   : "SELECT to_char(to_timestamp(p.taken_at / 1000) AT TIME ZONE 'UTC', "
                     "'YYYY-MM') AS m, count(*) FROM photos p JOIN nodes n ON n.id = p.node_id "
                     "WHERE p.drive_id = ? AND n.trash_root IS NULL GROUP BY m ORDER BY m DESC");
  s.Bind(1, drive_id);
  std::vector<std::pair<std::string, int64_t>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.emplace_back(s.Text(0), s.Int(1));
  }
}

Result<std::vector<PhotoPlace>> PhotoPlaces(sql::Conn& c, int64_t drive_id, double cell_deg) {
  NUBO_PREPARE(s, c,
               "SELECT avg(p.lat), avg(p.lon), count(*), max(p.node_id) "
               "FROM photos p JOIN nodes n ON n.id = p.node_id "
               "WHERE p.drive_id = ?1 AND p.lat IS NOT NULL AND n.trash_root IS NULL "
               "GROUP BY CAST(floor(p.lat / ?2) AS INTEGER), CAST(floor(p.lon / ?2) AS INTEGER) "
               "ORDER BY count(*) DESC LIMIT 2000");
  s.Bind(1, drive_id).BindReal(2, cell_deg);
  std::vector<PhotoPlace> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back({s.Real(0), s.Real(1), s.Int(2), s.Int(3)});
  }
}

Result<std::optional<PhotoRow>> GetPhoto(sql::Conn& c, int64_t node_id) {
  static const std::string sql =
      std::string("SELECT ") + kPhotoCols + " FROM photos p WHERE p.node_id = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, node_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<PhotoRow>();
  return std::optional<PhotoRow>(PhotoFrom(s, 0));
}

Status PutPhoto(sql::Conn& c, const PhotoRow& r) {
  NUBO_PREPARE(s, c,
               "INSERT INTO photos (node_id, drive_id, taken_at, taken_exact, width, height, "
               "orientation, camera, lat, lon) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
               "ON CONFLICT (node_id) DO UPDATE SET drive_id = excluded.drive_id, "
               "taken_at = excluded.taken_at, taken_exact = excluded.taken_exact, "
               "width = excluded.width, height = excluded.height, "
               "orientation = excluded.orientation, camera = excluded.camera, lat = excluded.lat, "
               "lon = excluded.lon");
  s.Bind(1, r.node_id).Bind(2, r.drive_id).Bind(3, r.taken_at_ms).Bind(4, int64_t{r.taken_exact});
  s.Bind(5, r.width).Bind(6, r.height).Bind(7, int64_t{r.orientation}).Bind(8, r.camera);
  if (r.lat && r.lon) {
    s.BindReal(9, *r.lat).BindReal(10, *r.lon);
  } else {
    s.BindNull(9).BindNull(10);
  }
  return s.Exec();
}

Result<std::optional<JobRow>> ClaimJob(sql::Conn& c, int64_t now_ms, int64_t lease_ms) {
  // One statement (one round trip under PostgreSQL's writer lock); the
  // row comes back as updated: its new lease, the attempt counted.
  NUBO_PREPARE(s, c,
               "UPDATE jobs SET lease_until = ?2, attempts = attempts + 1 WHERE id = "
               "(SELECT id FROM jobs WHERE run_at <= ?1 AND lease_until <= ?1 "
               "ORDER BY run_at, id LIMIT 1) "
               "RETURNING " NUBO_JOB_COLS);
  s.Bind(1, now_ms).Bind(2, now_ms + lease_ms);
  return One<JobRow>(s, JobFrom);
}

Status FinishJob(sql::Conn& c, const JobRow& job) {
  NUBO_PREPARE(d, c, "DELETE FROM jobs WHERE id = ? AND gen = ?");
  d.Bind(1, job.id).Bind(2, job.gen);
  NUBO_RETURN_IF_ERROR(d.Exec());
  if (d.changes() == 0) {
    NUBO_PREPARE(u, c, "UPDATE jobs SET lease_until = 0, run_at = 0, attempts = 0 WHERE id = ?");
    u.Bind(1, job.id);
    NUBO_RETURN_IF_ERROR(u.Exec());
  }
  return CountStat(c, job.kind, true);
}

Status FailJob(sql::Conn& c, const JobRow& job, const std::string& error, int64_t retry_at_ms) {
  NUBO_PREPARE(u, c, "UPDATE jobs SET lease_until = 0, run_at = ?2, last_error = ?3 WHERE id = ?1");
  u.Bind(1, job.id).Bind(2, retry_at_ms).Bind(3, error);
  NUBO_RETURN_IF_ERROR(u.Exec());
  return CountStat(c, job.kind, false);
}

Status PutText(Conn& c, int64_t node_id, const std::string& text) {
  {
    NUBO_PREPARE(d, c, "DELETE FROM doc_text WHERE rowid = ?");
    d.Bind(1, node_id);
    NUBO_RETURN_IF_ERROR(d.Exec());
  }
  if (text.empty()) return Status::Ok();
  {
    NUBO_PREPARE(s, c, "INSERT INTO doc_text (rowid, body) VALUES (?, ?)");
    s.Bind(1, node_id).Bind(2, text);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  return StoreTextSize(c, node_id);
}

Status PutDerived(sql::Conn& c, const DerivedRow& row) {
  NUBO_PREPARE(s, c,
               "INSERT INTO derived (hash, variant, state, bytes, created_at) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT (hash, variant) DO UPDATE SET "
               "state = excluded.state, bytes = excluded.bytes, created_at = excluded.created_at");
  s.Bind(1, row.hash)
      .Bind(2, int64_t{row.variant})
      .Bind(3, int64_t{row.state})
      .Bind(4, row.bytes)
      .Bind(5, row.created_at_ms);
  return s.Exec();
}

Result<std::vector<DerivedRow>> TakeOrphanDerived(sql::Conn& c, size_t limit) {
  std::vector<DerivedRow> rows;
  {
    NUBO_PREPARE(s, c,
                 "SELECT hash, variant, state, bytes, created_at FROM derived d "
                 "WHERE NOT EXISTS (SELECT 1 FROM manifests m WHERE m.hash = d.hash) LIMIT ?");
    s.Bind(1, static_cast<int64_t>(limit));
    NUBO_ASSIGN_OR_RETURN(rows, Rows<DerivedRow>(s, DerivedFrom));
  }
  NUBO_PREPARE(d, c, "DELETE FROM derived WHERE hash = ? AND variant = ?");
  for (const DerivedRow& r : rows) {
    d.Bind(1, r.hash).Bind(2, int64_t{r.variant});
    NUBO_RETURN_IF_ERROR(d.Exec());
    d.Reset();
  }
  return rows;
}

Status RegisterDeriveWanted(sqlite3* db, const DeriveWanted& wanted) {
  auto* fn =
      new DeriveWanted(wanted ? wanted : [](std::string_view, std::string_view) { return true; });
  // SQLite owns `fn` from here, and deletes it when the connection closes
  // (or at once, should the registration fail). Innocuous: a trigger may
  // call it whatever the trusted_schema setting.
  const int rc = sqlite3_create_function_v2(db, "nubo_derive_wanted", 2,
                                            SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                            fn, DeriveWantedFunction, nullptr, nullptr,
                                            [](void* p) { delete static_cast<DeriveWanted*>(p); });
  if (rc != SQLITE_OK) return SqliteError(db, rc, "register nubo_derive_wanted");
  return Status::Ok();
}

// ---- The transaction's methods of this capability (sqlite_txn.h) ----

Result<std::optional<JobRow>> SqliteTxn::ClaimJob(int64_t now_ms, int64_t lease_ms) {
  return sqlite::ClaimJob(c_, now_ms, lease_ms);
}

Status SqliteTxn::FinishJob(const JobRow& job) { return sqlite::FinishJob(c_, job); }

Status SqliteTxn::FailJob(const JobRow& job, const std::string& error, int64_t retry_at_ms) {
  return sqlite::FailJob(c_, job, error, retry_at_ms);
}

Status SqliteTxn::QueueJob(const std::string& kind, int64_t node_id) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO jobs (kind, node_id) VALUES (?, ?) ON CONFLICT (kind, node_id) DO "
               "UPDATE SET gen = jobs.gen + 1, run_at = 0, attempts = 0");
  s.Bind(1, kind).Bind(2, node_id);
  return s.Exec();
}

Status SqliteTxn::DropJob(const std::string& kind, int64_t node_id) {
  NUBO_PREPARE(s, c_, "DELETE FROM jobs WHERE kind = ? AND node_id = ?");
  s.Bind(1, kind).Bind(2, node_id);
  return s.Exec();
}

Status SqliteTxn::PutDerived(const DerivedRow& row) { return sqlite::PutDerived(c_, row); }

Status SqliteTxn::DeleteDerived(const Digest& hash, int variant) {
  return sqlite::DeleteDerived(c_, hash, variant);
}

Status SqliteTxn::PutPhoto(const PhotoRow& row) { return sqlite::PutPhoto(c_, row); }

Result<std::vector<DerivedRow>> SqliteTxn::TakeOrphanDerived(size_t limit) {
  return sqlite::TakeOrphanDerived(c_, limit);
}

Result<JobCounts> SqliteTxn::CountJobs(int64_t now_ms) { return sqlite::CountJobs(c_, now_ms); }

Result<bool> SqliteTxn::JobDue(int64_t now_ms) { return sqlite::JobDue(c_, now_ms); }

Result<std::vector<JobRow>> SqliteTxn::ListRetryingJobs(size_t limit) {
  return sqlite::ListRetryingJobs(c_, limit);
}

Result<std::optional<DerivedRow>> SqliteTxn::GetDerived(const Digest& hash, int variant) {
  return sqlite::GetDerived(c_, hash, variant);
}

Result<std::vector<DerivedRow>> SqliteTxn::ListDerived(const Digest& after_hash, int after_variant,
                                                       size_t limit) {
  return sqlite::ListDerived(c_, after_hash, after_variant, limit);
}

Result<std::vector<std::pair<PhotoRow, NodeRow>>> SqliteTxn::ListPhotos(
    int64_t drive_id, const std::optional<std::pair<int64_t, int64_t>>& before, size_t limit,
    int64_t viewer) {
  // One range of photos_timeline, newest first.
  static const std::string sql =
      "SELECT " + std::string(kNodeCols) + ", " + sqlite::kPhotoCols +
      " FROM photos p JOIN nodes n ON n.id = p.node_id WHERE p.drive_id = ?2 "
      "AND n.trash_root IS NULL AND (p.taken_at, p.node_id) < (?3, ?4) "
      "ORDER BY p.taken_at DESC, p.node_id DESC LIMIT ?5";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, drive_id);
  s.Bind(3, before ? before->first : INT64_MAX).Bind(4, before ? before->second : INT64_MAX);
  s.Bind(5, static_cast<int64_t>(limit));
  std::vector<std::pair<PhotoRow, NodeRow>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.emplace_back(sqlite::PhotoFrom(s, kNodeColCount), NodeFrom(s));
  }
}

Result<std::vector<std::pair<std::string, int64_t>>> SqliteTxn::PhotoMonths(int64_t drive_id) {
  return sqlite::PhotoMonths(c_, drive_id);
}

Result<std::vector<PhotoPlace>> SqliteTxn::PhotoPlaces(int64_t drive_id, double cell_deg) {
  return sqlite::PhotoPlaces(c_, drive_id, cell_deg);
}

Result<std::optional<PhotoRow>> SqliteTxn::GetPhoto(int64_t node_id) {
  return sqlite::GetPhoto(c_, node_id);
}

}  // namespace nubo::meta::sqlite
