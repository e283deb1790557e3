// Verification of every storage invariant (ARCHITECTURE.md §4.3): counts
// recomputed from the references, every referenced chunk present with the
// right size and hash, every manifest's chunk list contiguous and hashing
// to the manifest's hash. With `repair`, wrong counts are rewritten (never
// any data deleted). Reads everything: run it offline or in quiet hours.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "blob/chunk_store.h"
#include "meta/meta_store.h"

namespace nubo::content {

struct FsckReport {
  std::vector<std::string> problems;  // each a human-readable finding
  uint64_t manifests = 0;
  uint64_t chunks = 0;
  uint64_t inline_chunks = 0;  // of `chunks`, kept in their rows (storage.inline_max)
  uint64_t bytes_verified = 0;
  uint64_t unreferenced_files = 0;  // leftovers GC will sweep; not a problem
  uint64_t repaired = 0;
  bool clean() const { return problems.empty(); }
};

Result<FsckReport> Fsck(meta::MetaStore& meta, blob::ChunkStore& chunks, bool repair);

}  // namespace nubo::content
