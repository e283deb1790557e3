#include "share/sharing.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <utility>

#include "auth/links.h"
#include "files/names.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::share {

using authz::Action;
using authz::Role;

namespace {

Status GroupHidden() { return Status::NotFound("no such group"); }
Status GrantHidden() { return Status::NotFound("no such share"); }
Status LinkHidden() { return Status::NotFound("no such link"); }

// Paging cursors are opaque: hex of "<tag>:<internal id>".
std::string EncodeCursor(char tag, int64_t id) {
  std::string raw = std::string(1, tag) + ":" + std::to_string(id);
  return HexEncode(raw.data(), raw.size());
}

Result<int64_t> DecodeCursor(std::string_view cursor, char tag) {
  if (cursor.empty()) return 0;
  auto bad = [] { return Status::InvalidArgument("malformed cursor"); };
  if (cursor.size() % 2 != 0 || cursor.size() > 64) return bad();
  std::string raw;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < cursor.size(); i += 2) {
    int hi = nibble(cursor[i]), lo = nibble(cursor[i + 1]);
    if (hi < 0 || lo < 0) return bad();
    raw.push_back(static_cast<char>(hi * 16 + lo));
  }
  if (raw.size() < 3 || raw[0] != tag || raw[1] != ':') return bad();
  auto id = ParseUint64(std::string_view(raw).substr(2));
  if (!id || *id > static_cast<uint64_t>(INT64_MAX)) return bad();
  return static_cast<int64_t>(*id);
}

// The live node `public_id` and the caller's permissions on it; hidden
// (NotFound) when the caller may not see it.
Result<std::pair<meta::NodeRow, authz::Perms>> VisibleNode(meta::ReadTxn& t, authz::Checker& check,
                                                           std::string_view public_id) {
  if (public_id.empty() || public_id.size() > 64) return authz::NodeHidden();
  NUBO_ASSIGN_OR_RETURN(auto n, t.GetNodeByPublicId(std::string(public_id), check.who().user_id));
  if (!n) return authz::NodeHidden();
  NUBO_ASSIGN_OR_RETURN(authz::Perms p, check.On(*n));
  if (!n->live()) return authz::NodeHidden();
  return std::make_pair(std::move(*n), p);
}

Status Denied(std::string what) { return Status::PermissionDenied(std::move(what)); }

// A group the caller may see: administrators see every group, others the
// groups they belong to.
Result<meta::GroupRow> VisibleGroup(meta::ReadTxn& t, const Principal& who, std::string_view id) {
  if (id.empty() || id.size() > 64) return GroupHidden();
  NUBO_ASSIGN_OR_RETURN(auto g, t.GetGroupByPublicId(std::string(id)));
  if (!g) return GroupHidden();
  if (authz::CheckAdmin(who).ok()) return std::move(*g);
  NUBO_ASSIGN_OR_RETURN(auto mine, t.GroupsOfUser(who.user_id));
  for (int64_t gid : mine) {
    if (gid == g->id) return std::move(*g);
  }
  return GroupHidden();
}

Status AdminOnly(const Principal& who) { return authz::CheckAdmin(who); }

// A group the caller may make a grantee or a drive member. Where the whole
// directory is open (sharee search "all"), any group; otherwise only the
// caller's own groups, nested ones included (administrators: any) — as
// Nextcloud's "share only within your groups" does. Another group answers
// exactly like one that does not exist: the grant's answer would otherwise
// hand its name to whoever learnt its id.
Result<meta::GroupRow> ShareableGroup(meta::ReadTxn& t, const Principal& who, ShareeSearch mode,
                                      std::string_view id) {
  if (mode != ShareeSearch::kAll) return VisibleGroup(t, who, id);
  if (id.empty() || id.size() > 64) return GroupHidden();
  NUBO_ASSIGN_OR_RETURN(auto g, t.GetGroupByPublicId(std::string(id)));
  if (!g) return GroupHidden();
  return std::move(*g);
}

// Resolves a member reference to (is_group, id).
Result<std::pair<bool, int64_t>> ResolveMember(meta::ReadTxn& t, const MemberRef& m) {
  if (m.user.empty() == m.group_id.empty()) {
    return Status::InvalidArgument("name exactly one of user or group");
  }
  if (!m.user.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto u, t.GetUserByName(m.user));
    if (!u) return Status::NotFound("no such user");
    return std::make_pair(false, u->id);
  }
  NUBO_ASSIGN_OR_RETURN(auto g, t.GetGroupByPublicId(m.group_id));
  if (!g) return GroupHidden();
  return std::make_pair(true, g->id);
}

Status CheckExpiry(const std::optional<int64_t>& at) {
  if (at && *at <= UnixMillis()) return Status::InvalidArgument("expires_at must be in the future");
  return Status::Ok();
}

