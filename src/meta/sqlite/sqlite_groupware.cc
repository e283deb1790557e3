#include "meta/sqlite/sqlite_groupware.h"

#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

constexpr const char* kCollectionSelect =
    "SELECT id, public_id, user_id, kind, name, display_name, description, color, sort_order, "
    "timezone, components, sync_seq, sync_floor, created_at FROM dav_collections ";

DavCollectionRow CollectionFrom(const Stmt& s) {
  DavCollectionRow r;
  r.id = s.Int(0);
  r.public_id = s.Text(1);
  r.user_id = s.Int(2);
  r.kind = static_cast<int>(s.Int(3));
  r.name = s.Text(4);
  r.display_name = s.Text(5);
  r.description = s.Text(6);
  r.color = s.Text(7);
  r.sort_order = s.Int(8);
  r.timezone = s.Text(9);
  r.components = static_cast<uint32_t>(s.Int(10));
  r.sync_seq = s.Int(11);
  r.sync_floor = s.Int(12);
  r.created_at_ms = s.Int(13);
  return r;
}

// Column 5 is the data or NULL (listings without it).
#define NUBO_OBJECT_COLUMNS(data)                         \
  "SELECT id, collection_id, name, uid, component, " data \
  ", etag, first_start, last_end, modseq, mtime, size FROM dav_objects "

constexpr const char* kObjectSelect = NUBO_OBJECT_COLUMNS("data");
constexpr const char* kObjectSelectNoData = NUBO_OBJECT_COLUMNS("NULL");

// A listing without the texts reads only what a member's properties and
// href need, in the order of the covering index dav_objects_listing (the
// columns before the one read are all a row costs to decode).
constexpr const char* kObjectListing =
    "SELECT name, etag, size, mtime, modseq, component FROM dav_objects ";

void ListingInto(const Stmt& s, int64_t collection_id, DavObjectRow& r) {
  r.id = 0;
  r.collection_id = collection_id;
  r.name.assign(s.View(0));
  r.etag.assign(s.View(1));
  r.size = s.Int(2);
  r.mtime_ms = s.Int(3);
  r.modseq = s.Int(4);
  r.component.assign(s.View(5));
}

// Fills `r` from the row, reusing its strings' storage.
void ObjectInto(const Stmt& s, DavObjectRow& r) {
  r.id = s.Int(0);
  r.collection_id = s.Int(1);
  r.name.assign(s.View(2));
  r.uid.assign(s.View(3));
  r.component.assign(s.View(4));
  r.data.assign(s.BlobView(5));
  r.etag.assign(s.View(6));
  r.first_start_ms.reset();
  r.last_end_ms.reset();
  if (!s.IsNull(7)) r.first_start_ms = s.Int(7);
  if (!s.IsNull(8)) r.last_end_ms = s.Int(8);
  r.modseq = s.Int(9);
  r.mtime_ms = s.Int(10);
  r.size = s.Int(11);
}

DavObjectRow ObjectFrom(const Stmt& s) {
  DavObjectRow r;
  ObjectInto(s, r);
  return r;
}

// The collection's next sequence number (one per change, RFC 6578 tokens).
Result<int64_t> NextSeq(sql::Conn& c, int64_t collection_id) {
  NUBO_PREPARE(s, c,
               "UPDATE dav_collections SET sync_seq = sync_seq + 1 WHERE id = ? "
               "RETURNING sync_seq");
  s.Bind(1, collection_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::NotFound("no such collection");
  return s.Int(0);
}

}  // namespace

Result<std::optional<DavCollectionRow>> GetDavCollection(sql::Conn& c, int64_t user_id, int kind,
                                                         const std::string& name) {
  static const std::string sql =
      std::string(kCollectionSelect) + "WHERE user_id = ? AND kind = ? AND name = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, user_id).Bind(2, static_cast<int64_t>(kind)).Bind(3, name);
  return One<DavCollectionRow>(s, CollectionFrom);
}

Result<std::vector<DavCollectionRow>> ListDavCollections(sql::Conn& c, int64_t user_id, int kind) {
  static const std::string sql =
      std::string(kCollectionSelect) + "WHERE user_id = ? AND kind = ? ORDER BY sort_order, name";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, user_id).Bind(2, static_cast<int64_t>(kind));
  return Rows<DavCollectionRow>(s, CollectionFrom);
}

