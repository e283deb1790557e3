#include "auth/authz.h"

#include <algorithm>

#include "util/time.h"

namespace nubo::authz {

const char* ActionName(Action a) {
  switch (a) {
    case Action::kRead:
      return "read";
    case Action::kList:
      return "list";
    case Action::kCreate:
      return "create";
    case Action::kModify:
      return "modify";
    case Action::kDelete:
      return "delete";
    case Action::kShare:
      return "share";
    case Action::kManage:
      return "manage";
    case Action::kAdmin:
      return "admin";
  }
  return "?";
}

Status NodeHidden() { return Status::NotFound("no such file or folder"); }

Status CollectionHidden() { return Status::NotFound("no such collection or object"); }

const char* RoleName(Role r) {
  switch (r) {
    case Role::kViewer:
      return "viewer";
    case Role::kEditor:
      return "editor";
    case Role::kManager:
      return "manager";
  }
  return "?";
}

std::optional<Role> ParseRole(std::string_view s) {
  if (s == "viewer") return Role::kViewer;
  if (s == "editor") return Role::kEditor;
  if (s == "manager") return Role::kManager;
  return std::nullopt;
}

Perms RolePerms(Role role, bool may_reshare, bool at_grant) {
  Perms p = Perms::Of({Action::kRead, Action::kList});
  if (role >= Role::kEditor) p |= Perms::Of({Action::kCreate, Action::kModify, Action::kDelete});
  if (role >= Role::kManager) p |= Perms::Of({Action::kShare, Action::kManage});
  if (may_reshare) p |= Perms::Of({Action::kShare});
  return at_grant ? p.Without(Action::kDelete) : p;
}

Perms LinkPerms(int role, bool at_link) {
  switch (role) {
    case 1:
      return Perms::Of({Action::kRead, Action::kList});
    case 2: {
      Perms p = Perms::Of(
          {Action::kRead, Action::kList, Action::kCreate, Action::kModify, Action::kDelete});
      return at_link ? p.Without(Action::kDelete) : p;
    }
    case 4:
      return at_link ? Perms::Of({Action::kCreate}) : Perms();
  }
  return Perms();
}

std::optional<Role> RoleOf(Perms p) {
  if (!p.Has(Action::kRead)) return std::nullopt;
  const bool edit = p.Has(Action::kCreate) && p.Has(Action::kModify);
  if (edit && p.Has(Action::kManage)) return Role::kManager;
  if (edit) return Role::kEditor;
  return Role::kViewer;
}

Checker::Checker(meta::ReadTxn& txn, const auth::Principal& who, int depth)
    : txn_(txn), who_(who), now_ms_(UnixMillis()), depth_(depth) {}

Result<Perms> Checker::MakerPerms(int64_t maker, int64_t node_id) {
  if (maker <= 0 || depth_ >= kMaxReshareDepth) return Perms();
  const std::string key = std::to_string(maker) + ":" + std::to_string(node_id);
  if (auto it = makers_.find(key); it != makers_.end()) return it->second;
  Perms out;
  NUBO_ASSIGN_OR_RETURN(auto node, txn_.GetNode(node_id, 0));
  if (node) {
    NUBO_ASSIGN_OR_RETURN(auto user, txn_.GetUser(maker));
    if (user && user->active) {
      const auth::Principal as_maker = auth::Principal::User(maker, user->username);
      Checker sub(txn_, as_maker, depth_ + 1);
      auto p = sub.On(*node);
      if (p.ok()) {
        out = *p;
      } else if (p.status().code() != Code::kNotFound) {
        return p.status();
      }
    }
  }
  makers_[key] = out;
  return out;
}

Result<bool> Checker::Owns(int64_t drive_id) {
  NUBO_ASSIGN_OR_RETURN(auto owner, Owner(drive_id));
  return owner && *owner == who_.user_id && !who_.anonymous();
}

Result<const std::vector<int64_t>*> Checker::Groups() {
  if (!groups_) {
    NUBO_ASSIGN_OR_RETURN(auto g, txn_.GroupsOfUser(who_.user_id));
    groups_ = std::move(g);
  }
  return &*groups_;
}

Result<const Checker::DriveFacts*> Checker::Facts(int64_t drive_id) {
  if (auto it = drives_.find(drive_id); it != drives_.end()) return &it->second;
  NUBO_ASSIGN_OR_RETURN(auto d, txn_.GetDrive(drive_id));
  DriveFacts f;
  if (d) {
    f.owner = d->owner_id;
    f.shared = d->kind == "shared";
  }
  return &drives_.emplace(drive_id, f).first->second;
}

Result<std::optional<int64_t>> Checker::Owner(int64_t drive_id) {
  NUBO_ASSIGN_OR_RETURN(const DriveFacts* f, Facts(drive_id));
  return f->owner;
}

Result<Perms> Checker::MemberPerms(int64_t drive_id) {
  NUBO_ASSIGN_OR_RETURN(const DriveFacts* f, Facts(drive_id));
  if (!f->shared) return Perms();
  if (!f->role) {
    NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, Groups());
    NUBO_ASSIGN_OR_RETURN(int role, txn_.DriveRoleOf(drive_id, who_.user_id, *groups));
    drives_[drive_id].role = role;
  }
  const int role = *drives_[drive_id].role;
  if (role < 1 || role > 3) return Perms();
  return RolePerms(static_cast<Role>(role), false, false);
}