// What the caller may do with a grant: see it (share on its node, or being
// its creator or grantee), change it, revoke it.
struct GrantAccess {
  bool see = false, change = false, revoke = false;
  authz::Perms perms;  // the caller's on the grant's node
};

Result<GrantAccess> AccessGrant(meta::ReadTxn& t, authz::Checker& check, const meta::GrantRow& g) {
  GrantAccess a;
  const Principal& who = check.who();
  NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(g.node_id, 0));
  if (!n) return a;
  auto p = check.On(*n);
  if (!p.ok() && p.status().code() != Code::kNotFound) return p.status();
  if (p.ok()) a.perms = *p;
  const bool creator = g.created_by && *g.created_by == who.user_id && who.Has(auth::kScopeFiles);
  const bool grantee =
      g.grantee_user && *g.grantee_user == who.user_id && who.Has(auth::kScopeFiles);
  a.see = a.perms.Has(Action::kShare) || creator || grantee;
  a.change = a.perms.Has(Action::kManage) || (creator && a.perms.Has(Action::kShare));
  a.revoke = a.change || creator || grantee;
  return a;
}

// Whether `role` (with `may_reshare`) stays within what the caller holds.
Status WithinOwnRole(authz::Perms own, Role role, bool may_reshare) {
  auto mine = authz::RoleOf(own);
  if (!mine || role > *mine) {
    return Denied(std::string("you may not give a role above your own (") +
                  (mine ? authz::RoleName(*mine) : "none") + ")");
  }
  if (may_reshare && !own.Has(Action::kShare)) return Denied("you may not share this");
  return Status::Ok();
}

// Grants `user` made that it may no longer make: after its own access
// shrank (a grant to it revoked or weakened), each grant it created on a
// node where it no longer holds share goes too, and so on down the chain
// of reshares, in the same transaction.
Status PruneReshares(meta::WriteTxn& t, int64_t user) {
  std::vector<int64_t> queue{user};
  for (size_t i = 0; i < queue.size() && i < 10000; ++i) {
    auth::Principal who = auth::Principal::User(queue[i]);
    authz::Checker check(t, who);
    int64_t after = 0;
    std::vector<meta::GrantRow> doomed;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.ListSharedBy(who.user_id, after, 500));
      for (meta::GrantRow& g : rows) {
        if (!g.created_by || *g.created_by != who.user_id) continue;
        NUBO_ASSIGN_OR_RETURN(bool owns, check.Owns(g.drive_id));
        if (owns) continue;
        NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(g.node_id, 0));
        auto p = n ? check.On(*n) : Result<authz::Perms>(authz::NodeHidden());
        if (p.ok() && p->Has(Action::kShare)) continue;
        if (!p.ok() && p.status().code() != Code::kNotFound) return p.status();
        doomed.push_back(std::move(g));
      }
      if (rows.size() < 500) break;
      after = rows.back().id;
    }
    for (const meta::GrantRow& g : doomed) {
      NUBO_RETURN_IF_ERROR(t.DeleteGrant(g.id));
      if (g.grantee_user) queue.push_back(*g.grantee_user);
    }
  }
  return Status::Ok();
}
}  // namespace

Result<std::string> ValidateGroupName(std::string_view name) {
  std::string_view v = Trim(name);
  if (v.empty() || v.size() > 64) return Status::InvalidArgument("a group name has 1 to 64 bytes");
  // The rules of file names (UTF-8, no "/" or control characters): a
  // group's name appears where names of shared items do.
  return files::ValidateName(v);
}

// ---- Groups ----

Result<meta::GroupRow> Sharing::CreateGroup(const Principal& who, std::string_view name) {
  NUBO_RETURN_IF_ERROR(AdminOnly(who));
  NUBO_ASSIGN_OR_RETURN(std::string valid, ValidateGroupName(name));
  meta::GroupRow g;
  g.public_id = NewUuidV7();
  g.name = std::move(valid);
  g.created_at_ms = UnixMillis();
  Status st = meta_.Write([&](meta::WriteTxn& t) { return t.InsertGroup(g); });
  if (st.code() == Code::kAlreadyExists) {
    return Status::AlreadyExists("a group named \"" + g.name + "\" exists");
  }
  NUBO_RETURN_IF_ERROR(st);
  return g;
}

