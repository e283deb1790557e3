// Garbage collection of chunks no manifest references (ARCHITECTURE.md §4.3).
//
// A chunk becomes a candidate when its count reached zero at least
// `grace_ms` ago. Each deletion re-checks, inside the serialized write
// transaction, that the count is still zero and that the chunk file was not
// re-stored recently (a Put refreshes its mtime), then removes file and row
// together; ingest commits re-check chunk presence in their own write
// transaction, so the two cannot interleave. Files that have no row at all
// (a crash between chunk write and manifest commit) are swept under the
// same rules. Safe to run while nubo serves, from another process too.
#pragma once

#include <cstdint>

#include "blob/chunk_store.h"
#include "meta/meta_store.h"

namespace nubo::content {

struct GcStats {
  uint64_t chunks_deleted = 0;   // rows + files
  uint64_t files_swept = 0;      // files without a row
  uint64_t bytes_freed = 0;
  uint64_t skipped_recent = 0;   // candidates touched within the grace period or in flight
};

Result<GcStats> CollectGarbage(meta::MetaStore& meta, blob::ChunkStore& chunks, int64_t grace_ms,
                               int64_t now_ms);

}  // namespace nubo::content
