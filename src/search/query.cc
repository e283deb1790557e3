#include "search/query.h"

namespace nubo::search {

namespace {

bool Space(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void AppendPhrase(std::string& out, std::string_view word) {
  out += '"';
  for (char c : word) {
    if (c == '"') out += '"';  // FTS5 doubles a quote inside a string
    out += c;
  }
  out += '"';
}

}  // namespace

std::string FtsQuery(std::string_view text, bool prefix) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size() && words.size() < kMaxTerms) {
    while (i < text.size() && Space(static_cast<unsigned char>(text[i]))) ++i;
    size_t start = i;
    while (i < text.size() && !Space(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  std::string out;
  for (size_t w = 0; w < words.size(); ++w) {
    if (w) out += ' ';
    AppendPhrase(out, words[w]);
    if (prefix && w + 1 == words.size()) out += '*';
  }
  return out;
}

std::string TrigramPhrase(std::string_view folded) {
  size_t chars = 0;
  for (unsigned char c : folded) chars += (c & 0xC0) != 0x80;  // count UTF-8 lead bytes
  if (chars < 3) return {};
  std::string out;
  AppendPhrase(out, folded);
  return out;
}

std::vector<Segment> SplitSnippet(std::string_view snippet) {
  std::vector<Segment> out;
  bool in_match = false;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back({std::move(cur), in_match});
    cur.clear();
  };
  for (char c : snippet) {
    if (c == '\x02') {
      flush();
      in_match = true;
    } else if (c == '\x03') {
      flush();
      in_match = false;
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

}  // namespace nubo::search
