#include "meta/pg/pg_store.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "meta/group_commit.h"
#include "meta/migrations.h"
#include "meta/pg/pg_conn.h"
#include "meta/sql/pool.h"
#include "meta/sql/sql_txn.h"

namespace nubo::meta {

namespace {

using pg::Conn;

class PgStore final : public MetaStore {
 public:
  PgStore(std::string conninfo, PgOptions o) : conninfo_(std::move(conninfo)), opt_(o) {}

  Status Read(const std::function<Status(ReadTxn&)>& fn) override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    // BEGIN rides with the transaction's first statement (one round trip
    // less per read); a read that ran none has no transaction to end.
    c->SendWithNext("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    auto txn = sql::NewTxn(*c);
    Status st = fn(*txn);
    if (!c->DropUnsent()) {
      Status end = c->Run(st.ok() ? "COMMIT" : "ROLLBACK");
      if (st.ok()) st = end;
    }
    Release(std::move(c));
    return st;
  }

  // Writers that arrive while a batch runs wait and go together in the
  // next one (see RunWrites): N concurrent uploads share one COMMIT, so one
  // WAL flush, and one turn of the database-wide writer lock.
  Status Write(const std::function<Status(WriteTxn&)>& fn) override {
    ++writes_;
    return batches_.Submit(&fn);
  }

  Result<int> SchemaVersion() override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    auto v = sql::CurrentVersion(*c);
    Release(std::move(c));
    return v;
  }

  WriteStats Stats() const override { return {writes_.load(), commits_.load()}; }

  Status RefreshStatistics() override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    // Tables never analyzed that have changed enough for a plan to matter;
    // once analyzed they are autovacuum's (its thresholds grow with the
    // table).
    Result<std::vector<std::string>> due = [&]() -> Result<std::vector<std::string>> {
      NUBO_ASSIGN_OR_RETURN(
          sql::Stmt s,
          c->Prepare(
              "SELECT quote_ident(schemaname) || '.' || quote_ident(relname) FROM "
              "pg_stat_user_tables WHERE n_mod_since_analyze >= 500 AND last_analyze IS NULL "
              "AND last_autoanalyze IS NULL"));
      return sql::Rows<std::string>(s, [](const sql::Stmt& r) { return r.Text(0); });
    }();
    Status st = due.status();
    // ANALYZE invalidates the plans built without statistics.
    for (size_t i = 0; st.ok() && i < due->size(); ++i) st = c->Exec("ANALYZE " + (*due)[i]);
    Release(std::move(c));
    return st;
  }

 private:
  using WriteFn = const std::function<Status(WriteTxn&)>*;
  using WriteBatch = std::vector<GroupCommit<WriteFn>::Entry*>;

  // Opens a write transaction: one writer at a time, across every process
  // on this database, as SQLite has one. Writes bump shared rows (the
  // drive's change number, every ancestor's size), so side-by-side writers
  // would mostly undo each other. The lock is taken before the transaction
  // reads anything, and READ COMMITTED then reads what the previous writer
  // committed: serialized writers see one consistent state.
  // Everything a write sends before its own statements goes in one round
  // trip (one simple query of several statements), as does each step
  // from one write of a batch to the next: the writer lock is held for
  // every round trip, so each one counts N times when N writers queue.
  // `first_savepoint`: open the first write's savepoint too (a batch).
  static Status BeginWrite(Conn& c, bool first_savepoint) {
    return c.Exec(first_savepoint ? "BEGIN ISOLATION LEVEL READ COMMITTED; "
                                    "SELECT pg_advisory_xact_lock(7236101); SAVEPOINT w"
                                  : "BEGIN ISOLATION LEVEL READ COMMITTED; "
                                    "SELECT pg_advisory_xact_lock(7236101)");
  }

  // Runs one callback on an open write transaction. A callback that went
  // on past a failed statement has lost its work: SQLite would have kept
  // the rest of the transaction, PostgreSQL has ended it (and a COMMIT
  // would quietly roll back). Never report that as done.
  static Status RunCallback(Conn& c, WriteFn fn) {
    Status st;
    auto txn = sql::NewTxn(c);
    try {
      st = (*fn)(*txn);
    } catch (const std::exception& ex) {
      st = Status::Internal(std::string("write threw: ") + ex.what());
    }
    if (st.ok() && c.InFailedTransaction()) {
      st = Status::Internal(
          "a statement of this write failed and the database ended its transaction");
    }
    return st;
  }

  // One write in a transaction of its own. A deadlock or serialization
  // failure means the server undid the whole transaction: run it again,
  // after a jittered pause.
  Status WriteAlone(WriteFn fn) {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    Status st;
    for (int attempt = 1;; ++attempt) {
      st = BeginWrite(*c, false);
      if (st.ok()) st = RunCallback(*c, fn);
      if (st.ok()) {
        st = c->Run("COMMIT");  // a failed COMMIT ends the transaction too
        ++commits_;
      } else {
        (void)c->Run("ROLLBACK");
      }
      if (st.code() != Code::kAborted || attempt >= opt_.max_attempts || !c->Healthy()) break;
      std::this_thread::sleep_for(Backoff(attempt));
    }
    Release(std::move(c));
    return st;
  }

