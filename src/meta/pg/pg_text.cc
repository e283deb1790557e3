#include "meta/pg/pg_text.h"

#include <algorithm>

#include "util/strings.h"

namespace nubo::meta::pg {

using sql::Stmt;

Result<TextQuery> ParseFtsQuery(std::string_view match) {
  TextQuery q;
  q.phrases_json = "[";
  int64_t count = 0;
  size_t i = 0;
  while (i < match.size()) {
    if (match[i] == ' ') {
      ++i;
      continue;
    }
    if (match[i] != '"') return Status::InvalidArgument("not a query of quoted phrases");
    std::string phrase;
    for (++i;; ++i) {
      if (i >= match.size()) return Status::InvalidArgument("unterminated phrase");
      if (match[i] == '"') {
        // FTS5 doubles a quote inside a phrase.
        if (i + 1 < match.size() && match[i + 1] == '"') {
          phrase += '"';
          ++i;
          continue;
        }
        ++i;
        break;
      }
      phrase += match[i];
    }
    if (count++) q.phrases_json += ',';
    q.phrases_json += JsonQuote(phrase);
    if (i < match.size() && match[i] == '*') {
      q.prefix = count;
      ++i;
    }
  }
  q.phrases_json += ']';
  return q;
}

Status PutText(sql::Conn& c, int64_t node_id, const std::string& text) {
  if (text.empty()) {
    NUBO_PREPARE(d, c, "DELETE FROM doc_text WHERE id = ?");
    d.Bind(1, node_id);
    return d.Exec();
  }
  // PostgreSQL's text has no NUL (extraction leaves none; never fail a job
  // over one).
  std::string body = text;
  std::replace(body.begin(), body.end(), '\0', ' ');
  NUBO_PREPARE(s, c,
               "INSERT INTO doc_text (id, body) VALUES (?, ?) "
               "ON CONFLICT (id) DO UPDATE SET body = excluded.body");
  s.Bind(1, node_id).Bind(2, body);
  return s.Exec();
}

Result<bool> HasText(sql::Conn& c, int64_t node_id) {
  NUBO_PREPARE(s, c, "SELECT 1 FROM doc_text WHERE id = ?");
  s.Bind(1, node_id);
  return s.Step();
}

Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
    sql::Conn& c, const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) {
  std::vector<std::pair<int64_t, std::string>> out;
  std::vector<TextQuery> queries;
  for (const std::string& m : matches) {
    NUBO_ASSIGN_OR_RETURN(TextQuery q, ParseFtsQuery(m));
    queries.push_back(std::move(q));
  }
  // One statement per query over the page's rows that no earlier query
  // matched (the headline is worked out for the page's rows only): about
  // 16 words around the first match, the matched words between \x02 and
  // \x03.
  NUBO_PREPARE(s, c,
               NUBO_PG_TEXT_QUERY
               "SELECT d.id, ts_headline('simple', d.body, q.q, 'StartSel=\"' || chr(2) || "
               "'\", StopSel=\"' || chr(3) || '\", MaxWords=16, MinWords=8, ShortWord=0') "
               "FROM q CROSS JOIN doc_text d "
               "WHERE d.id IN (SELECT value FROM json_each(?1)) AND d.terms @@ q.q");
  std::vector<int64_t> left = node_ids;
  for (const TextQuery& q : queries) {
    if (left.empty()) break;
    const std::string ids = sql::JsonIds(left);
    s.Bind(1, ids).Bind(2, q.phrases_json).Bind(3, q.prefix);
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      const int64_t id = s.Int(0);
      out.emplace_back(id, s.Text(1));
      left.erase(std::remove(left.begin(), left.end(), id), left.end());
    }
    s.Reset();
  }
  return out;
}

}  // namespace nubo::meta::pg
