// The SQLite backend's sharing: groups and their members, grants, share
// mounts and public links.

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

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

}  // namespace

Result<std::optional<GroupRow>> SqliteTxn::GetGroup(int64_t id) {
  NUBO_PREPARE(s, c_, "SELECT id, public_id, name, created_at FROM user_groups WHERE id = ?");
  s.Bind(1, id);
  return One<GroupRow>(s, GroupFrom);
}

Result<std::optional<GroupRow>> SqliteTxn::GetGroupByPublicId(const std::string& public_id) {
  NUBO_PREPARE(s, c_,
               "SELECT id, public_id, name, created_at FROM user_groups WHERE public_id = ?");
  s.Bind(1, public_id);
  return One<GroupRow>(s, GroupFrom);
}

Result<std::optional<GroupRow>> SqliteTxn::GetGroupByName(const std::string& name) {
  NUBO_PREPARE(s, c_, "SELECT id, public_id, name, created_at FROM user_groups WHERE name_key = ?");
  std::string key = Lower(name);
  s.Bind(1, key);
  return One<GroupRow>(s, GroupFrom);
}

Result<std::vector<GroupRow>> SqliteTxn::ListGroups(const std::string& after_key, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT id, public_id, name, created_at FROM user_groups WHERE name_key > ? "
               "ORDER BY name_key LIMIT ?");
  std::string key = Lower(after_key);
  s.Bind(1, key).Bind(2, static_cast<int64_t>(limit));
  return Rows<GroupRow>(s, GroupFrom);
}

