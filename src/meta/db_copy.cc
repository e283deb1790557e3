#include "meta/db_copy.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <set>

#include "meta/migrations.h"
#include "meta/pg/pg_conn.h"
#include "meta/sql/sql_txn.h"
#include "meta/sqlite/sqlite_conn.h"
#include "util/blake3_hash.h"
#include "util/process.h"
#include "util/time.h"

namespace nubo::meta {

namespace {

using sql::Stmt;

// The PostgreSQL store's write lock (pg_store.cc): held for the whole copy
// so that no server that starts meanwhile writes beside it.
constexpr const char* kWriteLock = "SELECT pg_advisory_xact_lock(7236101)";

// A serving process counts as alive within this long of its heartbeat
// (content/gc.h beats every 10 s).
constexpr int64_t kAliveMs = 60'000;

// SQLite tables PostgreSQL has no counterpart for: the FTS5 search index
// (its virtual tables and their shadow tables) and the token counts derived
// from it. The text it indexes (doc_text) is copied; PostgreSQL's own index
// of it is a generated column, filled as the rows arrive.
bool LeftBehind(const std::string& table) {
  return table.starts_with("node_names") || table.starts_with("doc_text_") ||
         table == "doc_sizes" || table.starts_with("sqlite_") || table == "schema_migrations";
}

enum class Kind { kInt, kText, kBlob, kReal };

struct Column {
  std::string name;
  Kind kind;
};

struct Table {
  std::string name;
  std::vector<Column> columns;
  std::set<std::string> refers_to;  // other tables its foreign keys name
};

std::string Quoted(const std::string& id) { return "\"" + id + "\""; }

// One value of a row, owned (the source's bytes go away at its next step,
// and a batch of rows is sent at once).
struct Value {
  bool null = true;
  int64_t i = 0;
  double r = 0;
  std::string s;
};

Value ReadValue(const Stmt& s, int col, Kind kind) {
  Value v;
  v.null = s.IsNull(col);
  if (v.null) return v;
  switch (kind) {
    case Kind::kInt:
      v.i = s.Int(col);
      break;
    case Kind::kReal:
      v.r = s.Real(col);
      break;
    case Kind::kText:
      v.s = std::string(s.View(col));
      break;
    case Kind::kBlob:
      v.s = std::string(s.BlobView(col));
      break;
  }
  return v;
}

// An order-free digest of a table's rows: the sum of each row's hash
// (rows are read in whatever order each engine keeps them), with the
// count kept beside it.
class RowsDigest {
 public:
  void Add(const std::vector<Column>& cols, const Value* row) {
    std::string enc;
    for (size_t k = 0; k < cols.size(); ++k) {
      const Value& v = row[k];
      if (v.null) {
        enc.push_back('\0');
        continue;
      }
      char num[8];
      switch (cols[k].kind) {
        case Kind::kInt:
          enc.push_back('i');
          std::memcpy(num, &v.i, 8);
          enc.append(num, 8);
          break;
        case Kind::kReal:
          enc.push_back('r');
          std::memcpy(num, &v.r, 8);
          enc.append(num, 8);
          break;
        case Kind::kText:
        case Kind::kBlob: {
          enc.push_back('s');
          const uint64_t n = v.s.size();
          std::memcpy(num, &n, 8);
          enc.append(num, 8);
          enc += v.s;
          break;
        }
      }
    }
    const Blake3Digest d = Blake3::Hash(enc);
    uint64_t h = 0;
    std::memcpy(&h, d.data(), 8);
    sum_ += h;
    ++rows_;
  }
  bool operator==(const RowsDigest& o) const { return sum_ == o.sum_ && rows_ == o.rows_; }
  int64_t rows() const { return rows_; }

 private:
  uint64_t sum_ = 0;
  int64_t rows_ = 0;
};

// Statements built at run time; the connections' caches key prepared
// statements by the text's address, so each text lives as long as they.
class Texts {
 public:
  const char* Keep(std::string s) { return texts_.emplace_back(std::move(s)).c_str(); }

