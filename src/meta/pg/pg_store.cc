#include "meta/pg/pg_store.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

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
    Status st = c->Run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    if (st.ok()) {
      auto txn = sql::NewTxn(*c);
      st = fn(*txn);
      Status end = c->Run(st.ok() ? "COMMIT" : "ROLLBACK");
      if (st.ok()) st = end;
    }
    Release(std::move(c));
    return st;
  }

  Status Write(const std::function<Status(WriteTxn&)>& fn) override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    Status st;
    for (int attempt = 1;; ++attempt) {
      // One writer at a time, across every process on this database, as
      // SQLite has one: writes bump shared rows (the drive's change number,
      // every ancestor's size), so side-by-side writers would mostly undo
      // each other. The lock is taken before the transaction reads
      // anything, and READ COMMITTED then reads what the previous writer
      // committed: serialized writers see one consistent state.
      st = c->Run("BEGIN ISOLATION LEVEL READ COMMITTED");
      if (st.ok()) st = c->Run("SELECT pg_advisory_xact_lock(7236101)");
      if (st.ok()) {
        auto txn = sql::NewTxn(*c);
        try {
          st = fn(*txn);
        } catch (const std::exception& ex) {
          st = Status::Internal(std::string("write threw: ") + ex.what());
        }
        if (st.ok() && c->InFailedTransaction()) {
          // The callback went on past a failed statement (SQLite would have
          // kept the rest of the transaction; PostgreSQL has ended it, and
          // its COMMIT would quietly roll back). Never report that as done.
          st = Status::Internal(
              "a statement of this write failed and the database ended its transaction");
        }
        if (st.ok()) {
          st = c->Run("COMMIT");  // a failed COMMIT ends the transaction too
        } else {
          (void)c->Run("ROLLBACK");
        }
      }
      ++writes_;
      // A deadlock (or a serialization failure): the server undid the
      // whole transaction; run it again.
      if (st.code() != Code::kAborted || attempt >= opt_.max_attempts || !c->Healthy()) break;
      std::this_thread::sleep_for(Backoff(attempt));
    }
    Release(std::move(c));
    return st;
  }

  Result<int> SchemaVersion() override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    auto v = sql::CurrentVersion(*c);
    Release(std::move(c));
    return v;
  }

  WriteStats Stats() const override {
    const uint64_t n = writes_.load();
    return {n, n};  // no group commit: one transaction per write
  }

 private:
  // Up to 2^attempt ms, at most about 0.5 s, with full jitter so that
  // writers that collided do not collide again in step.
  std::chrono::microseconds Backoff(int attempt) {
    thread_local std::mt19937 rng{std::random_device{}()};
    const int64_t cap_us = std::min<int64_t>(int64_t{1000} << std::min(attempt, 9), 500'000);
    return std::chrono::microseconds(std::uniform_int_distribution<int64_t>(0, cap_us)(rng));
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
