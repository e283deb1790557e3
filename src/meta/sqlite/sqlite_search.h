// Ranked full-text retrieval for the SQLite backend: the best rows of an
// FTS5 query over doc_text in BM25 order, without evaluating bm25() row by
// row through the statement VM (see docs/media-and-search.md, "Ranking").
// Internal to meta/sqlite.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "meta/meta_store.h"

namespace nubo::meta::sqlite {

class Conn;

// Registers on a connection the FTS5 auxiliary function behind RankText
// and nubo_pack_sizes(slot, docsize record), the aggregate that builds a
// doc_sizes row (migration 0024).
Status RegisterSearchFunctions(sqlite3* db);

// Records doc_text row `rowid`'s token count in doc_sizes; call after
// inserting the row, in the same transaction.
Status StoreTextSize(Conn& c, int64_t rowid);

// Offers the documents of doc_text matching `match` to `take`, best first:
// by FTS5's bm25() value (the same number, so it may travel in a cursor)
// and then by rowid, starting after `after`. Stops when `take` has accepted
// `want` of them or none are left. `match` must be an AND of phrases, as
// search::FtsQuery writes it (the ranking relies on that shape).
// `tuning` switches this file's optimizations off one by one, for the
// tests and the micro-benchmark (bench/micro/rank_bench.cc) that compare them
// with the plain way; every setting ranks the same.
struct RankTuning {
  bool quick_count = true;    // false: each instance through FTS5's API
  bool reuse_buffers = true;  // false: fresh buffers for every query
};
Status RankText(Conn& c, const std::string& match,
                const std::optional<std::pair<double, int64_t>>& after, size_t want,
                const std::function<Result<bool>(int64_t id, double rank)>& take,
                RankTuning tuning = {});

// True when `match` (an FtsQuery) ends with a prefix phrase of one token
// that no longer term in the index starts with: the prefix then matches
// exactly what the word alone matches, with the same rank.
Result<bool> PrefixAddsNothing(Conn& c, std::string_view match);

// One step of MetaStore's CompactTextIndex: FTS5's 'merge' with a
// negative page count (every segment onto one level, merged) while
// doc_text has more than kCompactAbove segments or a merge is under way.
// Eight: a full merge then follows dozens of text writes, not every few
// (each rewrites the whole index).
inline constexpr int64_t kCompactAbove = 8;
Result<bool> CompactTextIndex(Conn& c, int64_t pages);
// doc_text's segments (b-trees) now.
Result<int64_t> TextIndexSegments(Conn& c);

// One SQLite varint (the record format FTS5 also uses for its document
// sizes) from `p`; nullopt when `n` bytes do not hold a whole one.
std::optional<uint64_t> ReadVarint(const unsigned char* p, size_t n, size_t* used);

}  // namespace nubo::meta::sqlite
