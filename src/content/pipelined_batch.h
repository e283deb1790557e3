// PipelinedBatch: a ChunkBatch whose chunk writes run on a thread of their
// own, so that a big upload's file-system writes (on this machine the copy
// into the page cache costs as much CPU as chunking and hashing together)
// overlap the cutting and hashing of the next chunks instead of following
// them.
//
// The first kInlineBytes are staged on the caller's thread: a small upload
// never starts a thread. After that, Add copies the chunk into a bounded
// queue (at most kQueueBytes, so memory stays flat: the caller waits when
// the writer falls behind) and returns; the writer stages the chunks in
// order in the wrapped batch, and runs the commits CommitSoon queues
// between them. The first error the writer meets is returned
// by the next Add, Commit or Published-preceding drain, and the writer
// stages nothing after it. Commit and Published first wait for the queue
// to drain, so they see exactly what an inline batch would. Not
// thread-safe (one per ingest), like every ChunkBatch.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "blob/chunk_store.h"

namespace nubo::content {

class PipelinedBatch final : public blob::ChunkBatch {
 public:
  static constexpr uint64_t kInlineBytes = 2 << 20;
  static constexpr uint64_t kQueueBytes = 4 << 20;

  explicit PipelinedBatch(std::unique_ptr<blob::ChunkBatch> inner);
  // Stops the writer (chunks still queued are dropped, as an uncommitted
  // batch's are) before the wrapped batch discards what it staged.
  ~PipelinedBatch() override;

  Status Add(const blob::Digest& hash, std::string_view data) override;
  Status Commit() override;
  // Commit, on the writer's turn: the caller goes on cutting and hashing
  // while the writer syncs. Its error, if any, comes back from a later
  // Add, Commit or CommitSoon; Commit still waits for everything.
  Status CommitSoon();
  std::vector<blob::Digest> Published() const override;

 private:
  struct Item {
    blob::Digest hash;
    std::string bytes;
    bool commit = false;  // a commit marker, not a chunk
  };
  void Run();
  // Waits until the writer is idle with an empty queue; its error, if any.
  Status Drain() const;

  std::unique_ptr<blob::ChunkBatch> inner_;
  uint64_t inline_left_ = kInlineBytes;
  std::thread writer_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;  // queue changed, writer idle, or stop
  std::deque<Item> queue_;
  std::vector<std::string> spare_;  // emptied buffers, reused (no mmap per chunk)
  uint64_t queued_bytes_ = 0;
  bool busy_ = false;  // the writer holds an item outside the queue
  bool stop_ = false;
  Status error_;
};

}  // namespace nubo::content
