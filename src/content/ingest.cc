#include "content/ingest.h"

#include "util/time.h"

namespace nubo::content {

Ingest::Ingest(blob::ChunkStore& chunks, ChunkerParams params) : chunks_(chunks), cdc_(params) {}

Status Ingest::StoreChunk(std::string_view chunk) {
  Blake3Digest h = Blake3::Hash(chunk);
  NUBO_RETURN_IF_ERROR(chunks_.Put(h, chunk));
  meta::ManifestChunk mc;
  mc.seq = static_cast<uint32_t>(draft_.chunks.size());
  mc.hash = h;
  mc.offset = draft_.size;
  mc.size = static_cast<uint32_t>(chunk.size());
  draft_.chunks.push_back(mc);
  draft_.size += chunk.size();
  return Status::Ok();
}

Status Ingest::Write(const char* data, size_t len) {
  if (failed_) return Status::Internal("ingest already failed");
  whole_.Update(data, len);
  Status st = cdc_.Update(data, len, [this](std::string_view c) { return StoreChunk(c); });
  if (!st.ok()) failed_ = true;
  return st;
}

Result<ManifestDraft> Ingest::Finish() {
  if (failed_) return Status::Internal("ingest already failed");
  Status st = cdc_.Finish([this](std::string_view c) { return StoreChunk(c); });
  if (!st.ok()) {
    failed_ = true;
    return st;
  }
  draft_.hash = whole_.Final();
  return draft_;
}

Result<int64_t> CommitManifest(meta::MetaStore& meta, blob::ChunkStore& chunks,
                               const ManifestDraft& draft,
                               const std::function<Status(meta::WriteTxn&, int64_t)>& attach) {
  int64_t id = 0;
  Status st = meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto existing, txn.FindManifest(draft.hash));
    if (!existing) {
      // A chunk no manifest holds may have been removed by GC since we
      // stored it (GC deletes inside its own write transaction, so this
      // check cannot interleave with it). Refuse rather than commit a
      // manifest over missing bytes; the client retries the upload.
      for (const auto& c : draft.chunks) {
        NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(c.hash));
        if (row && row->refs > 0) continue;
        auto info = chunks.Stat(c.hash);
        if (!info.ok() || info->size != c.size) {
          return Status::Aborted("chunk " + DigestHex(c.hash) +
                                 " vanished before commit (concurrent GC); retry");
        }
      }
    }
    NUBO_ASSIGN_OR_RETURN(id, AcquireManifest(txn, draft, UnixMillis()));
    return attach ? attach(txn, id) : Status::Ok();
  });
  if (!st.ok()) return st;
  return id;
}

}  // namespace nubo::content
