// The SQLite backend's WebDAV state on nodes: dead properties (with the
// drive's props_bytes kept in step) and locks.

#include <string>
#include <vector>

#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

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

}  // namespace

Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> SqliteTxn::PropsBytesMismatches(
    size_t limit) {
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

Result<std::vector<NodeDeadProp>> SqliteTxn::ListDeadProps(const std::vector<int64_t>& node_ids) {
  const std::string ids = JsonIds(node_ids);
  NUBO_PREPARE(s, c_,
               "SELECT node_id, ns, name, value FROM dead_props "
               "WHERE node_id IN (SELECT value FROM json_each(?)) ORDER BY node_id, ns, name");
  s.Bind(1, ids);
  return Rows<NodeDeadProp>(s, [](const Stmt& r) {
    return NodeDeadProp{r.Int(0), DeadProp{r.Text(1), r.Text(2), r.Text(3)}};
  });
}

Result<std::vector<DavLockRow>> SqliteTxn::FindDavLocks(int64_t drive_id,
                                                        const std::vector<std::string>& paths,
                                                        const std::string& below, int64_t now_ms) {
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

Result<std::optional<DavLockRow>> SqliteTxn::GetDavLock(const std::string& token) {
  static const std::string sql = std::string(kDavLockSelect) + "WHERE token = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, token);
  return One<DavLockRow>(s, DavLockFrom);
}

// The drive's props_bytes follows every change of dead_props, in the
// same transaction (fsck recomputes it).
Status SqliteTxn::AddPropsBytes(int64_t node_id, int64_t delta) {
  if (delta == 0) return Status::Ok();
  NUBO_PREPARE(s, c_,
               "UPDATE drives SET props_bytes = props_bytes + ?2 "
               "WHERE id = (SELECT drive_id FROM nodes WHERE id = ?1)");
  s.Bind(1, node_id).Bind(2, delta);
  return s.Exec();
}

Result<int64_t> SqliteTxn::PropBytes(int64_t node_id, const std::string& ns,
                                     const std::string& name) {
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

Status SqliteTxn::SetDeadProp(int64_t node_id, const DeadProp& p) {
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

Status SqliteTxn::RemoveDeadProp(int64_t node_id, const std::string& ns, const std::string& name) {
  NUBO_ASSIGN_OR_RETURN(int64_t old_bytes, PropBytes(node_id, ns, name));
  {
    NUBO_PREPARE(s, c_, "DELETE FROM dead_props WHERE node_id = ? AND ns = ? AND name = ?");
    s.Bind(1, node_id).Bind(2, ns).Bind(3, name);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  return AddPropsBytes(node_id, -old_bytes);
}

Status SqliteTxn::CopyDeadProps(int64_t from_node, int64_t to_node) {
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

Result<int64_t> SqliteTxn::DeadPropsBytes(int64_t node_id) {
  static const std::string sql[2] = {std::string("SELECT COALESCE(SUM(") + kPropBytes[0] +
                                         "), 0) FROM dead_props WHERE node_id = ?",
                                     std::string("SELECT COALESCE(SUM(") + kPropBytes[1] +
                                         "), 0) FROM dead_props WHERE node_id = ?"};
  NUBO_PREPARE(s, c_, sql[pg()].c_str());
  s.Bind(1, node_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : int64_t{0};
}

Result<bool> SqliteTxn::HasDavLocks(int64_t drive_id, int64_t now_ms) {
  NUBO_PREPARE(s, c_, "SELECT 1 FROM dav_locks WHERE drive_id = ? AND expires_at > ? LIMIT 1");
  s.Bind(1, drive_id).Bind(2, now_ms);
  return s.Step();
}

Status SqliteTxn::InsertDavLock(const DavLockRow& l) {
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

Status SqliteTxn::RefreshDavLock(const std::string& token, int64_t timeout_s,
                                 int64_t expires_at_ms) {
  NUBO_PREPARE(s, c_, "UPDATE dav_locks SET timeout_s = ?, expires_at = ? WHERE token = ?");
  s.Bind(1, timeout_s).Bind(2, expires_at_ms).Bind(3, token);
  return s.Exec();
}

Status SqliteTxn::DeleteDavLock(const std::string& token) {
  NUBO_PREPARE(s, c_, "DELETE FROM dav_locks WHERE token = ?");
  s.Bind(1, token);
  return s.Exec();
}

Status SqliteTxn::DeleteDavLocksAt(int64_t drive_id, const std::string& path) {
  NUBO_PREPARE(
      s, c_,
      "DELETE FROM dav_locks WHERE drive_id = ?1 AND (path = ?2 OR (path >= ?3 AND path < ?4))");
  std::string lo = path == "/" ? "/" : path + "/";
  std::string hi = path == "/" ? "0" : path + "0";
  s.Bind(1, drive_id).Bind(2, path).Bind(3, lo).Bind(4, hi);
  return s.Exec();
}

}  // namespace nubo::meta::sqlite
