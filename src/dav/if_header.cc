// RFC 4918 §10.4 If header.
#include "dav/if_header.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "util/strings.h"

namespace nubo::dav {

namespace {

bool IsLws(char c) { return c == ' ' || c == '\t'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Characters a URI reference may contain once we know it is delimited by
// "<" ">" (RFC 3986 §2): visible ASCII minus the delimiters we rely on.
// Raw spaces, controls and non-ASCII bytes are not URI characters.
bool IsUriChar(char c) {
  auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7f && c != '<' && c != '>' && c != '"';
}

// RFC 3986 §4.3 absolute-URI: scheme ":" hier-part [ "?" query ].
bool IsAbsoluteUri(std::string_view s) {
  if (s.empty() || !IsAlpha(s[0])) return false;
  size_t i = 1;
  while (i < s.size() &&
         (IsAlpha(s[i]) || IsDigit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')) {
    ++i;
  }
  if (i >= s.size() || s[i] != ':') return false;
  return std::all_of(s.begin(), s.end(), IsUriChar);
}

// §10.4.2 Simple-ref = absolute-URI | ( path-absolute [ "?" query ] ).
bool IsSimpleRef(std::string_view s) {
  if (!s.empty() && s[0] == '/') return std::all_of(s.begin(), s.end(), IsUriChar);
  return IsAbsoluteUri(s);
}

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE,
// etagc = %x21 / %x23-7E / obs-text.
bool IsEntityTag(std::string_view t) {
  if (t.size() >= 2 && t[0] == 'W' && t[1] == '/') t.remove_prefix(2);
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') return false;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    auto c = static_cast<unsigned char>(t[i]);
    if (c < 0x21 || c == '"' || c == 0x7f) return false;
  }
  return true;
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<IfHeader> Parse() {
    IfHeader h;
    SkipLws();
    if (AtEnd()) return Status::InvalidArgument("If header is empty");
    h.tagged = Peek() == '<';
    if (!h.tagged) h.groups.emplace_back();
    while (true) {
      SkipLws();
      if (AtEnd()) break;
      if (Peek() == '<') {
        if (!h.tagged) {
          return Status::InvalidArgument("If header mixes tagged and untagged lists");
        }
        NUBO_ASSIGN_OR_RETURN(std::string tag, Delimited('<', '>'));
        if (!IsSimpleRef(tag)) {
          return Status::InvalidArgument("If header resource tag is not an absolute URI or path");
        }
        IfTagged& g = h.groups.emplace_back();
        g.resource = std::move(tag);
        SkipLws();
        if (AtEnd() || Peek() != '(') {
          return Status::InvalidArgument("If header resource tag is not followed by a list");
        }
        continue;
      }
      if (Peek() != '(') return Status::InvalidArgument("If header expects '(' or '<'");
      NUBO_ASSIGN_OR_RETURN(IfList list, List());
      h.groups.back().lists.push_back(std::move(list));
    }
    return h;
  }

 private:
  bool AtEnd() const { return i_ >= s_.size(); }
  char Peek() const { return s_[i_]; }
  void SkipLws() {
    while (!AtEnd() && IsLws(Peek())) ++i_;
  }

  // The text between `open` (at the cursor) and the next `close`.
  Result<std::string> Delimited(char open, char close) {
    ++i_;  // open
    size_t end = s_.find(close, i_);
    if (end == std::string_view::npos) {
      return Status::InvalidArgument(std::string("If header is missing '") + close + "'");
    }
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }

  // List = "(" 1*Condition ")"
  Result<IfList> List() {
    ++i_;  // '('
    IfList list;
    while (true) {
      SkipLws();
      if (AtEnd()) return Status::InvalidArgument("If header list is missing ')'");
      if (Peek() == ')') {
        ++i_;
        break;
      }
      NUBO_ASSIGN_OR_RETURN(IfCondition c, Condition());
      list.conditions.push_back(std::move(c));
    }
    if (list.conditions.empty()) return Status::InvalidArgument("If header has an empty list");
    return list;
  }

  // Condition = ["Not"] (State-token | "[" entity-tag "]")
  Result<IfCondition> Condition() {
    IfCondition c;
    if (s_.size() - i_ >= 3 && IEquals(s_.substr(i_, 3), "not")) {
      c.negated = true;
      i_ += 3;
      SkipLws();
      if (AtEnd()) return Status::InvalidArgument("If header has 'Not' without a condition");
    }
    if (Peek() == '<') {
      NUBO_ASSIGN_OR_RETURN(c.value, Delimited('<', '>'));
      if (!IsAbsoluteUri(c.value)) {
        return Status::InvalidArgument("If header state token is not an absolute URI");
      }
      return c;
    }
    if (Peek() == '[') {
      // Search for "]" after the closing quote: an opaque-tag may contain "]".
      ++i_;
      size_t q1 = i_;
      if (s_.compare(q1, 2, "W/") == 0) q1 += 2;
      size_t q2 = q1 < s_.size() && s_[q1] == '"' ? s_.find('"', q1 + 1) : std::string_view::npos;
      if (q2 == std::string_view::npos || q2 + 1 >= s_.size() || s_[q2 + 1] != ']') {
        return Status::InvalidArgument("If header has a malformed entity-tag");
      }
      c.is_etag = true;
      c.value = std::string(s_.substr(i_, q2 + 1 - i_));
      i_ = q2 + 2;
      if (!IsEntityTag(c.value)) {
        return Status::InvalidArgument("If header has a malformed entity-tag");
      }
      return c;
    }
    return Status::InvalidArgument("If header expects a state token or entity-tag");
  }

  std::string_view s_;
  size_t i_ = 0;
};

// RFC 9110 §8.8.3.2 strong comparison: both strong, same opaque-tag.
bool StrongMatch(std::string_view a, std::string_view b) {
  return !a.empty() && a[0] == '"' && a == b;
}

bool ConditionHolds(const IfCondition& c, const IfResourceState& st) {
  bool match = false;
  if (st.exists) {
    if (c.is_etag) {
      match = StrongMatch(c.value, st.etag);
    } else if (c.value != kNoLockToken) {
      match =
          std::find(st.lock_tokens.begin(), st.lock_tokens.end(), c.value) != st.lock_tokens.end();
    }
  }
  return match != c.negated;  // §10.4.3: "Not" reverses the result
}

}  // namespace

Result<IfHeader> ParseIfHeader(std::string_view value) { return Parser(value).Parse(); }

bool EvaluateIf(const IfHeader& h, std::string_view request_path,
                const std::function<IfResourceState(std::string_view)>& resolve) {
  // Resolving may cost a metadata lookup; a header may name a resource many
  // times. A deque keeps returned references valid as it grows.
  std::deque<std::pair<std::string, IfResourceState>> cache;
  auto state_of = [&](std::string_view key) -> const IfResourceState& {
    for (const auto& [k, st] : cache) {
      if (k == key) return st;
    }
    IfResourceState st = resolve(key);
    return cache.emplace_back(std::string(key), std::move(st)).second;
  };
  // §10.4.3: the header is true iff some production is true; a production
  // is true iff one of its lists is; a list iff all its conditions are.
  for (const auto& g : h.groups) {
    const IfResourceState* st = nullptr;
    for (const auto& list : g.lists) {
      if (st == nullptr) st = &state_of(g.resource ? std::string_view(*g.resource) : request_path);
      bool all = std::all_of(list.conditions.begin(), list.conditions.end(),
                             [&](const IfCondition& c) { return ConditionHolds(c, *st); });
      if (all) return true;
    }
  }
  return false;
}

std::vector<std::string> SubmittedLockTokens(const IfHeader& h) {
  std::vector<std::string> out;
  for (const auto& g : h.groups) {
    for (const auto& list : g.lists) {
      for (const auto& c : list.conditions) {
        if (c.is_etag || c.negated || c.value == kNoLockToken) continue;
        if (std::find(out.begin(), out.end(), c.value) == out.end()) out.push_back(c.value);
      }
    }
  }
  return out;
}

}  // namespace nubo::dav
