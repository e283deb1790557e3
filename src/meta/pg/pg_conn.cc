#include "meta/pg/pg_conn.h"

#include <libpq-fe.h>

#include <atomic>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "util/dynlib.h"

namespace nubo::meta::pg {

namespace {

// Type OIDs of the binary results this backend reads (pg_type.dat).
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kText = 25, kOid = 26,
              kFloat4 = 700, kFloat8 = 701, kNumeric = 1700;

uint64_t BigEndian(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// The integer part of a binary NUMERIC: int16 ndigits, int16 weight,
// uint16 sign, uint16 dscale, then ndigits base-10,000 digits, the first
// worth 10000^weight.
int64_t NumericInt(const char* p, int len) {
  if (len < 8) return 0;
  const int ndigits = static_cast<int16_t>(BigEndian(p, 2));
  const int weight = static_cast<int16_t>(BigEndian(p + 2, 2));
  const uint16_t sign = static_cast<uint16_t>(BigEndian(p + 4, 2));
  if (sign == 0xC000 || len < 8 + 2 * ndigits) return 0;  // NaN
  int64_t v = 0;
  for (int i = 0; i <= weight; ++i) {
    v = v * 10000 + (i < ndigits ? static_cast<int64_t>(BigEndian(p + 8 + 2 * i, 2)) : 0);
  }
  return sign == 0x4000 ? -v : v;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// libpq is opened when the first connection is, not linked (util/dynlib.h):
// a binary that links it loads libpq's own dependencies (Kerberos, LDAP,
// GnuTLS, SASL, p11-kit …) into every process at start, and on the default
// SQLite engine those only cost memory (about 3.5 MiB of resident pages)
// and start-up time. Every libpq function this file calls is one member
// here, typed by the header's declaration, so a changed signature fails to
// compile.
struct Libpq {
  // The soname has been libpq.so.5 since PostgreSQL 8.2.
  util::DynLib lib{"libpq.so.5", "libpq5"};
  decltype(&::PQclear) PQclear = nullptr;
  decltype(&::PQcmdTuples) PQcmdTuples = nullptr;
  decltype(&::PQconnectdb) PQconnectdb = nullptr;
  decltype(&::PQerrorMessage) PQerrorMessage = nullptr;
  decltype(&::PQexec) PQexec = nullptr;
  decltype(&::PQexecParams) PQexecParams = nullptr;
  decltype(&::PQexecPrepared) PQexecPrepared = nullptr;
  decltype(&::PQfinish) PQfinish = nullptr;
  decltype(&::PQftype) PQftype = nullptr;
  decltype(&::PQgetisnull) PQgetisnull = nullptr;
  decltype(&::PQgetlength) PQgetlength = nullptr;
  decltype(&::PQgetvalue) PQgetvalue = nullptr;
  decltype(&::PQenterPipelineMode) PQenterPipelineMode = nullptr;
  decltype(&::PQexitPipelineMode) PQexitPipelineMode = nullptr;
  decltype(&::PQgetResult) PQgetResult = nullptr;
  decltype(&::PQpipelineSync) PQpipelineSync = nullptr;
  decltype(&::PQsendQueryParams) PQsendQueryParams = nullptr;
  decltype(&::PQsendQueryPrepared) PQsendQueryPrepared = nullptr;
  decltype(&::PQnfields) PQnfields = nullptr;
  decltype(&::PQntuples) PQntuples = nullptr;
  decltype(&::PQprepare) PQprepare = nullptr;
  decltype(&::PQresultErrorField) PQresultErrorField = nullptr;
  decltype(&::PQresultErrorMessage) PQresultErrorMessage = nullptr;
  decltype(&::PQresultStatus) PQresultStatus = nullptr;
  decltype(&::PQsetClientEncoding) PQsetClientEncoding = nullptr;
  decltype(&::PQsetNoticeProcessor) PQsetNoticeProcessor = nullptr;
  decltype(&::PQstatus) PQstatus = nullptr;
  decltype(&::PQtransactionStatus) PQtransactionStatus = nullptr;

  Libpq() {
    lib.Load(PQclear, "PQclear");
    lib.Load(PQcmdTuples, "PQcmdTuples");
    lib.Load(PQconnectdb, "PQconnectdb");
    lib.Load(PQerrorMessage, "PQerrorMessage");
    lib.Load(PQexec, "PQexec");
    lib.Load(PQexecParams, "PQexecParams");
    lib.Load(PQexecPrepared, "PQexecPrepared");
    lib.Load(PQfinish, "PQfinish");
    lib.Load(PQftype, "PQftype");
    lib.Load(PQgetisnull, "PQgetisnull");
    lib.Load(PQgetlength, "PQgetlength");
    lib.Load(PQgetvalue, "PQgetvalue");
    lib.Load(PQenterPipelineMode, "PQenterPipelineMode");
    lib.Load(PQexitPipelineMode, "PQexitPipelineMode");
    lib.Load(PQgetResult, "PQgetResult");
    lib.Load(PQpipelineSync, "PQpipelineSync");
    lib.Load(PQsendQueryParams, "PQsendQueryParams");
    lib.Load(PQsendQueryPrepared, "PQsendQueryPrepared");
    lib.Load(PQnfields, "PQnfields");
    lib.Load(PQntuples, "PQntuples");
    lib.Load(PQprepare, "PQprepare");
    lib.Load(PQresultErrorField, "PQresultErrorField");
    lib.Load(PQresultErrorMessage, "PQresultErrorMessage");
    lib.Load(PQresultStatus, "PQresultStatus");
    lib.Load(PQsetClientEncoding, "PQsetClientEncoding");
    lib.Load(PQsetNoticeProcessor, "PQsetNoticeProcessor");
    lib.Load(PQstatus, "PQstatus");
    lib.Load(PQtransactionStatus, "PQtransactionStatus");
  }
};

const Libpq& Lib() {
  static const Libpq lib;
  return lib;
}

}  // namespace

Status PgError(std::string_view sqlstate, std::string_view message, std::string_view what) {
  std::string msg = std::string(what) + ": " + std::string(message);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  auto cls = sqlstate.substr(0, 2);
  if (sqlstate == "40001" || sqlstate == "40P01") return Status::Aborted(std::move(msg));
  if (sqlstate == "23505") return Status::AlreadyExists(std::move(msg));
  if (cls == "23") return Status::Conflict(std::move(msg));
  if (sqlstate == "53100" || sqlstate == "53200" || sqlstate == "53300" || sqlstate == "54000") {
    return Status::ResourceExhausted(std::move(msg));
  }
  if (cls == "08" || cls == "57" || sqlstate.empty()) return Status::Unavailable(std::move(msg));
  if (sqlstate == "XX001" || sqlstate == "XX002") return Status::Corruption(std::move(msg));
  if (sqlstate == "58030") return Status::IoError(std::move(msg));
  if (cls == "22") return Status::InvalidArgument(std::move(msg));
  return Status::Internal(std::move(msg));
}

Result<std::string> Placeholders(std::string_view sql, int* params, std::vector<bool>* used) {
  std::string out;
  std::vector<bool> seen;
  out.reserve(sql.size() + 16);
  int max = 0;
  size_t i = 0;
  auto copy_quoted = [&](char q) -> bool {  // from the opening quote
    out += sql[i++];
    while (i < sql.size()) {
      out += sql[i];
      if (sql[i++] != q) continue;
      if (i < sql.size() && sql[i] == q) {  // a doubled quote stays inside
        out += sql[i++];
        continue;
      }
      return true;
    }
    return false;
  };
  while (i < sql.size()) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {
      if (!copy_quoted(c)) return Status::InvalidArgument("unterminated quote in SQL");
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const size_t end = sql.find('\n', i);
      const size_t stop = end == std::string_view::npos ? sql.size() : end;
      out.append(sql.substr(i, stop - i));
      i = stop;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const size_t end = sql.find("*/", i + 2);
      if (end == std::string_view::npos) return Status::InvalidArgument("unterminated comment");
      out.append(sql.substr(i, end + 2 - i));
      i = end + 2;
    } else if (c == '?') {
      ++i;
      int n = 0;
      if (i < sql.size() && IsDigit(sql[i])) {
        while (i < sql.size() && IsDigit(sql[i])) {
          n = n * 10 + (sql[i++] - '0');
          if (n > 65535) return Status::InvalidArgument("placeholder number above 65535");
        }
        if (n == 0) return Status::InvalidArgument("placeholder ?0");
      } else {
        n = max + 1;
        if (n > 65535) return Status::InvalidArgument("more than 65535 placeholders");
      }
      if (n > max) max = n;
      if (seen.size() < static_cast<size_t>(n)) seen.resize(static_cast<size_t>(n));
      seen[static_cast<size_t>(n - 1)] = true;
      out += '$';
      out += std::to_string(n);
    } else {
      out += c;
      ++i;
    }
  }
  if (params) *params = max;
  if (used) {
    seen.resize(static_cast<size_t>(max));
    *used = std::move(seen);
  }
  return out;
}

// ---- Cursor

Cursor::Cursor(pg_conn* pg, std::string* unsent, std::string name, int params)
    : pg_(pg), unsent_(unsent), name_(std::move(name)), params_(static_cast<size_t>(params)) {}

Cursor::Cursor(pg_conn* pg, std::string* unsent, std::string text, std::vector<unsigned> types)
    : pg_(pg),
      unsent_(unsent),
      text_(std::move(text)),
      types_(std::move(types)),
      params_(types_.size()) {}

Cursor::~Cursor() {
  if (res_) Lib().PQclear(res_);
}

Cursor::Param* Cursor::At(int i) {
  assert(i >= 1 && static_cast<size_t>(i) <= params_.size() && "bind index out of range");
  if (i < 1 || static_cast<size_t>(i) > params_.size()) return nullptr;
  return &params_[static_cast<size_t>(i - 1)];
}

void Cursor::Set(int i, const char* data, int len, int format) {
  if (Param* p = At(i)) {
    p->data = data;
    p->len = len;
    p->format = format;
  }
}

void Cursor::BindInt(int i, int64_t v) {
  if (Param* p = At(i)) {
    p->own = std::to_string(v);
    Set(i, p->own.c_str(), static_cast<int>(p->own.size()), 0);
  }
}

void Cursor::BindText(int i, std::string_view t) {
  // Text format: the server reads the length given (no NUL needed).
  Set(i, t.data() ? t.data() : "", static_cast<int>(t.size()), 0);
}

void Cursor::BindBlob(int i, std::string_view b) {
  // A zero-length blob stays a value, not NULL.
  Set(i, b.empty() ? "" : b.data(), static_cast<int>(b.size()), 1);
}

void Cursor::BindReal(int i, double v) {
  if (Param* p = At(i)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    p->own = buf;
    Set(i, p->own.c_str(), static_cast<int>(p->own.size()), 0);
  }
}

void Cursor::BindNull(int i) { Set(i, nullptr, 0, 0); }

Result<bool> Cursor::Step() {
  if (!res_) {
    const size_t n = params_.size();
    std::vector<const char*> values(n);
    std::vector<int> lengths(n), formats(n);
    for (size_t k = 0; k < n; ++k) {
      values[k] = params_[k].data;
      lengths[k] = params_[k].len;
      formats[k] = params_[k].format;
    }
    static_assert(std::is_same_v<Oid, unsigned>);  // pg_conn.h declares the types unsigned
    if (unsent_ && !unsent_->empty()) {
      const std::string first = std::move(*unsent_);
      unsent_->clear();
      res_ = RunAfter(first, static_cast<int>(n), values.data(), lengths.data(), formats.data());
    } else if (name_.empty()) {
      // The unnamed statement: parsed, planned for these values and run.
      res_ = Lib().PQexecParams(pg_, text_.c_str(), static_cast<int>(n), types_.data(),
                                values.data(), lengths.data(), formats.data(), /*resultFormat=*/1);
    } else {
      res_ = Lib().PQexecPrepared(pg_, name_.c_str(), static_cast<int>(n), values.data(),
                                  lengths.data(), formats.data(), /*resultFormat=*/1);
    }
    const ExecStatusType st = res_ ? Lib().PQresultStatus(res_) : PGRES_FATAL_ERROR;
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      const char* state = res_ ? Lib().PQresultErrorField(res_, PG_DIAG_SQLSTATE) : nullptr;
      Status err = PgError(state ? state : "",
                           res_ ? Lib().PQresultErrorMessage(res_) : Lib().PQerrorMessage(pg_),
                           name_.empty() ? text_.substr(0, 60) : "statement " + name_);
      Reset();
      return err;
    }
    const Libpq& pq = Lib();
    rows_ = pq.PQntuples(res_);
    row_ = -1;
    cols_ = pq.PQnfields(res_);
    col_types_.resize(static_cast<size_t>(cols_));
    for (int c = 0; c < cols_; ++c) col_types_[static_cast<size_t>(c)] = pq.PQftype(res_, c);
  }
  if (row_ < rows_) ++row_;
  return row_ < rows_;
}

bool Cursor::IsNull(int col) const {
  return !res_ || row_ < 0 || row_ >= rows_ || col < 0 || col >= cols_ ||
         Lib().PQgetisnull(res_, row_, col);
}

bool Cursor::Cell(int col, const char** data, int* len) const {
  if (!res_ || row_ < 0 || row_ >= rows_ || col < 0 || col >= cols_) return false;
  const Libpq& pq = Lib();
  *len = pq.PQgetlength(res_, row_, col);
  // Only an empty value can be NULL (libpq gives NULL a length of 0).
  if (*len == 0 && pq.PQgetisnull(res_, row_, col)) return false;
  *data = pq.PQgetvalue(res_, row_, col);
  return true;
}

std::string_view Cursor::TextView(int col) const {
  const char* p = nullptr;
  int len = 0;
  if (!Cell(col, &p, &len)) return {};
  return {p, static_cast<size_t>(len)};
}

int64_t Cursor::Int(int col) const {
  const char* p = nullptr;
  int len = 0;
  if (!Cell(col, &p, &len)) return 0;
  switch (col_types_[static_cast<size_t>(col)]) {
    case kInt8:
      return static_cast<int64_t>(BigEndian(p, 8));
    case kInt4:
      return static_cast<int32_t>(BigEndian(p, 4));
    case kInt2:
      return static_cast<int16_t>(BigEndian(p, 2));
    case kOid:
      return static_cast<int64_t>(BigEndian(p, 4));
    case kBool:
      return p[0] != 0;
    case kNumeric:
      return NumericInt(p, len);
    case kFloat4:
    case kFloat8:
      return static_cast<int64_t>(Real(col));
    case kBytea:
      return 0;
    default:  // text: as SQLite reads a number from text
      return std::strtoll(std::string(p, static_cast<size_t>(len)).c_str(), nullptr, 10);
  }
}

double Cursor::Real(int col) const {
  const char* p = nullptr;
  int len = 0;
  if (!Cell(col, &p, &len)) return 0;
  switch (col_types_[static_cast<size_t>(col)]) {
    case kFloat8: {
      const uint64_t bits = BigEndian(p, 8);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    case kFloat4: {
      const uint32_t bits = static_cast<uint32_t>(BigEndian(p, 4));
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    default:
      return static_cast<double>(Int(col));
  }
}

pg_result* Cursor::RunAfter(const std::string& first, int n, const char* const* values,
                            const int* lengths, const int* formats) {
  const Libpq& pq = Lib();
  if (pq.PQenterPipelineMode(pg_) != 1) return nullptr;
  bool sent =
      pq.PQsendQueryParams(pg_, first.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 1) == 1;
  if (sent) {
    sent = (name_.empty() ? pq.PQsendQueryParams(pg_, text_.c_str(), n, types_.data(), values,
                                                 lengths, formats, /*resultFormat=*/1)
                          : pq.PQsendQueryPrepared(pg_, name_.c_str(), n, values, lengths, formats,
                                                   /*resultFormat=*/1)) == 1;
  }
  if (sent) sent = pq.PQpipelineSync(pg_) == 1;
  // Each query's results end with a null; the sync's result comes last.
  // (A broken connection yields a fatal result, then nulls.)
  auto take = [&]() -> PGresult* {
    PGresult* r = pq.PQgetResult(pg_);
    if (r && pq.PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
      while (PGresult* more = pq.PQgetResult(pg_)) pq.PQclear(more);
    }
    return r;
  };
  PGresult* head = sent ? take() : nullptr;
  PGresult* res = sent ? take() : nullptr;
  if (sent) {
    if (PGresult* sync = pq.PQgetResult(pg_)) pq.PQclear(sync);
  }
  (void)pq.PQexitPipelineMode(pg_);
  const ExecStatusType hs = head ? pq.PQresultStatus(head) : PGRES_FATAL_ERROR;
  if (hs != PGRES_COMMAND_OK && hs != PGRES_TUPLES_OK) {
    if (res) pq.PQclear(res);
    return head;  // its error is the one to report (this statement's is "aborted")
  }
  pq.PQclear(head);
  return res;
}

int Cursor::changes() const { return res_ ? std::atoi(Lib().PQcmdTuples(res_)) : 0; }

void Cursor::Reset() {
  if (res_) Lib().PQclear(res_);
  res_ = nullptr;
  row_ = -1;
  rows_ = 0;
  cols_ = 0;
}

void Cursor::Release() {
  Reset();
  for (Param& p : params_) p = Param{};
}

// ---- Conn

Result<std::unique_ptr<Conn>> Conn::Open(const std::string& conninfo) {
  if (!Lib().lib.ok()) {
    return Status::Unavailable("PostgreSQL needs libpq: " + Lib().lib.error());
  }
  std::unique_ptr<Conn> c(new Conn());
  c->pg_ = Lib().PQconnectdb(conninfo.c_str());
  if (!c->pg_) return Status::ResourceExhausted("libpq: out of memory");
  if (Lib().PQstatus(c->pg_) != CONNECTION_OK) {
    return Status::Unavailable(std::string("connecting to PostgreSQL: ") +
                               Lib().PQerrorMessage(c->pg_));
  }
  // Notices (e.g. "relation already exists, skipping") are not errors and
  // must not reach stderr.
  Lib().PQsetNoticeProcessor(
      c->pg_, [](void*, const char*) {}, nullptr);
  if (Lib().PQsetClientEncoding(c->pg_, "UTF8") != 0) {
    return Status::Unavailable(std::string("PostgreSQL client encoding: ") +
                               Lib().PQerrorMessage(c->pg_));
  }
  return c;
}

Conn::~Conn() {
  cache_.clear();
  if (pg_) Lib().PQfinish(pg_);
}

bool Conn::Healthy() const { return pg_ && Lib().PQstatus(pg_) == CONNECTION_OK; }

bool Conn::InFailedTransaction() const {
  return pg_ && Lib().PQtransactionStatus(pg_) == PQTRANS_INERROR;
}

Result<Stmt> Conn::Prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    int params = 0;
    std::vector<bool> used;
    NUBO_ASSIGN_OR_RETURN(std::string text, Placeholders(sql, &params, &used));
    // The server infers each parameter's type from where it stands; one
    // the text never names has no place, so it is declared text (and its
    // value is ignored).
    std::vector<Oid> types(used.size(), 0);
    for (size_t i = 0; i < used.size(); ++i) {
      if (!used[i]) types[i] = kText;
    }
    if (std::strncmp(sql, NUBO_SQL_PLAN_PER_CALL, std::strlen(NUBO_SQL_PLAN_PER_CALL)) == 0) {
      it = cache_
               .emplace(sql,
                        std::make_unique<Cursor>(pg_, &unsent_, std::move(text), std::move(types)))
               .first;
      return Stmt(it->second.get());
    }
    std::string name = "s" + std::to_string(cache_.size() + 1);
    PGresult* r = Lib().PQprepare(pg_, name.c_str(), text.c_str(), static_cast<int>(types.size()),
                                  types.empty() ? nullptr : types.data());
    const bool ok = r && Lib().PQresultStatus(r) == PGRES_COMMAND_OK;
    Status err;
    if (!ok) {
      const char* state = r ? Lib().PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
      err =
          PgError(state ? state : "", r ? Lib().PQresultErrorMessage(r) : Lib().PQerrorMessage(pg_),
                  std::string(sql).substr(0, 60));
    }
    if (r) Lib().PQclear(r);
    if (!ok) return err;
    it =
        cache_.emplace(sql, std::make_unique<Cursor>(pg_, &unsent_, std::move(name), params)).first;
  }
  return Stmt(it->second.get());
}

Status Conn::Exec(std::string_view sql) {
  // The simple protocol takes several statements in one message.
  const std::string text = unsent_.empty() ? std::string(sql) : unsent_ + "; " + std::string(sql);
  unsent_.clear();
  PGresult* r = Lib().PQexec(pg_, text.c_str());
  const ExecStatusType st = r ? Lib().PQresultStatus(r) : PGRES_FATAL_ERROR;
  Status out;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) {
    const char* state = r ? Lib().PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    out = PgError(state ? state : "", r ? Lib().PQresultErrorMessage(r) : Lib().PQerrorMessage(pg_),
                  text.substr(0, 60));
  }
  if (r) Lib().PQclear(r);
  return out;
}

}  // namespace nubo::meta::pg
