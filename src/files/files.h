// The files domain (ARCHITECTURE.md §4-§5): drives, folders and files as
// nodes, shared by every surface (REST, WebDAV, later the Nextcloud API),
// so one node behaves the same everywhere.
//
// Every operation names its caller (an auth::Principal) and asks
// authz::Check (auth/authz.h) for each node it reads or changes: a node the
// caller may not see answers NotFound with the same message as a node that
// does not exist. The domain owns every table it touches — nodes, content
// references, favorites, recent, WebDAV dead properties and locks — so no
// surface writes the metadata store behind its back. Every change runs in
// one metadata write transaction that also maintains reference counts,
// folder rollups (size, tree_seq → ETag), quotas and lock checks, so a
// change is either wholly visible or not at all.
//
// Thread-safe: operations may run concurrently (writes serialize in the
// metadata store); an Upload is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/authz.h"
#include "auth/principal.h"
#include "blob/chunk_store.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::files {

using auth::Principal;

class ZipEntries;
class Checksum;
class IngestUpload;
class UploadSessions;
class SessionAppendImpl;

// What to do when the target name is taken by a live sibling.
enum class Conflict {
  kFail,       // AlreadyExists (409)
  kRename,     // pick "name (1).ext", "name (2).ext", ...
  kOverwrite,  // uploads: replace the file's content (files onto files only)
  kReplace,    // move and copy: the sibling goes to the trash in the same
               // transaction (WebDAV Overwrite: T), so a failure keeps it
};
// "" → `fallback`; else "fail" | "rename" | "overwrite".
Result<Conflict> ParseConflict(std::string_view s, Conflict fallback = Conflict::kFail);

// What a write brings beyond its caller, checked inside its transaction:
//  - the WebDAV lock tokens it submitted (RFC 4918 §10.4 If header). REST
//    submits none, so what a WebDAV client locked answers 423 there too;
//  - the ETag the request's preconditions (RFC 9110 §13: If-Match,
//    If-None-Match, If-Unmodified-Since) were evaluated against before
//    dispatch: if the target changed since, the write fails with
//    PreconditionFailed instead of overwriting a version the client never
//    saw. Unset when the request had no precondition.
struct Conditions {
  std::vector<std::string> lock_tokens;
  std::optional<std::string> expect_etag;
};

struct FilesOptions {
  uint64_t max_upload = 0;  // bytes per file; 0: unlimited
  int64_t trash_retention_ms = 30LL * 24 * 3600 * 1000;
  size_t recent_keep = 100;  // recent entries kept per user
  // Uploads are refused (507) when the chunk store's file system would
  // keep less than this free (storage.min_free); 0: no floor.
  uint64_t min_free_bytes = 0;
  // Uploads in one request of at most this many bytes keep their content
  // in the metadata store (storage.inline_max; content/ingest.h InlineUpTo).
  uint64_t inline_max_bytes = 0;
  // Quota reservations of uploads in progress expire when not refreshed
  // for this long (a process that died holding one).
  int64_t reservation_ttl_ms = 10 * 60 * 1000;
  // WebDAV dead properties: at most this many value bytes per node.
  uint64_t max_props_bytes_per_node = 256 << 10;
  // Where large temporary state goes (a ZIP's central directory); empty:
  // the system's temp directory. The server uses its data directory's tmp/.
  std::string tmp_dir;
  // Users (not only administrators) may create shared drives.
  bool users_create_drives = false;
  // Versions may take at most this share of a drive's quota (per mille);
  // the oldest go first beyond it (files.versions_quota_share).
  int versions_quota_per_mille = 500;
  // Where received shares appear in their recipient's own tree
  // (sharing.share_folder): the folder's names below the personal root;
  // empty, or a folder that does not exist: the root itself.
  std::vector<std::string> share_folder;
  // Whether the background derive job can do anything for a file of this
  // name and type (media::DeriveWanted). The database queues one for every
  // new content (migration 0014's triggers); an upload drops it when not,
  // and a rename that makes a file wanted queues it. Unset: every job stays.
  std::function<bool(std::string_view name, std::string_view mime)> derive_wanted;
};

