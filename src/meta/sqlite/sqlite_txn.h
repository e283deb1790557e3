// The SQLite backend's transaction: every MetaStore read and write as
// statements on one connection. The same statements run on PostgreSQL
// through the engine-neutral connection (meta/sql); where the dialects
// differ a method picks its text by pg(). Its methods are defined one
// file per capability: sqlite_content.cc (manifests, chunks, pins),
// sqlite_accounts.cc (users, sessions, app passwords, settings, processes,
// leases, sign-in failures), sqlite_nodes.cc (drives, nodes, trash,
// favourites, quota), sqlite_dav.cc (dead properties and locks),
// sqlite_sharing.cc (groups, grants, links, share mounts),
// sqlite_find.cc (name and content search), sqlite_history.cc (versions
// and upload sessions), sqlite_groupware.cc, sqlite_media.cc (jobs,
// derived data, photos), sqlite_music.cc and sqlite_nc.cc. Internal to
// meta/sqlite.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sql/sql.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

// The statement ListChildrenInto runs for a page of `kind` children (its
// text, for tests of its query plan).
const std::string& ListChildrenSql(NodeKind kind, NodeSort sort, bool descending, bool after,
                                   ListColumns columns);

// The statement BumpAncestors runs on SQLite or on PostgreSQL (`pg`).
const char* BumpAncestorsSql(bool pg);

// A statement over the subtree of node ?1 (itself included, descending
// only into nodes that pass `filter`, a condition on `n`; none if empty):
// `head` + "<the subtree's ids>" + `tail`, where head ends in a column
// such as "WHERE id ". On PostgreSQL only folders are looked into, each
// one's members looked up by parent, and the ids matched by key
// (`IN (SELECT id FROM sub)` and a join were hash joins over a scan of
// every node on a table of thousands of rows).
std::string SubtreeSql(bool pg, std::string_view filter, std::string_view head,
                       std::string_view tail = "");
// SubtreeSql's statement on SQLite and on PostgreSQL, indexed by "is
// PostgreSQL" (a function-local static of it is built once).
std::array<std::string, 2> SubtreeSqls(std::string_view filter, std::string_view head,
                                       std::string_view tail = "");

class SqliteTxn final : public WriteTxn {
 public:
  explicit SqliteTxn(sql::Conn& c) : c_(c) {}

  // ---- sqlite_content.cc: manifests, chunks, pins ----
  Result<std::optional<ManifestRow>> FindManifest(const Digest& hash) override;
  Result<std::optional<ManifestRow>> GetManifest(int64_t id) override;
  Result<std::vector<ManifestChunk>> ManifestChunks(int64_t manifest_id) override;
  Result<std::string> ManifestChecksums(int64_t manifest_id) override;
  Result<std::vector<std::pair<int64_t, std::string>>> ListManifestChecksums(
      const std::vector<int64_t>& manifest_ids) override;
  Result<std::optional<ChunkRow>> GetChunk(const Digest& hash) override;
  Result<std::optional<std::string>> ChunkData(const Digest& hash) override;
  Result<std::vector<ManifestRow>> ListManifests(int64_t after_id, size_t limit) override;
  Result<std::vector<ChunkRow>> ListChunks(const std::optional<Digest>& after,
                                           size_t limit) override;
  Result<std::vector<ChunkRow>> ListOrphanChunks(int64_t before_ms, size_t limit) override;
  Result<std::optional<int64_t>> GetPin(const std::string& name) override;
  Result<std::vector<std::pair<std::string, int64_t>>> ListPins(const std::string& after,
                                                                size_t limit) override;
  Result<std::vector<std::pair<int64_t, int64_t>>> CountManifestReferences() override;
  Result<std::vector<std::pair<Digest, int64_t>>> CountChunkReferences() override;
  Result<int64_t> InsertManifest(const Digest& hash, uint64_t size,
                                 const std::vector<ManifestChunk>& chunks, int64_t refs) override;
  Status SetManifestRefs(int64_t id, int64_t refs) override;
  Status SetManifestChecksums(int64_t id, const std::string& checksums) override;
  Status DeleteManifest(int64_t id) override;
  Status InsertChunk(const ChunkRow& row) override;
  Status InsertInlineChunk(const ChunkRow& row, const std::string& data) override;
  Status SetChunkRefs(const Digest& hash, int64_t refs,
                      std::optional<int64_t> orphaned_at_ms) override;
  Status AddChunkRefs(const std::vector<ChunkRow>& rows) override;
  Status DropChunkRefs(const Digest& hash, int64_t n, int64_t now_ms) override;
  Status DeleteChunk(const Digest& hash) override;
  Status SetChunkData(const Digest& hash, const std::string& data) override;
  Status InsertPin(const std::string& name, int64_t manifest_id) override;
  Status DeletePin(const std::string& name) override;

