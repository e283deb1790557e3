// The statement surface the MetaStore's SQL is written against, whatever
// engine runs it: a connection prepares statements (written with SQLite's
// "?"/"?N" placeholders; the PostgreSQL driver rewrites them), a statement
// is bound by 1-based index, stepped row by row and read column by column.
// meta/sqlite and meta/pg each implement Cursor and Conn; no engine header
// is included here. Internal to meta.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/blake3_hash.h"
#include "util/status.h"

namespace nubo::meta::sql {

enum class Dialect { kSqlite, kPostgres };

// One engine's prepared statement, owned by its connection's cache.
class Cursor {
 public:
  virtual void BindInt(int i, int64_t v) = 0;
  // Text and blobs are bound without a copy: the bytes must outlive the
  // execution. An empty blob is a value, not NULL.
  virtual void BindText(int i, std::string_view t) = 0;
  virtual void BindBlob(int i, std::string_view b) = 0;
  virtual void BindReal(int i, double v) = 0;
  virtual void BindNull(int i) = 0;
  // True: a row is ready; false: done.
  virtual Result<bool> Step() = 0;
  virtual int64_t Int(int col) const = 0;
  virtual double Real(int col) const = 0;
  // The column's bytes, valid until the next Step/Reset (no copy).
  virtual std::string_view TextView(int col) const = 0;
  virtual std::string_view BlobView(int col) const = 0;
  virtual bool IsNull(int col) const = 0;
  // Rows the last execution inserted, updated or deleted.
  virtual int changes() const = 0;
  // Ready to execute again; bindings are kept.
  virtual void Reset() = 0;
  // The statement's use ended: reset, bindings cleared.
  virtual void Release() = 0;

 protected:
  ~Cursor() = default;
};

// A prepared statement in use; hands its cursor back to the connection's
// cache when it goes out of scope.
class Stmt {
 public:
  explicit Stmt(Cursor* c) : c_(c) {}
  Stmt(Stmt&& o) noexcept : c_(o.c_) { o.c_ = nullptr; }
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;
  ~Stmt() {
    if (c_) c_->Release();
  }

  Stmt& Bind(int i, int64_t v) {
    c_->BindInt(i, v);
    return *this;
  }
  Stmt& Bind(int i, const Blake3Digest& d) {
    c_->BindBlob(i, {reinterpret_cast<const char*>(d.data()), d.size()});
    return *this;
  }
  Stmt& Bind(int i, const std::string& t) {
    c_->BindText(i, t);
    return *this;
  }
  // No copy is made (see Cursor): a temporary would be gone before the
  // statement steps. Keep it in a variable.
  Stmt& Bind(int i, std::string&& t) = delete;
  Stmt& BindBlob(int i, const std::string& b) {
    c_->BindBlob(i, b);
    return *this;
  }
  Stmt& BindBlob(int i, std::string&& b) = delete;
  Stmt& BindReal(int i, double v) {
    c_->BindReal(i, v);
    return *this;
  }
  Stmt& BindNull(int i) {
    c_->BindNull(i);
    return *this;
  }

  Result<bool> Step() { return c_->Step(); }
  Status Exec() {
    auto r = Step();
    return r.ok() ? Status::Ok() : r.status();
  }
  int64_t Int(int col) const { return c_->Int(col); }
  double Real(int col) const { return c_->Real(col); }
  std::string Text(int col) const { return std::string(c_->TextView(col)); }
  std::string_view View(int col) const { return c_->TextView(col); }
  std::string_view BlobView(int col) const { return c_->BlobView(col); }
  std::string Blob(int col) const { return std::string(c_->BlobView(col)); }
  bool IsNull(int col) const { return c_->IsNull(col); }
  Blake3Digest Hash(int col) const {
    Blake3Digest d{};
    const std::string_view v = c_->BlobView(col);
    if (v.size() == d.size()) std::memcpy(d.data(), v.data(), d.size());
    return d;
  }
  int changes() const { return c_->changes(); }
  void Reset() { c_->Reset(); }
  // The engine's own statement, for engine-only code.
  Cursor* cursor() const { return c_; }

 private:
  Cursor* c_;
};

class Conn {
 public:
  virtual ~Conn() = default;
  virtual Dialect dialect() const = 0;
  // Prepares `sql` once per connection, keyed by the literal's address
  // (statements are string constants of the store's code).
  virtual Result<Stmt> Prepare(const char* sql) = 0;
  // Runs a statement without results through the cache (BEGIN, COMMIT…).
  Status Run(const char* sql) {
    NUBO_ASSIGN_OR_RETURN(Stmt s, Prepare(sql));
    return s.Exec();
  }
  // Runs `sql` (possibly several statements, no placeholders) uncached:
  // migrations and setup.
  virtual Status Exec(std::string_view sql) = 0;
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

// Inserts of rows with unique keys say "ON CONFLICT DO NOTHING": a taken
// key skips the row instead of failing the statement, so the transaction
// stays usable on PostgreSQL (where a failed statement ends it) as it does
// on SQLite, and the caller learns AlreadyExists either way.

// Steps an "INSERT … [ON CONFLICT DO NOTHING] RETURNING id" (SQLite makes
// every change on the first step): the new row's id.
inline Result<int64_t> InsertedId(Stmt& s) {
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::AlreadyExists("a row with that key exists");
  return s.Int(0);
}

// Runs an "INSERT … ON CONFLICT DO NOTHING" of one row.
inline Status Inserted(Stmt& s) {
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::AlreadyExists("a row with that key exists");
  return Status::Ok();
}

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

// Ids as one JSON array ("[1,2,3]"): a statement reads any number of
// them through json_each(?) (on PostgreSQL a function of that name in the
// schema, migrations/pg/0025).
inline std::string JsonIds(const std::vector<int64_t>& ids) {
  std::string out = "[";
  for (int64_t id : ids) {
    if (out.size() > 1) out += ',';
    out += std::to_string(id);
  }
  out += ']';
  return out;
}

// Strings as one JSON array (["a","b"]), read like JsonIds' through
// json_each(?) on SQLite and json_array_elements_text(?::json) on
// PostgreSQL. The strings must be UTF-8 (name keys are); quotes,
// backslashes and control characters are escaped (RFC 8259 §7).
inline std::string JsonStrings(const std::vector<std::string>& items) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "[";
  for (const std::string& item : items) {
    if (out.size() > 1) out += ',';
    out += '"';
    for (char ch : item) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') {
        out += '\\';
        out += ch;
      } else if (c < 0x20) {
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      } else {
        out += ch;
      }
    }
    out += '"';
  }
  out += ']';
  return out;
}

#define NUBO_PREPARE(var, conn, sql) NUBO_ASSIGN_OR_RETURN(Stmt var, (conn).Prepare(sql))

// Begins a statement whose best plan depends on its values, such as how
// many names a search pattern matches: PostgreSQL plans it for the values
// of each execution instead of settling on one plan for any values (which
// it does for a prepared statement after five executions). A comment to
// SQLite.
#define NUBO_SQL_PLAN_PER_CALL "/* plan per call */ "

}  // namespace nubo::meta::sql
