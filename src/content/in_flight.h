// Chunks that uploads in progress in this process have stored but not yet
// referenced from a committed manifest. GC leaves them alone however long
// the upload takes: without this, an upload slower than storage.gc_grace
// found its first chunks swept (they have no row and an old file) and was
// refused at commit. Pins are counted (two uploads may share a chunk) and
// held by Ingest from before a chunk is stored until the Ingest is gone,
// which is after its manifest committed or was abandoned. Other processes
// on the same store (other nodes, `nubo gc`) learn only the time of the
// oldest pin, through the process's heartbeat (content/gc.h).
// Thread-safe.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "util/blake3_hash.h"

namespace nubo::content {

class InFlightChunks {
 public:
  static InFlightChunks& Instance();

  // Waits while the chunk is being discarded (its file may be about to
  // go), so a pin taken here always precedes the chunk's (re)store.
  void Pin(const Blake3Digest& hash);
  void Unpin(const Blake3Digest& hash);
  bool Pinned(const Blake3Digest& hash) const;
  // When the longest-held pin was taken (ms since the epoch); nullopt
  // when nothing is pinned.
  std::optional<int64_t> OldestPinMs() const;

  // Of `hashes`, those pinned once only (by the caller) are marked
  // discarding and returned: until EndDiscard, nobody else can pin them.
  std::vector<Blake3Digest> BeginDiscard(const std::vector<Blake3Digest>& hashes);
  void EndDiscard(const std::vector<Blake3Digest>& hashes);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  struct Held {
    int count = 0;
    int64_t since_ms = 0;
  };
  std::map<Blake3Digest, Held> count_;
  std::set<Blake3Digest> discarding_;
};

}  // namespace nubo::content
