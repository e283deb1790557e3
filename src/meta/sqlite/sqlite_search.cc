#include "meta/sqlite/sqlite_search.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

namespace {

// Why not `ORDER BY bm25(doc_text) LIMIT n`: SQLite then steps every match
// through the VM and bm25() reads each document's size with a statement of
// its own — about 0.8 µs a match, 80 ms for a word that 100,000 documents
// hold. Here one call walks each phrase's document list inside FTS5
// (xQueryPhrase), counts instances only where they can matter, reads the
// sizes from packed rows (doc_sizes) and scores with bm25()'s formula.

constexpr const char* kRequestType = "nubo_text_rank";
constexpr const char* kFunction = "nubo_text_rank";

struct Request {
  Conn* conn;
  const std::optional<std::pair<double, int64_t>>* after;
  size_t want;
  const std::function<Result<bool>(int64_t, double)>* take;
  RankTuning tuning;
  bool ran = false;
  Status status;
};

// The varints in [a, b), or -1 when a byte could be a column marker. A
// varint (SQLite's format) ends at its first byte below 0x80.
int CountVarints(const unsigned char* a, const unsigned char* b) {
  int n = 0;
  bool marker = false;
  for (; a < b; ++a) {
    n += *a < 0x80;
    marker |= *a == 0x01;
  }
  return marker ? -1 : n;
}

// Instances of the (only) phrase of an xQueryPhrase callback's row; -1 on
// error. Counting them one xPhraseNext() call each was most of a common
// word's query (2-3 million instances at 100,000 documents). doc_text has a
// single column, so after xPhraseFirst() the iterator holds the rest of the
// row's position list: one varint per further instance, no column markers
// (the value 1 in fts5's position lists, which a lone 0x01 byte would be).
// That layout is FTS5's, not its documented API, so `*fast` starts unknown
// and rows are counted both ways until one with two instances or more
// (where the quick count has something to get wrong) agrees: the quick
// count is used only after that (1), never after a disagreement (0).
int Instances(const Fts5ExtensionApi* api, Fts5Context* fts, int8_t* fast) {
  Fts5PhraseIter it;
  int col = 0;
  int off = 0;
  if (api->xPhraseFirst(fts, 0, &it, &col, &off) != SQLITE_OK) return -1;
  if (col < 0) return 0;
  int quick = -1;
  if (*fast != 0 && it.a && it.b && it.a <= it.b) quick = CountVarints(it.a, it.b);
  if (quick >= 0 && *fast == 1) return quick + 1;
  int n = 1;
  for (api->xPhraseNext(fts, &it, &col, &off); col >= 0; api->xPhraseNext(fts, &it, &col, &off)) {
    ++n;
  }
  if (*fast < 0 && quick >= 0 && (n >= 2 || quick + 1 != n)) *fast = quick + 1 == n ? 1 : 0;
  return n;
}

// One walk over a phrase's documents (ascending rowids). With `keep` unset
// every rowid is collected; with it set only those also in *keep survive
// (the intersection so far) — all are counted either way, since the
// phrase's document count is its IDF. When `tf` is set, instances are
// counted for the surviving rows: appended beside `out` when collecting,
// else stored at stride × (index in *keep) + column.
struct Walk {
  const std::vector<int64_t>* keep = nullptr;
  std::vector<int64_t>* out = nullptr;  // cleared by the caller
  std::vector<int32_t>* tf = nullptr;
  size_t stride = 1;
  size_t column = 0;
  bool collect = true;  // false: only counting instances for *keep rows
  size_t pos = 0;
  int64_t hits = 0;
  int8_t fast = -1;  // Instances()' quick count: unknown, trusted (1), not (0)
};

int OnRow(const Fts5ExtensionApi* api, Fts5Context* fts, void* arg) {
  Walk& w = *static_cast<Walk*>(arg);
  ++w.hits;
  const int64_t id = api->xRowid(fts);
  if (w.keep) {
    const std::vector<int64_t>& k = *w.keep;
    while (w.pos < k.size() && k[w.pos] < id) ++w.pos;
    if (w.pos == k.size()) return w.collect ? SQLITE_OK : SQLITE_DONE;
    if (k[w.pos] != id) return SQLITE_OK;
  }
  if (w.tf) {
    int n = Instances(api, fts, &w.fast);
    if (n < 0) return SQLITE_ERROR;
    if (w.collect) {
      w.tf->push_back(n);
    } else {
      (*w.tf)[w.pos * w.stride + w.column] = n;
    }
  }
  if (w.collect) w.out->push_back(id);
  return SQLITE_OK;
}

// Sum of a document-size record's varints (one per column): the tokens in
// the row, what xColumnSize(-1) answers.
uint64_t RecordTokens(std::string_view rec) {
  const auto* p = reinterpret_cast<const unsigned char*>(rec.data());
  uint64_t total = 0;
  size_t at = 0;
  while (at < rec.size()) {
    size_t used = 0;
    auto v = ReadVarint(p + at, rec.size() - at, &used);
    if (!v) break;
    total += *v;
    at += used;
  }
  return total;
}

// doc_sizes: bucket = rowid >> kSizeShift, 4 bytes little-endian per slot.
constexpr int kSizeShift = 10;
constexpr int64_t kSlotMask = (int64_t{1} << kSizeShift) - 1;

uint32_t SlotValue(std::string_view blob, int64_t slot) {
  const size_t at = static_cast<size_t>(slot) * 4;
  if (at + 4 > blob.size()) return 0;
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data()) + at;
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

void SetSlot(std::string& blob, int64_t slot, uint64_t tokens) {
  const uint32_t v = static_cast<uint32_t>(std::min<uint64_t>(tokens, UINT32_MAX));
  const size_t at = static_cast<size_t>(slot) * 4;
  if (blob.size() < at + 4) blob.resize(at + 4, '\0');
  for (int k = 0; k < 4; ++k) blob[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
}

// nubo_pack_sizes(slot, docsize record): one doc_sizes blob per group.
void PackStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** acc = static_cast<std::string**>(sqlite3_aggregate_context(ctx, sizeof(std::string*)));
  if (!acc) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (!*acc) *acc = new std::string();
  const int64_t slot = sqlite3_value_int64(argv[0]);
  if (slot < 0 || slot > kSlotMask) return;
  const void* p = sqlite3_value_blob(argv[1]);
  const int n = sqlite3_value_bytes(argv[1]);
  SetSlot(
      **acc, slot,
      RecordTokens(std::string_view(static_cast<const char*>(p), p ? static_cast<size_t>(n) : 0)));
}

void PackFinal(sqlite3_context* ctx) {
  auto** acc = static_cast<std::string**>(sqlite3_aggregate_context(ctx, 0));
  if (!acc || !*acc) {
    sqlite3_result_zeroblob(ctx, 0);
    return;
  }
  sqlite3_result_blob64(ctx, (*acc)->data(), (*acc)->size(), SQLITE_TRANSIENT);
  delete *acc;
  *acc = nullptr;
}

// Tokens of the documents ids[at[k]] (ascending) from doc_text_docsize:
// one range scan when they are dense in their span, else one lookup each.
Status DocsizeSizes(Conn& c, const std::vector<int64_t>& ids, const std::vector<size_t>& at,
                    std::vector<uint64_t>& out) {
  if (at.empty()) return Status::Ok();
  const int64_t lo = ids[at.front()];
  const int64_t hi = ids[at.back()];
  if (at.size() * 16 >= static_cast<uint64_t>(hi - lo) + 1) {
    NUBO_PREPARE(s, c, "SELECT id, sz FROM doc_text_docsize WHERE id BETWEEN ?1 AND ?2");
    s.Bind(1, lo).Bind(2, hi);
    size_t k = 0;
    while (k < at.size()) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      const int64_t id = s.Int(0);
      while (k < at.size() && ids[at[k]] < id) ++k;
      if (k < at.size() && ids[at[k]] == id) out[at[k++]] = RecordTokens(s.BlobView(1));
    }
    return Status::Ok();
  }
  NUBO_PREPARE(s, c, "SELECT sz FROM doc_text_docsize WHERE id = ?1");
  for (size_t k : at) {
    s.Bind(1, ids[k]);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) out[k] = RecordTokens(s.BlobView(0));
    s.Reset();
  }
  return Status::Ok();
}