  // ---- sqlite_accounts.cc: users, app passwords, sessions, settings, processes, leases,
  // sign-in failures ----
  Result<std::optional<UserRow>> GetUserByName(const std::string& username) override;
  Result<std::optional<UserRow>> GetUserByEmail(const std::string& email) override;
  Result<std::optional<UserRow>> GetUser(int64_t id) override;
  Result<std::vector<UserRow>> ListUsers(const std::string& after_key, size_t limit,
                                         const std::string& prefix) override;
  Result<int64_t> CountUsers() override;
  Result<int64_t> CountActiveAdmins() override;
  Result<std::optional<AppPasswordRow>> FindAppPassword(const Digest& secret_hash) override;
  Result<std::vector<AppPasswordRow>> ListAppPasswords(int64_t user_id) override;
  Result<std::optional<SessionRow>> FindSessionByRefresh(const Digest& refresh_hash) override;
  Result<std::optional<SessionRow>> GetSession(const std::string& public_id) override;
  Result<bool> FamilyHasLiveSession(const std::string& family_id, int64_t now_ms) override;
  Result<std::vector<SessionRow>> ListSessions(int64_t user_id, int64_t now_ms) override;
  Result<std::optional<std::string>> GetSetting(const std::string& key) override;
  Result<std::vector<ProcessRow>> LiveProcesses(int64_t alive_since_ms) override;
  Status BeatProcess(const ProcessRow& p, int64_t forget_before_ms) override;
  Status EndProcess(const std::string& id) override;
  Result<bool> TakeLease(const std::string& name, const std::string& holder, int64_t now_ms,
                         int64_t until_ms, int64_t done_by_ms) override;
  Status ReleaseLease(const std::string& name, const std::string& holder,
                      int64_t done_at_ms) override;
  Result<std::vector<SignInFailureRow>> SignInFailuresSince(int64_t since_ms,
                                                            size_t limit) override;
  Result<SignInFailureRow> AddSignInFailures(const std::string& key, int64_t count,
                                             int64_t max_failures, int64_t lockout_ms,
                                             int64_t now_ms) override;
  Status ClearSignInFailures(const std::string& key, int64_t now_ms) override;
  Result<int64_t> PurgeSignInFailures(int64_t before_ms, int64_t now_ms) override;
  Status InsertSession(SessionRow& r) override;
  Status RevokeSession(int64_t id, int64_t now_ms, bool rotated) override;
  Status RevokeSessionFamily(const std::string& family_id, int64_t now_ms) override;
  Status RevokeUserSessions(int64_t user_id, int64_t keep_id, int64_t now_ms) override;
  Status SetSetting(const std::string& key, const std::string& value) override;
  Result<std::string> SetSettingIfAbsent(const std::string& key, const std::string& value) override;
  Status InsertUser(UserRow& u) override;
  Status UpdateUser(const UserRow& u) override;
  Result<int64_t> InsertAppPassword(const AppPasswordRow& a) override;
  Status DeleteAppPassword(int64_t user_id, int64_t id) override;
  Result<int64_t> DeleteAppPasswords(int64_t user_id) override;
  Status TouchAppPassword(int64_t id, int64_t now_ms) override;

