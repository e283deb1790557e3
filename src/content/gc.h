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
//
// Chunks an upload in progress has stored have no row yet. The process
// running the upload pins them (content/in_flight.h); other processes on
// the store — other nodes, `nubo gc` — see only each serving process's
// heartbeat row (server_processes) with the time of its oldest pin, and
// leave alone every file newer than that (less a margin for clocks), and
// every file younger than a heartbeat interval plus that margin while
// another process is alive. So an upload slower than the grace period is
// safe on every node.
#pragma once

#include <cstdint>
#include <string>

#include "blob/chunk_store.h"
#include "meta/meta_store.h"

namespace nubo::content {

struct GcStats {
  uint64_t chunks_deleted = 0;   // rows + files
  uint64_t files_swept = 0;      // files without a row
  uint64_t bytes_freed = 0;
  uint64_t skipped_recent = 0;   // candidates touched within the grace period or in flight
};

// How often a serving process writes its heartbeat, and how long a silent
// one still counts as alive.
constexpr int64_t kHeartbeatMs = 10'000;
constexpr int64_t kAliveMs = 60'000;

// `self`: the calling process's id in server_processes ("" for a tool):
// its own pins are known exactly.
Result<GcStats> CollectGarbage(meta::MetaStore& meta, blob::ChunkStore& chunks, int64_t grace_ms,
                               int64_t now_ms, const std::string& self = "");

// The cutoff CollectGarbage uses: files and orphans newer than this stay.
Result<int64_t> GcCutoff(meta::MetaStore& meta, int64_t grace_ms, int64_t now_ms,
                         const std::string& self);

}  // namespace nubo::content
