// Search text as typed by a person → the SQLite FTS5 query language, and
// back from FTS5's highlighted snippets to plain segments. Pure functions,
// no SQLite: the same rules serve every backend's index.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nubo::search {

// Every whitespace-separated word of `text` becomes a quoted phrase (so no
// FTS5 operator or column filter can be smuggled in), all of them required;
// the last one also matches as a prefix (results while typing) unless
// `prefix` is false. At most kMaxTerms words count. Empty when `text` has
// no word.
inline constexpr size_t kMaxTerms = 16;
std::string FtsQuery(std::string_view text, bool prefix = true);

// `folded` (a case-folded name needle) as one trigram phrase, or "" when
// it has fewer than three characters (a trigram index cannot answer it).
std::string TrigramPhrase(std::string_view folded);

// A snippet as produced with \x02 before and \x03 after each matched run.
struct Segment {
  std::string text;
  bool match = false;
};
std::vector<Segment> SplitSnippet(std::string_view snippet);

}  // namespace nubo::search
