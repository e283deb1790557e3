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

}  // namespace

Result<int64_t> AcquireManifest(meta::WriteTxn& txn, const ManifestDraft& draft,
                                int64_t /*now_ms*/) {
  NUBO_ASSIGN_OR_RETURN(auto existing, txn.FindManifest(draft.hash));
  return AcquireManifest(txn, draft, existing);
}

Result<int64_t> AcquireManifest(meta::WriteTxn& txn, const ManifestDraft& draft,
                                const std::optional<meta::ManifestRow>& existing) {
  if (existing) {
    NUBO_RETURN_IF_ERROR(txn.SetManifestRefs(existing->id, existing->refs + 1));
    return existing->id;
  }
  std::map<meta::Digest, const meta::ManifestChunk*> distinct;
  for (const auto& c : draft.chunks) distinct.emplace(c.hash, &c);
  for (const auto& [hash, c] : distinct) {
    NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(hash));
    if (row) {
      NUBO_RETURN_IF_ERROR(txn.SetChunkRefs(hash, row->refs + 1, std::nullopt));
      // An orphaned row's file may be gone already (GC deletes files
      // outside the row's transaction): the inline bytes take its place.
      if (c->data && !row->inline_data && row->refs == 0) {
        NUBO_RETURN_IF_ERROR(txn.SetChunkData(hash, *c->data));
      }
    } else {
      const meta::ChunkRow row{hash, c->size, 1, std::nullopt};
      NUBO_RETURN_IF_ERROR(c->data ? txn.InsertInlineChunk(row, *c->data) : txn.InsertChunk(row));
    }
  }
  return txn.InsertManifest(draft.hash, draft.size, draft.chunks, 1);
}

Result<int64_t> AcquireManifestReleasing(meta::WriteTxn& txn, const ManifestDraft& draft,
                                         const std::vector<meta::Digest>& released,
                                         int64_t now_ms) {
  struct Change {
    int64_t released = 0;
    bool listed = false;  // one reference from the new manifest
    const meta::ManifestChunk* chunk = nullptr;
  };
  std::map<meta::Digest, Change> changes;
  for (const auto& h : released) ++changes[h].released;
  NUBO_ASSIGN_OR_RETURN(auto existing, txn.FindManifest(draft.hash));
  if (existing) {
    NUBO_RETURN_IF_ERROR(txn.SetManifestRefs(existing->id, existing->refs + 1));
  } else {
    for (const auto& c : draft.chunks) {
      Change& ch = changes[c.hash];
      if (!ch.listed) ch.chunk = &c;
      ch.listed = true;
    }
  }
  for (const auto& [hash, ch] : changes) {
    const int64_t delta = (ch.listed ? 1 : 0) - ch.released;
    if (delta == 0) continue;
    NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(hash));
    if (!row) {
      if (delta < 0) {
        return Status::Internal("chunk " + DigestHex(hash) + " held by an upload has no count");
      }
      const meta::ChunkRow fresh{hash, ch.chunk->size, 1, std::nullopt};
      NUBO_RETURN_IF_ERROR(ch.chunk->data ? txn.InsertInlineChunk(fresh, *ch.chunk->data)
                                          : txn.InsertChunk(fresh));
      continue;
    }
    const int64_t refs = row->refs + delta;
    if (row->refs < ch.released) {
      return Status::Internal("chunk " + DigestHex(hash) + " held by an upload has no count");
    }
    NUBO_RETURN_IF_ERROR(
        txn.SetChunkRefs(hash, refs, refs == 0 ? std::optional<int64_t>(now_ms) : std::nullopt));
    // As in AcquireManifest: an orphaned row's file may be gone already.
    if (ch.listed && ch.chunk->data && !row->inline_data && row->refs - ch.released == 0) {
      NUBO_RETURN_IF_ERROR(txn.SetChunkData(hash, *ch.chunk->data));
    }
  }
  if (existing) return existing->id;
  return txn.InsertManifest(draft.hash, draft.size, draft.chunks, 1);
}

Status AddManifestRef(meta::WriteTxn& txn, int64_t manifest_id) {
  NUBO_ASSIGN_OR_RETURN(auto m, txn.GetManifest(manifest_id));
  if (!m) return Status::NotFound("no manifest " + std::to_string(manifest_id));
  return txn.SetManifestRefs(manifest_id, m->refs + 1);
}

Status AcquireChunks(meta::WriteTxn& txn,
                     const std::vector<std::pair<meta::Digest, uint32_t>>& chunks) {
  for (const auto& [hash, size] : chunks) {
    NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(hash));
    if (row) {
      NUBO_RETURN_IF_ERROR(txn.SetChunkRefs(hash, row->refs + 1, std::nullopt));
    } else {
      NUBO_RETURN_IF_ERROR(txn.InsertChunk(meta::ChunkRow{hash, size, 1, std::nullopt}));
    }
  }
  return Status::Ok();
}

Status ReleaseChunks(meta::WriteTxn& txn, const std::vector<meta::Digest>& hashes, int64_t now_ms) {
  for (const auto& hash : hashes) {
    NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(hash));
    if (!row || row->refs <= 0) {
      return Status::Internal("chunk " + DigestHex(hash) + " held by an upload has no count");
    }
    const int64_t refs = row->refs - 1;
    NUBO_RETURN_IF_ERROR(
        txn.SetChunkRefs(hash, refs, refs == 0 ? std::optional<int64_t>(now_ms) : std::nullopt));
  }
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
    NUBO_ASSIGN_OR_RETURN(auto row, txn.GetChunk(hash));
    if (!row || row->refs <= 0) {
      return Status::Internal("chunk " + DigestHex(hash) + " listed by a manifest has no count");
    }
    int64_t refs = row->refs - 1;
    NUBO_RETURN_IF_ERROR(
        txn.SetChunkRefs(hash, refs, refs == 0 ? std::optional<int64_t>(now_ms) : std::nullopt));
  }
  return Status::Ok();
}

}  // namespace nubo::content