  // ---- sqlite_nodes.cc: drives, nodes, sync changes, trash, favourites, quota, fsck ----
  Result<std::optional<DriveRow>> GetDrive(int64_t id) override;
  Result<std::optional<DriveRow>> GetPersonalDrive(int64_t owner_id) override;
  Result<std::optional<NodeRow>> GetNode(int64_t id, int64_t viewer) override;
  Result<std::vector<NodeRow>> GetNodes(const std::vector<int64_t>& ids, int64_t viewer) override;
  Result<std::optional<NodeRow>> GetNodeByPublicId(const std::string& public_id,
                                                   int64_t viewer) override;
  Result<std::optional<NodeRow>> FindChild(int64_t parent_id, const std::string& name_key,
                                           int64_t viewer) override;
  Status ListChildrenInto(int64_t parent_id, NodeKind kind, NodeSort sort, bool descending,
                          const std::optional<NodeCursor>& after, size_t limit, int64_t viewer,
                          std::vector<NodeRow>& out, size_t at, ListColumns columns) override;
  Result<std::vector<NodeRow>> ChangedChildren(int64_t parent_id, int64_t since_seq,
                                               int64_t since_id, int64_t through, size_t limit,
                                               int64_t viewer) override;
  Result<std::vector<TombstoneRow>> Tombstones(int64_t parent_id, int64_t since, int64_t through,
                                               size_t limit) override;
  Result<int64_t> SyncFloor(int64_t drive_id) override;
  Result<std::vector<NodeRow>> ListChildrenById(int64_t parent_id, int64_t after_id, size_t limit,
                                                bool include_trashed) override;
  Result<std::vector<NodeRow>> Ancestors(int64_t id) override;
  Result<std::vector<int64_t>> SubtreeManifests(int64_t id) override;
  Result<std::vector<int64_t>> InnerTrashRoots(int64_t id) override;
  Result<std::vector<NodeRow>> ListTrash(int64_t drive_id,
                                         std::optional<std::pair<int64_t, int64_t>> before,
                                         size_t limit, int64_t viewer) override;
  Result<std::vector<NodeRow>> ListOldestTrash(int64_t drive_id, size_t limit) override;
  Result<std::vector<int64_t>> ListExpiredTrash(int64_t before_ms, size_t limit) override;
  Result<std::optional<int64_t>> FindDriveManifest(int64_t drive_id, const Digest& hash) override;
  Result<std::vector<std::pair<int64_t, NodeRow>>> ListFavorites(int64_t user_id,
                                                                 std::optional<int64_t> before_seq,
                                                                 size_t limit) override;
  Result<std::vector<NodeRow>> ListRecent(int64_t user_id, size_t limit) override;
  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> FolderRollupMismatches(
      size_t limit) override;
  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> ChildCountMismatches(
      size_t limit) override;
  Result<std::vector<std::string>> TakenChildKeys(
      int64_t parent_id, const std::vector<std::string>& name_keys) override;
  Result<std::vector<std::string>> ChildKeysWithPrefix(int64_t parent_id, const std::string& prefix,
                                                       size_t limit) override;
  Result<std::vector<std::string>> NodeHashMismatches(size_t limit) override;
  Result<std::vector<std::pair<int64_t, std::string>>> NodesWithoutSortKey(int64_t after_id,
                                                                           size_t limit) override;
  Result<int64_t> ReservedBytes(int64_t drive_id, int64_t now_ms, int64_t except_id) override;
  Result<int64_t> TrashBytes(int64_t drive_id) override;
  Result<std::vector<int64_t>> ListQuotaDrives(int64_t after_id, size_t limit) override;
  Result<int64_t> InsertReservation(int64_t drive_id, int64_t bytes,
                                    int64_t expires_at_ms) override;
  Status UpdateReservation(int64_t id, int64_t bytes, int64_t expires_at_ms) override;
  Status DeleteReservation(int64_t id) override;
  Result<int64_t> DeleteExpiredReservations(int64_t now_ms) override;
  Status InsertDrive(DriveRow& d) override;
  Status SetDriveRoot(int64_t drive_id, int64_t root_id) override;
  Result<int64_t> NextChangeSeq(int64_t drive_id) override;
  Status AddTombstone(int64_t drive_id, int64_t parent_id, const std::string& name, bool folder,
                      int64_t seq, int64_t at_ms) override;
  Result<int64_t> PruneTombstones(int64_t before_ms) override;
  Status InsertNode(NodeRow& n) override;
  Status UpdateNode(const NodeRow& n) override;
  Status SetSortKey(int64_t id, const std::string& sort_key) override;
  Status ClearSortKeys() override;
  Status BumpAncestors(int64_t id, int64_t seq, int64_t size_delta) override;
  Status MarkSubtreeTrashed(int64_t root_id) override;
  Status UnmarkSubtreeTrashed(int64_t root_id) override;
  Result<int64_t> DeleteSubtree(int64_t id) override;
  Result<std::optional<DriveRow>> GetDriveByPublicId(const std::string& public_id) override;
  Result<std::vector<std::pair<DriveRow, int>>> ListMemberDrives(
      int64_t user_id, const std::vector<int64_t>& groups) override;
  Result<int> DriveRoleOf(int64_t drive_id, int64_t user_id,
                          const std::vector<int64_t>& groups) override;
  Result<std::vector<DriveMemberRow>> ListDriveMembers(int64_t drive_id) override;
  Status UpdateDrive(const DriveRow& d) override;
  Status DeleteDrive(int64_t id) override;
  Status SetDriveMember(int64_t drive_id, bool is_group, int64_t member_id, int role) override;
  Status RemoveDriveMember(int64_t drive_id, bool is_group, int64_t member_id) override;
  Status AddFavorite(int64_t user_id, int64_t node_id, int64_t now_ms) override;
  Status RemoveFavorite(int64_t user_id, int64_t node_id) override;
  Status TouchRecent(int64_t user_id, int64_t node_id, int64_t now_ms) override;
  Status TrimRecent(int64_t user_id, size_t keep) override;

