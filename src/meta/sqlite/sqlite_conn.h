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
#include "meta/sqlite/sqlite_search.h"

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

// One prepared statement in use; resets itself when it goes out of scope
// so the connection's cache can hand it out again.
class Stmt {
 public:
  Stmt(sqlite3* db, sqlite3_stmt* s) : db_(db), s_(s) {}
  ~Stmt() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  Stmt& Bind(int i, int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& Bind(int i, const Digest& d) {
    sqlite3_bind_blob(s_, i, d.data(), static_cast<int>(d.size()), SQLITE_STATIC);
    return *this;
  }
  Stmt& Bind(int i, const std::string& t) {
    sqlite3_bind_text(s_, i, t.data(), static_cast<int>(t.size()), SQLITE_STATIC);
    return *this;
  }
  // Text is bound without a copy (SQLITE_STATIC): a temporary would be gone
  // before the statement steps. Keep it in a variable.
  Stmt& Bind(int i, std::string&& t) = delete;
  Stmt& BindBlob(int i, const std::string& b) {
    // A zero-length blob must still bind as a blob, not NULL.
    sqlite3_bind_blob(s_, i, b.empty() ? "" : b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
    return *this;
  }
  Stmt& BindBlob(int i, std::string&& b) = delete;  // no copy either (see Bind)
  Stmt& BindReal(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  // A pointer only functions that ask for `type` can read
  // (sqlite3_value_pointer); it is not a value SQL can see.
  Stmt& BindPointer(int i, void* p, const char* type) {
    sqlite3_bind_pointer(s_, i, p, type, nullptr);
    return *this;
  }
  Stmt& BindNull(int i) {
    sqlite3_bind_null(s_, i);
    return *this;
  }
  // True: a row is ready; false: done. Errors map through SqliteError.
  Result<bool> Step() {
    int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return SqliteError(db_, sqlite3_extended_errcode(db_), sqlite3_sql(s_));
  }
  Status Exec() {
    auto r = Step();
    return r.ok() ? Status::Ok() : r.status();
  }
  int64_t Int(int col) const { return sqlite3_column_int64(s_, col); }
  double Real(int col) const { return sqlite3_column_double(s_, col); }
  std::string Text(int col) const {
    const unsigned char* p = sqlite3_column_text(s_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s_, col))
             : std::string();
  }
  // Views of the column, valid until the next Step/Reset (no copy).
  std::string_view View(int col) const {
    const unsigned char* p = sqlite3_column_text(s_, col);
    return p ? std::string_view(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s_, col))
             : std::string_view();
  }
  std::string_view BlobView(int col) const {
    const void* p = sqlite3_column_blob(s_, col);
    return p ? std::string_view(static_cast<const char*>(p), sqlite3_column_bytes(s_, col))
             : std::string_view();
  }
  bool IsNull(int col) const { return sqlite3_column_type(s_, col) == SQLITE_NULL; }
  std::string Blob(int col) const {
    const void* p = sqlite3_column_blob(s_, col);
    return p ? std::string(static_cast<const char*>(p), sqlite3_column_bytes(s_, col))
             : std::string();
  }
  Digest Hash(int col) const {
    Digest d{};
    const void* p = sqlite3_column_blob(s_, col);
    if (p && sqlite3_column_bytes(s_, col) == static_cast<int>(d.size()))
      std::memcpy(d.data(), p, d.size());
    return d;
  }
  int changes() const { return sqlite3_changes(db_); }
  void Reset() { sqlite3_reset(s_); }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_;
};

// Steps `s` to the end, converting each row with `from`.
template <typename T>
Result<std::vector<T>> Rows(Stmt& s, T (*from)(const Stmt&)) {
  std::vector<T> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(from(s));
  }
}

// Steps `s` once: the row converted with `from`, or nullopt when none.
template <typename T>
Result<std::optional<T>> One(Stmt& s, T (*from)(const Stmt&)) {
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<T>();
  return std::optional<T>(from(s));
}

inline int64_t FirstInt(const Stmt& s) { return s.Int(0); }

// Ids as one JSON array ("[1,2,3]"): a statement reads any number of
// them through json_each(?).
inline std::string JsonIds(const std::vector<int64_t>& ids) {
  std::string out = "[";
  for (int64_t id : ids) {
    if (out.size() > 1) out += ',';
    out += std::to_string(id);
  }
  out += ']';
  return out;
}

class Conn {
 public:
  ~Conn() {
    for (auto& [sql, s] : cache_) sqlite3_finalize(s);
    if (db_) sqlite3_close_v2(db_);
  }
  static Result<std::unique_ptr<Conn>> Open(const std::string& path, int busy_ms) {
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
    return c;
  }
  Status Exec(const char* sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string m = err ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      Status s = SqliteError(nullptr, rc, std::string(sql).substr(0, 60));
      return Status(s.code(), m);
    }
    return Status::Ok();
  }
  Result<Stmt> Prepare(const char* sql) {
    auto it = cache_.find(sql);
    if (it == cache_.end()) {
      sqlite3_stmt* s = nullptr;
      int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr);
      if (rc != SQLITE_OK) return SqliteError(db_, rc, sql);
      it = cache_.emplace(sql, s).first;
    }
    return Stmt(db_, it->second);
  }
  // Runs a statement without results through the statement cache: what
  // every transaction says (BEGIN, COMMIT, SAVEPOINT …) is parsed once per
  // connection instead of once per call, as Exec would.
  Status Run(const char* sql) {
    NUBO_ASSIGN_OR_RETURN(Stmt s, Prepare(sql));
    return s.Exec();
  }
  sqlite3* db() { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::unordered_map<const char*, sqlite3_stmt*> cache_;  // keyed by the literal's address
};

// Binds an optional value, NULL when absent.
inline void BindOpt(Stmt& s, int i, const std::optional<int64_t>& v) {
  if (v) {
    s.Bind(i, *v);
  } else {
    s.BindNull(i);
  }
}
inline void BindOpt(Stmt& s, int i, const std::optional<std::string>& v) {
  if (v) {
    s.Bind(i, *v);
  } else {
    s.BindNull(i);
  }
}

#define NUBO_PREPARE(var, conn, sql) NUBO_ASSIGN_OR_RETURN(Stmt var, (conn).Prepare(sql))

}  // namespace nubo::meta::sqlite