// Tokens of each document in `ids` (ascending): from the packed doc_sizes
// rows of their buckets (one range scan when the buckets are dense in their
// span, else one lookup per bucket), and from doc_text_docsize for the
// documents doc_sizes does not know.
Status Sizes(Conn& c, const std::vector<int64_t>& ids, std::vector<uint64_t>& out) {
  out.assign(ids.size(), 0);
  if (ids.empty()) return Status::Ok();
  std::vector<int64_t> buckets;
  for (int64_t id : ids) {
    if (buckets.empty() || buckets.back() != (id >> kSizeShift))
      buckets.push_back(id >> kSizeShift);
  }
  size_t j = 0;
  auto fill = [&](int64_t bucket, std::string_view blob) {
    while (j < ids.size() && (ids[j] >> kSizeShift) < bucket) ++j;
    for (; j < ids.size() && (ids[j] >> kSizeShift) == bucket; ++j) {
      out[j] = SlotValue(blob, ids[j] & kSlotMask);
    }
  };
  if (buckets.size() * 4 >= static_cast<uint64_t>(buckets.back() - buckets.front()) + 1) {
    NUBO_PREPARE(s, c, "SELECT bucket, sizes FROM doc_sizes WHERE bucket BETWEEN ?1 AND ?2");
    s.Bind(1, buckets.front()).Bind(2, buckets.back());
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      fill(s.Int(0), s.BlobView(1));
    }
  } else {
    NUBO_PREPARE(s, c, "SELECT sizes FROM doc_sizes WHERE bucket = ?1");
    for (int64_t b : buckets) {
      s.Bind(1, b);
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (row) fill(b, s.BlobView(0));
      s.Reset();
    }
  }
  std::vector<size_t> unknown;
  for (size_t k = 0; k < ids.size(); ++k) {
    if (out[k] == 0) unknown.push_back(k);
  }
  return DocsizeSizes(c, ids, unknown, out);
}

