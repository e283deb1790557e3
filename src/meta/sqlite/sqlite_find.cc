// The SQLite backend's searches: node names, and content through the
// text index of either engine (FTS5 here, meta/pg/pg_text.h there).

#include <algorithm>
#include <string>
#include <vector>

#include "meta/pg/pg_text.h"
#include "meta/sqlite/sqlite_media.h"
#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_search.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

Status SqliteTxn::PutText(int64_t node_id, const std::string& text) {
  if (pg()) return pg::PutText(c_, node_id, text);
  return sqlite::PutText(lite(), node_id, text);
}

Result<bool> SqliteTxn::CompactTextIndex(int64_t pages) {
  if (pg()) return false;  // nothing to compact
  return sqlite::CompactTextIndex(lite(), pages);
}

Result<std::vector<NodeRow>> SqliteTxn::SearchNodes(
    int64_t drive_id, const SearchFilter& f,
    const std::optional<std::pair<std::string, int64_t>>& after, size_t limit, int64_t viewer) {
  // Names are case-folded NFC in name_key, so a byte substring test on
  // the folded needle is a Unicode-aware case-insensitive match. Needles
  // of three characters or more are looked up in the trigram index
  // (node_names) instead of scanning the drive.
  static const std::string tail =
      "n.drive_id = ?2 AND n.trash_root IS NULL AND n.parent_id IS NOT NULL "
      "AND (n.sort_key, n.id) > (?3, ?4) AND instr(n.name_key, ?5) > 0 "
      "AND (?6 < 0 OR n.kind = ?6) "
      "AND (?7 = '' OR substr(n.mime, 1, length(CAST(?7 AS TEXT))) = ?7) "
      "AND n.size >= ?8 AND n.size <= ?9 AND n.mtime >= ?10 AND n.mtime <= ?11 "
      "ORDER BY n.sort_key, n.id LIMIT ?12";
  // Planned per call on PostgreSQL: whether to walk the drive in name
  // order or to collect the matches and sort them depends on how many
  // names the needle matches, and a filter that is not set drops out of
  // the plan (hence "?7 = '' OR …": it folds away for no type filter).
  static const std::string scan =
      NUBO_SQL_PLAN_PER_CALL + std::string(kNodeSelect) + "WHERE " + tail;
  static const std::string indexed =
      std::string(kNodeSelect) +
      "WHERE n.id IN (SELECT rowid FROM node_names WHERE node_names MATCH ?13) AND " + tail;
  // PostgreSQL: the same needles through the trigram index on name_key
  // (migrations/pg/0029), which a LIKE pattern reaches; shorter needles
  // have no trigram to look up and scan, as on SQLite.
  static const std::string indexed_pg = NUBO_SQL_PLAN_PER_CALL + std::string(kNodeSelect) +
                                        "WHERE n.name_key LIKE ?13 ESCAPE '\\' AND " + tail;
  // SQLite plans `indexed` as a walk of the drive in name order that tests
  // each row against the matches (no sort): right when they are many, but
  // for a needle that 1,000 of 1,000,000 names hold it walks a large part of
  // the drive (40-170 ms). Up to kFewNameMatches matches, look each one up
  // by id and sort them (CROSS JOIN fixes that order; 4 ms for 1,000).
  static const std::string few = "SELECT " NUBO_NODE_COLS
                                 " FROM node_names CROSS JOIN nodes n ON n.id = node_names.rowid "
                                 "WHERE node_names MATCH ?13 AND " +
                                 tail;
  constexpr int64_t kFewNameMatches = 2000;
  const bool use_index = !f.name_match.empty();
  bool few_matches = false;
  if (use_index && !pg()) {
    NUBO_PREPARE(probe, c_,
                 "SELECT count(*) FROM "
                 "(SELECT 1 FROM node_names WHERE node_names MATCH ?1 LIMIT ?2)");
    probe.Bind(1, f.name_match).Bind(2, kFewNameMatches + 1);
    NUBO_ASSIGN_OR_RETURN(bool row, probe.Step());
    few_matches = row && probe.Int(0) <= kFewNameMatches;
  }
  NUBO_PREPARE(s, c_,
               !use_index    ? scan.c_str()
               : pg()        ? indexed_pg.c_str()
               : few_matches ? few.c_str()
                             : indexed.c_str());
  std::string after_key = after ? after->first : std::string();
  s.Bind(1, viewer)
      .Bind(2, drive_id)
      .BindBlob(3, after_key)
      .Bind(4, after ? after->second : int64_t{-1});
  s.Bind(5, f.needle)
      .Bind(6, f.kind ? static_cast<int64_t>(*f.kind) : int64_t{-1})
      .Bind(7, f.mime_prefix);
  s.Bind(8, static_cast<int64_t>(f.min_size.value_or(0)));
  s.Bind(9, static_cast<int64_t>(std::min<uint64_t>(f.max_size.value_or(INT64_MAX), INT64_MAX)));
  s.Bind(10, f.modified_after_ms.value_or(INT64_MIN))
      .Bind(11, f.modified_before_ms.value_or(INT64_MAX));
  s.Bind(12, static_cast<int64_t>(limit));
  // The needle as a LIKE pattern: its own %, _ and backslash taken
  // literally (bound values are not copied: it lives to the last row).
  std::string pattern;
  if (use_index && pg()) {
    pattern = "%";
    for (char c : f.needle) {
      if (c == '%' || c == '_' || c == '\\') pattern += '\\';
      pattern += c;
    }
    pattern += '%';
    s.Bind(13, pattern);
  } else if (use_index) {
    s.Bind(13, f.name_match);
  }
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<TextHit>> SqliteTxn::SearchText(
    const std::vector<int64_t>& drive_ids, const std::string& match,
    const std::optional<std::pair<double, int64_t>>& after, size_t limit, int64_t viewer) {
  // One ranked walk over every match (sqlite_search.cc); each candidate,
  // best first, is kept when it is a live file of one of the drives.
  static const std::string sql =
      std::string(kNodeSelect) + "WHERE n.id = ?2 AND n.trash_root IS NULL";
  if (pg()) return SearchTextPg(drive_ids, match, after, limit, viewer);
  std::vector<TextHit> out;
  NUBO_RETURN_IF_ERROR(
      RankText(lite(), match, after, limit, [&](int64_t id, double rank) -> Result<bool> {
        NUBO_PREPARE(s, c_, sql.c_str());
        s.Bind(1, viewer).Bind(2, id);
        NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) return false;
        NodeRow n = NodeFrom(s);
        if (std::find(drive_ids.begin(), drive_ids.end(), n.drive_id) == drive_ids.end()) {
          return false;
        }
        out.push_back(TextHit{std::move(n), rank});
        return true;
      }));
  return out;
}