  // A batch in one transaction, each write inside its own savepoint: a
  // write that fails is rolled back to its savepoint and answers its own
  // error, the others commit together. Equivalent to running them one
  // after the other, and each caller returns only after the COMMIT that
  // holds its write (with synchronous_commit on: durable). A write the
  // server undid for a deadlock or serialization failure, or one whose
  // batch was lost, runs again alone (callbacks may run more than once).
  //
  // The transaction is opened (OpenBatch), and the writer lock taken, before
  // the batch is taken from the queue: while another process holds the
  // lock, the writes that arrive here join the batch that waits for it.
  // Without that, two nodes each committed about half as many writes at a
  // time as one node, and the database flushed its WAL more often per file.
  void RunWrites(WriteBatch& batch) {
    // again[i]: batch[i] runs again alone after this transaction.
    std::vector<bool> again(batch.size(), false);
    std::unique_ptr<Conn> c = std::move(opened_);
    if (!c) {
      for (auto* e : batch) e->result = opened_status_;
      return;
    }
    bool lost = !opened_status_.ok();        // the transaction is gone: nothing in it commits
    bool any = false;                        // a write that will commit
    for (size_t i = 0; i < batch.size() && !lost; ++i) {
      // Savepoint w is open here (BeginWrite, or the step below).
      Status& st = batch[i]->result;
      st = RunCallback(*c, batch[i]->item);
      if (st.ok()) {
        any = true;
      } else {
        again[i] = st.code() == Code::kAborted;
        // ROLLBACK TO keeps the savepoint: the next write reuses it.
        if (!c->Exec("ROLLBACK TO w").ok()) lost = true;
      }
      // The last write's savepoint ends with the COMMIT.
      if (!lost && i + 1 < batch.size() && !c->Exec("RELEASE w; SAVEPOINT w").ok()) lost = true;
    }
    // The writes the transaction holds (those not yet run after a loss
    // included); a write that failed alone keeps its own answer.
    auto held = [&](size_t i) { return batch[i]->result.ok(); };
    if (lost || !any) {
      (void)c->Run("ROLLBACK");
      if (lost) {
        for (size_t i = 0; i < batch.size(); ++i) again[i] = again[i] || held(i);
      }
    } else {
      const Status commit = c->Run("COMMIT");
      ++commits_;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (!held(i)) continue;
        if (commit.code() == Code::kAborted) {
          again[i] = true;
        } else {
          batch[i]->result = commit;
        }
      }
    }
    Release(std::move(c));
    for (size_t i = 0; i < batch.size(); ++i) {
      if (again[i]) batch[i]->result = WriteAlone(batch[i]->item);
    }
  }

  // Up to 2^attempt ms, at most about 0.5 s, with full jitter so that
  // writers that collided do not collide again in step.
  std::chrono::microseconds Backoff(int attempt) {
    thread_local std::mt19937 rng{std::random_device{}()};
    const int64_t cap_us = std::min<int64_t>(int64_t{1000} << std::min(attempt, 9), 500'000);
    return std::chrono::microseconds(std::uniform_int_distribution<int64_t>(0, cap_us)(rng));
  }

  // The next batch's transaction, opened by its leader before it takes the
  // queue (only the leader touches opened_).
  void OpenBatch() {
    opened_.reset();
    opened_status_ = Status::Internal("the batch's transaction was not opened");
    auto conn = Acquire();
    if (!conn.ok()) {
      opened_status_ = conn.status();
      return;
    }
    opened_ = std::move(*conn);
    opened_status_ = BeginWrite(*opened_, true);
  }

  Result<std::unique_ptr<Conn>> Acquire() { return pool_.Acquire(); }
  // A connection the server dropped is closed, not pooled.
  void Release(std::unique_ptr<Conn> c) {
    const bool healthy = c->Healthy();
    pool_.Release(std::move(c), healthy);
  }

  std::string conninfo_;
  PgOptions opt_;
  sql::Pool<Conn> pool_{opt_.max_connections, [this] { return Conn::Open(conninfo_); }};
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> commits_{0};
  std::unique_ptr<Conn> opened_;  // OpenBatch
  Status opened_status_;
  GroupCommit<WriteFn> batches_{[this](WriteBatch& b) { RunWrites(b); }, [this] { OpenBatch(); }};
};

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenPostgres(const std::string& conninfo, PgOptions options) {
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Conn::Open(conninfo));
  NUBO_RETURN_IF_ERROR(sql::ApplyMigrations(*c, PgMigrations(), options.migrate).status());
  return std::unique_ptr<MetaStore>(new PgStore(conninfo, options));
}

Result<int> MigratePostgres(const std::string& conninfo) {
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Conn::Open(conninfo));
  return sql::ApplyMigrations(*c, PgMigrations(), true);
}

}  // namespace nubo::meta