// The strong ETag of a node: files "\"<first 32 hex digits of the BLAKE3
// hash>\"", folders derived from
// the rollup counter, so it changes when anything below changes.
std::string NodeETag(const meta::NodeRow& n);
// The same, appended to `out` (listings write one per row).
void AppendNodeETag(std::string& out, const meta::NodeRow& n);
std::string HashHex(const meta::Digest& d);

// Gives every node without a listing key (rows written before natural
// order, or all rows after the ICU collation version changed) its
// files/names.h SortKey, in batches. Runs before the server serves; a
// no-op on an up-to-date database. Returns the number of keys written.
Result<int64_t> FillSortKeys(meta::MetaStore& meta);

struct ListOptions {
  // Rows without the caller's favorite flag and parent id (WebDAV shows
  // neither; a listing saves a lookup and a copy per row).
  bool bare = false;
  // Also read the page's WebDAV dead properties (Page::dead_props).
  bool dead_props = false;
  // With bare: still fill the caller's favorite flag (oc:favorite).
  bool favorites = false;
  // Also read the page's files' verified client checksums (Page::checksums).
  bool checksums = false;
  // Also read the kinds of shares on the page's nodes (Page::share_types).
  bool share_types = false;
  // Rows with meta::ListColumns::kBasic's fields and the folder's drive
  // only (no public id, creator, updater or child count): for a caller
  // that writes nothing else.
  bool basic_columns = false;
  // The rows of a page the caller is done with: the new page's rows are
  // written over them (their strings keep their storage). Left empty.
  std::vector<meta::NodeRow>* reuse = nullptr;
};

struct Page {
  std::vector<meta::NodeRow> items;
  std::string next_cursor;                     // empty: no more
  std::optional<meta::NodeRow> folder;         // List: the listed folder, read in the same snapshot
  std::vector<meta::NodeDeadProp> dead_props;  // ListOptions::dead_props: by node id
  // ListOptions::checksums: by manifest id, for the files that have any.
  std::unordered_map<int64_t, std::string> checksums;
  // ListOptions::share_types: by node id, for the nodes that have any
  // (ShareTypes).
  std::unordered_map<int64_t, std::vector<int>> share_types;
};

// A place in a folder's change order, for RFC 6578 sync-collection: the
// change number reached (a node's tree_seq, or a removal's own number) and,
// at a node's number, its id (0 after a removal: no node shares its number).
struct SyncPosition {
  int64_t seq = 0;
  int64_t id = 0;
};

// One step of a sync (Files::SyncChanges).
struct SyncBatch {
  Page page;  // items: live children changed, with what ListOptions asks
  std::vector<meta::TombstoneRow> removed;  // names that left the folder
  // The two lists merged in change order: true takes the next removal,
  // false the next item.
  std::vector<bool> order;
  bool more = false;    // the limit was reached: go on from the last position
  int64_t through = 0;  // the folder's change number the sync stops at (its token)
};

struct UploadRequest {
  std::string parent_id;  // public id of the folder
  std::string name;       // as sent (validated, stored as sent)
  Conflict conflict = Conflict::kFail;
  std::optional<std::string> if_match;  // with kOverwrite: the current ETag
  std::string checksum;                 // "<algo>:<hex>" or empty
  std::optional<uint64_t> expected_size;
  std::optional<int64_t> mtime_ms;
  Conditions cond;  // lock tokens (WebDAV PUT)
  // The whole (small) body is already received (http::Request::
  // body_in_hand): BeginUpload leaves every check to the commit, which
  // makes them all again anyway, and holds no quota reservation (the
  // commit's quota check is exact).
  bool body_in_hand = false;
};

struct UploadResult {
  meta::NodeRow node;
  bool created = false;  // false: overwrote an existing file
};

// One file's bytes on their way in: chunks are stored as they arrive; the
// node appears at Finish, in the transaction that references the content.
// Destroyed unfinished (or after a failed Finish), it deletes the chunks it
// stored that nothing references, at once.
class Upload {
 public:
  virtual ~Upload() = default;
  virtual Status Write(const char* data, size_t len) = 0;
  virtual Result<UploadResult> Finish() = 0;
  // The upload will not finish: releases what it holds now (on the caller's
  // thread, which may block) rather than in the destructor.
  virtual void Abort() {}
};