 private:
  std::deque<std::string> texts_;
};

// A `nubo serve` process whose heartbeat row says it is running on this
// store: fresh, and not a process of this machine that no longer exists.
Status RefuseLiveServers(sql::Conn& c, const std::string& which) {
  NUBO_PREPARE(s, c, "SELECT host, pid, heartbeat_at FROM server_processes");
  const int64_t now = UnixMillis();
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::Ok();
    const std::string h = s.Text(0);
    const int64_t pid = s.Int(1);
    if (s.Int(2) < now - kAliveMs || ProcessGone(h, pid)) continue;
    return Status::Conflict("a nubo server (pid " + std::to_string(pid) + " on " + h +
                            ") is running on the " + which + ": stop every server first");
  }
}

// The target's tables (but the migration bookkeeping), their columns in
// order with the kind of value each holds, and their foreign keys.
Result<std::vector<Table>> TargetTables(pg::Conn& c) {
  std::map<std::string, Table> by_name;
  NUBO_PREPARE(cols, c,
               "SELECT c.table_name::text, c.column_name::text, c.data_type::text "
               "FROM information_schema.columns c JOIN information_schema.tables t "
               "ON t.table_schema = c.table_schema AND t.table_name = c.table_name "
               "WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' "
               "AND c.table_name <> 'schema_migrations' AND c.is_generated = 'NEVER' "
               "ORDER BY c.table_name, c.ordinal_position");
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, cols.Step());
    if (!row) break;
    Table& t = by_name[cols.Text(0)];
    t.name = cols.Text(0);
    const std::string type = cols.Text(2);
    Kind kind;
    if (type == "bigint" || type == "integer" || type == "smallint") {
      kind = Kind::kInt;
    } else if (type == "text") {
      kind = Kind::kText;
    } else if (type == "bytea") {
      kind = Kind::kBlob;
    } else if (type == "double precision") {
      kind = Kind::kReal;
    } else {
      return Status::Unsupported("column " + t.name + "." + cols.Text(1) + " has type " + type +
                                 ", which the copy does not know");
    }
    t.columns.push_back({cols.Text(1), kind});
  }
  NUBO_PREPARE(fks, c,
               "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint "
               "WHERE contype = 'f' AND connamespace = current_schema()::regnamespace");
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, fks.Step());
    if (!row) break;
    auto it = by_name.find(fks.Text(0));
    if (it != by_name.end()) it->second.refers_to.insert(fks.Text(1));
  }
  // Every table after the tables it refers to (a reference to itself —
  // a folder's parent — is met by the order of its rows instead).
  std::vector<Table> ordered;
  std::set<std::string> placed;
  while (placed.size() < by_name.size()) {
    bool progress = false;
    for (auto& [name, t] : by_name) {
      if (placed.contains(name)) continue;
      bool ready = true;
      for (const std::string& r : t.refers_to) {
        if (r != name && !placed.contains(r)) ready = false;
      }
      if (!ready) continue;
      placed.insert(name);
      ordered.push_back(t);
      progress = true;
    }
    if (!progress) return Status::Unsupported("the target's foreign keys form a cycle");
  }
  return ordered;
}

// What the source holds that has no column on the target is an error: the
// copy would lose it. (The schemas are kept in step migration by
// migration; this is where a slip would show.)
Result<std::set<std::string>> SourceColumns(sql::Conn& c, Texts& texts, const std::string& table) {
  NUBO_ASSIGN_OR_RETURN(
      Stmt s, c.Prepare(texts.Keep("SELECT name FROM pragma_table_info('" + table + "')")));
  std::set<std::string> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.insert(s.Text(0));
  }
}

// The source's rows of `t`, with the target's columns in the target's
// order. Folders come before what they hold: breadth first from the drive
// roots (a file moved into a folder made after it has the smaller id).
std::string SourceSelect(const Table& t) {
  std::string list;
  for (const Column& col : t.columns) {
    if (!list.empty()) list += ", ";
    // SQLite's full-text table keeps the node id as its rowid.
    if (t.name == "doc_text" && col.name == "id") {
      list += "rowid";
    } else {
      list += (t.name == "nodes" ? "n." : "") + Quoted(col.name);
    }
  }
  if (t.name == "nodes") {
    // Without ORDER BY the recursive table is a FIFO queue, and CROSS JOIN
    // keeps it the outer loop: rows leave in breadth-first order.
    return "WITH RECURSIVE tree(id) AS (SELECT id FROM nodes WHERE parent_id IS NULL "
           "UNION ALL SELECT c.id FROM nodes c JOIN tree ON c.parent_id = tree.id) "
           "SELECT " +
           list + " FROM tree CROSS JOIN nodes n ON n.id = tree.id";
  }
  return "SELECT " + list + " FROM " + Quoted(t.name);
}

