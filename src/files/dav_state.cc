// WebDAV state owned by the files domain (RFC 4918): dead properties and
// locks. The WebDAV surface parses and answers; every read and change of
// these tables happens here, authorized like the node it belongs to and,
// for changes, in one transaction with its checks (a LOCK's conflict test
// and its insert cannot interleave with another LOCK).
#include <algorithm>
#include <unordered_set>

#include "content/refs.h"
#include "files/access.h"
#include "files/files.h"
#include "files/locks.h"
#include "files/names.h"
#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeRow;

Result<std::vector<meta::DeadProp>> Files::DeadProps(const Principal& who, const NodeRow& node) {
  std::vector<meta::DeadProp> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, node.public_id, Want::kLive, Action::kRead));
    NUBO_ASSIGN_OR_RETURN(auto rows, t.ListDeadProps({n.id}));
    out.reserve(rows.size());
    for (auto& r : rows) out.push_back(std::move(r.prop));
    return Status::Ok();
  }));
  return out;
}

Result<std::unordered_map<int64_t, std::vector<meta::DeadProp>>> Files::MountDeadProps(
    const Principal& who, const std::vector<int64_t>& node_ids) {
  std::unordered_map<int64_t, std::vector<meta::DeadProp>> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    // The caller reads a share its tree shows: the mounts worked out in
    // this transaction are the authorization (as DeadProps' Access is).
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(auto home, DriveFor(t, who, "", static_cast<int>(Action::kList)));
    NUBO_ASSIGN_OR_RETURN(auto all, AllMounts(t, check, who, home));
    std::unordered_set<int64_t> shown;
    for (const Mount& m : all) shown.insert(m.node.id);
    std::vector<int64_t> ids;
    for (int64_t id : node_ids) {
      if (shown.count(id)) ids.push_back(id);
    }
    NUBO_ASSIGN_OR_RETURN(auto rows, t.ListDeadProps(ids));
    for (auto& r : rows) out[r.node_id].push_back(std::move(r.prop));
    return Status::Ok();
  }));
  return out;
}

Status Files::PatchDeadProps(const Principal& who, const NodeRow& node,
                             const std::vector<PropOp>& ops, const Conditions& cond) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, node.public_id, Want::kLive, Action::kModify));
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, n));
    NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, n, false, false, cond.lock_tokens));
    NUBO_ASSIGN_OR_RETURN(int64_t before, t.DeadPropsBytes(n.id));
    for (const PropOp& op : ops) {
      if (op.set) {
        NUBO_RETURN_IF_ERROR(t.SetDeadProp(n.id, op.prop));
      } else {
        NUBO_RETURN_IF_ERROR(t.RemoveDeadProp(n.id, op.prop.ns, op.prop.name));
      }
    }
    NUBO_ASSIGN_OR_RETURN(int64_t after, t.DeadPropsBytes(n.id));
    if (after > before) {
      // Properties are stored bytes: bounded per node, and counted against
      // the owner's quota like file content (RFC 4918 §9.2.1: 507).
      if (static_cast<uint64_t>(after) > options_.max_props_bytes_per_node) {
        return Status::QuotaExceeded("the properties of one item may hold at most " +
                                     std::to_string(options_.max_props_bytes_per_node) + " bytes");
      }
      NUBO_RETURN_IF_ERROR(CheckQuotaHolds(t, n.drive_id));
    }
    return Status::Ok();
  });
}

namespace {

// Who may see the locks of a drive's paths: whoever may read the whole
// drive sees them all; someone reaching `via` through a grant (a received
// share) sees only its own, as a lock's root and owner name places outside
// what was shared with it.
Result<bool> LocksVisibility(meta::ReadTxn& t, const Principal& who, int64_t drive_id,
                             const NodeRow* via) {
  authz::Checker check(t, who);
  Status whole = check.RequireDrive(drive_id, Action::kRead);
  if (whole.ok()) return true;
  if (!via || via->drive_id != drive_id) return whole;
  NUBO_RETURN_IF_ERROR(check.Require(*via, Action::kRead));
  return false;
}

void KeepOwn(std::vector<meta::DavLockRow>& locks, const Principal& who) {
  std::erase_if(locks, [&](const meta::DavLockRow& l) { return l.user_id != who.user_id; });
}

}  // namespace

Result<std::vector<meta::DavLockRow>> Files::FindLocks(const Principal& who, int64_t drive_id,
                                                       const std::vector<std::string>& paths,
                                                       const std::string& below,
                                                       const NodeRow* via) {
  std::vector<meta::DavLockRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(bool all, LocksVisibility(t, who, drive_id, via));
    NUBO_ASSIGN_OR_RETURN(out, t.FindDavLocks(drive_id, paths, below, UnixMillis()));
    if (!all) KeepOwn(out, who);
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<meta::DavLockRow>> Files::CoveringLocks(const Principal& who, int64_t drive_id,
                                                           const std::string& path_key,
                                                           const NodeRow* via) {
  std::vector<meta::DavLockRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(bool all, LocksVisibility(t, who, drive_id, via));
    NUBO_ASSIGN_OR_RETURN(out, files::CoveringLocks(t, drive_id, path_key, UnixMillis()));
    if (!all) KeepOwn(out, who);
    return Status::Ok();
  }));
  return out;
}