struct Usage {
  uint64_t used_bytes = 0;      // live file bytes + WebDAV property bytes + versions' charges
  uint64_t versions_bytes = 0;  // of which file versions
  std::optional<int64_t> quota_bytes;
};

struct DriveInfo {
  meta::DriveRow drive;
  std::string root_id;  // public id of the root folder
  Usage usage;
  std::string role;  // the caller's: "owner" (personal) or "viewer" | "editor" | "manager"
};

// A file's content, ready to stream.
struct FileContent {
  meta::NodeRow node;
  std::vector<meta::ManifestChunk> chunks;
  // OpenContent's `want_checksums`: the verified client checksums kept
  // with the content ("SHA1:<hex> MD5:<hex>"; empty: none).
  std::string checksums;
};

// Paths have at most this many segments: deeper ones are refused before
// any lookup (a lock check walks the ancestors of a path).
inline constexpr size_t kMaxDepth = 256;
// How long sync-collection remembers a name that left a folder (tokens
// older than that are refused and the client syncs from the start).
inline constexpr int64_t kTombstoneRetentionMs = int64_t{90} * 24 * 3600 * 1000;

// A path below a drive's root, resolved name by name (WebDAV addresses
// nodes by path).
// A received share as it appears in its recipient's own tree.
struct Mount {
  std::string name;       // in the recipient's folder (collisions numbered)
  int64_t parent_id = 0;  // that folder, a node of the recipient's personal drive
  meta::NodeRow node;     // the shared node (its name as the owner keeps it)
  bool placed = false;    // the recipient renamed or moved it
  bool hidden = false;    // the recipient removed it from its tree (AllMounts' with_hidden)
};

struct Resolved {
  int64_t drive_id = 0;
  std::optional<meta::NodeRow> node;    // the target, when it exists (live)
  std::optional<meta::NodeRow> parent;  // its parent, when that is a live folder
  std::string name;                     // the last segment as sent ("" for the root)
  std::string path_key;                 // "/" + case-folded names: how locks address URLs
  // Resolved from the root of the caller's personal drive: that drive.
  int64_t home_drive_id = 0;
  // The path crossed a received share's mount point (docs/sharing.md):
  // how many segments lead to it, the mount point included (the target
  // and `path_key` are then in the owner's drive). 0: none.
  size_t mount_depth = 0;
  bool at_mount = false;  // the target is the mount point itself
  // Asked for (Resolve's `mount_tags`) and the target is an own folder:
  // for each folder of the caller's personal drive with received shares
  // at or below it, a digest of those shares' ETags and names, which the
  // folder's WebDAV ETag carries so that a sync client polling the root
  // sees a change made inside a share (or a share appearing).
  std::unordered_map<int64_t, std::string> mount_tags;
  // The caller's received shares, when resolving needed them (so a
  // PROPFIND lists them without working them out again).
  std::optional<std::vector<Mount>> mounts;
};

// WebDAV PROPPATCH: one instruction, in document order.
struct PropOp {
  bool set = true;  // false: remove
  meta::DeadProp prop;
};

// WebDAV LOCK (RFC 4918 §9.10).
struct LockRequest {
  bool exclusive = true;
  bool depth_infinity = true;
  std::string owner_xml;
  int64_t timeout_s = 3600;
  std::string root_href;  // the URL as locked (lockroot)
};

struct LockResult {
  meta::DavLockRow lock;
  bool created = false;  // the URL was unmapped: an empty file was created (§9.10.4)
  // Set when a conflicting lock refused the request (nothing was created):
  // that lock's root, for 423 no-conflicting-lock.
  std::optional<std::string> conflict_href;
};

class Files {
 public:
  Files(meta::MetaStore& meta, blob::ChunkStore& chunks, FilesOptions options);
  ~Files();

  blob::ChunkStore& chunks() { return chunks_; }
  const FilesOptions& options() const { return options_; }

