// Fuzzes request-target parsing: the one place paths are sanitized.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "http/target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto t = nubo::http::ParseTarget(in);
  if (t.ok()) {
    for (const auto& seg : t->segments) {
      // No decoded segment may alias another path.
      FUZZ_CHECK(!seg.empty());
      FUZZ_CHECK(seg != "." && seg != "..");
      FUZZ_CHECK(seg.find('/') == std::string::npos);
      FUZZ_CHECK(seg.find('\0') == std::string::npos);
    }
    std::string path = nubo::http::JoinPath(t->segments);
    FUZZ_CHECK(!path.empty() && path[0] == '/');
    (void)nubo::http::QueryParam(t->query, "a");
  }
  (void)nubo::http::QueryParam(in, "x");
  return 0;
}
