// Chunks that uploads in progress in this process have stored but not yet
// referenced from a committed manifest. GC leaves them alone however long
// the upload takes: without this, an upload slower than storage.gc_grace
// found its first chunks swept (they have no row and an old file) and was
// refused at commit. Pins are counted (two uploads may share a chunk) and
// held by Ingest from before a chunk is stored until the Ingest is gone,
// which is after its manifest committed or was abandoned. Servers that
// share one store across processes need the pins in the database instead.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include "util/blake3_hash.h"

namespace nubo::content {

class InFlightChunks {
 public:
  static InFlightChunks& Instance();

  void Pin(const Blake3Digest& hash);
  void Unpin(const Blake3Digest& hash);
  bool Pinned(const Blake3Digest& hash) const;

 private:
  mutable std::mutex mu_;
  std::map<Blake3Digest, int> count_;
};

}  // namespace nubo::content