Result<std::vector<DavShareRow>> ListDavShares(sql::Conn& c, int64_t collection_id) {
  NUBO_PREPARE(s, c,
               "SELECT 0, u.id, u.username, u.display_name, sh.read_only FROM dav_shares sh "
               "JOIN users u ON u.id = sh.grantee_user WHERE sh.collection_id = ?1 "
               "UNION ALL SELECT 1, g.id, g.name, g.name, sh.read_only FROM dav_shares sh "
               "JOIN user_groups g ON g.id = sh.grantee_group WHERE sh.collection_id = ?1 "
               "ORDER BY 1, 3");
  s.Bind(1, collection_id);
  NUBO_ASSIGN_OR_RETURN(auto rows, Rows<DavShareRow>(s, [](const Stmt& r) {
                          DavShareRow x;
                          x.is_group = r.Int(0) != 0;
                          x.grantee_id = r.Int(1);
                          x.grantee_name = r.Text(2);
                          x.display_name = r.Text(3);
                          x.read_only = r.Int(4) != 0;
                          return x;
                        }));
  for (auto& r : rows) r.collection_id = collection_id;
  return rows;
}

Result<std::optional<bool>> DavShareAccess(sql::Conn& c, int64_t collection_id, int64_t user_id,
                                           const std::vector<int64_t>& groups) {
  NUBO_PREPARE(s, c,
               "SELECT min(read_only) FROM dav_shares WHERE collection_id = ?1 AND "
               "(grantee_user = ?2 OR grantee_group IN (SELECT value FROM json_each(?3)))");
  // Bound without a copy: the text must outlive the statement's steps.
  const std::string ids = JsonIds(groups);
  s.Bind(1, collection_id).Bind(2, user_id).Bind(3, ids);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row || s.IsNull(0)) return std::optional<bool>();
  return std::optional<bool>(s.Int(0) != 0);
}

Result<std::vector<SharedDavCollection>> ListDavCollectionsSharedWith(
    sql::Conn& c, int64_t user_id, const std::vector<int64_t>& groups, int kind) {
  // One row per collection: read-write through any share wins.
  static const std::string sql =
      "SELECT d.id, d.public_id, d.user_id, d.kind, d.name, d.display_name, d.description, "
      "d.color, d.sort_order, d.timezone, d.components, d.sync_seq, d.sync_floor, d.created_at, "
      "u.username, min(sh.read_only) FROM dav_shares sh JOIN dav_collections d ON d.id = "
      "sh.collection_id JOIN users u ON u.id = d.user_id WHERE d.kind = ?3 AND d.user_id != ?1 "
      "AND u.active = 1 AND (sh.grantee_user = ?1 OR sh.grantee_group IN (SELECT value FROM "
      "json_each(?2))) GROUP BY d.id, u.username ORDER BY u.username, d.sort_order, d.name";
  NUBO_PREPARE(s, c, sql.c_str());
  const std::string ids = JsonIds(groups);  // bound without a copy
  s.Bind(1, user_id).Bind(2, ids).Bind(3, static_cast<int64_t>(kind));
  return Rows<SharedDavCollection>(s, [](const Stmt& r) {
    SharedDavCollection x;
    x.collection = CollectionFrom(r);
    x.owner_name = r.Text(14);
    x.read_only = r.Int(15) != 0;
    return x;
  });
}

Status SetDavShare(sql::Conn& c, int64_t collection_id, bool is_group, int64_t grantee_id,
                   bool read_only, int64_t at_ms) {
  NUBO_PREPARE(s, c,
               is_group ? "INSERT INTO dav_shares (collection_id, grantee_group, read_only, "
                          "created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (collection_id, "
                          "grantee_group) WHERE grantee_group IS NOT NULL DO UPDATE SET "
                          "read_only = excluded.read_only"
                        : "INSERT INTO dav_shares (collection_id, grantee_user, read_only, "
                          "created_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (collection_id, "
                          "grantee_user) WHERE grantee_user IS NOT NULL DO UPDATE SET "
                          "read_only = excluded.read_only");
  s.Bind(1, collection_id).Bind(2, grantee_id).Bind(3, int64_t{read_only ? 1 : 0}).Bind(4, at_ms);
  return s.Exec();
}

