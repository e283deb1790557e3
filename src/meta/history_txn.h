// A file's history and its uploads in progress: versions and upload
// sessions.
//
// One capability of the MetaStore (meta_store.h): HistoryReads are part of every
// transaction, HistoryWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "meta/content_txn.h"
#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

// A file's earlier content, kept when it was overwritten (files/versions.cc).
// The version holds one reference on its manifest.
struct VersionRow {
  int64_t id = 0;
  std::string public_id;
  int64_t node_id = 0;
  int64_t drive_id = 0;  // the node's (read only)
  int64_t manifest_id = 0;
  Digest hash{};  // the manifest's (read only)
  uint64_t size = 0;
  // Bytes counted against the quota: those of the content's chunks that the
  // content which replaced it does not share (a one-byte edit of a large
  // file costs about one chunk).
  int64_t charged = 0;
  int64_t mtime_ms = 0;           // the content's modification time
  int64_t created_at_ms = 0;      // when it stopped being current
  std::optional<int64_t> author;  // who wrote that content
  std::string author_name;        // (read only)
};

// An upload in progress (files/upload_sessions.cc): what it will create,
// and the bytes received so far as chunks it holds references on — the
// complete chunks in upload_session_chunks, the bytes after the last
// content-defined boundary as one more chunk (the tail), so that a resumed
// upload cuts exactly where one uninterrupted stream would.
struct UploadSessionRow {
  int64_t id = 0;
  std::string public_id;  // 128 random bits, hex: the capability in URLs
  int64_t user_id = 0;
  int64_t drive_id = 0;
  std::string parent_public_id;  // the folder the file goes to
  std::string name;
  int conflict = 0;  // files::Conflict (PERSISTED: 0 fail, 1 rename, 2 overwrite)
  std::optional<std::string> if_match;
  std::optional<int64_t> length;  // declared; nullopt: not yet known
  int64_t offset = 0;             // bytes received and durable
  std::optional<int64_t> mtime_ms;
  std::string metadata;  // tus Upload-Metadata as sent
  int kind = 0;          // PERSISTED: 0 a file, 1 a tus partial upload, 2 a delta upload
  std::string hasher;    // serialized BLAKE3 state of bytes [0, offset)
  std::optional<Digest> tail_hash;
  int64_t tail_size = 0;
  int64_t reservation_id = 0;  // its quota reservation (0: none)
  std::string checksum;        // "<algo>:<hex>" the whole content must match, or empty
  std::string plan;            // delta (kind 2): the declared chunks, 36 bytes each
  int64_t received_bytes = 0;  // body bytes that arrived over the wire
  std::string result_node;     // completed: the public id of the file it made
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
};

class HistoryReads {
 public:
  virtual ~HistoryReads() = default;

  // The versions of a node, newest first.
  virtual Result<std::vector<VersionRow>> ListVersions(int64_t node_id) = 0;
  virtual Result<std::optional<VersionRow>> GetVersionByPublicId(const std::string& public_id) = 0;
  // Nodes that have versions, id > `after_id`, by id (retention passes).
  virtual Result<std::vector<int64_t>> ListVersionedNodes(int64_t after_id, size_t limit) = 0;
  // The drive's oldest versions first (its versions' share of the quota).
  virtual Result<std::vector<VersionRow>> ListOldestVersions(int64_t drive_id, size_t limit) = 0;
  // Drives whose versions_bytes differs from the sum of their versions'
  // charges, as (public id, stored, recomputed) (fsck).
  virtual Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> VersionsBytesMismatches(
      size_t limit) = 0;
  virtual Result<std::optional<UploadSessionRow>> GetUploadSession(
      const std::string& public_id) = 0;
  // The complete chunks received, in order.
  virtual Result<std::vector<ManifestChunk>> UploadSessionChunks(int64_t session_id) = 0;
  // Whether a file (or a version of one) in one of `drive_ids`, or the
  // manifest `also_manifest` (0: none), lists chunk `hash`.
  virtual Result<bool> ChunkListedIn(const Digest& hash, const std::vector<int64_t>& drive_ids,
                                     int64_t also_manifest) = 0;
  // Sessions expired at `now_ms` (all of them for drive_id != 0: the
  // drive's), at most `limit`.
  virtual Result<std::vector<UploadSessionRow>> ListExpiredUploadSessions(int64_t now_ms,
                                                                          size_t limit) = 0;
  virtual Result<std::vector<UploadSessionRow>> ListDriveUploadSessions(int64_t drive_id,
                                                                        size_t limit) = 0;
};

class HistoryWrites {
 public:
  virtual ~HistoryWrites() = default;

  // File versions; the drive's versions_bytes follows (by `charged`). The
  // caller takes and releases the manifest references (content/refs.h).
  virtual Status InsertVersion(VersionRow& row) = 0;  // sets id
  virtual Status DeleteVersion(const VersionRow& row) = 0;
  // Upload sessions. Chunk references are the caller's (content/refs.h).
  virtual Status InsertUploadSession(UploadSessionRow& row) = 0;  // sets id
  virtual Status UpdateUploadSession(const UploadSessionRow& row) = 0;
  virtual Status DeleteUploadSession(int64_t id) = 0;  // and its chunk rows
  virtual Status ClearUploadSessionChunks(int64_t session_id) = 0;
  // Appends complete chunks (seq continues the session's list).
  virtual Status AppendUploadSessionChunks(int64_t session_id,
                                           const std::vector<ManifestChunk>& chunks) = 0;
};

}  // namespace nubo::meta
