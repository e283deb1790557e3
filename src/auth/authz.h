// authz: the one authorization decision (ARCHITECTURE.md §4.7).
//
// Every surface — REST, WebDAV (path resolution included), locks, dead
// properties, trash, favorites, recent, search, ZIP — reaches stored
// resources through the files domain, and the files domain asks Check()
// for each (principal, resource, action) before it reads or writes. Nothing
// else decides.
//
// The model: a personal drive belongs to its owner, who may do every node
// action in it through a credential whose scope includes kScopeFiles; a
// shared drive has no owner, its members (users or groups) hold a role on
// all of it. Anyone else
// reaches a node only through grants (docs/sharing.md): a role on the node
// or one of its ancestors, given to the user or to a group the user belongs
// to (nested groups count), unexpired; the union of every grant that
// reaches the node is what the caller may do. A public link's bearer (a
// kLink principal, no account) reaches the link's node and what lies below
// it, as the link's role says, and nothing else. The callers do not change
// when grants do. What the principal may not see at all is
// NotFound with exactly the message of a node that does not exist
// (NodeHidden), so "exists but not yours" and "does not exist" are
// indistinguishable on every surface; what it sees but may not do is
// PermissionDenied (403).
//
// Thread-safe: pure functions over the caller's transaction; a Checker
// memoizes drive owners, the caller's groups and its decisions for the
// life of one request's transaction (grants changed by another request
// apply from that request's next transaction).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "auth/principal.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::authz {

// PERSISTED (grant roles will store sets of these): never renumber.
enum class Action : uint8_t {
  kRead = 0,    // a file's content and a node's metadata
  kList = 1,    // a folder's members
  kCreate = 2,  // new members in a folder
  kModify = 3,  // a file's content, a node's name or properties, locks
  kDelete = 4,  // to the trash or for good; moving away
  kShare = 5,   // grant others access
  kManage = 6,  // change or revoke the grants below
  kAdmin = 7,   // administration (not a node action)
};

// A set of actions (the caller's effective permissions on a resource;
// feeds oc:permissions and current-user-privilege-set).
class Perms {
 public:
  constexpr Perms() = default;
  static constexpr Perms Of(std::initializer_list<Action> actions) {
    Perms p;
    for (Action a : actions) p.bits_ |= Bit(a);
    return p;
  }
  // Every node action (kRead .. kManage).
  static constexpr Perms AllNode() {
    return Of({Action::kRead, Action::kList, Action::kCreate, Action::kModify, Action::kDelete,
               Action::kShare, Action::kManage});
  }
  constexpr bool Has(Action a) const { return (bits_ & Bit(a)) != 0; }
  constexpr Perms& operator|=(Perms o) {
    bits_ |= o.bits_;
    return *this;
  }
  constexpr Perms Without(Action a) const {
    Perms p = *this;
    p.bits_ &= ~Bit(a);
    return p;
  }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  friend constexpr bool operator==(Perms a, Perms b) { return a.bits_ == b.bits_; }

 private:
  static constexpr uint32_t Bit(Action a) { return 1u << static_cast<uint8_t>(a); }
  uint32_t bits_ = 0;
};

const char* ActionName(Action a);

// A grant's role. PERSISTED (grants.role): never renumber.
enum class Role : int { kViewer = 1, kEditor = 2, kManager = 3 };

// "viewer" | "editor" | "manager"; nullopt for anything else.
const char* RoleName(Role r);
std::optional<Role> ParseRole(std::string_view s);

// What a grant of `role` allows on a node it reaches:
//   viewer   read, list
//   editor   + create, modify, delete
//   manager  + share, manage
// `may_reshare` adds share. On the granted node itself (`at_grant`) delete
// is never included: a recipient may change what is inside a share but
// not remove or rename the shared item from its owner's tree.
Perms RolePerms(Role role, bool may_reshare, bool at_grant);
// What a public link of `role` (meta::LinkRow::role: 1 view, 2 edit, 4
// drop) allows on a node it opens (`at_link`: the link's own node):
//   view  read, list
//   edit  + create, modify, delete (never the link's own node)
//   drop  create, on the link's own node only (no reading, no listing)
Perms LinkPerms(int role, bool at_link);

// The strongest role whose permissions `p` holds all of (ignoring delete
// and share, which depend on where and how the grant was made); nullopt
// when `p` does not even allow reading.
std::optional<Role> RoleOf(Perms p);

