// Reads a byte range of a manifest's content as a stream, chunk by chunk,
// straight into the caller's buffer (no intermediate copy, no whole-file
// buffering). Range reads find their first chunk by binary search on the
// manifest's offsets. Not thread-safe; one reader per stream.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "blob/chunk_store.h"
#include "meta/meta_store.h"

namespace nubo::content {

// Copies bytes [offset, offset + len) of chunk `c` into `out`, from its
// inline bytes (ManifestChunk::data) or else from `store`. Corruption when
// the inline bytes are shorter than asked.
Status ReadChunk(blob::ChunkStore& store, const meta::ManifestChunk& c, uint64_t offset, size_t len,
                 char* out);

class ManifestReader {
 public:
  // Reads [first, first + length) of content described by `chunks` (in
  // order, contiguous). InvalidArgument if the range is outside `size`.
  static Result<ManifestReader> Open(blob::ChunkStore& store,
                                     std::vector<meta::ManifestChunk> chunks, uint64_t size,
                                     uint64_t first, uint64_t length);
  // Loads the chunk list of manifest `hash` from `meta`. NotFound if unknown.
  static Result<ManifestReader> OpenByHash(meta::MetaStore& meta, blob::ChunkStore& store,
                                           const meta::Digest& hash);

  uint64_t remaining() const { return end_ - pos_; }
  // Copies up to `cap` bytes into `buf`; 0 at the end of the range.
  Result<size_t> Read(char* buf, size_t cap);

  // Where the next bytes lie on disk, for sending them without a copy.
  struct Extent {
    int fd = -1;  // an open chunk file; valid until the next call
    uint64_t offset = 0;
    size_t length = 0;
  };
  // Appends the next bytes (together at most `cap`, in at most `max`
  // extents, one per chunk) to `out` as extents of chunk files, advancing
  // past them; stops before a chunk the store keeps in no file (Read it).
  // Appends nothing at the end of the range. Asks the kernel to read the
  // extents ahead, so a sendfile of them seldom waits for the disk.
  Status NextExtents(size_t cap, size_t max, std::vector<Extent>& out);

 private:
  // Opens chunks_[index_] unless it is open; checks its size. The chunk
  // open before goes to held_ when `hold`, else it is closed.
  Status OpenCurrent(bool hold = false);

  ManifestReader(blob::ChunkStore& store, std::vector<meta::ManifestChunk> chunks, uint64_t pos,
                 uint64_t end);

  blob::ChunkStore* store_;
  std::vector<meta::ManifestChunk> chunks_;
  std::unique_ptr<blob::ChunkReader> open_;  // chunks_[open_index_], if any
  // Chunks passed over in the last NextExtents: their descriptors are in
  // the caller's hands until the next call.
  std::vector<std::unique_ptr<blob::ChunkReader>> held_;
  size_t open_index_ = SIZE_MAX;
  size_t index_ = 0;  // chunk holding pos_
  uint64_t pos_;
  uint64_t end_;
};

}  // namespace nubo::content