Result<Perms> Checker::OnDrive(int64_t drive_id) {
  // A credential without the files scope sees no files at all (a
  // calendar-only app password), exactly as if there were none.
  if (who_.anonymous() || !who_.Has(auth::kScopeFiles)) return NodeHidden();
  NUBO_ASSIGN_OR_RETURN(auto owner, Owner(drive_id));
  if (owner && *owner == who_.user_id) return Perms::AllNode();
  // A shared drive: its members' role.
  NUBO_ASSIGN_OR_RETURN(Perms member, MemberPerms(drive_id));
  if (!member.empty()) return member;
  return NodeHidden();
}

Result<Perms> Checker::OnCollection(const meta::DavCollectionRow& c) {
  if (who_.anonymous() || who_.link() || !who_.Has(auth::kScopeGroupware)) {
    return CollectionHidden();
  }
  if (c.user_id == who_.user_id) return Perms::AllNode();
  // A calendar or address book shared with the caller or one of its
  // groups: its objects to read, or also to write (never the collection
  // itself: its properties, its shares and its deletion stay the owner's).
  NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, Groups());
  NUBO_ASSIGN_OR_RETURN(auto read_only, txn_.DavShareAccess(c.id, who_.user_id, *groups));
  if (!read_only) return CollectionHidden();
  Perms p = Perms::Of({Action::kRead, Action::kList});
  if (!*read_only) p |= Perms::Of({Action::kCreate, Action::kModify, Action::kDelete});
  return p;
}

Status Checker::RequireCollection(const meta::DavCollectionRow& c, Action a) {
  NUBO_ASSIGN_OR_RETURN(Perms p, OnCollection(c));
  if (!p.Has(a)) {
    return Status::PermissionDenied(std::string("not allowed to ") + ActionName(a) +
                                    " in this collection");
  }
  return Status::Ok();
}

Result<Perms> Checker::On(const meta::NodeRow& node) {
  if (who_.link()) {
    // A link's bearer: the link's node and below, nothing else.
    if (auto it = nodes_.find(node.id); it != nodes_.end()) {
      if (it->second.empty()) return NodeHidden();
      return it->second;
    }
    NUBO_ASSIGN_OR_RETURN(bool within, txn_.NodeWithin(node.id, who_.link_node));
    Perms p = within ? LinkPerms(who_.link_role, node.id == who_.link_node) : Perms();
    if (!p.empty()) {
      // A link made by someone other than the owner lasts while its maker
      // may share the node, and writes only while its maker may.
      NUBO_ASSIGN_OR_RETURN(auto owner, Owner(node.drive_id));
      if (!owner || *owner != who_.link_maker) {
        NUBO_ASSIGN_OR_RETURN(Perms maker, MakerPerms(who_.link_maker, who_.link_node));
        if (!maker.Has(Action::kShare)) {
          p = Perms();
        } else if (!maker.Has(Action::kCreate)) {
          p = LinkPerms(1, node.id == who_.link_node);
          if (who_.link_role == 4) p = Perms();
        }
      }
    }
    nodes_[node.id] = p;
    if (p.empty()) return NodeHidden();
    return p;
  }
  if (who_.anonymous() || !who_.Has(auth::kScopeFiles)) return NodeHidden();
  NUBO_ASSIGN_OR_RETURN(bool owns, Owns(node.drive_id));
  if (owns) return Perms::AllNode();
  if (auto it = nodes_.find(node.id); it != nodes_.end()) {
    if (it->second.empty()) return NodeHidden();
    return it->second;
  }
  // A shared drive's members hold their role on all of it; everyone (them
  // too) also holds the union of the grants that reach the node.
  NUBO_ASSIGN_OR_RETURN(Perms member, MemberPerms(node.drive_id));
  if (member == Perms::AllNode()) {
    nodes_[node.id] = member;
    return member;
  }
  NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, Groups());
  NUBO_ASSIGN_OR_RETURN(auto hits, txn_.GrantsReaching(node.id, who_.user_id, *groups, now_ms_));
  NUBO_ASSIGN_OR_RETURN(Perms p, Decide(node, member, hits));
  if (p.empty()) return NodeHidden();
  return p;
}

