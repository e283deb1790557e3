// Conditional requests (RFC 9110 §13): entity-tag comparison and the
// precondition evaluation order of §13.2.2. Thread-safe (pure).
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <string_view>

#include "http/headers.h"

namespace nubo::http {

// What the server knows about the selected representation.
struct Validators {
  bool exists = true;
  std::optional<std::string> etag;  // full entity-tag as sent, e.g. "\"abc\"" or "W/\"abc\""
  std::optional<std::time_t> last_modified;
};

enum class Precondition {
  kProceed,      // perform the method
  kNotModified,  // 304 (GET/HEAD only)
  kFailed,       // 412
};

// §8.8.3.2: strong comparison needs both tags strong and equal opaque-tags;
// weak comparison ignores the W/ prefix.
bool ETagStrongMatch(std::string_view a, std::string_view b);
bool ETagWeakMatch(std::string_view a, std::string_view b);

// True when the If-Match / If-None-Match style list `header` ("*" or a
// comma-separated list of entity-tags) matches `v`. A malformed list
// matches nothing.
bool ETagListMatches(std::string_view header, const Validators& v, bool weak);

// §13.2.2 in order: If-Match, If-Unmodified-Since, If-None-Match,
// If-Modified-Since (the last only for GET/HEAD).
Precondition EvaluatePreconditions(std::string_view method, const Headers& headers,
                                   const Validators& v);

// §13.1.5: true when a Range should be honoured (no If-Range, or it matches
// by strong ETag or exact Last-Modified date).
bool IfRangeMatches(const Headers& headers, const Validators& v);

}  // namespace nubo::http
