// The PostgreSQL engine under the store's statement surface (meta/sql):
// one libpq connection with a prepared-statement cache, and the mapping of
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

#include "meta/sql/sql.h"
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
// number above 65535 (the protocol's limit). `used`, when given, receives
// for each number 1..params whether the text names it (a statement may
// skip numbers its sibling statements bind).
Result<std::string> Placeholders(std::string_view sql, int* params,
                                 std::vector<bool>* used = nullptr);

// One prepared statement of this engine (sql::Cursor), owned by its
// connection's cache. Step() executes it on its first call with the values
// bound so far (binary results); the rows are then read one by one.
// Integers of every width, booleans and numerics read as int64_t; text
// and bytea as their bytes.
class Cursor final : public sql::Cursor {
 public:
  // `unsent`: the connection's statement to send ahead of this one's next
  // execution (Conn::SendWithNext), emptied when sent.
  Cursor(pg_conn* pg, std::string* unsent, std::string name, int params);
  // A statement planned at each execution (NUBO_SQL_PLAN_PER_CALL): `text`
  // with PostgreSQL's placeholders and the parameter types to declare
  // (0: the server infers).
  Cursor(pg_conn* pg, std::string* unsent, std::string text, std::vector<unsigned> types);
  ~Cursor();
  void BindInt(int i, int64_t v) override;
  void BindText(int i, std::string_view t) override;
  void BindBlob(int i, std::string_view b) override;
  void BindReal(int i, double v) override;
  void BindNull(int i) override;
  Result<bool> Step() override;
  int64_t Int(int col) const override;
  double Real(int col) const override;
  std::string_view TextView(int col) const override;
  std::string_view BlobView(int col) const override { return TextView(col); }
  bool IsNull(int col) const override;
  int changes() const override;
  void Reset() override;
  void Release() override;

 private:
  struct Param {
    std::string own;  // numbers, as text
    const char* data = nullptr;
    int len = 0;
    int format = 0;  // 0 text, 1 binary
  };
  void Set(int i, const char* data, int len, int format);
  Param* At(int i);
  // Runs `first` and then this statement in one round trip (libpq's
  // pipeline mode); the result of the first that failed, else this one's.
  pg_result* RunAfter(const std::string& first, int n, const char* const* values,
                      const int* lengths, const int* formats);
  // The current row's column `col`: false when it is NULL or there is no
  // such row or column.
  bool Cell(int col, const char** data, int* len) const;

  pg_conn* pg_;
  std::string* unsent_;
  const std::string name_;  // empty: planned per call
  const std::string text_;  // planned per call: the statement
  const std::vector<unsigned> types_;
  std::vector<Param> params_;
  pg_result* res_ = nullptr;
  int row_ = -1;
  int rows_ = 0;
  // The result's columns and their types, read once per result rather than
  // at every value (a listing reads 16 values a row).
  int cols_ = 0;
  std::vector<unsigned> col_types_;
};

using sql::Stmt;

class Conn final : public sql::Conn {
 public:
  // `conninfo`: a libpq connection string or URI ("postgres://…").
  static Result<std::unique_ptr<Conn>> Open(const std::string& conninfo);
  ~Conn() override;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  sql::Dialect dialect() const override { return sql::Dialect::kPostgres; }
  Result<Stmt> Prepare(const char* sql) override;
  // The simple query protocol: several statements may run at once.
  Status Exec(std::string_view sql) override;
  // `sql` (one statement without parameters or rows, such as BEGIN) goes
  // to the server with the next statement this connection runs, in the
  // same round trip; its error, if any, is that statement's.
  void SendWithNext(std::string sql) { unsent_ = std::move(sql); }
  // Forgets what SendWithNext left unsent; true if there was something
  // (then no statement ran since).
  bool DropUnsent() {
    const bool had = !unsent_.empty();
    unsent_.clear();
    return had;
  }
  // False once the server is gone; the pool drops such a connection.
  bool Healthy() const;
  // True inside a transaction a failed statement has ended (every further
  // statement fails until ROLLBACK).
  bool InFailedTransaction() const;

 private:
  Conn() = default;
  pg_conn* pg_ = nullptr;
  std::string unsent_;  // SendWithNext
  // Keyed by the literal's address.
  std::unordered_map<const char*, std::unique_ptr<Cursor>> cache_;
};

}  // namespace nubo::meta::pg
