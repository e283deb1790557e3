// Fuzzes the RFC 4918 §10.3 Destination header: an accepted destination
// never aliases another path (no empty, ".", ".." or "/"-containing
// segment, no NUL), and re-encoding it as an href parses back to the same
// segments. Input: "host\nvalue", or just the value (host example.com).
#include <cstdint>
#include <string>
#include <string_view>

#include "dav/request_headers.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo::dav;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view host = "example.com";
  if (size_t nl = in.find('\n'); nl != std::string_view::npos) {
    host = in.substr(0, nl);
    in.remove_prefix(nl + 1);
  }
  auto d = ParseDestination(in, host);
  if (d.ok()) {
    std::string joined = "/";
    for (size_t i = 0; i < d->segments.size(); ++i) {
      const std::string& seg = d->segments[i];
      FUZZ_CHECK(!seg.empty());
      FUZZ_CHECK(seg != "." && seg != "..");
      FUZZ_CHECK(seg.find('/') == std::string::npos);
      FUZZ_CHECK(seg.find('\0') == std::string::npos);
      if (i > 0) joined += '/';
      joined += seg;
    }
    FUZZ_CHECK(d->path == joined);
    FUZZ_CHECK(!d->trailing_slash || !d->segments.empty());
    auto again = ParseDestination(EncodeHref(d->segments, d->trailing_slash), "h");
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->segments == d->segments);
    FUZZ_CHECK(again->trailing_slash == d->trailing_slash);
  }
  // The other header parsers share the input; they must never crash.
  (void)ParseDepth(in, Depth::kInfinity);
  (void)ParseOverwrite(in);
  uint64_t t = ParseTimeout(in, 600, 86400);
  FUZZ_CHECK(t >= 1 && t <= 86400);
  return 0;
}
