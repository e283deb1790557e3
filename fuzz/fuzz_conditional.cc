// Fuzzes entity-tag lists and precondition evaluation (RFC 9110 §13).
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "http/conditional.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  // Lines: If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, If-Range.
  static const char* kNames[] = {"If-Match", "If-None-Match", "If-Modified-Since",
                                 "If-Unmodified-Since", "If-Range"};
  nubo::http::Headers h;
  size_t i = 0;
  while (!in.empty() && i < 5) {
    size_t nl = in.find('\n');
    std::string_view line = in.substr(0, nl);
    if (!line.empty()) h.Add(kNames[i], std::string(line));
    in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
    ++i;
  }
  nubo::http::Validators v;
  v.etag = "\"abc\"";
  v.last_modified = 784111777;
  for (const char* m : {"GET", "PUT"}) {
    auto p = nubo::http::EvaluatePreconditions(m, h, v);
    // 304 only ever answers GET/HEAD.
    FUZZ_CHECK(!(std::string_view(m) == "PUT" && p == nubo::http::Precondition::kNotModified));
  }
  (void)nubo::http::IfRangeMatches(h, v);
  if (auto im = h.Get("If-Match")) {
    // A strong match implies a weak one.
    if (nubo::http::ETagListMatches(*im, v, false)) FUZZ_CHECK(nubo::http::ETagListMatches(*im, v, true));
  }
  return 0;
}
