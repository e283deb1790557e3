#include "http/conditional.h"

#include <vector>

#include "util/strings.h"
#include "util/time.h"

namespace nubo::http {

namespace {

struct ParsedTag {
  bool weak = false;
  std::string_view opaque;  // including the quotes
};

std::optional<ParsedTag> ParseTag(std::string_view t) {
  ParsedTag p;
  if (t.size() >= 2 && t[0] == 'W' && t[1] == '/') {
    p.weak = true;
    t.remove_prefix(2);
  }
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') return std::nullopt;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(t[i]);
    // etagc = %x21 / %x23-7E / obs-text
    if (c == '"' || c < 0x21 || c == 0x7f) return std::nullopt;
  }
  p.opaque = t;
  return p;
}

// Splits an entity-tag list on commas outside quoted strings (commas are
// legal inside an opaque-tag). nullopt when malformed.
std::optional<std::vector<std::string_view>> SplitTags(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    if (i >= s.size()) break;
    size_t start = i;
    if (s.compare(i, 2, "W/") == 0) i += 2;
    if (i >= s.size() || s[i] != '"') return std::nullopt;
    size_t close = s.find('"', i + 1);
    if (close == std::string_view::npos) return std::nullopt;
    i = close + 1;
    out.push_back(s.substr(start, i - start));
  }
  return out;
}

}  // namespace

bool ETagStrongMatch(std::string_view a, std::string_view b) {
  auto pa = ParseTag(a), pb = ParseTag(b);
  return pa && pb && !pa->weak && !pb->weak && pa->opaque == pb->opaque;
}

bool ETagWeakMatch(std::string_view a, std::string_view b) {
  auto pa = ParseTag(a), pb = ParseTag(b);
  return pa && pb && pa->opaque == pb->opaque;
}

bool ETagListMatches(std::string_view header, const Validators& v, bool weak) {
  header = Trim(header);
  if (header == "*") return v.exists;
  if (!v.exists || !v.etag) return false;
  auto tags = SplitTags(header);
  if (!tags) return false;
  for (auto t : *tags) {
    if (weak ? ETagWeakMatch(t, *v.etag) : ETagStrongMatch(t, *v.etag)) return true;
  }
  return false;
}

Precondition EvaluatePreconditions(std::string_view method, const Headers& headers,
                                   const Validators& v) {
  const bool get_or_head = method == "GET" || method == "HEAD";
  // Step 1-2.
  if (auto im = headers.GetCombined("If-Match")) {
    if (!ETagListMatches(*im, v, /*weak=*/false)) return Precondition::kFailed;
  } else if (auto ius = headers.Get("If-Unmodified-Since")) {
    auto date = ParseHttpDate(Trim(*ius));
    if (date && v.exists && v.last_modified && *v.last_modified > *date) {
      return Precondition::kFailed;
    }
  }
  // Step 3-4.
  if (auto inm = headers.GetCombined("If-None-Match")) {
    if (ETagListMatches(*inm, v, /*weak=*/true)) {
      return get_or_head ? Precondition::kNotModified : Precondition::kFailed;
    }
  } else if (get_or_head) {
    if (auto ims = headers.Get("If-Modified-Since")) {
      auto date = ParseHttpDate(Trim(*ims));
      if (date && v.exists && v.last_modified && *v.last_modified <= *date) {
        return Precondition::kNotModified;
      }
    }
  }
  return Precondition::kProceed;
}

bool IfRangeMatches(const Headers& headers, const Validators& v) {
  auto ir = headers.Get("If-Range");
  if (!ir) return true;
  std::string_view val = Trim(*ir);
  if (!val.empty() && (val.front() == '"' || val.starts_with("W/"))) {
    return v.etag && ETagStrongMatch(val, *v.etag);
  }
  auto date = ParseHttpDate(val);
  return date && v.last_modified && *date == *v.last_modified;
}

}  // namespace nubo::http
