#include "meta/sqlite/sqlite_history.h"

#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

constexpr const char* kVersionSelect =
    "SELECT v.id, v.public_id, v.node_id, n.drive_id, v.manifest_id, m.hash, v.size, v.charged, "
    "v.mtime, v.created_at, v.author, COALESCE(NULLIF(u.display_name, ''), u.username, '') "
    "FROM file_versions v JOIN nodes n ON n.id = v.node_id "
    "JOIN manifests m ON m.id = v.manifest_id LEFT JOIN users u ON u.id = v.author ";

VersionRow VersionFrom(const Stmt& s) {
  VersionRow v;
  v.id = s.Int(0);
  v.public_id = s.Text(1);
  v.node_id = s.Int(2);
  v.drive_id = s.Int(3);
  v.manifest_id = s.Int(4);
  v.hash = s.Hash(5);
  v.size = static_cast<uint64_t>(s.Int(6));
  v.charged = s.Int(7);
  v.mtime_ms = s.Int(8);
  v.created_at_ms = s.Int(9);
  if (!s.IsNull(10)) v.author = s.Int(10);
  v.author_name = s.Text(11);
  return v;
}

constexpr const char* kSessionSelect =
    "SELECT id, public_id, user_id, drive_id, parent_public_id, name, conflict, if_match, length, "
    "\"offset\", mtime, metadata, kind, hasher, tail_hash, tail_size, reservation_id, checksum, "
    "created_at, expires_at, result_node, plan, received_bytes FROM upload_sessions ";

UploadSessionRow SessionFrom(const Stmt& s) {
  UploadSessionRow r;
  r.id = s.Int(0);
  r.public_id = s.Text(1);
  r.user_id = s.Int(2);
  r.drive_id = s.Int(3);
  r.parent_public_id = s.Text(4);
  r.name = s.Text(5);
  r.conflict = static_cast<int>(s.Int(6));
  if (!s.IsNull(7)) r.if_match = s.Text(7);
  if (!s.IsNull(8)) r.length = s.Int(8);
  r.offset = s.Int(9);
  if (!s.IsNull(10)) r.mtime_ms = s.Int(10);
  r.metadata = s.Text(11);
  r.kind = static_cast<int>(s.Int(12));
  r.hasher = s.Blob(13);
  if (!s.IsNull(14)) r.tail_hash = s.Hash(14);
  r.tail_size = s.Int(15);
  r.reservation_id = s.Int(16);
  r.checksum = s.Text(17);
  r.created_at_ms = s.Int(18);
  r.expires_at_ms = s.Int(19);
  r.result_node = s.Text(20);
  r.plan = s.Blob(21);
  r.received_bytes = s.Int(22);
  return r;
}

// Binds every column but id as ?1..?22, in the order of the INSERT below.
void BindSession(Stmt& s, const UploadSessionRow& r) {
  s.Bind(1, r.public_id).Bind(2, r.user_id).Bind(3, r.drive_id).Bind(4, r.parent_public_id);
  s.Bind(5, r.name).Bind(6, static_cast<int64_t>(r.conflict));
  BindOpt(s, 7, r.if_match);
  BindOpt(s, 8, r.length);
  s.Bind(9, r.offset);
  BindOpt(s, 10, r.mtime_ms);
  s.Bind(11, r.metadata).Bind(12, static_cast<int64_t>(r.kind)).BindBlob(13, r.hasher);
  if (r.tail_hash) {
    s.Bind(14, *r.tail_hash);
  } else {
    s.BindNull(14);
  }
  s.Bind(15, r.tail_size).Bind(16, r.reservation_id).Bind(17, r.checksum);
  s.Bind(18, r.created_at_ms).Bind(19, r.expires_at_ms);
  if (r.result_node.empty()) {
    s.BindNull(20);
  } else {
    s.Bind(20, r.result_node);
  }
  s.BindBlob(21, r.plan).Bind(22, r.received_bytes);
}

}  // namespace

Result<std::vector<VersionRow>> ListVersions(sql::Conn& c, int64_t node_id) {
  static const std::string sql =
      std::string(kVersionSelect) + "WHERE v.node_id = ? ORDER BY v.created_at DESC, v.id DESC";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, node_id);
  return Rows<VersionRow>(s, VersionFrom);
}