// The buffers of one ranking. A common word fills about 100,000 entries in
// each, and allocating them afresh for every query cost a quarter of its
// time (page faults on new memory, copies as the vectors grew), so one set
// is kept for the next query: only one, and only while it holds at most
// kKeptBytes (a one-word query over 100,000 documents needs about 4.8 MB).
struct Scratch {
  std::vector<int64_t> ids, next;
  std::vector<int32_t> tf, last_tf;
  std::vector<uint64_t> sizes;
  std::vector<std::pair<double, int64_t>> ranked;

  size_t Bytes() const {
    auto held = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return held(ids) + held(next) + held(tf) + held(last_tf) + held(sizes) + held(ranked);
  }
};
constexpr size_t kKeptBytes = size_t{6} << 20;

std::mutex scratch_mu;
std::unique_ptr<Scratch> kept_scratch;  // guarded by scratch_mu

std::unique_ptr<Scratch> TakeScratch() {
  std::lock_guard<std::mutex> lock(scratch_mu);
  return kept_scratch ? std::move(kept_scratch) : std::make_unique<Scratch>();
}

void KeepScratch(std::unique_ptr<Scratch> s) {
  if (s->Bytes() > kKeptBytes) return;
  std::lock_guard<std::mutex> lock(scratch_mu);
  kept_scratch = std::move(s);
}