Result<bool> RemoveDavShare(sql::Conn& c, int64_t collection_id, bool is_group,
                            int64_t grantee_id) {
  NUBO_PREPARE(s, c,
               is_group ? "DELETE FROM dav_shares WHERE collection_id = ? AND grantee_group = ?"
                        : "DELETE FROM dav_shares WHERE collection_id = ? AND grantee_user = ?");
  s.Bind(1, collection_id).Bind(2, grantee_id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() > 0;
}

Result<std::optional<DavObjectRow>> GetDavObject(sql::Conn& c, int64_t collection_id,
                                                 const std::string& name) {
  static const std::string sql =
      std::string(kObjectSelect) + "WHERE collection_id = ? AND name = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, collection_id).Bind(2, name);
  return One<DavObjectRow>(s, ObjectFrom);
}

Result<std::optional<DavObjectRow>> GetDavObjectByUid(sql::Conn& c, int64_t collection_id,
                                                      const std::string& uid) {
  static const std::string sql =
      std::string(kObjectSelectNoData) + "WHERE collection_id = ? AND uid = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, collection_id).Bind(2, uid);
  return One<DavObjectRow>(s, ObjectFrom);
}

Status ScanDavObjects(sql::Conn& c, int64_t collection_id, const std::string& after_name,
                      size_t limit, bool with_data,
                      const std::function<Status(const DavObjectRow&)>& fn) {
  static const std::string with =
      std::string(kObjectSelect) + "WHERE collection_id = ? AND name > ? ORDER BY name LIMIT ?";
  static const std::string without =
      std::string(kObjectListing) + "WHERE collection_id = ? AND name > ? ORDER BY name LIMIT ?";
  NUBO_PREPARE(s, c, with_data ? with.c_str() : without.c_str());
  s.Bind(1, collection_id).Bind(2, after_name).Bind(3, static_cast<int64_t>(limit));
  DavObjectRow row;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool more, s.Step());
    if (!more) return Status::Ok();
    if (with_data) {
      ObjectInto(s, row);
    } else {
      ListingInto(s, collection_id, row);
    }
    NUBO_RETURN_IF_ERROR(fn(row));
  }
}

Result<std::vector<DavObjectRow>> ListDavObjectsInRange(sql::Conn& c, int64_t collection_id,
                                                        std::optional<int64_t> start_ms,
                                                        std::optional<int64_t> end_ms,
                                                        const std::string& after_name,
                                                        size_t limit) {
  // A span [first_start, last_end] may overlap [start, end) unless it ends
  // before the start or begins at or after the end; NULL bounds are open.
  // An event of zero duration at `start` still matches (RFC 4791 §9.9).
  static const std::string sql =
      std::string(kObjectSelect) +
      "WHERE collection_id = ?1 AND name > ?2 "
      "AND (CAST(?3 AS BIGINT) IS NULL OR last_end IS NULL OR last_end >= ?3) "
      "AND (CAST(?4 AS BIGINT) IS NULL OR first_start IS NULL OR first_start < ?4) "
      "ORDER BY name LIMIT ?5";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, collection_id).Bind(2, after_name);
  BindOpt(s, 3, start_ms);
  BindOpt(s, 4, end_ms);
  s.Bind(5, static_cast<int64_t>(limit));
  return Rows<DavObjectRow>(s, ObjectFrom);
}

Result<std::vector<DavChange>> DavChangesSince(sql::Conn& c, int64_t collection_id,
                                               int64_t since_seq, size_t limit) {
  NUBO_PREPARE(s, c,
               "SELECT name, modseq, 0, etag, size, component, mtime FROM dav_objects "
               "WHERE collection_id = ?1 AND modseq > ?2 "
               "UNION ALL SELECT name, modseq, 1, '', 0, '', 0 FROM dav_tombstones "
               "WHERE collection_id = ?1 AND modseq > ?2 ORDER BY 2, 1 LIMIT ?3");
  s.Bind(1, collection_id).Bind(2, since_seq).Bind(3, static_cast<int64_t>(limit));
  return Rows<DavChange>(s, [](const Stmt& r) {
    return DavChange{r.Text(0), r.Int(1), r.Int(2) != 0, r.Text(3), r.Int(4), r.Text(5), r.Int(6)};
  });
}

Result<std::vector<DavDeadProp>> ListDavCollectionProps(sql::Conn& c, int64_t collection_id) {
  NUBO_PREPARE(s, c,
               "SELECT ns, name, value FROM dav_collection_props WHERE collection_id = ? "
               "ORDER BY ns, name");
  s.Bind(1, collection_id);
  return Rows<DavDeadProp>(s, [](const Stmt& r) {
    return DavDeadProp{r.Text(0), r.Text(1), r.Text(2)};
  });
}