Result<LockResult> Files::Lock(const Principal& who, const Resolved& target, const LockRequest& req,
                               const Conditions& cond) {
  // A lock belongs to an account (it is listed, refreshed and removed as
  // the account's): a public link's bearer has none.
  if (who.link()) return Status::PermissionDenied("locks need an account; links cannot lock");
  if (!target.node && !target.parent)
    return Status::Conflict("the parent collection does not exist");
  LockResult out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    out = LockResult{};  // a write may run again: only its last run answers
    const int64_t now = UnixMillis();
    std::optional<NodeRow> node;
    std::optional<NodeRow> parent;
    std::string path;
    if (target.node) {
      NUBO_ASSIGN_OR_RETURN(node,
                            Access(t, who, target.node->public_id, Want::kLive, Action::kModify));
      NUBO_RETURN_IF_ERROR(CheckExpected(cond, *node));
      NUBO_ASSIGN_OR_RETURN(path, PathKeyOf(t, *node));
    } else {
      NUBO_ASSIGN_OR_RETURN(parent,
                            AccessFolder(t, who, target.parent->public_id, Action::kCreate));
      NUBO_ASSIGN_OR_RETURN(std::string ppath, PathKeyOf(t, *parent));
      NUBO_ASSIGN_OR_RETURN(std::string name, ValidateName(target.name));
      path = ChildKey(ppath, NameKey(name));
    }
    // §6.2: a lock conflicts with any lock covering the resource and, with
    // Depth infinity, with any lock below it; shared locks coexist with
    // shared locks only.
    NUBO_ASSIGN_OR_RETURN(auto conflicts, files::CoveringLocks(t, target.drive_id, path, now));
    if (req.depth_infinity) {
      NUBO_ASSIGN_OR_RETURN(auto below, t.FindDavLocks(target.drive_id, {}, path, now));
      for (auto& l : below) conflicts.push_back(std::move(l));
    }
    for (const auto& l : conflicts) {
      if (req.exclusive || l.exclusive) {
        out.conflict_href = l.root_href;
        return Status::Ok();
      }
    }
    if (!node) {
      // §9.10.4: LOCK on an unmapped URL creates an empty resource; the
      // parent's membership changes, so its locks apply. The empty content
      // needs no chunk, so the file is made inside this transaction.
      UploadRequest u;
      u.parent_id = parent->public_id;
      u.name = target.name;
      u.conflict = Conflict::kFail;
      u.cond.lock_tokens = cond.lock_tokens;
      content::ManifestDraft empty;
      empty.hash = Blake3::Hash(std::string_view());
      NUBO_ASSIGN_OR_RETURN(int64_t manifest, content::AcquireManifest(t, empty, now));
      NUBO_ASSIGN_OR_RETURN(auto made,
                            AttachFile(t, who, u, manifest, 0, "application/octet-stream"));
      (void)made;
      out.created = true;
    }
    meta::DavLockRow& l = out.lock;
    l.token = "urn:uuid:" + NewUuidV7();
    l.drive_id = target.drive_id;
    l.path = path;
    l.depth_infinity = req.depth_infinity;
    l.exclusive = req.exclusive;
    l.owner_xml = req.owner_xml;
    l.user_id = who.user_id;
    l.timeout_s = req.timeout_s;
    l.expires_at_ms = now + req.timeout_s * 1000;
    l.root_href = req.root_href;
    return t.InsertDavLock(l);
  }));
  return out;
}

Result<meta::DavLockRow> Files::RefreshLock(const Principal& who, const Resolved& target,
                                            const std::vector<std::string>& tokens,
                                            int64_t timeout_s) {
  if (who.link()) return Status::PermissionDenied("locks need an account; links cannot lock");
  if (!target.node) return Status::NotFound("no lock covers this resource");
  meta::DavLockRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n,
                          Access(t, who, target.node->public_id, Want::kLive, Action::kModify));
    NUBO_ASSIGN_OR_RETURN(std::string path, PathKeyOf(t, n));
    NUBO_ASSIGN_OR_RETURN(auto locks, files::CoveringLocks(t, n.drive_id, path, UnixMillis()));
    for (auto& l : locks) {
      if (std::find(tokens.begin(), tokens.end(), l.token) == tokens.end()) continue;
      if (l.user_id != who.user_id) return Status::PermissionDenied("the lock is someone else's");
      l.timeout_s = timeout_s;
      l.expires_at_ms = UnixMillis() + timeout_s * 1000;
      NUBO_RETURN_IF_ERROR(t.RefreshDavLock(l.token, l.timeout_s, l.expires_at_ms));
      out = std::move(l);
      return Status::Ok();
    }
    return Status::NotFound("no submitted lock token covers this resource");
  }));
  return out;
}

Status Files::Unlock(const Principal& who, const Resolved& target, const std::string& token) {
  if (who.link()) return Status::PermissionDenied("locks need an account; links cannot lock");
  if (!target.node) return Status::NotFound("the lock token does not cover this resource");
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n,
                          Access(t, who, target.node->public_id, Want::kLive, Action::kModify));
    NUBO_ASSIGN_OR_RETURN(std::string path, PathKeyOf(t, n));
    NUBO_ASSIGN_OR_RETURN(auto locks, files::CoveringLocks(t, n.drive_id, path, UnixMillis()));
    for (const auto& l : locks) {
      if (l.token != token) continue;
      if (l.user_id != who.user_id) return Status::PermissionDenied("the lock is someone else's");
      return t.DeleteDavLock(l.token);
    }
    return Status::NotFound("the lock token does not cover this resource");
  });
}

}  // namespace nubo::files
