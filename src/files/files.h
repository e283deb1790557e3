// The files domain (ARCHITECTURE.md §4-§5): drives, folders and files as
// nodes, shared by every surface (REST now, WebDAV and the Nextcloud API
// next), so one node behaves the same everywhere.
//
// Every operation names its caller (a user id) and resolves node ids
// through Access() — the one authorization point: a node the caller may not
// see answers NotFound with the same message as a node that does not exist.
// Every change runs in one metadata write transaction that also maintains
// reference counts, folder rollups (size, tree_seq → ETag) and quotas, so a
// change is either wholly visible or not at all.
//
// Thread-safe: operations may run concurrently (writes serialize in the
// metadata store); an Upload is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blob/chunk_store.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::files {

class ZipEntries;
class Checksum;

// What to do when the target name is taken by a live sibling.
enum class Conflict {
  kFail,       // AlreadyExists (409)
  kRename,     // pick "name (1).ext", "name (2).ext", ...
  kOverwrite,  // replace the file's content (files onto files only)
};
// "" → `fallback`; else "fail" | "rename" | "overwrite".
Result<Conflict> ParseConflict(std::string_view s, Conflict fallback = Conflict::kFail);

struct FilesOptions {
  uint64_t max_upload = 0;  // bytes per file; 0: unlimited
  int64_t trash_retention_ms = 30LL * 24 * 3600 * 1000;
  size_t recent_keep = 100;  // recent entries kept per user
};

// The strong ETag of a node: files "\"<first 32 hex digits of the BLAKE3
// hash>\"", folders derived from
// the rollup counter, so it changes when anything below changes.
std::string NodeETag(const meta::NodeRow& n);
// The same, appended to `out` (listings write one per row).
void AppendNodeETag(std::string& out, const meta::NodeRow& n);
std::string HashHex(const meta::Digest& d);

struct Page {
  std::vector<meta::NodeRow> items;
  std::string next_cursor;              // empty: no more
  std::optional<meta::NodeRow> folder;  // List: the listed folder, read in the same snapshot
};

struct UploadRequest {
  std::string parent_id;  // public id of the folder
  std::string name;       // as sent; normalized here
  Conflict conflict = Conflict::kFail;
  std::optional<std::string> if_match;  // with kOverwrite: the current ETag
  std::string checksum;                 // "<algo>:<hex>" or empty
  std::optional<uint64_t> expected_size;
  std::optional<int64_t> mtime_ms;
};

struct UploadResult {
  meta::NodeRow node;
  bool created = false;  // false: overwrote an existing file
};

class Files;

// One file's bytes on their way in: chunks are stored as they arrive; the
// node appears at Finish, in the transaction that references the content.
class Upload {
 public:
  virtual ~Upload() = default;
  virtual Status Write(const char* data, size_t len) = 0;
  virtual Result<UploadResult> Finish() = 0;
};

struct Usage {
  uint64_t used_bytes = 0;
  std::optional<int64_t> quota_bytes;
};

// A file's content, ready to stream.
struct FileContent {
  meta::NodeRow node;
  std::vector<meta::ManifestChunk> chunks;
};

// A path below a drive's root, resolved name by name (WebDAV addresses
// nodes by path).
struct Resolved {
  int64_t drive_id = 0;
  std::optional<meta::NodeRow> node;    // the target, when it exists (live)
  std::optional<meta::NodeRow> parent;  // its parent, when that is a live folder
  std::string name;                     // the last segment, NFC ("" for the root)
  std::string path_key;                 // "/" + case-folded names: how locks address URLs
};

class Files {
 public:
  Files(meta::MetaStore& meta, blob::ChunkStore& chunks, FilesOptions options);
  ~Files();

  meta::MetaStore& meta() { return meta_; }
  blob::ChunkStore& chunks() { return chunks_; }
  const FilesOptions& options() const { return options_; }

  Result<meta::DriveRow> PersonalDrive(int64_t user);
  Result<Usage> GetUsage(int64_t user);