std::string InsertText(const Table& t, size_t rows) {
  std::string cols;
  for (const Column& col : t.columns) {
    if (!cols.empty()) cols += ", ";
    cols += Quoted(col.name);
  }
  std::string one = "(";
  for (size_t k = 0; k < t.columns.size(); ++k) one += k ? ", ?" : "?";
  one += ")";
  std::string sql = "INSERT INTO " + Quoted(t.name) + " (" + cols + ") VALUES ";
  for (size_t r = 0; r < rows; ++r) {
    if (r) sql += ", ";
    sql += one;
  }
  return sql;
}

void BindValue(Stmt& s, int i, Kind kind, const Value& v) {
  if (v.null) {
    s.BindNull(i);
    return;
  }
  switch (kind) {
    case Kind::kInt:
      s.Bind(i, v.i);
      break;
    case Kind::kReal:
      s.BindReal(i, v.r);
      break;
    case Kind::kText:
      s.Bind(i, v.s);
      break;
    case Kind::kBlob:
      s.BindBlob(i, v.s);
      break;
  }
}

// Bytes of values held at once: a batch is sent when it holds this much
// (extracted text runs up to 1 MiB a row), a page read back is sized to
// about this much.
constexpr size_t kBatchBytes = 8 << 20;

size_t Bytes(const Value& v) { return v.s.size() + 16; }

// Copies one table: rows go in batches of up to `batch_rows` rows (and
// about kBatchBytes) per INSERT, one round trip each. Returns the digest
// of what was read.
Result<RowsDigest> CopyTable(sql::Conn& src, pg::Conn& dst, Texts& texts, const Table& t,
                             size_t batch_rows) {
  const size_t ncol = t.columns.size();
  // PostgreSQL takes at most 65,535 parameters per statement.
  const size_t batch = std::max<size_t>(1, std::min<size_t>(batch_rows, 65'535 / ncol));
  NUBO_ASSIGN_OR_RETURN(Stmt read, src.Prepare(texts.Keep(SourceSelect(t))));
  std::map<size_t, const char*> inserts;  // by rows per statement
  std::vector<Value> rows;
  size_t bytes = 0;
  RowsDigest digest;
  auto flush = [&]() -> Status {
    const size_t n = rows.size() / ncol;
    if (n == 0) return Status::Ok();
    const char*& text = inserts[n];
    if (!text) text = texts.Keep(InsertText(t, n));
    NUBO_ASSIGN_OR_RETURN(Stmt ins, dst.Prepare(text));
    for (size_t r = 0; r < n; ++r) {
      for (size_t k = 0; k < ncol; ++k) {
        BindValue(ins, static_cast<int>(r * ncol + k + 1), t.columns[k].kind, rows[r * ncol + k]);
      }
    }
    Status st = ins.Exec();
    if (!st.ok()) return Status(st.code(), "copying " + t.name + ": " + st.message());
    rows.clear();
    bytes = 0;
    return Status::Ok();
  };
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, read.Step());
    if (!row) break;
    // The values are bound by address: no reallocation while a batch fills.
    if (rows.empty()) rows.reserve(batch * ncol);
    const size_t at = rows.size();
    for (size_t k = 0; k < ncol; ++k) {
      rows.push_back(ReadValue(read, static_cast<int>(k), t.columns[k].kind));
      bytes += Bytes(rows.back());
    }
    digest.Add(t.columns, rows.data() + at);
    if (rows.size() == batch * ncol || bytes >= kBatchBytes) NUBO_RETURN_IF_ERROR(flush());
  }
  NUBO_RETURN_IF_ERROR(flush());
  return digest;
}

