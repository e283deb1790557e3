#include "content/refs.h"

#include <map>
#include <set>

namespace nubo::content {

namespace {

std::set<meta::Digest> Distinct(const std::vector<meta::ManifestChunk>& chunks) {
  std::set<meta::Digest> out;
  for (const auto& c : chunks) out.insert(c.hash);
  return out;
}

// One reference more to `c`, a chunk with inline bytes: an orphaned row's
// file may be gone already (GC deletes files outside the row's
// transaction), so such a row gets the bytes back.
Status AddInlineRef(meta::WriteTxn& txn, const meta::ManifestChunk& c) {
  NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(c.hash));
  if (!row) return txn.InsertInlineChunk(meta::ChunkRow{c.hash, c.size, 1, std::nullopt}, *c.data);
  NUBO_RETURN_IF_ERROR(txn.SetChunkRefs(c.hash, row->refs + 1, std::nullopt));
  if (!row->inline_data && row->refs == 0) NUBO_RETURN_IF_ERROR(txn.SetChunkData(c.hash, *c.data));
  return Status::Ok();
}

// The manifest of `draft` (found as `existing`, or created listing its
// distinct chunks) gains one reference, and the references in `released`
// (one per entry) end: each chunk's count changes once, by the difference.
Result<int64_t> Acquire(meta::WriteTxn& txn, const ManifestDraft& draft,
                        const std::optional<meta::ManifestRow>& existing,
                        const std::vector<meta::Digest>& released, int64_t now_ms) {
  struct Change {
    int64_t released = 0;
    bool listed = false;  // one reference from the new manifest
    const meta::ManifestChunk* chunk = nullptr;
  };
  std::map<meta::Digest, Change> changes;
  for (const auto& h : released) ++changes[h].released;
  if (existing) {
    NUBO_RETURN_IF_ERROR(txn.SetManifestRefs(existing->id, existing->refs + 1));
  } else {
    for (const auto& c : draft.chunks) {
      Change& ch = changes[c.hash];
      if (!ch.listed) ch.chunk = &c;
      ch.listed = true;
    }
  }
  std::vector<meta::ChunkRow> counted;
  for (const auto& [hash, ch] : changes) {
    const int64_t delta = (ch.listed ? 1 : 0) - ch.released;
    if (delta < 0) {
      NUBO_RETURN_IF_ERROR(txn.DropChunkRefs(hash, -delta, now_ms));
    } else if (delta > 0 && ch.chunk->data) {
      NUBO_RETURN_IF_ERROR(AddInlineRef(txn, *ch.chunk));
    } else if (delta > 0) {
      counted.push_back(meta::ChunkRow{hash, ch.chunk->size, delta, std::nullopt});
    }
  }
  NUBO_RETURN_IF_ERROR(txn.AddChunkRefs(counted));
  if (existing) return existing->id;
  return txn.InsertManifest(draft.hash, draft.size, draft.chunks, 1);
}

}  // namespace

Result<int64_t> AcquireManifest(meta::WriteTxn& txn, const ManifestDraft& draft, int64_t now_ms) {
  NUBO_ASSIGN_OR_RETURN(auto existing, txn.FindManifest(draft.hash));
  return Acquire(txn, draft, existing, {}, now_ms);
}

Result<int64_t> AcquireManifest(meta::WriteTxn& txn, const ManifestDraft& draft,
                                const std::optional<meta::ManifestRow>& existing) {
  return Acquire(txn, draft, existing, {}, 0);  // nothing released: no count reaches zero
}

Result<int64_t> AcquireManifestReleasing(meta::WriteTxn& txn, const ManifestDraft& draft,
                                         const std::vector<meta::Digest>& released,
                                         int64_t now_ms) {
  NUBO_ASSIGN_OR_RETURN(auto existing, txn.FindManifest(draft.hash));
  return Acquire(txn, draft, existing, released, now_ms);
}

Status AddManifestRef(meta::WriteTxn& txn, int64_t manifest_id) {
  NUBO_ASSIGN_OR_RETURN(auto m, txn.GetManifest(manifest_id));
  if (!m) return Status::NotFound("no manifest " + std::to_string(manifest_id));
  return txn.SetManifestRefs(manifest_id, m->refs + 1);
}

Status AcquireChunks(meta::WriteTxn& txn,
                     const std::vector<std::pair<meta::Digest, uint32_t>>& chunks) {
  std::map<meta::Digest, meta::ChunkRow> counts;  // a chunk listed twice counts twice
  for (const auto& [hash, size] : chunks) {
    meta::ChunkRow& r = counts[hash];
    r.hash = hash;
    r.size = size;
    ++r.refs;
  }
  std::vector<meta::ChunkRow> rows;
  rows.reserve(counts.size());
  for (auto& [hash, r] : counts) rows.push_back(r);
  return txn.AddChunkRefs(rows);
}

Status ReleaseChunks(meta::WriteTxn& txn, const std::vector<meta::Digest>& hashes, int64_t now_ms) {
  std::map<meta::Digest, int64_t> counts;
  for (const auto& hash : hashes) ++counts[hash];
  for (const auto& [hash, n] : counts) NUBO_RETURN_IF_ERROR(txn.DropChunkRefs(hash, n, now_ms));
  return Status::Ok();
}

Status ReleaseManifest(meta::WriteTxn& txn, int64_t manifest_id, int64_t now_ms) {
  NUBO_ASSIGN_OR_RETURN(auto m, txn.GetManifest(manifest_id));
  if (!m) return Status::NotFound("no manifest " + std::to_string(manifest_id));
  if (m->refs <= 0)
    return Status::Internal("manifest " + std::to_string(manifest_id) +
                            " has no references to drop");
  if (m->refs > 1) return txn.SetManifestRefs(manifest_id, m->refs - 1);
  NUBO_ASSIGN_OR_RETURN(auto chunks, txn.ManifestChunks(manifest_id));
  NUBO_RETURN_IF_ERROR(txn.DeleteManifest(manifest_id));
  for (const auto& hash : Distinct(chunks)) {
    NUBO_RETURN_IF_ERROR(txn.DropChunkRefs(hash, 1, now_ms));
  }
  return Status::Ok();
}

}  // namespace nubo::content
