// Drives and their trees of nodes: lookups, keyset listings, sync changes
// and tombstones, trash, favourites and recent items, quota reservations
// and the fsck checks of the rollups nodes keep.
//
// One capability of the MetaStore (meta_store.h): NodeReads are part of every
// transaction, NodeWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

// A name that left a folder (trashed, deleted, renamed or moved away), for
// RFC 6578 sync-collection: reported as removed to a token older than seq.
struct TombstoneRow {
  int64_t seq = 0;
  std::string name;
  bool folder = false;
};

struct DriveRow {
  int64_t id = 0;
  std::string public_id;
  std::string kind;  // "personal" | "shared"
  std::string name;
  std::optional<int64_t> owner_id;
  int64_t root_id = 0;
  int64_t change_seq = 0;
  int64_t created_at_ms = 0;
  int64_t props_bytes = 0;             // bytes of the WebDAV dead properties of its nodes
  int64_t versions_bytes = 0;          // bytes its file versions are charged (VersionRow::charged)
  std::optional<int64_t> quota_bytes;  // shared drives: their own quota
};

// A member of a shared drive: a user or a group, with its role
// (PERSISTED: 1 viewer, 2 editor, 3 manager).
struct DriveMemberRow {
  bool is_group = false;
  int64_t id = 0;  // users.id or user_groups.id
  std::string public_id;
  std::string name;
  int role = 1;
};

enum class NodeKind : int { kFolder = 0, kFile = 1 };

struct NodeRow {
  int64_t id = 0;
  std::string public_id;
  int64_t drive_id = 0;
  std::optional<int64_t> parent_id;  // nullopt: the drive root
  std::string name;                  // as the client sent it (validated)
  std::string name_key;              // case-folded NFC (files/names.h)
  std::string sort_key;              // listing order, bytes (files/names.h SortKey)
  NodeKind kind = NodeKind::kFolder;
  std::optional<int64_t> manifest_id;  // files only
  uint64_t size = 0;                   // file: content bytes; folder: live file bytes below
  std::string mime;
  int64_t mtime_ms = 0;
  int64_t ctime_ms = 0;
  int64_t tree_seq = 0;                  // folders: drive change_seq of the last change below
  std::optional<int64_t> trashed_at_ms;  // on the node the user trashed
  std::optional<int64_t> trash_root;     // on its whole subtree
  std::optional<int64_t> trash_parent;   // the trashed node's parent then
  int64_t created_by = 0;
  int64_t updated_by = 0;
  // Read-only, kept by the store: a folder's live children.
  int64_t child_count = 0;
  // Read-only, joined: the manifest's hash (files), whether the viewer of
  // the query marked the node a favorite, the parent's public id.
  Digest hash{};
  bool favorite = false;
  std::string parent_public_id;

  bool folder() const { return kind == NodeKind::kFolder; }
  bool live() const { return !trash_root.has_value(); }
};

// Listing order (nodes.kind first, always folders first).
enum class NodeSort { kName, kSize, kModified, kType };

// A keyset position in a listing: the last row returned.
struct NodeCursor {
  NodeKind kind = NodeKind::kFolder;
  int64_t int_key = 0;  // size or mtime
  std::string str_key;  // mime for kType
  std::string sort_key;
  int64_t id = 0;
};

// What a listing reads of each row. kBasic: the id, name, name key, sort
// key, content (manifest, hash), size, type and times — what a WebDAV
// client's usual properties and the listing's cursor need; public_id,
// drive_id, created_by, updated_by and child_count stay empty. Every column
// is paid per row (on PostgreSQL a page of 2,000 rows with these 11 columns
// instead of 16 took ~0.8x the time, pgbench).
enum class ListColumns { kAll, kBasic };

class NodeReads {
 public:
  virtual ~NodeReads() = default;