Result<std::vector<meta::GroupRow>> Sharing::ListGroups(const Principal& who,
                                                        std::string_view after, size_t limit) {
  std::vector<meta::GroupRow> out;
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    if (AdminOnly(who).ok()) {
      NUBO_ASSIGN_OR_RETURN(out, t.ListGroups(std::string(after), limit));
      return Status::Ok();
    }
    NUBO_ASSIGN_OR_RETURN(auto mine, t.GroupsOfUser(who.user_id));
    for (int64_t id : mine) {
      NUBO_ASSIGN_OR_RETURN(auto g, t.GetGroup(id));
      if (g) out.push_back(std::move(*g));
    }
    std::sort(out.begin(), out.end(), [](const meta::GroupRow& a, const meta::GroupRow& b) {
      return AsciiLowerCopy(a.name) < AsciiLowerCopy(b.name);
    });
    const std::string after_key = AsciiLowerCopy(after);
    std::erase_if(out,
                  [&](const meta::GroupRow& g) { return AsciiLowerCopy(g.name) <= after_key; });
    if (out.size() > limit) out.resize(limit);
    return Status::Ok();
  }));
  return out;
}

Result<GroupInfo> Sharing::GetGroup(const Principal& who, std::string_view id) {
  GroupInfo out;
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out.group, VisibleGroup(t, who, id));
    NUBO_ASSIGN_OR_RETURN(out.members, t.ListGroupMembers(out.group.id, 10000));
    return Status::Ok();
  }));
  return out;
}

Result<meta::GroupRow> Sharing::RenameGroup(const Principal& who, std::string_view id,
                                            std::string_view name) {
  NUBO_RETURN_IF_ERROR(AdminOnly(who));
  NUBO_ASSIGN_OR_RETURN(std::string valid, ValidateGroupName(name));
  meta::GroupRow out;
  Status st = meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out, VisibleGroup(t, who, id));
    NUBO_RETURN_IF_ERROR(t.RenameGroup(out.id, valid));
    out.name = valid;
    return Status::Ok();
  });
  if (st.code() == Code::kAlreadyExists) {
    return Status::AlreadyExists("a group named \"" + valid + "\" exists");
  }
  NUBO_RETURN_IF_ERROR(st);
  return out;
}

Status Sharing::DeleteGroup(const Principal& who, std::string_view id) {
  NUBO_RETURN_IF_ERROR(AdminOnly(who));
  // Its memberships and the grants made to it go with it (ON DELETE
  // CASCADE): access through the group ends in the same transaction.
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto g, VisibleGroup(t, who, id));
    return t.DeleteGroup(g.id);
  });
}

Status Sharing::AddMember(const Principal& who, std::string_view id, const MemberRef& m) {
  NUBO_RETURN_IF_ERROR(AdminOnly(who));
  Status st = meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto g, VisibleGroup(t, who, id));
    NUBO_ASSIGN_OR_RETURN(auto member, ResolveMember(t, m));
    if (member.first) {
      // A group may not contain itself, directly or through the groups it
      // contains (membership would never end).
      NUBO_ASSIGN_OR_RETURN(bool cycle, t.GroupContains(member.second, g.id));
      if (cycle)
        return Status::Conflict("that group contains this one: membership would be a cycle");
    }
    return t.AddGroupMember(g.id, member.first, member.second);
  });
  if (st.code() == Code::kAlreadyExists) return Status::AlreadyExists("already a member");
  return st;
}

Status Sharing::RemoveMember(const Principal& who, std::string_view id, const MemberRef& m) {
  NUBO_RETURN_IF_ERROR(AdminOnly(who));
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto g, VisibleGroup(t, who, id));
    NUBO_ASSIGN_OR_RETURN(auto member, ResolveMember(t, m));
    return t.RemoveGroupMember(g.id, member.first, member.second);
  });
}

// ---- Shared drives' members ----

namespace {

Status DriveHidden() { return Status::NotFound("no such drive"); }
Status NotAMember() { return Status::NotFound("not a member of this drive"); }

// A shared drive the caller may see (a member, or an administrator), and
// whether it may change its members.
Result<std::pair<meta::DriveRow, bool>> VisibleDrive(meta::ReadTxn& t, const Principal& who,
                                                     std::string_view id) {
  if (id.empty() || id.size() > 64) return DriveHidden();
  NUBO_ASSIGN_OR_RETURN(auto d, t.GetDriveByPublicId(std::string(id)));
  if (!d || d->kind != "shared") return DriveHidden();
  authz::Checker check(t, who);
  check.Know(*d);
  auto p = check.OnDrive(d->id);
  const bool admin = authz::CheckAdmin(who).ok();
  if (!p.ok() && !admin) return DriveHidden();
  const bool manage = admin || (p.ok() && p->Has(Action::kManage));
  return std::make_pair(std::move(*d), manage);
}

// A shared drive always keeps a manager (a change that would leave none
// is refused and rolled back): else nobody could manage its members.
Status KeepsAManager(meta::ReadTxn& t, int64_t drive_id) {
  NUBO_ASSIGN_OR_RETURN(auto members, t.ListDriveMembers(drive_id));
  for (const auto& m : members) {
    if (m.role == static_cast<int>(Role::kManager)) return Status::Ok();
  }
  return Status::Conflict("a shared drive keeps at least one manager");
}

}  // namespace

