// The one owner of reference counts (ARCHITECTURE.md §4.3).
//
// manifests.refs counts referencing rows (pins, file nodes, file
// versions); chunks.refs counts the distinct manifests that list a chunk
// (a chunk repeated inside one manifest counts once, the same way on
// increment and decrement) plus every upload-session row that lists it. Every function here runs
// inside the caller's write transaction, next to the change of the referencing row: counts and
// references commit or roll back together.
#pragma once

#include <cstdint>
#include <vector>

#include "meta/meta_store.h"

namespace nubo::content {

struct ManifestDraft {
  meta::Digest hash{};
  uint64_t size = 0;
  std::vector<meta::ManifestChunk> chunks;
};

// Finds the manifest with `draft.hash` or creates it (counting its distinct
// chunks, creating chunk rows as needed), then adds one reference for the
// row the caller inserts in the same transaction. Returns the manifest id.
Result<int64_t> AcquireManifest(meta::WriteTxn& txn, const ManifestDraft& draft, int64_t now_ms);
// The same, for a caller that has looked the manifest up in this
// transaction already (`existing`: FindManifest(draft.hash)'s answer).
Result<int64_t> AcquireManifest(meta::WriteTxn& txn, const ManifestDraft& draft,
                                const std::optional<meta::ManifestRow>& existing);

// ReleaseChunks(`released`) and then AcquireManifest(`draft`) in one pass:
// a chunk on both sides has its count changed once, by the difference —
// for upload parts joined into a file, not at all. (Each count changed is a
// read and a write; on PostgreSQL two round trips under the writer lock.)
Result<int64_t> AcquireManifestReleasing(meta::WriteTxn& txn, const ManifestDraft& draft,
                                         const std::vector<meta::Digest>& released, int64_t now_ms);

// One more reference to an existing manifest (e.g. a zero-copy file copy).
Status AddManifestRef(meta::WriteTxn& txn, int64_t manifest_id);

// Upload sessions hold chunks directly, before any manifest lists them:
// each (hash, size) given counts one reference (a chunk listed twice
// counts twice), creating chunk rows as needed.
Status AcquireChunks(meta::WriteTxn& txn,
                     const std::vector<std::pair<meta::Digest, uint32_t>>& chunks);
// Drops one reference per hash given; a chunk reaching zero is stamped
// orphaned at `now_ms`.
Status ReleaseChunks(meta::WriteTxn& txn, const std::vector<meta::Digest>& hashes, int64_t now_ms);

// Drops one reference. At zero the manifest and its chunk list go, and each
// of its distinct chunks loses one reference; a chunk reaching zero is
// stamped orphaned at `now_ms` (GC deletes it after the grace period).
Status ReleaseManifest(meta::WriteTxn& txn, int64_t manifest_id, int64_t now_ms);

}  // namespace nubo::content
