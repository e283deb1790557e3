// MetaStore: nubo's metadata, behind explicit transactions.
//
// Domain code talks to typed operations (this header), never to SQL, so a
// PostgreSQL backend can implement the same interface; the conformance
// suite (meta/meta_store_conformance_test.cc) holds every backend to it.
//
// Concurrency: Write transactions are serialized (one writer, as SQLite
// allows and as keeps reference counting simple); Read transactions run
// concurrently on a snapshot. A transaction object must not escape its
// callback. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "util/blake3_hash.h"
#include "util/status.h"

namespace nubo::meta {

using Digest = Blake3Digest;

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

struct UserRow {
  int64_t id = 0;
  std::string public_id;
  std::string username;
  std::optional<std::string> email;
  std::string display_name;
  std::string password_hash;  // Argon2id encoded; empty: no password login
  std::string role;           // "admin" | "user"
  bool active = true;
  std::optional<int64_t> quota_bytes;
  int64_t credentials_version = 0;
  int64_t created_at_ms = 0;
  std::optional<int64_t> last_login_at_ms;
};

struct AppPasswordRow {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string label;
  Digest secret_hash{};
  int64_t created_at_ms = 0;
  std::optional<int64_t> last_used_at_ms;
  uint32_t scopes = 3;  // auth::Scope bits (PERSISTED)
};

struct SessionRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  std::string family_id;  // every rotation of one sign-in shares it
  Digest refresh_hash{};  // BLAKE3 of the current refresh token
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
  std::optional<int64_t> revoked_at_ms;
  std::optional<int64_t> rotated_at_ms;  // set (with revoked_at) when a refresh replaced it
  std::string user_agent;
  std::string ip;
};

// Failed sign-ins of one throttle key (auth/lockout_sync.h).
struct SignInFailureRow {
  std::string key;
  int64_t failures = 0;
  int64_t locked_until_ms = 0;  // 0: not locked
  int64_t updated_at_ms = 0;
};

// A serving process (content/gc.h: its in-flight pins).
struct ProcessRow {
  std::string id;  // random, per start
  std::string host;
  int64_t pid = 0;
  int64_t started_at_ms = 0;
  int64_t heartbeat_at_ms = 0;
  std::optional<int64_t> oldest_pin_at_ms;
};

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

// PERSISTED: never renumber (nodes.kind; folders sort before files).
// Groupware (docs/groupware.md): a calendar or address book of one account.
struct DavCollectionRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  int kind = 0;  // PERSISTED: 1 calendar, 2 address book, 3 scheduling inbox, 4 scheduling outbox
  std::string name;
  std::string display_name;
  std::string description;
  std::string color;
  int64_t sort_order = 0;
  std::string timezone;
  uint32_t components = 0;
  int64_t sync_seq = 0;
  int64_t sync_floor = 0;
  int64_t created_at_ms = 0;
  // Not stored, set when a sharee reaches a collection shared with it: the
  // name its home shows it under ("<name>_shared_by_<owner>"; hrefs use
  // it), the owner's name, and whether the share is read-only.
  std::string mount_name;
  std::string owner_name;
  bool shared_read_only = false;
};

// A calendar or address book shared with a user or a group.
struct DavShareRow {
  int64_t collection_id = 0;
  bool is_group = false;
  int64_t grantee_id = 0;    // users.id or user_groups.id
  std::string grantee_name;  // username or group name
  std::string display_name;  // a user's display name (groups: the name)
  bool read_only = true;
};

// A collection shared with the caller, and whose it is.
struct SharedDavCollection {
  DavCollectionRow collection;
  std::string owner_name;
  bool read_only = true;
};

// One calendar object or vCard. `data` is empty when listed without it.
struct DavObjectRow {
  int64_t id = 0;
  int64_t collection_id = 0;
  std::string name;
  std::string uid;
  std::string component;
  std::string data;
  std::string etag;
  std::optional<int64_t> first_start_ms;
  std::optional<int64_t> last_end_ms;
  int64_t modseq = 0;
  int64_t mtime_ms = 0;
  int64_t size = 0;
};

// A member that changed after a sync token: present (etag set) or gone.
struct DavChange {
  std::string name;
  int64_t modseq = 0;
  bool deleted = false;
  std::string etag;
  int64_t size = 0;
  std::string component;  // VEVENT, VTODO…, VCARD (empty when deleted)
  int64_t mtime_ms = 0;
};

struct DavDeadProp {
  std::string ns;
  std::string name;
  std::string value;  // context-free XML
};

// Login Flow v2 (docs/nextcloud.md): pending until granted, then holding
// the app password sealed for the one poll that takes it.
struct LoginFlowRow {
  int64_t id = 0;
  Digest poll_hash{};
  std::string login_token;
  std::string client_name;
  int64_t user_id = 0;  // 0: not granted yet
  std::string login_name;
  std::string sealed;  // the app password, sealed with the poll token's key
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
};