  // Drives and nodes. `viewer` (a user id) only fills NodeRow::favorite.
  virtual Result<std::optional<DriveRow>> GetDrive(int64_t id) = 0;
  virtual Result<std::optional<DriveRow>> GetPersonalDrive(int64_t owner_id) = 0;
  virtual Result<std::optional<DriveRow>> GetDriveByPublicId(const std::string& public_id) = 0;
  // Shared drives the user is a member of (directly or through one of
  // `groups`), with the strongest role, by name.
  virtual Result<std::vector<std::pair<DriveRow, int>>> ListMemberDrives(
      int64_t user_id, const std::vector<int64_t>& groups) = 0;
  // The strongest role of the user (or one of `groups`) in a drive; 0: none.
  virtual Result<int> DriveRoleOf(int64_t drive_id, int64_t user_id,
                                  const std::vector<int64_t>& groups) = 0;
  // Direct members: groups first, then users, each by name.
  virtual Result<std::vector<DriveMemberRow>> ListDriveMembers(int64_t drive_id) = 0;
  virtual Result<std::optional<NodeRow>> GetNode(int64_t id, int64_t viewer) = 0;
  // The nodes of `ids` that exist, in no particular order: one statement
  // where a GetNode per id would be one round trip each.
  virtual Result<std::vector<NodeRow>> GetNodes(const std::vector<int64_t>& ids,
                                                int64_t viewer) = 0;
  virtual Result<std::optional<NodeRow>> GetNodeByPublicId(const std::string& public_id,
                                                           int64_t viewer) = 0;
  // Name keys of live children of `parent_id` that start with `prefix`, in
  // key order, at most `limit` (free " (n)" names in one query).
  virtual Result<std::vector<std::string>> ChildKeysWithPrefix(int64_t parent_id,
                                                               const std::string& prefix,
                                                               size_t limit) = 0;
  // Those of `name_keys` that a live child of `parent_id` holds, in no
  // particular order: one statement where a FindChild per key would be
  // one round trip each.
  virtual Result<std::vector<std::string>> TakenChildKeys(
      int64_t parent_id, const std::vector<std::string>& name_keys) = 0;
  // The live child of `parent_id` whose name_key is `name_key`.
  virtual Result<std::optional<NodeRow>> FindChild(int64_t parent_id, const std::string& name_key,
                                                   int64_t viewer) = 0;
  // One keyset page of live children of one kind, after `after` (none: from
  // the start), in the given order (sort_key, then id break ties). Rows
  // leave parent_public_id empty: it is the listed folder's. `favorite` is
  // the viewer's flag; viewer 0 skips the lookup (always false).
  Result<std::vector<NodeRow>> ListChildren(int64_t parent_id, NodeKind kind, NodeSort sort,
                                            bool descending, const std::optional<NodeCursor>& after,
                                            size_t limit, int64_t viewer) {
    std::vector<NodeRow> out;
    NUBO_RETURN_IF_ERROR(ListChildrenInto(parent_id, kind, sort, descending, after, limit, viewer,
                                          out, 0, ListColumns::kAll));
    return out;
  }
  // The same page written into `out` from index `at` on: the rows there
  // are overwritten in place (their strings keep their storage, so a
  // listing that pages through a big folder allocates for its first page
  // only), and `out` ends after the last row. With ListColumns::kBasic
  // only the fields it names are read.
  virtual Status ListChildrenInto(int64_t parent_id, NodeKind kind, NodeSort sort, bool descending,
                                  const std::optional<NodeCursor>& after, size_t limit,
                                  int64_t viewer, std::vector<NodeRow>& out, size_t at,
                                  ListColumns columns) = 0;
  // Live children changed after (since_seq, since_id) in (tree_seq, id)
  // order, up to tree_seq <= through: a sync-collection's members.
  virtual Result<std::vector<NodeRow>> ChangedChildren(int64_t parent_id, int64_t since_seq,
                                                       int64_t since_id, int64_t through,
                                                       size_t limit, int64_t viewer) = 0;
  // Names that left `parent_id` with since < seq <= through, by seq.
  virtual Result<std::vector<TombstoneRow>> Tombstones(int64_t parent_id, int64_t since,
                                                       int64_t through, size_t limit) = 0;
  // The newest pruned tombstone's seq in the drive: older tokens are stale.
  virtual Result<int64_t> SyncFloor(int64_t drive_id) = 0;
  // Children (live only, or all) with id > after_id, by id: for tree walks.
  virtual Result<std::vector<NodeRow>> ListChildrenById(int64_t parent_id, int64_t after_id,
                                                        size_t limit, bool include_trashed) = 0;
  // `id` and its ancestors, nearest first, ending with the drive root.
  virtual Result<std::vector<NodeRow>> Ancestors(int64_t id) = 0;
  // Manifest ids of every file in the subtree of `id` (one per file row).
  virtual Result<std::vector<int64_t>> SubtreeManifests(int64_t id) = 0;
  // Items trashed on their own from inside the subtree of `id` (nodes with
  // trashed_at set below it), outermost only: each carries its own subtree.
  virtual Result<std::vector<int64_t>> InnerTrashRoots(int64_t id) = 0;
  // Nodes the user trashed, newest first, before (trashed_at, id).
  virtual Result<std::vector<NodeRow>> ListTrash(int64_t drive_id,
                                                 std::optional<std::pair<int64_t, int64_t>> before,
                                                 size_t limit, int64_t viewer) = 0;
  // The drive's trashed items (nodes the user trashed), oldest first.
  virtual Result<std::vector<NodeRow>> ListOldestTrash(int64_t drive_id, size_t limit) = 0;
  // Trashed-node ids of any drive trashed at or before `before_ms`.
  virtual Result<std::vector<int64_t>> ListExpiredTrash(int64_t before_ms, size_t limit) = 0;
  // A manifest with `hash` referenced by a file of the drive (live or trashed).
  virtual Result<std::optional<int64_t>> FindDriveManifest(int64_t drive_id,
                                                           const Digest& hash) = 0;
  // Favorites (live nodes only), newest first, before favorite seq `before`.
  virtual Result<std::vector<std::pair<int64_t, NodeRow>>> ListFavorites(
      int64_t user_id, std::optional<int64_t> before_seq, size_t limit) = 0;
  // Recently used live nodes, newest first.
  virtual Result<std::vector<NodeRow>> ListRecent(int64_t user_id, size_t limit) = 0;
  // (id, name) of nodes without a sort key, by id after `after_id`.
  virtual Result<std::vector<std::pair<int64_t, std::string>>> NodesWithoutSortKey(
      int64_t after_id, size_t limit) = 0;
  // Quota reservations of uploads in progress: the bytes reserved in the
  // drive by reservations unexpired at `now_ms`, except `except_id`.
  virtual Result<int64_t> ReservedBytes(int64_t drive_id, int64_t now_ms, int64_t except_id) = 0;
  // Sum of the sizes of the drive's trashed items (each counted once, at
  // the node the user trashed).
  virtual Result<int64_t> TrashBytes(int64_t drive_id) = 0;
  // Drives with a quota (their owner's, or their own), id > `after_id`, by id.
  virtual Result<std::vector<int64_t>> ListQuotaDrives(int64_t after_id, size_t limit) = 0;
  // For fsck: folders whose size rollup differs from the sum of their
  // children in the same state (live, or the same trashed subtree), as
  // (public id, stored size, recomputed size).
  virtual Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> FolderRollupMismatches(
      size_t limit) = 0;
  // Folders whose child_count differs from their live children, as
  // (public id, stored, recomputed) (fsck).
  virtual Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> ChildCountMismatches(
      size_t limit) = 0;
  // Public ids of nodes whose content_hash is not their manifest's hash
  // (fsck; at most `limit`).
  virtual Result<std::vector<std::string>> NodeHashMismatches(size_t limit) = 0;
};

