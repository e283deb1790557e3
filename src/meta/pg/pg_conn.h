// The PostgreSQL backend's connection helpers: one libpq connection with a
// prepared-statement cache, statements with the same surface as the SQLite
// backend's (1-based Bind, Step, typed column reads), and the mapping of
// SQLSTATEs to Status. Statements are written with SQLite's "?" and "?N"
// placeholders, so the store's SQL reads the same on both backends; they
// become "$N" once, when a connection prepares them. libpq's header stays
// in pg_conn.cc. Internal to meta/pg.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/blake3_hash.h"
#include "util/status.h"

struct pg_conn;
struct pg_result;

namespace nubo::meta::pg {

// A server error as a Status. Serialization failures and deadlocks are
// kAborted (the caller retries the transaction), unique violations
// kAlreadyExists, other integrity violations kConflict, a lost or refused
// connection kUnavailable, a full disk kResourceExhausted.
Status PgError(std::string_view sqlstate, std::string_view message, std::string_view what);

// `sql` with SQLite's placeholders as PostgreSQL's: "?N" is "$N", and a
// bare "?" takes one more than the largest number assigned before it
// (SQLite's rule). Quoted strings, quoted identifiers and comments are
// copied as they are. `params` receives the largest number used.
// InvalidArgument for an unterminated quote or comment, a "?0" or a
// number above 65535 (the protocol's limit).
Result<std::string> Placeholders(std::string_view sql, int* params);

class Conn;

// One prepared statement in use. Step() executes it on its first call with
// the values bound so far; the rows are then read one by one. Reset()
// lets it be executed again (bindings are kept, as in SQLite, until the
// statement goes out of scope).
class Stmt {
 public:
  Stmt(Stmt&& o) noexcept;
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;
  ~Stmt();

  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, const Blake3Digest& d);
  // Text and blobs are sent without a copy: keep them alive until the
  // statement has stepped (a temporary would be gone by then).
  Stmt& Bind(int i, const std::string& t);
  Stmt& Bind(int i, std::string&& t) = delete;
  Stmt& BindBlob(int i, const std::string& b);
  Stmt& BindBlob(int i, std::string&& b) = delete;
  Stmt& BindReal(int i, double v);
  Stmt& BindNull(int i);

  // True: a row is ready; false: no more rows.
  Result<bool> Step();
  Status Exec();

  // Column reads of the current row. Integers of every width, booleans and
  // numerics read as int64_t; text and bytea as their bytes.
  int64_t Int(int col) const;
  double Real(int col) const;
  std::string Text(int col) const { return std::string(View(col)); }
  std::string_view View(int col) const;  // valid until the next Step/Reset
  std::string_view BlobView(int col) const { return View(col); }
  std::string Blob(int col) const { return Text(col); }
  bool IsNull(int col) const;
  Blake3Digest Hash(int col) const;
  // Rows the last execution inserted, updated or deleted.
  int changes() const;
  void Reset();

 private:
  friend class Conn;
  struct Param {
    std::string own;  // numbers, as text
    const char* data = nullptr;
    int len = 0;
    int format = 0;  // 0 text, 1 binary
  };
  Stmt(Conn* conn, const std::string* name, int params);
  void Set(int i, const char* data, int len, int format);

  Conn* conn_;
  const std::string* name_;
  std::vector<Param> params_;
  pg_result* res_ = nullptr;
  int row_ = -1;
  int rows_ = 0;
};

class Conn {
 public:
  // `conninfo`: a libpq connection string or URI ("postgres://…").
  static Result<std::unique_ptr<Conn>> Open(const std::string& conninfo);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // Prepares `sql` once per connection, keyed by the literal's address
  // (statements are string constants of the store's code).
  Result<Stmt> Prepare(const char* sql);
  // Runs a statement without results through the cache (BEGIN, COMMIT…).
  Status Run(const char* sql);
  // Runs `sql` (possibly several statements, no placeholders) with the
  // simple query protocol: migrations and setup.
  Status Exec(std::string_view sql);
  // False once the server is gone; the pool drops such a connection.
  bool Healthy() const;

 private:
  friend class Stmt;
  Conn() = default;
  struct Prepared {
    std::string name;
    int params = 0;
  };
  pg_conn* pg_ = nullptr;
  std::unordered_map<const char*, Prepared> cache_;
};

}  // namespace nubo::meta::pg
