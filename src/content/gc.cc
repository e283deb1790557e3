#include "content/gc.h"

#include <algorithm>
#include <set>
#include <vector>

#include "content/in_flight.h"
#include "util/process.h"

namespace nubo::content {

namespace {
constexpr size_t kPage = 500;
// File times come from the file system's clock, pins from each node's.
constexpr int64_t kClockMarginMs = 60'000;

void Add(GcStats& to, const GcStats& run) {
  to.chunks_deleted += run.chunks_deleted;
  to.files_swept += run.files_swept;
  to.bytes_freed += run.bytes_freed;
  to.skipped_recent += run.skipped_recent;
}
}  // namespace

Result<int64_t> GcCutoff(meta::MetaStore& meta, int64_t grace_ms, int64_t now_ms,
                         const std::string& self) {
  int64_t cutoff = now_ms - grace_ms;
  std::vector<meta::ProcessRow> live;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(live, txn.LiveProcesses(now_ms - kAliveMs));
    return Status::Ok();
  }));
  for (const auto& p : live) {
    if (p.id == self) continue;
    // A process of this machine that no longer exists (killed) pins nothing.
    if (ProcessGone(p.host, p.pid)) continue;
    // Pins taken since its last heartbeat are younger than this.
    cutoff = std::min(cutoff, now_ms - kHeartbeatMs - kClockMarginMs);
    if (p.oldest_pin_at_ms) cutoff = std::min(cutoff, *p.oldest_pin_at_ms - kClockMarginMs);
  }
  return cutoff;
}

Result<GcStats> CollectGarbage(meta::MetaStore& meta, blob::ChunkStore& chunks, int64_t grace_ms,
                               int64_t now_ms, const std::string& self) {
  GcStats stats;
  NUBO_ASSIGN_OR_RETURN(const int64_t cutoff, GcCutoff(meta, grace_ms, now_ms, self));

  // 1. Rows whose count has been zero for the grace period.
  std::vector<meta::ChunkRow> page;
  std::set<meta::Digest> seen;
  for (;;) {
    NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
      NUBO_ASSIGN_OR_RETURN(page, txn.ListOrphanChunks(cutoff, kPage));
      return Status::Ok();
    }));
    size_t progressed = 0;
    for (const auto& cand : page) {
      if (!seen.insert(cand.hash).second) continue;
      ++progressed;
      GcStats run;  // of the run that commits (a write may run again)
      NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& txn) -> Status {
        run = {};
        NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(cand.hash));
        if (!row || row->refs != 0 || !row->orphaned_at_ms || *row->orphaned_at_ms > cutoff) {
          return Status::Ok();  // referenced again since the listing
        }
        if (InFlightChunks::Instance().Pinned(cand.hash)) {
          ++run.skipped_recent;  // an upload in progress stored it again
          return Status::Ok();
        }
        auto info = chunks.Stat(cand.hash);
        if (info.ok() && info->mtime_ms > cutoff) {
          ++run.skipped_recent;  // re-stored by an ingest in flight
          return Status::Ok();
        }
        NUBO_RETURN_IF_ERROR(txn.DeleteChunk(cand.hash));
        // Inline bytes go with the row (a file of the same chunk, left by
        // a resumable upload, is deleted below and counted there instead).
        if (row->inline_data && !info.ok()) run.bytes_freed += row->size;
        // The file goes under the writer lock, so no commit can reference
        // the chunk between the check above and the delete. Should this
        // transaction be rolled back afterwards, the row stays at zero
        // references without its file — what a commit that wants the
        // chunk already checks for (StillStored) — and the run again
        // deletes the row.
        if (info.ok()) {
          Status del = chunks.Delete(cand.hash);
          if (!del.ok() && del.code() != Code::kNotFound) return del;
          run.bytes_freed += info->size;
        }
        ++run.chunks_deleted;
        return Status::Ok();
      }));
      Add(stats, run);
    }
    if (progressed == 0) break;
  }

  // 2. Files with no row: chunks stored by an ingest that never committed.
  std::vector<std::pair<meta::Digest, blob::ChunkInfo>> files;
  NUBO_RETURN_IF_ERROR(chunks.ForEach([&](const meta::Digest& h, const blob::ChunkInfo& info) {
    if (info.mtime_ms <= cutoff) files.emplace_back(h, info);
    return Status::Ok();
  }));
  for (const auto& file : files) {
    // Not a structured binding: clang 14 cannot capture those in a lambda.
    const meta::Digest& hash = file.first;
    GcStats run;
    NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& txn) -> Status {
      run = {};
      NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(hash));
      if (row || InFlightChunks::Instance().Pinned(hash)) return Status::Ok();
      auto now_info = chunks.Stat(hash);
      if (!now_info.ok() || now_info->mtime_ms > cutoff) return Status::Ok();
      Status del = chunks.Delete(hash);
      if (!del.ok() && del.code() != Code::kNotFound) return del;
      ++run.files_swept;
      run.bytes_freed += now_info->size;
      return Status::Ok();
    }));
    Add(stats, run);
  }
  return stats;
}

}  // namespace nubo::content
