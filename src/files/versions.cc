// File versions: kept by overwrites (KeepVersion, inside their
// transaction), listed, read, restored and deleted through the same
// authorization as their file, thinned by maintenance. See versions.h.
#include "files/versions.h"

#include <algorithm>
#include <map>
#include <set>

#include "content/refs.h"
#include "files/access.h"
#include "files/files.h"
#include "files/locks.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeRow;
using meta::VersionRow;

namespace {

constexpr int64_t kHour = 3600'000;
constexpr int64_t kDay = 24 * kHour;

// Bytes of `old_id`'s distinct chunks that manifest `next_id` does not list.
Result<int64_t> UnsharedBytes(meta::ReadTxn& t, int64_t old_id, int64_t next_id) {
  NUBO_ASSIGN_OR_RETURN(auto next, t.ManifestChunks(next_id));
  std::set<meta::Digest> have;
  for (const auto& c : next) have.insert(c.hash);
  NUBO_ASSIGN_OR_RETURN(auto old, t.ManifestChunks(old_id));
  int64_t bytes = 0;
  for (const auto& c : old) {
    if (have.insert(c.hash).second) bytes += c.size;
  }
  return bytes;
}

Status NeedAccount(const Principal& who) {
  if (who.link()) return Status::PermissionDenied("versions need an account");
  return Status::Ok();
}

// The version `version_id` of `n`; NotFound for any other node's.
Result<VersionRow> VersionOf(meta::ReadTxn& t, const NodeRow& n, std::string_view version_id) {
  if (version_id.empty() || version_id.size() > 64) return Status::NotFound("no such version");
  NUBO_ASSIGN_OR_RETURN(auto v, t.GetVersionByPublicId(std::string(version_id)));
  if (!v || v->node_id != n.id) return Status::NotFound("no such version");
  return std::move(*v);
}

// Deletes a version and releases its content.
Status DropVersion(meta::WriteTxn& t, const VersionRow& v, int64_t now) {
  NUBO_RETURN_IF_ERROR(t.DeleteVersion(v));
  return content::ReleaseManifest(t, v.manifest_id, now);
}

// Applies the retention schedule to one node's versions.
Result<int64_t> ThinNode(meta::WriteTxn& t, int64_t node_id, int64_t now) {
  NUBO_ASSIGN_OR_RETURN(auto versions, t.ListVersions(node_id));
  std::vector<int64_t> created;
  created.reserve(versions.size());
  for (const VersionRow& v : versions) created.push_back(v.created_at_ms);
  int64_t dropped = 0;
  for (size_t i : VersionsToThin(created, now)) {
    NUBO_RETURN_IF_ERROR(DropVersion(t, versions[i], now));
    ++dropped;
  }
  return dropped;
}

// Deletes the drive's oldest versions while they exceed their share of the
// quota, or while `extra` more bytes (besides `reservation`'s) do not fit.
// False when versions alone cannot make the room.
Result<bool> MakeRoom(meta::WriteTxn& t, int64_t drive_id, int64_t extra, int64_t reservation,
                      int per_mille, int64_t now) {
  NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(drive_id));
  if (!d) return false;
  NUBO_ASSIGN_OR_RETURN(auto quota, DriveQuota(t, *d));
  if (!quota) return true;
  const int64_t share = *quota / 1000 * per_mille;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(d, t.GetDrive(drive_id));
    if (!d) return false;
    const bool over_share = d->versions_bytes + std::max<int64_t>(extra, 0) > share;
    Status fits = CheckQuota(t, drive_id, extra, reservation);
    if (!fits.ok() && fits.code() != Code::kQuotaExceeded) return fits;
    if (fits.ok() && !over_share) return true;
    NUBO_ASSIGN_OR_RETURN(auto oldest, t.ListOldestVersions(drive_id, 1));
    if (oldest.empty()) return false;
    NUBO_RETURN_IF_ERROR(DropVersion(t, oldest.front(), now));
  }
}

}  // namespace

std::vector<size_t> VersionsToThin(const std::vector<int64_t>& created_desc, int64_t now_ms) {
  std::vector<size_t> out;
  std::set<std::pair<int, int64_t>> seen;  // (tier, period) already holding a newer version
  for (size_t i = 0; i < created_desc.size(); ++i) {
    const int64_t at = created_desc[i];
    const int64_t age = now_ms - at;
    if (age < kDay) continue;  // the last day: all of them
    std::pair<int, int64_t> period;
    if (age < 2 * kDay) {
      period = {1, at / kHour};
    } else if (age < 30 * kDay) {
      period = {2, at / kDay};
    } else {
      period = {3, at / (7 * kDay)};
    }
    if (!seen.insert(period).second) out.push_back(i);
  }
  return out;
}

