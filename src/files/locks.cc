#include "files/locks.h"

#include <algorithm>

#include "files/names.h"
#include "util/time.h"

namespace nubo::files {

Result<std::string> PathKeyOf(meta::ReadTxn& t, const meta::NodeRow& n) {
  if (!n.parent_id) return std::string("/");
  NUBO_ASSIGN_OR_RETURN(auto chain, t.Ancestors(n.id));  // n first, the root last
  std::string key;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!it->parent_id) continue;  // the root has no name
    key += '/';
    key += it->name_key;
  }
  return key.empty() ? std::string("/") : key;
}

std::string ChildKey(const std::string& parent_key, const std::string& name_key) {
  return (parent_key == "/" ? std::string() : parent_key) + "/" + name_key;
}

std::string ParentKey(const std::string& path_key) {
  size_t slash = path_key.rfind('/');
  if (slash == 0 || slash == std::string::npos) return "/";
  return path_key.substr(0, slash);
}

std::vector<std::string> SelfAndAncestors(const std::string& path_key) {
  std::vector<std::string> out{path_key};
  while (out.back() != "/") out.push_back(ParentKey(out.back()));
  return out;
}

Result<std::vector<meta::DavLockRow>> CoveringLocks(meta::ReadTxn& t, int64_t drive_id,
                                                    const std::string& path_key, int64_t now_ms) {
  NUBO_ASSIGN_OR_RETURN(auto rows,
                        t.FindDavLocks(drive_id, SelfAndAncestors(path_key), "", now_ms));
  std::vector<meta::DavLockRow> out;
  for (auto& l : rows) {
    if (l.path == path_key || l.depth_infinity) out.push_back(std::move(l));
  }
  return out;
}

Status CheckWriteLocks(meta::ReadTxn& t, const auth::Principal& who, const LockedScope& scope,
                       const std::vector<std::string>& tokens) {
  const int64_t now = UnixMillis();
  NUBO_ASSIGN_OR_RETURN(auto locks, CoveringLocks(t, scope.drive_id, scope.path_key, now));
  if (scope.membership && scope.path_key != "/") {
    // §7.4: adding or removing a member changes the parent collection,
    // which a lock of any depth on the parent protects.
    const std::string parent = ParentKey(scope.path_key);
    // (CoveringLocks(parent) holds the parent's own locks of any depth.)
    NUBO_ASSIGN_OR_RETURN(auto plocks, CoveringLocks(t, scope.drive_id, parent, now));
    for (auto& l : plocks) {
      if (std::none_of(locks.begin(), locks.end(),
                       [&](const auto& x) { return x.token == l.token; })) {
        locks.push_back(std::move(l));
      }
    }
  }
  auto submitted = [&](const meta::DavLockRow& l) {
    return l.user_id == who.user_id &&
           std::find(tokens.begin(), tokens.end(), l.token) != tokens.end();
  };
  // Holding one shared lock of a resource is enough to write it (§6.2).
  const bool any_shared = std::any_of(locks.begin(), locks.end(),
                                      [&](const auto& l) { return !l.exclusive && submitted(l); });
  for (const auto& l : locks) {
    if (submitted(l) || (!l.exclusive && any_shared)) continue;
    return Status::Locked(l.root_href);
  }
  if (scope.recursive) {
    NUBO_ASSIGN_OR_RETURN(auto below, t.FindDavLocks(scope.drive_id, {}, scope.path_key, now));
    for (const auto& l : below) {
      if (!submitted(l)) return Status::Locked(l.root_href);
    }
  }
  return Status::Ok();
}

Status CheckNodeLocks(meta::ReadTxn& t, const auth::Principal& who, const meta::NodeRow& n,
                      bool recursive, bool membership, const std::vector<std::string>& tokens) {
  NUBO_ASSIGN_OR_RETURN(bool any, t.HasDavLocks(n.drive_id, UnixMillis()));
  if (!any) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(std::string key, PathKeyOf(t, n));
  return CheckWriteLocks(t, who, {n.drive_id, std::move(key), recursive, membership}, tokens);
}

Status CheckNewMemberLocks(meta::ReadTxn& t, const auth::Principal& who,
                           const meta::NodeRow& parent, const std::string& name,
                           const std::vector<std::string>& tokens) {
  NUBO_ASSIGN_OR_RETURN(bool any, t.HasDavLocks(parent.drive_id, UnixMillis()));
  if (!any) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(std::string key, PathKeyOf(t, parent));
  return CheckWriteLocks(t, who, {parent.drive_id, ChildKey(key, NameKey(name)), false, true},
                         tokens);
}

Status DropNodeLocks(meta::WriteTxn& t, const meta::NodeRow& n) {
  NUBO_ASSIGN_OR_RETURN(bool any, t.HasDavLocks(n.drive_id, 0));
  if (!any) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(std::string key, PathKeyOf(t, n));
  return t.DeleteDavLocksAt(n.drive_id, key);
}

}  // namespace nubo::files