// A chunked upload v2 folder and its parts (each a complete upload session).
struct NcUploadRow {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string name;
  std::string destination;
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
};
struct NcUploadPart {
  int64_t number = 0;
  std::string session_id;
  int64_t size = 0;
  // The session of the part before it whose hash state this part's
  // continued ("" when it started a fresh one).
  std::string seed_session;
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

struct SearchFilter {
  std::string needle;  // case-folded NFC substring of name_key; empty: any
  // The needle as an FTS5 trigram phrase when it has three characters or
  // more (the name index answers it); empty: scan with instr().
  std::string name_match;
  std::optional<NodeKind> kind;
  std::string mime_prefix;
  std::optional<uint64_t> min_size, max_size;
  std::optional<int64_t> modified_after_ms, modified_before_ms;
};

struct DeadProp {
  std::string ns, name;
  std::string value;  // XML content
};

struct NodeDeadProp {
  int64_t node_id = 0;
  DeadProp prop;
};

struct DavLockRow {
  std::string token;
  int64_t drive_id = 0;
  std::string path;  // case-folded, "/a/b"; "/" for the drive root
  bool depth_infinity = false;
  bool exclusive = true;
  std::string owner_xml;
  int64_t user_id = 0;
  int64_t timeout_s = 0;
  int64_t expires_at_ms = 0;
  std::string root_href;
};

// Sharing (migration 0008). A group of users; members are users or groups.
struct GroupRow {
  int64_t id = 0;
  std::string public_id;
  std::string name;
  int64_t created_at_ms = 0;
};

// One member of a group: a user or a group, with its public id and name.
struct GroupMemberRow {
  bool is_group = false;
  int64_t id = 0;  // users.id or user_groups.id
  std::string public_id;
  std::string name;  // username or group name
};

// A role on a node and everything below it, for a user or a group.
struct GrantRow {
  int64_t id = 0;
  std::string public_id;
  int64_t node_id = 0;
  std::optional<int64_t> grantee_user;
  std::optional<int64_t> grantee_group;
  int role = 1;  // PERSISTED: 1 viewer, 2 editor, 3 manager
  bool may_reshare = false;
  std::optional<int64_t> expires_at_ms;
  std::optional<int64_t> created_by;
  int64_t created_at_ms = 0;
  // Read-only, joined by the listing queries: the node's public id and
  // drive, the grantee's public id and name.
  std::string node_public_id;
  int64_t drive_id = 0;
  std::string grantee_public_id;
  std::string grantee_name;
};

// A grant that reaches a node for a principal: on the node itself or on
// one of its ancestors.
struct GrantHit {
  int64_t node_id = 0;  // where the grant is
  int role = 1;
  bool may_reshare = false;
  int64_t created_by = 0;  // 0: unknown (its maker's account is gone)
};

// A node shared with a user: the strongest of the grants on it that reach
// the user (directly or through groups).
struct SharedNode {
  int64_t node_id = 0;
  int role = 1;
  bool may_reshare = false;
  // Every one of those grants was made by the owner of the node's drive:
  // none is a reshare, whose validity depends on its maker's rights.
  bool owner_made = false;
};

// Where a received share sits in its recipient's own tree (migration
// 0017): a row only once the recipient renamed or moved it.
struct ShareMountRow {
  int64_t user_id = 0;
  int64_t node_id = 0;               // the shared node
  std::optional<int64_t> parent_id;  // a folder of the recipient's drive; none: the share folder
  std::string name;                  // empty: never placed (a row only to hide it)
  bool hidden = false;               // kept out of the recipient's tree (migration 0019)
};

// A public link (migration 0009).
struct LinkRow {
  int64_t id = 0;
  std::string public_id;
  Digest token_hash{};
  std::string token_hint;
  int64_t node_id = 0;
  int role = 1;  // PERSISTED: 1 view, 2 edit, 4 drop
  std::optional<std::string> password_hash;
  std::optional<int64_t> expires_at_ms;
  std::optional<int64_t> max_downloads;
  int64_t downloads = 0;
  std::string label;
  std::optional<int64_t> created_by;
  int64_t created_at_ms = 0;
  // Read-only, joined: the node's public id and drive.
  std::string node_public_id;
  int64_t drive_id = 0;
};

// ---- Media and search (migration 0014) ----

// Work queued on a node by the triggers of migration 0014.
struct JobRow {
  int64_t id = 0;
  std::string kind;
  int64_t node_id = 0;
  int64_t gen = 0;  // bumped by every new request for the same (kind, node)
  int64_t run_at_ms = 0;
  int64_t attempts = 0;
  int64_t lease_until_ms = 0;
  std::string last_error;
};

struct JobCounts {
  int64_t due = 0;       // waiting and runnable now
  int64_t running = 0;   // leased
  int64_t retrying = 0;  // failed at least once, waiting for their next attempt
  int64_t done = 0;      // totals since the database was made
  int64_t failed = 0;
};

// A derived media row (thumbnail variant of one content hash).
struct DerivedRow {
  Digest hash{};
  int variant = 0;  // PERSISTED: 1 small, 2 large
  int state = 0;    // PERSISTED: 0 stored, 1 none possible
  int64_t bytes = 0;
  int64_t created_at_ms = 0;
};

// What an image's EXIF says (migration 0015).
struct PhotoRow {
  int64_t node_id = 0;
  int64_t drive_id = 0;
  int64_t taken_at_ms = 0;   // the camera's wall clock read as UTC
  bool taken_exact = false;  // false: the file's modification time
  int64_t width = 0, height = 0;
  int orientation = 1;
  std::string camera;
  std::optional<double> lat, lon;
};

// A cell of the places map: the photos in it, their mean position and one
// of them to show.
struct PhotoPlace {
  double lat = 0, lon = 0;
  int64_t count = 0;
  int64_t cover_node_id = 0;
};

// What an audio file's tags say (migration 0016).
struct TrackRow {
  int64_t node_id = 0;
  int64_t drive_id = 0;
  std::string title, artist, album_artist, album;
  std::string artist_key, album_key;  // case-folded: what groups
  int64_t track_no = 0, disc_no = 0, year = 0;
  std::string genre;
  int64_t duration_ms = 0;
};

struct ArtistRow {
  std::string key, name;
  int64_t albums = 0, tracks = 0;
};

struct AlbumRow {
  std::string artist_key, artist, key, name;
  int64_t year = 0, tracks = 0, duration_ms = 0;
  int64_t first_node_id = 0;  // the album's first track
};

// The position after which a list of tracks goes on.
struct TrackCursor {
  std::string artist_key, album_key;
  int64_t disc_no = 0, track_no = 0, node_id = 0;
};

struct PlaylistRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  std::string name;
  int64_t created_at_ms = 0, updated_at_ms = 0;
  int64_t items = 0;  // read-only
};