Status Rank(Request& r, Scratch& sc, const Fts5ExtensionApi* api, Fts5Context* fts) {
  const int phrases = api->xPhraseCount(fts);
  if (phrases <= 0) return Status::Ok();
  const size_t np = static_cast<size_t>(phrases);
  sqlite3_int64 rows = 0;
  sqlite3_int64 tokens = 0;
  if (api->xRowCount(fts, &rows) != SQLITE_OK || rows <= 0 ||
      api->xColumnTotalSize(fts, -1, &tokens) != SQLITE_OK) {
    return Status::Internal("full-text statistics unreadable");
  }
  // Walk 1: every phrase once, for its document count and the intersection
  // (the query is an AND of its phrases). The last phrase's walk also counts
  // instances: its survivors are the final candidates.
  std::vector<int64_t>& ids = sc.ids;
  std::vector<int32_t>& tf = sc.tf;
  std::vector<double> idf(np);
  std::vector<int32_t>& last_tf = sc.last_tf;
  ids.clear();
  last_tf.clear();
  for (size_t i = 0; i < np; ++i) {
    Walk w;
    if (!r.tuning.quick_count) w.fast = 0;
    w.keep = i ? &ids : nullptr;
    sc.next.clear();
    w.out = &sc.next;
    if (i + 1 == np) w.tf = &last_tf;
    if (api->xQueryPhrase(fts, static_cast<int>(i), &w, OnRow) != SQLITE_OK) {
      return Status::Internal("full-text phrase walk failed");
    }
    // bm25()'s IDF, floored the same way (fts5_aux.c): a phrase in more
    // than half the documents still counts a little.
    double v =
        std::log((static_cast<double>(rows - w.hits) + 0.5) / (static_cast<double>(w.hits) + 0.5));
    idf[i] = v <= 0.0 ? 1e-6 : v;
    ids.swap(sc.next);
    if (ids.empty()) return Status::Ok();
  }
  // Walk 2: instances of the other phrases, for the candidates only; each
  // walk stops past the last candidate.
  tf.assign(ids.size() * np, 0);
  for (size_t j = 0; j < ids.size(); ++j) tf[j * np + np - 1] = last_tf[j];
  for (size_t i = 0; i + 1 < np; ++i) {
    Walk w;
    if (!r.tuning.quick_count) w.fast = 0;
    w.keep = &ids;
    w.collect = false;
    w.tf = &tf;
    w.stride = np;
    w.column = i;
    if (api->xQueryPhrase(fts, static_cast<int>(i), &w, OnRow) != SQLITE_OK) {
      return Status::Internal("full-text phrase walk failed");
    }
  }
  std::vector<uint64_t>& sizes = sc.sizes;
  NUBO_RETURN_IF_ERROR(Sizes(*r.conn, ids, sizes));
  // bm25() exactly as FTS5 computes it (same operations in the same order,
  // so the value is bit for bit the one a cursor carries).
  const double k1 = 1.2;
  const double b = 0.75;
  const double avgdl = static_cast<double>(tokens) / static_cast<double>(rows);
  std::vector<std::pair<double, int64_t>>& ranked = sc.ranked;
  ranked.clear();
  ranked.reserve(ids.size());
  const auto& after = *r.after;
  for (size_t j = 0; j < ids.size(); ++j) {
    const double d = static_cast<double>(sizes[j]);
    double score = 0.0;
    for (size_t i = 0; i < np; ++i) {
      const double f = tf[j * np + i];
      score += idf[i] * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * d / avgdl)));
    }
    const double rank = -1.0 * score;
    if (after && (rank < after->first || (rank == after->first && ids[j] <= after->second))) {
      continue;
    }
    ranked.emplace_back(rank, ids[j]);
  }
  // Best first, lazily: a heap pops only as many as the caller looks at.
  auto worse = [](const std::pair<double, int64_t>& a, const std::pair<double, int64_t>& b2) {
    return a > b2;
  };
  std::make_heap(ranked.begin(), ranked.end(), worse);
  size_t accepted = 0;
  auto end = ranked.end();
  while (accepted < r.want && end != ranked.begin()) {
    std::pop_heap(ranked.begin(), end, worse);
    --end;
    NUBO_ASSIGN_OR_RETURN(bool ok, (*r.take)(end->second, end->first));
    if (ok) ++accepted;
  }
  return Status::Ok();
}

void RankFunction(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int argc,
                  sqlite3_value** argv) {
  auto* r =
      argc == 1 ? static_cast<Request*>(sqlite3_value_pointer(argv[0], kRequestType)) : nullptr;
  if (!r) {
    sqlite3_result_error(ctx, "nubo_text_rank: no request", -1);
    return;
  }
  if (r->ran) return;  // the first row's call does the whole work
  r->ran = true;
  std::unique_ptr<Scratch> sc =
      r->tuning.reuse_buffers ? TakeScratch() : std::make_unique<Scratch>();
  r->status = Rank(*r, *sc, api, fts);
  if (r->tuning.reuse_buffers) KeepScratch(std::move(sc));
  if (!r->status.ok()) sqlite3_result_error(ctx, "nubo_text_rank failed", -1);
}

}  // namespace