  // The caller's personal drive, its root's public id and its usage.
  Result<DriveInfo> PersonalDrive(const Principal& who);
  Result<Usage> GetUsage(const Principal& who);
  // The caller's permissions (authz::Checker's answer) on a node it
  // resolved, or on the whole drive (drive_id; what an owner or a drive
  // member holds on every node of it).
  Result<authz::Perms> PermsOn(const Principal& who, const meta::NodeRow& node);
  Result<authz::Perms> PermsOnDrive(const Principal& who, int64_t drive_id);
  // The caller's personal drive, then the shared drives it is a member of
  // (directly or through groups), by name.
  Result<std::vector<DriveInfo>> Drives(const Principal& who);

  // ---- Shared drives (team spaces) ----
  // Administrators (or, with users_create_drives, anyone) create them; the
  // creator becomes a manager. Only administrators set quotas.
  Result<DriveInfo> CreateDrive(const Principal& who, std::string_view name,
                                std::optional<int64_t> quota_bytes);
  // Renaming needs manage on the drive; a quota (inner nullopt: none) needs
  // an administrator.
  Result<DriveInfo> UpdateDrive(const Principal& who, std::string_view id,
                                std::optional<std::string> name,
                                std::optional<std::optional<int64_t>> quota_bytes);
  // Deletes a shared drive and everything in it for good (its managers or
  // an administrator).
  Status DeleteDrive(const Principal& who, std::string_view id);

  // A live node (or, with `trashed_too`, a trashed one) the caller may see.
  Result<meta::NodeRow> Get(const Principal& who, std::string_view id, bool trashed_too = false);
  // A live node by its numeric id (oc:fileid), as Get.
  Result<meta::NodeRow> GetByFileId(const Principal& who, int64_t id);
  // Ancestors of `n` from the drive root down to its parent (those the
  // caller may read: with shares, from the shared node down).
  Result<std::vector<meta::NodeRow>> Path(const Principal& who, const meta::NodeRow& n);
  // Path() of each of `nodes`, in one read that walks up once per parent.
  Result<std::vector<std::vector<meta::NodeRow>>> Paths(const Principal& who,
                                                        const std::vector<meta::NodeRow>& nodes);
  // One keyset page of a folder's live children, folders first. `cursor`
  // is the previous page's next_cursor (InvalidArgument if malformed or
  // from another order).
  Result<Page> List(const Principal& who, std::string_view folder_id, meta::NodeSort sort,
                    bool descending, std::string_view cursor, size_t limit,
                    ListOptions options = {});

  // RFC 6578 sync-collection on folder `folder_id` (the caller must list
  // it): its live children changed after `after` and, unless `initial`,
  // the names that left it, at most `limit` in all, up to change `through`
  // (nullopt: the folder's current number, returned in SyncBatch::through).
  // A position newer than the folder, or older than the drive's pruned
  // removals, is InvalidArgument (valid-sync-token).
  Result<SyncBatch> SyncChanges(const Principal& who, std::string_view folder_id,
                                SyncPosition after, bool initial, std::optional<int64_t> through,
                                size_t limit, ListOptions options = {});

  Result<meta::NodeRow> CreateFolder(const Principal& who, std::string_view parent_id,
                                     std::string_view name, Conflict conflict,
                                     const Conditions& cond = {});
  // Creates (or reuses) each folder of a "/"-separated relative path below
  // `parent_id`; returns the last folder's public id.
  Result<std::string> EnsureFolders(const Principal& who, std::string_view parent_id,
                                    std::string_view rel_path);

  // Checks what can be checked before any byte arrives (parent, name,
  // conflict, precondition, locks, size limit, free space, quota — the
  // expected size is reserved against the quota, or the reservation grows
  // as bytes arrive and the upload stops at the quota), then returns the
  // sink for the bytes.
  Result<std::unique_ptr<Upload>> BeginUpload(const Principal& who, UploadRequest req);
  // Creates a file from content the caller already owns (any of their
  // files, live or trashed, with this BLAKE3 hash). NotFound otherwise.
  Result<UploadResult> InstantUpload(const Principal& who, const UploadRequest& req,
                                     const meta::Digest& hash);