Result<std::vector<meta::DriveMemberRow>> Sharing::ListDriveMembers(const Principal& who,
                                                                    std::string_view drive_id) {
  std::vector<meta::DriveMemberRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, VisibleDrive(t, who, drive_id));
    NUBO_ASSIGN_OR_RETURN(out, t.ListDriveMembers(d.first.id));
    return Status::Ok();
  }));
  return out;
}

Status Sharing::SetDriveMember(const Principal& who, std::string_view drive_id, const MemberRef& m,
                               authz::Role role) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, VisibleDrive(t, who, drive_id));
    if (!d.second) return Denied("only the drive's managers change its members");
    if (!m.group_id.empty() && m.user.empty()) {
      // A group already among the members is known to the managers (the
      // member list names it); a new one must be shareable.
      NUBO_ASSIGN_OR_RETURN(auto members, t.ListDriveMembers(d.first.id));
      const bool listed = std::any_of(members.begin(), members.end(), [&](const auto& x) {
        return x.is_group && x.public_id == m.group_id;
      });
      if (!listed) {
        NUBO_RETURN_IF_ERROR(ShareableGroup(t, who, options_.sharee_search, m.group_id).status());
      }
    }
    NUBO_ASSIGN_OR_RETURN(auto member, ResolveMember(t, m));
    NUBO_RETURN_IF_ERROR(
        t.SetDriveMember(d.first.id, member.first, member.second, static_cast<int>(role)));
    return KeepsAManager(t, d.first.id);
  });
}

Status Sharing::RemoveDriveMember(const Principal& who, std::string_view drive_id,
                                  const MemberRef& m) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, VisibleDrive(t, who, drive_id));
    if (!d.second) return Denied("only the drive's managers change its members");
    // Who is not a member answers alike whether it exists or not: a
    // manager may not learn group ids or account names by removing them.
    auto member = ResolveMember(t, m);
    if (!member.ok() && member.status().code() == Code::kNotFound) return NotAMember();
    if (!member.ok()) return member.status();
    Status st = t.RemoveDriveMember(d.first.id, member->first, member->second);
    if (st.code() == Code::kNotFound) return NotAMember();
    NUBO_RETURN_IF_ERROR(st);
    return KeepsAManager(t, d.first.id);
  });
}

// ---- Grants ----

Result<std::vector<meta::GrantRow>> Sharing::ListGrants(const Principal& who,
                                                        std::string_view node_id) {
  std::vector<meta::GrantRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto np, VisibleNode(t, check, node_id));
    if (!np.second.Has(Action::kShare)) return Denied("you may not see who shares this");
    NUBO_ASSIGN_OR_RETURN(out, t.ListNodeGrants(np.first.id));
    return Status::Ok();
  }));
  return out;
}

Result<meta::GrantRow> Sharing::Grant(const Principal& who, std::string_view node_id,
                                      const GrantSpec& spec) {
  NUBO_RETURN_IF_ERROR(CheckExpiry(spec.expires_at_ms));
  if (spec.user.empty() == spec.group_id.empty()) {
    return Status::InvalidArgument("name exactly one of user or group");
  }
  meta::GrantRow g;
  Status st = meta_.Write([&](meta::WriteTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto np, VisibleNode(t, check, node_id));
    const meta::NodeRow& n = np.first;
    if (!np.second.Has(Action::kShare)) return Denied("you may not share this");
    NUBO_RETURN_IF_ERROR(WithinOwnRole(np.second, spec.role, spec.may_reshare));
    if (!n.parent_id) return Status::Conflict("a drive's root folder cannot be shared");
    NUBO_ASSIGN_OR_RETURN(auto drive, t.GetDrive(n.drive_id));
    if (!spec.user.empty()) {
      NUBO_ASSIGN_OR_RETURN(auto u, t.GetUserByName(spec.user));
      if (!u || !u->active) return Status::NotFound("no such user");
      if (drive && drive->owner_id == u->id) {
        return Status::InvalidArgument("\"" + u->username + "\" owns this already");
      }
      if (u->id == who.user_id) return Status::InvalidArgument("you cannot share with yourself");
      g.grantee_user = u->id;
      g.grantee_public_id = u->public_id;
      g.grantee_name = u->username;
    } else {
      NUBO_ASSIGN_OR_RETURN(auto grp,
                            ShareableGroup(t, who, options_.sharee_search, spec.group_id));
      g.grantee_group = grp.id;
      g.grantee_public_id = grp.public_id;
      g.grantee_name = grp.name;
    }
    // An expired grant to the same grantee is replaced, not in the way.
    NUBO_ASSIGN_OR_RETURN(auto existing, t.ListNodeGrants(n.id));
    for (const meta::GrantRow& e : existing) {
      const bool same = (g.grantee_user && e.grantee_user == g.grantee_user) ||
                        (g.grantee_group && e.grantee_group == g.grantee_group);
      if (same && e.expires_at_ms && *e.expires_at_ms <= UnixMillis()) {
        NUBO_RETURN_IF_ERROR(t.DeleteGrant(e.id));
      }
    }
    g.public_id = NewUuidV7();
    g.node_id = n.id;
    g.node_public_id = n.public_id;
    g.drive_id = n.drive_id;
    g.role = static_cast<int>(spec.role);
    g.may_reshare = spec.may_reshare;
    g.expires_at_ms = spec.expires_at_ms;
    g.created_by = who.user_id;
    g.created_at_ms = UnixMillis();
    return t.InsertGrant(g);
  });
  if (st.code() == Code::kAlreadyExists) {
    return Status::AlreadyExists("\"" + g.grantee_name +
                                 "\" has a share of this already; change that one");
  }
  NUBO_RETURN_IF_ERROR(st);
  return g;
}