// PostgreSQL: one statement; the rank is ts_rank negated, so that here
// too a smaller number is a better match and pages follow (rank, id).
Result<std::vector<TextHit>> SqliteTxn::SearchTextPg(
    const std::vector<int64_t>& drive_ids, const std::string& match,
    const std::optional<std::pair<double, int64_t>>& after, size_t limit, int64_t viewer) {
  NUBO_ASSIGN_OR_RETURN(pg::TextQuery q, pg::ParseFtsQuery(match));
  const std::string drives = JsonIds(drive_ids);
  // The matches first, through the GIN index (the tsquery as a scalar
  // subquery is a value the index can take; from the CTE's row it is
  // not), then their nodes.
  NUBO_PREPARE(s, c_,
               NUBO_PG_TEXT_QUERY
               ", hits AS MATERIALIZED (SELECT d.id, -ts_rank(d.terms, (SELECT q FROM q)) AS r "
               "FROM doc_text d WHERE d.terms @@ (SELECT q FROM q)) "
               "SELECT " NUBO_NODE_COLS
               ", h.r FROM hits h JOIN nodes n ON n.id = h.id "
               "WHERE n.trash_root IS NULL AND n.drive_id IN (SELECT value FROM json_each(?4)) "
               "AND (?5 = 0 OR h.r > ?6 OR (h.r = ?6 AND n.id > ?7)) "
               "ORDER BY h.r, n.id LIMIT ?8");
  s.Bind(1, viewer).Bind(2, q.phrases_json).Bind(3, q.prefix).Bind(4, drives);
  s.Bind(5, int64_t{after ? 1 : 0}).BindReal(6, after ? after->first : 0.0);
  s.Bind(7, after ? after->second : int64_t{0}).Bind(8, static_cast<int64_t>(limit));
  std::vector<TextHit> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back(TextHit{NodeFrom(s), s.Real(kNodeColCount)});
  }
}

Result<std::vector<std::pair<int64_t, std::string>>> SqliteTxn::TextSnippets(
    const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) {
  if (pg()) return pg::TextSnippets(c_, matches, node_ids);
  return sqlite::TextSnippets(lite(), matches, node_ids);
}

Result<bool> SqliteTxn::HasText(int64_t node_id) {
  if (pg()) return pg::HasText(c_, node_id);
  return sqlite::HasText(lite(), node_id);
}

}  // namespace nubo::meta::sqlite
