// The content metadata: manifests (a file content's chunk list), chunks with
// their reference counts and inline bytes, and pins.
//
// One capability of the MetaStore (meta_store.h): ContentReads are part of every
// transaction, ContentWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

struct ManifestRow {
  int64_t id = 0;
  Digest hash{};      // BLAKE3 of the whole content
  uint64_t size = 0;  // bytes
  int64_t refs = 0;   // referencing rows (pins, file nodes; later versions, upload sessions)
};

struct ManifestChunk {
  uint32_t seq = 0;  // 0-based order in the manifest
  Digest hash{};
  uint64_t offset = 0;  // of the chunk's first byte in the content
  uint32_t size = 0;
  // The chunk's bytes when the metadata store keeps them (an inline chunk,
  // storage.inline_max); nullopt: they are in the chunk store. Filled by
  // ManifestChunks; content/reader.h reads either kind.
  std::optional<std::string> data;
};

struct ChunkRow {
  Digest hash{};
  uint64_t size = 0;
  int64_t refs = 0;                       // distinct manifests listing the chunk
  std::optional<int64_t> orphaned_at_ms;  // set when refs dropped to 0
  bool inline_data = false;               // bytes kept in the row (read only; SetChunkData)
};

class ContentReads {
 public:
  virtual ~ContentReads() = default;

  virtual Result<std::optional<ManifestRow>> FindManifest(const Digest& hash) = 0;
  virtual Result<std::optional<ManifestRow>> GetManifest(int64_t id) = 0;
  // The manifest's chunk list in order.
  virtual Result<std::vector<ManifestChunk>> ManifestChunks(int64_t manifest_id) = 0;
  // The verified client checksums kept with a manifest ("SHA1:<hex>
  // MD5:<hex>"; empty: none, or no such manifest).
  virtual Result<std::string> ManifestChecksums(int64_t manifest_id) = 0;
  // The same for many manifests at once (a listing page): (id, checksums)
  // of those that have any.
  virtual Result<std::vector<std::pair<int64_t, std::string>>> ListManifestChecksums(
      const std::vector<int64_t>& manifest_ids) = 0;
  virtual Result<std::optional<ChunkRow>> GetChunk(const Digest& hash) = 0;
  // An inline chunk's bytes; nullopt when the row keeps none (or is absent).
  virtual Result<std::optional<std::string>> ChunkData(const Digest& hash) = 0;
  // Keyset pages (ascending), for fsck and GC: at most `limit` rows after
  // the given key (none: from the start).
  virtual Result<std::vector<ManifestRow>> ListManifests(int64_t after_id, size_t limit) = 0;
  virtual Result<std::vector<ChunkRow>> ListChunks(const std::optional<Digest>& after,
                                                   size_t limit) = 0;
  // Chunks with refs = 0 orphaned at or before `before_ms`.
  virtual Result<std::vector<ChunkRow>> ListOrphanChunks(int64_t before_ms, size_t limit) = 0;
  // Pins: named references to manifests held by tools and tests (fixtures,
  // imports). Nodes, versions and upload sessions will be referencing
  // tables of their own, counted the same way.
  virtual Result<std::optional<int64_t>> GetPin(const std::string& name) = 0;
  // (name, manifest id) pairs with name > `after`, by name.
  virtual Result<std::vector<std::pair<std::string, int64_t>>> ListPins(const std::string& after,
                                                                        size_t limit) = 0;
  // Number of referencing rows per manifest (for fsck), keyed by id.
  virtual Result<std::vector<std::pair<int64_t, int64_t>>> CountManifestReferences() = 0;
  // Number of distinct manifests listing each chunk (for fsck).
  virtual Result<std::vector<std::pair<Digest, int64_t>>> CountChunkReferences() = 0;
};

class ContentWrites {
 public:
  virtual ~ContentWrites() = default;

  // New manifest with `refs` references and its chunk list, in one
  // statement per 32 chunks (on PostgreSQL each statement is a round trip
  // under the writer lock). AlreadyExists if the hash is known.
  virtual Result<int64_t> InsertManifest(const Digest& hash, uint64_t size,
                                         const std::vector<ManifestChunk>& chunks,
                                         int64_t refs) = 0;
  virtual Status SetManifestRefs(int64_t id, int64_t refs) = 0;
  // Replaces the manifest's verified client checksums (ManifestChecksums).
  virtual Status SetManifestChecksums(int64_t id, const std::string& checksums) = 0;
  // Removes the manifest and its chunk list.
  virtual Status DeleteManifest(int64_t id) = 0;
  virtual Status InsertChunk(const ChunkRow& row) = 0;
  // InsertChunk and SetChunkData in one statement: a new inline chunk.
  virtual Status InsertInlineChunk(const ChunkRow& row, const std::string& data) = 0;
  virtual Status SetChunkRefs(const Digest& hash, int64_t refs,
                              std::optional<int64_t> orphaned_at_ms) = 0;
  // Adds `row.refs` references to each chunk of `rows` (distinct hashes),
  // creating the rows that do not exist (size from `row`): the count
  // changes in the statement that finds the row, several rows a statement
  // (no read first: one round trip for many chunks on PostgreSQL).
  virtual Status AddChunkRefs(const std::vector<ChunkRow>& rows) = 0;
  // Drops `n` references in one statement; at zero the chunk is stamped
  // orphaned at `now_ms`. Internal (a count that is wrong) when it has no
  // row or fewer than `n`.
  virtual Status DropChunkRefs(const Digest& hash, int64_t n, int64_t now_ms) = 0;
  virtual Status DeleteChunk(const Digest& hash) = 0;
  // Keeps `data` (the chunk's bytes) in its row: the chunk becomes inline,
  // readable without the chunk store. NotFound without a row.
  virtual Status SetChunkData(const Digest& hash, const std::string& data) = 0;
  // AlreadyExists if `name` is pinned.
  virtual Status InsertPin(const std::string& name, int64_t manifest_id) = 0;
  virtual Status DeletePin(const std::string& name) = 0;
};

}  // namespace nubo::meta