  // ---- sqlite_dav.cc: dead properties and locks ----
  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> PropsBytesMismatches(
      size_t limit) override;
  Result<std::vector<NodeDeadProp>> ListDeadProps(const std::vector<int64_t>& node_ids) override;
  Result<std::vector<DavLockRow>> FindDavLocks(int64_t drive_id,
                                               const std::vector<std::string>& paths,
                                               const std::string& below, int64_t now_ms) override;
  Result<std::optional<DavLockRow>> GetDavLock(const std::string& token) override;
  Status SetDeadProp(int64_t node_id, const DeadProp& p) override;
  Status RemoveDeadProp(int64_t node_id, const std::string& ns, const std::string& name) override;
  Status CopyDeadProps(int64_t from_node, int64_t to_node) override;
  Result<int64_t> DeadPropsBytes(int64_t node_id) override;
  Result<bool> HasDavLocks(int64_t drive_id, int64_t now_ms) override;
  Status InsertDavLock(const DavLockRow& l) override;
  Status RefreshDavLock(const std::string& token, int64_t timeout_s,
                        int64_t expires_at_ms) override;
  Status DeleteDavLock(const std::string& token) override;
  Status DeleteDavLocksAt(int64_t drive_id, const std::string& path) override;

  // ---- sqlite_sharing.cc: groups, grants, share mounts, links ----
  Result<std::optional<GroupRow>> GetGroup(int64_t id) override;
  Result<std::optional<GroupRow>> GetGroupByPublicId(const std::string& public_id) override;
  Result<std::optional<GroupRow>> GetGroupByName(const std::string& name) override;
  Result<std::vector<GroupRow>> ListGroups(const std::string& after_key, size_t limit) override;
  Result<std::vector<GroupMemberRow>> ListGroupMembers(int64_t group_id, size_t limit) override;
  Result<std::vector<int64_t>> GroupsOfUser(int64_t user_id) override;
  Result<bool> GroupContains(int64_t container, int64_t member) override;
  Result<std::vector<GrantHit>> GrantsReaching(int64_t node_id, int64_t user_id,
                                               const std::vector<int64_t>& groups,
                                               int64_t now_ms) override;
  Result<std::vector<std::pair<int64_t, GrantHit>>> GrantsReachingEach(
      const std::vector<int64_t>& node_ids, int64_t user_id, const std::vector<int64_t>& groups,
      int64_t now_ms) override;
  Result<std::optional<GrantRow>> GetGrantByPublicId(const std::string& public_id) override;
  Result<std::vector<GrantRow>> ListNodeGrants(int64_t node_id) override;
  Result<std::vector<SharedNode>> ListSharedWith(int64_t user_id,
                                                 const std::vector<int64_t>& groups, int64_t now_ms,
                                                 int64_t after_node, size_t limit) override;
  Result<std::vector<std::pair<int64_t, int>>> ListShareTypes(const std::vector<int64_t>& node_ids,
                                                              int64_t created_by,
                                                              int64_t now_ms) override;
  Result<bool> MayHoldGrants(int64_t user_id) override;
  Result<std::vector<ShareMountRow>> ListShareMounts(int64_t user_id) override;
  Result<std::vector<GrantRow>> ListSharedBy(int64_t user_id, int64_t after_id,
                                             size_t limit) override;
  Result<std::vector<std::string>> DanglingSharingRows(size_t limit) override;
  Status InsertGroup(GroupRow& g) override;
  Status RenameGroup(int64_t id, const std::string& name) override;
  Status DeleteGroup(int64_t id) override;
  Status AddGroupMember(int64_t group_id, bool is_group, int64_t member_id) override;
  Status RemoveGroupMember(int64_t group_id, bool is_group, int64_t member_id) override;
  Status InsertGrant(GrantRow& g) override;
  Status UpdateGrant(const GrantRow& g) override;
  Status DeleteGrant(int64_t id) override;
  Status PutShareMount(const ShareMountRow& m) override;
  Status DeleteShareMount(int64_t user_id, int64_t node_id) override;
  Result<std::optional<LinkRow>> FindLink(const Digest& token_hash) override;
  Result<std::optional<LinkRow>> GetLinkByPublicId(const std::string& public_id) override;
  Result<std::vector<LinkRow>> ListNodeLinks(int64_t node_id) override;
  Result<std::vector<LinkRow>> ListLinksBy(int64_t user_id, int64_t after_id,
                                           size_t limit) override;
  Result<bool> NodeWithin(int64_t node_id, int64_t ancestor_id) override;
  Status InsertLink(LinkRow& l) override;
  Status UpdateLink(const LinkRow& l) override;
  Status DeleteLink(int64_t id) override;
  Result<bool> TakeLinkDownload(int64_t id) override;