  Result<FileContent> OpenContent(const Principal& who, std::string_view id,
                                  bool want_checksums = false);
  // The verified client checksums kept with a manifest (FileContent::
  // checksums). No authorization: for a node the caller was allowed to
  // read (a PROPFIND's).
  Result<std::string> ContentChecksums(int64_t manifest_id);
  // The kinds of unexpired shares on `node` (Nextcloud's oc:share-types:
  // 0 a user, 1 a group, 3 a link): every share when the caller owns the
  // node's drive, else those the caller made. For a node the caller was
  // allowed to read.
  Result<std::vector<int>> ShareTypes(const Principal& who, const meta::NodeRow& node);
  // The name and display name of the account owning a personal drive
  // (empty for a shared drive): oc:owner-id of what others see.
  Result<std::pair<std::string, std::string>> DriveOwner(int64_t drive_id);

  // Rename and/or move. Conflict kOverwrite is not allowed here.
  Result<meta::NodeRow> Update(const Principal& who, std::string_view id,
                               std::optional<std::string> name,
                               std::optional<std::string> parent_id, Conflict conflict,
                               const Conditions& cond = {});
  // Zero-copy (manifest references), recursive for folders unless
  // `shallow` (a folder copied without its members: WebDAV Depth 0).
  // Dead properties are copied with their nodes.
  Result<meta::NodeRow> Copy(const Principal& who, std::string_view id, std::string_view parent_id,
                             std::optional<std::string> name, Conflict conflict,
                             bool shallow = false, const Conditions& cond = {});

  // Resolves `segments` (decoded, below the root of the caller's personal
  // drive, of the shared drive `drive_id` when given, or of a public link's
  // node for a link's bearer). InvalidArgument when a segment is not a
  // valid name or there are more than kMaxDepth.
  // `share_root`: the public id of a node shared with the caller, whose
  // tree the segments then name (WebDAV /dav-shares/<id>/).
  // `mount_tags`: when the target is a folder of the caller's own tree,
  // fill Resolved::mount_tags in the same read (a PROPFIND's ETags).
  Result<Resolved> Resolve(const Principal& who, const std::vector<std::string>& segments,
                           std::string_view drive_id = "", std::string_view share_root = "",
                           bool mount_tags = false);
  // The received shares as they appear in the caller's own tree, by
  // (folder, name). See docs/sharing.md for where they appear and how
  // colliding names are numbered.
  Result<std::vector<Mount>> Mounts(const Principal& who);
  // The path of each received share in the caller's own tree ("/Shared/
  // Docs (2)"), by shared node id.
  Result<std::unordered_map<int64_t, std::string>> MountPaths(const Principal& who);
  // Renames or moves the mount point of the received share `node_id` to
  // `name` in `parent` (a folder of the caller's personal drive). The
  // owner's tree is untouched. AlreadyExists when the name is taken there;
  // Locked when a lock on the folder it leaves or joins wants a token not
  // in `lock_tokens`.
  Status PlaceMount(const Principal& who, int64_t node_id, const meta::NodeRow& parent,
                    const std::string& name, const std::vector<std::string>& lock_tokens);
  // Removes the received share `node_id` (public id) from the caller's
  // tree, or shows it again (`hidden` false) where and as it was; the
  // grant is untouched. NotFound unless it is shared with the caller;
  // Locked as PlaceMount for the folder it leaves.
  Status HideMount(const Principal& who, std::string_view node_id, bool hidden,
                   const std::vector<std::string>& lock_tokens = {});
  Status Trash(const Principal& who, std::string_view id, const Conditions& cond = {});
  // Restores a trashed node to its parent, or to the drive root when that
  // parent is itself in the trash; a taken name gets " (n)".
  Result<meta::NodeRow> Restore(const Principal& who, std::string_view id,
                                const Conditions& cond = {});
  // Deletes a node (live or trashed) and its subtree for good.
  Status DeletePermanently(const Principal& who, std::string_view id, const Conditions& cond = {});
  // The trash of the caller's personal drive, or of the shared drive
  // `drive_id` (needs delete on it).
  Result<Page> ListTrash(const Principal& who, std::string_view cursor, size_t limit,
                         std::string_view drive_id = "");
  Result<int64_t> EmptyTrash(const Principal& who, std::string_view drive_id = "");
  // Maintenance: deletes trash older than the retention period, trims
  // every drive's trash to its budget (see Trash), drops expired quota
  // reservations. Returns nodes removed.
  Result<int64_t> PurgeExpiredTrash(int64_t now_ms);

