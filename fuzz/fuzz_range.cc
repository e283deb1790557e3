// Fuzzes Range header evaluation (RFC 9110 §14.2).
#include <cstdint>
#include <cstring>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "http/range.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // First byte picks the representation size, the rest is the header.
  uint64_t sizes[] = {0, 1, 10, 1000, 1ull << 32, UINT64_MAX};
  uint64_t rep = size ? sizes[data[0] % 6] : 0;
  std::string_view header(reinterpret_cast<const char*>(data) + (size ? 1 : 0), size ? size - 1 : 0);
  auto spec = nubo::http::ParseRange(header, rep);
  if (spec.kind == nubo::http::RangeSpec::Kind::kPartial) {
    FUZZ_CHECK(!spec.ranges.empty());
    FUZZ_CHECK(spec.ranges.size() <= 16);
    for (const auto& r : spec.ranges) {
      FUZZ_CHECK(r.first <= r.last);
      FUZZ_CHECK(r.last < rep);
      FUZZ_CHECK(r.length() >= 1);
    }
  } else {
    FUZZ_CHECK(spec.ranges.empty());
  }
  return 0;
}