// One full-text match: the node, its rank (bm25; lower is better).
struct TextHit {
  NodeRow node;
  double rank = 0;
};

class ReadTxn {
 public:
  virtual ~ReadTxn() = default;

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

  // Users. Names compare case-insensitively.
  virtual Result<std::optional<UserRow>> GetUserByName(const std::string& username) = 0;
  // Case-insensitively (e-mail addresses are stored lower-cased).
  virtual Result<std::optional<UserRow>> GetUserByEmail(const std::string& email) = 0;
  virtual Result<std::optional<UserRow>> GetUser(int64_t id) = 0;
  // Users with lower(username) > `after_key` (and starting with `prefix`,
  // compared case-insensitively, when given), by name.
  virtual Result<std::vector<UserRow>> ListUsers(const std::string& after_key, size_t limit,
                                                 const std::string& prefix = "") = 0;
  virtual Result<int64_t> CountUsers() = 0;
  virtual Result<int64_t> CountActiveAdmins() = 0;

  virtual Result<std::optional<AppPasswordRow>> FindAppPassword(const Digest& secret_hash) = 0;
  virtual Result<std::vector<AppPasswordRow>> ListAppPasswords(int64_t user_id) = 0;

  virtual Result<std::optional<SessionRow>> FindSessionByRefresh(const Digest& refresh_hash) = 0;
  virtual Result<std::optional<SessionRow>> GetSession(const std::string& public_id) = 0;
  // Whether any session of the sign-in `family_id` is live at `now_ms`.
  virtual Result<bool> FamilyHasLiveSession(const std::string& family_id, int64_t now_ms) = 0;
  // Live (not revoked, not expired at `now_ms`) sessions of a user, newest first.
  virtual Result<std::vector<SessionRow>> ListSessions(int64_t user_id, int64_t now_ms) = 0;

  virtual Result<std::optional<std::string>> GetSetting(const std::string& key) = 0;

  // Serving processes whose heartbeat is at or after `alive_since_ms`.
  virtual Result<std::vector<ProcessRow>> LiveProcesses(int64_t alive_since_ms) = 0;

  // Sign-in failure rows written at or after `since_ms`, oldest first.
  virtual Result<std::vector<SignInFailureRow>> SignInFailuresSince(int64_t since_ms,
                                                                    size_t limit) = 0;

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
  virtual Result<std::optional<NodeRow>> GetNodeByPublicId(const std::string& public_id,
                                                           int64_t viewer) = 0;
  // Name keys of live children of `parent_id` that start with `prefix`, in
  // key order, at most `limit` (free " (n)" names in one query).
  virtual Result<std::vector<std::string>> ChildKeysWithPrefix(int64_t parent_id,
                                                               const std::string& prefix,
                                                               size_t limit) = 0;
  // The live child of `parent_id` whose name_key is `name_key`.
  virtual Result<std::optional<NodeRow>> FindChild(int64_t parent_id, const std::string& name_key,
                                                   int64_t viewer) = 0;
  // One keyset page of live children of one kind, after `after` (none: from
  // the start), in the given order (sort_key, then id break ties). Rows
  // leave parent_public_id empty: it is the listed folder's. `favorite` is
  // the viewer's flag; viewer 0 skips the lookup (always false).
  virtual Result<std::vector<NodeRow>> ListChildren(int64_t parent_id, NodeKind kind, NodeSort sort,
                                                    bool descending,
                                                    const std::optional<NodeCursor>& after,
                                                    size_t limit, int64_t viewer) = 0;
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
  // Live nodes of the drive matching `filter`, by (sort_key, id) after `after`.
  virtual Result<std::vector<NodeRow>> SearchNodes(
      int64_t drive_id, const SearchFilter& filter,
      const std::optional<std::pair<std::string, int64_t>>& after, size_t limit,
      int64_t viewer) = 0;
  // A manifest with `hash` referenced by a file of the drive (live or trashed).
  virtual Result<std::optional<int64_t>> FindDriveManifest(int64_t drive_id,
                                                           const Digest& hash) = 0;
  // Favorites (live nodes only), newest first, before favorite seq `before`.
  virtual Result<std::vector<std::pair<int64_t, NodeRow>>> ListFavorites(
      int64_t user_id, std::optional<int64_t> before_seq, size_t limit) = 0;
  // Recently used live nodes, newest first.
  virtual Result<std::vector<NodeRow>> ListRecent(int64_t user_id, size_t limit) = 0;
  // WebDAV dead properties of the given nodes (a listing's page at once),
  // by (node id, ns, name).
  virtual Result<std::vector<NodeDeadProp>> ListDeadProps(const std::vector<int64_t>& node_ids) = 0;
  // Unexpired locks of the drive whose path is one of `paths` or, when
  // `below` is set, lies below `below` ("/a" → "/a/..."), by path.
  virtual Result<std::vector<DavLockRow>> FindDavLocks(int64_t drive_id,
                                                       const std::vector<std::string>& paths,
                                                       const std::string& below,
                                                       int64_t now_ms) = 0;
  virtual Result<std::optional<DavLockRow>> GetDavLock(const std::string& token) = 0;
  // Whether the drive holds any lock unexpired at `now_ms` (0: any at all).
  virtual Result<bool> HasDavLocks(int64_t drive_id, int64_t now_ms) = 0;
  // Bytes of the node's dead properties (names and values).
  virtual Result<int64_t> DeadPropsBytes(int64_t node_id) = 0;
  // (id, name) of nodes without a sort key, by id after `after_id`.
  virtual Result<std::vector<std::pair<int64_t, std::string>>> NodesWithoutSortKey(
      int64_t after_id, size_t limit) = 0;