Result<std::vector<GroupMemberRow>> SqliteTxn::ListGroupMembers(int64_t group_id, size_t limit) {
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

Result<std::vector<int64_t>> SqliteTxn::GroupsOfUser(int64_t user_id) {
  {
    // Most users are in no group: an index probe says so, where the
    // recursive query below builds temporary tables.
    NUBO_PREPARE(p, c_, "SELECT 1 FROM group_members WHERE member_user = ? LIMIT 1");
    p.Bind(1, user_id);
    NUBO_ASSIGN_OR_RETURN(bool any, p.Step());
    if (!any) return std::vector<int64_t>();
  }
  // UNION (not UNION ALL): a membership cycle terminates.
  NUBO_PREPARE(s, c_,
               "WITH RECURSIVE g(id) AS (SELECT group_id FROM group_members WHERE member_user = ? "
               "UNION SELECT m.group_id FROM group_members m JOIN g ON m.member_group = g.id) "
               "SELECT id FROM g ORDER BY id");
  s.Bind(1, user_id);
  return Rows<int64_t>(s, FirstInt);
}

Result<bool> SqliteTxn::GroupContains(int64_t container, int64_t member) {
  if (container == member) return true;
  NUBO_PREPARE(s, c_,
               "WITH RECURSIVE sub(id) AS (SELECT member_group FROM group_members WHERE "
               "group_id = ?1 AND member_group IS NOT NULL UNION SELECT m.member_group FROM "
               "group_members m JOIN sub ON m.group_id = sub.id WHERE m.member_group IS NOT NULL) "
               "SELECT EXISTS (SELECT 1 FROM sub WHERE id = ?2)");
  s.Bind(1, container).Bind(2, member);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row && s.Int(0) != 0;
}

Result<std::vector<GrantHit>> SqliteTxn::GrantsReaching(int64_t node_id, int64_t user_id,
                                                        const std::vector<int64_t>& groups,
                                                        int64_t now_ms) {
  // The node's ancestor chain (depth-bounded by the path limit), joined
  // with the grants on it that name the user or one of the groups. On
  // PostgreSQL the chain's grants are looked up by node, for the user and
  // for the groups apart (each along its own partial index): as one join
  // the planner read every grant for each check (PgPlanTest).
  static const char* const kSql[2] = {
      "WITH RECURSIVE anc(id, parent_id) AS (SELECT id, parent_id FROM nodes WHERE id = "
      "?1 UNION ALL SELECT n.id, n.parent_id FROM nodes n JOIN anc ON n.id = "
      "anc.parent_id) SELECT g.node_id, g.role, g.may_reshare, COALESCE(g.created_by, "
      "0) FROM anc JOIN grants g ON g.node_id = anc.id WHERE (g.grantee_user = ?2 OR "
      "g.grantee_group IN (SELECT value FROM json_each(?3))) AND (g.expires_at IS NULL OR "
      "g.expires_at > ?4)",
      "WITH RECURSIVE anc(id, parent_id) AS (SELECT id, parent_id FROM nodes WHERE id = "
      "?1 UNION ALL SELECT n.id, n.parent_id FROM nodes n JOIN anc ON n.id = "
      "anc.parent_id) SELECT g.node_id, g.role, g.may_reshare, COALESCE(g.created_by, 0) "
      "FROM grants g WHERE g.node_id = ANY (ARRAY(SELECT id FROM anc)) AND g.grantee_user = ?2 "
      "AND (g.expires_at IS NULL OR g.expires_at > ?4) UNION ALL SELECT g.node_id, g.role, "
      "g.may_reshare, COALESCE(g.created_by, 0) FROM grants g WHERE g.node_id = ANY "
      "(ARRAY(SELECT id FROM anc)) AND g.grantee_group IS NOT NULL AND g.grantee_group IN "
      "(SELECT value FROM json_each(?3)) AND (g.expires_at IS NULL OR g.expires_at > ?4)"};
  NUBO_PREPARE(s, c_, kSql[pg()]);
  std::string list = JsonIds(groups);
  s.Bind(1, node_id).Bind(2, user_id).Bind(3, list).Bind(4, now_ms);
  return Rows<GrantHit>(s, [](const Stmt& r) {
    return GrantHit{r.Int(0), static_cast<int>(r.Int(1)), r.Int(2) != 0, r.Int(3)};
  });
}

Result<std::vector<std::pair<int64_t, GrantHit>>> SqliteTxn::GrantsReachingEach(
    const std::vector<int64_t>& node_ids, int64_t user_id, const std::vector<int64_t>& groups,
    int64_t now_ms) {
  if (node_ids.empty()) return std::vector<std::pair<int64_t, GrantHit>>();
  // GrantsReaching's chain walked from every asked node at once, each row
  // of the chain carrying the node it started from. On PostgreSQL each
  // step up is a lookup by id (OFFSET 0 keeps the planner from turning the
  // steps into a hash join, which read all of nodes at every step), and
  // the chains' grants are looked up by node, for the user and for the
  // groups apart, as in GrantsReaching (PgPlanTest).
  static const char* const kSql[2] = {
      "WITH RECURSIVE anc(start, id, parent_id) AS (SELECT id, id, parent_id FROM nodes WHERE id "
      "IN (SELECT value FROM json_each(?1)) UNION ALL SELECT anc.start, n.id, n.parent_id FROM "
      "nodes n JOIN anc ON n.id = anc.parent_id) SELECT anc.start, g.node_id, g.role, "
      "g.may_reshare, COALESCE(g.created_by, 0) FROM anc JOIN grants g ON g.node_id = anc.id "
      "WHERE (g.grantee_user = ?2 OR g.grantee_group IN (SELECT value FROM json_each(?3))) AND "
      "(g.expires_at IS NULL OR g.expires_at > ?4)",
      "WITH RECURSIVE anc(start, id, parent_id) AS (SELECT id, id, parent_id FROM nodes WHERE id "
      "= ANY (ARRAY(SELECT value FROM json_each(?1))) UNION ALL SELECT anc.start, n.id, "
      "n.parent_id FROM anc CROSS JOIN LATERAL (SELECT id, parent_id FROM nodes WHERE id = "
      "anc.parent_id OFFSET 0) n), hit AS (SELECT g.node_id, g.role, g.may_reshare, "
      "COALESCE(g.created_by, 0) AS created_by FROM grants g WHERE g.node_id = ANY (ARRAY(SELECT "
      "id FROM anc)) AND g.grantee_user = ?2 AND (g.expires_at IS NULL OR g.expires_at > ?4) "
      "UNION ALL SELECT g.node_id, g.role, g.may_reshare, COALESCE(g.created_by, 0) FROM grants g "
      "WHERE g.node_id = ANY (ARRAY(SELECT id FROM anc)) AND g.grantee_group IS NOT NULL AND "
      "g.grantee_group IN (SELECT value FROM json_each(?3)) AND (g.expires_at IS NULL OR "
      "g.expires_at > ?4)) SELECT anc.start, hit.node_id, hit.role, hit.may_reshare, "
      "hit.created_by FROM anc JOIN hit ON hit.node_id = anc.id"};
  NUBO_PREPARE(s, c_, kSql[pg()]);
  const std::string ids = JsonIds(node_ids);
  const std::string list = JsonIds(groups);
  s.Bind(1, ids).Bind(2, user_id).Bind(3, list).Bind(4, now_ms);
  return Rows<std::pair<int64_t, GrantHit>>(s, [](const Stmt& r) {
    return std::make_pair(r.Int(0),
                          GrantHit{r.Int(1), static_cast<int>(r.Int(2)), r.Int(3) != 0, r.Int(4)});
  });
}

Result<std::optional<GrantRow>> SqliteTxn::GetGrantByPublicId(const std::string& public_id) {
  static const std::string sql = std::string(kGrantSelect) + " WHERE g.public_id = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, public_id);
  return One<GrantRow>(s, GrantFrom);
}

Result<std::vector<GrantRow>> SqliteTxn::ListNodeGrants(int64_t node_id) {
  static const std::string sql = std::string(kGrantSelect) + " WHERE g.node_id = ? ORDER BY g.id";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, node_id);
  return Rows<GrantRow>(s, GrantFrom);
}