Result<meta::GrantRow> Sharing::UpdateGrant(const Principal& who, std::string_view grant_id,
                                            const GrantPatch& patch) {
  if (patch.expires_at_ms && *patch.expires_at_ms) {
    NUBO_RETURN_IF_ERROR(CheckExpiry(*patch.expires_at_ms));
  }
  meta::GrantRow g;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    if (grant_id.empty() || grant_id.size() > 64) return GrantHidden();
    NUBO_ASSIGN_OR_RETURN(auto found, t.GetGrantByPublicId(std::string(grant_id)));
    if (!found) return GrantHidden();
    g = std::move(*found);
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(GrantAccess a, AccessGrant(t, check, g));
    if (!a.see) return GrantHidden();
    if (!a.change) return Denied("you may not change this share");
    if (patch.role) g.role = static_cast<int>(*patch.role);
    if (patch.may_reshare) g.may_reshare = *patch.may_reshare;
    if (patch.expires_at_ms) g.expires_at_ms = *patch.expires_at_ms;
    NUBO_RETURN_IF_ERROR(WithinOwnRole(a.perms, static_cast<Role>(g.role), g.may_reshare));
    NUBO_RETURN_IF_ERROR(t.UpdateGrant(g));
    return g.grantee_user ? PruneReshares(t, *g.grantee_user) : Status::Ok();
  }));
  return g;
}

Status Sharing::Revoke(const Principal& who, std::string_view grant_id) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    if (grant_id.empty() || grant_id.size() > 64) return GrantHidden();
    NUBO_ASSIGN_OR_RETURN(auto g, t.GetGrantByPublicId(std::string(grant_id)));
    if (!g) return GrantHidden();
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(GrantAccess a, AccessGrant(t, check, *g));
    if (!a.see) return GrantHidden();
    if (!a.revoke) return Denied("you may not revoke this share");
    NUBO_RETURN_IF_ERROR(t.DeleteGrant(g->id));
    return g->grantee_user ? PruneReshares(t, *g->grantee_user) : Status::Ok();
  });
}

// ---- Public links ----

const char* LinkRoleName(int role) {
  switch (role) {
    case kLinkView:
      return "view";
    case kLinkEdit:
      return "edit";
    case kLinkDrop:
      return "drop";
  }
  return "?";
}

std::optional<int> ParseLinkRole(std::string_view s) {
  if (s == "view") return kLinkView;
  if (s == "edit") return kLinkEdit;
  if (s == "drop") return kLinkDrop;
  return std::nullopt;
}

