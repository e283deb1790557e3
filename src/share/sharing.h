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
#include "auth/password.h"
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
  bool hidden = false;     // its recipient removed it from its own tree
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

// A public link's role (meta::LinkRow::role, PERSISTED): view (read, list,
// download, ZIP), edit (+ create, change and delete inside), drop (upload
// only: no listing; an upload never replaces a file, it gets a free name).
inline constexpr int kLinkView = 1, kLinkEdit = 2, kLinkDrop = 4;
const char* LinkRoleName(int role);
std::optional<int> ParseLinkRole(std::string_view s);

struct LinkSpec {
  int role = kLinkView;
  std::optional<std::string> password;
  std::optional<int64_t> expires_at_ms;
  std::optional<int64_t> max_downloads;
  std::string label;
};

// Fields to change; an inner nullopt removes the setting.
struct LinkPatch {
  std::optional<int> role;
  std::optional<std::optional<std::string>> password;
  std::optional<std::optional<int64_t>> expires_at_ms;
  std::optional<std::optional<int64_t>> max_downloads;
  std::optional<std::string> label;
};

struct NewLink {
  meta::LinkRow link;
  std::string token;  // shown once: only its hash is stored
};

// Who the share dialog may suggest (sharing.sharee_search): every user and
// group (kAll), the members of the caller's own groups and those groups
// (kGroups), or only an exact user name or the name of one of the caller's
// groups (kExact). An exact user name is found in every mode: sharing with
// someone whose name one knows is always possible. Administrators, who list
// every account anyway, always search the whole directory.
enum class ShareeSearch { kAll, kGroups, kExact };
std::optional<ShareeSearch> ParseShareeSearch(std::string_view s);

struct SharingOptions {
  ShareeSearch sharee_search = ShareeSearch::kGroups;
};

struct Sharee {
  bool is_group = false;
  std::string id;    // user or group public id
  std::string name;  // username or group name
  std::string display_name;
};

// Group names: 1..64 bytes of printable text, trimmed.
Result<std::string> ValidateGroupName(std::string_view name);

class Sharing {
 public:
  explicit Sharing(meta::MetaStore& meta, auth::PasswordParams params = {},
                   SharingOptions options = {})
      : meta_(meta), params_(params), options_(options) {}

  // Users and groups the caller may pick in the share dialog for `query`
  // (a name prefix, case-insensitive), at most `limit` of each, never the
  // caller itself or a deactivated account.
  Result<std::vector<Sharee>> SearchSharees(const Principal& who, std::string_view query,
                                            size_t limit);

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

  // ---- Shared drives' members ----
  // Any member sees the members; managers (and administrators) change them.
  Result<std::vector<meta::DriveMemberRow>> ListDriveMembers(const Principal& who,
                                                             std::string_view drive_id);
  // Adds a member or changes its role.
  Status SetDriveMember(const Principal& who, std::string_view drive_id, const MemberRef& m,
                        authz::Role role);
  Status RemoveDriveMember(const Principal& who, std::string_view drive_id, const MemberRef& m);

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

  // ---- Public links ----
  // Needs share on the node; view needs read, edit and drop need create on
  // a folder. A password has 8 to 256 bytes.
  Result<NewLink> CreateLink(const Principal& who, std::string_view node_id, const LinkSpec& spec);
  Result<std::vector<meta::LinkRow>> ListLinks(const Principal& who, std::string_view node_id);
  // Needs manage on the node, or being the link's creator with share.
  Result<meta::LinkRow> UpdateLink(const Principal& who, std::string_view link_id,
                                   const LinkPatch& patch);
  Status DeleteLink(const Principal& who, std::string_view link_id);
  // A link's bearer: the link as it is now (the public page's header).
  Result<meta::LinkRow> LinkOf(const Principal& who);
  // Counts one download by a link's bearer (content or ZIP);
  // PermissionDenied once the link's download limit is reached. Nothing for
  // anyone else.
  Status TakeDownload(const Principal& who);

  Result<SharedPage> SharedWithMe(const Principal& who, std::string_view cursor, size_t limit);
  Result<GrantPage> SharedByMe(const Principal& who, std::string_view cursor, size_t limit);

 private:
  meta::MetaStore& meta_;
  auth::PasswordParams params_;
  SharingOptions options_;
};

}  // namespace nubo::share
