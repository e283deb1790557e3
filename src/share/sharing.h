// The sharing domain (docs/sharing.md): groups of users and grants of a
// role on a node to a user or a group.
//
// Sharing only writes the rows; what a grant allows is decided where every
// other access is decided, authz::Checker (auth/authz.h), so REST, WebDAV,
// ZIP and search see a shared node exactly as its grants say. Every
// operation names its caller; a group, grant or node the caller may not
// see answers NotFound with the same message as one that does not exist.
//
// Thread-safe: operations may run concurrently (writes serialize in the
// metadata store).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/authz.h"
#include "auth/principal.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::share {

using auth::Principal;

struct GroupInfo {
  meta::GroupRow group;
  std::vector<meta::GroupMemberRow> members;  // direct members
};

// A member to add to or remove from a group: exactly one of the two.
struct MemberRef {
  std::string user;      // a username
  std::string group_id;  // a group's public id
};

struct GrantSpec {
  std::string user;      // grantee by username, or
  std::string group_id;  // grantee by group public id
  authz::Role role = authz::Role::kViewer;
  bool may_reshare = false;
  std::optional<int64_t> expires_at_ms;
};

struct GrantPatch {
  std::optional<authz::Role> role;
  std::optional<bool> may_reshare;
  std::optional<std::optional<int64_t>> expires_at_ms;  // set: new value (nullopt: never)
};

// A node shared with the caller, as the caller may use it.
struct SharedItem {
  meta::NodeRow node;
  authz::Perms perms;      // effective, all grants reaching it counted
  std::string owner;       // the drive owner's username
  std::string owner_name;  // and display name
};

struct SharedPage {
  std::vector<SharedItem> items;
  std::string next_cursor;  // empty: no more
};

struct GrantPage {
  std::vector<meta::GrantRow> items;
  std::vector<meta::NodeRow> nodes;  // items[i]'s node
  std::string next_cursor;
};

// Group names: 1..64 bytes of printable text, trimmed.
Result<std::string> ValidateGroupName(std::string_view name);

class Sharing {
 public:
  explicit Sharing(meta::MetaStore& meta) : meta_(meta) {}

  // ---- Groups (administrators manage them; members may read theirs) ----
  Result<meta::GroupRow> CreateGroup(const Principal& who, std::string_view name);
  // Administrators: every group, by name after `after`. Others: the groups
  // they belong to (nested ones included).
  Result<std::vector<meta::GroupRow>> ListGroups(const Principal& who, std::string_view after,
                                                 size_t limit);
  Result<GroupInfo> GetGroup(const Principal& who, std::string_view id);
  Result<meta::GroupRow> RenameGroup(const Principal& who, std::string_view id,
                                     std::string_view name);
  Status DeleteGroup(const Principal& who, std::string_view id);
  // Conflict when the member is a group that contains `id` (a cycle).
  Status AddMember(const Principal& who, std::string_view id, const MemberRef& m);
  Status RemoveMember(const Principal& who, std::string_view id, const MemberRef& m);

  // ---- Grants ----
  // The grants on a node (needs share on it).
  Result<std::vector<meta::GrantRow>> ListGrants(const Principal& who, std::string_view node_id);
  // Needs share on the node; the role may not exceed the caller's own.
  Result<meta::GrantRow> Grant(const Principal& who, std::string_view node_id,
                               const GrantSpec& spec);
  // Needs manage on the node, or being the grant's creator with share.
  Result<meta::GrantRow> UpdateGrant(const Principal& who, std::string_view grant_id,
                                     const GrantPatch& patch);
  // Manage on the node, the grant's creator, or its grantee (leaving a
  // share made to oneself). The reshares the grantee made where it no
  // longer may share go with it (and theirs, down the chain); UpdateGrant
  // does the same when it weakens a grant.
  Status Revoke(const Principal& who, std::string_view grant_id);

  Result<SharedPage> SharedWithMe(const Principal& who, std::string_view cursor, size_t limit);
  Result<GrantPage> SharedByMe(const Principal& who, std::string_view cursor, size_t limit);

 private:
  meta::MetaStore& meta_;
};

}  // namespace nubo::share