namespace {

// What making (or keeping) a link of `role` on `n` needs from its maker.
Status LinkRoleAllowed(const meta::NodeRow& n, authz::Perms own, int role) {
  if (!own.Has(Action::kShare)) return Denied("you may not share this");
  if (role == kLinkView) return Status::Ok();
  if (!n.folder()) return Status::InvalidArgument("only a folder can take uploads through a link");
  auto mine = authz::RoleOf(own);
  if (role == kLinkEdit && (!mine || *mine < Role::kEditor)) {
    return Denied("an edit link needs the editor role or more");
  }
  if (!own.Has(Action::kCreate)) return Denied("you may not add files here");
  return Status::Ok();
}

Result<std::optional<std::string>> HashLinkPassword(const std::optional<std::string>& pw,
                                                    const auth::PasswordParams& params) {
  if (!pw) return std::optional<std::string>();
  if (pw->size() < 8 || pw->size() > 256) {
    return Status::InvalidArgument("a link password has 8 to 256 bytes");
  }
  NUBO_ASSIGN_OR_RETURN(std::string h, auth::HashPassword(*pw, params));
  return std::optional<std::string>(std::move(h));
}

Status CheckLinkLimits(const std::optional<int64_t>& expires, const std::optional<int64_t>& max) {
  NUBO_RETURN_IF_ERROR(CheckExpiry(expires));
  if (max && *max < 1) return Status::InvalidArgument("max_downloads must be at least 1");
  return Status::Ok();
}

struct LinkAccess {
  bool see = false, change = false;
  authz::Perms perms;
  std::optional<meta::NodeRow> node;
};

Result<LinkAccess> AccessLink(meta::ReadTxn& t, authz::Checker& check, const meta::LinkRow& l) {
  LinkAccess a;
  NUBO_ASSIGN_OR_RETURN(a.node, t.GetNode(l.node_id, 0));
  if (!a.node) return a;
  auto p = check.On(*a.node);
  if (!p.ok() && p.status().code() != Code::kNotFound) return p.status();
  if (p.ok()) a.perms = *p;
  const Principal& who = check.who();
  const bool creator = l.created_by && *l.created_by == who.user_id && !who.anonymous();
  a.see = a.perms.Has(Action::kShare) || (creator && p.ok());
  a.change = a.perms.Has(Action::kManage) || (creator && a.perms.Has(Action::kShare));
  return a;
}

}  // namespace

Result<NewLink> Sharing::CreateLink(const Principal& who, std::string_view node_id,
                                    const LinkSpec& spec) {
  NUBO_RETURN_IF_ERROR(CheckLinkLimits(spec.expires_at_ms, spec.max_downloads));
  if (spec.label.size() > 200) return Status::InvalidArgument("a label has at most 200 bytes");
  // Argon2id before the transaction (it takes a while; writes serialize).
  NUBO_ASSIGN_OR_RETURN(auto password_hash, HashLinkPassword(spec.password, params_));
  NewLink out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto np, VisibleNode(t, check, node_id));
    if (!np.first.parent_id) return Status::Conflict("a drive's root folder cannot be shared");
    NUBO_RETURN_IF_ERROR(LinkRoleAllowed(np.first, np.second, spec.role));
    auth::NewLinkToken tok = auth::MakeLinkToken();
    meta::LinkRow& l = out.link;
    l.public_id = NewUuidV7();
    l.token_hash = tok.hash;
    l.token_hint = tok.hint;
    l.node_id = np.first.id;
    l.node_public_id = np.first.public_id;
    l.drive_id = np.first.drive_id;
    l.role = spec.role;
    l.password_hash = password_hash;
    l.expires_at_ms = spec.expires_at_ms;
    l.max_downloads = spec.max_downloads;
    l.label = spec.label;
    l.created_by = who.user_id;
    l.created_at_ms = UnixMillis();
    out.token = std::move(tok.token);
    return t.InsertLink(l);
  }));
  return out;
}

Result<std::vector<meta::LinkRow>> Sharing::ListLinks(const Principal& who,
                                                      std::string_view node_id) {
  std::vector<meta::LinkRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto np, VisibleNode(t, check, node_id));
    if (!np.second.Has(Action::kShare)) return Denied("you may not see the links of this");
    NUBO_ASSIGN_OR_RETURN(out, t.ListNodeLinks(np.first.id));
    return Status::Ok();
  }));
  return out;
}

Result<meta::LinkRow> Sharing::UpdateLink(const Principal& who, std::string_view link_id,
                                          const LinkPatch& patch) {
  std::optional<std::optional<std::string>> password_hash;
  if (patch.password) {
    NUBO_ASSIGN_OR_RETURN(auto h, HashLinkPassword(*patch.password, params_));
    password_hash = std::move(h);
  }
  if (patch.label && patch.label->size() > 200) {
    return Status::InvalidArgument("a label has at most 200 bytes");
  }
  meta::LinkRow l;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    if (link_id.empty() || link_id.size() > 64) return LinkHidden();
    NUBO_ASSIGN_OR_RETURN(auto found, t.GetLinkByPublicId(std::string(link_id)));
    if (!found) return LinkHidden();
    l = std::move(*found);
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(LinkAccess a, AccessLink(t, check, l));
    if (!a.see) return LinkHidden();
    if (!a.change) return Denied("you may not change this link");
    if (patch.role) l.role = *patch.role;
    if (password_hash) l.password_hash = *password_hash;
    if (patch.expires_at_ms) l.expires_at_ms = *patch.expires_at_ms;
    if (patch.max_downloads) l.max_downloads = *patch.max_downloads;
    if (patch.label) l.label = *patch.label;
    NUBO_RETURN_IF_ERROR(CheckLinkLimits(l.expires_at_ms, l.max_downloads));
    NUBO_RETURN_IF_ERROR(LinkRoleAllowed(*a.node, a.perms, l.role));
    return t.UpdateLink(l);
  }));
  return l;
}