  // ---- sqlite_find.cc: name and content search ----
  Status PutText(int64_t node_id, const std::string& text) override;
  Result<bool> CompactTextIndex(int64_t pages) override;
  Result<std::vector<NodeRow>> SearchNodes(
      int64_t drive_id, const SearchFilter& f,
      const std::optional<std::pair<std::string, int64_t>>& after, size_t limit,
      int64_t viewer) override;
  Result<std::vector<TextHit>> SearchText(const std::vector<int64_t>& drive_ids,
                                          const std::string& match,
                                          const std::optional<std::pair<double, int64_t>>& after,
                                          size_t limit, int64_t viewer) override;
  Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
      const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) override;
  Result<bool> HasText(int64_t node_id) override;

  // ---- sqlite_history.cc: file versions and upload sessions ----
  Result<std::vector<VersionRow>> ListVersions(int64_t node_id) override;
  Result<std::optional<VersionRow>> GetVersionByPublicId(const std::string& public_id) override;
  Result<std::vector<int64_t>> ListVersionedNodes(int64_t after_id, size_t limit) override;
  Result<std::vector<VersionRow>> ListOldestVersions(int64_t drive_id, size_t limit) override;
  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> VersionsBytesMismatches(
      size_t limit) override;
  Result<std::optional<UploadSessionRow>> GetUploadSession(const std::string& public_id) override;
  Result<std::vector<ManifestChunk>> UploadSessionChunks(int64_t session_id) override;
  Result<bool> ChunkListedIn(const Digest& hash, const std::vector<int64_t>& drive_ids,
                             int64_t also_manifest) override;
  Result<std::vector<UploadSessionRow>> ListExpiredUploadSessions(int64_t now_ms,
                                                                  size_t limit) override;
  Result<std::vector<UploadSessionRow>> ListDriveUploadSessions(int64_t drive_id,
                                                                size_t limit) override;
  Status InsertVersion(VersionRow& row) override;
  Status DeleteVersion(const VersionRow& row) override;
  Status InsertUploadSession(UploadSessionRow& row) override;
  Status UpdateUploadSession(const UploadSessionRow& row) override;
  Status DeleteUploadSession(int64_t id) override;
  Status ClearUploadSessionChunks(int64_t session_id) override;
  Status AppendUploadSessionChunks(int64_t session_id,
                                   const std::vector<ManifestChunk>& chunks) override;

  // ---- sqlite_groupware.cc: calendars and address books ----
  Result<std::optional<DavCollectionRow>> GetDavCollection(int64_t user_id, int kind,
                                                           const std::string& name) override;
  Result<std::vector<DavCollectionRow>> ListDavCollections(int64_t user_id, int kind) override;
  Result<std::vector<DavShareRow>> ListDavShares(int64_t collection_id) override;
  Result<std::optional<bool>> DavShareAccess(int64_t collection_id, int64_t user_id,
                                             const std::vector<int64_t>& groups) override;
  Result<std::vector<SharedDavCollection>> ListDavCollectionsSharedWith(
      int64_t user_id, const std::vector<int64_t>& groups, int kind) override;
  Result<std::optional<DavObjectRow>> GetDavObject(int64_t collection_id,
                                                   const std::string& name) override;
  Result<std::optional<DavObjectRow>> GetDavObjectByUid(int64_t collection_id,
                                                        const std::string& uid) override;
  Status ScanDavObjects(int64_t collection_id, const std::string& after_name, size_t limit,
                        bool with_data,
                        const std::function<Status(const DavObjectRow&)>& fn) override;
  Result<std::vector<DavObjectRow>> ListDavObjectsInRange(int64_t collection_id,
                                                          std::optional<int64_t> start_ms,
                                                          std::optional<int64_t> end_ms,
                                                          const std::string& after_name,
                                                          size_t limit) override;
  Result<std::vector<DavChange>> DavChangesSince(int64_t collection_id, int64_t since_seq,
                                                 size_t limit) override;
  Result<std::vector<DavDeadProp>> ListDavCollectionProps(int64_t collection_id) override;
  Status InsertDavCollection(DavCollectionRow& row) override;
  Status SetDavShare(int64_t collection_id, bool is_group, int64_t grantee_id, bool read_only,
                     int64_t at_ms) override;
  Result<bool> RemoveDavShare(int64_t collection_id, bool is_group, int64_t grantee_id) override;
  Status UpdateDavCollection(const DavCollectionRow& row) override;
  Status DeleteDavCollection(int64_t id) override;
  Status PutDavObject(DavObjectRow& row) override;
  Status DeleteDavObject(int64_t collection_id, const std::string& name) override;
  Status SetDavCollectionProp(int64_t collection_id, const std::string& ns, const std::string& name,
                              const std::optional<std::string>& value) override;

  // ---- sqlite_media.cc: jobs, derived data, photos ----
  Result<std::optional<JobRow>> ClaimJob(int64_t now_ms, int64_t lease_ms) override;
  Status FinishJob(const JobRow& job) override;
  Status FailJob(const JobRow& job, const std::string& error, int64_t retry_at_ms) override;
  Status QueueJob(const std::string& kind, int64_t node_id) override;
  Status DropJob(const std::string& kind, int64_t node_id) override;
  Status PutDerived(const DerivedRow& row) override;
  Status DeleteDerived(const Digest& hash, int variant) override;
  Status PutPhoto(const PhotoRow& row) override;
  Result<std::vector<DerivedRow>> TakeOrphanDerived(size_t limit) override;
  Result<JobCounts> CountJobs(int64_t now_ms) override;
  Result<bool> JobDue(int64_t now_ms) override;
  Result<std::vector<JobRow>> ListRetryingJobs(size_t limit) override;
  Result<std::optional<DerivedRow>> GetDerived(const Digest& hash, int variant) override;
  Result<std::vector<DerivedRow>> ListDerived(const Digest& after_hash, int after_variant,
                                              size_t limit) override;
  Result<std::vector<std::pair<PhotoRow, NodeRow>>> ListPhotos(
      int64_t drive_id, const std::optional<std::pair<int64_t, int64_t>>& before, size_t limit,
      int64_t viewer) override;
  Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(int64_t drive_id) override;
  Result<std::vector<PhotoPlace>> PhotoPlaces(int64_t drive_id, double cell_deg) override;
  Result<std::optional<PhotoRow>> GetPhoto(int64_t node_id) override;

  // ---- sqlite_music.cc: tracks and playlists ----
  Status PutTrack(const TrackRow& row) override;
  Status InsertPlaylist(PlaylistRow& row) override;
  Status UpdatePlaylist(const PlaylistRow& row) override;
  Status DeletePlaylist(int64_t id) override;
  Status SetPlaylistItems(int64_t playlist_id, const std::vector<int64_t>& node_ids) override;
  Result<std::vector<ArtistRow>> ListArtists(int64_t drive_id,
                                             const std::optional<std::string>& after_key,
                                             size_t limit) override;
  Result<std::vector<AlbumRow>> ListAlbums(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::pair<std::string, std::string>>& after, size_t limit) override;
  Result<std::vector<std::pair<TrackRow, NodeRow>>> ListTracks(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::string>& album_key, const std::optional<TrackCursor>& after,
      size_t limit, int64_t viewer) override;
  Result<std::optional<PlaylistRow>> GetPlaylist(const std::string& public_id) override;
  Result<std::vector<PlaylistRow>> ListPlaylists(int64_t user_id) override;
  Result<std::vector<std::pair<NodeRow, std::optional<TrackRow>>>> PlaylistItems(
      int64_t playlist_id, int64_t viewer) override;

  // ---- sqlite_nc.cc: login flows and chunked uploads of Nextcloud clients ----
  Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(const std::string& token) override;
  Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(const Digest& poll_hash) override;
  Result<std::optional<NcUploadRow>> GetNcUpload(int64_t user_id, const std::string& name) override;
  Result<std::vector<NcUploadPart>> ListNcUploadParts(int64_t upload_id) override;
  Result<std::vector<NcUploadRow>> ListExpiredNcUploads(int64_t now_ms, size_t limit) override;
  Status InsertLoginFlow(LoginFlowRow& row) override;
  Status GrantLoginFlow(const LoginFlowRow& row) override;
  Status DeleteLoginFlow(int64_t id) override;
  Result<int64_t> DeleteExpiredLoginFlows(int64_t now_ms) override;
  Status InsertNcUpload(NcUploadRow& row) override;
  Status DeleteNcUpload(int64_t id) override;
  Result<std::optional<std::string>> PutNcUploadPart(int64_t upload_id,
                                                     const NcUploadPart& part) override;

 private:
  // SQLite's content index is FTS5, that engine's own: its statements need
  // the SQLite connection itself (PostgreSQL's: meta/pg/pg_text.h).
  Conn& lite() { return static_cast<Conn&>(c_); }
  // 1 on PostgreSQL: the index of a statement written once per dialect.
  int pg() const { return c_.dialect() == sql::Dialect::kPostgres ? 1 : 0; }
  // (sqlite_accounts.cc)
  static void BindUser(Stmt& s, const UserRow& u, const std::string& key,
                       const std::optional<std::string>& email);
  // (sqlite_dav.cc)
  Status AddPropsBytes(int64_t node_id, int64_t delta);
  // (sqlite_dav.cc)
  Result<int64_t> PropBytes(int64_t node_id, const std::string& ns, const std::string& name);
  // (sqlite_find.cc)
  Result<std::vector<TextHit>> SearchTextPg(const std::vector<int64_t>& drive_ids,
                                            const std::string& match,
                                            const std::optional<std::pair<double, int64_t>>& after,
                                            size_t limit, int64_t viewer);

  sql::Conn& c_;
};

}  // namespace nubo::meta::sqlite
