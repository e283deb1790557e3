#include "http/range.h"

#include "util/strings.h"

namespace nubo::http {

RangeSpec ParseRange(std::string_view header, uint64_t size, size_t max_ranges) {
  RangeSpec full;
  header = Trim(header);
  size_t eq = header.find('=');
  if (eq == std::string_view::npos || !IEquals(Trim(header.substr(0, eq)), "bytes")) return full;
  auto pieces = Split(header.substr(eq + 1), ',');
  RangeSpec out;
  bool any_syntax = false;
  size_t count = 0;
  for (std::string_view piece : pieces) {
    piece = Trim(piece);
    if (piece.empty()) continue;  // §5.6.1: empty list elements are ignored
    if (++count > max_ranges) return full;
    size_t dash = piece.find('-');
    if (dash == std::string_view::npos) return full;
    std::string_view a = piece.substr(0, dash), b = piece.substr(dash + 1);
    if (a.empty()) {
      // suffix-range "-N": the last N bytes.
      auto n = ParseUint64(b);
      if (!n) return full;
      any_syntax = true;
      if (*n == 0 || size == 0) continue;
      uint64_t len = *n > size ? size : *n;
      out.ranges.push_back({size - len, size - 1});
      continue;
    }
    auto first = ParseUint64(a);
    if (!first) return full;
    uint64_t last = size == 0 ? 0 : size - 1;
    if (!b.empty()) {
      auto l = ParseUint64(b);
      if (!l || *l < *first) return full;
      if (*l < last) last = *l;
    }
    any_syntax = true;
    if (*first >= size) continue;  // unsatisfiable piece
    out.ranges.push_back({*first, last});
  }
  if (!any_syntax) return full;
  out.kind = out.ranges.empty() ? RangeSpec::Kind::kUnsatisfiable : RangeSpec::Kind::kPartial;
  return out;
}

}  // namespace nubo::http