std::optional<uint64_t> ReadVarint(const unsigned char* p, size_t n, size_t* used) {
  // SQLite's varint: up to eight 7-bit groups, big end first, high bit
  // set when more follow; a ninth byte carries 8 bits.
  uint64_t v = 0;
  for (size_t i = 0; i < 9; ++i) {
    if (i >= n) return std::nullopt;
    if (i == 8) {
      *used = 9;
      return (v << 8) | p[i];
    }
    v = (v << 7) | (p[i] & 0x7f);
    if (!(p[i] & 0x80)) {
      *used = i + 1;
      return v;
    }
  }
  return std::nullopt;
}

Status RegisterSearchFunctions(sqlite3* db) {
  // The FTS5 API pointer comes from `SELECT fts5(?)` with a bound pointer
  // (https://sqlite.org/fts5.html#extending_fts5).
  fts5_api* fts = nullptr;
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &s, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_bind_pointer(s, 1, &fts, "fts5_api_ptr", nullptr);
    rc = sqlite3_step(s);
    rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_OK || !fts) return Status::Internal("this SQLite has no FTS5");
  rc = fts->xCreateFunction(fts, kFunction, nullptr, RankFunction, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "register nubo_text_rank");
  rc = sqlite3_create_function_v2(db, "nubo_pack_sizes", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                  nullptr, nullptr, PackStep, PackFinal, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "register nubo_pack_sizes");
  return Status::Ok();
}

Status StoreTextSize(Conn& c, int64_t rowid) {
  uint64_t tokens = 0;
  {
    NUBO_PREPARE(s, c, "SELECT sz FROM doc_text_docsize WHERE id = ?1");
    s.Bind(1, rowid);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::Ok();
    tokens = RecordTokens(s.BlobView(0));
  }
  const int64_t bucket = rowid >> kSizeShift;
  std::string blob;
  {
    NUBO_PREPARE(s, c, "SELECT sizes FROM doc_sizes WHERE bucket = ?1");
    s.Bind(1, bucket);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) blob = s.Blob(0);
  }
  SetSlot(blob, rowid & kSlotMask, tokens);
  NUBO_PREPARE(s, c,
               "INSERT INTO doc_sizes (bucket, sizes) VALUES (?1, ?2) "
               "ON CONFLICT (bucket) DO UPDATE SET sizes = excluded.sizes");
  s.Bind(1, bucket).BindBlob(2, blob);
  return s.Exec();
}

namespace {

// doc_text's tokenizer (migration 0014): a query word is split and folded
// the same way before it is looked up among the index's terms.
constexpr const char* kTokenizer = "unicode61";
const char* kTokenizerArgs[] = {"remove_diacritics", "2"};

// The text of `match`'s last phrase when it is a prefix (`"…"*`), its
// doubled quotes undone; nullopt for any other shape.
std::optional<std::string> LastPrefixText(std::string_view match) {
  size_t i = 0;
  std::string text;
  while (i < match.size()) {
    if (match[i] == ' ') {
      ++i;
      continue;
    }
    if (match[i] != '"') return std::nullopt;
    text.clear();
    for (++i;; ++i) {
      if (i >= match.size()) return std::nullopt;
      if (match[i] != '"') {
        text += match[i];
      } else if (i + 1 < match.size() && match[i + 1] == '"') {
        text += '"';
        ++i;
      } else {
        ++i;
        break;
      }
    }
    if (i < match.size() && match[i] == '*') {
      return i + 1 == match.size() ? std::optional<std::string>(text) : std::nullopt;
    }
  }
  return std::nullopt;
}

Result<std::vector<std::string>> QueryTokens(Conn& c, const std::string& text) {
  fts5_api* api = nullptr;
  {
    NUBO_PREPARE(s, c, "SELECT fts5(?1)");
    BindPointer(s, 1, &api, "fts5_api_ptr");
    NUBO_RETURN_IF_ERROR(s.Step().status());
  }
  void* user = nullptr;
  fts5_tokenizer t;
  Fts5Tokenizer* tok = nullptr;
  if (!api || api->xFindTokenizer(api, kTokenizer, &user, &t) != SQLITE_OK ||
      t.xCreate(user, kTokenizerArgs, 2, &tok) != SQLITE_OK) {
    return Status::Internal("the full-text tokenizer is missing");
  }
  std::vector<std::string> out;
  auto on_token = [](void* ctx, int flags, const char* p, int n, int, int) -> int {
    if (!(flags & FTS5_TOKEN_COLOCATED))
      static_cast<std::vector<std::string>*>(ctx)->emplace_back(p, n);
    return SQLITE_OK;
  };
  int rc = t.xTokenize(tok, &out, FTS5_TOKENIZE_QUERY, text.data(), static_cast<int>(text.size()),
                       on_token);
  t.xDelete(tok);
  if (rc != SQLITE_OK) return Status::Internal("the full-text tokenizer failed");
  return out;
}

}  // namespace