Status Sharing::DeleteLink(const Principal& who, std::string_view link_id) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    if (link_id.empty() || link_id.size() > 64) return LinkHidden();
    NUBO_ASSIGN_OR_RETURN(auto l, t.GetLinkByPublicId(std::string(link_id)));
    if (!l) return LinkHidden();
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(LinkAccess a, AccessLink(t, check, *l));
    if (!a.see) return LinkHidden();
    const bool creator = l->created_by && *l->created_by == who.user_id;
    if (!a.change && !creator) return Denied("you may not delete this link");
    return t.DeleteLink(l->id);
  });
}

Result<meta::LinkRow> Sharing::LinkOf(const Principal& who) {
  if (!who.link()) return LinkHidden();
  std::optional<meta::LinkRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(who.link_node, 0));
    if (!n || !n->live()) return LinkHidden();
    // A link whose maker may no longer share its node opens nothing.
    authz::Checker check(t, who);
    if (!check.On(*n).ok()) return LinkHidden();
    NUBO_ASSIGN_OR_RETURN(auto links, t.ListNodeLinks(who.link_node));
    for (auto& l : links) {
      if (l.id == who.link_id) out = std::move(l);
    }
    return Status::Ok();
  }));
  if (!out) return LinkHidden();
  return std::move(*out);
}

Status Sharing::TakeDownload(const Principal& who) {
  if (!who.link()) return Status::Ok();
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(bool ok, t.TakeLinkDownload(who.link_id));
    if (!ok) return Denied("this link's download limit is reached");
    return Status::Ok();
  });
}

// ---- Sharee search ----

std::optional<ShareeSearch> ParseShareeSearch(std::string_view s) {
  if (s == "all") return ShareeSearch::kAll;
  if (s == "groups") return ShareeSearch::kGroups;
  if (s == "exact") return ShareeSearch::kExact;
  return std::nullopt;
}

Result<std::vector<Sharee>> Sharing::SearchSharees(const Principal& who, std::string_view query,
                                                   size_t limit) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  const std::string q = AsciiLowerCopy(Trim(query));
  std::vector<Sharee> users, groups;
  if (q.empty() || q.size() > 64) return users;
  auto starts = [&](const std::string& name) { return AsciiLowerCopy(name).rfind(q, 0) == 0; };
  auto add_user = [&](const meta::UserRow& u) {
    if (u.id == who.user_id || !u.active || users.size() >= limit) return;
    for (const Sharee& x : users) {
      if (x.id == u.public_id) return;
    }
    users.push_back({false, u.public_id, u.username, u.display_name});
  };
  auto add_group = [&](const meta::GroupRow& g) {
    if (groups.size() < limit) groups.push_back({true, g.public_id, g.name, g.name});
  };
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto exact, t.GetUserByName(q));
    if (exact) add_user(*exact);
    NUBO_ASSIGN_OR_RETURN(auto mine, t.GroupsOfUser(who.user_id));
    // Administrators see the whole directory anyway (the users API).
    const ShareeSearch mode =
        authz::CheckAdmin(who).ok() ? ShareeSearch::kAll : options_.sharee_search;
    switch (mode) {
      case ShareeSearch::kAll: {
        NUBO_ASSIGN_OR_RETURN(auto rows, t.ListUsers("", limit + 1, q));
        for (const auto& u : rows) add_user(u);
        NUBO_ASSIGN_OR_RETURN(auto all, t.ListGroups("", 1000));
        for (const auto& g : all) {
          if (starts(g.name)) add_group(g);
        }
        break;
      }
      case ShareeSearch::kGroups:
        for (int64_t gid : mine) {
          NUBO_ASSIGN_OR_RETURN(auto g, t.GetGroup(gid));
          if (g && starts(g->name)) add_group(*g);
          NUBO_ASSIGN_OR_RETURN(auto members, t.ListGroupMembers(gid, 1000));
          for (const auto& m : members) {
            if (m.is_group || !starts(m.name)) continue;
            NUBO_ASSIGN_OR_RETURN(auto u, t.GetUser(m.id));
            if (u) add_user(*u);
          }
        }
        break;
      case ShareeSearch::kExact:
        for (int64_t gid : mine) {
          NUBO_ASSIGN_OR_RETURN(auto g, t.GetGroup(gid));
          if (g && AsciiLowerCopy(g->name) == q) add_group(*g);
        }
        break;
    }
    return Status::Ok();
  }));
  std::sort(users.begin(), users.end(), [](const Sharee& a, const Sharee& b) {
    return AsciiLowerCopy(a.name) < AsciiLowerCopy(b.name);
  });
  std::sort(groups.begin(), groups.end(), [](const Sharee& a, const Sharee& b) {
    return AsciiLowerCopy(a.name) < AsciiLowerCopy(b.name);
  });
  for (auto& g : groups) users.push_back(std::move(g));
  return users;
}

