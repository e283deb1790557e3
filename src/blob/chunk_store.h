// ChunkStore: immutable, content-addressed chunk bytes (ARCHITECTURE.md §4.2).
//
// A chunk's address is the BLAKE3 of its bytes, computed by the caller
// (content/ingest.cc). Stores are thread-safe: concurrent Puts of the same
// chunk are safe and idempotent. Reference counting is not the store's
// business: the metadata store owns counts, and GC decides deletions.
// Backends: blob/disk (local files), blob/mem (tests); S3 later. An
// encryption-at-rest layer would wrap a ChunkStore without changing callers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "util/blake3_hash.h"
#include "util/status.h"

namespace nubo::blob {

using Digest = Blake3Digest;

struct ChunkInfo {
  uint64_t size = 0;
  int64_t mtime_ms = 0;  // last Put (an existing chunk's Put refreshes it: GC grace)
};

// Chunks staged for one durable step. Durability dominates the cost of a
// small write (an fsync of the file and of its directory); a batch writes
// its chunks without syncing or exposing them, then Commit makes every one
// durable and visible at once. Memory stays flat: staged bytes live in
// temp files, not here. Destroying an uncommitted batch discards it.
// Not thread-safe; one per ingest.
class ChunkBatch {
 public:
  virtual ~ChunkBatch() = default;
  // Stages `data` as chunk `hash` (a chunk already stored or staged is
  // only refreshed). Not visible to Read/Stat until Commit.
  virtual Status Add(const Digest& hash, std::string_view data) = 0;
  // Makes every staged chunk durable and visible. On error, none of the
  // staged chunks that were not already present is guaranteed visible.
  virtual Status Commit() = 0;
  // The chunks this batch itself made visible so far (absent before; not
  // those it found present). An upload refused after some commits deletes
  // these at once if nothing references them (content/ingest.h).
  virtual std::vector<Digest> Published() const = 0;
};

// An open chunk, for reading several ranges without re-opening it.
// Not thread-safe.
class ChunkReader {
 public:
  virtual ~ChunkReader() = default;
  virtual uint64_t size() const = 0;
  // Copies [offset, offset + len) into `out`; Corruption past the end.
  virtual Status ReadAt(uint64_t offset, size_t len, char* out) = 0;
  // The open file holding the chunk's bytes at offset 0, when the store
  // keeps chunks as plain files (so a response can sendfile them); -1
  // otherwise. Owned by the reader.
  virtual int fd() const { return -1; }
};

class ChunkStore {
 public:
  virtual ~ChunkStore() = default;

  // Opens chunk `hash` for reading. NotFound if absent. The default reads
  // through Read() on every call.
  virtual Result<std::unique_ptr<ChunkReader>> Open(const Digest& hash);

  // A new batch. The default stores each chunk with Put as it is added.
  virtual std::unique_ptr<ChunkBatch> NewBatch();

  // Stores `data` as chunk `hash`. On OK the chunk is durable (its bytes and
  // its directory entry are fsync'd) and fully visible; on error no partial
  // chunk is visible under `hash`. Putting a present chunk only refreshes
  // its mtime.
  virtual Status Put(const Digest& hash, std::string_view data) = 0;

  // Copies bytes [offset, offset + len) of chunk `hash` into `out`.
  // NotFound if absent; Corruption if the chunk is shorter than asked.
  virtual Status Read(const Digest& hash, uint64_t offset, size_t len, char* out) = 0;

  // NotFound if absent.
  virtual Result<ChunkInfo> Stat(const Digest& hash) = 0;

  // Removes the chunk durably. NotFound if absent.
  virtual Status Delete(const Digest& hash) = 0;

  // Visits every stored chunk (order unspecified); stops at the first error
  // `fn` returns. For fsck and GC sweeps.
  virtual Status ForEach(const std::function<Status(const Digest&, const ChunkInfo&)>& fn) = 0;
  // Bytes still free for chunks where the store keeps them; nullopt when
  // the store cannot tell (memory, remote stores).
  virtual std::optional<uint64_t> FreeBytes() { return std::nullopt; }
};

}  // namespace nubo::blob
