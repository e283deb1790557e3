#include "meta/sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "meta/migrations.h"
#include "meta/pg/pg_text.h"
#include "meta/sql/pool.h"
#include "meta/sql/sql_txn.h"
#include "meta/sqlite/group_commit.h"
#include "meta/sqlite/sqlite_conn.h"
#include "meta/sqlite/sqlite_groupware.h"
#include "meta/sqlite/sqlite_history.h"
#include "meta/sqlite/sqlite_media.h"
#include "meta/sqlite/sqlite_music.h"
#include "meta/sqlite/sqlite_nc.h"
#include "util/time.h"

namespace nubo::meta {

using namespace sqlite;  // NOLINT: the connection helpers of this backend

namespace {

constexpr const char* kUserCols =
    "id, public_id, username, email, display_name, password_hash, role, active, quota_bytes, "
    "credentials_version, created_at, last_login_at";

UserRow UserFrom(const Stmt& s) {
  UserRow u;
  u.id = s.Int(0);
  u.public_id = s.Text(1);
  u.username = s.Text(2);
  if (!s.IsNull(3)) u.email = s.Text(3);
  u.display_name = s.Text(4);
  u.password_hash = s.Text(5);
  u.role = s.Text(6);
  u.active = s.Int(7) != 0;
  if (!s.IsNull(8)) u.quota_bytes = s.Int(8);
  u.credentials_version = s.Int(9);
  u.created_at_ms = s.Int(10);
  if (!s.IsNull(11)) u.last_login_at_ms = s.Int(11);
  return u;
}

AppPasswordRow AppPasswordFrom(const Stmt& s) {
  AppPasswordRow a;
  a.id = s.Int(0);
  a.user_id = s.Int(1);
  a.label = s.Text(2);
  a.secret_hash = s.Hash(3);
  a.created_at_ms = s.Int(4);
  if (!s.IsNull(5)) a.last_used_at_ms = s.Int(5);
  a.scopes = static_cast<uint32_t>(s.Int(6));
  return a;
}

std::string Lower(const std::string& v) {
  std::string out = v;
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

constexpr const char* kSessionSelect =
    "SELECT id, public_id, user_id, family_id, refresh_hash, created_at, expires_at, revoked_at, "
    "user_agent, ip, rotated_at FROM sessions ";

SessionRow SessionFrom(const Stmt& s) {
  SessionRow r;
  r.id = s.Int(0);
  r.public_id = s.Text(1);
  r.user_id = s.Int(2);
  r.family_id = s.Text(3);
  r.refresh_hash = s.Hash(4);
  r.created_at_ms = s.Int(5);
  r.expires_at_ms = s.Int(6);
  if (!s.IsNull(7)) r.revoked_at_ms = s.Int(7);
  r.user_agent = s.Text(8);
  r.ip = s.Text(9);
  if (!s.IsNull(10)) r.rotated_at_ms = s.Int(10);
  return r;
}

ManifestRow ManifestFrom(const Stmt& s) {
  return ManifestRow{s.Int(0), s.Hash(1), static_cast<uint64_t>(s.Int(2)), s.Int(3)};
}
ChunkRow ChunkFrom(const Stmt& s) {
  ChunkRow r{s.Hash(0), static_cast<uint64_t>(s.Int(1)), s.Int(2), std::nullopt};
  if (!s.IsNull(3)) r.orphaned_at_ms = s.Int(3);
  r.inline_data = s.Int(4) != 0;
  return r;
}

constexpr const char* kDriveSelect =
    "SELECT id, public_id, kind, name, owner_id, COALESCE(root_id, 0), change_seq, created_at, "
    "props_bytes, quota_bytes, versions_bytes FROM drives ";

DriveRow DriveFrom(const Stmt& s) {
  DriveRow d;
  d.id = s.Int(0);
  d.public_id = s.Text(1);
  d.kind = s.Text(2);
  d.name = s.Text(3);
  if (!s.IsNull(4)) d.owner_id = s.Int(4);
  d.root_id = s.Int(5);
  d.change_seq = s.Int(6);
  d.created_at_ms = s.Int(7);
  d.props_bytes = s.Int(8);
  if (!s.IsNull(9)) d.quota_bytes = s.Int(9);
  d.versions_bytes = s.Int(10);
  return d;
}

// Node queries bind the viewer as ?1 (for the favorite flag).
#define NUBO_NODE_COLS                                                                         \
  "n.id, n.public_id, n.drive_id, n.parent_id, n.name, n.name_key, n.kind, n.manifest_id, "    \
  "n.size, n.mime, n.mtime, n.ctime, n.tree_seq, n.trashed_at, n.trash_root, n.trash_parent, " \
  "n.created_by, n.updated_by, n.content_hash, "                                               \
  "?1 != 0 AND EXISTS (SELECT 1 FROM favorites f WHERE f.user_id = ?1 AND f.node_id = n.id), " \
  "(SELECT p.public_id FROM nodes p WHERE p.id = n.parent_id), n.sort_key, n.child_count"
constexpr const char* kNodeCols = NUBO_NODE_COLS;
constexpr int kNodeColCount = 23;
constexpr const char* kNodeSelect = "SELECT " NUBO_NODE_COLS " FROM nodes n ";

std::optional<int64_t> OptInt(const Stmt& s, int col) {
  return s.IsNull(col) ? std::nullopt : std::optional<int64_t>(s.Int(col));
}

NodeRow NodeFrom(const Stmt& s) {
  NodeRow n;
  n.id = s.Int(0);
  n.public_id = s.Text(1);
  n.drive_id = s.Int(2);
  n.parent_id = OptInt(s, 3);
  n.name = s.Text(4);
  n.name_key = s.Text(5);
  n.kind = s.Int(6) == 1 ? NodeKind::kFile : NodeKind::kFolder;
  n.manifest_id = OptInt(s, 7);
  n.size = static_cast<uint64_t>(s.Int(8));
  n.mime = s.Text(9);
  n.mtime_ms = s.Int(10);
  n.ctime_ms = s.Int(11);
  n.tree_seq = s.Int(12);
  n.trashed_at_ms = OptInt(s, 13);
  n.trash_root = OptInt(s, 14);
  n.trash_parent = OptInt(s, 15);
  n.created_by = s.Int(16);
  n.updated_by = s.Int(17);
  if (!s.IsNull(18)) n.hash = s.Hash(18);
  n.favorite = s.Int(19) != 0;
  n.parent_public_id = s.Text(20);
  n.sort_key = s.Blob(21);
  n.child_count = s.Int(22);
  return n;
}

// A listing's columns: not the parent and kind its statement fixes, nor the
// trash columns, empty for every live node. Each column is paid per row
// (a 10,000-file listing: 0.92× the time on PostgreSQL, 0.95× on SQLite;
// bench/results/2026-12-04-pg-listing-pages.md).
#define NUBO_LISTED_COLS                                                                        \
  "n.id, n.public_id, n.drive_id, n.name, n.name_key, n.manifest_id, n.size, n.mime, n.mtime, " \
  "n.ctime, n.tree_seq, n.created_by, n.updated_by, n.content_hash, "                           \
  "?1 != 0 AND EXISTS (SELECT 1 FROM favorites f WHERE f.user_id = ?1 AND f.node_id = n.id), "  \
  "n.sort_key, n.child_count"

NodeRow ListedNodeFrom(const Stmt& s, int64_t parent_id, NodeKind kind) {
  NodeRow n;
  n.id = s.Int(0);
  n.public_id = s.Text(1);
  n.drive_id = s.Int(2);
  n.parent_id = parent_id;
  n.name = s.Text(3);
  n.name_key = s.Text(4);
  n.kind = kind;
  n.manifest_id = OptInt(s, 5);
  n.size = static_cast<uint64_t>(s.Int(6));
  n.mime = s.Text(7);
  n.mtime_ms = s.Int(8);
  n.ctime_ms = s.Int(9);
  n.tree_seq = s.Int(10);
  n.created_by = s.Int(11);
  n.updated_by = s.Int(12);
  if (!s.IsNull(13)) n.hash = s.Hash(13);
  n.favorite = s.Int(14) != 0;
  n.sort_key = s.Blob(15);
  n.child_count = s.Int(16);
  return n;
}

// Parameters ?3..?18 shared by InsertNode and UpdateNode.
void BindNodeFields(Stmt& s, const NodeRow& n) {
  BindOpt(s, 3, n.parent_id);
  s.Bind(4, n.name).Bind(5, n.name_key).BindBlob(18, n.sort_key);
  BindOpt(s, 7, n.manifest_id);
  s.Bind(8, static_cast<int64_t>(n.size)).Bind(9, n.mime).Bind(10, n.mtime_ms).Bind(12, n.tree_seq);
  BindOpt(s, 13, n.trashed_at_ms);
  BindOpt(s, 14, n.trash_root);
  BindOpt(s, 15, n.trash_parent);
  s.Bind(17, n.updated_by);
}

// Listing statements, one per (sort, direction, first page or not); built
// once so each keeps a stable address for the statement cache. Parameters:
// ?1 viewer, ?2 parent, ?3 kind, ?4 limit, ?5 sort column, ?6 sort_key, ?7 id.
const std::string& ListSql(NodeSort sort, bool desc, bool after) {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (int so = 0; so < 4; ++so) {
      for (int d = 0; d < 2; ++d) {
        for (int a = 0; a < 2; ++a) {
          const char* key = so == 1 ? "n.size" : so == 2 ? "n.mtime" : so == 3 ? "n.mime" : nullptr;
          const char* dir = d ? " DESC" : "";
          // Every row's parent is the listed folder: the caller fills
          // parent_public_id once instead of a lookup per row.
          std::string q = "SELECT " NUBO_LISTED_COLS
                          " FROM nodes n "
                          "WHERE n.parent_id = ?2 AND n.kind = ?3 AND n.trash_root IS NULL ";
          if (a) {
            q += key ? std::string("AND (") + key + ", n.sort_key, n.id) " + (d ? "<" : ">") +
                           " (?5, ?6, ?7) "
                     : std::string("AND (n.sort_key, n.id) ") + (d ? "<" : ">") + " (?6, ?7) ";
          }
          q += "ORDER BY ";
          if (key) q += std::string(key) + dir + ", ";
          q += std::string("n.sort_key") + dir + ", n.id" + dir + " LIMIT ?4";
          v.push_back(std::move(q));
        }
      }
    }
    return v;
  }();
  return all[static_cast<size_t>(sort) * 4 + (desc ? 2 : 0) + (after ? 1 : 0)];
}

// Bytes a dead property costs the drive: its namespace, name and value
// (SQLite's length() counts characters unless given a blob), by dialect.
constexpr const char* kPropBytes[2] = {
    "length(CAST(ns AS BLOB)) + length(CAST(name AS BLOB)) + length(CAST(value AS BLOB))",
    "octet_length(ns) + octet_length(name) + octet_length(value)"};

constexpr const char* kDavLockSelect =
    "SELECT token, drive_id, path, depth_infinity, exclusive, owner_xml, user_id, timeout_s, "
    "expires_at, "
    "root_href FROM dav_locks ";

DavLockRow DavLockFrom(const Stmt& s) {
  DavLockRow l;
  l.token = s.Text(0);
  l.drive_id = s.Int(1);
  l.path = s.Text(2);
  l.depth_infinity = s.Int(3) != 0;
  l.exclusive = s.Int(4) != 0;
  l.owner_xml = s.Text(5);
  l.user_id = s.Int(6);
  l.timeout_s = s.Int(7);
  l.expires_at_ms = s.Int(8);
  l.root_href = s.Text(9);
  return l;
}

GroupRow GroupFrom(const Stmt& s) { return GroupRow{s.Int(0), s.Text(1), s.Text(2), s.Int(3)}; }

// Grants joined with their node and grantee (GrantRow's read-only fields).
constexpr const char* kGrantSelect =
    "SELECT g.id, g.public_id, g.node_id, g.grantee_user, g.grantee_group, g.role, g.may_reshare, "
    "g.expires_at, g.created_by, g.created_at, n.public_id, n.drive_id, "
    "COALESCE(u.public_id, x.public_id), COALESCE(u.username, x.name) FROM grants g "
    "JOIN nodes n ON n.id = g.node_id LEFT JOIN users u ON u.id = g.grantee_user "
    "LEFT JOIN user_groups x ON x.id = g.grantee_group";

GrantRow GrantFrom(const Stmt& s) {
  GrantRow g;
  g.id = s.Int(0);
  g.public_id = s.Text(1);
  g.node_id = s.Int(2);
  if (!s.IsNull(3)) g.grantee_user = s.Int(3);
  if (!s.IsNull(4)) g.grantee_group = s.Int(4);
  g.role = static_cast<int>(s.Int(5));
  g.may_reshare = s.Int(6) != 0;
  if (!s.IsNull(7)) g.expires_at_ms = s.Int(7);
  if (!s.IsNull(8)) g.created_by = s.Int(8);
  g.created_at_ms = s.Int(9);
  g.node_public_id = s.Text(10);
  g.drive_id = s.Int(11);
  g.grantee_public_id = s.Text(12);
  g.grantee_name = s.Text(13);
  return g;
}

// A JSON array of ids for json_each() (a variable-length IN list in one
// prepared statement).
std::string IdList(const std::vector<int64_t>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(ids[i]);
  }
  return out + "]";
}

constexpr const char* kLinkSelect =
    "SELECT l.id, l.public_id, l.token_hash, l.token_hint, l.node_id, l.role, l.password_hash, "
    "l.expires_at, l.max_downloads, l.downloads, l.label, l.created_by, l.created_at, n.public_id, "
    "n.drive_id FROM links l JOIN nodes n ON n.id = l.node_id";

LinkRow LinkFrom(const Stmt& s) {
  LinkRow l;
  l.id = s.Int(0);
  l.public_id = s.Text(1);
  l.token_hash = s.Hash(2);
  l.token_hint = s.Text(3);
  l.node_id = s.Int(4);
  l.role = static_cast<int>(s.Int(5));
  if (!s.IsNull(6)) l.password_hash = s.Text(6);
  if (!s.IsNull(7)) l.expires_at_ms = s.Int(7);
  if (!s.IsNull(8)) l.max_downloads = s.Int(8);
  l.downloads = s.Int(9);
  l.label = s.Text(10);
  if (!s.IsNull(11)) l.created_by = s.Int(11);
  l.created_at_ms = s.Int(12);
  l.node_public_id = s.Text(13);
  l.drive_id = s.Int(14);
  return l;
}

class SqliteTxn final : public WriteTxn {
 public:
  explicit SqliteTxn(sql::Conn& c) : c_(c) {}

  // SQLite's content index is FTS5, that engine's own: its statements need
  // the SQLite connection itself (PostgreSQL's: meta/pg/pg_text.h).
  Conn& lite() { return static_cast<Conn&>(c_); }
  // 1 on PostgreSQL: the index of a statement written once per dialect.
  int pg() const { return c_.dialect() == sql::Dialect::kPostgres ? 1 : 0; }

