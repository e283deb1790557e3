// Ingest: a byte stream → content-defined chunks → durable chunk files → a
// manifest committed in the metadata store (ARCHITECTURE.md §4.1-4.2).
//
// Order is what makes it crash-safe: every chunk is durable (its batch
// committed) before the transaction that references it begins, and that
// transaction re-checks the chunks a concurrent GC could have removed. A
// crash before the commit leaves unreferenced chunk files (GC sweeps them),
// never a manifest pointing at missing bytes. Memory: one maximum-size chunk.
// Not thread-safe; one Ingest per stream.
#pragma once

#include <functional>
#include <optional>
#include <set>

#include "blob/chunk_store.h"
#include "content/fastcdc.h"
#include "content/refs.h"
#include "meta/meta_store.h"
#include "util/blake3_hash.h"

namespace nubo::content {

class PipelinedBatch;

class Ingest {
 public:
  enum class Sync {
    kBatched,   // stage chunks, make them durable together (default)
    kPerChunk,  // make each chunk durable on its own (two fsyncs each)
  };
  explicit Ingest(blob::ChunkStore& chunks, ChunkerParams params = {}, Sync sync = Sync::kBatched);
  // Releases the GC pins of its chunks (InFlightChunks): keep the Ingest
  // until its manifest is committed.
  ~Ingest();
  Ingest(const Ingest&) = delete;
  Ingest& operator=(const Ingest&) = delete;

  // Consumes the next bytes of the stream; chunks are hashed and stored as
  // they complete. An error leaves the Ingest unusable.
  Status Write(const char* data, size_t len);
  // Ends the stream: stores the last chunk and returns the manifest.
  Result<ManifestDraft> Finish();
  // A stream of at most `bytes` in all (never resumed) is not written to
  // the chunk store: Finish returns its one chunk with the bytes in
  // ManifestChunk::data, and CommitManifest keeps them in the chunk's row,
  // so the metadata commit alone makes the upload durable. 0: never.
  void InlineUpTo(size_t bytes) { inline_max_ = bytes; }

  // ---- Streams received in several requests (upload sessions) ----
  // Before any Write: the stream's first `offset` bytes arrived earlier.
  // `hasher` is Blake3::SaveState over them, `tail` the bytes after their
  // last chunk boundary, `next_seq` the number of chunks before it. The
  // boundaries that follow are those of one uninterrupted stream.
  // InvalidArgument when `hasher` is not this build's (re-hash instead).
  Status Resume(std::string_view hasher, std::string_view tail, uint64_t offset, uint32_t next_seq);
  // Makes the chunks stored so far durable and hands them over (seq and
  // offset continue the stream). The bytes after the last boundary stay
  // in Pending(); the whole-content hash state so far is SaveHasher().
  Result<std::vector<meta::ManifestChunk>> Flush();
  // Flush that also stores Pending() as one chunk of its own (`tail`,
  // unset when nothing is pending) in the same durable step: a request
  // that ends mid-chunk costs one batch commit, not a commit and a Put
  // with its own file and directory syncs. The tail is pinned like every
  // chunk of this ingest and is no chunk of the stream (it goes back into
  // the chunker when the stream resumes).
  struct Flushed {
    std::vector<meta::ManifestChunk> chunks;
    std::optional<Blake3Digest> tail;
  };
  Result<Flushed> FlushWithTail();
  std::string_view Pending() const { return cdc_.Pending(); }
  std::string SaveHasher() const { return whole_.SaveState(); }
  // The upload was refused or abandoned: deletes, at once, the chunks this
  // ingest made visible that nothing references (no chunk row: no manifest
  // lists them) and no other upload in this process holds — instead of
  // leaving them for GC after its grace period (a refused 100 MB upload
  // must not hold 100 MB of disk for an hour). Best effort: what it cannot
  // delete, GC still collects. Call before destruction, never after a
  // commit that references the chunks.
  void Discard(meta::MetaStore& meta);

 private:
  Status StoreChunk(std::string_view chunk);

  blob::ChunkStore& chunks_;
  std::unique_ptr<blob::ChunkBatch> batch_;
  PipelinedBatch* pipe_ = nullptr;  // batch_ when batched (commits in the background)
  uint64_t staged_bytes_ = 0;
  FastCdc cdc_;
  Blake3 whole_;
  ManifestDraft draft_;
  uint32_t first_seq_ = 0;  // seq of draft_.chunks[0] (Resume)
  size_t inline_max_ = 0;
  size_t handed_ = 0;  // chunks already returned by Flush
  std::set<Blake3Digest> pinned_;
  bool failed_ = false;
};

// Commits `draft` in one write transaction: re-checks that its chunks exist
// where no other manifest protects them, takes one reference on the
// manifest (creating it if new), and runs `attach` to insert the
// referencing row in the same transaction. Returns the manifest id.
Result<int64_t> CommitManifest(meta::MetaStore& meta, blob::ChunkStore& chunks,
                               const ManifestDraft& draft,
                               const std::function<Status(meta::WriteTxn&, int64_t)>& attach);

}  // namespace nubo::content
