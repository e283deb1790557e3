#include "content/ingest.h"

#include "content/in_flight.h"
#include "content/pipelined_batch.h"

namespace nubo::content {

namespace {
// Staged chunks are made durable in batches of this many bytes: large
// enough that the two file-system syncs per batch vanish against the
// writes, small enough that a failed upload leaves little to clean.
constexpr uint64_t kBatchBytes = 64 << 20;
}  // namespace

Ingest::Ingest(blob::ChunkStore& chunks, ChunkerParams params, Sync sync)
    : chunks_(chunks), cdc_(params) {
  if (sync == Sync::kBatched) {
    auto pipe = std::make_unique<PipelinedBatch>(chunks.NewBatch());
    pipe_ = pipe.get();
    batch_ = std::move(pipe);
  } else {
    batch_ = chunks.ChunkStore::NewBatch();
  }
}

Ingest::~Ingest() {
  for (const Blake3Digest& h : pinned_) InFlightChunks::Instance().Unpin(h);
}

Status Ingest::StoreChunk(std::string_view chunk) {
  Blake3Digest h = Blake3::Hash(chunk);
  if (pinned_.insert(h).second) InFlightChunks::Instance().Pin(h);
  NUBO_RETURN_IF_ERROR(batch_->Add(h, chunk));
  staged_bytes_ += chunk.size();
  if (staged_bytes_ >= kBatchBytes) {
    // Nothing references these chunks before Finish or Flush, which wait
    // for every commit; until then the sync may run behind.
    NUBO_RETURN_IF_ERROR(pipe_ ? pipe_->CommitSoon() : batch_->Commit());
    staged_bytes_ = 0;
  }
  meta::ManifestChunk mc;
  mc.seq = first_seq_ + static_cast<uint32_t>(draft_.chunks.size());
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
  // A whole stream no longer than inline_max_ is one chunk that travels
  // with the manifest's transaction instead of through the chunk store.
  const bool keep_inline = inline_max_ > 0 && first_seq_ == 0 && draft_.chunks.empty() &&
                           cdc_.Pending().size() <= inline_max_;
  Status st = cdc_.Finish([this, keep_inline](std::string_view c) {
    if (!keep_inline) return StoreChunk(c);
    meta::ManifestChunk mc;
    mc.hash = Blake3::Hash(c);
    mc.size = static_cast<uint32_t>(c.size());
    mc.data = std::string(c);
    draft_.chunks.push_back(std::move(mc));
    draft_.size += c.size();
    return Status::Ok();
  });
  if (st.ok()) st = batch_->Commit();
  if (!st.ok()) {
    failed_ = true;
    return st;
  }
  draft_.hash = whole_.Final();
  return draft_;
}

Status Ingest::Resume(std::string_view hasher, std::string_view tail, uint64_t offset,
                      uint32_t next_seq) {
  if (tail.size() > offset) return Status::InvalidArgument("tail longer than the stream");
  if (!whole_.RestoreState(hasher)) {
    return Status::InvalidArgument("hash state from another build");
  }
  first_seq_ = next_seq;
  draft_.size = offset - tail.size();
  // The tail is hashed already; it only goes back into the chunker (it is
  // shorter than a maximum chunk, so nothing is cut here).
  return cdc_.Update(tail.data(), tail.size(),
                     [this](std::string_view c) { return StoreChunk(c); });
}

Result<std::vector<meta::ManifestChunk>> Ingest::Flush() {
  if (failed_) return Status::Internal("ingest already failed");
  if (Status st = batch_->Commit(); !st.ok()) {
    failed_ = true;
    return st;
  }
  staged_bytes_ = 0;
  std::vector<meta::ManifestChunk> out(draft_.chunks.begin() + static_cast<long>(handed_),
                                       draft_.chunks.end());
  handed_ = draft_.chunks.size();
  return out;
}

Result<Ingest::Flushed> Ingest::FlushWithTail() {
  if (failed_) return Status::Internal("ingest already failed");
  Flushed out;
  const std::string_view tail = cdc_.Pending();
  if (!tail.empty()) {
    const Blake3Digest h = Blake3::Hash(tail);
    if (pinned_.insert(h).second) InFlightChunks::Instance().Pin(h);
    if (Status st = batch_->Add(h, tail); !st.ok()) {
      failed_ = true;
      return st;
    }
    out.tail = h;
  }
  NUBO_ASSIGN_OR_RETURN(out.chunks, Flush());
  return out;
}

void Ingest::Discard(meta::MetaStore& meta) {
  std::vector<Blake3Digest> published = batch_->Published();
  if (published.empty()) return;
  // Only chunks pinned by this ingest alone; while they are being
  // discarded nobody can pin them, so no upload can find one present,
  // count on it and commit after it is gone.
  std::vector<Blake3Digest> mine = InFlightChunks::Instance().BeginDiscard(published);
  for (const Blake3Digest& h : mine) {
    std::optional<meta::ChunkRow> row;
    Status st = meta.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(row, t.GetChunk(h));
      return Status::Ok();
    });
    if (!st.ok() || row) continue;  // referenced (or once was): GC's to judge
    (void)chunks_.Delete(h);
  }
  InFlightChunks::Instance().EndDiscard(mine);
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
        if (c.data) continue;  // its bytes commit with this transaction
        NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(c.hash));
        if (row && row->refs > 0) continue;
        auto info = chunks.Stat(c.hash);
        if (!info.ok() || info->size != c.size) {
          return Status::Aborted("chunk " + DigestHex(c.hash) +
                                 " vanished before commit (concurrent GC); retry");
        }
      }
    }
    NUBO_ASSIGN_OR_RETURN(id, AcquireManifest(txn, draft, existing));
    return attach ? attach(txn, id) : Status::Ok();
  });
  if (!st.ok()) return st;
  return id;
}

}  // namespace nubo::content