  // ---- File versions (files/versions.cc) ----
  // Every overwrite keeps the previous content as a version (see
  // files/versions.h for what is kept and what it costs). Versions need an
  // account: a public link's bearer sees none.
  // The versions of file `id`, newest first (read on the file).
  Result<std::vector<meta::VersionRow>> ListVersions(const Principal& who, std::string_view id);
  // A version's content, as the file at that version (node size, hash and
  // mtime are the version's).
  Result<FileContent> OpenVersion(const Principal& who, std::string_view id,
                                  std::string_view version_id);
  // Makes the version the file's content again; the current content
  // becomes a version (modify on the file).
  Result<meta::NodeRow> RestoreVersion(const Principal& who, std::string_view id,
                                       std::string_view version_id, const Conditions& cond = {});
  Status DeleteVersion(const Principal& who, std::string_view id, std::string_view version_id);
  // Maintenance: thins every file's versions to the retention schedule
  // and trims each quota drive's versions to their share. Returns versions
  // deleted.
  Result<int64_t> ThinVersions(int64_t now_ms);

  Status SetFavorite(const Principal& who, std::string_view id, bool favorite);
  Result<Page> ListFavorites(const Principal& who, std::string_view cursor, size_t limit);
  // Notes that the user used a node (upload, download, rename); written in
  // batches by FlushRecent so a download costs no write transaction.
  void NoteRecent(int64_t user, int64_t node_id);
  Status FlushRecent();
  Result<Page> ListRecent(const Principal& who, size_t limit);

  Result<Page> Search(const Principal& who, meta::SearchFilter filter, std::string_view query,
                      std::string_view cursor, size_t limit);

  // Full-text search over the extracted text of every live file the caller
  // may read, best match first, each with its highlighted excerpt (matched
  // runs between \x02 and \x03). The caller's drives restrict the index
  // query itself; a page may hold fewer than `limit` items (rows of
  // drives reached through a grant outside it), next_cursor says whether
  // more follow.
  struct TextResult {
    meta::NodeRow node;
    std::string snippet;
  };
  struct TextPage {
    std::vector<TextResult> items;
    std::string next_cursor;
  };
  Result<TextPage> SearchContent(const Principal& who, std::string_view query,
                                 std::string_view cursor, size_t limit);

  // Photos: the images of the caller's personal drive and the shared drives
  // it is a member of, newest first (by the camera's clock), keyset-paged;
  // the count per month; and the places (cells of `cell_deg` degrees) with
  // one photo each to show.
  struct PhotoItem {
    meta::PhotoRow photo;
    meta::NodeRow node;
  };
  struct PhotoPage {
    std::vector<PhotoItem> items;
    std::string next_cursor;
  };
  Result<PhotoPage> Photos(const Principal& who, std::string_view cursor, size_t limit);
  Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(const Principal& who);
  struct PhotoPlace {
    double lat = 0, lon = 0;
    int64_t count = 0;
    meta::NodeRow cover;
  };
  Result<std::vector<PhotoPlace>> PhotoPlaces(const Principal& who, double cell_deg);