Result<bool> PrefixAddsNothing(Conn& c, std::string_view match) {
  std::optional<std::string> text = LastPrefixText(match);
  if (!text) return false;
  NUBO_ASSIGN_OR_RETURN(std::vector<std::string> tokens, QueryTokens(c, *text));
  if (tokens.size() != 1) return false;
  // The first term after the word (terms are in byte order): a longer term
  // starting with the word sorts right after it. Asked as `>=` the word
  // plus \x01 (no term holds a NUL byte): fts5vocab seeks to a lower
  // bound only for >=, and `> word` would step through every instance of
  // the word first (67 ms for a common one).
  NUBO_PREPARE(s, c, "SELECT term FROM doc_text_terms WHERE term >= ?1 LIMIT 1");
  const std::string after = tokens[0] + '\x01';
  s.Bind(1, after);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return !row || !s.View(0).starts_with(tokens[0]);
}

Result<int64_t> TextIndexSegments(Conn& c) {
  NUBO_PREPARE(s, c, "SELECT count(DISTINCT segid) FROM doc_text_idx");
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<bool> CompactTextIndex(Conn& c, int64_t pages) {
  // Why: every write adds a segment and FTS5's automerge keeps about four
  // per level, so a grown index is read as ~25 b-trees merged on the fly —
  // each query seeks all of them (the term lookup of a rare word: 85 µs
  // over 25 segments, 11 µs over one; a common word's walk ~15 % slower).
  NUBO_ASSIGN_OR_RETURN(int64_t segments, TextIndexSegments(c));
  if (segments <= kCompactAbove) return false;
  // https://sqlite.org/fts5.html#the_merge_command: a negative count puts
  // every segment on one level first; fewer than two changes = no work.
  const int64_t before = sqlite3_total_changes64(c.db());
  NUBO_PREPARE(s, c, "INSERT INTO doc_text (doc_text, rank) VALUES ('merge', ?1)");
  s.Bind(1, -std::max<int64_t>(pages, 1));
  NUBO_RETURN_IF_ERROR(s.Exec());
  return sqlite3_total_changes64(c.db()) - before >= 2;
}

Status RankText(Conn& c, const std::string& match,
                const std::optional<std::pair<double, int64_t>>& after, size_t want,
                const std::function<Result<bool>(int64_t id, double rank)>& take,
                RankTuning tuning) {
  if (want == 0) return Status::Ok();
  Request r{&c, &after, want, &take, tuning};
  // A prefix that only the word itself has costs FTS5 a merge of the
  // word's whole document list (twice: the query and the walk) for nothing.
  NUBO_ASSIGN_OR_RETURN(bool exact, PrefixAddsNothing(c, match));
  const std::string query = exact ? match.substr(0, match.size() - 1) : match;
  NUBO_PREPARE(s, c,
               "SELECT nubo_text_rank(doc_text, ?1) FROM doc_text WHERE doc_text MATCH ?2 LIMIT 1");
  BindPointer(s, 1, &r, kRequestType).Bind(2, query);
  auto row = s.Step();
  if (!r.status.ok()) return r.status;
  return row.ok() ? Status::Ok() : row.status();
}

}  // namespace nubo::meta::sqlite