// Reads `t` back from the target, a page at a time in physical order (a
// key every table has, whatever its primary key), and digests its rows.
// (The text form is named apart: an output column called ctid would be
// what ORDER BY ctid sorts, as text, where "(10,1)" < "(9,1)".)
// A page holds up to 1,000 rows, fewer when they are big: at most about
// kBatchBytes of values at a time.
Result<RowsDigest> TargetDigest(pg::Conn& c, Texts& texts, const Table& t) {
  std::string cols;
  for (const Column& col : t.columns) cols += ", " + Quoted(col.name);
  NUBO_ASSIGN_OR_RETURN(
      Stmt page, c.Prepare(texts.Keep("SELECT ctid::text AS at" + cols + " FROM " + Quoted(t.name) +
                                      " WHERE ctid > ?::tid ORDER BY ctid LIMIT ?")));
  RowsDigest digest;
  std::string after = "(0,0)";
  // The first page is small (rows of extracted text run up to 1 MiB);
  // later ones hold kBatchBytes of rows as big as the biggest seen.
  int64_t limit = 16;
  std::vector<Value> row(t.columns.size());
  size_t biggest = 0;
  for (;;) {
    page.Reset();
    page.Bind(1, after);
    page.Bind(2, limit);
    int64_t n = 0;
    std::string last;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool more, page.Step());
      if (!more) break;
      ++n;
      last = page.Text(0);
      size_t bytes = 0;
      for (size_t k = 0; k < t.columns.size(); ++k) {
        row[k] = ReadValue(page, static_cast<int>(k + 1), t.columns[k].kind);
        bytes += Bytes(row[k]);
      }
      biggest = std::max(biggest, bytes);
      digest.Add(t.columns, row.data());
    }
    if (n < limit) return digest;
    after = std::move(last);
    limit = std::clamp<int64_t>(static_cast<int64_t>(kBatchBytes / (biggest + 1)), 1, 1000);
  }
}

}  // namespace