Result<std::optional<VersionRow>> GetVersionByPublicId(sql::Conn& c, const std::string& public_id) {
  static const std::string sql = std::string(kVersionSelect) + "WHERE v.public_id = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, public_id);
  return One<VersionRow>(s, VersionFrom);
}

Result<std::vector<int64_t>> ListVersionedNodes(sql::Conn& c, int64_t after_id, size_t limit) {
  NUBO_PREPARE(s, c,
               "SELECT DISTINCT node_id FROM file_versions WHERE node_id > ? ORDER BY node_id "
               "LIMIT ?");
  s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
  return Rows<int64_t>(s, FirstInt);
}

Result<std::vector<VersionRow>> ListOldestVersions(sql::Conn& c, int64_t drive_id, size_t limit) {
  static const std::string sql =
      std::string(kVersionSelect) + "WHERE n.drive_id = ? ORDER BY v.created_at, v.id LIMIT ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, drive_id).Bind(2, static_cast<int64_t>(limit));
  return Rows<VersionRow>(s, VersionFrom);
}

Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> VersionsBytesMismatches(
    sql::Conn& c, size_t limit) {
  NUBO_PREPARE(s, c,
               "SELECT public_id, versions_bytes, want FROM (SELECT d.public_id, d.versions_bytes, "
               "(SELECT COALESCE(SUM(v.charged), 0) FROM file_versions v JOIN nodes n "
               "ON n.id = v.node_id WHERE n.drive_id = d.id) AS want FROM drives d) sums "
               "WHERE versions_bytes != want LIMIT ?");
  s.Bind(1, static_cast<int64_t>(limit));
  using Row = std::tuple<std::string, int64_t, int64_t>;
  return Rows<Row>(s, [](const Stmt& r) { return Row{r.Text(0), r.Int(1), r.Int(2)}; });
}

Status InsertVersion(sql::Conn& c, VersionRow& row) {
  {
    NUBO_PREPARE(s, c,
                 "INSERT INTO file_versions (public_id, node_id, manifest_id, size, charged, "
                 "mtime, created_at, author) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id");
    s.Bind(1, row.public_id).Bind(2, row.node_id).Bind(3, row.manifest_id);
    s.Bind(4, static_cast<int64_t>(row.size)).Bind(5, row.charged).Bind(6, row.mtime_ms);
    s.Bind(7, row.created_at_ms);
    BindOpt(s, 8, row.author);
    NUBO_ASSIGN_OR_RETURN(row.id, InsertedId(s));
  }
  NUBO_PREPARE(s, c,
               "UPDATE drives SET versions_bytes = versions_bytes + ?1 "
               "WHERE id = (SELECT drive_id FROM nodes WHERE id = ?2)");
  s.Bind(1, row.charged).Bind(2, row.node_id);
  return s.Exec();
}