  // ---- Groupware ----

  virtual Result<std::optional<DavCollectionRow>> GetDavCollection(int64_t user_id, int kind,
                                                                   const std::string& name) = 0;
  // The account's collections of `kind`, by sort order then name.
  virtual Result<std::vector<DavCollectionRow>> ListDavCollections(int64_t user_id, int kind) = 0;
  // Who a collection is shared with, users first, by name.
  virtual Result<std::vector<DavShareRow>> ListDavShares(int64_t collection_id) = 0;
  // What a share gives `user_id` (directly or through one of `groups`) on
  // a collection: nullopt nothing, else whether read-only (read-write wins).
  virtual Result<std::optional<bool>> DavShareAccess(int64_t collection_id, int64_t user_id,
                                                     const std::vector<int64_t>& groups) = 0;
  // Collections of `kind` others shared with `user_id` or its `groups`.
  virtual Result<std::vector<SharedDavCollection>> ListDavCollectionsSharedWith(
      int64_t user_id, const std::vector<int64_t>& groups, int kind) = 0;
  virtual Result<std::optional<DavObjectRow>> GetDavObject(int64_t collection_id,
                                                           const std::string& name) = 0;
  virtual Result<std::optional<DavObjectRow>> GetDavObjectByUid(int64_t collection_id,
                                                                const std::string& uid) = 0;
  // Calls `fn` for at most `limit` objects with name > `after_name`, by
  // name; `with_data` loads the whole row, otherwise only what a listing
  // shows is set (name, etag, size, mtime, modseq, component; the id,
  // uid, data and time bounds are left empty). The row passed is reused
  // from call to call (a listing of thousands allocates nothing per
  // object); an error from `fn` ends the scan and is returned.
  virtual Status ScanDavObjects(int64_t collection_id, const std::string& after_name, size_t limit,
                                bool with_data,
                                const std::function<Status(const DavObjectRow&)>& fn) = 0;
  // Objects (with data) whose span may overlap [start, end) — an index
  // scan on first_start; nullopt sides are open — with name > `after_name`.
  virtual Result<std::vector<DavObjectRow>> ListDavObjectsInRange(int64_t collection_id,
                                                                  std::optional<int64_t> start_ms,
                                                                  std::optional<int64_t> end_ms,
                                                                  const std::string& after_name,
                                                                  size_t limit) = 0;
  // Members changed or removed after `since_seq`, by modseq then name.
  virtual Result<std::vector<DavChange>> DavChangesSince(int64_t collection_id, int64_t since_seq,
                                                         size_t limit) = 0;
  virtual Result<std::vector<DavDeadProp>> ListDavCollectionProps(int64_t collection_id) = 0;

  // ---- Nextcloud clients ----
  virtual Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(
      const std::string& login_token) = 0;
  virtual Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(const Digest& poll_hash) = 0;
  virtual Result<std::optional<NcUploadRow>> GetNcUpload(int64_t user_id,
                                                         const std::string& name) = 0;
  // By number (numerically).
  virtual Result<std::vector<NcUploadPart>> ListNcUploadParts(int64_t upload_id) = 0;
  virtual Result<std::vector<NcUploadRow>> ListExpiredNcUploads(int64_t now_ms, size_t limit) = 0;

