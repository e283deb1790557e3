// Sharing: groups and their members, grants on nodes, received shares' mounts
// and public links.
//
// One capability of the MetaStore (meta_store.h): SharingReads are part of every
// transaction, SharingWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

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

class SharingReads {
 public:
  virtual ~SharingReads() = default;

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
  // GrantsReaching for several nodes in one statement: each hit with the
  // asked node it reaches (`first`), in no particular order; a node no
  // grant reaches (or that does not exist) has none.
  virtual Result<std::vector<std::pair<int64_t, GrantHit>>> GrantsReachingEach(
      const std::vector<int64_t>& node_ids, int64_t user_id, const std::vector<int64_t>& groups,
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
};

class SharingWrites {
 public:
  virtual ~SharingWrites() = default;

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
};

}  // namespace nubo::meta
