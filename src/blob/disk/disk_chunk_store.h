// Local-disk ChunkStore. Layout: <root>/<h0h1>/<h2h3>/<64 hex chars>, a
// two-level fan-out so no directory grows past ~65k entries per 4 billion
// chunks. Writes go to a temp file in <tmp> (same file system), are
// fsync'd, renamed into place, and the target directory is fsync'd.
// Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "blob/chunk_store.h"
#include "blob/fault_plan.h"

namespace nubo::blob {

class DiskChunkStore final : public ChunkStore {
 public:
  // `root` and `tmp` must be on one file system (rename is atomic only
  // there). `faults` (tests only) injects errors at each system call that
  // changes the disk; may be null.
  static Result<std::unique_ptr<DiskChunkStore>> Open(std::string root, std::string tmp,
                                                      FaultPlan* faults = nullptr);

  Status Put(const Digest& hash, std::string_view data) override;
  // Stages chunks in temp files without syncing; Commit syncs the file
  // system once (syncfs), renames every chunk into place, and syncs again
  // so the new directory entries are durable: two syncs per batch instead
  // of two fsyncs per chunk.
  std::unique_ptr<ChunkBatch> NewBatch() override;
  Status Read(const Digest& hash, uint64_t offset, size_t len, char* out) override;
  // Keeps the file open: a streamed read costs one open per chunk, not
  // one per buffer.
  Result<std::unique_ptr<ChunkReader>> Open(const Digest& hash) override;
  Result<ChunkInfo> Stat(const Digest& hash) override;
  Status Delete(const Digest& hash) override;
  Status ForEach(const std::function<Status(const Digest&, const ChunkInfo&)>& fn) override;
  // statvfs of the chunk directory's file system (bytes available to us).
  std::optional<uint64_t> FreeBytes() override;

  std::string PathFor(const Digest& hash) const;
  // File-system syncs (fsync of a directory or syncfs) made so far: what
  // durability costs, for tests and benchmarks.
  uint64_t syncs() const { return syncs_.load(); }

 private:
  friend class DiskChunkBatch;
  // Marks the span from a chunk's rename into place to the sync that makes
  // its name durable. A batch that finds a chunk present while any window
  // is open syncs before its commit (it may have found an undurable name).
  // A window whose sync failed never closes: names it exposed may stay
  // undurable, so every later batch that finds a chunk present syncs (the
  // next start syncs once and begins clean).
  struct UnsyncedWindow {
    explicit UnsyncedWindow(DiskChunkStore& s) : store(s) { store.unsynced_.fetch_add(1); }
    ~UnsyncedWindow() {
      if (synced) store.unsynced_.fetch_sub(1);
    }
    DiskChunkStore& store;
    bool synced = false;  // set once the names are durable
  };
  DiskChunkStore(std::string root, std::string tmp, FaultPlan* faults)
      : root_(std::move(root)), tmp_(std::move(tmp)), faults_(faults) {}
  // errno to inject at a fault point (0: none); kShortWrite reported as EIO.
  FaultPlan::Fault Inject();

  std::string root_;
  std::string tmp_;
  FaultPlan* faults_;
  std::atomic<int> unsynced_{0};
  std::atomic<uint64_t> syncs_{0};
};

}  // namespace nubo::blob