Status DeleteVersion(sql::Conn& c, const VersionRow& row) {
  {
    NUBO_PREPARE(s, c,
                 "UPDATE drives SET versions_bytes = versions_bytes - "
                 "(SELECT charged FROM file_versions WHERE id = ?1) "
                 "WHERE id = (SELECT n.drive_id FROM file_versions v JOIN nodes n "
                 "ON n.id = v.node_id WHERE v.id = ?1)");
    s.Bind(1, row.id);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  NUBO_PREPARE(s, c, "DELETE FROM file_versions WHERE id = ?");
  s.Bind(1, row.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such version");
}

Status DropSubtreeVersions(sql::Conn& c, int64_t node_id) {
  static const auto sql = SubtreeSqls("",
                                      "UPDATE drives SET versions_bytes = versions_bytes - (SELECT "
                                      "COALESCE(SUM(charged), 0) FROM file_versions WHERE node_id ",
                                      ") WHERE id = (SELECT drive_id FROM nodes WHERE id = ?1)");
  NUBO_PREPARE(s, c, sql[c.dialect() == sql::Dialect::kPostgres].c_str());
  s.Bind(1, node_id);
  return s.Exec();
}

Result<std::optional<UploadSessionRow>> GetUploadSession(sql::Conn& c,
                                                         const std::string& public_id) {
  static const std::string sql = std::string(kSessionSelect) + "WHERE public_id = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, public_id);
  return One<UploadSessionRow>(s, SessionFrom);
}

Result<std::vector<ManifestChunk>> UploadSessionChunks(sql::Conn& c, int64_t session_id) {
  // A chunk the session found present may be inline (storage.inline_max):
  // its bytes come along, as in ManifestChunks.
  NUBO_PREPARE(
      s, c,
      "SELECT u.seq, u.chunk_hash, u.\"offset\", u.size, k.data FROM upload_session_chunks u "
      "LEFT JOIN chunks k ON k.hash = u.chunk_hash WHERE u.session_id = ? ORDER BY u.seq");
  s.Bind(1, session_id);
  return Rows<ManifestChunk>(s, [](const Stmt& r) {
    ManifestChunk m{static_cast<uint32_t>(r.Int(0)), r.Hash(1), static_cast<uint64_t>(r.Int(2)),
                    static_cast<uint32_t>(r.Int(3))};
    if (!r.IsNull(4)) m.data = r.Blob(4);
    return m;
  });
}

Result<bool> ChunkListedIn(sql::Conn& c, const Digest& hash, const std::vector<int64_t>& drive_ids,
                           int64_t also_manifest) {
  std::string ids = "[";
  for (size_t i = 0; i < drive_ids.size(); ++i)
    ids += (i ? "," : "") + std::to_string(drive_ids[i]);
  ids += "]";
  NUBO_PREPARE(s, c,
               "SELECT EXISTS (SELECT 1 FROM manifest_chunks mc WHERE mc.chunk_hash = ?1 AND "
               "(mc.manifest_id = ?3 OR EXISTS (SELECT 1 FROM nodes n WHERE n.manifest_id = "
               "mc.manifest_id AND n.drive_id IN (SELECT value FROM json_each(?2))) OR EXISTS "
               "(SELECT 1 FROM file_versions v JOIN nodes n ON n.id = v.node_id WHERE "
               "v.manifest_id = mc.manifest_id AND n.drive_id IN (SELECT value FROM "
               "json_each(?2)))))");
  s.Bind(1, hash).Bind(2, ids).Bind(3, also_manifest);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row && s.Int(0) != 0;
}

Result<std::vector<UploadSessionRow>> ListExpiredUploadSessions(sql::Conn& c, int64_t now_ms,
                                                                size_t limit) {
  static const std::string sql =
      std::string(kSessionSelect) + "WHERE expires_at <= ? ORDER BY expires_at LIMIT ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, now_ms).Bind(2, static_cast<int64_t>(limit));
  return Rows<UploadSessionRow>(s, SessionFrom);
}

Result<std::vector<UploadSessionRow>> ListDriveUploadSessions(sql::Conn& c, int64_t drive_id,
                                                              size_t limit) {
  static const std::string sql = std::string(kSessionSelect) + "WHERE drive_id = ? LIMIT ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, drive_id).Bind(2, static_cast<int64_t>(limit));
  return Rows<UploadSessionRow>(s, SessionFrom);
}

Status InsertUploadSession(sql::Conn& c, UploadSessionRow& row) {
  NUBO_PREPARE(
      s, c,
      "INSERT INTO upload_sessions (public_id, user_id, drive_id, parent_public_id, name, "
      "conflict, if_match, length, \"offset\", mtime, metadata, kind, hasher, tail_hash, "
      "tail_size, reservation_id, checksum, created_at, expires_at, result_node) VALUES (?1, "
      "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
      "?20) ON CONFLICT DO NOTHING RETURNING id");
  BindSession(s, row);
  NUBO_ASSIGN_OR_RETURN(row.id, InsertedId(s));
  return Status::Ok();
}

Status UpdateUploadSession(sql::Conn& c, const UploadSessionRow& row) {
  NUBO_PREPARE(s, c,
               "UPDATE upload_sessions SET public_id = ?1, user_id = ?2, drive_id = ?3, "
               "parent_public_id = ?4, name = ?5, conflict = ?6, if_match = ?7, length = ?8, "
               "\"offset\" = ?9, mtime = ?10, metadata = ?11, kind = ?12, hasher = ?13, "
               "tail_hash = ?14, tail_size = ?15, reservation_id = ?16, checksum = ?17, "
               "created_at = ?18, expires_at = ?19, result_node = ?20, plan = ?21, "
               "received_bytes = ?22 WHERE id = ?23");
  BindSession(s, row);
  s.Bind(23, row.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such upload");
}

Status DeleteUploadSession(sql::Conn& c, int64_t id) {
  NUBO_PREPARE(s, c, "DELETE FROM upload_sessions WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such upload");
}

Status ClearUploadSessionChunks(sql::Conn& c, int64_t session_id) {
  NUBO_PREPARE(s, c, "DELETE FROM upload_session_chunks WHERE session_id = ?");
  s.Bind(1, session_id);
  return s.Exec();
}

Status AppendUploadSessionChunks(sql::Conn& c, int64_t session_id,
                                 const std::vector<ManifestChunk>& chunks) {
  NUBO_PREPARE(s, c,
               "INSERT INTO upload_session_chunks (session_id, seq, chunk_hash, \"offset\", size) "
               "VALUES (?, ?, ?, ?, ?)");
  for (const auto& ch : chunks) {
    s.Bind(1, session_id).Bind(2, static_cast<int64_t>(ch.seq)).Bind(3, ch.hash);
    s.Bind(4, static_cast<int64_t>(ch.offset)).Bind(5, static_cast<int64_t>(ch.size));
    NUBO_RETURN_IF_ERROR(s.Exec());
    s.Reset();
  }
  return Status::Ok();
}

// ---- The transaction's methods of this capability (sqlite_txn.h) ----

Result<std::vector<VersionRow>> SqliteTxn::ListVersions(int64_t node_id) {
  return sqlite::ListVersions(c_, node_id);
}

Result<std::optional<VersionRow>> SqliteTxn::GetVersionByPublicId(const std::string& public_id) {
  return sqlite::GetVersionByPublicId(c_, public_id);
}

Result<std::vector<int64_t>> SqliteTxn::ListVersionedNodes(int64_t after_id, size_t limit) {
  return sqlite::ListVersionedNodes(c_, after_id, limit);
}

Result<std::vector<VersionRow>> SqliteTxn::ListOldestVersions(int64_t drive_id, size_t limit) {
  return sqlite::ListOldestVersions(c_, drive_id, limit);
}

Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> SqliteTxn::VersionsBytesMismatches(
    size_t limit) {
  return sqlite::VersionsBytesMismatches(c_, limit);
}

Result<std::optional<UploadSessionRow>> SqliteTxn::GetUploadSession(const std::string& public_id) {
  return sqlite::GetUploadSession(c_, public_id);
}

Result<std::vector<ManifestChunk>> SqliteTxn::UploadSessionChunks(int64_t session_id) {
  return sqlite::UploadSessionChunks(c_, session_id);
}

Result<bool> SqliteTxn::ChunkListedIn(const Digest& hash, const std::vector<int64_t>& drive_ids,
                                      int64_t also_manifest) {
  return sqlite::ChunkListedIn(c_, hash, drive_ids, also_manifest);
}

Result<std::vector<UploadSessionRow>> SqliteTxn::ListExpiredUploadSessions(int64_t now_ms,
                                                                           size_t limit) {
  return sqlite::ListExpiredUploadSessions(c_, now_ms, limit);
}

Result<std::vector<UploadSessionRow>> SqliteTxn::ListDriveUploadSessions(int64_t drive_id,
                                                                         size_t limit) {
  return sqlite::ListDriveUploadSessions(c_, drive_id, limit);
}

Status SqliteTxn::InsertVersion(VersionRow& row) { return sqlite::InsertVersion(c_, row); }

Status SqliteTxn::DeleteVersion(const VersionRow& row) { return sqlite::DeleteVersion(c_, row); }

Status SqliteTxn::InsertUploadSession(UploadSessionRow& row) {
  return sqlite::InsertUploadSession(c_, row);
}

Status SqliteTxn::UpdateUploadSession(const UploadSessionRow& row) {
  return sqlite::UpdateUploadSession(c_, row);
}

Status SqliteTxn::DeleteUploadSession(int64_t id) { return sqlite::DeleteUploadSession(c_, id); }

Status SqliteTxn::ClearUploadSessionChunks(int64_t session_id) {
  return sqlite::ClearUploadSessionChunks(c_, session_id);
}

Status SqliteTxn::AppendUploadSessionChunks(int64_t session_id,
                                            const std::vector<ManifestChunk>& chunks) {
  return sqlite::AppendUploadSessionChunks(c_, session_id, chunks);
}

}  // namespace nubo::meta::sqlite