Status Checker::Prime(const std::vector<const meta::NodeRow*>& nodes) {
  // Only what On() would look grants up for: a link's bearer, an
  // anonymous caller and a credential without the files scope decide
  // without them, as do the caller's own drives and full members.
  if (who_.link() || who_.anonymous() || !who_.Has(auth::kScopeFiles)) return Status::Ok();
  std::vector<const meta::NodeRow*> ask;
  std::vector<int64_t> ids;
  for (const meta::NodeRow* n : nodes) {
    if (nodes_.count(n->id) != 0) continue;
    NUBO_ASSIGN_OR_RETURN(bool owns, Owns(n->drive_id));
    if (owns) continue;
    NUBO_ASSIGN_OR_RETURN(Perms member, MemberPerms(n->drive_id));
    if (member == Perms::AllNode()) continue;
    ask.push_back(n);
    ids.push_back(n->id);
  }
  if (ask.empty()) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, Groups());
  NUBO_ASSIGN_OR_RETURN(auto each, txn_.GrantsReachingEach(ids, who_.user_id, *groups, now_ms_));
  std::unordered_map<int64_t, std::vector<meta::GrantHit>> hits;
  for (auto& [start, hit] : each) hits[start].push_back(hit);
  static const std::vector<meta::GrantHit> kNone;
  for (const meta::NodeRow* n : ask) {
    if (nodes_.count(n->id) != 0) continue;  // listed twice
    NUBO_ASSIGN_OR_RETURN(Perms member, MemberPerms(n->drive_id));
    auto h = hits.find(n->id);
    NUBO_RETURN_IF_ERROR(Decide(*n, member, h == hits.end() ? kNone : h->second).status());
  }
  return Status::Ok();
}

Result<Perms> Checker::Decide(const meta::NodeRow& node, Perms member,
                              const std::vector<meta::GrantHit>& hits) {
  NUBO_ASSIGN_OR_RETURN(auto owner, Owner(node.drive_id));
  Perms p = member;
  for (const meta::GrantHit& h : hits) {
    if (h.role < 1 || h.role > 3) continue;  // a role this build does not know grants nothing
    Role role = static_cast<Role>(h.role);
    bool reshare = h.may_reshare;
    if (!owner || h.created_by != *owner) {
      // A reshare: no more than its maker may still give.
      NUBO_ASSIGN_OR_RETURN(Perms maker, MakerPerms(h.created_by, h.node_id));
      auto most = RoleOf(maker);
      if (!most || !maker.Has(Action::kShare)) continue;
      role = std::min(role, *most);
      reshare = reshare && maker.Has(Action::kShare);
    }
    p |= RolePerms(role, reshare, h.node_id == node.id);
  }
  nodes_[node.id] = p;
  return p;
}

namespace {

Status Denied(Action a) {
  return Status::PermissionDenied(std::string("you may not ") + ActionName(a) + " here");
}

}  // namespace

Status Checker::Require(const meta::NodeRow& node, Action a) {
  NUBO_ASSIGN_OR_RETURN(Perms p, On(node));
  return p.Has(a) ? Status::Ok() : Denied(a);
}

Status Checker::RequireDrive(int64_t drive_id, Action a) {
  NUBO_ASSIGN_OR_RETURN(Perms p, OnDrive(drive_id));
  return p.Has(a) ? Status::Ok() : Denied(a);
}

Status Check(meta::ReadTxn& txn, const auth::Principal& who, const meta::NodeRow& node, Action a) {
  return Checker(txn, who).Require(node, a);
}

Status CheckScope(const auth::Principal& who, uint32_t scope) {
  if (who.anonymous()) return Status::Unauthenticated("authentication required");
  if (who.Has(scope)) return Status::Ok();
  if (who.credential == auth::Credential::kAppPassword) {
    return Status::PermissionDenied(
        "app passwords may not do this; sign in with your account password");
  }
  return Status::PermissionDenied("this credential may not do this");
}

Status CheckAdmin(const auth::Principal& who) {
  if (who.anonymous()) return Status::Unauthenticated("authentication required");
  if (!who.admin) return Status::PermissionDenied("administrators only");
  return CheckScope(who, auth::kScopeAdmin);
}

}  // namespace nubo::authz