Status InsertDavCollection(sql::Conn& c, DavCollectionRow& row) {
  NUBO_PREPARE(s, c,
               "INSERT INTO dav_collections (public_id, user_id, kind, name, display_name, "
               "description, color, sort_order, timezone, components, sync_seq, sync_floor, "
               "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING "
               "RETURNING id");
  s.Bind(1, row.public_id).Bind(2, row.user_id).Bind(3, static_cast<int64_t>(row.kind));
  s.Bind(4, row.name).Bind(5, row.display_name).Bind(6, row.description).Bind(7, row.color);
  s.Bind(8, row.sort_order).Bind(9, row.timezone).Bind(10, static_cast<int64_t>(row.components));
  s.Bind(11, row.sync_seq).Bind(12, row.sync_floor).Bind(13, row.created_at_ms);
  NUBO_ASSIGN_OR_RETURN(row.id, InsertedId(s));
  return Status::Ok();
}

Status UpdateDavCollection(sql::Conn& c, const DavCollectionRow& row) {
  NUBO_PREPARE(s, c,
               "UPDATE dav_collections SET display_name = ?, description = ?, color = ?, "
               "sort_order = ?, timezone = ?, components = ? WHERE id = ?");
  s.Bind(1, row.display_name).Bind(2, row.description).Bind(3, row.color);
  s.Bind(4, row.sort_order).Bind(5, row.timezone).Bind(6, static_cast<int64_t>(row.components));
  s.Bind(7, row.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no such collection");
  return Status::Ok();
}

Status DeleteDavCollection(sql::Conn& c, int64_t id) {
  NUBO_PREPARE(s, c, "DELETE FROM dav_collections WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no such collection");
  return Status::Ok();
}

Status PutDavObject(sql::Conn& c, DavObjectRow& row) {
  NUBO_ASSIGN_OR_RETURN(row.modseq, NextSeq(c, row.collection_id));
  {
    NUBO_PREPARE(s, c,
                 "INSERT INTO dav_objects (collection_id, name, uid, component, data, etag, "
                 "first_start, last_end, modseq, mtime, size) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                 "?8, ?9, ?10, ?11) ON CONFLICT (collection_id, name) DO UPDATE SET "
                 "uid = ?3, component = ?4, data = ?5, etag = ?6, first_start = ?7, "
                 "last_end = ?8, modseq = ?9, mtime = ?10, size = ?11 RETURNING id");
    s.Bind(1, row.collection_id).Bind(2, row.name).Bind(3, row.uid).Bind(4, row.component);
    s.BindBlob(5, row.data).Bind(6, row.etag);
    BindOpt(s, 7, row.first_start_ms);
    BindOpt(s, 8, row.last_end_ms);
    s.Bind(9, row.modseq).Bind(10, row.mtime_ms).Bind(11, static_cast<int64_t>(row.data.size()));
    NUBO_ASSIGN_OR_RETURN(bool got, s.Step());
    if (got) row.id = s.Int(0);
  }
  row.size = static_cast<int64_t>(row.data.size());
  NUBO_PREPARE(s, c, "DELETE FROM dav_tombstones WHERE collection_id = ? AND name = ?");
  s.Bind(1, row.collection_id).Bind(2, row.name);
  return s.Exec();
}

Status DeleteDavObject(sql::Conn& c, int64_t collection_id, const std::string& name) {
  {
    NUBO_PREPARE(s, c, "DELETE FROM dav_objects WHERE collection_id = ? AND name = ?");
    s.Bind(1, collection_id).Bind(2, name);
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes() == 0) return Status::NotFound("no such object");
  }
  NUBO_ASSIGN_OR_RETURN(int64_t seq, NextSeq(c, collection_id));
  NUBO_PREPARE(s, c,
               "INSERT INTO dav_tombstones (collection_id, name, modseq) VALUES (?1, ?2, ?3) "
               "ON CONFLICT (collection_id, name) DO UPDATE SET modseq = ?3");
  s.Bind(1, collection_id).Bind(2, name).Bind(3, seq);
  return s.Exec();
}

Status SetDavCollectionProp(sql::Conn& c, int64_t collection_id, const std::string& ns,
                            const std::string& name, const std::optional<std::string>& value) {
  if (!value) {
    NUBO_PREPARE(
        s, c, "DELETE FROM dav_collection_props WHERE collection_id = ? AND ns = ? AND name = ?");
    s.Bind(1, collection_id).Bind(2, ns).Bind(3, name);
    return s.Exec();
  }
  NUBO_PREPARE(s, c,
               "INSERT INTO dav_collection_props (collection_id, ns, name, value) "
               "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (collection_id, ns, name) DO UPDATE "
               "SET value = ?4");
  s.Bind(1, collection_id).Bind(2, ns).Bind(3, name).Bind(4, *value);
  return s.Exec();
}