  // ---- Media and search ----
  virtual Result<JobCounts> CountJobs(int64_t now_ms) = 0;
  // Whether a job is due and free (cheap: workers ask before claiming).
  virtual Result<bool> JobDue(int64_t now_ms) = 0;
  // Jobs that failed at least once, most recent attempt first.
  virtual Result<std::vector<JobRow>> ListRetryingJobs(size_t limit) = 0;
  virtual Result<std::optional<DerivedRow>> GetDerived(const Digest& hash, int variant) = 0;
  // Derived rows after (hash, variant), in that order (fsck).
  virtual Result<std::vector<DerivedRow>> ListDerived(const Digest& after_hash, int after_variant,
                                                      size_t limit) = 0;
  // Live files in any of `drive_ids` whose text matches `match` (an AND of
  // FTS5 phrases, as search::FtsQuery writes it), best first by BM25 rank
  // then id, after `after`; at most `limit`.
  virtual Result<std::vector<TextHit>> SearchText(
      const std::vector<int64_t>& drive_ids, const std::string& match,
      const std::optional<std::pair<double, int64_t>>& after, size_t limit, int64_t viewer) = 0;
  // The highlighted excerpt of each node's text: matched runs between \x02
  // and \x03, from the first of `matches` the node's text matches. Nodes
  // that match none (or have no text) are left out.
  virtual Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
      const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) = 0;
  // Whether the node has extracted text (tests, the admin page).
  virtual Result<bool> HasText(int64_t node_id) = 0;
  // Live photos of a drive, newest first ((taken_at, node id) before
  // `before`), with their nodes.
  virtual Result<std::vector<std::pair<PhotoRow, NodeRow>>> ListPhotos(
      int64_t drive_id, const std::optional<std::pair<int64_t, int64_t>>& before, size_t limit,
      int64_t viewer) = 0;
  // Live photos of a drive per month ("YYYY-MM"), newest month first.
  virtual Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(int64_t drive_id) = 0;
  // Live photos with a position, grouped in cells of `cell_deg` degrees.
  virtual Result<std::vector<PhotoPlace>> PhotoPlaces(int64_t drive_id, double cell_deg) = 0;
  virtual Result<std::optional<PhotoRow>> GetPhoto(int64_t node_id) = 0;
  // Music of a drive (live files only): artists after `after_key`, albums
  // (of one artist when `artist_key` is set) after (artist_key, album_key),
  // tracks (of one artist and/or album) after `after`, each in key order.
  virtual Result<std::vector<ArtistRow>> ListArtists(int64_t drive_id,
                                                     const std::optional<std::string>& after_key,
                                                     size_t limit) = 0;
  virtual Result<std::vector<AlbumRow>> ListAlbums(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::pair<std::string, std::string>>& after, size_t limit) = 0;
  virtual Result<std::vector<std::pair<TrackRow, NodeRow>>> ListTracks(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::string>& album_key, const std::optional<TrackCursor>& after,
      size_t limit, int64_t viewer) = 0;
  virtual Result<std::optional<TrackRow>> GetTrack(int64_t node_id) = 0;
  virtual Result<std::optional<PlaylistRow>> GetPlaylist(const std::string& public_id) = 0;
  virtual Result<std::vector<PlaylistRow>> ListPlaylists(int64_t user_id) = 0;
  // The items in order: their nodes (live or trashed; the caller filters).
  virtual Result<std::vector<NodeRow>> PlaylistItems(int64_t playlist_id, int64_t viewer) = 0;

  // ---- Sharing ----

  virtual Result<std::optional<GroupRow>> GetGroup(int64_t id) = 0;
  virtual Result<std::optional<GroupRow>> GetGroupByPublicId(const std::string& public_id) = 0;
  // Case-insensitively.
  virtual Result<std::optional<GroupRow>> GetGroupByName(const std::string& name) = 0;
  // Groups with lower(name) > `after_key`, by name.
  virtual Result<std::vector<GroupRow>> ListGroups(const std::string& after_key, size_t limit) = 0;
  // Direct members of a group: groups first, then users, each by name.
  virtual Result<std::vector<GroupMemberRow>> ListGroupMembers(int64_t group_id, size_t limit) = 0;
  // Every group the user belongs to, directly or through nested groups.
  virtual Result<std::vector<int64_t>> GroupsOfUser(int64_t user_id) = 0;
  // Whether `member` is `container` or lies (transitively) inside it.
  virtual Result<bool> GroupContains(int64_t container, int64_t member) = 0;

  // Grants reaching `node_id` (on it or an ancestor) for the user or one
  // of `groups`, unexpired at `now_ms`.
  virtual Result<std::vector<GrantHit>> GrantsReaching(int64_t node_id, int64_t user_id,
                                                       const std::vector<int64_t>& groups,
                                                       int64_t now_ms) = 0;
  // Joined (node and grantee fields filled).
  virtual Result<std::optional<GrantRow>> GetGrantByPublicId(const std::string& public_id) = 0;
  // The grants on one node, joined, by id.
  virtual Result<std::vector<GrantRow>> ListNodeGrants(int64_t node_id) = 0;
  // Live nodes granted to the user or one of `groups` (unexpired at
  // `now_ms`), outside drives the user owns, by node id after `after_node`.
  virtual Result<std::vector<SharedNode>> ListSharedWith(int64_t user_id,
                                                         const std::vector<int64_t>& groups,
                                                         int64_t now_ms, int64_t after_node,
                                                         size_t limit) = 0;
  // Whether a grant names the user or the user is in any group: when not,
  // nothing is shared with it (two index probes, where resolving groups and
  // ListSharedWith build temporary tables).
  virtual Result<bool> MayHoldGrants(int64_t user_id) = 0;
  // The kinds of unexpired shares on each of `node_ids` that have any —
  // 0: a grant to a user, 1: to a group, 3: a link (Nextcloud's share
  // types) — made by `created_by` (0: by anyone), by node id then kind.
  virtual Result<std::vector<std::pair<int64_t, int>>> ListShareTypes(
      const std::vector<int64_t>& node_ids, int64_t created_by, int64_t now_ms) = 0;
  // The user's renamed or moved received shares, by node id.
  virtual Result<std::vector<ShareMountRow>> ListShareMounts(int64_t user_id) = 0;
  // Grants on nodes of drives the user owns, or that the user created,
  // joined, by id after `after_id`.
  virtual Result<std::vector<GrantRow>> ListSharedBy(int64_t user_id, int64_t after_id,
                                                     size_t limit) = 0;
  // Public links (joined with their node).
  virtual Result<std::optional<LinkRow>> FindLink(const Digest& token_hash) = 0;
  virtual Result<std::optional<LinkRow>> GetLinkByPublicId(const std::string& public_id) = 0;
  virtual Result<std::vector<LinkRow>> ListNodeLinks(int64_t node_id) = 0;
  // Links on nodes of drives the user owns or that the user made, by id
  // after `after_id`.
  virtual Result<std::vector<LinkRow>> ListLinksBy(int64_t user_id, int64_t after_id,
                                                   size_t limit) = 0;
  // Whether `node_id` is `ancestor_id` or lies below it.
  virtual Result<bool> NodeWithin(int64_t node_id, int64_t ancestor_id) = 0;
  // For fsck: public ids of grants whose node, grantee or (nested) group
  // membership points at a row that does not exist, and of memberships
  // that form a cycle.
  virtual Result<std::vector<std::string>> DanglingSharingRows(size_t limit) = 0;

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
  // Drives whose props_bytes differs from the bytes of their nodes' dead
  // properties, as (public id, stored, recomputed) (fsck).
  virtual Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> PropsBytesMismatches(
      size_t limit) = 0;

  // ---- File versions ----
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

  // ---- Upload sessions ----
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