  // A live node the caller may see.
  Result<meta::NodeRow> Get(int64_t user, std::string_view id);
  // Ancestors of `n` from the drive root down to its parent.
  Result<std::vector<meta::NodeRow>> Path(int64_t user, const meta::NodeRow& n);
  // One keyset page of a folder's live children, folders first. `cursor`
  // is the previous page's next_cursor (InvalidArgument if malformed or
  // from another order). `bare`: rows without the caller's favorite flag
  // and parent id (WebDAV shows neither; a listing saves a lookup and a
  // copy per row).
  Result<Page> List(int64_t user, std::string_view folder_id, meta::NodeSort sort, bool descending,
                    std::string_view cursor, size_t limit, bool bare = false);

  Result<meta::NodeRow> CreateFolder(int64_t user, std::string_view parent_id,
                                     std::string_view name, Conflict conflict);
  // Creates (or reuses) each folder of a "/"-separated relative path below
  // `parent_id`; returns the last folder's public id.
  Result<std::string> EnsureFolders(int64_t user, std::string_view parent_id,
                                    std::string_view rel_path);

  // Checks what can be checked before any byte arrives (parent, name,
  // conflict, precondition, size limit, quota by expected size), then
  // returns the sink for the bytes.
  Result<std::unique_ptr<Upload>> BeginUpload(int64_t user, UploadRequest req);
  // Creates a file from content the caller already owns (any of their
  // files, live or trashed, with this BLAKE3 hash). NotFound otherwise.
  Result<UploadResult> InstantUpload(int64_t user, const UploadRequest& req,
                                     const meta::Digest& hash);

  Result<FileContent> OpenContent(int64_t user, std::string_view id);

  // Rename and/or move. Conflict kOverwrite is not allowed here.
  Result<meta::NodeRow> Update(int64_t user, std::string_view id, std::optional<std::string> name,
                               std::optional<std::string> parent_id, Conflict conflict);
  // Zero-copy (manifest references), recursive for folders unless
  // `shallow` (a folder copied without its members: WebDAV Depth 0).
  // Dead properties are copied with their nodes.
  Result<meta::NodeRow> Copy(int64_t user, std::string_view id, std::string_view parent_id,
                             std::optional<std::string> name, Conflict conflict,
                             bool shallow = false);

  // Resolves `segments` (decoded, below the caller's personal drive root).
  // InvalidArgument when a segment is not a valid name.
  Result<Resolved> Resolve(int64_t user, const std::vector<std::string>& segments);
  Status Trash(int64_t user, std::string_view id);
  // Restores a trashed node to its parent, or to the drive root when that
  // parent is itself in the trash; a taken name gets " (n)".
  Result<meta::NodeRow> Restore(int64_t user, std::string_view id);
  // Deletes a node (live or trashed) and its subtree for good.
  Status DeletePermanently(int64_t user, std::string_view id);
  Result<Page> ListTrash(int64_t user, std::string_view cursor, size_t limit);
  Result<int64_t> EmptyTrash(int64_t user);
  // Deletes trash older than the retention period; returns nodes removed.
  Result<int64_t> PurgeExpiredTrash(int64_t now_ms);

  Status SetFavorite(int64_t user, std::string_view id, bool favorite);
  Result<Page> ListFavorites(int64_t user, std::string_view cursor, size_t limit);
  // Notes that the user used a node (upload, download, rename); written in
  // batches by FlushRecent so a download costs no write transaction.
  void NoteRecent(int64_t user, int64_t node_id);
  Status FlushRecent();
  Result<Page> ListRecent(int64_t user, size_t limit);

  Result<Page> Search(int64_t user, meta::SearchFilter filter, std::string_view query,
                      std::string_view cursor, size_t limit);

  // Streams the subtree of each node (folders recursively, live nodes only)
  // as ZIP entries; names relative to the nodes' parent.
  Result<std::unique_ptr<ZipEntries>> ZipNodes(int64_t user, const std::vector<std::string>& ids);

  // Internal, for Upload implementations: attaches a referenced manifest as
  // a file inside the caller's write transaction.
  Result<UploadResult> AttachFile(meta::WriteTxn& txn, int64_t user, const UploadRequest& req,
                                  int64_t manifest_id, uint64_t size, const std::string& mime);

 private:
  meta::MetaStore& meta_;
  blob::ChunkStore& chunks_;
  FilesOptions options_;
  std::mutex recent_mu_;
  std::vector<std::pair<int64_t, int64_t>> recent_;  // (user, node) pending
};

}  // namespace nubo::files