  // The music library of the same drives (files/music.cc): artists, albums
  // (of one artist), tracks (of an artist and/or album), each keyset-paged in
  // key order; and the caller's playlists, ordered lists of files it may
  // read (items it can no longer read are left out when a list is read).
  struct ArtistPage {
    std::vector<meta::ArtistRow> items;
    std::string next_cursor;
  };
  struct AlbumItem {
    meta::AlbumRow album;
    meta::NodeRow first;  // the first track's node
    // A picture file named like a cover (cover.jpg, folder.png, …) in the
    // first track's folder, readable by the caller.
    std::optional<meta::NodeRow> cover;
  };
  struct AlbumPage {
    std::vector<AlbumItem> items;
    std::string next_cursor;
  };
  struct TrackItem {
    meta::TrackRow track;
    meta::NodeRow node;
  };
  struct TrackPage {
    std::vector<TrackItem> items;
    std::string next_cursor;
  };
  Result<ArtistPage> Artists(const Principal& who, std::string_view cursor, size_t limit);
  Result<AlbumPage> Albums(const Principal& who, std::optional<std::string> artist_key,
                           std::string_view cursor, size_t limit);
  Result<TrackPage> Tracks(const Principal& who, std::optional<std::string> artist_key,
                           std::optional<std::string> album_key, std::string_view cursor,
                           size_t limit);
  struct Playlist {
    meta::PlaylistRow row;
    std::vector<TrackItem> items;  // track rows empty for files without tags
  };
  Result<std::vector<meta::PlaylistRow>> Playlists(const Principal& who);
  Result<meta::PlaylistRow> CreatePlaylist(const Principal& who, std::string_view name);
  Result<Playlist> GetPlaylist(const Principal& who, std::string_view id);
  Result<meta::PlaylistRow> RenamePlaylist(const Principal& who, std::string_view id,
                                           std::string_view name);
  Status DeletePlaylist(const Principal& who, std::string_view id);
  // Replaces the items (node ids, in order); each must be a file the caller
  // may read. At most 10,000.
  Result<Playlist> SetPlaylistItems(const Principal& who, std::string_view id,
                                    const std::vector<std::string>& node_ids);
  // M3U8 (RFC 8216's media playlist syntax as players read it): paths
  // relative to the caller's own root. Import resolves them there; lines
  // that name nothing readable are counted, not fatal.
  Result<std::string> ExportPlaylist(const Principal& who, std::string_view id);
  struct Imported {
    Playlist playlist;
    int64_t missing = 0;
  };
  Result<Imported> ImportPlaylist(const Principal& who, std::string_view name,
                                  std::string_view m3u8);

  // Streams the subtree of each node (folders recursively, live nodes only)
  // as ZIP entries; names relative to the nodes' parent.
  Result<std::unique_ptr<ZipEntries>> ZipNodes(const Principal& who,
                                               const std::vector<std::string>& ids);

  // ---- WebDAV state (RFC 4918): dead properties and locks ----

  // The dead properties of `node` (a node this caller resolved).
  Result<std::vector<meta::DeadProp>> DeadProps(const Principal& who, const meta::NodeRow& node);
  // The dead properties of those of `node_ids` that are shares the
  // caller's tree shows now (Mounts'), by node id, in one transaction: a
  // listing of a folder holding a thousand of them reads them at once.
  Result<std::unordered_map<int64_t, std::vector<meta::DeadProp>>> MountDeadProps(
      const Principal& who, const std::vector<int64_t>& node_ids);
  // Applies `ops` all or nothing (§9.2), counting property bytes against
  // the quota.
  Status PatchDeadProps(const Principal& who, const meta::NodeRow& node,
                        const std::vector<PropOp>& ops, const Conditions& cond);
  // Unexpired locks of the drive whose path is one of `paths` or lies below
  // `below` (when not empty), for lockdiscovery and the If header. The
  // caller must read the whole drive, or read `via` (a node of that drive
  // it reached through a grant): then only its own locks are answered.
  Result<std::vector<meta::DavLockRow>> FindLocks(const Principal& who, int64_t drive_id,
                                                  const std::vector<std::string>& paths,
                                                  const std::string& below,
                                                  const meta::NodeRow* via = nullptr);
  // The unexpired locks covering `path_key` (its own and Depth-infinity
  // ones above it), nearest first; `via` as for FindLocks.
  Result<std::vector<meta::DavLockRow>> CoveringLocks(const Principal& who, int64_t drive_id,
                                                      const std::string& path_key,
                                                      const meta::NodeRow* via = nullptr);
  // Creates a lock on `target` after checking conflicts in the same
  // transaction (§6.2: shared locks coexist with shared locks only; a
  // Depth-infinity request conflicts with locks below). An unmapped target
  // becomes an empty file. A conflict is not an error: the result names
  // the conflicting lock's root and nothing changed.
  Result<LockResult> Lock(const Principal& who, const Resolved& target, const LockRequest& req,
                          const Conditions& cond);
  // §9.10.2: refreshes the first lock covering `target` whose token was
  // submitted. PermissionDenied for another user's lock; NotFound when no
  // submitted token names a lock covering the target.
  Result<meta::DavLockRow> RefreshLock(const Principal& who, const Resolved& target,
                                       const std::vector<std::string>& tokens, int64_t timeout_s);
  // §9.11: removes lock `token` if it covers `target`. PermissionDenied for
  // another user's lock; NotFound when it does not cover the target.
  Status Unlock(const Principal& who, const Resolved& target, const std::string& token);