class WriteTxn : public ReadTxn {
 public:
  // New manifest with refs = 0 and its chunk list. AlreadyExists if the hash is known.
  virtual Result<int64_t> InsertManifest(const Digest& hash, uint64_t size,
                                         const std::vector<ManifestChunk>& chunks) = 0;
  virtual Status SetManifestRefs(int64_t id, int64_t refs) = 0;
  // Replaces the manifest's verified client checksums (ManifestChecksums).
  virtual Status SetManifestChecksums(int64_t id, const std::string& checksums) = 0;
  // Removes the manifest and its chunk list.
  virtual Status DeleteManifest(int64_t id) = 0;

  virtual Status InsertChunk(const ChunkRow& row) = 0;
  virtual Status SetChunkRefs(const Digest& hash, int64_t refs,
                              std::optional<int64_t> orphaned_at_ms) = 0;
  virtual Status DeleteChunk(const Digest& hash) = 0;
  // Keeps `data` (the chunk's bytes) in its row: the chunk becomes inline,
  // readable without the chunk store. NotFound without a row.
  virtual Status SetChunkData(const Digest& hash, const std::string& data) = 0;

  // AlreadyExists if `name` is pinned.
  virtual Status InsertPin(const std::string& name, int64_t manifest_id) = 0;
  virtual Status DeletePin(const std::string& name) = 0;

  // AlreadyExists when the name (case-insensitively) or email is taken.
  // Fills `row.id`.
  virtual Status InsertUser(UserRow& row) = 0;
  // Writes every mutable field of `row` (matched by id). NotFound if gone.
  virtual Status UpdateUser(const UserRow& row) = 0;

  virtual Result<int64_t> InsertAppPassword(const AppPasswordRow& row) = 0;
  virtual Status DeleteAppPassword(int64_t user_id, int64_t id) = 0;
  // Every app password of the user; returns how many went.
  virtual Result<int64_t> DeleteAppPasswords(int64_t user_id) = 0;
  virtual Status TouchAppPassword(int64_t id, int64_t now_ms) = 0;

  // Fills `row.id`.
  virtual Status InsertSession(SessionRow& row) = 0;
  // `rotated`: a refresh replaced it (sets rotated_at too).
  virtual Status RevokeSession(int64_t id, int64_t now_ms, bool rotated = false) = 0;
  virtual Status RevokeSessionFamily(const std::string& family_id, int64_t now_ms) = 0;
  // Every live session of the user except `keep_id` (0: none kept).
  virtual Status RevokeUserSessions(int64_t user_id, int64_t keep_id, int64_t now_ms) = 0;

  virtual Status SetSetting(const std::string& key, const std::string& value) = 0;

  // Inserts or updates the process's row; drops rows silent since
  // `forget_before_ms` (processes that died without EndProcess).
  virtual Status BeatProcess(const ProcessRow& row, int64_t forget_before_ms) = 0;
  virtual Status EndProcess(const std::string& id) = 0;