Result<SharedPage> Sharing::SharedWithMe(const Principal& who, std::string_view cursor,
                                         size_t limit) {
  NUBO_ASSIGN_OR_RETURN(int64_t after, DecodeCursor(cursor, 'w'));
  SharedPage page;
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, check.Groups());
    NUBO_ASSIGN_OR_RETURN(auto rows,
                          t.ListSharedWith(who.user_id, *groups, UnixMillis(), after, limit + 1));
    if (rows.size() > limit) {
      rows.resize(limit);
      page.next_cursor = EncodeCursor('w', rows.back().node_id);
    }
    std::set<int64_t> hidden;
    if (!rows.empty()) {
      NUBO_ASSIGN_OR_RETURN(auto mounts, t.ListShareMounts(who.user_id));
      for (const meta::ShareMountRow& m : mounts) {
        if (m.hidden) hidden.insert(m.node_id);
      }
    }
    // The nodes in one statement, each owner once: a page of a hundred
    // shares from a few people is a few statements, not four per share.
    std::unordered_map<int64_t, meta::NodeRow> nodes;
    {
      std::vector<int64_t> ids;
      ids.reserve(rows.size());
      for (const meta::SharedNode& s : rows) ids.push_back(s.node_id);
      NUBO_ASSIGN_OR_RETURN(auto found, t.GetNodes(ids, who.user_id));
      for (meta::NodeRow& n : found) nodes.emplace(n.id, std::move(n));
    }
    // The page's permissions too: one grant lookup for all of them.
    std::vector<const meta::NodeRow*> page_nodes;
    for (const auto& [id, n] : nodes) page_nodes.push_back(&n);
    NUBO_RETURN_IF_ERROR(check.Prime(page_nodes));
    std::unordered_map<int64_t, std::pair<std::string, std::string>> owners;  // by drive
    for (const meta::SharedNode& s : rows) {
      auto n = nodes.find(s.node_id);
      if (n == nodes.end()) continue;
      auto p = check.On(n->second);
      if (!p.ok()) continue;  // raced with a revocation
      SharedItem item;
      item.perms = *p;
      auto owner = owners.find(n->second.drive_id);
      if (owner == owners.end()) {
        std::pair<std::string, std::string> names;
        NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(n->second.drive_id));
        if (d && d->owner_id) {
          NUBO_ASSIGN_OR_RETURN(auto u, t.GetUser(*d->owner_id));
          if (u) names = {u->username, u->display_name};
        }
        owner = owners.emplace(n->second.drive_id, std::move(names)).first;
      }
      item.owner = owner->second.first;
      item.owner_name = owner->second.second;
      item.hidden = hidden.count(s.node_id) != 0;
      item.node = n->second;
      page.items.push_back(std::move(item));
    }
    return Status::Ok();
  }));
  return page;
}

Result<GrantPage> Sharing::SharedByMe(const Principal& who, std::string_view cursor, size_t limit) {
  NUBO_ASSIGN_OR_RETURN(int64_t after, DecodeCursor(cursor, 'b'));
  GrantPage page;
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto rows, t.ListSharedBy(who.user_id, after, limit + 1));
    if (rows.size() > limit) {
      rows.resize(limit);
      page.next_cursor = EncodeCursor('b', rows.back().id);
    }
    authz::Checker check(t, who);
    std::unordered_map<int64_t, meta::NodeRow> nodes;  // in one statement
    {
      std::vector<int64_t> ids;
      ids.reserve(rows.size());
      for (const meta::GrantRow& g : rows) ids.push_back(g.node_id);
      NUBO_ASSIGN_OR_RETURN(auto found, t.GetNodes(ids, who.user_id));
      for (meta::NodeRow& n : found) nodes.emplace(n.id, std::move(n));
    }
    std::vector<const meta::NodeRow*> page_nodes;  // reshares: one grant lookup for all
    for (const auto& [id, n] : nodes) page_nodes.push_back(&n);
    NUBO_RETURN_IF_ERROR(check.Prime(page_nodes));
    for (meta::GrantRow& g : rows) {
      auto n = nodes.find(g.node_id);
      // A grant the caller made on a node it can no longer see (moved out
      // of its reach, or its own access ended) is left out.
      if (n == nodes.end() || !check.On(n->second).ok()) continue;
      page.nodes.push_back(n->second);  // a node may carry several grants
      page.items.push_back(std::move(g));
    }
    return Status::Ok();
  }));
  return page;
}

}  // namespace nubo::share
