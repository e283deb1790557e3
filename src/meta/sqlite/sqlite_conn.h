// The SQLite backend's connection helpers, shared by its capability files
// (sqlite_store.cc, sqlite_history.cc): a connection with a prepared-
// statement cache, statements that reset themselves, and the mapping of
// SQLite result codes to Status. Internal to meta/sqlite.
#pragma once

#include <sqlite3.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sql/sql.h"
#include "meta/sqlite/sqlite_search.h"
#include "meta/sqlite/sqlite_store.h"

namespace nubo::meta::sqlite {

inline Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  std::string msg = std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Aborted(std::move(msg));
    case SQLITE_CONSTRAINT:
      if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY) {
        return Status::AlreadyExists(std::move(msg));
      }
      return Status::Conflict(std::move(msg));
    case SQLITE_FULL:
      return Status::ResourceExhausted(std::move(msg));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(msg));
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
      return Status::IoError(std::move(msg));
    default:
      return Status::Internal(std::move(msg));
  }
}

// One prepared statement of this engine (sql::Cursor), owned by its
// connection's cache and handed out as an sql::Stmt.
class Cursor final : public sql::Cursor {
 public:
  // `rowid`: the statement is an INSERT whose " RETURNING id" was taken
  // off (see Conn::Prepare): its one row is the new rowid.
  Cursor(sqlite3* db, sqlite3_stmt* s, bool rowid = false) : db_(db), s_(s), rowid_(rowid) {}
  ~Cursor() { sqlite3_finalize(s_); }
  void BindInt(int i, int64_t v) override { sqlite3_bind_int64(s_, i, v); }
  void BindText(int i, std::string_view t) override {
    sqlite3_bind_text(s_, i, t.data(), static_cast<int>(t.size()), SQLITE_STATIC);
  }
  void BindBlob(int i, std::string_view b) override {
    // A zero-length blob must still bind as a blob, not NULL.
    sqlite3_bind_blob(s_, i, b.empty() ? "" : b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
  }
  void BindReal(int i, double v) override { sqlite3_bind_double(s_, i, v); }
  void BindNull(int i) override { sqlite3_bind_null(s_, i); }
  // A pointer only functions that ask for `type` can read
  // (sqlite3_value_pointer); it is not a value SQL can see.
  void BindPointer(int i, void* p, const char* type) {
    sqlite3_bind_pointer(s_, i, p, type, nullptr);
  }
  Result<bool> Step() override {
    if (rowid_) return StepRowid();
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(db_, sqlite3_extended_errcode(db_), sqlite3_sql(s_));
  }
  int64_t Int(int col) const override {
    if (rowid_) return inserted_;
    return sqlite3_column_int64(s_, col);
  }
  double Real(int col) const override { return sqlite3_column_double(s_, col); }
  std::string_view TextView(int col) const override {
    const unsigned char* p = sqlite3_column_text(s_, col);
    return p ? std::string_view(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s_, col))
             : std::string_view();
  }
  std::string_view BlobView(int col) const override {
    const void* p = sqlite3_column_blob(s_, col);
    return p ? std::string_view(static_cast<const char*>(p), sqlite3_column_bytes(s_, col))
             : std::string_view();
  }
  bool IsNull(int col) const override { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  int changes() const override { return sqlite3_changes(db_); }
  void Reset() override {
    sqlite3_reset(s_);
    state_ = 0;
  }
  void Release() override {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
    state_ = 0;
  }

 private:
  // The INSERT runs on the first step; a row was inserted when it changed
  // one (ON CONFLICT DO NOTHING changes none), and its rowid is the last
  // inserted once the statement's triggers have ended.
  Result<bool> StepRowid() {
    if (state_ == 0) {
      int rc = sqlite3_step(s_);
      if (rc != SQLITE_DONE) {
        return SqliteError(db_, sqlite3_extended_errcode(db_), sqlite3_sql(s_));
      }
      state_ = sqlite3_changes(db_) > 0 ? 1 : 2;
      inserted_ = sqlite3_last_insert_rowid(db_);
      return state_ == 1;
    }
    state_ = 2;
    return false;
  }

  sqlite3* db_;
  sqlite3_stmt* s_;
  const bool rowid_;
  int state_ = 0;  // rowid_: 0 not run, 1 on the row, 2 done
  int64_t inserted_ = 0;
};

using sql::BindOpt;
using sql::FirstInt;
using sql::Inserted;
using sql::InsertedId;
using sql::One;
using sql::Rows;
using sql::Stmt;

// SQLite-only: binds a pointer for this engine's functions (see
// Cursor::BindPointer).
inline Stmt& BindPointer(Stmt& s, int i, void* p, const char* type) {
  static_cast<Cursor*>(s.cursor())->BindPointer(i, p, type);
  return s;
}

using sql::JsonIds;
using sql::JsonStrings;

// Registers nubo_derive_wanted(name, mime) on a connection: `wanted`'s
// answer as 1 or 0, or 1 for every file when it is empty (sqlite_media.cc).
// Every connection has it: a statement that inserts a node fires the
// trigger that calls it.
Status RegisterDeriveWanted(sqlite3* db, const DeriveWanted& wanted);

class Conn final : public sql::Conn {
 public:
  ~Conn() override {
    cache_.clear();  // finalizes every statement before the close
    if (db_) sqlite3_close_v2(db_);
  }
  sql::Dialect dialect() const override { return sql::Dialect::kSqlite; }
  static Result<std::unique_ptr<Conn>> Open(const std::string& path, int busy_ms,
                                            const DeriveWanted& derive_wanted = {}) {
    // SQLite keeps memory statistics that nothing here reads, updating them
    // under one process-wide mutex on every allocation of every
    // connection. Off, before the library initializes (a no-op after).
    static const bool kNoMemStatus = [] {
      sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
      return true;
    }();
    (void)kNoMemStatus;
    auto c = std::make_unique<Conn>();
    int rc =
        sqlite3_open_v2(path.c_str(), &c->db_,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) return SqliteError(c->db_, rc, "open " + path);
    sqlite3_busy_timeout(c->db_, busy_ms);
    sqlite3_extended_result_codes(c->db_, 1);
    NUBO_RETURN_IF_ERROR(c->Exec("PRAGMA journal_mode=WAL"));
    NUBO_RETURN_IF_ERROR(c->Exec("PRAGMA synchronous=FULL"));
    NUBO_RETURN_IF_ERROR(c->Exec("PRAGMA foreign_keys=ON"));
    NUBO_RETURN_IF_ERROR(RegisterSearchFunctions(c->db_));
    NUBO_RETURN_IF_ERROR(RegisterDeriveWanted(c->db_, derive_wanted));
    return c;
  }
  Status Exec(std::string_view sql) override {
    const std::string text(sql);
    char* err = nullptr;
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string m = err ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      Status s = SqliteError(nullptr, rc, text.substr(0, 60));
      return Status(s.code(), m);
    }
    return Status::Ok();
  }
  // An "INSERT … RETURNING id" that updates nothing on conflict is run
  // without its RETURNING: SQLite gathers RETURNING rows in a temporary
  // table, which costs more than reading the rowid it just assigned.
  Result<Stmt> Prepare(const char* sql) override {
    auto it = cache_.find(sql);
    if (it == cache_.end()) {
      std::string_view text(sql);
      constexpr std::string_view kReturning = " RETURNING id";
      const bool rowid = text.starts_with("INSERT ") && text.ends_with(kReturning) &&
                         text.find(" DO UPDATE ") == std::string_view::npos;
      if (rowid) text.remove_suffix(kReturning.size());
      sqlite3_stmt* s = nullptr;
      int rc = sqlite3_prepare_v3(db_, text.data(), static_cast<int>(text.size()),
                                  SQLITE_PREPARE_PERSISTENT, &s, nullptr);
      if (rc != SQLITE_OK) return SqliteError(db_, rc, sql);
      it = cache_.emplace(sql, std::make_unique<Cursor>(db_, s, rowid)).first;
    }
    return Stmt(it->second.get());
  }
  sqlite3* db() { return db_; }

 private:
  sqlite3* db_ = nullptr;
  // Keyed by the literal's address.
  std::unordered_map<const char*, std::unique_ptr<Cursor>> cache_;
};

}  // namespace nubo::meta::sqlite