Result<bool> Files::KeepVersion(meta::WriteTxn& t, const NodeRow& current, int64_t next,
                                int64_t extra, int64_t reservation) {
  if (!current.manifest_id) return false;
  const int64_t now = UnixMillis();
  VersionRow v;
  v.public_id = NewUuidV7();
  v.node_id = current.id;
  v.manifest_id = *current.manifest_id;
  v.size = current.size;
  NUBO_ASSIGN_OR_RETURN(v.charged, UnsharedBytes(t, *current.manifest_id, next));
  v.mtime_ms = current.mtime_ms;
  v.created_at_ms = now;
  if (current.updated_by) v.author = current.updated_by;  // 0: unknown
  NUBO_ASSIGN_OR_RETURN(bool room, MakeRoom(t, current.drive_id, extra + v.charged, reservation,
                                            options_.versions_quota_per_mille, now));
  if (!room) return false;
  NUBO_RETURN_IF_ERROR(t.InsertVersion(v));
  NUBO_RETURN_IF_ERROR(ThinNode(t, current.id, now).status());
  return true;
}

Result<std::vector<VersionRow>> Files::ListVersions(const Principal& who, std::string_view id) {
  NUBO_RETURN_IF_ERROR(NeedAccount(who));
  std::vector<VersionRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kAny, Action::kRead));
    if (n.folder()) return Status::InvalidArgument("\"" + n.name + "\" is a folder");
    NUBO_ASSIGN_OR_RETURN(out, t.ListVersions(n.id));
    return Status::Ok();
  }));
  return out;
}

Result<FileContent> Files::OpenVersion(const Principal& who, std::string_view id,
                                       std::string_view version_id) {
  NUBO_RETURN_IF_ERROR(NeedAccount(who));
  FileContent fc;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(fc.node, Access(t, who, id, Want::kAny, Action::kRead));
    NUBO_ASSIGN_OR_RETURN(VersionRow v, VersionOf(t, fc.node, version_id));
    NUBO_ASSIGN_OR_RETURN(fc.chunks, t.ManifestChunks(v.manifest_id));
    fc.node.manifest_id = v.manifest_id;
    fc.node.size = v.size;
    fc.node.hash = v.hash;
    fc.node.mtime_ms = v.mtime_ms;
    return Status::Ok();
  }));
  return fc;
}

Result<NodeRow> Files::RestoreVersion(const Principal& who, std::string_view id,
                                      std::string_view version_id, const Conditions& cond) {
  NUBO_RETURN_IF_ERROR(NeedAccount(who));
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kLive, Action::kModify));
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, n));
    NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, n, false, false, cond.lock_tokens));
    NUBO_ASSIGN_OR_RETURN(VersionRow v, VersionOf(t, n, version_id));
    const int64_t now = UnixMillis();
    // The version's reference becomes the file's; the current content
    // becomes a version in turn (a restore can itself be undone).
    NUBO_RETURN_IF_ERROR(t.DeleteVersion(v));
    const int64_t delta = static_cast<int64_t>(v.size) - static_cast<int64_t>(n.size);
    const int64_t old_manifest = *n.manifest_id;
    bool kept = false;
    if (old_manifest != v.manifest_id) {
      NUBO_ASSIGN_OR_RETURN(kept, KeepVersion(t, n, v.manifest_id, delta, 0));
    }
    NUBO_RETURN_IF_ERROR(CheckQuota(t, n.drive_id, delta));
    n.manifest_id = v.manifest_id;
    n.size = v.size;
    n.mtime_ms = v.mtime_ms;
    n.updated_by = who.user_id;
    NUBO_RETURN_IF_ERROR(Stamp(t, n));
    NUBO_RETURN_IF_ERROR(t.UpdateNode(n));
    if (!kept) NUBO_RETURN_IF_ERROR(content::ReleaseManifest(t, old_manifest, now));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, *n.parent_id, delta));
    NUBO_ASSIGN_OR_RETURN(auto reloaded, t.GetNode(n.id, who.user_id));
    if (!reloaded) return Status::Internal("node vanished inside its transaction");
    out = std::move(*reloaded);
    return Status::Ok();
  }));
  NoteRecent(who.user_id, out.id);
  return out;
}

Status Files::DeleteVersion(const Principal& who, std::string_view id,
                            std::string_view version_id) {
  NUBO_RETURN_IF_ERROR(NeedAccount(who));
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kAny, Action::kModify));
    NUBO_ASSIGN_OR_RETURN(VersionRow v, VersionOf(t, n, version_id));
    return DropVersion(t, v, UnixMillis());
  });
}

Result<int64_t> Files::ThinVersions(int64_t now_ms) {
  int64_t dropped = 0;
  int64_t after = 0;
  for (;;) {
    std::vector<int64_t> nodes;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(nodes, t.ListVersionedNodes(after, 200));
      return Status::Ok();
    }));
    if (nodes.empty()) break;
    after = nodes.back();
    int64_t page_dropped = 0;  // of the run that commits (a write may run again)
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
      page_dropped = 0;
      for (int64_t id : nodes) {
        NUBO_ASSIGN_OR_RETURN(int64_t n, ThinNode(t, id, now_ms));
        page_dropped += n;
      }
      return Status::Ok();
    }));
    dropped += page_dropped;
  }
  // Each quota drive's versions back within their share.
  NUBO_RETURN_IF_ERROR(ForEachQuotaDrive([&](meta::WriteTxn& t, int64_t d) {
    return MakeRoom(t, d, 0, 0, options_.versions_quota_per_mille, now_ms).status();
  }));
  return dropped;
}

}  // namespace nubo::files
