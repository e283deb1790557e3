// The content index on PostgreSQL (SQLite's is FTS5: meta/sqlite/
// sqlite_search.h): doc_text keeps each document's text and, generated
// from it, a tsvector under a GIN index (migrations/pg/0028). The store's
// callers hand over FTS5 queries as search::FtsQuery writes them; this file
// reads them back into phrases PostgreSQL turns into a tsquery itself
// (phraseto_tsquery), so no user text is ever parsed as query syntax.
// Internal to meta.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "meta/sql/sql.h"
#include "util/status.h"

namespace nubo::meta::pg {

// An FTS5 query of quoted phrases ("a" "b c"*) as a JSON array of the
// phrases' text and the 1-based position of the one that matches as a
// prefix (0: none). InvalidArgument for anything else.
struct TextQuery {
  std::string phrases_json;
  int64_t prefix = 0;
};
Result<TextQuery> ParseFtsQuery(std::string_view match);

// A WITH clause that defines q(q), the tsquery of the phrases bound at
// ?2 (TextQuery::phrases_json) and ?3 (TextQuery::prefix): every phrase
// required, the prefix one's last word as a prefix. q is NULL (matching
// nothing) when no phrase has a word.
#define NUBO_PG_TEXT_QUERY                                                               \
  "WITH p AS (SELECT phraseto_tsquery('simple', e.value)::text AS t, e.ordinality AS k " \
  "FROM json_array_elements_text(?2::json) WITH ORDINALITY AS e), "                      \
  "q AS (SELECT string_agg('(' || CASE WHEN p.k = ?3 THEN regexp_replace(p.t, '''$', "   \
  "''':*') ELSE p.t END || ')', ' & ')::tsquery AS q FROM p WHERE p.t <> '') "

// The document of `node_id` is `text` (none when empty).
Status PutText(sql::Conn& c, int64_t node_id, const std::string& text);
Result<bool> HasText(sql::Conn& c, int64_t node_id);
// As MetaStore's TextSnippets.
Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
    sql::Conn& c, const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids);

}  // namespace nubo::meta::pg