Result<CopyReport> CopySqliteToPostgres(const std::string& sqlite_path, const std::string& conninfo,
                                        CopyOptions options) {
  // Opening creates a missing file; a mistyped path must not copy nothing.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(sqlite_path, ec)) {
    return Status::NotFound("no SQLite database at " + sqlite_path);
  }
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<sqlite::Conn> src, sqlite::Conn::Open(sqlite_path, 5000));
  NUBO_ASSIGN_OR_RETURN(int src_version, sql::CurrentVersion(*src));
  const int latest = Migrations().back().version;
  if (src_version != latest) {
    return Status::Unsupported(
        "the source's schema is at version " + std::to_string(src_version) + ", this nubo's at " +
        std::to_string(latest) +
        (src_version < latest ? ": run `nubo migrate` on it first" : ": upgrade nubo"));
  }
  NUBO_RETURN_IF_ERROR(RefuseLiveServers(*src, "source"));

  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<pg::Conn> dst, pg::Conn::Open(conninfo));
  // Nothing is written to a target that is refused: one with a schema of
  // another version is not migrated first (it may be an installation).
  NUBO_ASSIGN_OR_RETURN(int dst_before, sql::CurrentVersion(*dst));
  if (dst_before != 0 && dst_before != latest) {
    return Status::Conflict("the target database holds a nubo schema of version " +
                            std::to_string(dst_before) + ": copy into a new, empty database");
  }
  NUBO_RETURN_IF_ERROR(sql::ApplyMigrations(*dst, PgMigrations(), true).status());
  NUBO_ASSIGN_OR_RETURN(int dst_version, sql::CurrentVersion(*dst));
  if (dst_version != src_version) {
    return Status::Internal("the PostgreSQL schema is at version " + std::to_string(dst_version) +
                            ", SQLite's at " + std::to_string(src_version));
  }
  {
    NUBO_PREPARE(s, *dst,
                 "SELECT (SELECT count(*) FROM users) + (SELECT count(*) FROM drives) + "
                 "(SELECT count(*) FROM nodes) + (SELECT count(*) FROM manifests) + "
                 "(SELECT count(*) FROM chunks)");
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row && s.Int(0) > 0) {
      return Status::Conflict(
          "the target database already holds an installation (users, drives, files or "
          "content): copy into a new, empty database");
    }
  }
  NUBO_RETURN_IF_ERROR(RefuseLiveServers(*dst, "target"));

  Texts texts;
  NUBO_ASSIGN_OR_RETURN(std::vector<Table> tables, TargetTables(*dst));
  CopyReport report;
  report.schema_version = src_version;
  {
    std::set<std::string> target_names;
    for (const Table& t : tables) target_names.insert(t.name);
    NUBO_PREPARE(s, *src, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      const std::string name = s.Text(0);
      if (target_names.contains(name)) continue;
      if (!LeftBehind(name)) {
        return Status::Unsupported("the source's table " + name +
                                   " has no PostgreSQL counterpart; nothing was copied");
      }
      if (!name.starts_with("sqlite_") && name != "schema_migrations") {
        report.left_behind.push_back(name);
      }
    }
    for (const Table& t : tables) {
      NUBO_ASSIGN_OR_RETURN(std::set<std::string> have, SourceColumns(*src, texts, t.name));
      if (t.name == "doc_text") have.insert("id");  // its rowid
      for (const std::string& col : have) {
        bool known = false;
        for (const Column& c : t.columns) known = known || c.name == col;
        if (!known) {
          return Status::Unsupported("the source's column " + t.name + "." + col +
                                     " has no PostgreSQL counterpart; nothing was copied");
        }
      }
      for (const Column& c : t.columns) {
        if (!have.contains(c.name)) {
          return Status::Unsupported("the target's column " + t.name + "." + c.name +
                                     " is missing on the source; nothing was copied");
        }
      }
    }
  }

  // One snapshot of the source for the copy and the check after it.
  NUBO_RETURN_IF_ERROR(src->Exec("BEGIN"));
  std::map<std::string, RowsDigest> source_digests;
  Status st = [&]() -> Status {
    NUBO_RETURN_IF_ERROR(dst->Exec("BEGIN ISOLATION LEVEL READ COMMITTED"));
    NUBO_RETURN_IF_ERROR(dst->Run(kWriteLock));
    // The copied rows carry what the triggers would compute (a folder's
    // child count, queued derive jobs): the target's own triggers stay off
    // until every row is in, within this transaction only. Foreign keys
    // stay on: the order of the tables and of the folders satisfies them.
    for (const Table& t : tables) {
      NUBO_RETURN_IF_ERROR(dst->Exec("ALTER TABLE " + Quoted(t.name) + " DISABLE TRIGGER USER"));
    }
    // What a fresh schema seeds (the node id floor) gives way to the
    // source's rows; the target was checked to hold no installation.
    for (auto it = tables.rbegin(); it != tables.rend(); ++it) {
      NUBO_RETURN_IF_ERROR(dst->Exec("DELETE FROM " + Quoted(it->name)));
    }
    for (const Table& t : tables) {
      NUBO_ASSIGN_OR_RETURN(RowsDigest d, CopyTable(*src, *dst, texts, t, options.batch_rows));
      report.tables.push_back({t.name, d.rows()});
      report.rows += d.rows();
      source_digests[t.name] = d;
    }
    for (const Table& t : tables) {
      NUBO_RETURN_IF_ERROR(dst->Exec("ALTER TABLE " + Quoted(t.name) + " ENABLE TRIGGER USER"));
    }
    // Every id sequence goes on after the largest id in use; the node ids
    // after the largest SQLite ever gave out (node_id_floor), so a deleted
    // node's id is never reused (Nextcloud clients key files by it).
    NUBO_PREPARE(seqs, *dst,
                 "SELECT c.table_name::text, c.column_name::text, "
                 "pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) "
                 "FROM information_schema.columns c WHERE c.table_schema = current_schema() "
                 "AND pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) IS NOT "
                 "NULL");
    std::vector<std::array<std::string, 3>> found;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, seqs.Step());
      if (!row) break;
      found.push_back({seqs.Text(0), seqs.Text(1), seqs.Text(2)});
    }
    for (const auto& [table, column, seq] : found) {
      std::string top = "(SELECT max(" + Quoted(column) + ") FROM " + Quoted(table) + ")";
      if (table == "nodes") top = "GREATEST(" + top + ", (SELECT max(v) FROM node_id_floor))";
      NUBO_RETURN_IF_ERROR(
          dst->Exec("SELECT setval('" + seq + "', COALESCE(" + top + ", 0) + 1, false)"));
    }
    return dst->Exec("COMMIT");
  }();
  if (!st.ok()) {
    (void)dst->Exec("ROLLBACK");
    (void)src->Exec("ROLLBACK");
    return st;
  }

  // Read back what was committed, table by table.
  st = [&]() -> Status {
    NUBO_RETURN_IF_ERROR(dst->Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
    for (const Table& t : tables) {
      NUBO_ASSIGN_OR_RETURN(RowsDigest d, TargetDigest(*dst, texts, t));
      const RowsDigest& want = source_digests[t.name];
      if (!(d == want)) {
        return Status::Internal("the copy of " + t.name + " differs from the source (" +
                                std::to_string(d.rows()) + " rows read back, " +
                                std::to_string(want.rows()) + " copied)");
      }
    }
    return dst->Exec("COMMIT");
  }();
  (void)src->Exec("ROLLBACK");
  if (!st.ok()) {
    (void)dst->Exec("ROLLBACK");
    return st;
  }
  return report;
}

}  // namespace nubo::meta
