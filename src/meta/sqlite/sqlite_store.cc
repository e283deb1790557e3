#include "meta/sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "meta/group_commit.h"
#include "meta/migrations.h"
#include "meta/sql/pool.h"
#include "meta/sql/sql_txn.h"
#include "meta/sqlite/sqlite_conn.h"
#include "meta/sqlite/sqlite_txn.h"
#include "util/time.h"

namespace nubo::meta {

using namespace sqlite;  // NOLINT: the connection helpers of this backend

namespace sql {

std::unique_ptr<WriteTxn> NewTxn(Conn& c) { return std::make_unique<SqliteTxn>(c); }

Result<int> CurrentVersion(Conn& c) {
  NUBO_RETURN_IF_ERROR(
      c.Exec(c.dialect() == Dialect::kSqlite
                 ? "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                   "name TEXT NOT NULL, applied_at INTEGER NOT NULL)"
                 : "CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, "
                   "name text NOT NULL, applied_at bigint NOT NULL)"));
  NUBO_PREPARE(s, c, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? static_cast<int>(s.Int(0)) : 0;
}

// Applies every migration above the current version, each in its own
// transaction with its version row, so a crash leaves whole migrations.
Result<int> ApplyMigrations(Conn& c, const std::vector<Migration>& all, bool allowed) {
  NUBO_ASSIGN_OR_RETURN(int current, CurrentVersion(c));
  int latest = all.empty() ? 0 : all.back().version;
  if (current > latest) {
    return Status::Unsupported("database schema version " + std::to_string(current) +
                               " is newer than this nubo understands (" + std::to_string(latest) +
                               "): upgrade nubo");
  }
  int applied = 0;
  for (const auto& m : all) {
    if (m.version <= current) continue;
    if (!allowed) {
      return Status::Unsupported("database needs migration to version " + std::to_string(latest) +
                                 ": run `nubo migrate`");
    }
    NUBO_RETURN_IF_ERROR(c.Exec(c.dialect() == Dialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
    if (c.dialect() == Dialect::kPostgres) {
      // One migrator at a time when several nodes start together.
      NUBO_RETURN_IF_ERROR(c.Exec("SELECT pg_advisory_xact_lock(7236100)"));
      NUBO_ASSIGN_OR_RETURN(int now, CurrentVersion(c));
      if (now >= m.version) {
        NUBO_RETURN_IF_ERROR(c.Exec("COMMIT"));
        continue;
      }
    }
    Status st = c.Exec(m.sql);
    if (st.ok()) {
      NUBO_PREPARE(s, c,
                   "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
      std::string name(m.name);
      s.Bind(1, m.version).Bind(2, name).Bind(3, UnixMillis());
      st = s.Exec();
    }
    if (!st.ok()) {
      (void)c.Exec("ROLLBACK");
      return st.WithContext("migration " + std::string(m.name));
    }
    NUBO_RETURN_IF_ERROR(c.Exec("COMMIT"));
    ++applied;
  }
  return applied;
}

}  // namespace sql

namespace {

class SqliteStore final : public MetaStore {
 public:
  SqliteStore(std::string path, SqliteOptions o, std::unique_ptr<Conn> writer)
      : path_(std::move(path)), opt_(o), writer_(std::move(writer)) {}

  Status Read(const std::function<Status(ReadTxn&)>& fn) override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    Status st = c->Run("BEGIN");
    if (st.ok()) {
      SqliteTxn txn(*c);
      st = fn(txn);
      Status end = st.ok() ? c->Run("COMMIT") : c->Run("ROLLBACK");
      if (st.ok()) st = end;
    }
    Release(std::move(c));
    return st;
  }

  Status Write(const std::function<Status(WriteTxn&)>& fn) override { return writes_.Submit(&fn); }

  Result<int> SchemaVersion() override {
    std::lock_guard lock(writer_mu_);
    return sql::CurrentVersion(*writer_);
  }

  WriteStats Stats() const override {
    return {writes_.items(), writes_.batches(), reruns_.load(std::memory_order_relaxed)};
  }

  // This process's commits move the stamp before their writers return
  // (RunWrites). Another process's show in PRAGMA data_version, which
  // changes whenever another connection committed since the connection
  // asking last looked (sqlite.org/pragma.html#pragma_data_version);
  // asking costs a read transaction and its shared-memory locks — on a
  // poll storm a quarter of the server's CPU when every call asked — so
  // it is asked at most once per kOtherProcessesUs, on a connection of
  // its own, by one thread at a time while the others take the stamp as
  // it is.
  std::optional<uint64_t> ChangeStamp() override {
    const int64_t now = MonotonicNanos() / 1000;
    if (now - checked_us_.load(std::memory_order_acquire) < kOtherProcessesUs) {
      return stamp_.load(std::memory_order_acquire);
    }
    std::unique_lock lock(check_mu_, std::try_to_lock);
    if (!lock.owns_lock()) return stamp_.load(std::memory_order_acquire);
    if (!check_conn_) {
      auto c = Conn::Open(path_, opt_.busy_timeout_ms, opt_.derive_wanted);
      if (!c.ok()) return std::nullopt;
      check_conn_ = std::move(*c);
    }
    auto s = check_conn_->Prepare("PRAGMA data_version");
    if (!s.ok()) return std::nullopt;
    auto row = s->Step();
    if (!row.ok() || !*row) return std::nullopt;
    const int64_t v = s->Int(0);
    if (v != seen_data_version_) {
      seen_data_version_ = v;
      stamp_.fetch_add(1, std::memory_order_acq_rel);
    }
    checked_us_.store(now, std::memory_order_release);
    return stamp_.load(std::memory_order_acquire);
  }

 private:
  using WriteFn = const std::function<Status(WriteTxn&)>*;
  using WriteBatch = std::vector<GroupCommit<WriteFn>::Entry*>;

  // Runs a batch of writes in one transaction and one durable commit,
  // equivalent to running them one after the other: a write that fails
  // answers its own error and leaves nothing behind, the others commit.
  void RunWrites(WriteBatch& batch) {
    std::lock_guard lock(writer_mu_);
    if (batch.size() > 1 && RunTogether(batch)) return;
    RunInSavepoints(batch);
  }

  // The usual case, every write succeeding: the writes run back to back
  // with no savepoint between them. A savepoint per write costs more than
  // its two statements: FTS5 writes its pending rows out as a new index
  // segment at every savepoint (fts5 xSavepoint), so the name index of a
  // batch of N new files took N segments and their merges instead of one
  // (bench/results/2026-12-07-s3-batch-without-savepoints.md). When a write
  // fails, nothing of the transaction can be kept apart from it: the batch
  // is rolled back and runs again in savepoints (a write may run more than
  // once — meta_store.h). False then; true when the batch is answered.
  bool RunTogether(WriteBatch& batch) {
    Status begin = writer_->Run("BEGIN IMMEDIATE");
    if (!begin.ok()) {
      for (auto* e : batch) e->result = begin;
      return true;
    }
    SqliteTxn txn(*writer_);
    for (auto* e : batch) {
      const Status st = RunOne(e->item, txn);
      // SQLite may also have ended the transaction itself (an I/O error,
      // a full disk: sqlite.org/lang_transaction.html).
      if (!st.ok() || sqlite3_get_autocommit(writer_->db())) {
        if (!sqlite3_get_autocommit(writer_->db())) (void)writer_->Exec("ROLLBACK");
        reruns_.fetch_add(1, std::memory_order_relaxed);
        return false;
      }
    }
    const Status commit = Commit();
    for (auto* e : batch) e->result = commit;
    return true;
  }

  // One write's callback on the open transaction.
  static Status RunOne(WriteFn fn, SqliteTxn& txn) {
    try {
      return (*fn)(txn);
    } catch (const std::exception& ex) {
      return Status::Internal(std::string("write threw: ") + ex.what());
    }
  }

  // Ends a batch's transaction with its durable commit; a commit that
  // fails leaves nothing behind.
  Status Commit() {
    Status commit = writer_->Run("COMMIT");
    if (commit.ok()) {
      stamp_.fetch_add(1, std::memory_order_acq_rel);  // ChangeStamp
    } else {
      (void)writer_->Exec("ROLLBACK");
    }
    return commit;
  }

  // Each write inside its own savepoint: a write that fails is rolled back
  // to its savepoint and answers its own error, the others commit together.
  void RunInSavepoints(WriteBatch& batch) {
    Status begin = writer_->Run("BEGIN IMMEDIATE");
    if (!begin.ok()) {
      for (auto* e : batch) e->result = begin;
      return;
    }
    SqliteTxn txn(*writer_);
    const bool single = batch.size() == 1;
    bool lost = false;  // SQLite rolled the whole transaction back
    for (auto* e : batch) {
      if (lost) {
        e->result = Status::Unavailable("the group commit this write joined was rolled back");
        continue;
      }
      if (!single) {
        e->result = writer_->Run("SAVEPOINT w");
        if (!e->result.ok()) continue;
      }
      e->result = RunOne(e->item, txn);
      if (single) break;
      if (sqlite3_get_autocommit(writer_->db())) {
        // An I/O error, a full disk or the like ended the transaction
        // (sqlite.org/lang_transaction.html, "Response To Errors Within A
        // Transaction"): the writes before this one are gone too.
        lost = true;
        if (e->result.ok()) e->result = Status::Unavailable("the transaction was rolled back");
        continue;
      }
      if (!e->result.ok()) (void)writer_->Run("ROLLBACK TO w");
      (void)writer_->Run("RELEASE w");
    }
    if (lost) {
      for (auto* e : batch) {
        if (e->result.ok())
          e->result = Status::Unavailable("the group commit this write joined was rolled back");
      }
      return;
    }
    const bool any =
        std::any_of(batch.begin(), batch.end(), [](auto* e) { return e->result.ok(); });
    if (!any) {
      (void)writer_->Exec("ROLLBACK");
      return;
    }
    const Status commit = Commit();
    if (!commit.ok()) {
      for (auto* e : batch) {
        if (e->result.ok()) e->result = commit;
      }
    }
  }

  Result<std::unique_ptr<Conn>> Acquire() { return readers_.Acquire(); }
  void Release(std::unique_ptr<Conn> c) { readers_.Release(std::move(c)); }

  std::string path_;
  SqliteOptions opt_;
  std::mutex writer_mu_;
  GroupCommit<WriteFn> writes_{[this](WriteBatch& b) { RunWrites(b); }};
  std::unique_ptr<Conn> writer_;
  // ChangeStamp: another process's commit shows within this long.
  static constexpr int64_t kOtherProcessesUs = 1000;
  std::atomic<uint64_t> stamp_{0};
  std::atomic<uint64_t> reruns_{0};  // batches run again in savepoints
  std::atomic<int64_t> checked_us_{INT64_MIN / 2};
  std::mutex check_mu_;
  std::unique_ptr<Conn> check_conn_;  // under check_mu_
  int64_t seen_data_version_ = -1;    // under check_mu_
  sql::Pool<Conn> readers_{opt_.max_readers, [this] {
                             return Conn::Open(path_, opt_.busy_timeout_ms, opt_.derive_wanted);
                           }};
};

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenSqlite(const std::string& path, SqliteOptions options) {
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> writer,
                        Conn::Open(path, options.busy_timeout_ms, options.derive_wanted));
  NUBO_RETURN_IF_ERROR(sql::ApplyMigrations(*writer, Migrations(), options.migrate).status());
  return std::unique_ptr<MetaStore>(new SqliteStore(path, options, std::move(writer)));
}

Result<int> MigrateSqlite(const std::string& path) {
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Conn::Open(path, 5000));
  return sql::ApplyMigrations(*c, Migrations(), true);
}

}  // namespace nubo::meta