class NodeWrites {
 public:
  virtual ~NodeWrites() = default;

  // Fills `row.id`. AlreadyExists for a second personal drive.
  virtual Status InsertDrive(DriveRow& row) = 0;
  virtual Status SetDriveRoot(int64_t drive_id, int64_t root_id) = 0;
  // Writes name and quota_bytes (matched by id).
  virtual Status UpdateDrive(const DriveRow& row) = 0;
  // Removes the drive row (its nodes must be gone: the caller releases
  // their content first).
  virtual Status DeleteDrive(int64_t id) = 0;
  // Adds a member or changes its role.
  virtual Status SetDriveMember(int64_t drive_id, bool is_group, int64_t member_id, int role) = 0;
  // NotFound when not a direct member.
  virtual Status RemoveDriveMember(int64_t drive_id, bool is_group, int64_t member_id) = 0;
  // Bumps and returns the drive's change counter.
  virtual Result<int64_t> NextChangeSeq(int64_t drive_id) = 0;
  // Records that `name` left folder `parent_id` at change `seq`.
  virtual Status AddTombstone(int64_t drive_id, int64_t parent_id, const std::string& name,
                              bool folder, int64_t seq, int64_t at_ms) = 0;
  // Drops tombstones recorded before `before_ms`, raising their drives'
  // sync_floor to the newest dropped; returns how many went.
  virtual Result<int64_t> PruneTombstones(int64_t before_ms) = 0;
  // Fills `row.id` and `row.hash` (its manifest's). AlreadyExists when a
  // live sibling has the same name_key.
  virtual Status InsertNode(NodeRow& row) = 0;
  // Writes the mutable fields (parent, names, manifest, size, mime, times,
  // trash fields, updated_by) of `row`, matched by id. AlreadyExists on a
  // sibling name clash.
  virtual Status UpdateNode(const NodeRow& row) = 0;
  // Sort keys: one node's, or every node's dropped (the collation changed).
  virtual Status SetSortKey(int64_t id, const std::string& sort_key) = 0;
  virtual Status ClearSortKeys() = 0;
  // On `id` and every ancestor: tree_seq = seq, size += size_delta.
  virtual Status BumpAncestors(int64_t id, int64_t seq, int64_t size_delta) = 0;
  // trash_root = root_id on the live part of the subtree of `root_id`
  // (mark), or back to NULL where it is root_id (unmark).
  virtual Status MarkSubtreeTrashed(int64_t root_id) = 0;
  virtual Status UnmarkSubtreeTrashed(int64_t root_id) = 0;
  // Deletes the subtree rows (with favorites, recent entries and dead
  // properties, whose bytes leave the drive's props_bytes). Returns the
  // number of nodes deleted. The caller releases SubtreeManifests first.
  virtual Result<int64_t> DeleteSubtree(int64_t id) = 0;
  // Quota reservations (see ReservedBytes). UpdateReservation: NotFound
  // when the reservation is gone (expired and swept).
  virtual Result<int64_t> InsertReservation(int64_t drive_id, int64_t bytes,
                                            int64_t expires_at_ms) = 0;
  virtual Status UpdateReservation(int64_t id, int64_t bytes, int64_t expires_at_ms) = 0;
  virtual Status DeleteReservation(int64_t id) = 0;
  virtual Result<int64_t> DeleteExpiredReservations(int64_t now_ms) = 0;
  // Favorites and recent entries.
  virtual Status AddFavorite(int64_t user_id, int64_t node_id, int64_t now_ms) = 0;
  virtual Status RemoveFavorite(int64_t user_id, int64_t node_id) = 0;
  // Records use of the node, unless the node (or the user) is gone: one
  // statement, so a flush of many costs one round trip each.
  virtual Status TouchRecent(int64_t user_id, int64_t node_id, int64_t now_ms) = 0;
  // Keeps the user's newest `keep` entries.
  virtual Status TrimRecent(int64_t user_id, size_t keep) = 0;
};

}  // namespace nubo::meta