// ---- The transaction's methods of this capability (sqlite_txn.h) ----

Result<std::optional<DavCollectionRow>> SqliteTxn::GetDavCollection(int64_t user_id, int kind,
                                                                    const std::string& name) {
  return sqlite::GetDavCollection(c_, user_id, kind, name);
}

Result<std::vector<DavCollectionRow>> SqliteTxn::ListDavCollections(int64_t user_id, int kind) {
  return sqlite::ListDavCollections(c_, user_id, kind);
}

Result<std::vector<DavShareRow>> SqliteTxn::ListDavShares(int64_t collection_id) {
  return sqlite::ListDavShares(c_, collection_id);
}

Result<std::optional<bool>> SqliteTxn::DavShareAccess(int64_t collection_id, int64_t user_id,
                                                      const std::vector<int64_t>& groups) {
  return sqlite::DavShareAccess(c_, collection_id, user_id, groups);
}

Result<std::vector<SharedDavCollection>> SqliteTxn::ListDavCollectionsSharedWith(
    int64_t user_id, const std::vector<int64_t>& groups, int kind) {
  return sqlite::ListDavCollectionsSharedWith(c_, user_id, groups, kind);
}

Result<std::optional<DavObjectRow>> SqliteTxn::GetDavObject(int64_t collection_id,
                                                            const std::string& name) {
  return sqlite::GetDavObject(c_, collection_id, name);
}

Result<std::optional<DavObjectRow>> SqliteTxn::GetDavObjectByUid(int64_t collection_id,
                                                                 const std::string& uid) {
  return sqlite::GetDavObjectByUid(c_, collection_id, uid);
}

Status SqliteTxn::ScanDavObjects(int64_t collection_id, const std::string& after_name, size_t limit,
                                 bool with_data,
                                 const std::function<Status(const DavObjectRow&)>& fn) {
  return sqlite::ScanDavObjects(c_, collection_id, after_name, limit, with_data, fn);
}

Result<std::vector<DavObjectRow>> SqliteTxn::ListDavObjectsInRange(int64_t collection_id,
                                                                   std::optional<int64_t> start_ms,
                                                                   std::optional<int64_t> end_ms,
                                                                   const std::string& after_name,
                                                                   size_t limit) {
  return sqlite::ListDavObjectsInRange(c_, collection_id, start_ms, end_ms, after_name, limit);
}

Result<std::vector<DavChange>> SqliteTxn::DavChangesSince(int64_t collection_id, int64_t since_seq,
                                                          size_t limit) {
  return sqlite::DavChangesSince(c_, collection_id, since_seq, limit);
}

Result<std::vector<DavDeadProp>> SqliteTxn::ListDavCollectionProps(int64_t collection_id) {
  return sqlite::ListDavCollectionProps(c_, collection_id);
}

Status SqliteTxn::InsertDavCollection(DavCollectionRow& row) {
  return sqlite::InsertDavCollection(c_, row);
}

Status SqliteTxn::SetDavShare(int64_t collection_id, bool is_group, int64_t grantee_id,
                              bool read_only, int64_t at_ms) {
  return sqlite::SetDavShare(c_, collection_id, is_group, grantee_id, read_only, at_ms);
}

Result<bool> SqliteTxn::RemoveDavShare(int64_t collection_id, bool is_group, int64_t grantee_id) {
  return sqlite::RemoveDavShare(c_, collection_id, is_group, grantee_id);
}

Status SqliteTxn::UpdateDavCollection(const DavCollectionRow& row) {
  return sqlite::UpdateDavCollection(c_, row);
}

Status SqliteTxn::DeleteDavCollection(int64_t id) { return sqlite::DeleteDavCollection(c_, id); }

Status SqliteTxn::PutDavObject(DavObjectRow& row) { return sqlite::PutDavObject(c_, row); }

Status SqliteTxn::DeleteDavObject(int64_t collection_id, const std::string& name) {
  return sqlite::DeleteDavObject(c_, collection_id, name);
}

Status SqliteTxn::SetDavCollectionProp(int64_t collection_id, const std::string& ns,
                                       const std::string& name,
                                       const std::optional<std::string>& value) {
  return sqlite::SetDavCollectionProp(c_, collection_id, ns, name, value);
}

}  // namespace nubo::meta::sqlite