 private:
  friend class IngestUpload;
  friend class UploadSessions;
  friend class SessionAppendImpl;
  class UploadSessions;
  class SessionAppendImpl;
  meta::MetaStore& meta() { return meta_; }
  // Attaches a referenced manifest as a file inside an upload's commit
  // transaction (kCreate on the parent, or kModify on the file it replaces).
  // `reservation`: the upload's quota reservation, which the file replaces.
  Result<UploadResult> AttachFile(meta::WriteTxn& txn, const Principal& who,
                                  const UploadRequest& req, int64_t manifest_id, uint64_t size,
                                  const std::string& mime, int64_t reservation = 0);
  // Inside an overwrite's transaction: keeps `current` (a file whose content
  // is being replaced by manifest `next`) as a version, holding its
  // manifest reference, when the quota can hold its charge beside `extra`
  // more bytes (older versions of the drive give way first). Returns false
  // when no version was kept: the caller releases the reference.
  Result<bool> KeepVersion(meta::WriteTxn& t, const meta::NodeRow& current, int64_t next,
                           int64_t extra, int64_t reservation);
  // Runs `fn` for every drive with a quota, one write transaction each
  // (maintenance: trash and versions within their budgets).
  Status ForEachQuotaDrive(const std::function<Status(meta::WriteTxn&, int64_t)>& fn);
  // Free space check against options_.min_free_bytes for `extra` more bytes.
  Status CheckFreeSpace(uint64_t extra);
  // Quota reservations (upload in progress): sets the reservation's bytes
  // (id 0: a new reservation) and renews its expiry; with `check`, refuses
  // when the quota cannot hold them beside the usage and every other live
  // reservation. Returns the reservation's id.
  // What an upload to `req` needs to know before its bytes arrive, checked
  // as its commit will check it again: the parent folder and the right to
  // create in it, the name, the file it replaces (modify, If-Match,
  // preconditions, locks).
  struct UploadTarget {
    int64_t drive_id = 0;
    int64_t credit = 0;  // bytes of the file the upload replaces
    bool quota = false;  // the drive has a quota
  };
  Result<UploadTarget> CheckUploadTarget(const Principal& who, const UploadRequest& req);
  // `expires_at_ms` 0: now + reservation_ttl_ms.
  // `ending`: bytes of other reservations on the drive that end when this
  // one's upload commits, which the check does not count twice.
  Result<int64_t> Reserve(int64_t drive_id, int64_t reservation_id, int64_t bytes,
                          bool check = true, int64_t expires_at_ms = 0, int64_t ending = 0);
  // The personal drive, or the shared drive `drive_id` if the caller may
  // do `action` on it as a whole (hidden: NotFound "no such drive").
  Result<meta::DriveRow> DriveFor(meta::ReadTxn& t, const Principal& who, std::string_view drive_id,
                                  int action);
  void Unreserve(int64_t reservation_id);
  // Every drive whose nodes the caller may find: its personal drive (first),
  // the shared drives it is a member of, and the drives holding what was
  // shared with it (where only what a grant reaches is the caller's).
  Result<std::vector<int64_t>> SearchDrives(meta::ReadTxn& t, const Principal& who,
                                            authz::Checker& check, bool with_shared = true);
  // Every received share of the caller as it appears in its own tree
  // (`home`: the caller's personal drive), by (parent, name); with
  // `with_hidden`, then those the caller removed from it (Mount::hidden).
  Result<std::vector<Mount>> AllMounts(meta::ReadTxn& t, authz::Checker& check,
                                       const Principal& who, const meta::DriveRow& home,
                                       bool with_hidden = false);
  // Resolved::mount_tags for `all` (AllMounts').
  Result<std::unordered_map<int64_t, std::string>> TagsOf(meta::ReadTxn& t,
                                                          const std::vector<Mount>& all);

  meta::MetaStore& meta_;
  blob::ChunkStore& chunks_;
  FilesOptions options_;
  std::mutex recent_mu_;
  std::vector<std::pair<int64_t, int64_t>> recent_;  // (user, node) pending
};

}  // namespace nubo::files