Result<std::vector<SharedNode>> SqliteTxn::ListSharedWith(int64_t user_id,
                                                          const std::vector<int64_t>& groups,
                                                          int64_t now_ms, int64_t after_node,
                                                          size_t limit) {
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

Result<std::vector<std::pair<int64_t, int>>> SqliteTxn::ListShareTypes(
    const std::vector<int64_t>& node_ids, int64_t created_by, int64_t now_ms) {
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

Result<bool> SqliteTxn::MayHoldGrants(int64_t user_id) {
  NUBO_PREPARE(s, c_,
               "SELECT EXISTS (SELECT 1 FROM grants WHERE grantee_user = ?1) OR EXISTS (SELECT 1 "
               "FROM group_members WHERE member_user = ?1)");
  s.Bind(1, user_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row && s.Int(0) != 0;
}

Result<std::vector<ShareMountRow>> SqliteTxn::ListShareMounts(int64_t user_id) {
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

Result<std::vector<GrantRow>> SqliteTxn::ListSharedBy(int64_t user_id, int64_t after_id,
                                                      size_t limit) {
  static const std::string sql =
      std::string(kGrantSelect) +
      " JOIN drives d ON d.id = n.drive_id WHERE (d.owner_id = ?1 OR g.created_by = ?1) AND "
      "g.id > ?2 ORDER BY g.id LIMIT ?3";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, user_id).Bind(2, after_id).Bind(3, static_cast<int64_t>(limit));
  return Rows<GrantRow>(s, GrantFrom);
}

Result<std::vector<std::string>> SqliteTxn::DanglingSharingRows(size_t limit) {
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

Status SqliteTxn::InsertGroup(GroupRow& g) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO user_groups (public_id, name, name_key, created_at) VALUES (?, ?, ?, "
               "?) ON CONFLICT DO NOTHING RETURNING id");
  std::string key = Lower(g.name);
  s.Bind(1, g.public_id).Bind(2, g.name).Bind(3, key).Bind(4, g.created_at_ms);
  NUBO_ASSIGN_OR_RETURN(g.id, InsertedId(s));
  return Status::Ok();
}

Status SqliteTxn::RenameGroup(int64_t id, const std::string& name) {
  NUBO_PREPARE(s, c_, "UPDATE user_groups SET name = ?, name_key = ? WHERE id = ?");
  std::string key = Lower(name);
  s.Bind(1, name).Bind(2, key).Bind(3, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such group");
}

Status SqliteTxn::DeleteGroup(int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM user_groups WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such group");
}

Status SqliteTxn::AddGroupMember(int64_t group_id, bool is_group, int64_t member_id) {
  NUBO_PREPARE(s, c_,
               is_group ? "INSERT INTO group_members (group_id, member_group) VALUES (?, ?) ON "
                          "CONFLICT DO NOTHING"
                        : "INSERT INTO group_members (group_id, member_user) VALUES (?, ?) ON "
                          "CONFLICT DO NOTHING");
  s.Bind(1, group_id).Bind(2, member_id);
  return Inserted(s);
}

Status SqliteTxn::RemoveGroupMember(int64_t group_id, bool is_group, int64_t member_id) {
  NUBO_PREPARE(s, c_,
               is_group ? "DELETE FROM group_members WHERE group_id = ? AND member_group = ?"
                        : "DELETE FROM group_members WHERE group_id = ? AND member_user = ?");
  s.Bind(1, group_id).Bind(2, member_id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("not a member of this group");
}

Status SqliteTxn::InsertGrant(GrantRow& g) {
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

Status SqliteTxn::UpdateGrant(const GrantRow& g) {
  NUBO_PREPARE(s, c_, "UPDATE grants SET role = ?, may_reshare = ?, expires_at = ? WHERE id = ?");
  s.Bind(1, static_cast<int64_t>(g.role)).Bind(2, g.may_reshare ? 1 : 0);
  BindOpt(s, 3, g.expires_at_ms);
  s.Bind(4, g.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such grant");
}

Status SqliteTxn::DeleteGrant(int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM grants WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such grant");
}

Status SqliteTxn::PutShareMount(const ShareMountRow& m) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO share_mounts (user_id, node_id, parent_id, name, hidden) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id, node_id) DO UPDATE SET "
               "parent_id = excluded.parent_id, name = excluded.name, hidden = excluded.hidden");
  s.Bind(1, m.user_id).Bind(2, m.node_id);
  BindOpt(s, 3, m.parent_id);
  s.Bind(4, m.name).Bind(5, int64_t{m.hidden ? 1 : 0});
  return s.Exec();
}

Status SqliteTxn::DeleteShareMount(int64_t user_id, int64_t node_id) {
  NUBO_PREPARE(s, c_, "DELETE FROM share_mounts WHERE user_id = ? AND node_id = ?");
  s.Bind(1, user_id).Bind(2, node_id);
  return s.Exec();
}

Result<std::optional<LinkRow>> SqliteTxn::FindLink(const Digest& token_hash) {
  static const std::string sql = std::string(kLinkSelect) + " WHERE l.token_hash = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, token_hash);
  return One<LinkRow>(s, LinkFrom);
}

Result<std::optional<LinkRow>> SqliteTxn::GetLinkByPublicId(const std::string& public_id) {
  static const std::string sql = std::string(kLinkSelect) + " WHERE l.public_id = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, public_id);
  return One<LinkRow>(s, LinkFrom);
}

Result<std::vector<LinkRow>> SqliteTxn::ListNodeLinks(int64_t node_id) {
  static const std::string sql = std::string(kLinkSelect) + " WHERE l.node_id = ? ORDER BY l.id";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, node_id);
  return Rows<LinkRow>(s, LinkFrom);
}

Result<std::vector<LinkRow>> SqliteTxn::ListLinksBy(int64_t user_id, int64_t after_id,
                                                    size_t limit) {
  static const std::string sql =
      std::string(kLinkSelect) +
      " JOIN drives d ON d.id = n.drive_id WHERE (d.owner_id = ?1 OR l.created_by = ?1) AND "
      "l.id > ?2 ORDER BY l.id LIMIT ?3";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, user_id).Bind(2, after_id).Bind(3, static_cast<int64_t>(limit));
  return Rows<LinkRow>(s, LinkFrom);
}

Result<bool> SqliteTxn::NodeWithin(int64_t node_id, int64_t ancestor_id) {
  if (node_id == ancestor_id) return true;
  NUBO_PREPARE(s, c_,
               "WITH RECURSIVE anc(id) AS (SELECT parent_id FROM nodes WHERE id = ?1 UNION ALL "
               "SELECT n.parent_id FROM nodes n JOIN anc ON n.id = anc.id WHERE n.parent_id IS "
               "NOT NULL) SELECT EXISTS (SELECT 1 FROM anc WHERE id = ?2)");
  s.Bind(1, node_id).Bind(2, ancestor_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row && s.Int(0) != 0;
}

Status SqliteTxn::InsertLink(LinkRow& l) {
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

Status SqliteTxn::UpdateLink(const LinkRow& l) {
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

Status SqliteTxn::DeleteLink(int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM links WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such link");
}

Result<bool> SqliteTxn::TakeLinkDownload(int64_t id) {
  NUBO_PREPARE(s, c_,
               "UPDATE links SET downloads = downloads + 1 WHERE id = ? AND (max_downloads IS "
               "NULL OR downloads < max_downloads)");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() == 1;
}

}  // namespace nubo::meta::sqlite
