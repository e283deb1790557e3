// Fuzzes FastCDC (ARCHITECTURE.md §4.2) against a reference: streaming the
// input in fuzzer-chosen pieces must give exactly the chunks that repeated
// Cut() calls give on the whole input; chunks concatenate back to the
// input; every chunk but the last is within [min, max]. Small parameters
// so short inputs still hold many chunks.
#include <cstdint>
#include <string>
#include <vector>

#include "content/fastcdc.h"
#include "fuzz/fuzz_check.h"

using nubo::content::ChunkerParams;
using nubo::content::FastCdc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  ChunkerParams p;
  p.min_size = 64;
  p.avg_size = 256;
  p.max_size = 1024;
  const size_t piece = 1 + data[0] % 97;  // split pattern of the stream
  const uint8_t* in = data + 1;
  const size_t n = size - 1;

  std::vector<std::string> streamed;
  FastCdc cdc(p);
  auto emit = [&](std::string_view c) {
    streamed.emplace_back(c);
    return nubo::Status::Ok();
  };
  for (size_t off = 0; off < n; off += piece) {
    size_t len = std::min(piece, n - off);
    FUZZ_CHECK(cdc.Update(reinterpret_cast<const char*>(in) + off, len, emit).ok());
  }
  FUZZ_CHECK(cdc.Finish(emit).ok());

  std::vector<std::string> reference;
  for (size_t off = 0; off < n;) {
    size_t len = cdc.Cut(in + off, std::min(p.max_size, n - off));
    FUZZ_CHECK(len > 0);
    reference.emplace_back(reinterpret_cast<const char*>(in) + off, len);
    off += len;
  }
  FUZZ_CHECK(streamed == reference);
  std::string joined;
  for (size_t i = 0; i < streamed.size(); ++i) {
    FUZZ_CHECK(streamed[i].size() <= p.max_size);
    if (i + 1 < streamed.size()) FUZZ_CHECK(streamed[i].size() >= p.min_size);
    joined += streamed[i];
  }
  FUZZ_CHECK(joined == std::string(reinterpret_cast<const char*>(in), n));
  return 0;
}
