// Range requests (RFC 9110 §14). Thread-safe (pure).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace nubo::http {

struct ByteRange {
  uint64_t first;  // inclusive
  uint64_t last;   // inclusive
  uint64_t length() const { return last - first + 1; }
};

struct RangeSpec {
  enum class Kind {
    kFull,           // no usable Range: serve 200 with the whole body
    kPartial,        // serve 206 with `ranges` (sorted as given, clamped)
    kUnsatisfiable,  // serve 416 with Content-Range: bytes */size
  };
  Kind kind = Kind::kFull;
  std::vector<ByteRange> ranges;
};

// Evaluates a Range header value against a representation of `size` bytes.
// A syntactically invalid header or a unit other than "bytes" is ignored
// (kFull), as §14.2 allows; so is a request for more than `max_ranges`
// ranges, which protects against range amplification.
RangeSpec ParseRange(std::string_view header, uint64_t size, size_t max_ranges = 16);

}  // namespace nubo::http