  // Leases of installation-wide chores (migrations/0030): `holder` takes
  // lease `name` until `until_ms` when nobody holds it (or its holder's
  // time ran out before `now_ms`) and the chore was last done at or
  // before `done_by_ms`, or renews it when it is already `holder`'s.
  // True: `holder` has it now.
  virtual Result<bool> TakeLease(const std::string& name, const std::string& holder, int64_t now_ms,
                                 int64_t until_ms, int64_t done_by_ms) = 0;
  // Gives the lease back when `holder` has it: the chore was done at
  // `done_at_ms`.
  virtual Status ReleaseLease(const std::string& name, const std::string& holder,
                              int64_t done_at_ms) = 0;

  // Adds `count` failures to `key` at `now_ms` (after a lock has ended
  // the count starts over) and locks the key until now_ms + lockout_ms
  // once it reaches `max_failures`; returns the row as stored.
  virtual Result<SignInFailureRow> AddSignInFailures(const std::string& key, int64_t count,
                                                     int64_t max_failures, int64_t lockout_ms,
                                                     int64_t now_ms) = 0;
  // A success: forgets the key's failures unless it is locked at `now_ms`
  // (a lock holds until it ends, wherever the right password is given).
  virtual Status ClearSignInFailures(const std::string& key, int64_t now_ms) = 0;
  // Deletes rows not written since `before_ms` whose lock has ended.
  virtual Result<int64_t> PurgeSignInFailures(int64_t before_ms, int64_t now_ms) = 0;
  // Inserts `key` only if absent; returns the stored value either way.
  virtual Result<std::string> SetSettingIfAbsent(const std::string& key,
                                                 const std::string& value) = 0;

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
  // Fills `row.id`. AlreadyExists when a live sibling has the same name_key.
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

  // Dead properties; each keeps the drive's props_bytes in step.
  virtual Status SetDeadProp(int64_t node_id, const DeadProp& p) = 0;
  virtual Status RemoveDeadProp(int64_t node_id, const std::string& ns,
                                const std::string& name) = 0;
  virtual Status CopyDeadProps(int64_t from_node, int64_t to_node) = 0;

  // Quota reservations (see ReservedBytes). UpdateReservation: NotFound
  // when the reservation is gone (expired and swept).
  virtual Result<int64_t> InsertReservation(int64_t drive_id, int64_t bytes,
                                            int64_t expires_at_ms) = 0;
  virtual Status UpdateReservation(int64_t id, int64_t bytes, int64_t expires_at_ms) = 0;
  virtual Status DeleteReservation(int64_t id) = 0;
  virtual Result<int64_t> DeleteExpiredReservations(int64_t now_ms) = 0;

  virtual Status InsertDavLock(const DavLockRow& row) = 0;
  virtual Status RefreshDavLock(const std::string& token, int64_t timeout_s,
                                int64_t expires_at_ms) = 0;
  virtual Status DeleteDavLock(const std::string& token) = 0;
  // Drops the locks at `path` and below it (the resource went away).
  virtual Status DeleteDavLocksAt(int64_t drive_id, const std::string& path) = 0;

  // Sharing. InsertGroup fills `row.id`; AlreadyExists when the name is
  // taken (case-insensitively).
  virtual Status InsertGroup(GroupRow& row) = 0;
  virtual Status RenameGroup(int64_t id, const std::string& name) = 0;
  virtual Status DeleteGroup(int64_t id) = 0;
  // AlreadyExists when already a direct member.
  virtual Status AddGroupMember(int64_t group_id, bool is_group, int64_t member_id) = 0;
  // NotFound when not a direct member.
  virtual Status RemoveGroupMember(int64_t group_id, bool is_group, int64_t member_id) = 0;
  // Fills `row.id`. AlreadyExists when the grantee already has a grant on
  // the node.
  virtual Status InsertGrant(GrantRow& row) = 0;
  // Writes role, may_reshare and expires_at of `row` (matched by id).
  virtual Status UpdateGrant(const GrantRow& row) = 0;
  virtual Status DeleteGrant(int64_t id) = 0;
  // Inserts or replaces the row of (user_id, node_id).
  virtual Status PutShareMount(const ShareMountRow& row) = 0;
  // Removes the row of (user_id, node_id), if any.
  virtual Status DeleteShareMount(int64_t user_id, int64_t node_id) = 0;
  // Fills `row.id`.
  virtual Status InsertLink(LinkRow& row) = 0;
  // Writes role, password_hash, expires_at, max_downloads and label.
  virtual Status UpdateLink(const LinkRow& row) = 0;
  virtual Status DeleteLink(int64_t id) = 0;
  // Counts one download if the link's limit allows it (atomically: two
  // concurrent downloads never both take the last one). False: exhausted.
  virtual Result<bool> TakeLinkDownload(int64_t id) = 0;

  // Favorites and recent entries.
  virtual Status AddFavorite(int64_t user_id, int64_t node_id, int64_t now_ms) = 0;
  virtual Status RemoveFavorite(int64_t user_id, int64_t node_id) = 0;
  // Records use of the node; keeps the user's newest `keep` entries.
  virtual Status TouchRecent(int64_t user_id, int64_t node_id, int64_t now_ms, size_t keep) = 0;

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

  // ---- Groupware ----

