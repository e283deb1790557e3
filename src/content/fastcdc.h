// FastCDC content-defined chunking (Xia et al., USENIX ATC 2016) with
// normalized chunking: a gear rolling hash cuts where its masked bits are
// zero, using a stricter mask before the average size and a looser one
// after, so chunk sizes cluster around the average. Boundaries depend only
// on nearby content, so an insertion shifts at most the chunks around it.
//
// Streaming: feed any split of the input; the chunks are identical. Holds
// at most one maximum-size chunk. Not thread-safe; one per stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo::content {

struct ChunkerParams {
  // PERSISTED: changing these changes every chunk boundary (dedup across
  // versions breaks, nothing else). ARCHITECTURE.md §4.2.
  size_t min_size = 64 << 10;
  size_t avg_size = 256 << 10;
  size_t max_size = 1 << 20;
};

class FastCdc {
 public:
  // Receives each complete chunk in order; a non-OK status stops chunking.
  using Emit = std::function<Status(std::string_view chunk)>;

  explicit FastCdc(ChunkerParams params = {});

  // Consumes `len` bytes, emitting every chunk completed by them.
  Status Update(const char* data, size_t len, const Emit& emit);
  // Emits the final (possibly short) chunk. An empty input emits nothing.
  Status Finish(const Emit& emit);

  // Length of the first chunk of `data`: the first boundary, or `len` /
  // max_size when there is none. Callers pass max_size bytes unless the
  // input ends sooner.
  size_t Cut(const uint8_t* data, size_t len) const;

  // The bytes after the last emitted boundary (fewer than max_size). A new
  // FastCdc fed these first cuts the rest of the stream exactly as this one
  // would: boundaries depend only on bytes since the previous boundary.
  std::string_view Pending() const { return buf_; }

 private:
  // Rolls the gear hash over `data` from the current chunk's position on:
  // the bytes up to and including the next boundary (`*cut` set), or all
  // of them. Exactly Cut's rule, applied incrementally.
  size_t Scan(const uint8_t* data, size_t len, bool* cut);

  ChunkerParams p_;
  uint64_t mask_s_, mask_l_;
  std::string buf_;  // the current chunk's bytes from earlier Update calls
  size_t pos_ = 0;   // bytes in the current chunk so far
  uint64_t fp_ = 0;  // gear hash over them (from min_size on)
};

}  // namespace nubo::content