  Result<std::optional<ManifestRow>> FindManifest(const Digest& hash) override {
    NUBO_PREPARE(s, c_, "SELECT id, hash, size, refs FROM manifests WHERE hash = ?");
    s.Bind(1, hash);
    return One<ManifestRow>(s, ManifestFrom);
  }
  Result<std::optional<ManifestRow>> GetManifest(int64_t id) override {
    NUBO_PREPARE(s, c_, "SELECT id, hash, size, refs FROM manifests WHERE id = ?");
    s.Bind(1, id);
    return One<ManifestRow>(s, ManifestFrom);
  }
  Result<std::vector<ManifestChunk>> ManifestChunks(int64_t manifest_id) override {
    // Inline chunks' bytes come along (tiny files: one read answers all).
    NUBO_PREPARE(s, c_,
                 "SELECT m.seq, m.chunk_hash, m.\"offset\", m.size, c.data FROM manifest_chunks m "
                 "LEFT JOIN chunks c ON c.hash = m.chunk_hash WHERE m.manifest_id = ? "
                 "ORDER BY m.seq");
    s.Bind(1, manifest_id);
    std::vector<ManifestChunk> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      out.push_back(ManifestChunk{static_cast<uint32_t>(s.Int(0)), s.Hash(1),
                                  static_cast<uint64_t>(s.Int(2)),
                                  static_cast<uint32_t>(s.Int(3))});
      if (!s.IsNull(4)) out.back().data = s.Blob(4);
    }
    return out;
  }
  Result<std::string> ManifestChecksums(int64_t manifest_id) override {
    NUBO_PREPARE(s, c_, "SELECT checksums FROM manifests WHERE id = ? AND checksums IS NOT NULL");
    s.Bind(1, manifest_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Text(0) : std::string();
  }
  Result<std::vector<std::pair<int64_t, std::string>>> ListManifestChecksums(
      const std::vector<int64_t>& manifest_ids) override {
    const std::string ids = JsonIds(manifest_ids);
    NUBO_PREPARE(s, c_,
                 "SELECT id, checksums FROM manifests WHERE id IN (SELECT value FROM json_each(?)) "
                 "AND checksums IS NOT NULL");
    s.Bind(1, ids);
    return Rows<std::pair<int64_t, std::string>>(
        s, [](const Stmt& r) { return std::make_pair(r.Int(0), r.Text(1)); });
  }
  Result<std::optional<ChunkRow>> GetChunk(const Digest& hash) override {
    NUBO_PREPARE(
        s, c_, "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks WHERE hash = ?");
    s.Bind(1, hash);
    return One<ChunkRow>(s, ChunkFrom);
  }
  Result<std::optional<std::string>> ChunkData(const Digest& hash) override {
    NUBO_PREPARE(s, c_, "SELECT data FROM chunks WHERE hash = ? AND data IS NOT NULL");
    s.Bind(1, hash);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return std::optional<std::string>();
    return std::optional<std::string>(s.Blob(0));
  }
  Result<std::vector<ManifestRow>> ListManifests(int64_t after_id, size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, hash, size, refs FROM manifests WHERE id > ? ORDER BY id LIMIT ?");
    s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
    return Rows<ManifestRow>(s, ManifestFrom);
  }
  Result<std::vector<ChunkRow>> ListChunks(const std::optional<Digest>& after,
                                           size_t limit) override {
    std::vector<ChunkRow> out;
    auto collect = [&](Stmt& s) -> Status {
      for (;;) {
        NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) return Status::Ok();
        out.push_back(ChunkFrom(s));
      }
    };
    if (after) {
      NUBO_PREPARE(s, c_,
                   "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks WHERE hash "
                   "> ? ORDER BY hash LIMIT ?");
      s.Bind(1, *after).Bind(2, static_cast<int64_t>(limit));
      NUBO_RETURN_IF_ERROR(collect(s));
    } else {
      NUBO_PREPARE(s, c_,
                   "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks ORDER BY "
                   "hash LIMIT ?");
      s.Bind(1, static_cast<int64_t>(limit));
      NUBO_RETURN_IF_ERROR(collect(s));
    }
    return out;
  }
  Result<std::vector<ChunkRow>> ListOrphanChunks(int64_t before_ms, size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks WHERE refs = "
                 "0 AND orphaned_at <= ? "
                 "ORDER BY orphaned_at LIMIT ?");
    s.Bind(1, before_ms).Bind(2, static_cast<int64_t>(limit));
    return Rows<ChunkRow>(s, ChunkFrom);
  }
  Result<std::optional<int64_t>> GetPin(const std::string& name) override {
    NUBO_PREPARE(s, c_, "SELECT manifest_id FROM pins WHERE name = ?");
    s.Bind(1, name);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return std::optional<int64_t>();
    return std::optional<int64_t>(s.Int(0));
  }
  Result<std::vector<std::pair<std::string, int64_t>>> ListPins(const std::string& after,
                                                                size_t limit) override {
    NUBO_PREPARE(s, c_, "SELECT name, manifest_id FROM pins WHERE name > ? ORDER BY name LIMIT ?");
    s.Bind(1, after).Bind(2, static_cast<int64_t>(limit));
    std::vector<std::pair<std::string, int64_t>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      out.emplace_back(s.Text(0), s.Int(1));
    }
    return out;
  }
  Result<std::vector<std::pair<int64_t, int64_t>>> CountManifestReferences() override {
    // Every referencing table: pins and file nodes (live or trashed).
    NUBO_PREPARE(s, c_,
                 "SELECT manifest_id, COUNT(*) FROM (SELECT manifest_id FROM pins UNION ALL "
                 "SELECT manifest_id FROM nodes WHERE manifest_id IS NOT NULL UNION ALL "
                 "SELECT manifest_id FROM file_versions) refs "
                 "GROUP BY manifest_id ORDER BY manifest_id");
    std::vector<std::pair<int64_t, int64_t>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      out.emplace_back(s.Int(0), s.Int(1));
    }
    return out;
  }
  Result<std::vector<std::pair<Digest, int64_t>>> CountChunkReferences() override {
    NUBO_PREPARE(s, c_,
                 "SELECT h, SUM(n) FROM (SELECT chunk_hash AS h, COUNT(DISTINCT manifest_id) AS n "
                 "FROM manifest_chunks GROUP BY chunk_hash UNION ALL "
                 "SELECT chunk_hash, COUNT(*) FROM upload_session_chunks GROUP BY chunk_hash "
                 "UNION ALL SELECT tail_hash, COUNT(*) FROM upload_sessions "
                 "WHERE tail_hash IS NOT NULL GROUP BY tail_hash) refs GROUP BY h ORDER BY h");
    std::vector<std::pair<Digest, int64_t>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) break;
      out.emplace_back(s.Hash(0), s.Int(1));
    }
    return out;
  }

  // ---- File versions and upload sessions (sqlite_history.cc) ----
  Result<std::vector<VersionRow>> ListVersions(int64_t node_id) override {
    return sqlite::ListVersions(c_, node_id);
  }
  Result<std::optional<VersionRow>> GetVersionByPublicId(const std::string& public_id) override {
    return sqlite::GetVersionByPublicId(c_, public_id);
  }
  Result<std::vector<int64_t>> ListVersionedNodes(int64_t after_id, size_t limit) override {
    return sqlite::ListVersionedNodes(c_, after_id, limit);
  }
  Result<std::vector<VersionRow>> ListOldestVersions(int64_t drive_id, size_t limit) override {
    return sqlite::ListOldestVersions(c_, drive_id, limit);
  }
  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> VersionsBytesMismatches(
      size_t limit) override {
    return sqlite::VersionsBytesMismatches(c_, limit);
  }
  Result<std::optional<UploadSessionRow>> GetUploadSession(const std::string& public_id) override {
    return sqlite::GetUploadSession(c_, public_id);
  }
  Result<std::vector<ManifestChunk>> UploadSessionChunks(int64_t session_id) override {
    return sqlite::UploadSessionChunks(c_, session_id);
  }
  Result<bool> ChunkListedIn(const Digest& hash, const std::vector<int64_t>& drive_ids,
                             int64_t also_manifest) override {
    return sqlite::ChunkListedIn(c_, hash, drive_ids, also_manifest);
  }
  Result<std::vector<UploadSessionRow>> ListExpiredUploadSessions(int64_t now_ms,
                                                                  size_t limit) override {
    return sqlite::ListExpiredUploadSessions(c_, now_ms, limit);
  }
  Result<std::vector<UploadSessionRow>> ListDriveUploadSessions(int64_t drive_id,
                                                                size_t limit) override {
    return sqlite::ListDriveUploadSessions(c_, drive_id, limit);
  }
  Status InsertVersion(VersionRow& row) override { return sqlite::InsertVersion(c_, row); }
  Status DeleteVersion(const VersionRow& row) override { return sqlite::DeleteVersion(c_, row); }
  Status InsertUploadSession(UploadSessionRow& row) override {
    return sqlite::InsertUploadSession(c_, row);
  }
  Status UpdateUploadSession(const UploadSessionRow& row) override {
    return sqlite::UpdateUploadSession(c_, row);
  }
  Status DeleteUploadSession(int64_t id) override { return sqlite::DeleteUploadSession(c_, id); }
  Status ClearUploadSessionChunks(int64_t session_id) override {
    return sqlite::ClearUploadSessionChunks(c_, session_id);
  }
  Status AppendUploadSessionChunks(int64_t session_id,
                                   const std::vector<ManifestChunk>& chunks) override {
    return sqlite::AppendUploadSessionChunks(c_, session_id, chunks);
  }

  // ---- Groupware (sqlite_groupware.cc) ----
  Result<std::optional<DavCollectionRow>> GetDavCollection(int64_t user_id, int kind,
                                                           const std::string& name) override {
    return sqlite::GetDavCollection(c_, user_id, kind, name);
  }
  Result<std::vector<DavCollectionRow>> ListDavCollections(int64_t user_id, int kind) override {
    return sqlite::ListDavCollections(c_, user_id, kind);
  }
  Result<std::vector<DavShareRow>> ListDavShares(int64_t collection_id) override {
    return sqlite::ListDavShares(c_, collection_id);
  }
  Result<std::optional<bool>> DavShareAccess(int64_t collection_id, int64_t user_id,
                                             const std::vector<int64_t>& groups) override {
    return sqlite::DavShareAccess(c_, collection_id, user_id, groups);
  }
  Result<std::vector<SharedDavCollection>> ListDavCollectionsSharedWith(
      int64_t user_id, const std::vector<int64_t>& groups, int kind) override {
    return sqlite::ListDavCollectionsSharedWith(c_, user_id, groups, kind);
  }
  Result<std::optional<DavObjectRow>> GetDavObject(int64_t collection_id,
                                                   const std::string& name) override {
    return sqlite::GetDavObject(c_, collection_id, name);
  }
  Result<std::optional<DavObjectRow>> GetDavObjectByUid(int64_t collection_id,
                                                        const std::string& uid) override {
    return sqlite::GetDavObjectByUid(c_, collection_id, uid);
  }
  Status ScanDavObjects(int64_t collection_id, const std::string& after_name, size_t limit,
                        bool with_data,
                        const std::function<Status(const DavObjectRow&)>& fn) override {
    return sqlite::ScanDavObjects(c_, collection_id, after_name, limit, with_data, fn);
  }
  Result<std::vector<DavObjectRow>> ListDavObjectsInRange(int64_t collection_id,
                                                          std::optional<int64_t> start_ms,
                                                          std::optional<int64_t> end_ms,
                                                          const std::string& after_name,
                                                          size_t limit) override {
    return sqlite::ListDavObjectsInRange(c_, collection_id, start_ms, end_ms, after_name, limit);
  }
  Result<std::vector<DavChange>> DavChangesSince(int64_t collection_id, int64_t since_seq,
                                                 size_t limit) override {
    return sqlite::DavChangesSince(c_, collection_id, since_seq, limit);
  }
  Result<std::vector<DavDeadProp>> ListDavCollectionProps(int64_t collection_id) override {
    return sqlite::ListDavCollectionProps(c_, collection_id);
  }
  Status InsertDavCollection(DavCollectionRow& row) override {
    return sqlite::InsertDavCollection(c_, row);
  }
  Status SetDavShare(int64_t collection_id, bool is_group, int64_t grantee_id, bool read_only,
                     int64_t at_ms) override {
    return sqlite::SetDavShare(c_, collection_id, is_group, grantee_id, read_only, at_ms);
  }
  Result<bool> RemoveDavShare(int64_t collection_id, bool is_group, int64_t grantee_id) override {
    return sqlite::RemoveDavShare(c_, collection_id, is_group, grantee_id);
  }
  Status UpdateDavCollection(const DavCollectionRow& row) override {
    return sqlite::UpdateDavCollection(c_, row);
  }
  Status DeleteDavCollection(int64_t id) override { return sqlite::DeleteDavCollection(c_, id); }
  Status PutDavObject(DavObjectRow& row) override { return sqlite::PutDavObject(c_, row); }
  Status DeleteDavObject(int64_t collection_id, const std::string& name) override {
    return sqlite::DeleteDavObject(c_, collection_id, name);
  }
  Status SetDavCollectionProp(int64_t collection_id, const std::string& ns, const std::string& name,
                              const std::optional<std::string>& value) override {
    return sqlite::SetDavCollectionProp(c_, collection_id, ns, name, value);
  }

  // ---- Media and search (sqlite_media.cc) ----
  Result<std::optional<JobRow>> ClaimJob(int64_t now_ms, int64_t lease_ms) override {
    return sqlite::ClaimJob(c_, now_ms, lease_ms);
  }
  Status FinishJob(const JobRow& job) override { return sqlite::FinishJob(c_, job); }
  Status FailJob(const JobRow& job, const std::string& error, int64_t retry_at_ms) override {
    return sqlite::FailJob(c_, job, error, retry_at_ms);
  }
  Status PutText(int64_t node_id, const std::string& text) override {
    if (pg()) return pg::PutText(c_, node_id, text);
    return sqlite::PutText(lite(), node_id, text);
  }
  Result<bool> CompactTextIndex(int64_t pages) override {
    if (pg()) return false;  // nothing to compact
    return sqlite::CompactTextIndex(lite(), pages);
  }
  Status PutDerived(const DerivedRow& row) override { return sqlite::PutDerived(c_, row); }
  Status DeleteDerived(const Digest& hash, int variant) override {
    return sqlite::DeleteDerived(c_, hash, variant);
  }
  Status PutPhoto(const PhotoRow& row) override { return sqlite::PutPhoto(c_, row); }
  Status PutTrack(const TrackRow& row) override { return sqlite::PutTrack(c_, row); }
  Status InsertPlaylist(PlaylistRow& row) override { return sqlite::InsertPlaylist(c_, row); }
  Status UpdatePlaylist(const PlaylistRow& row) override { return sqlite::UpdatePlaylist(c_, row); }
  Status DeletePlaylist(int64_t id) override { return sqlite::DeletePlaylist(c_, id); }
  Status SetPlaylistItems(int64_t playlist_id, const std::vector<int64_t>& node_ids) override {
    return sqlite::SetPlaylistItems(c_, playlist_id, node_ids);
  }
  Result<std::vector<DerivedRow>> TakeOrphanDerived(size_t limit) override {
    return sqlite::TakeOrphanDerived(c_, limit);
  }

  // ---- Nextcloud clients (sqlite_nc.cc) ----
  Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(const std::string& token) override {
    return sqlite::GetLoginFlowByToken(c_, token);
  }
  Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(const Digest& poll_hash) override {
    return sqlite::GetLoginFlowByPoll(c_, poll_hash);
  }
  Result<std::optional<NcUploadRow>> GetNcUpload(int64_t user_id,
                                                 const std::string& name) override {
    return sqlite::GetNcUpload(c_, user_id, name);
  }
  Result<std::vector<NcUploadPart>> ListNcUploadParts(int64_t upload_id) override {
    return sqlite::ListNcUploadParts(c_, upload_id);
  }
  Result<std::vector<NcUploadRow>> ListExpiredNcUploads(int64_t now_ms, size_t limit) override {
    return sqlite::ListExpiredNcUploads(c_, now_ms, limit);
  }
  Status InsertLoginFlow(LoginFlowRow& row) override { return sqlite::InsertLoginFlow(c_, row); }
  Status GrantLoginFlow(const LoginFlowRow& row) override {
    return sqlite::GrantLoginFlow(c_, row);
  }
  Status DeleteLoginFlow(int64_t id) override { return sqlite::DeleteLoginFlow(c_, id); }
  Result<int64_t> DeleteExpiredLoginFlows(int64_t now_ms) override {
    return sqlite::DeleteExpiredLoginFlows(c_, now_ms);
  }
  Status InsertNcUpload(NcUploadRow& row) override { return sqlite::InsertNcUpload(c_, row); }
  Status DeleteNcUpload(int64_t id) override { return sqlite::DeleteNcUpload(c_, id); }
  Result<std::optional<std::string>> PutNcUploadPart(int64_t upload_id,
                                                     const NcUploadPart& part) override {
    return sqlite::PutNcUploadPart(c_, upload_id, part);
  }

  Result<std::optional<UserRow>> GetUserByName(const std::string& username) override {
    static const std::string sql =
        std::string("SELECT ") + kUserCols + " FROM users WHERE name_key = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    std::string key = Lower(username);
    s.Bind(1, key);
    return One<UserRow>(s, UserFrom);
  }
  Result<std::optional<UserRow>> GetUserByEmail(const std::string& email) override {
    static const std::string sql =
        std::string("SELECT ") + kUserCols + " FROM users WHERE email = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    std::string key = Lower(email);
    s.Bind(1, key);
    return One<UserRow>(s, UserFrom);
  }
  Result<std::optional<UserRow>> GetUser(int64_t id) override {
    static const std::string sql = std::string("SELECT ") + kUserCols + " FROM users WHERE id = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, id);
    return One<UserRow>(s, UserFrom);
  }
  Result<std::vector<UserRow>> ListUsers(const std::string& after_key, size_t limit,
                                         const std::string& prefix) override {
    // A prefix is a key range: names are ASCII, so prefix + '\x7f' bounds it.
    static const std::string sql =
        std::string("SELECT ") + kUserCols +
        " FROM users WHERE name_key > ? AND name_key >= ? AND name_key < ? "
        "ORDER BY name_key LIMIT ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    std::string key = Lower(after_key);
    std::string lo = Lower(prefix);
    std::string hi = lo + "\x7f";
    s.Bind(1, key).Bind(2, lo).Bind(3, hi).Bind(4, static_cast<int64_t>(limit));
    return Rows<UserRow>(s, UserFrom);
  }
  Result<int64_t> CountUsers() override {
    NUBO_PREPARE(s, c_, "SELECT COUNT(*) FROM users");
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : 0;
  }
  Result<int64_t> CountActiveAdmins() override {
    NUBO_PREPARE(s, c_, "SELECT COUNT(*) FROM users WHERE role = 'admin' AND active = 1");
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : 0;
  }
  Result<std::optional<AppPasswordRow>> FindAppPassword(const Digest& secret_hash) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, user_id, label, secret_hash, created_at, last_used_at, scopes "
                 "FROM app_passwords WHERE secret_hash = ?");
    s.Bind(1, secret_hash);
    return One<AppPasswordRow>(s, AppPasswordFrom);
  }
  Result<std::vector<AppPasswordRow>> ListAppPasswords(int64_t user_id) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, user_id, label, secret_hash, created_at, last_used_at, scopes "
                 "FROM app_passwords WHERE user_id = ? ORDER BY id");
    s.Bind(1, user_id);
    return Rows<AppPasswordRow>(s, AppPasswordFrom);
  }

  Result<std::optional<SessionRow>> FindSessionByRefresh(const Digest& refresh_hash) override {
    static const std::string sql = std::string(kSessionSelect) + "WHERE refresh_hash = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, refresh_hash);
    return One<SessionRow>(s, SessionFrom);
  }
  Result<std::optional<SessionRow>> GetSession(const std::string& public_id) override {
    static const std::string sql = std::string(kSessionSelect) + "WHERE public_id = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, public_id);
    return One<SessionRow>(s, SessionFrom);
  }
  Result<bool> FamilyHasLiveSession(const std::string& family_id, int64_t now_ms) override {
    NUBO_PREPARE(s, c_,
                 "SELECT 1 FROM sessions WHERE family_id = ? AND revoked_at IS NULL "
                 "AND expires_at > ? LIMIT 1");
    s.Bind(1, family_id).Bind(2, now_ms);
    return s.Step();
  }
  Result<std::vector<SessionRow>> ListSessions(int64_t user_id, int64_t now_ms) override {
    static const std::string sql =
        std::string(kSessionSelect) +
        "WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY id DESC";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, user_id).Bind(2, now_ms);
    return Rows<SessionRow>(s, SessionFrom);
  }
  Result<std::optional<std::string>> GetSetting(const std::string& key) override {
    NUBO_PREPARE(s, c_, "SELECT value FROM settings WHERE key = ?");
    s.Bind(1, key);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return std::optional<std::string>();
    return std::optional<std::string>(s.Text(0));
  }
  Result<std::vector<ProcessRow>> LiveProcesses(int64_t alive_since_ms) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, host, pid, started_at, heartbeat_at, oldest_pin_at FROM "
                 "server_processes WHERE heartbeat_at >= ? ORDER BY started_at, id");
    s.Bind(1, alive_since_ms);
    return Rows<ProcessRow>(s, [](const Stmt& r) {
      ProcessRow p{r.Text(0), r.Text(1), r.Int(2), r.Int(3), r.Int(4), std::nullopt};
      if (!r.IsNull(5)) p.oldest_pin_at_ms = r.Int(5);
      return p;
    });
  }
  Status BeatProcess(const ProcessRow& p, int64_t forget_before_ms) override {
    {
      NUBO_PREPARE(s, c_, "DELETE FROM server_processes WHERE heartbeat_at < ?");
      s.Bind(1, forget_before_ms);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    NUBO_PREPARE(s, c_,
                 "INSERT INTO server_processes (id, host, pid, started_at, heartbeat_at, "
                 "oldest_pin_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                 "heartbeat_at = excluded.heartbeat_at, oldest_pin_at = excluded.oldest_pin_at");
    s.Bind(1, p.id)
        .Bind(2, p.host)
        .Bind(3, p.pid)
        .Bind(4, p.started_at_ms)
        .Bind(5, p.heartbeat_at_ms);
    BindOpt(s, 6, p.oldest_pin_at_ms);
    return s.Exec();
  }
  Status EndProcess(const std::string& id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM server_processes WHERE id = ?");
    s.Bind(1, id);
    return s.Exec();
  }
  Result<bool> TakeLease(const std::string& name, const std::string& holder, int64_t now_ms,
                         int64_t until_ms, int64_t done_by_ms) override {
    // One statement decides: the row's condition is checked where it is
    // changed (the update's WHERE), never read first and then set.
    NUBO_PREPARE(s, c_,
                 "INSERT INTO leases (name, holder, held_until, done_at) VALUES (?1, ?2, ?4, 0) "
                 "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
                 "held_until = excluded.held_until WHERE leases.holder = excluded.holder OR "
                 "((leases.holder IS NULL OR leases.held_until < ?3) AND leases.done_at <= ?5)");
    s.Bind(1, name).Bind(2, holder).Bind(3, now_ms).Bind(4, until_ms).Bind(5, done_by_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() == 1;
  }
  Status ReleaseLease(const std::string& name, const std::string& holder,
                      int64_t done_at_ms) override {
    NUBO_PREPARE(s, c_,
                 "UPDATE leases SET holder = NULL, held_until = 0, done_at = ?3 "
                 "WHERE name = ?1 AND holder = ?2");
    s.Bind(1, name).Bind(2, holder).Bind(3, done_at_ms);
    return s.Exec();
  }
  Result<std::vector<SignInFailureRow>> SignInFailuresSince(int64_t since_ms,
                                                            size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT key, failures, locked_until, updated_at FROM sign_in_failures "
                 "WHERE updated_at >= ? ORDER BY updated_at LIMIT ?");
    s.Bind(1, since_ms).Bind(2, static_cast<int64_t>(limit));
    return Rows<SignInFailureRow>(s, [](const Stmt& r) {
      return SignInFailureRow{r.Text(0), r.Int(1), r.Int(2), r.Int(3)};
    });
  }
  Result<SignInFailureRow> AddSignInFailures(const std::string& key, int64_t count,
                                             int64_t max_failures, int64_t lockout_ms,
                                             int64_t now_ms) override {
    // Writers are serialized on both engines (one SQLite writer; the
    // PostgreSQL store's write lock), so reading then writing is exact.
    SignInFailureRow row{key, 0, 0, now_ms};
    {
      NUBO_PREPARE(s, c_, "SELECT failures, locked_until FROM sign_in_failures WHERE key = ?");
      s.Bind(1, key);
      NUBO_ASSIGN_OR_RETURN(bool found, s.Step());
      if (found) {
        row.failures = s.Int(0);
        row.locked_until_ms = s.Int(1);
      }
    }
    if (row.locked_until_ms != 0 && row.locked_until_ms <= now_ms) {
      row.failures = 0;  // the lock ended: a new window
      row.locked_until_ms = 0;
    }
    row.failures += count;
    if (row.failures >= max_failures && row.locked_until_ms == 0) {
      row.locked_until_ms = now_ms + lockout_ms;
    }
    NUBO_PREPARE(s, c_,
                 "INSERT INTO sign_in_failures (key, failures, locked_until, updated_at) "
                 "VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET failures = "
                 "excluded.failures, locked_until = excluded.locked_until, updated_at = "
                 "excluded.updated_at");
    s.Bind(1, key).Bind(2, row.failures).Bind(3, row.locked_until_ms).Bind(4, now_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return row;
  }
  Status ClearSignInFailures(const std::string& key, int64_t now_ms) override {
    NUBO_PREPARE(s, c_,
                 "DELETE FROM sign_in_failures WHERE key = ? AND (locked_until = 0 OR "
                 "locked_until <= ?)");
    s.Bind(1, key).Bind(2, now_ms);
    return s.Exec();
  }
  Result<int64_t> PurgeSignInFailures(int64_t before_ms, int64_t now_ms) override {
    NUBO_PREPARE(s, c_, "DELETE FROM sign_in_failures WHERE updated_at < ? AND locked_until <= ?");
    s.Bind(1, before_ms).Bind(2, now_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return static_cast<int64_t>(s.changes());
  }
  Status InsertSession(SessionRow& r) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO sessions (public_id, user_id, family_id, refresh_hash, created_at, "
                 "expires_at, "
                 "revoked_at, user_agent, ip) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?) ON CONFLICT DO "
                 "NOTHING RETURNING id");
    s.Bind(1, r.public_id).Bind(2, r.user_id).Bind(3, r.family_id).Bind(4, r.refresh_hash);
    s.Bind(5, r.created_at_ms).Bind(6, r.expires_at_ms).Bind(7, r.user_agent).Bind(8, r.ip);
    NUBO_ASSIGN_OR_RETURN(r.id, InsertedId(s));
    return Status::Ok();
  }
  Status RevokeSession(int64_t id, int64_t now_ms, bool rotated) override {
    NUBO_PREPARE(s, c_,
                 "UPDATE sessions SET revoked_at = ?1, rotated_at = CASE WHEN ?3 <> 0 THEN CAST(?1 "
                 "AS BIGINT) END "
                 "WHERE id = ?2 AND revoked_at IS NULL");
    s.Bind(1, now_ms).Bind(2, id).Bind(3, int64_t{rotated});
    return s.Exec();
  }
  Status RevokeSessionFamily(const std::string& family_id, int64_t now_ms) override {
    NUBO_PREPARE(s, c_,
                 "UPDATE sessions SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL");
    s.Bind(1, now_ms).Bind(2, family_id);
    return s.Exec();
  }
  Status RevokeUserSessions(int64_t user_id, int64_t keep_id, int64_t now_ms) override {
    NUBO_PREPARE(
        s, c_,
        "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id != ? AND revoked_at IS NULL");
    s.Bind(1, now_ms).Bind(2, user_id).Bind(3, keep_id);
    return s.Exec();
  }
  Status SetSetting(const std::string& key, const std::string& value) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
                 "value = excluded.value");
    s.Bind(1, key).Bind(2, value);
    return s.Exec();
  }
  Result<std::string> SetSettingIfAbsent(const std::string& key,
                                         const std::string& value) override {
    {
      NUBO_PREPARE(s, c_,
                   "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING");
      s.Bind(1, key).Bind(2, value);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    NUBO_ASSIGN_OR_RETURN(auto v, GetSetting(key));
    if (!v) return Status::Internal("setting " + key + " vanished");
    return *v;
  }

  // ---- Drives and nodes ----

  Result<std::optional<DriveRow>> GetDrive(int64_t id) override {
    static const std::string sql = std::string(kDriveSelect) + "WHERE id = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, id);
    return One<DriveRow>(s, DriveFrom);
  }
  Result<std::optional<DriveRow>> GetPersonalDrive(int64_t owner_id) override {
    static const std::string sql =
        std::string(kDriveSelect) + "WHERE owner_id = ? AND kind = 'personal'";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, owner_id);
    return One<DriveRow>(s, DriveFrom);
  }
  Result<std::optional<NodeRow>> GetNode(int64_t id, int64_t viewer) override {
    static const std::string sql = std::string(kNodeSelect) + "WHERE n.id = ?2";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, id);
    return One<NodeRow>(s, NodeFrom);
  }
  Result<std::optional<NodeRow>> GetNodeByPublicId(const std::string& public_id,
                                                   int64_t viewer) override {
    static const std::string sql = std::string(kNodeSelect) + "WHERE n.public_id = ?2";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, public_id);
    return One<NodeRow>(s, NodeFrom);
  }
  Result<std::optional<NodeRow>> FindChild(int64_t parent_id, const std::string& name_key,
                                           int64_t viewer) override {
    static const std::string sql =
        std::string(kNodeSelect) +
        "WHERE n.parent_id = ?2 AND n.name_key = ?3 AND n.trash_root IS NULL";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, parent_id).Bind(3, name_key);
    return One<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<NodeRow>> ListChildren(int64_t parent_id, NodeKind kind, NodeSort sort,
                                            bool descending, const std::optional<NodeCursor>& after,
                                            size_t limit, int64_t viewer) override {
    const std::string& sql = ListSql(sort, descending, after.has_value());
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, parent_id).Bind(3, static_cast<int64_t>(kind));
    s.Bind(4, static_cast<int64_t>(limit));
    if (after) {
      switch (sort) {
        case NodeSort::kName:
          break;
        case NodeSort::kSize:
        case NodeSort::kModified:
          s.Bind(5, after->int_key);
          break;
        case NodeSort::kType:
          s.Bind(5, after->str_key);
          break;
      }
      s.BindBlob(6, after->sort_key).Bind(7, after->id);
    }
    std::vector<NodeRow> out;
    out.reserve(std::min<size_t>(limit, 1024));
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.push_back(ListedNodeFrom(s, parent_id, kind));
    }
  }
  Result<std::vector<NodeRow>> ChangedChildren(int64_t parent_id, int64_t since_seq,
                                               int64_t since_id, int64_t through, size_t limit,
                                               int64_t viewer) override {
    // The parent's children through nodes_by_parent, sorted by change: a
    // folder's members, no index of their own on tree_seq to keep writes
    // cheap.
    static const std::string sql =
        std::string(kNodeSelect) +
        "WHERE n.parent_id = ?2 AND n.trash_root IS NULL AND (n.tree_seq, n.id) > (?3, ?4) "
        "AND n.tree_seq <= ?5 AND ?1 = ?1 ORDER BY n.tree_seq, n.id LIMIT ?6";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, parent_id).Bind(3, since_seq).Bind(4, since_id).Bind(5, through);
    s.Bind(6, static_cast<int64_t>(limit));
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<TombstoneRow>> Tombstones(int64_t parent_id, int64_t since, int64_t through,
                                               size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT seq, name, folder FROM node_tombstones WHERE parent_id = ? AND seq > ? "
                 "AND seq <= ? ORDER BY seq LIMIT ?");
    s.Bind(1, parent_id).Bind(2, since).Bind(3, through).Bind(4, static_cast<int64_t>(limit));
    return Rows<TombstoneRow>(s, [](const Stmt& r) {
      return TombstoneRow{r.Int(0), r.Text(1), r.Int(2) != 0};
    });
  }
  Result<int64_t> SyncFloor(int64_t drive_id) override {
    NUBO_PREPARE(s, c_, "SELECT sync_floor FROM drives WHERE id = ?");
    s.Bind(1, drive_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::NotFound("no such drive");
    return s.Int(0);
  }
  Result<std::vector<NodeRow>> ListChildrenById(int64_t parent_id, int64_t after_id, size_t limit,
                                                bool include_trashed) override {
    static const std::string live = std::string(kNodeSelect) +
                                    "WHERE n.parent_id = ?2 AND n.id > ?3 AND n.trash_root IS NULL "
                                    "AND ?1 = ?1 ORDER BY n.id LIMIT ?4";
    static const std::string all =
        std::string(kNodeSelect) +
        "WHERE n.parent_id = ?2 AND n.id > ?3 AND ?1 = ?1 ORDER BY n.id LIMIT ?4";
    NUBO_PREPARE(s, c_, include_trashed ? all.c_str() : live.c_str());
    s.Bind(1, int64_t{0}).Bind(2, parent_id).Bind(3, after_id).Bind(4, static_cast<int64_t>(limit));
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<NodeRow>> Ancestors(int64_t id) override {
    static const std::string sql =
        "WITH RECURSIVE anc(id, depth) AS (SELECT CAST(?2 AS BIGINT), 0 UNION ALL "
        "SELECT p.parent_id, anc.depth + 1 FROM nodes p JOIN anc ON p.id = anc.id "
        "WHERE p.parent_id IS NOT NULL) " +
        std::string(kNodeSelect) + "JOIN anc ON anc.id = n.id WHERE ?1 = ?1 ORDER BY anc.depth";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, int64_t{0}).Bind(2, id);
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<int64_t>> SubtreeManifests(int64_t id) override {
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE sub(id) AS (SELECT CAST(? AS BIGINT) UNION ALL SELECT n.id FROM nodes n "
        "JOIN sub "
        "ON n.parent_id = sub.id) SELECT n.manifest_id FROM nodes n JOIN sub ON n.id = sub.id "
        "WHERE n.manifest_id IS NOT NULL UNION ALL SELECT v.manifest_id FROM file_versions v "
        "JOIN sub ON v.node_id = sub.id");
    s.Bind(1, id);
    return Rows<int64_t>(s, FirstInt);
  }
  Result<std::vector<int64_t>> InnerTrashRoots(int64_t id) override {
    // Walk down without entering a trashed-on-its-own node; report those.
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id FROM nodes n "
        "JOIN sub "
        "ON n.parent_id = sub.id WHERE n.trashed_at IS NULL) "
        "SELECT c.id FROM nodes c JOIN sub ON c.parent_id = sub.id WHERE c.trashed_at IS NOT NULL "
        "ORDER BY c.id");
    s.Bind(1, id);
    return Rows<int64_t>(s, FirstInt);
  }
  Result<std::vector<NodeRow>> ListTrash(int64_t drive_id,
                                         std::optional<std::pair<int64_t, int64_t>> before,
                                         size_t limit, int64_t viewer) override {
    static const std::string sql =
        std::string(kNodeSelect) +
        "WHERE n.drive_id = ?2 AND n.trashed_at IS NOT NULL AND (n.trashed_at, n.id) < (?3, ?4) "
        "ORDER BY n.trashed_at DESC, n.id DESC LIMIT ?5";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, drive_id);
    s.Bind(3, before ? before->first : INT64_MAX).Bind(4, before ? before->second : INT64_MAX);
    s.Bind(5, static_cast<int64_t>(limit));
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<NodeRow>> ListOldestTrash(int64_t drive_id, size_t limit) override {
    static const std::string sql = std::string(kNodeSelect) +
                                   "WHERE n.drive_id = ?2 AND n.trashed_at IS NOT NULL AND ?1 = ?1 "
                                   "ORDER BY n.trashed_at, n.id LIMIT ?3";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, int64_t{0}).Bind(2, drive_id).Bind(3, static_cast<int64_t>(limit));
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<int64_t>> ListExpiredTrash(int64_t before_ms, size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id FROM nodes WHERE trashed_at IS NOT NULL AND trashed_at <= ? "
                 "ORDER BY trashed_at LIMIT ?");
    s.Bind(1, before_ms).Bind(2, static_cast<int64_t>(limit));
    return Rows<int64_t>(s, FirstInt);
  }
  Result<std::vector<NodeRow>> SearchNodes(
      int64_t drive_id, const SearchFilter& f,
      const std::optional<std::pair<std::string, int64_t>>& after, size_t limit,
      int64_t viewer) override {
    // Names are case-folded NFC in name_key, so a byte substring test on
    // the folded needle is a Unicode-aware case-insensitive match. Needles
    // of three characters or more are looked up in the trigram index
    // (node_names) instead of scanning the drive.
    static const std::string tail =
        "n.drive_id = ?2 AND n.trash_root IS NULL AND n.parent_id IS NOT NULL "
        "AND (n.sort_key, n.id) > (?3, ?4) AND instr(n.name_key, ?5) > 0 "
        "AND (?6 < 0 OR n.kind = ?6) "
        "AND (?7 = '' OR substr(n.mime, 1, length(CAST(?7 AS TEXT))) = ?7) "
        "AND n.size >= ?8 AND n.size <= ?9 AND n.mtime >= ?10 AND n.mtime <= ?11 "
        "ORDER BY n.sort_key, n.id LIMIT ?12";
    // Planned per call on PostgreSQL: whether to walk the drive in name
    // order or to collect the matches and sort them depends on how many
    // names the needle matches, and a filter that is not set drops out of
    // the plan (hence "?7 = '' OR …": it folds away for no type filter).
    static const std::string scan =
        NUBO_SQL_PLAN_PER_CALL + std::string(kNodeSelect) + "WHERE " + tail;
    static const std::string indexed =
        std::string(kNodeSelect) +
        "WHERE n.id IN (SELECT rowid FROM node_names WHERE node_names MATCH ?13) AND " + tail;
    // PostgreSQL: the same needles through the trigram index on name_key
    // (migrations/pg/0029), which a LIKE pattern reaches; shorter needles
    // have no trigram to look up and scan, as on SQLite.
    static const std::string indexed_pg = NUBO_SQL_PLAN_PER_CALL + std::string(kNodeSelect) +
                                          "WHERE n.name_key LIKE ?13 ESCAPE '\\' AND " + tail;
    const bool use_index = !f.name_match.empty();
    NUBO_PREPARE(s, c_, !use_index ? scan.c_str() : pg() ? indexed_pg.c_str() : indexed.c_str());
    std::string after_key = after ? after->first : std::string();
    s.Bind(1, viewer)
        .Bind(2, drive_id)
        .BindBlob(3, after_key)
        .Bind(4, after ? after->second : int64_t{-1});
    s.Bind(5, f.needle)
        .Bind(6, f.kind ? static_cast<int64_t>(*f.kind) : int64_t{-1})
        .Bind(7, f.mime_prefix);
    s.Bind(8, static_cast<int64_t>(f.min_size.value_or(0)));
    s.Bind(9, static_cast<int64_t>(std::min<uint64_t>(f.max_size.value_or(INT64_MAX), INT64_MAX)));
    s.Bind(10, f.modified_after_ms.value_or(INT64_MIN))
        .Bind(11, f.modified_before_ms.value_or(INT64_MAX));
    s.Bind(12, static_cast<int64_t>(limit));
    // The needle as a LIKE pattern: its own %, _ and backslash taken
    // literally (bound values are not copied: it lives to the last row).
    std::string pattern;
    if (use_index && pg()) {
      pattern = "%";
      for (char c : f.needle) {
        if (c == '%' || c == '_' || c == '\\') pattern += '\\';
        pattern += c;
      }
      pattern += '%';
      s.Bind(13, pattern);
    } else if (use_index) {
      s.Bind(13, f.name_match);
    }
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::vector<TextHit>> SearchText(const std::vector<int64_t>& drive_ids,
                                          const std::string& match,
                                          const std::optional<std::pair<double, int64_t>>& after,
                                          size_t limit, int64_t viewer) override {
    // One ranked walk over every match (sqlite_search.cc); each candidate,
    // best first, is kept when it is a live file of one of the drives.
    static const std::string sql =
        std::string(kNodeSelect) + "WHERE n.id = ?2 AND n.trash_root IS NULL";
    if (pg()) return SearchTextPg(drive_ids, match, after, limit, viewer);
    std::vector<TextHit> out;
    NUBO_RETURN_IF_ERROR(
        RankText(lite(), match, after, limit, [&](int64_t id, double rank) -> Result<bool> {
          NUBO_PREPARE(s, c_, sql.c_str());
          s.Bind(1, viewer).Bind(2, id);
          NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
          if (!row) return false;
          NodeRow n = NodeFrom(s);
          if (std::find(drive_ids.begin(), drive_ids.end(), n.drive_id) == drive_ids.end()) {
            return false;
          }
          out.push_back(TextHit{std::move(n), rank});
          return true;
        }));
    return out;
  }
  // PostgreSQL: one statement; the rank is ts_rank negated, so that here
  // too a smaller number is a better match and pages follow (rank, id).
  Result<std::vector<TextHit>> SearchTextPg(const std::vector<int64_t>& drive_ids,
                                            const std::string& match,
                                            const std::optional<std::pair<double, int64_t>>& after,
                                            size_t limit, int64_t viewer) {
    NUBO_ASSIGN_OR_RETURN(pg::TextQuery q, pg::ParseFtsQuery(match));
    const std::string drives = JsonIds(drive_ids);
    // The matches first, through the GIN index (the tsquery as a scalar
    // subquery is a value the index can take; from the CTE's row it is
    // not), then their nodes.
    NUBO_PREPARE(s, c_,
                 NUBO_PG_TEXT_QUERY
                 ", hits AS MATERIALIZED (SELECT d.id, -ts_rank(d.terms, (SELECT q FROM q)) AS r "
                 "FROM doc_text d WHERE d.terms @@ (SELECT q FROM q)) "
                 "SELECT " NUBO_NODE_COLS
                 ", h.r FROM hits h JOIN nodes n ON n.id = h.id "
                 "WHERE n.trash_root IS NULL AND n.drive_id IN (SELECT value FROM json_each(?4)) "
                 "AND (?5 = 0 OR h.r > ?6 OR (h.r = ?6 AND n.id > ?7)) "
                 "ORDER BY h.r, n.id LIMIT ?8");
    s.Bind(1, viewer).Bind(2, q.phrases_json).Bind(3, q.prefix).Bind(4, drives);
    s.Bind(5, int64_t{after ? 1 : 0}).BindReal(6, after ? after->first : 0.0);
    s.Bind(7, after ? after->second : int64_t{0}).Bind(8, static_cast<int64_t>(limit));
    std::vector<TextHit> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.push_back(TextHit{NodeFrom(s), s.Real(kNodeColCount)});
    }
  }
  Result<JobCounts> CountJobs(int64_t now_ms) override { return sqlite::CountJobs(c_, now_ms); }
  Result<bool> JobDue(int64_t now_ms) override { return sqlite::JobDue(c_, now_ms); }
  Result<std::vector<JobRow>> ListRetryingJobs(size_t limit) override {
    return sqlite::ListRetryingJobs(c_, limit);
  }
  Result<std::optional<DerivedRow>> GetDerived(const Digest& hash, int variant) override {
    return sqlite::GetDerived(c_, hash, variant);
  }
  Result<std::vector<DerivedRow>> ListDerived(const Digest& after_hash, int after_variant,
                                              size_t limit) override {
    return sqlite::ListDerived(c_, after_hash, after_variant, limit);
  }
  Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
      const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids) override {
    if (pg()) return pg::TextSnippets(c_, matches, node_ids);
    return sqlite::TextSnippets(lite(), matches, node_ids);
  }
  Result<bool> HasText(int64_t node_id) override {
    if (pg()) return pg::HasText(c_, node_id);
    return sqlite::HasText(lite(), node_id);
  }
  Result<std::vector<std::pair<PhotoRow, NodeRow>>> ListPhotos(
      int64_t drive_id, const std::optional<std::pair<int64_t, int64_t>>& before, size_t limit,
      int64_t viewer) override {
    // One range of photos_timeline, newest first.
    static const std::string sql =
        "SELECT " + std::string(kNodeCols) + ", " + sqlite::kPhotoCols +
        " FROM photos p JOIN nodes n ON n.id = p.node_id WHERE p.drive_id = ?2 "
        "AND n.trash_root IS NULL AND (p.taken_at, p.node_id) < (?3, ?4) "
        "ORDER BY p.taken_at DESC, p.node_id DESC LIMIT ?5";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, drive_id);
    s.Bind(3, before ? before->first : INT64_MAX).Bind(4, before ? before->second : INT64_MAX);
    s.Bind(5, static_cast<int64_t>(limit));
    std::vector<std::pair<PhotoRow, NodeRow>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.emplace_back(sqlite::PhotoFrom(s, kNodeColCount), NodeFrom(s));
    }
  }
  Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(int64_t drive_id) override {
    return sqlite::PhotoMonths(c_, drive_id);
  }
  Result<std::vector<PhotoPlace>> PhotoPlaces(int64_t drive_id, double cell_deg) override {
    return sqlite::PhotoPlaces(c_, drive_id, cell_deg);
  }
  Result<std::optional<PhotoRow>> GetPhoto(int64_t node_id) override {
    return sqlite::GetPhoto(c_, node_id);
  }
  // ---- Music (sqlite_music.cc) ----
  Result<std::vector<ArtistRow>> ListArtists(int64_t drive_id,
                                             const std::optional<std::string>& after_key,
                                             size_t limit) override {
    return sqlite::ListArtists(c_, drive_id, after_key, limit);
  }
  Result<std::vector<AlbumRow>> ListAlbums(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::pair<std::string, std::string>>& after, size_t limit) override {
    return sqlite::ListAlbums(c_, drive_id, artist_key, after, limit);
  }
  Result<std::vector<std::pair<TrackRow, NodeRow>>> ListTracks(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::string>& album_key, const std::optional<TrackCursor>& after,
      size_t limit, int64_t viewer) override {
    // One range of tracks_library, in album order.
    static const std::string sql =
        "SELECT " + std::string(kNodeCols) + ", " + sqlite::kTrackCols +
        " FROM tracks t JOIN nodes n ON n.id = t.node_id WHERE t.drive_id = ?2 "
        "AND n.trash_root IS NULL AND (?3 = 0 OR t.artist_key = ?4) AND (?5 = 0 OR t.album_key = "
        "?6) "
        "AND (t.artist_key, t.album_key, t.disc_no, t.track_no, t.node_id) > (?7, ?8, ?9, ?10, "
        "?11) "
        "ORDER BY t.artist_key, t.album_key, t.disc_no, t.track_no, t.node_id LIMIT ?12";
    NUBO_PREPARE(s, c_, sql.c_str());
    std::string ak = artist_key.value_or(""), bk = album_key.value_or("");
    std::string a1 = after ? after->artist_key : "", a2 = after ? after->album_key : "";
    s.Bind(1, viewer).Bind(2, drive_id).Bind(3, int64_t{artist_key ? 1 : 0}).Bind(4, ak);
    s.Bind(5, int64_t{album_key ? 1 : 0}).Bind(6, bk).Bind(7, a1).Bind(8, a2);
    s.Bind(9, after ? after->disc_no : INT64_MIN).Bind(10, after ? after->track_no : INT64_MIN);
    s.Bind(11, after ? after->node_id : INT64_MIN).Bind(12, static_cast<int64_t>(limit));
    std::vector<std::pair<TrackRow, NodeRow>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.emplace_back(sqlite::TrackFrom(s, kNodeColCount), NodeFrom(s));
    }
  }
  Result<std::optional<TrackRow>> GetTrack(int64_t node_id) override {
    return sqlite::GetTrack(c_, node_id);
  }
  Result<std::optional<PlaylistRow>> GetPlaylist(const std::string& public_id) override {
    return sqlite::GetPlaylist(c_, public_id);
  }
  Result<std::vector<PlaylistRow>> ListPlaylists(int64_t user_id) override {
    return sqlite::ListPlaylists(c_, user_id);
  }
  Result<std::vector<NodeRow>> PlaylistItems(int64_t playlist_id, int64_t viewer) override {
    static const std::string sql = "SELECT " + std::string(kNodeCols) +
                                   " FROM playlist_items i JOIN nodes n ON n.id = i.node_id "
                                   "WHERE i.playlist_id = ?2 ORDER BY i.pos";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, viewer).Bind(2, playlist_id);
    return Rows<NodeRow>(s, NodeFrom);
  }
  Result<std::optional<int64_t>> FindDriveManifest(int64_t drive_id, const Digest& hash) override {
    NUBO_PREPARE(s, c_,
                 "SELECT m.id FROM manifests m JOIN nodes n ON n.manifest_id = m.id "
                 "WHERE m.hash = ? AND n.drive_id = ? LIMIT 1");
    s.Bind(1, hash).Bind(2, drive_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return std::optional<int64_t>();
    return std::optional<int64_t>(s.Int(0));
  }
  Result<std::vector<std::pair<int64_t, NodeRow>>> ListFavorites(int64_t user_id,
                                                                 std::optional<int64_t> before_seq,
                                                                 size_t limit) override {
    static const std::string sql =
        "SELECT " + std::string(kNodeCols) +
        ", fav.seq FROM favorites fav JOIN nodes n ON n.id = fav.node_id "
        "WHERE fav.user_id = ?1 AND fav.seq < ?2 AND n.trash_root IS NULL "
        "ORDER BY fav.seq DESC LIMIT ?3";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, user_id).Bind(2, before_seq.value_or(INT64_MAX)).Bind(3, static_cast<int64_t>(limit));
    std::vector<std::pair<int64_t, NodeRow>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.emplace_back(s.Int(kNodeColCount), NodeFrom(s));
    }
  }
  Result<std::vector<NodeRow>> ListRecent(int64_t user_id, size_t limit) override {
    static const std::string sql = "SELECT " + std::string(kNodeCols) +
                                   " FROM recent r JOIN nodes n ON n.id = r.node_id "
                                   "WHERE r.user_id = ?1 AND n.trash_root IS NULL "
                                   "ORDER BY r.seq DESC LIMIT ?2";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, user_id).Bind(2, static_cast<int64_t>(limit));
    return Rows<NodeRow>(s, NodeFrom);
  }

  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> FolderRollupMismatches(
      size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT public_id, size, want FROM (SELECT f.public_id, f.size, "
                 "(SELECT COALESCE(SUM(c.size), 0) FROM nodes c WHERE c.parent_id = f.id "
                 "AND c.trash_root IS NOT DISTINCT FROM f.trash_root) AS want FROM nodes f WHERE "
                 "f.kind = 0) sums "
                 "WHERE size != want LIMIT ?");
    s.Bind(1, static_cast<int64_t>(limit));
    using Row = std::tuple<std::string, int64_t, int64_t>;
    return Rows<Row>(s, [](const Stmt& r) { return Row{r.Text(0), r.Int(1), r.Int(2)}; });
  }

  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> ChildCountMismatches(
      size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT public_id, child_count, want FROM (SELECT f.public_id, f.child_count, "
                 "(SELECT COUNT(*) FROM nodes c WHERE c.parent_id = f.id "
                 "AND c.trash_root IS NULL) AS want FROM nodes f WHERE f.kind = 0) sums "
                 "WHERE child_count != want LIMIT ?");
    s.Bind(1, static_cast<int64_t>(limit));
    using Row = std::tuple<std::string, int64_t, int64_t>;
    return Rows<Row>(s, [](const Stmt& r) { return Row{r.Text(0), r.Int(1), r.Int(2)}; });
  }
  Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> PropsBytesMismatches(
      size_t limit) override {
    static const std::string sql[2] = {
        std::string("SELECT public_id, props_bytes, want FROM (SELECT d.public_id, d.props_bytes, "
                    "(SELECT COALESCE(SUM(") +
            kPropBytes[0] +
            "), 0) FROM dead_props WHERE node_id IN (SELECT id FROM nodes WHERE drive_id = d.id)) "
            "AS want FROM drives d) sums WHERE props_bytes != want LIMIT ?",
        std::string("SELECT public_id, props_bytes, want FROM (SELECT d.public_id, d.props_bytes, "
                    "(SELECT COALESCE(SUM(") +
            kPropBytes[1] +
            "), 0) FROM dead_props WHERE node_id IN (SELECT id FROM nodes WHERE drive_id = d.id)) "
            "AS want FROM drives d) sums WHERE props_bytes != want LIMIT ?"};
    NUBO_PREPARE(s, c_, sql[pg()].c_str());
    s.Bind(1, static_cast<int64_t>(limit));
    using Row = std::tuple<std::string, int64_t, int64_t>;
    return Rows<Row>(s, [](const Stmt& r) { return Row{r.Text(0), r.Int(1), r.Int(2)}; });
  }
  Result<std::vector<std::string>> ChildKeysWithPrefix(int64_t parent_id, const std::string& prefix,
                                                       size_t limit) override {
    // A prefix is a key range ["prefix", "prefix\xff"): keys are UTF-8,
    // which never holds 0xFF, and compare bytewise; the sibling index
    // serves it. PostgreSQL takes only valid UTF-8 as text: there the
    // bound is the last code point, U+10FFFF (a noncharacter no name is
    // expected to hold right after the prefix).
    NUBO_PREPARE(s, c_,
                 "SELECT name_key FROM nodes WHERE parent_id = ?1 AND trash_root IS NULL "
                 "AND name_key >= ?2 AND name_key < ?4 ORDER BY name_key LIMIT ?3");
    const std::string hi = prefix + (pg() ? "\xf4\x8f\xbf\xbf" : "\xff");
    s.Bind(1, parent_id).Bind(2, prefix).Bind(3, static_cast<int64_t>(limit)).Bind(4, hi);
    return Rows<std::string>(s, [](const Stmt& r) { return r.Text(0); });
  }
  Result<std::vector<std::string>> NodeHashMismatches(size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT n.public_id FROM nodes n LEFT JOIN manifests m ON m.id = n.manifest_id "
                 "WHERE n.content_hash IS DISTINCT FROM m.hash LIMIT ?");
    s.Bind(1, static_cast<int64_t>(limit));
    return Rows<std::string>(s, [](const Stmt& r) { return r.Text(0); });
  }

  Result<std::vector<NodeDeadProp>> ListDeadProps(const std::vector<int64_t>& node_ids) override {
    const std::string ids = JsonIds(node_ids);
    NUBO_PREPARE(s, c_,
                 "SELECT node_id, ns, name, value FROM dead_props "
                 "WHERE node_id IN (SELECT value FROM json_each(?)) ORDER BY node_id, ns, name");
    s.Bind(1, ids);
    return Rows<NodeDeadProp>(s, [](const Stmt& r) {
      return NodeDeadProp{r.Int(0), DeadProp{r.Text(1), r.Text(2), r.Text(3)}};
    });
  }
  Result<std::vector<DavLockRow>> FindDavLocks(int64_t drive_id,
                                               const std::vector<std::string>& paths,
                                               const std::string& below, int64_t now_ms) override {
    std::vector<DavLockRow> out;
    auto collect = [&](Stmt& s) -> Status {
      for (;;) {
        NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) return Status::Ok();
        out.push_back(DavLockFrom(s));
      }
    };
    for (const std::string& p : paths) {
      static const std::string sql =
          std::string(kDavLockSelect) + "WHERE drive_id = ? AND path = ? AND expires_at > ?";
      NUBO_PREPARE(s, c_, sql.c_str());
      s.Bind(1, drive_id).Bind(2, p).Bind(3, now_ms);
      NUBO_RETURN_IF_ERROR(collect(s));
    }
    if (!below.empty()) {
      // Paths below "/a" are the key range ["/a/", "/a0"): '0' follows '/'.
      static const std::string sql =
          std::string(kDavLockSelect) +
          "WHERE drive_id = ? AND path >= ? AND path < ? AND expires_at > ?";
      NUBO_PREPARE(s, c_, sql.c_str());
      std::string lo = below == "/" ? "/" : below + "/";
      std::string hi = below == "/" ? "0" : below + "0";
      s.Bind(1, drive_id).Bind(2, lo).Bind(3, hi).Bind(4, now_ms);
      NUBO_RETURN_IF_ERROR(collect(s));
    }
    return out;
  }
  Result<std::optional<DavLockRow>> GetDavLock(const std::string& token) override {
    static const std::string sql = std::string(kDavLockSelect) + "WHERE token = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, token);
    return One<DavLockRow>(s, DavLockFrom);
  }
  // The drive's props_bytes follows every change of dead_props, in the
  // same transaction (fsck recomputes it).
  Status AddPropsBytes(int64_t node_id, int64_t delta) {
    if (delta == 0) return Status::Ok();
    NUBO_PREPARE(s, c_,
                 "UPDATE drives SET props_bytes = props_bytes + ?2 "
                 "WHERE id = (SELECT drive_id FROM nodes WHERE id = ?1)");
    s.Bind(1, node_id).Bind(2, delta);
    return s.Exec();
  }
  Result<int64_t> PropBytes(int64_t node_id, const std::string& ns, const std::string& name) {
    static const std::string sql[2] = {
        std::string("SELECT ") + kPropBytes[0] +
            " FROM dead_props WHERE node_id = ? AND ns = ? AND name = ?",
        std::string("SELECT ") + kPropBytes[1] +
            " FROM dead_props WHERE node_id = ? AND ns = ? AND name = ?"};
    NUBO_PREPARE(s, c_, sql[pg()].c_str());
    s.Bind(1, node_id).Bind(2, ns).Bind(3, name);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : int64_t{0};
  }
  Status SetDeadProp(int64_t node_id, const DeadProp& p) override {
    NUBO_ASSIGN_OR_RETURN(int64_t old_bytes, PropBytes(node_id, p.ns, p.name));
    {
      NUBO_PREPARE(s, c_,
                   "INSERT INTO dead_props (node_id, ns, name, value) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT (node_id, ns, name) DO UPDATE SET value = excluded.value");
      s.Bind(1, node_id).Bind(2, p.ns).Bind(3, p.name).Bind(4, p.value);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    const auto bytes = static_cast<int64_t>(p.ns.size() + p.name.size() + p.value.size());
    return AddPropsBytes(node_id, bytes - old_bytes);
  }
  Status RemoveDeadProp(int64_t node_id, const std::string& ns, const std::string& name) override {
    NUBO_ASSIGN_OR_RETURN(int64_t old_bytes, PropBytes(node_id, ns, name));
    {
      NUBO_PREPARE(s, c_, "DELETE FROM dead_props WHERE node_id = ? AND ns = ? AND name = ?");
      s.Bind(1, node_id).Bind(2, ns).Bind(3, name);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    return AddPropsBytes(node_id, -old_bytes);
  }
  Status CopyDeadProps(int64_t from_node, int64_t to_node) override {
    NUBO_ASSIGN_OR_RETURN(int64_t bytes, DeadPropsBytes(from_node));
    if (bytes == 0) return Status::Ok();
    {
      NUBO_PREPARE(s, c_,
                   "INSERT INTO dead_props (node_id, ns, name, value) SELECT CAST(? AS BIGINT), "
                   "ns, name, value "
                   "FROM dead_props WHERE node_id = ?");
      s.Bind(1, to_node).Bind(2, from_node);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    return AddPropsBytes(to_node, bytes);
  }
  Result<int64_t> DeadPropsBytes(int64_t node_id) override {
    static const std::string sql[2] = {std::string("SELECT COALESCE(SUM(") + kPropBytes[0] +
                                           "), 0) FROM dead_props WHERE node_id = ?",
                                       std::string("SELECT COALESCE(SUM(") + kPropBytes[1] +
                                           "), 0) FROM dead_props WHERE node_id = ?"};
    NUBO_PREPARE(s, c_, sql[pg()].c_str());
    s.Bind(1, node_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : int64_t{0};
  }
  Result<std::vector<std::pair<int64_t, std::string>>> NodesWithoutSortKey(int64_t after_id,
                                                                           size_t limit) override {
    NUBO_PREPARE(
        s, c_, "SELECT id, name FROM nodes WHERE sort_key IS NULL AND id > ? ORDER BY id LIMIT ?");
    s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
    std::vector<std::pair<int64_t, std::string>> out;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return out;
      out.emplace_back(s.Int(0), s.Text(1));
    }
  }
  Result<bool> HasDavLocks(int64_t drive_id, int64_t now_ms) override {
    NUBO_PREPARE(s, c_, "SELECT 1 FROM dav_locks WHERE drive_id = ? AND expires_at > ? LIMIT 1");
    s.Bind(1, drive_id).Bind(2, now_ms);
    return s.Step();
  }

  // ---- Quota reservations ----

  Result<int64_t> ReservedBytes(int64_t drive_id, int64_t now_ms, int64_t except_id) override {
    NUBO_PREPARE(s, c_,
                 "SELECT COALESCE(SUM(bytes), 0) FROM quota_reservations "
                 "WHERE drive_id = ? AND expires_at > ? AND id != ?");
    s.Bind(1, drive_id).Bind(2, now_ms).Bind(3, except_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : int64_t{0};
  }
  Result<int64_t> TrashBytes(int64_t drive_id) override {
    NUBO_PREPARE(s, c_,
                 "SELECT COALESCE(SUM(size), 0) FROM nodes "
                 "WHERE drive_id = ? AND trashed_at IS NOT NULL");
    s.Bind(1, drive_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? s.Int(0) : int64_t{0};
  }
  Result<std::vector<int64_t>> ListQuotaDrives(int64_t after_id, size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT d.id FROM drives d LEFT JOIN users u ON u.id = d.owner_id "
                 "WHERE d.id > ? AND (u.quota_bytes IS NOT NULL OR d.quota_bytes IS NOT NULL) "
                 "ORDER BY d.id LIMIT ?");
    s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
    return Rows<int64_t>(s, FirstInt);
  }
  Result<int64_t> InsertReservation(int64_t drive_id, int64_t bytes,
                                    int64_t expires_at_ms) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO quota_reservations (drive_id, bytes, expires_at) VALUES (?, ?, ?) "
                 "RETURNING id");
    s.Bind(1, drive_id).Bind(2, bytes).Bind(3, expires_at_ms);
    return InsertedId(s);
  }
  Status UpdateReservation(int64_t id, int64_t bytes, int64_t expires_at_ms) override {
    NUBO_PREPARE(s, c_, "UPDATE quota_reservations SET bytes = ?, expires_at = ? WHERE id = ?");
    s.Bind(1, bytes).Bind(2, expires_at_ms).Bind(3, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("quota reservation expired");
    return Status::Ok();
  }
  Status DeleteReservation(int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM quota_reservations WHERE id = ?");
    s.Bind(1, id);
    return s.Exec();
  }
  Result<int64_t> DeleteExpiredReservations(int64_t now_ms) override {
    NUBO_PREPARE(s, c_, "DELETE FROM quota_reservations WHERE expires_at <= ?");
    s.Bind(1, now_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return static_cast<int64_t>(s.changes());
  }
  Status InsertDavLock(const DavLockRow& l) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO dav_locks (token, drive_id, path, depth_infinity, exclusive, "
                 "owner_xml, user_id, "
                 "timeout_s, expires_at, root_href) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON "
                 "CONFLICT DO NOTHING");
    s.Bind(1, l.token).Bind(2, l.drive_id).Bind(3, l.path).Bind(4, int64_t{l.depth_infinity});
    s.Bind(5, int64_t{l.exclusive}).Bind(6, l.owner_xml).Bind(7, l.user_id).Bind(8, l.timeout_s);
    s.Bind(9, l.expires_at_ms).Bind(10, l.root_href);
    return Inserted(s);
  }
  Status RefreshDavLock(const std::string& token, int64_t timeout_s,
                        int64_t expires_at_ms) override {
    NUBO_PREPARE(s, c_, "UPDATE dav_locks SET timeout_s = ?, expires_at = ? WHERE token = ?");
    s.Bind(1, timeout_s).Bind(2, expires_at_ms).Bind(3, token);
    return s.Exec();
  }
  Status DeleteDavLock(const std::string& token) override {
    NUBO_PREPARE(s, c_, "DELETE FROM dav_locks WHERE token = ?");
    s.Bind(1, token);
    return s.Exec();
  }
  Status DeleteDavLocksAt(int64_t drive_id, const std::string& path) override {
    NUBO_PREPARE(
        s, c_,
        "DELETE FROM dav_locks WHERE drive_id = ?1 AND (path = ?2 OR (path >= ?3 AND path < ?4))");
    std::string lo = path == "/" ? "/" : path + "/";
    std::string hi = path == "/" ? "0" : path + "0";
    s.Bind(1, drive_id).Bind(2, path).Bind(3, lo).Bind(4, hi);
    return s.Exec();
  }

  Status InsertDrive(DriveRow& d) override {
    NUBO_PREPARE(
        s, c_,
        "INSERT INTO drives (public_id, kind, name, owner_id, root_id, change_seq, created_at, "
        "quota_bytes) VALUES (?, ?, ?, ?, NULL, 0, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
    s.Bind(1, d.public_id).Bind(2, d.kind).Bind(3, d.name).Bind(5, d.created_at_ms);
    BindOpt(s, 4, d.owner_id);
    BindOpt(s, 6, d.quota_bytes);
    NUBO_ASSIGN_OR_RETURN(d.id, InsertedId(s));
    return Status::Ok();
  }
  Status SetDriveRoot(int64_t drive_id, int64_t root_id) override {
    NUBO_PREPARE(s, c_, "UPDATE drives SET root_id = ? WHERE id = ?");
    s.Bind(1, root_id).Bind(2, drive_id);
    return s.Exec();
  }
  Result<int64_t> NextChangeSeq(int64_t drive_id) override {
    NUBO_PREPARE(s, c_,
                 "UPDATE drives SET change_seq = change_seq + 1 WHERE id = ? RETURNING change_seq");
    s.Bind(1, drive_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::NotFound("no such drive");
    int64_t seq = s.Int(0);
    NUBO_RETURN_IF_ERROR(s.Exec());  // finish the statement
    return seq;
  }
  Status AddTombstone(int64_t drive_id, int64_t parent_id, const std::string& name, bool folder,
                      int64_t seq, int64_t at_ms) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO node_tombstones (parent_id, seq, name, folder, drive_id, at) "
                 "VALUES (?, ?, ?, ?, ?, ?)");
    s.Bind(1, parent_id).Bind(2, seq).Bind(3, name).Bind(4, int64_t{folder ? 1 : 0});
    s.Bind(5, drive_id).Bind(6, at_ms);
    return s.Exec();
  }
  Result<int64_t> PruneTombstones(int64_t before_ms) override {
    {
      NUBO_PREPARE(
          s, c_,
          "UPDATE drives SET sync_floor = (SELECT CASE WHEN max(seq) > sync_floor THEN max(seq) "
          "ELSE sync_floor END FROM node_tombstones t WHERE t.drive_id = drives.id AND "
          "t.at < ?1) WHERE id IN "
          "(SELECT DISTINCT drive_id FROM node_tombstones WHERE at < ?1)");
      s.Bind(1, before_ms);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    NUBO_PREPARE(s, c_, "DELETE FROM node_tombstones WHERE at < ?");
    s.Bind(1, before_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return static_cast<int64_t>(s.changes());
  }
  Status InsertNode(NodeRow& n) override {
#define NUBO_INSERT_NODE                                                                       \
  "INSERT INTO nodes (id, public_id, drive_id, parent_id, name, name_key, kind, manifest_id, " \
  "size, mime, mtime, ctime, tree_seq, trashed_at, trash_root, trash_parent, created_by, "     \
  "updated_by, content_hash, sort_key) VALUES ("
#define NUBO_INSERT_NODE_VALUES                                                    \
  ", ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, " \
  "(SELECT hash FROM manifests WHERE id = ?7), ?18) ON CONFLICT DO NOTHING RETURNING id"
    // Above every id given before, deleted ones included: Nextcloud clients
    // take a known file id for the same file. SQLite counts past its
    // node_id_floor; PostgreSQL's sequence never goes back (nor collides
    // between concurrent writers).
    NUBO_PREPARE(s, c_,
                 c_.dialect() == sql::Dialect::kSqlite ? NUBO_INSERT_NODE
                     "(SELECT max(COALESCE((SELECT max(id) FROM nodes), 0), v) + 1 "
                     "FROM node_id_floor)" NUBO_INSERT_NODE_VALUES
                                                       : NUBO_INSERT_NODE
                     "nextval('node_ids')" NUBO_INSERT_NODE_VALUES);
#undef NUBO_INSERT_NODE
#undef NUBO_INSERT_NODE_VALUES
    s.Bind(1, n.public_id).Bind(2, n.drive_id);
    BindNodeFields(s, n);
    s.Bind(6, static_cast<int64_t>(n.kind)).Bind(11, n.ctime_ms).Bind(16, n.created_by);
    NUBO_ASSIGN_OR_RETURN(n.id, InsertedId(s));
    return Status::Ok();
  }
  Status UpdateNode(const NodeRow& n) override {
    NUBO_PREPARE(
        s, c_,
        "UPDATE nodes SET parent_id = ?3, name = ?4, name_key = ?5, manifest_id = ?7, size = ?8, "
        "mime = ?9, mtime = ?10, tree_seq = ?12, trashed_at = ?13, trash_root = ?14, "
        "trash_parent = ?15, updated_by = ?17, sort_key = ?18, "
        "content_hash = (SELECT hash FROM manifests WHERE id = ?7) WHERE id = ?1");
    s.Bind(1, n.id);
    BindNodeFields(s, n);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() != 1) return Status::NotFound("no such node");
    return Status::Ok();
  }
  Status SetSortKey(int64_t id, const std::string& sort_key) override {
    NUBO_PREPARE(s, c_, "UPDATE nodes SET sort_key = ? WHERE id = ?");
    s.BindBlob(1, sort_key).Bind(2, id);
    return s.Exec();
  }
  Status ClearSortKeys() override {
    NUBO_PREPARE(s, c_, "UPDATE nodes SET sort_key = NULL WHERE sort_key IS NOT NULL");
    return s.Exec();
  }
  Status BumpAncestors(int64_t id, int64_t seq, int64_t size_delta) override {
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE anc(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT p.parent_id FROM "
        "nodes p "
        "JOIN anc ON p.id = anc.id WHERE p.parent_id IS NOT NULL) "
        "UPDATE nodes SET tree_seq = ?2, size = size + ?3 WHERE id IN (SELECT id FROM anc)");
    s.Bind(1, id).Bind(2, seq).Bind(3, size_delta);
    return s.Exec();
  }
  Status MarkSubtreeTrashed(int64_t root_id) override {
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id FROM nodes n "
        "JOIN sub "
        "ON n.parent_id = sub.id WHERE n.trash_root IS NULL) "
        "UPDATE nodes SET trash_root = ?1 WHERE id IN (SELECT id FROM sub) AND trash_root IS NULL");
    s.Bind(1, root_id);
    return s.Exec();
  }
  Status UnmarkSubtreeTrashed(int64_t root_id) override {
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id FROM nodes n "
        "JOIN sub "
        "ON n.parent_id = sub.id WHERE n.trash_root = ?1) "
        "UPDATE nodes SET trash_root = NULL WHERE id IN (SELECT id FROM sub) AND trash_root = ?1");
    s.Bind(1, root_id);
    return s.Exec();
  }
  Result<int64_t> DeleteSubtree(int64_t id) override {
    {
      // The subtree's dead properties go with it (ON DELETE CASCADE): take
      // their bytes off the drive first.
      static const std::string sql[2] = {
          std::string("WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id "
                      "FROM nodes n JOIN sub "
                      "ON n.parent_id = sub.id) "
                      "UPDATE drives SET props_bytes = props_bytes - (SELECT COALESCE(SUM(") +
              kPropBytes[0] +
              "), 0) FROM dead_props WHERE node_id IN (SELECT id FROM sub)) "
              "WHERE id = (SELECT drive_id FROM nodes WHERE id = ?1)",
          std::string("WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id "
                      "FROM nodes n JOIN sub "
                      "ON n.parent_id = sub.id) "
                      "UPDATE drives SET props_bytes = props_bytes - (SELECT COALESCE(SUM(") +
              kPropBytes[1] +
              "), 0) FROM dead_props WHERE node_id IN (SELECT id FROM sub)) "
              "WHERE id = (SELECT drive_id FROM nodes WHERE id = ?1)"};
      NUBO_PREPARE(s, c_, sql[pg()].c_str());
      s.Bind(1, id);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    // So do the versions of its files, and their charges.
    NUBO_RETURN_IF_ERROR(sqlite::DropSubtreeVersions(c_, id));
    NUBO_PREPARE(s, c_,
                 "WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id FROM "
                 "nodes n JOIN sub "
                 "ON n.parent_id = sub.id) DELETE FROM nodes WHERE id IN (SELECT id FROM sub)");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return static_cast<int64_t>(s.changes());
  }
  // ---- Sharing ----

  Result<std::optional<GroupRow>> GetGroup(int64_t id) override {
    NUBO_PREPARE(s, c_, "SELECT id, public_id, name, created_at FROM user_groups WHERE id = ?");
    s.Bind(1, id);
    return One<GroupRow>(s, GroupFrom);
  }
  Result<std::optional<GroupRow>> GetGroupByPublicId(const std::string& public_id) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, public_id, name, created_at FROM user_groups WHERE public_id = ?");
    s.Bind(1, public_id);
    return One<GroupRow>(s, GroupFrom);
  }
  Result<std::optional<GroupRow>> GetGroupByName(const std::string& name) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, public_id, name, created_at FROM user_groups WHERE name_key = ?");
    std::string key = Lower(name);
    s.Bind(1, key);
    return One<GroupRow>(s, GroupFrom);
  }
  Result<std::vector<GroupRow>> ListGroups(const std::string& after_key, size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT id, public_id, name, created_at FROM user_groups WHERE name_key > ? "
                 "ORDER BY name_key LIMIT ?");
    std::string key = Lower(after_key);
    s.Bind(1, key).Bind(2, static_cast<int64_t>(limit));
    return Rows<GroupRow>(s, GroupFrom);
  }
  Result<std::vector<GroupMemberRow>> ListGroupMembers(int64_t group_id, size_t limit) override {
    NUBO_PREPARE(s, c_,
                 "SELECT 1, g.id, g.public_id, g.name, g.name_key AS k FROM group_members m "
                 "JOIN user_groups g ON g.id = m.member_group WHERE m.group_id = ?1 "
                 "UNION ALL SELECT 0, u.id, u.public_id, u.username, u.name_key AS k "
                 "FROM group_members m JOIN users u ON u.id = m.member_user WHERE m.group_id = ?1 "
                 "ORDER BY 1 DESC, k LIMIT ?2");
    s.Bind(1, group_id).Bind(2, static_cast<int64_t>(limit));
    return Rows<GroupMemberRow>(s, [](const Stmt& r) {
      return GroupMemberRow{r.Int(0) != 0, r.Int(1), r.Text(2), r.Text(3)};
    });
  }
  Result<std::vector<int64_t>> GroupsOfUser(int64_t user_id) override {
    {
      // Most users are in no group: an index probe says so, where the
      // recursive query below builds temporary tables.
      NUBO_PREPARE(p, c_, "SELECT 1 FROM group_members WHERE member_user = ? LIMIT 1");
      p.Bind(1, user_id);
      NUBO_ASSIGN_OR_RETURN(bool any, p.Step());
      if (!any) return std::vector<int64_t>();
    }
    // UNION (not UNION ALL): a membership cycle terminates.
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE g(id) AS (SELECT group_id FROM group_members WHERE member_user = ? "
        "UNION SELECT m.group_id FROM group_members m JOIN g ON m.member_group = g.id) "
        "SELECT id FROM g ORDER BY id");
    s.Bind(1, user_id);
    return Rows<int64_t>(s, FirstInt);
  }
  Result<bool> GroupContains(int64_t container, int64_t member) override {
    if (container == member) return true;
    NUBO_PREPARE(
        s, c_,
        "WITH RECURSIVE sub(id) AS (SELECT member_group FROM group_members WHERE "
        "group_id = ?1 AND member_group IS NOT NULL UNION SELECT m.member_group FROM "
        "group_members m JOIN sub ON m.group_id = sub.id WHERE m.member_group IS NOT NULL) "
        "SELECT EXISTS (SELECT 1 FROM sub WHERE id = ?2)");
    s.Bind(1, container).Bind(2, member);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row && s.Int(0) != 0;
  }
  Result<std::vector<GrantHit>> GrantsReaching(int64_t node_id, int64_t user_id,
                                               const std::vector<int64_t>& groups,
                                               int64_t now_ms) override {
    // The node's ancestor chain (depth-bounded by the path limit), joined
    // with the grants on it that name the user or one of the groups.
    NUBO_PREPARE(s, c_,
                 "WITH RECURSIVE anc(id, parent_id) AS (SELECT id, parent_id FROM nodes WHERE id = "
                 "?1 UNION ALL SELECT n.id, n.parent_id FROM nodes n JOIN anc ON n.id = "
                 "anc.parent_id) SELECT g.node_id, g.role, g.may_reshare, COALESCE(g.created_by, "
                 "0) FROM anc "
                 "JOIN grants g ON "
                 "g.node_id = anc.id WHERE (g.grantee_user = ?2 OR g.grantee_group IN (SELECT "
                 "value FROM json_each(?3))) AND (g.expires_at IS NULL OR g.expires_at > ?4)");
    std::string list = IdList(groups);
    s.Bind(1, node_id).Bind(2, user_id).Bind(3, list).Bind(4, now_ms);
    return Rows<GrantHit>(s, [](const Stmt& r) {
      return GrantHit{r.Int(0), static_cast<int>(r.Int(1)), r.Int(2) != 0, r.Int(3)};
    });
  }
  Result<std::optional<GrantRow>> GetGrantByPublicId(const std::string& public_id) override {
    static const std::string sql = std::string(kGrantSelect) + " WHERE g.public_id = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, public_id);
    return One<GrantRow>(s, GrantFrom);
  }
  Result<std::vector<GrantRow>> ListNodeGrants(int64_t node_id) override {
    static const std::string sql = std::string(kGrantSelect) + " WHERE g.node_id = ? ORDER BY g.id";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, node_id);
    return Rows<GrantRow>(s, GrantFrom);
  }
  Result<std::vector<SharedNode>> ListSharedWith(int64_t user_id,
                                                 const std::vector<int64_t>& groups, int64_t now_ms,
                                                 int64_t after_node, size_t limit) override {
    // One walk per grantee (the user, then each group) along its
    // (grantee, node_id) index, merged here: a single statement over all of
    // them would group through a temporary b-tree, and this runs on every
    // PROPFIND of a recipient's own tree (its received shares).
    std::map<int64_t, SharedNode> merged;
    auto walk = [&](bool group, int64_t grantee) -> Status {
      NUBO_PREPARE(
          s, c_,
          group ? "SELECT g.node_id, g.role, g.may_reshare, g.created_by IS NOT DISTINCT FROM "
                  "d.owner_id "
                  "AND d.owner_id IS NOT NULL FROM grants g JOIN nodes n ON n.id = "
                  "g.node_id JOIN drives d ON d.id = n.drive_id WHERE g.grantee_group = "
                  "?1 AND g.node_id > ?2 AND (g.expires_at IS NULL OR g.expires_at > ?3) "
                  "AND n.trash_root IS NULL AND d.owner_id IS DISTINCT FROM ?4 ORDER BY g.node_id "
                  "LIMIT ?5"
                : "SELECT g.node_id, g.role, g.may_reshare, g.created_by IS NOT DISTINCT FROM "
                  "d.owner_id "
                  "AND d.owner_id IS NOT NULL FROM grants g JOIN nodes n ON n.id = "
                  "g.node_id JOIN drives d ON d.id = n.drive_id WHERE g.grantee_user = "
                  "?1 AND g.node_id > ?2 AND (g.expires_at IS NULL OR g.expires_at > ?3) "
                  "AND n.trash_root IS NULL AND d.owner_id IS DISTINCT FROM ?4 ORDER BY g.node_id "
                  "LIMIT ?5");
      s.Bind(1, grantee).Bind(2, after_node).Bind(3, now_ms).Bind(4, user_id);
      s.Bind(5, static_cast<int64_t>(limit));
      for (;;) {
        NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
        if (!row) return Status::Ok();
        SharedNode x{s.Int(0), static_cast<int>(s.Int(1)), s.Int(2) != 0, s.Int(3) != 0};
        auto [it, fresh] = merged.emplace(x.node_id, x);
        if (!fresh) {
          it->second.role = std::max(it->second.role, x.role);
          it->second.may_reshare |= x.may_reshare;
          it->second.owner_made &= x.owner_made;
        }
      }
    };
    NUBO_RETURN_IF_ERROR(walk(false, user_id));
    for (int64_t g : groups) NUBO_RETURN_IF_ERROR(walk(true, g));
    std::vector<SharedNode> out;
    for (auto& [id, x] : merged) {
      if (out.size() == limit) break;
      out.push_back(x);
    }
    return out;
  }
  Result<std::vector<std::pair<int64_t, int>>> ListShareTypes(const std::vector<int64_t>& node_ids,
                                                              int64_t created_by,
                                                              int64_t now_ms) override {
    const std::string ids = JsonIds(node_ids);
    NUBO_PREPARE(
        s, c_,
        // Each arm can probe its (partial) index by node.
        "WITH ids(id) AS (SELECT value FROM json_each(?1)) "
        "SELECT g.node_id, 0 FROM grants g JOIN ids ON g.node_id = ids.id "
        "WHERE g.grantee_user IS NOT NULL AND (?2 = 0 OR g.created_by = ?2) "
        "AND (g.expires_at IS NULL OR g.expires_at > ?3) "
        "UNION SELECT g.node_id, 1 FROM grants g JOIN ids ON g.node_id = ids.id "
        "WHERE g.grantee_group IS NOT NULL AND (?2 = 0 OR g.created_by = ?2) "
        "AND (g.expires_at IS NULL OR g.expires_at > ?3) "
        "UNION SELECT l.node_id, 3 FROM links l JOIN ids ON l.node_id = ids.id "
        "WHERE (?2 = 0 OR l.created_by = ?2) AND (l.expires_at IS NULL OR l.expires_at > ?3) "
        "ORDER BY 1, 2");
    s.Bind(1, ids).Bind(2, created_by).Bind(3, now_ms);
    return Rows<std::pair<int64_t, int>>(
        s, [](const Stmt& r) { return std::make_pair(r.Int(0), static_cast<int>(r.Int(1))); });
  }
  Result<bool> MayHoldGrants(int64_t user_id) override {
    NUBO_PREPARE(s, c_,
                 "SELECT EXISTS (SELECT 1 FROM grants WHERE grantee_user = ?1) OR EXISTS (SELECT 1 "
                 "FROM group_members WHERE member_user = ?1)");
    s.Bind(1, user_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row && s.Int(0) != 0;
  }
  Result<std::vector<ShareMountRow>> ListShareMounts(int64_t user_id) override {
    NUBO_PREPARE(
        s, c_,
        "SELECT user_id, node_id, parent_id, name, hidden FROM share_mounts WHERE user_id = ? "
        "ORDER BY node_id");
    s.Bind(1, user_id);
    return Rows<ShareMountRow>(s, [](const Stmt& r) {
      ShareMountRow m{r.Int(0), r.Int(1), std::nullopt, r.Text(3), r.Int(4) != 0};
      if (!r.IsNull(2)) m.parent_id = r.Int(2);
      return m;
    });
  }
  Result<std::vector<GrantRow>> ListSharedBy(int64_t user_id, int64_t after_id,
                                             size_t limit) override {
    static const std::string sql =
        std::string(kGrantSelect) +
        " JOIN drives d ON d.id = n.drive_id WHERE (d.owner_id = ?1 OR g.created_by = ?1) AND "
        "g.id > ?2 ORDER BY g.id LIMIT ?3";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, user_id).Bind(2, after_id).Bind(3, static_cast<int64_t>(limit));
    return Rows<GrantRow>(s, GrantFrom);
  }
  Result<std::vector<std::string>> DanglingSharingRows(size_t limit) override {
    NUBO_PREPARE(
        s, c_,
        "SELECT 'grant ' || g.public_id FROM grants g WHERE NOT EXISTS (SELECT 1 FROM nodes n "
        "WHERE n.id = g.node_id) OR (g.grantee_user IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
        "users u WHERE u.id = g.grantee_user)) OR (g.grantee_group IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM user_groups x WHERE x.id = g.grantee_group)) "
        "UNION ALL SELECT 'link ' || l.public_id FROM links l WHERE NOT EXISTS (SELECT 1 FROM "
        "nodes n WHERE n.id = l.node_id) "
        "UNION ALL SELECT 'membership in group ' || m.group_id FROM group_members m WHERE NOT "
        "EXISTS (SELECT 1 FROM user_groups x WHERE x.id = m.group_id) OR (m.member_user IS NOT "
        "NULL AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = m.member_user)) OR "
        "(m.member_group IS NOT NULL AND NOT EXISTS (SELECT 1 FROM user_groups x WHERE x.id = "
        "m.member_group)) "
        "UNION ALL SELECT 'group ' || x.public_id || ' contains itself' FROM user_groups x WHERE "
        "x.id IN (WITH RECURSIVE sub(top, id) AS (SELECT group_id, member_group FROM "
        "group_members WHERE member_group IS NOT NULL UNION SELECT sub.top, m.member_group FROM "
        "group_members m JOIN sub ON m.group_id = sub.id WHERE m.member_group IS NOT NULL) "
        "SELECT top FROM sub WHERE top = id) LIMIT ?");
    s.Bind(1, static_cast<int64_t>(limit));
    return Rows<std::string>(s, [](const Stmt& r) { return r.Text(0); });
  }

  Status InsertGroup(GroupRow& g) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO user_groups (public_id, name, name_key, created_at) VALUES (?, ?, ?, "
                 "?) ON CONFLICT DO NOTHING RETURNING id");
    std::string key = Lower(g.name);
    s.Bind(1, g.public_id).Bind(2, g.name).Bind(3, key).Bind(4, g.created_at_ms);
    NUBO_ASSIGN_OR_RETURN(g.id, InsertedId(s));
    return Status::Ok();
  }
  Status RenameGroup(int64_t id, const std::string& name) override {
    NUBO_PREPARE(s, c_, "UPDATE user_groups SET name = ?, name_key = ? WHERE id = ?");
    std::string key = Lower(name);
    s.Bind(1, name).Bind(2, key).Bind(3, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such group");
  }
  Status DeleteGroup(int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM user_groups WHERE id = ?");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such group");
  }
  Status AddGroupMember(int64_t group_id, bool is_group, int64_t member_id) override {
    NUBO_PREPARE(s, c_,
                 is_group ? "INSERT INTO group_members (group_id, member_group) VALUES (?, ?) ON "
                            "CONFLICT DO NOTHING"
                          : "INSERT INTO group_members (group_id, member_user) VALUES (?, ?) ON "
                            "CONFLICT DO NOTHING");
    s.Bind(1, group_id).Bind(2, member_id);
    return Inserted(s);
  }
  Status RemoveGroupMember(int64_t group_id, bool is_group, int64_t member_id) override {
    NUBO_PREPARE(s, c_,
                 is_group ? "DELETE FROM group_members WHERE group_id = ? AND member_group = ?"
                          : "DELETE FROM group_members WHERE group_id = ? AND member_user = ?");
    s.Bind(1, group_id).Bind(2, member_id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("not a member of this group");
  }
  Status InsertGrant(GrantRow& g) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO grants (public_id, node_id, grantee_user, grantee_group, role, "
                 "may_reshare, expires_at, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                 "?) ON CONFLICT DO NOTHING RETURNING id");
    s.Bind(1, g.public_id).Bind(2, g.node_id);
    BindOpt(s, 3, g.grantee_user);
    BindOpt(s, 4, g.grantee_group);
    s.Bind(5, static_cast<int64_t>(g.role)).Bind(6, g.may_reshare ? 1 : 0);
    BindOpt(s, 7, g.expires_at_ms);
    BindOpt(s, 8, g.created_by);
    s.Bind(9, g.created_at_ms);
    NUBO_ASSIGN_OR_RETURN(g.id, InsertedId(s));
    return Status::Ok();
  }
  Status UpdateGrant(const GrantRow& g) override {
    NUBO_PREPARE(s, c_, "UPDATE grants SET role = ?, may_reshare = ?, expires_at = ? WHERE id = ?");
    s.Bind(1, static_cast<int64_t>(g.role)).Bind(2, g.may_reshare ? 1 : 0);
    BindOpt(s, 3, g.expires_at_ms);
    s.Bind(4, g.id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such grant");
  }
  Status DeleteGrant(int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM grants WHERE id = ?");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such grant");
  }

  Status PutShareMount(const ShareMountRow& m) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO share_mounts (user_id, node_id, parent_id, name, hidden) "
                 "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, node_id) DO UPDATE SET "
                 "parent_id = excluded.parent_id, name = excluded.name, hidden = excluded.hidden");
    s.Bind(1, m.user_id).Bind(2, m.node_id);
    BindOpt(s, 3, m.parent_id);
    s.Bind(4, m.name).Bind(5, int64_t{m.hidden ? 1 : 0});
    return s.Exec();
  }
  Status DeleteShareMount(int64_t user_id, int64_t node_id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM share_mounts WHERE user_id = ? AND node_id = ?");
    s.Bind(1, user_id).Bind(2, node_id);
    return s.Exec();
  }

  Result<std::optional<LinkRow>> FindLink(const Digest& token_hash) override {
    static const std::string sql = std::string(kLinkSelect) + " WHERE l.token_hash = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, token_hash);
    return One<LinkRow>(s, LinkFrom);
  }
  Result<std::optional<LinkRow>> GetLinkByPublicId(const std::string& public_id) override {
    static const std::string sql = std::string(kLinkSelect) + " WHERE l.public_id = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, public_id);
    return One<LinkRow>(s, LinkFrom);
  }
  Result<std::vector<LinkRow>> ListNodeLinks(int64_t node_id) override {
    static const std::string sql = std::string(kLinkSelect) + " WHERE l.node_id = ? ORDER BY l.id";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, node_id);
    return Rows<LinkRow>(s, LinkFrom);
  }
  Result<std::vector<LinkRow>> ListLinksBy(int64_t user_id, int64_t after_id,
                                           size_t limit) override {
    static const std::string sql =
        std::string(kLinkSelect) +
        " JOIN drives d ON d.id = n.drive_id WHERE (d.owner_id = ?1 OR l.created_by = ?1) AND "
        "l.id > ?2 ORDER BY l.id LIMIT ?3";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, user_id).Bind(2, after_id).Bind(3, static_cast<int64_t>(limit));
    return Rows<LinkRow>(s, LinkFrom);
  }
  Result<bool> NodeWithin(int64_t node_id, int64_t ancestor_id) override {
    if (node_id == ancestor_id) return true;
    NUBO_PREPARE(s, c_,
                 "WITH RECURSIVE anc(id) AS (SELECT parent_id FROM nodes WHERE id = ?1 UNION ALL "
                 "SELECT n.parent_id FROM nodes n JOIN anc ON n.id = anc.id WHERE n.parent_id IS "
                 "NOT NULL) SELECT EXISTS (SELECT 1 FROM anc WHERE id = ?2)");
    s.Bind(1, node_id).Bind(2, ancestor_id);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row && s.Int(0) != 0;
  }
  Status InsertLink(LinkRow& l) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO links (public_id, token_hash, token_hint, node_id, role, "
                 "password_hash, expires_at, max_downloads, downloads, label, created_by, "
                 "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?) ON CONFLICT DO NOTHING "
                 "RETURNING id");
    s.Bind(1, l.public_id).Bind(2, l.token_hash).Bind(3, l.token_hint).Bind(4, l.node_id);
    s.Bind(5, static_cast<int64_t>(l.role));
    if (l.password_hash) {
      s.Bind(6, *l.password_hash);
    } else {
      s.BindNull(6);
    }
    BindOpt(s, 7, l.expires_at_ms);
    BindOpt(s, 8, l.max_downloads);
    s.Bind(9, l.label);
    BindOpt(s, 10, l.created_by);
    s.Bind(11, l.created_at_ms);
    NUBO_ASSIGN_OR_RETURN(l.id, InsertedId(s));
    return Status::Ok();
  }
  Status UpdateLink(const LinkRow& l) override {
    NUBO_PREPARE(s, c_,
                 "UPDATE links SET role = ?, password_hash = ?, expires_at = ?, max_downloads = ?, "
                 "label = ? WHERE id = ?");
    s.Bind(1, static_cast<int64_t>(l.role));
    if (l.password_hash) {
      s.Bind(2, *l.password_hash);
    } else {
      s.BindNull(2);
    }
    BindOpt(s, 3, l.expires_at_ms);
    BindOpt(s, 4, l.max_downloads);
    s.Bind(5, l.label).Bind(6, l.id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such link");
  }
  Status DeleteLink(int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM links WHERE id = ?");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such link");
  }
  Result<bool> TakeLinkDownload(int64_t id) override {
    NUBO_PREPARE(s, c_,
                 "UPDATE links SET downloads = downloads + 1 WHERE id = ? AND (max_downloads IS "
                 "NULL OR downloads < max_downloads)");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() == 1;
  }

  Result<std::optional<DriveRow>> GetDriveByPublicId(const std::string& public_id) override {
    static const std::string sql = std::string(kDriveSelect) + "WHERE public_id = ?";
    NUBO_PREPARE(s, c_, sql.c_str());
    s.Bind(1, public_id);
    return One<DriveRow>(s, DriveFrom);
  }
  Result<std::vector<std::pair<DriveRow, int>>> ListMemberDrives(
      int64_t user_id, const std::vector<int64_t>& groups) override {
    static const std::string sql =
        "SELECT d.id, d.public_id, d.kind, d.name, d.owner_id, COALESCE(d.root_id, 0), "
        "d.change_seq, d.created_at, d.props_bytes, d.quota_bytes, d.versions_bytes, MAX(m.role) "
        "FROM drives d "
        "JOIN drive_members m ON m.drive_id = d.id WHERE m.member_user = ?1 OR m.member_group IN "
        "(SELECT value FROM json_each(?2)) GROUP BY d.id ORDER BY lower(d.name), d.id";
    NUBO_PREPARE(s, c_, sql.c_str());
    std::string list = IdList(groups);
    s.Bind(1, user_id).Bind(2, list);
    using Row = std::pair<DriveRow, int>;
    return Rows<Row>(s, [](const Stmt& r) {
      return Row{DriveFrom(r), static_cast<int>(r.Int(11))};
    });
  }
  Result<int> DriveRoleOf(int64_t drive_id, int64_t user_id,
                          const std::vector<int64_t>& groups) override {
    NUBO_PREPARE(s, c_,
                 "SELECT COALESCE(MAX(role), 0) FROM drive_members WHERE drive_id = ?1 AND "
                 "(member_user = ?2 OR member_group IN (SELECT value FROM json_each(?3)))");
    std::string list = IdList(groups);
    s.Bind(1, drive_id).Bind(2, user_id).Bind(3, list);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    return row ? static_cast<int>(s.Int(0)) : 0;
  }
  Result<std::vector<DriveMemberRow>> ListDriveMembers(int64_t drive_id) override {
    NUBO_PREPARE(
        s, c_,
        "SELECT 1, g.id, g.public_id, g.name, m.role, g.name_key AS k FROM drive_members m "
        "JOIN user_groups g ON g.id = m.member_group WHERE m.drive_id = ?1 "
        "UNION ALL SELECT 0, u.id, u.public_id, u.username, m.role, u.name_key AS k "
        "FROM drive_members m JOIN users u ON u.id = m.member_user WHERE m.drive_id = ?1 "
        "ORDER BY 1 DESC, 6");
    s.Bind(1, drive_id);
    return Rows<DriveMemberRow>(s, [](const Stmt& r) {
      return DriveMemberRow{r.Int(0) != 0, r.Int(1), r.Text(2), r.Text(3),
                            static_cast<int>(r.Int(4))};
    });
  }
  Status UpdateDrive(const DriveRow& d) override {
    NUBO_PREPARE(s, c_, "UPDATE drives SET name = ?, quota_bytes = ? WHERE id = ?");
    s.Bind(1, d.name);
    BindOpt(s, 2, d.quota_bytes);
    s.Bind(3, d.id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such drive");
  }
  Status DeleteDrive(int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM drives WHERE id = ?");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("no such drive");
  }
  Status SetDriveMember(int64_t drive_id, bool is_group, int64_t member_id, int role) override {
    {
      NUBO_PREPARE(s, c_,
                   is_group ? "UPDATE drive_members SET role = ?3 WHERE drive_id = ?1 AND "
                              "member_group = ?2"
                            : "UPDATE drive_members SET role = ?3 WHERE drive_id = ?1 AND "
                              "member_user = ?2");
      s.Bind(1, drive_id).Bind(2, member_id).Bind(3, static_cast<int64_t>(role));
      NUBO_RETURN_IF_ERROR(s.Exec());
      if (s.changes()) return Status::Ok();
    }
    NUBO_PREPARE(s, c_,
                 is_group ? "INSERT INTO drive_members (drive_id, member_group, role) VALUES (?, "
                            "?, ?) ON CONFLICT DO NOTHING"
                          : "INSERT INTO drive_members (drive_id, member_user, role) VALUES (?, ?, "
                            "?) ON CONFLICT DO NOTHING");
    s.Bind(1, drive_id).Bind(2, member_id).Bind(3, static_cast<int64_t>(role));
    return Inserted(s);
  }
  Status RemoveDriveMember(int64_t drive_id, bool is_group, int64_t member_id) override {
    NUBO_PREPARE(s, c_,
                 is_group ? "DELETE FROM drive_members WHERE drive_id = ? AND member_group = ?"
                          : "DELETE FROM drive_members WHERE drive_id = ? AND member_user = ?");
    s.Bind(1, drive_id).Bind(2, member_id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return s.changes() ? Status::Ok() : Status::NotFound("not a member of this drive");
  }

  Status AddFavorite(int64_t user_id, int64_t node_id, int64_t now_ms) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO favorites (user_id, node_id, created_at, seq) VALUES (?1, ?2, ?3, "
                 "(SELECT COALESCE(MAX(seq), 0) + 1 FROM favorites WHERE user_id = ?1)) "
                 "ON CONFLICT DO NOTHING");
    s.Bind(1, user_id).Bind(2, node_id).Bind(3, now_ms);
    return s.Exec();
  }
  Status RemoveFavorite(int64_t user_id, int64_t node_id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM favorites WHERE user_id = ? AND node_id = ?");
    s.Bind(1, user_id).Bind(2, node_id);
    return s.Exec();
  }
  Status TouchRecent(int64_t user_id, int64_t node_id, int64_t now_ms, size_t keep) override {
    {
      NUBO_PREPARE(
          s, c_,
          "INSERT INTO recent (user_id, node_id, at, seq) VALUES (?1, ?2, ?3, "
          "(SELECT COALESCE(MAX(seq), 0) + 1 FROM recent WHERE user_id = ?1)) "
          "ON CONFLICT (user_id, node_id) DO UPDATE SET at = excluded.at, seq = excluded.seq");
      s.Bind(1, user_id).Bind(2, node_id).Bind(3, now_ms);
      NUBO_RETURN_IF_ERROR(s.Exec());
    }
    NUBO_PREPARE(s, c_,
                 "DELETE FROM recent WHERE user_id = ?1 AND seq <= (SELECT seq FROM recent WHERE "
                 "user_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)");
    s.Bind(1, user_id).Bind(2, static_cast<int64_t>(keep));
    return s.Exec();
  }

  Status InsertUser(UserRow& u) override {
    NUBO_PREPARE(
        s, c_,
        "INSERT INTO users (public_id, username, name_key, email, display_name, password_hash, "
        "role, active, quota_bytes, credentials_version, created_at, last_login_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
    std::string key = Lower(u.username);
    std::optional<std::string> email =
        u.email ? std::optional<std::string>(Lower(*u.email)) : std::nullopt;
    BindUser(s, u, key, email);
    NUBO_ASSIGN_OR_RETURN(u.id, InsertedId(s));
    return Status::Ok();
  }
  Status UpdateUser(const UserRow& u) override {
    NUBO_PREPARE(
        s, c_,
        "UPDATE users SET public_id = ?, username = ?, name_key = ?, email = ?, display_name = ?, "
        "password_hash = ?, role = ?, active = ?, quota_bytes = ?, credentials_version = ?, "
        "created_at = ?, last_login_at = ? WHERE id = ?");
    std::string key = Lower(u.username);
    std::optional<std::string> email =
        u.email ? std::optional<std::string>(Lower(*u.email)) : std::nullopt;
    BindUser(s, u, key, email);
    s.Bind(13, u.id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no user " + std::to_string(u.id));
    return Status::Ok();
  }
  Result<int64_t> InsertAppPassword(const AppPasswordRow& a) override {
    NUBO_PREPARE(
        s, c_,
        "INSERT INTO app_passwords (user_id, label, secret_hash, created_at, last_used_at, "
        "scopes) VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING RETURNING id");
    s.Bind(1, a.user_id).Bind(2, a.label).Bind(3, a.secret_hash).Bind(4, a.created_at_ms);
    s.Bind(5, static_cast<int64_t>(a.scopes));
    return InsertedId(s);
  }
  Status DeleteAppPassword(int64_t user_id, int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM app_passwords WHERE id = ? AND user_id = ?");
    s.Bind(1, id).Bind(2, user_id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no app password " + std::to_string(id));
    return Status::Ok();
  }
  Result<int64_t> DeleteAppPasswords(int64_t user_id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM app_passwords WHERE user_id = ?");
    s.Bind(1, user_id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    return static_cast<int64_t>(s.changes());
  }
  Status TouchAppPassword(int64_t id, int64_t now_ms) override {
    NUBO_PREPARE(s, c_, "UPDATE app_passwords SET last_used_at = ? WHERE id = ?");
    s.Bind(1, now_ms).Bind(2, id);
    return s.Exec();
  }

  Result<int64_t> InsertManifest(const Digest& hash, uint64_t size,
                                 const std::vector<ManifestChunk>& chunks) override {
    int64_t id = 0;
    {
      NUBO_PREPARE(s, c_,
                   "INSERT INTO manifests (hash, size, refs, created_at) VALUES (?, ?, 0, ?) ON "
                   "CONFLICT DO NOTHING RETURNING id");
      s.Bind(1, hash).Bind(2, static_cast<int64_t>(size)).Bind(3, UnixMillis());
      NUBO_ASSIGN_OR_RETURN(id, InsertedId(s));
    }
    NUBO_PREPARE(s, c_,
                 "INSERT INTO manifest_chunks (manifest_id, seq, chunk_hash, \"offset\", size) "
                 "VALUES (?, ?, ?, ?, ?)");
    for (const auto& ch : chunks) {
      s.Bind(1, id)
          .Bind(2, ch.seq)
          .Bind(3, ch.hash)
          .Bind(4, static_cast<int64_t>(ch.offset))
          .Bind(5, ch.size);
      NUBO_RETURN_IF_ERROR(s.Exec());
      s.Reset();
    }
    return id;
  }
  Status SetManifestRefs(int64_t id, int64_t refs) override {
    NUBO_PREPARE(s, c_, "UPDATE manifests SET refs = ? WHERE id = ?");
    s.Bind(1, refs).Bind(2, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no manifest " + std::to_string(id));
    return Status::Ok();
  }
  Status SetManifestChecksums(int64_t id, const std::string& checksums) override {
    NUBO_PREPARE(s, c_, "UPDATE manifests SET checksums = ? WHERE id = ?");
    if (checksums.empty()) {
      s.BindNull(1);
    } else {
      s.Bind(1, checksums);
    }
    s.Bind(2, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no manifest " + std::to_string(id));
    return Status::Ok();
  }
  Status DeleteManifest(int64_t id) override {
    NUBO_PREPARE(s, c_, "DELETE FROM manifests WHERE id = ?");
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no manifest " + std::to_string(id));
    return Status::Ok();
  }
  Status InsertChunk(const ChunkRow& row) override {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO chunks (hash, size, refs, orphaned_at) VALUES (?, ?, ?, ?) ON "
                 "CONFLICT DO NOTHING");
    s.Bind(1, row.hash).Bind(2, static_cast<int64_t>(row.size)).Bind(3, row.refs);
    if (row.orphaned_at_ms) {
      s.Bind(4, *row.orphaned_at_ms);
    } else {
      s.BindNull(4);
    }
    return Inserted(s);
  }
  Status SetChunkRefs(const Digest& hash, int64_t refs,
                      std::optional<int64_t> orphaned_at_ms) override {
    NUBO_PREPARE(s, c_, "UPDATE chunks SET refs = ?, orphaned_at = ? WHERE hash = ?");
    s.Bind(1, refs).Bind(3, hash);
    if (orphaned_at_ms) {
      s.Bind(2, *orphaned_at_ms);
    } else {
      s.BindNull(2);
    }
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no chunk " + DigestHex(hash));
    return Status::Ok();
  }
  Status DeleteChunk(const Digest& hash) override {
    NUBO_PREPARE(s, c_, "DELETE FROM chunks WHERE hash = ?");
    s.Bind(1, hash);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no chunk " + DigestHex(hash));
    return Status::Ok();
  }
  Status SetChunkData(const Digest& hash, const std::string& data) override {
    NUBO_PREPARE(s, c_, "UPDATE chunks SET data = ? WHERE hash = ?");
    s.BindBlob(1, data).Bind(2, hash);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no chunk " + DigestHex(hash));
    return Status::Ok();
  }
  Status InsertPin(const std::string& name, int64_t manifest_id) override {
    NUBO_PREPARE(
        s, c_,
        "INSERT INTO pins (name, manifest_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
    s.Bind(1, name).Bind(2, manifest_id).Bind(3, UnixMillis());
    return Inserted(s);
  }
  Status DeletePin(const std::string& name) override {
    NUBO_PREPARE(s, c_, "DELETE FROM pins WHERE name = ?");
    s.Bind(1, name);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no pin " + name);
    return Status::Ok();
  }

 private:
  static void BindUser(Stmt& s, const UserRow& u, const std::string& key,
                       const std::optional<std::string>& email) {
    s.Bind(1, u.public_id).Bind(2, u.username).Bind(3, key);
    if (email) {
      s.Bind(4, *email);
    } else {
      s.BindNull(4);
    }
    s.Bind(5, u.display_name).Bind(6, u.password_hash).Bind(7, u.role).Bind(8, u.active ? 1 : 0);
    if (u.quota_bytes) {
      s.Bind(9, *u.quota_bytes);
    } else {
      s.BindNull(9);
    }
    s.Bind(10, u.credentials_version).Bind(11, u.created_at_ms);
    if (u.last_login_at_ms) {
      s.Bind(12, *u.last_login_at_ms);
    } else {
      s.BindNull(12);
    }
  }

  sql::Conn& c_;
};

}  // namespace

namespace sql {

std::unique_ptr<WriteTxn> NewTxn(Conn& c) { return std::make_unique<SqliteTxn>(c); }

Result<int> CurrentVersion(Conn& c) {
  NUBO_RETURN_IF_ERROR(
      c.Exec(c.dialect() == Dialect::kSqlite
                 ? "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                   "name TEXT NOT NULL, applied_at INTEGER NOT NULL)"
                 : "CREATE TABLE IF NOT EXISTS schema_migrations (version bigint PRIMARY KEY, "
                   "name text NOT NULL, applied_at bigint NOT NULL)"));
  NUBO_PREPARE(s, c, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? static_cast<int>(s.Int(0)) : 0;
}

// Applies every migration above the current version, each in its own
// transaction with its version row, so a crash leaves whole migrations.
Result<int> ApplyMigrations(Conn& c, const std::vector<Migration>& all, bool allowed) {
  NUBO_ASSIGN_OR_RETURN(int current, CurrentVersion(c));
  int latest = all.empty() ? 0 : all.back().version;
  if (current > latest) {
    return Status::Unsupported("database schema version " + std::to_string(current) +
                               " is newer than this nubo understands (" + std::to_string(latest) +
                               "): upgrade nubo");
  }
  int applied = 0;
  for (const auto& m : all) {
    if (m.version <= current) continue;
    if (!allowed) {
      return Status::Unsupported("database needs migration to version " + std::to_string(latest) +
                                 ": run `nubo migrate`");
    }
    NUBO_RETURN_IF_ERROR(c.Exec(c.dialect() == Dialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
    if (c.dialect() == Dialect::kPostgres) {
      // One migrator at a time when several nodes start together.
      NUBO_RETURN_IF_ERROR(c.Exec("SELECT pg_advisory_xact_lock(7236100)"));
      NUBO_ASSIGN_OR_RETURN(int now, CurrentVersion(c));
      if (now >= m.version) {
        NUBO_RETURN_IF_ERROR(c.Exec("COMMIT"));
        continue;
      }
    }
    Status st = c.Exec(m.sql);
    if (st.ok()) {
      NUBO_PREPARE(s, c,
                   "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
      std::string name(m.name);
      s.Bind(1, m.version).Bind(2, name).Bind(3, UnixMillis());
      st = s.Exec();
    }
    if (!st.ok()) {
      (void)c.Exec("ROLLBACK");
      return st.WithContext("migration " + std::string(m.name));
    }
    NUBO_RETURN_IF_ERROR(c.Exec("COMMIT"));
    ++applied;
  }
  return applied;
}

}  // namespace sql

namespace {

class SqliteStore final : public MetaStore {
 public:
  SqliteStore(std::string path, SqliteOptions o, std::unique_ptr<Conn> writer)
      : path_(std::move(path)), opt_(o), writer_(std::move(writer)) {}

  Status Read(const std::function<Status(ReadTxn&)>& fn) override {
    NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Acquire());
    Status st = c->Run("BEGIN");
    if (st.ok()) {
      SqliteTxn txn(*c);
      st = fn(txn);
      Status end = st.ok() ? c->Run("COMMIT") : c->Run("ROLLBACK");
      if (st.ok()) st = end;
    }
    Release(std::move(c));
    return st;
  }

  Status Write(const std::function<Status(WriteTxn&)>& fn) override { return writes_.Submit(&fn); }

  Result<int> SchemaVersion() override {
    std::lock_guard lock(writer_mu_);
    return sql::CurrentVersion(*writer_);
  }

  WriteStats Stats() const override { return {writes_.items(), writes_.batches()}; }

 private:
  using WriteFn = const std::function<Status(WriteTxn&)>*;
  using WriteBatch = std::vector<GroupCommit<WriteFn>::Entry*>;

  // Runs a batch of writes in one transaction, each inside its own
  // savepoint: a write that fails is rolled back to its savepoint and
  // answers its own error, the others commit together (one durable
  // commit). Equivalent to running them one after the other.
  void RunWrites(WriteBatch& batch) {
    std::lock_guard lock(writer_mu_);
    Status begin = writer_->Run("BEGIN IMMEDIATE");
    if (!begin.ok()) {
      for (auto* e : batch) e->result = begin;
      return;
    }
    SqliteTxn txn(*writer_);
    const bool single = batch.size() == 1;
    bool lost = false;  // SQLite rolled the whole transaction back
    for (auto* e : batch) {
      if (lost) {
        e->result = Status::Unavailable("the group commit this write joined was rolled back");
        continue;
      }
      if (!single) {
        e->result = writer_->Run("SAVEPOINT w");
        if (!e->result.ok()) continue;
      }
      try {
        e->result = (*e->item)(txn);
      } catch (const std::exception& ex) {
        e->result = Status::Internal(std::string("write threw: ") + ex.what());
      }
      if (single) break;
      if (sqlite3_get_autocommit(writer_->db())) {
        // An I/O error, a full disk or the like ended the transaction
        // (sqlite.org/lang_transaction.html, "Response To Errors Within A
        // Transaction"): the writes before this one are gone too.
        lost = true;
        if (e->result.ok()) e->result = Status::Unavailable("the transaction was rolled back");
        continue;
      }
      if (!e->result.ok()) (void)writer_->Run("ROLLBACK TO w");
      (void)writer_->Run("RELEASE w");
    }
    if (lost) {
      for (auto* e : batch) {
        if (e->result.ok())
          e->result = Status::Unavailable("the group commit this write joined was rolled back");
      }
      return;
    }
    const bool any =
        std::any_of(batch.begin(), batch.end(), [](auto* e) { return e->result.ok(); });
    if (!any) {
      (void)writer_->Exec("ROLLBACK");
      return;
    }
    Status commit = writer_->Run("COMMIT");
    if (!commit.ok()) {
      (void)writer_->Exec("ROLLBACK");
      for (auto* e : batch) {
        if (e->result.ok()) e->result = commit;
      }
    }
  }

  Result<std::unique_ptr<Conn>> Acquire() { return readers_.Acquire(); }
  void Release(std::unique_ptr<Conn> c) { readers_.Release(std::move(c)); }

  std::string path_;
  SqliteOptions opt_;
  std::mutex writer_mu_;
  GroupCommit<WriteFn> writes_{[this](WriteBatch& b) { RunWrites(b); }};
  std::unique_ptr<Conn> writer_;
  sql::Pool<Conn> readers_{opt_.max_readers,
                           [this] { return Conn::Open(path_, opt_.busy_timeout_ms); }};
};

}  // namespace

Result<std::unique_ptr<MetaStore>> OpenSqlite(const std::string& path, SqliteOptions options) {
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> writer, Conn::Open(path, options.busy_timeout_ms));
  NUBO_RETURN_IF_ERROR(sql::ApplyMigrations(*writer, Migrations(), options.migrate).status());
  return std::unique_ptr<MetaStore>(new SqliteStore(path, options, std::move(writer)));
}

Result<int> MigrateSqlite(const std::string& path) {
  NUBO_ASSIGN_OR_RETURN(std::unique_ptr<Conn> c, Conn::Open(path, 5000));
  return sql::ApplyMigrations(*c, Migrations(), true);
}

}  // namespace nubo::meta
