// WebDAV write locks (RFC 4918 §6-7) enforced by the files domain, inside
// the write transaction of every change, whichever surface asks: a file a
// WebDAV client locked answers 423 to a REST rename as it does to another
// client's PUT, and a lock cannot slip in between a check and the change.
//
// Locks are on URLs (case-folded paths below a drive's root, "/a/b"), not
// on nodes, as RFC 4918 wants (a Depth-infinity lock on a collection
// covers members created later). The domain computes a node's path from
// the node itself (its ancestors), never from what a client sent.
// Internal to src/files. Thread-safe (pure functions over a transaction).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "auth/principal.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::files {

// The case-folded path of `n` below its drive's root: "/" + name keys
// joined by "/"; "/" for the root.
Result<std::string> PathKeyOf(meta::ReadTxn& t, const meta::NodeRow& n);
// The path of a member `name_key` of the folder at `parent_key`.
std::string ChildKey(const std::string& parent_key, const std::string& name_key);
// The parent's path key ("/a/b" → "/a"; "/a" → "/").
std::string ParentKey(const std::string& path_key);
// `path_key` and each ancestor's key, nearest first, ending with "/": the
// places a lock covering it can be on. Paths have at most kMaxDepth
// segments, so this stays small.
std::vector<std::string> SelfAndAncestors(const std::string& path_key);

// The unexpired locks whose scope covers `path_key`: its own, and those of
// its ancestors with Depth infinity (§6.1), nearest first.
Result<std::vector<meta::DavLockRow>> CoveringLocks(meta::ReadTxn& t, int64_t drive_id,
                                                    const std::string& path_key, int64_t now_ms);

// What a change touches, for the lock check.
struct LockedScope {
  int64_t drive_id = 0;
  std::string path_key;
  bool recursive = false;   // the change reaches everything below (DELETE, MOVE of a folder)
  bool membership = false;  // it adds or removes a member of the parent (§7.4)
};

// §6-7: every lock covering the scope (and, when recursive, every lock
// below it) must have had its token submitted by its owner; holding one
// shared lock is enough to write (§6.2). Locked (423) naming the first
// unmatched lock's root otherwise.
Status CheckWriteLocks(meta::ReadTxn& t, const auth::Principal& who, const LockedScope& scope,
                       const std::vector<std::string>& tokens);
// CheckWriteLocks for node `n` (its path computed from the node), after a
// cheap test that the drive holds any lock at all.
Status CheckNodeLocks(meta::ReadTxn& t, const auth::Principal& who, const meta::NodeRow& n,
                      bool recursive, bool membership, const std::vector<std::string>& tokens);
// The same for a new member `name` of folder `parent`.
Status CheckNewMemberLocks(meta::ReadTxn& t, const auth::Principal& who,
                           const meta::NodeRow& parent, const std::string& name,
                           const std::vector<std::string>& tokens);

// Drops the locks on node `n` and below it (it went away or moved: §9.9.1
// locks do not move with a resource).
Status DropNodeLocks(meta::WriteTxn& t, const meta::NodeRow& n);

}  // namespace nubo::files