  // Fills `row.id`. AlreadyExists when the account has a collection of that
  // kind and name.
  virtual Status InsertDavCollection(DavCollectionRow& row) = 0;
  // Shares the collection with a user or group (or changes its access).
  virtual Status SetDavShare(int64_t collection_id, bool is_group, int64_t grantee_id,
                             bool read_only, int64_t at_ms) = 0;
  // Ends that share; false when there was none.
  virtual Result<bool> RemoveDavShare(int64_t collection_id, bool is_group, int64_t grantee_id) = 0;
  // Writes the descriptive fields (display name … components).
  virtual Status UpdateDavCollection(const DavCollectionRow& row) = 0;
  virtual Status DeleteDavCollection(int64_t id) = 0;  // and its objects
  // Creates or replaces the object `row.name`: the collection's sync_seq
  // grows by one and becomes the object's modseq (set in `row`); a
  // tombstone of the name goes. AlreadyExists when another name holds the
  // UID.
  virtual Status PutDavObject(DavObjectRow& row) = 0;
  // Removes the object and leaves a tombstone at the next sync_seq.
  // NotFound when absent.
  virtual Status DeleteDavObject(int64_t collection_id, const std::string& name) = 0;
  // Sets (value) or removes (nullopt) a dead property of a collection.
  virtual Status SetDavCollectionProp(int64_t collection_id, const std::string& ns,
                                      const std::string& name,
                                      const std::optional<std::string>& value) = 0;

  // ---- Media and search ----
  // Leases the oldest due job for `lease_ms` and counts the attempt;
  // nullopt when none is due.
  virtual Result<std::optional<JobRow>> ClaimJob(int64_t now_ms, int64_t lease_ms) = 0;
  // Retires the job unless it was requested again since it was claimed
  // (gen moved on): then it is only released, due at once.
  virtual Status FinishJob(const JobRow& job) = 0;
  // Releases the job until `retry_at_ms` with its error.
  virtual Status FailJob(const JobRow& job, const std::string& error, int64_t retry_at_ms) = 0;
  // Replaces the node's extracted text (empty: none).
  virtual Status PutText(int64_t node_id, const std::string& text) = 0;
  // One bounded step (about `pages` pages written) of merging the
  // full-text index's segments into one when it has more than a few; true
  // when it did work (call again, in a new transaction, until false).
  virtual Result<bool> CompactTextIndex(int64_t pages) = 0;
  virtual Status PutDerived(const DerivedRow& row) = 0;
  virtual Status DeleteDerived(const Digest& hash, int variant) = 0;
  virtual Status PutPhoto(const PhotoRow& row) = 0;
  virtual Status PutTrack(const TrackRow& row) = 0;
  virtual Status InsertPlaylist(PlaylistRow& row) = 0;        // sets id
  virtual Status UpdatePlaylist(const PlaylistRow& row) = 0;  // name, updated_at
  virtual Status DeletePlaylist(int64_t id) = 0;
  // Replaces the items, in this order.
  virtual Status SetPlaylistItems(int64_t playlist_id, const std::vector<int64_t>& node_ids) = 0;
  // Deletes up to `limit` derived rows whose content no manifest holds any
  // more and returns them (their files go next).
  virtual Result<std::vector<DerivedRow>> TakeOrphanDerived(size_t limit) = 0;

  // ---- Nextcloud clients ----
  virtual Status InsertLoginFlow(LoginFlowRow& row) = 0;  // sets id
  // Grants a pending flow (user_id, login_name, sealed). NotFound when it
  // is gone or was granted already.
  virtual Status GrantLoginFlow(const LoginFlowRow& row) = 0;
  virtual Status DeleteLoginFlow(int64_t id) = 0;
  virtual Result<int64_t> DeleteExpiredLoginFlows(int64_t now_ms) = 0;
  // AlreadyExists when the user has an upload of that name.
  virtual Status InsertNcUpload(NcUploadRow& row) = 0;  // sets id
  virtual Status DeleteNcUpload(int64_t id) = 0;        // and its parts
  // Sets the part `number` (replacing one sent before); returns the session
  // id it replaced, if any.
  virtual Result<std::optional<std::string>> PutNcUploadPart(int64_t upload_id,
                                                             const NcUploadPart& part) = 0;
};

class MetaStore {
 public:
  virtual ~MetaStore() = default;

  // Runs `fn` in a read transaction over one consistent snapshot.
  virtual Status Read(const std::function<Status(ReadTxn&)>& fn) = 0;
  // Runs `fn` in the (serialized) write transaction; commits iff `fn`
  // returns OK and the commit is durable, else rolls back and returns the
  // error. Aborted when another process held the database too long.
  // Concurrent calls may share one transaction and one durable commit
  // (group commit): each `fn` still sees the writes queued before it and
  // fails alone, but may run on another caller's thread.
  virtual Status Write(const std::function<Status(WriteTxn&)>& fn) = 0;

  // Highest applied migration.
  virtual Result<int> SchemaVersion() = 0;

  // Write calls served and the durable commits that served them (fewer
  // when concurrent writes shared a commit), for /metrics.
  struct WriteStats {
    uint64_t writes = 0;
    uint64_t commits = 0;
  };
  virtual WriteStats Stats() const = 0;
};

}  // namespace nubo::meta