// The answer for a node the caller may not see: byte-identical to a node
// that does not exist.
Status NodeHidden();
// The same for a calendar, an address book or an object in one.
Status CollectionHidden();

// Decides for one request: the principal's permissions on nodes and drives,
// with the drive owners it looked up memoized (a listing page asks once).
class Checker {
 public:
  // `depth`: how many makers of reshares this decision is checking for
  // already (see MakerPerms); a chain longer than kMaxReshareDepth grants
  // nothing.
  Checker(meta::ReadTxn& txn, const auth::Principal& who, int depth = 0);

  // The principal's permissions on `node`. NodeHidden when they include
  // nothing (the node is invisible to the caller).
  Result<Perms> On(const meta::NodeRow& node);
  // Decides for every node of `nodes` at once (one grant lookup for all
  // of them instead of one per node), so that On() of each afterwards
  // answers from the memo; a page of share-list entries or search hits
  // primes before it checks them one by one. Decides exactly as On().
  Status Prime(const std::vector<const meta::NodeRow*>& nodes);
  // On(node), then: PermissionDenied unless the permissions include `a`.
  Status Require(const meta::NodeRow& node, Action a);
  // The same for a drive as a whole (its trash, its locks, a search in it).
  Result<Perms> OnDrive(int64_t drive_id);
  Status RequireDrive(int64_t drive_id, Action a);

  // The principal's permissions on a calendar or address book (and the
  // objects in it). Its owner, through a credential with kScopeGroupware,
  // may do everything; anyone else sees nothing (NodeHidden's answer for
  // a collection: "no such collection"), so a second user's REPORT,
  // PROPFIND and GET all answer like a collection that does not exist.
  Result<Perms> OnCollection(const meta::DavCollectionRow& c);
  Status RequireCollection(const meta::DavCollectionRow& c, Action a);

  const auth::Principal& who() const { return who_; }
  // A drive the caller read in this transaction anyway: its owner is
  // known, so deciding about it costs no query.
  void Know(const meta::DriveRow& d) {
    DriveFacts& f = drives_[d.id];
    f.owner = d.owner_id;
    f.shared = d.kind == "shared";
  }
  // Whether the caller owns the drive (owners decide everything in it).
  Result<bool> Owns(int64_t drive_id);
  // The groups the caller belongs to (nested ones included), read once per
  // Checker, i.e. once per request.
  Result<const std::vector<int64_t>*> Groups();

 private:
  struct DriveFacts {
    std::optional<int64_t> owner;
    bool shared = false;
    std::optional<int> role;  // shared drives: the caller's role, once read (0: none)
  };
  Result<const DriveFacts*> Facts(int64_t drive_id);
  Result<std::optional<int64_t>> Owner(int64_t drive_id);
  // A shared drive's members hold their role on all of it (nothing for a
  // personal drive or a non-member).
  Result<Perms> MemberPerms(int64_t drive_id);
  // What `maker` may do on `node_id` now. A grant or link made by anyone
  // but the drive's owner lasts only as long as its maker may still share
  // the node, and allows no more than the maker holds: a reshare ends when
  // the grant it came from is revoked, expires, weakens or stops reaching
  // (a group membership ended, a move), without any bookkeeping.
  Result<Perms> MakerPerms(int64_t maker, int64_t node_id);
  // The decision for `node` (not the caller's drive, not link access)
  // from its drive membership's permissions and the grants that reach it,
  // memoized.
  Result<Perms> Decide(const meta::NodeRow& node, Perms member,
                       const std::vector<meta::GrantHit>& hits);

  static constexpr int kMaxReshareDepth = 4;

  meta::ReadTxn& txn_;
  const auth::Principal& who_;
  const int64_t now_ms_;
  std::unordered_map<int64_t, DriveFacts> drives_;
  std::optional<std::vector<int64_t>> groups_;
  std::unordered_map<int64_t, Perms> nodes_;  // decisions made, by node id
  const int depth_;
  std::unordered_map<std::string, Perms> makers_;  // "maker:node" → MakerPerms
};

// Check(txn, who, node, a): the one-call form of Checker::Require.
Status Check(meta::ReadTxn& txn, const auth::Principal& who, const meta::NodeRow& node, Action a);

// Actions on no stored resource, by the credential alone: kAdmin needs the
// admin role and kScopeAdmin. PermissionDenied with the reason otherwise.
Status CheckScope(const auth::Principal& who, uint32_t scope);
Status CheckAdmin(const auth::Principal& who);

}  // namespace nubo::authz
