// Read side of the files domain: access, listings, search, favorites,
// recent, usage. Writes live in files_write.cc.
#include "files/files.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "files/access.h"
#include "files/locks.h"
#include "files/names.h"
#include "search/query.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeKind;
using meta::NodeRow;

Result<Conflict> ParseConflict(std::string_view s, Conflict fallback) {
  if (s.empty()) return fallback;
  if (s == "fail") return Conflict::kFail;
  if (s == "rename") return Conflict::kRename;
  if (s == "overwrite") return Conflict::kOverwrite;
  return Status::InvalidArgument("conflict must be fail, rename or overwrite");
}

std::string HashHex(const meta::Digest& d) { return DigestHex(d); }

Result<int64_t> FillSortKeys(meta::MetaStore& meta) {
  static constexpr const char* kVersionKey = "collation_version";
  std::optional<std::string> stored;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(stored, t.GetSetting(kVersionKey));
    return Status::Ok();
  }));
  // The setting is "<collator version>@icu-<library version>". While the
  // library is the one that wrote it, the collator's version is the stored
  // one and the collator is not built at all: a start that finds every key
  // in place never loads ICU's collation data (an idle server stays ~1.6
  // MiB smaller; the first new name loads it).
  const std::string library = "@icu-" + IcuVersion();
  if (stored && stored->size() > library.size() && stored->ends_with(library)) {
    // Current; only rows without a key (none, normally) are filled below.
  } else {
    // A value without "@" was written before the library version was kept.
    const std::string version = CollationVersion();
    const std::optional<std::string> collation =
        stored ? std::optional<std::string>(stored->substr(0, stored->find('@'))) : std::nullopt;
    // Keys of another collator version do not compare with this one's:
    // drop them all (one statement) and rebuild below. The version is
    // written with the drop, so a crash part-way leaves NULL keys that the
    // next start fills, never a mix of versions. The same collator under a
    // new library only rewrites the setting.
    NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& t) -> Status {
      if (collation && *collation != version) NUBO_RETURN_IF_ERROR(t.ClearSortKeys());
      return t.SetSetting(kVersionKey, version + library);
    }));
  }
  int64_t filled = 0;
  int64_t after = 0;
  for (;;) {
    std::vector<std::pair<int64_t, std::string>> batch;
    NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(batch, t.NodesWithoutSortKey(after, 2000));
      return Status::Ok();
    }));
    if (batch.empty()) return filled;
    std::vector<std::string> keys;
    keys.reserve(batch.size());
    for (const auto& [id, name] : batch) keys.push_back(SortKey(name));
    NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& t) -> Status {
      for (size_t i = 0; i < batch.size(); ++i) {
        NUBO_RETURN_IF_ERROR(t.SetSortKey(batch[i].first, keys[i]));
      }
      return Status::Ok();
    }));
    filled += static_cast<int64_t>(batch.size());
    after = batch.back().first;
  }
}

void AppendNodeETag(std::string& out, const NodeRow& n) {
  out += '"';
  if (!n.folder()) {
    // The first 128 bits of the content's BLAKE3 hash: as unique as the
    // whole for telling versions apart, and half the bytes in every listing
    // and If header (some WebDAV clients build If headers in 200-byte
    // buffers; litmus/neon truncates two 64-digit tags).
    static constexpr char kHex[] = "0123456789abcdef";
    for (size_t i = 0; i < 16; ++i) {
      out += kHex[n.hash[i] >> 4];
      out += kHex[n.hash[i] & 0xF];
    }
  } else {
    // The drive-wide change number of the last change below: unique per
    // change, so two states of a folder never share an ETag.
    out += 't';
    out += std::to_string(n.tree_seq);
  }
  out += '"';
}

std::string NodeETag(const NodeRow& n) {
  std::string out;
  AppendNodeETag(out, n);
  return out;
}

bool IfMatchMatches(std::string_view header, const std::string& etag) {
  std::string_view h = Trim(header);
  if (h == "*") return true;
  for (std::string_view tag : Split(h, ',')) {
    if (Trim(tag) == etag) return true;
  }
  return false;
}

Status NodeNotFound() { return authz::NodeHidden(); }

Result<NodeRow> Access(meta::ReadTxn& txn, authz::Checker& check, std::string_view public_id,
                       Want want, Action action) {
  if (public_id.empty() || public_id.size() > 64) return NodeNotFound();
  NUBO_ASSIGN_OR_RETURN(auto n, txn.GetNodeByPublicId(std::string(public_id), check.who().user_id));
  if (!n) return NodeNotFound();
  // The decision first: a trashed node the caller may not see answers
  // exactly like a live one (and like none).
  NUBO_RETURN_IF_ERROR(check.Require(*n, action));
  if (want == Want::kLive && !n->live()) return NodeNotFound();
  return std::move(*n);
}

Result<NodeRow> Access(meta::ReadTxn& txn, const Principal& who, std::string_view public_id,
                       Want want, Action action) {
  authz::Checker check(txn, who);
  return Access(txn, check, public_id, want, action);
}

Result<NodeRow> AccessFolder(meta::ReadTxn& txn, const Principal& who, std::string_view public_id,
                             Action action) {
  NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(txn, who, public_id, Want::kLive, action));
  if (!n.folder()) return Status::Conflict("\"" + n.name + "\" is a file, not a folder");
  return n;
}

Status CheckExpected(const Conditions& cond, const NodeRow& n) {
  if (cond.expect_etag && *cond.expect_etag != NodeETag(n)) {
    return Status::PreconditionFailed("the resource changed since its preconditions were checked");
  }
  return Status::Ok();
}

Status Touch(meta::WriteTxn& txn, int64_t drive_id, int64_t from, int64_t size_delta) {
  NUBO_ASSIGN_OR_RETURN(int64_t seq, txn.NextChangeSeq(drive_id));
  return txn.BumpAncestors(from, seq, size_delta);
}

Status Stamp(meta::WriteTxn& txn, NodeRow& n) {
  NUBO_ASSIGN_OR_RETURN(n.tree_seq, txn.NextChangeSeq(n.drive_id));
  return Status::Ok();
}

Status LeaveTombstone(meta::WriteTxn& txn, const NodeRow& n) {
  if (!n.parent_id) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(int64_t seq, txn.NextChangeSeq(n.drive_id));
  return txn.AddTombstone(n.drive_id, *n.parent_id, n.name, n.folder(), seq, UnixMillis());
}

Result<int64_t> DriveUsage(meta::ReadTxn& txn, const meta::DriveRow& d) {
  NUBO_ASSIGN_OR_RETURN(auto root, txn.GetNode(d.root_id, 0));
  return (root ? static_cast<int64_t>(root->size) : 0) + d.props_bytes + d.versions_bytes;
}

Result<std::optional<int64_t>> DriveQuota(meta::ReadTxn& txn, const meta::DriveRow& d) {
  if (d.kind == "shared") return d.quota_bytes;
  if (!d.owner_id) return std::optional<int64_t>();
  NUBO_ASSIGN_OR_RETURN(auto u, txn.GetUser(*d.owner_id));
  return u ? u->quota_bytes : std::nullopt;
}

Status CheckQuota(meta::ReadTxn& txn, int64_t drive_id, int64_t extra, int64_t own_reservation) {
  if (extra <= 0) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto d, txn.GetDrive(drive_id));
  if (!d) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto quota, DriveQuota(txn, *d));
  if (!quota) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(int64_t used, DriveUsage(txn, *d));
  // Uploads in progress hold reservations: their bytes are on the disk
  // already (or about to be), so they count until they commit or end.
  NUBO_ASSIGN_OR_RETURN(int64_t reserved,
                        txn.ReservedBytes(drive_id, UnixMillis(), own_reservation));
  if (used + reserved + extra > *quota) {
    std::string msg = "storage quota exceeded: " + std::to_string(used) + " of " +
                      std::to_string(*quota) + " bytes used, " + std::to_string(extra) +
                      " more needed";
    if (reserved > 0) msg += " (" + std::to_string(reserved) + " held by uploads in progress)";
    return Status::QuotaExceeded(std::move(msg));
  }
  return Status::Ok();
}

Status CheckQuotaHolds(meta::ReadTxn& txn, int64_t drive_id) {
  NUBO_ASSIGN_OR_RETURN(auto d, txn.GetDrive(drive_id));
  if (!d) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto quota, DriveQuota(txn, *d));
  if (!quota) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(int64_t used, DriveUsage(txn, *d));
  NUBO_ASSIGN_OR_RETURN(int64_t reserved, txn.ReservedBytes(drive_id, UnixMillis(), 0));
  if (used + reserved > *quota) {
    return Status::QuotaExceeded("storage quota exceeded: " + std::to_string(used) + " of " +
                                 std::to_string(*quota) + " bytes used");
  }
  return Status::Ok();
}

namespace {

// Where " (n)" goes: "report.pdf" → "report (2).pdf"; folders and
// dot-files keep the number at the end ("photos (2)", ".bashrc (2)").
size_t NumberAt(const std::string& name, bool folder) {
  size_t dot = folder ? std::string::npos : name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name.size() : dot;
}

}  // namespace

std::string NumberedName(const std::string& name, bool folder, int k) {
  const size_t at = NumberAt(name, folder);
  return name.substr(0, at) + " (" + std::to_string(k) + ")" + name.substr(at);
}

Result<std::string> PlaceName(meta::ReadTxn& txn, const NodeRow& parent, const std::string& name,
                              bool folder, Conflict conflict, std::optional<NodeRow>* existing,
                              int64_t ignore_id) {
  NUBO_ASSIGN_OR_RETURN(auto hit, txn.FindChild(parent.id, NameKey(name), 0));
  if (!hit || hit->id == ignore_id) return name;
  if (existing) *existing = hit;
  if (conflict == Conflict::kOverwrite || conflict == Conflict::kReplace) return name;
  if (conflict == Conflict::kFail) {
    return Status::AlreadyExists("\"" + name + "\" already exists in this folder");
  }
  // kRename: the numbers taken come from one range query over the
  // siblings' keys ("stem (" prefix) instead of a probe per number, so a
  // folder holding thousands of "a (n).txt" costs one query, not thousands
  // inside the writer.
  const size_t at = NumberAt(name, folder);
  const std::string prefix_key = NameKey(name.substr(0, at) + " (");  // "stem ("
  const std::string suffix_key = at < name.size() ? NameKey(name.substr(at)) : std::string();
  constexpr size_t kMaxSimilar = 10000;
  NUBO_ASSIGN_OR_RETURN(auto keys, txn.ChildKeysWithPrefix(parent.id, prefix_key, kMaxSimilar));
  if (keys.size() >= kMaxSimilar) {
    return Status::AlreadyExists("too many names like \"" + name + "\" in this folder");
  }
  std::vector<bool> taken(keys.size() + 2, false);
  for (const std::string& k : keys) {
    std::string_view rest = std::string_view(k).substr(prefix_key.size());
    size_t close = rest.find(')');
    if (close == std::string_view::npos || rest.substr(close + 1) != suffix_key) continue;
    auto n = ParseUint64(rest.substr(0, close));
    if (n && *n >= 1 && *n < taken.size() && std::to_string(*n) == rest.substr(0, close)) {
      taken[*n] = true;
    }
  }
  // The first free number; confirmed by the key itself (a spelling whose
  // key does not split at the prefix, such as a combining mark after "(",
  // is caught here and skipped).
  for (size_t k = 1; k < taken.size() + 8; ++k) {
    if (k < taken.size() && taken[k]) continue;
    std::string candidate = NumberedName(name, folder, static_cast<int>(k));
    if (candidate.size() > kMaxNameBytes) break;
    NUBO_ASSIGN_OR_RETURN(auto clash, txn.FindChild(parent.id, NameKey(candidate), 0));
    if (!clash) {
      if (existing) existing->reset();
      return candidate;
    }
  }
  return Status::AlreadyExists("no free name like \"" + name + "\" in this folder");
}

Files::Files(meta::MetaStore& meta, blob::ChunkStore& chunks, FilesOptions options)
    : meta_(meta), chunks_(chunks), options_(options) {}

Files::~Files() = default;

Result<DriveInfo> Files::PersonalDrive(const Principal& who) {
  DriveInfo out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(who.user_id));
    if (!d) return Status::NotFound("this account has no personal drive");
    authz::Checker check(t, who);
    check.Know(*d);
    NUBO_RETURN_IF_ERROR(check.RequireDrive(d->id, Action::kRead));
    NUBO_ASSIGN_OR_RETURN(auto root, t.GetNode(d->root_id, 0));
    NUBO_ASSIGN_OR_RETURN(auto user, t.GetUser(who.user_id));
    if (!root) return Status::Internal("drive root missing");
    out.root_id = root->public_id;
    out.usage.used_bytes = root->size + static_cast<uint64_t>(d->props_bytes) +
                           static_cast<uint64_t>(d->versions_bytes);
    out.usage.versions_bytes = static_cast<uint64_t>(d->versions_bytes);
    if (user) out.usage.quota_bytes = user->quota_bytes;
    out.drive = std::move(*d);
    return Status::Ok();
  }));
  return out;
}

namespace {

const char* RoleWord(int role) {
  switch (role) {
    case 1:
      return "viewer";
    case 2:
      return "editor";
    case 3:
      return "manager";
  }
  return "none";
}

Result<DriveInfo> Describe(meta::ReadTxn& t, meta::DriveRow d, std::string role) {
  DriveInfo out;
  NUBO_ASSIGN_OR_RETURN(auto root, t.GetNode(d.root_id, 0));
  if (!root) return Status::Internal("drive root missing");
  out.root_id = root->public_id;
  out.usage.used_bytes =
      root->size + static_cast<uint64_t>(d.props_bytes) + static_cast<uint64_t>(d.versions_bytes);
  out.usage.versions_bytes = static_cast<uint64_t>(d.versions_bytes);
  NUBO_ASSIGN_OR_RETURN(out.usage.quota_bytes, DriveQuota(t, d));
  out.drive = std::move(d);
  out.role = std::move(role);
  return out;
}

}  // namespace

Result<std::vector<DriveInfo>> Files::Drives(const Principal& who) {
  NUBO_ASSIGN_OR_RETURN(DriveInfo personal, PersonalDrive(who));
  personal.role = "owner";
  std::vector<DriveInfo> out{std::move(personal)};
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto groups, t.GroupsOfUser(who.user_id));
    NUBO_ASSIGN_OR_RETURN(auto shared, t.ListMemberDrives(who.user_id, groups));
    for (auto& [d, role] : shared) {
      NUBO_ASSIGN_OR_RETURN(DriveInfo info, Describe(t, std::move(d), RoleWord(role)));
      out.push_back(std::move(info));
    }
    return Status::Ok();
  }));
  return out;
}

Result<DriveInfo> Files::CreateDrive(const Principal& who, std::string_view name,
                                     std::optional<int64_t> quota_bytes) {
  const bool admin = authz::CheckAdmin(who).ok();
  if (!admin) {
    NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
    if (!options_.users_create_drives) {
      return Status::PermissionDenied("only administrators create shared drives here");
    }
    if (quota_bytes) return Status::PermissionDenied("only administrators set a drive's quota");
  }
  if (quota_bytes && *quota_bytes < 0) return Status::InvalidArgument("quota_bytes must be >= 0");
  NUBO_ASSIGN_OR_RETURN(std::string valid, ValidateName(name));
  DriveInfo out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    meta::DriveRow d;
    d.public_id = NewUuidV7();
    d.kind = "shared";
    d.name = valid;
    d.quota_bytes = quota_bytes;
    d.created_at_ms = UnixMillis();
    NUBO_RETURN_IF_ERROR(t.InsertDrive(d));
    NodeRow root;
    root.public_id = NewUuidV7();
    root.drive_id = d.id;
    root.kind = NodeKind::kFolder;
    root.mime = "inode/directory";
    root.mtime_ms = root.ctime_ms = d.created_at_ms;
    root.created_by = root.updated_by = who.user_id;
    NUBO_RETURN_IF_ERROR(t.InsertNode(root));
    NUBO_RETURN_IF_ERROR(t.SetDriveRoot(d.id, root.id));
    d.root_id = root.id;
    // Its maker manages it (an operator without an account manages nothing).
    if (who.user_id > 0) NUBO_RETURN_IF_ERROR(t.SetDriveMember(d.id, false, who.user_id, 3));
    NUBO_ASSIGN_OR_RETURN(out, Describe(t, std::move(d), who.user_id > 0 ? "manager" : "none"));
    return Status::Ok();
  }));
  return out;
}

Result<DriveInfo> Files::UpdateDrive(const Principal& who, std::string_view id,
                                     std::optional<std::string> name,
                                     std::optional<std::optional<int64_t>> quota_bytes) {
  if (name) {
    NUBO_ASSIGN_OR_RETURN(*name, ValidateName(*name));
  }
  if (quota_bytes && *quota_bytes && **quota_bytes < 0) {
    return Status::InvalidArgument("quota_bytes must be >= 0");
  }
  DriveInfo out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    const bool admin = authz::CheckAdmin(who).ok();
    auto found = DriveFor(t, who, id, static_cast<int>(Action::kRead));
    meta::DriveRow d;
    if (found.ok()) {
      d = std::move(*found);
    } else if (admin && found.status().code() == Code::kNotFound && !id.empty()) {
      NUBO_ASSIGN_OR_RETURN(auto any, t.GetDriveByPublicId(std::string(id)));
      if (!any) return found.status();
      d = std::move(*any);
    } else {
      return found.status();
    }
    if (d.kind != "shared")
      return Status::Conflict("a personal drive is changed through its account");
    if (name && !admin)
      NUBO_RETURN_IF_ERROR(DriveFor(t, who, id, static_cast<int>(Action::kManage)).status());
    if (quota_bytes && !admin)
      return Status::PermissionDenied("only administrators set a drive's quota");
    if (name) d.name = *name;
    if (quota_bytes) d.quota_bytes = *quota_bytes;
    NUBO_RETURN_IF_ERROR(t.UpdateDrive(d));
    NUBO_ASSIGN_OR_RETURN(int role, t.DriveRoleOf(d.id, who.user_id, {}));
    NUBO_ASSIGN_OR_RETURN(out, Describe(t, std::move(d), RoleWord(role)));
    return Status::Ok();
  }));
  return out;
}

Result<Usage> Files::GetUsage(const Principal& who) {
  NUBO_ASSIGN_OR_RETURN(DriveInfo d, PersonalDrive(who));
  return d.usage;
}

Result<Resolved> Files::Resolve(const Principal& who, const std::vector<std::string>& segments,
                                std::string_view drive_id, std::string_view share_root,
                                bool mount_tags) {
  if (segments.size() > kMaxDepth) {
    return Status::InvalidArgument("paths have at most " + std::to_string(kMaxDepth) + " segments");
  }
  std::vector<std::string> keys;
  keys.reserve(segments.size());
  Resolved r;
  for (const std::string& seg : segments) {
    NUBO_RETURN_IF_ERROR(ValidateName(seg).status());
    keys.push_back(NameKey(seg));
    r.path_key += "/" + keys.back();
  }
  if (r.path_key.empty()) r.path_key = "/";
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    std::optional<NodeRow> cur;
    std::optional<meta::DriveRow> home;
    if (who.link() || !share_root.empty()) {
      // A public link's tree starts at the link's node, a received share's
      // at the shared node. Locks address paths from the drive's root, so
      // the node's own path comes first.
      if (who.link()) {
        NUBO_ASSIGN_OR_RETURN(cur, t.GetNode(who.link_node, 0));
      } else {
        if (share_root.size() > 64) return NodeNotFound();
        NUBO_ASSIGN_OR_RETURN(cur, t.GetNodeByPublicId(std::string(share_root), 0));
        if (cur && !check.On(*cur).ok()) return NodeNotFound();
      }
      if (!cur || !cur->live()) return NodeNotFound();
      r.drive_id = cur->drive_id;
      NUBO_ASSIGN_OR_RETURN(std::string prefix, PathKeyOf(t, *cur));
      if (keys.empty()) {
        r.path_key = std::move(prefix);
      } else if (prefix != "/") {
        r.path_key = prefix + r.path_key;
      }
    } else {
      // The tree as a whole: what the caller may not list resolves to nothing.
      NUBO_ASSIGN_OR_RETURN(home, DriveFor(t, who, drive_id, static_cast<int>(Action::kList)));
      check.Know(*home);  // the target's check below needs no second read of it
      r.drive_id = home->id;
      if (drive_id.empty()) r.home_drive_id = home->id;
      NUBO_ASSIGN_OR_RETURN(cur, t.GetNode(home->root_id, 0));
      if (!cur) return Status::Internal("drive root missing");
    }
    std::optional<std::vector<Mount>> mounts;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!cur->folder()) return Status::Ok();  // a file has no members: nothing resolves below
      if (i + 1 == keys.size()) r.parent = cur;
      // The target carries the caller's favorite flag (oc:favorite).
      const int64_t viewer = i + 1 == keys.size() && !who.link() ? who.user_id : 0;
      NUBO_ASSIGN_OR_RETURN(auto next, t.FindChild(cur->id, keys[i], viewer));
      if (!next && r.home_drive_id && r.mount_depth == 0) {
        // Not an own item: perhaps a received share's mount point (own
        // items win a name, so they are looked for first).
        if (!mounts) {
          NUBO_ASSIGN_OR_RETURN(mounts, AllMounts(t, check, who, *home));
        }
        for (const Mount& m : *mounts) {
          if (m.parent_id != cur->id || NameKey(m.name) != keys[i]) continue;
          next = m.node;
          r.mount_depth = i + 1;
          r.at_mount = i + 1 == keys.size();
          r.drive_id = m.node.drive_id;
          // From here on, paths (locks) are the owner's drive's.
          NUBO_ASSIGN_OR_RETURN(r.path_key, PathKeyOf(t, m.node));
          for (size_t j = i + 1; j < keys.size(); ++j) r.path_key = ChildKey(r.path_key, keys[j]);
          break;
        }
      }
      if (!next) return Status::Ok();
      cur = std::move(next);
    }
    Status seen = check.Require(*cur, Action::kRead);
    // A file drop may not read what it finds: to it, a taken name is as
    // free as any (its upload gets another name).
    if (!seen.ok() && who.link() && seen.code() == Code::kNotFound) return Status::Ok();
    NUBO_RETURN_IF_ERROR(seen);
    if (mount_tags && r.home_drive_id && !r.mount_depth && cur->folder()) {
      if (!mounts) {
        NUBO_ASSIGN_OR_RETURN(mounts, AllMounts(t, check, who, *home));
      }
      NUBO_ASSIGN_OR_RETURN(r.mount_tags, TagsOf(t, *mounts));
    }
    r.node = std::move(cur);
    r.mounts = std::move(mounts);
    return Status::Ok();
  }));
  if (!segments.empty()) r.name = segments.back();
  return r;
}

Result<NodeRow> Files::Get(const Principal& who, std::string_view id, bool trashed_too) {
  NodeRow n;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(
        n, Access(t, who, id, trashed_too ? Want::kAny : Want::kLive, Action::kRead));
    return Status::Ok();
  }));
  return n;
}

Result<NodeRow> Files::GetByFileId(const Principal& who, int64_t id) {
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(id, who.user_id));
    if (!n || !n->live()) return authz::NodeHidden();
    authz::Checker check(t, who);
    NUBO_RETURN_IF_ERROR(check.Require(*n, Action::kRead));
    out = std::move(*n);
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<NodeRow>> Files::Path(const Principal& who, const NodeRow& n) {
  NUBO_ASSIGN_OR_RETURN(auto all, Paths(who, {n}));
  return std::move(all[0]);
}

Result<std::vector<std::vector<NodeRow>>> Files::Paths(const Principal& who,
                                                       const std::vector<NodeRow>& nodes) {
  std::vector<std::vector<NodeRow>> out(nodes.size());
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    std::unordered_map<int64_t, size_t> walked;  // parent id → a node's index with that parent
    for (size_t i = 0; i < nodes.size(); ++i) {
      out[i].clear();
      const NodeRow& n = nodes[i];
      if (!n.parent_id) continue;
      if (auto w = walked.find(*n.parent_id); w != walked.end()) {
        out[i] = out[w->second];
        continue;
      }
      NUBO_ASSIGN_OR_RETURN(auto chain, t.Ancestors(*n.parent_id));
      // Only ancestors the caller may see (with shares, the path starts at
      // what was shared).
      for (NodeRow& a : chain) {
        if (!check.Require(a, Action::kRead).ok()) break;
        out[i].push_back(std::move(a));
      }
      std::reverse(out[i].begin(), out[i].end());
      walked.emplace(*n.parent_id, i);
    }
    return Status::Ok();
  }));
  return out;
}

namespace {

// Cursors are opaque to clients: hex of "v2\n<sort><dir>\n<kind>\n<int>\n
// <str>\n<hex sort_key>\n<id>". Mime types cannot contain "\n" and the
// sort key (arbitrary bytes) is hex, so the fields split unambiguously. A
// v1 cursor (name_key order, before natural order) is refused as malformed:
// the client starts the listing over.
std::string EncodeCursor(char tag, const meta::NodeCursor& c) {
  std::string raw = std::string("v2\n") + tag + "\n" + std::to_string(static_cast<int>(c.kind)) +
                    "\n" + std::to_string(c.int_key) + "\n" + c.str_key + "\n" +
                    HexEncode(c.sort_key.data(), c.sort_key.size()) + "\n" + std::to_string(c.id);
  return HexEncode(raw.data(), raw.size());
}

// "<tag>\n<a>\n<b>" (hex): a keyset position of two integers (trash: the
// time it was trashed and the id; photos: the time taken and the id).
std::string EncodePairCursor(std::string_view tag, int64_t a, int64_t b) {
  std::string raw = std::string(tag) + "\n" + std::to_string(a) + "\n" + std::to_string(b);
  return HexEncode(raw.data(), raw.size());
}

Result<std::optional<std::pair<int64_t, int64_t>>> DecodePairCursor(std::string_view cursor,
                                                                    std::string_view tag) {
  if (cursor.empty()) return std::optional<std::pair<int64_t, int64_t>>();
  auto raw = HexDecode(cursor);
  auto parts = raw ? Split(*raw, '\n') : std::vector<std::string_view>{};
  std::optional<int64_t> a, b;
  if (parts.size() == 3 && parts[0] == tag) {
    a = ParseInt64(parts[1]);
    b = ParseInt64(parts[2]);
  }
  if (!a || !b) return Status::InvalidArgument("malformed cursor");
  return std::optional<std::pair<int64_t, int64_t>>(std::make_pair(*a, *b));
}

Result<std::optional<meta::NodeCursor>> DecodeCursor(std::string_view cursor, char tag) {
  if (cursor.empty()) return std::optional<meta::NodeCursor>();
  auto bad = [] { return Status::InvalidArgument("malformed cursor"); };
  auto raw = HexDecode(cursor);
  if (!raw) return bad();
  auto parts = Split(*raw, '\n');
  if (parts.size() != 7 || parts[0] != "v2") return bad();
  if (parts[1].size() != 1 || parts[1][0] != tag) {
    return Status::InvalidArgument("cursor belongs to another sort order");
  }
  meta::NodeCursor c;
  if (parts[2] == "0") {
    c.kind = NodeKind::kFolder;
  } else if (parts[2] == "1") {
    c.kind = NodeKind::kFile;
  } else {
    return bad();
  }
  auto ik = ParseInt64(parts[3]);
  auto id = ParseInt64(parts[6]);
  if (!ik || !id) return bad();
  c.int_key = *ik;
  c.str_key = std::string(parts[4]);
  auto sort_key = HexDecode(parts[5]);
  if (!sort_key) return bad();
  c.sort_key = std::move(*sort_key);
  c.id = *id;
  return std::optional<meta::NodeCursor>(std::move(c));
}

meta::NodeCursor CursorOf(const NodeRow& n, meta::NodeSort sort) {
  meta::NodeCursor c;
  c.kind = n.kind;
  if (sort == meta::NodeSort::kSize) c.int_key = static_cast<int64_t>(n.size);
  if (sort == meta::NodeSort::kModified) c.int_key = n.mtime_ms;
  if (sort == meta::NodeSort::kType) c.str_key = n.mime;
  c.sort_key = n.sort_key;
  c.id = n.id;
  return c;
}

}  // namespace

namespace {

// What ListOptions asks beyond the rows, for the page's nodes.
Status FillExtras(meta::ReadTxn& t, const Principal& who, const NodeRow& folder,
                  const ListOptions& options, Page& page) {
  if (options.dead_props && !page.items.empty()) {
    std::vector<int64_t> ids;
    ids.reserve(page.items.size());
    for (const NodeRow& n : page.items) ids.push_back(n.id);
    NUBO_ASSIGN_OR_RETURN(page.dead_props, t.ListDeadProps(ids));
  }
  if (options.share_types && !page.items.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto drive, t.GetDrive(folder.drive_id));
    const int64_t by = drive && drive->owner_id == who.user_id ? 0 : who.user_id;
    std::vector<int64_t> ids;
    ids.reserve(page.items.size());
    for (const NodeRow& n : page.items) ids.push_back(n.id);
    NUBO_ASSIGN_OR_RETURN(auto kinds, t.ListShareTypes(ids, by, UnixMillis()));
    for (const auto& [id, kind] : kinds) page.share_types[id].push_back(kind);
  }
  if (options.checksums) {
    std::vector<int64_t> ids;
    for (const NodeRow& n : page.items) {
      if (n.manifest_id) ids.push_back(*n.manifest_id);
    }
    if (!ids.empty()) {
      NUBO_ASSIGN_OR_RETURN(auto sums, t.ListManifestChecksums(ids));
      for (auto& [id, v] : sums) page.checksums.emplace(id, std::move(v));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Page> Files::List(const Principal& who, std::string_view folder_id, meta::NodeSort sort,
                         bool descending, std::string_view cursor, size_t limit,
                         ListOptions options) {
  const char tag = static_cast<char>('a' + static_cast<int>(sort) * 2 + (descending ? 1 : 0));
  NUBO_ASSIGN_OR_RETURN(auto after, DecodeCursor(cursor, tag));
  const int64_t viewer = options.bare && !options.favorites ? 0 : who.user_id;
  Page page;
  if (options.reuse) page.items.swap(*options.reuse);  // leaves the caller's empty
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow folder, Access(t, who, folder_id, Want::kLive, Action::kList));
    if (!folder.folder()) return NodeNotFound();  // a file has no children to list
    // Folders first whatever the direction: page through folders, then
    // continue with files from their start. Fetch one extra row to know
    // whether another page exists.
    const size_t want = limit + 1;
    const meta::ListColumns columns =
        options.basic_columns ? meta::ListColumns::kBasic : meta::ListColumns::kAll;
    size_t folders = 0;
    if (!after || after->kind == NodeKind::kFolder) {
      NUBO_RETURN_IF_ERROR(t.ListChildrenInto(folder.id, NodeKind::kFolder, sort, descending, after,
                                              want, viewer, page.items, 0, columns));
      folders = page.items.size();
    }
    if (folders < want) {
      std::optional<meta::NodeCursor> file_after;
      if (after && after->kind == NodeKind::kFile) file_after = after;
      NUBO_RETURN_IF_ERROR(t.ListChildrenInto(folder.id, NodeKind::kFile, sort, descending,
                                              file_after, want - folders, viewer, page.items,
                                              folders, columns));
    }
    if (page.items.size() > limit) {
      page.items.resize(limit);
      page.next_cursor = EncodeCursor(tag, CursorOf(page.items.back(), sort));
    }
    if (columns == meta::ListColumns::kBasic) {
      // A node never changes drives (a move into another drive copies it),
      // so every member's drive is the folder's: none read per row.
      for (NodeRow& n : page.items) n.drive_id = folder.drive_id;
    }
    NUBO_RETURN_IF_ERROR(FillExtras(t, who, folder, options, page));
    page.folder = std::move(folder);
    return Status::Ok();
  }));
  if (!options.bare) {
    for (NodeRow& n : page.items) n.parent_public_id = std::string(folder_id);
  }
  return page;
}

Result<SyncBatch> Files::SyncChanges(const Principal& who, std::string_view folder_id,
                                     SyncPosition after, bool initial,
                                     std::optional<int64_t> through, size_t limit,
                                     ListOptions options) {
  const int64_t viewer = options.bare && !options.favorites ? 0 : who.user_id;
  SyncBatch b;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow folder, Access(t, who, folder_id, Want::kLive, Action::kList));
    if (!folder.folder()) return NodeNotFound();
    // Every change below a folder stamps it (Touch), removals included, so
    // its tree_seq covers its children's changes.
    b.through = through.value_or(folder.tree_seq);
    if (after.seq > folder.tree_seq) return Status::InvalidArgument("a sync token from the future");
    if (!initial) {
      NUBO_ASSIGN_OR_RETURN(int64_t floor, t.SyncFloor(folder.drive_id));
      if (after.seq < floor) {
        return Status::InvalidArgument("the sync token is older than the removals kept");
      }
    }
    NUBO_ASSIGN_OR_RETURN(
        b.page.items, t.ChangedChildren(folder.id, after.seq, after.id, b.through, limit, viewer));
    if (!initial) {
      NUBO_ASSIGN_OR_RETURN(b.removed, t.Tombstones(folder.id, after.seq, b.through, limit));
    }
    b.more = b.page.items.size() == limit || b.removed.size() == limit;
    // Merge by change number (a removal's is never a node's), at most
    // `limit` in all; what is left over comes in the next step.
    std::vector<NodeRow> items;
    std::vector<meta::TombstoneRow> removed;
    size_t i = 0, r = 0;
    while (b.order.size() < limit && (i < b.page.items.size() || r < b.removed.size())) {
      const bool take_removal =
          r < b.removed.size() &&
          (i == b.page.items.size() || b.removed[r].seq < b.page.items[i].tree_seq);
      b.order.push_back(take_removal);
      if (take_removal) {
        removed.push_back(std::move(b.removed[r++]));
      } else {
        items.push_back(std::move(b.page.items[i++]));
      }
    }
    if (i < b.page.items.size() || r < b.removed.size()) b.more = true;
    b.page.items = std::move(items);
    b.removed = std::move(removed);
    // A name that left and was taken again by a child reported here is
    // that child's now: its removal would only make the client drop what
    // it is about to be told of.
    for (size_t k = 0, kr = 0; k < b.order.size(); ++k) {
      if (!b.order[k]) continue;
      meta::TombstoneRow& gone = b.removed[kr++];
      NUBO_ASSIGN_OR_RETURN(auto now, t.FindChild(folder.id, NameKey(gone.name), 0));
      // (Only the same href: a file over a folder of that name is a removal
      // of "x/" and a new "x".)
      if (now && now->name == gone.name && now->folder() == gone.folder &&
          now->tree_seq > gone.seq && now->tree_seq <= b.through) {
        gone.name.clear();  // skipped by the caller
      }
    }
    NUBO_RETURN_IF_ERROR(FillExtras(t, who, folder, options, b.page));
    b.page.folder = std::move(folder);
    return Status::Ok();
  }));
  return b;
}

Result<meta::DriveRow> Files::DriveFor(meta::ReadTxn& t, const Principal& who,
                                       std::string_view drive_id, int action) {
  std::optional<meta::DriveRow> d;
  if (drive_id.empty()) {
    NUBO_ASSIGN_OR_RETURN(d, t.GetPersonalDrive(who.user_id));
    if (!d) return Status::NotFound("this account has no personal drive");
  } else {
    if (drive_id.size() > 64) return Status::NotFound("no such drive");
    NUBO_ASSIGN_OR_RETURN(d, t.GetDriveByPublicId(std::string(drive_id)));
    if (!d) return Status::NotFound("no such drive");
  }
  authz::Checker check(t, who);
  check.Know(*d);
  auto perms = check.OnDrive(d->id);
  // Hidden is "no such drive" for a drive named by id (like one that does not exist).
  if (!perms.ok()) return drive_id.empty() ? perms.status() : Status::NotFound("no such drive");
  if (!perms->Has(static_cast<Action>(action))) {
    return Status::PermissionDenied(std::string("you may not ") +
                                    authz::ActionName(static_cast<Action>(action)) + " here");
  }
  return std::move(*d);
}

Result<Page> Files::ListTrash(const Principal& who, std::string_view cursor, size_t limit,
                              std::string_view drive_id) {
  NUBO_ASSIGN_OR_RETURN(auto before, DecodePairCursor(cursor, "t1"));
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, DriveFor(t, who, drive_id, static_cast<int>(Action::kDelete)));
    NUBO_ASSIGN_OR_RETURN(page.items, t.ListTrash(d.id, before, limit + 1, who.user_id));
    return Status::Ok();
  }));
  if (page.items.size() > limit) {
    page.items.resize(limit);
    const NodeRow& last = page.items.back();
    page.next_cursor = EncodePairCursor("t1", last.trashed_at_ms.value_or(0), last.id);
  }
  return page;
}

Result<std::vector<int>> Files::ShareTypes(const Principal& who, const NodeRow& node) {
  std::vector<int> out;
  if (who.link() || !who.user_id) return out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto drive, t.GetDrive(node.drive_id));
    const int64_t by = drive && drive->owner_id == who.user_id ? 0 : who.user_id;
    NUBO_ASSIGN_OR_RETURN(auto kinds, t.ListShareTypes({node.id}, by, UnixMillis()));
    for (const auto& [id, kind] : kinds) out.push_back(kind);
    return Status::Ok();
  }));
  return out;
}

Result<std::pair<std::string, std::string>> Files::DriveOwner(int64_t drive_id) {
  std::pair<std::string, std::string> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto drive, t.GetDrive(drive_id));
    if (!drive || !drive->owner_id) return Status::Ok();
    NUBO_ASSIGN_OR_RETURN(auto user, t.GetUser(*drive->owner_id));
    if (user) {
      out.first = user->username;
      out.second = user->display_name.empty() ? user->username : user->display_name;
    }
    return Status::Ok();
  }));
  return out;
}

Result<authz::Perms> Files::PermsOn(const Principal& who, const NodeRow& node) {
  authz::Perms p;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(p, check.On(node));
    return Status::Ok();
  }));
  return p;
}

Result<authz::Perms> Files::PermsOnDrive(const Principal& who, int64_t drive_id) {
  authz::Perms p;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(p, check.OnDrive(drive_id));
    return Status::Ok();
  }));
  return p;
}

Status Files::SetFavorite(const Principal& who, std::string_view id, bool favorite) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kLive, Action::kRead));
    return favorite ? t.AddFavorite(who.user_id, n.id, UnixMillis())
                    : t.RemoveFavorite(who.user_id, n.id);
  });
}

namespace {

// Rows of a per-user list (favorites, recent) that the caller may still
// read: access can end after the row was written (and, with shares, will).
Status KeepReadable(meta::ReadTxn& t, const Principal& who, std::vector<NodeRow>& rows) {
  authz::Checker check(t, who);
  std::vector<NodeRow> kept;
  kept.reserve(rows.size());
  for (NodeRow& n : rows) {
    Status st = check.Require(n, Action::kRead);
    if (st.ok()) {
      kept.push_back(std::move(n));
    } else if (st.code() != Code::kNotFound && st.code() != Code::kPermissionDenied) {
      return st;
    }
  }
  rows = std::move(kept);
  return Status::Ok();
}

}  // namespace

Result<Page> Files::ListFavorites(const Principal& who, std::string_view cursor, size_t limit) {
  std::optional<int64_t> before;
  if (!cursor.empty()) {
    before = ParseInt64(cursor);
    if (!before) return Status::InvalidArgument("malformed cursor");
  }
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto rows, t.ListFavorites(who.user_id, before, limit + 1));
    if (rows.size() > limit) page.next_cursor = std::to_string(rows[limit - 1].first);
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
      page.items.push_back(std::move(rows[i].second));
    }
    return KeepReadable(t, who, page.items);
  }));
  return page;
}

void Files::NoteRecent(int64_t user, int64_t node_id) {
  if (user <= 0) return;  // a link's bearer or the operator: no account, no list
  std::lock_guard lock(recent_mu_);
  // Bounded: under a flood of downloads the oldest notes are the least
  // useful; recent is a convenience list, never a record.
  if (recent_.size() >= 10000) recent_.erase(recent_.begin());
  recent_.emplace_back(user, node_id);
}

Status Files::FlushRecent() {
  std::vector<std::pair<int64_t, int64_t>> batch;
  {
    std::lock_guard lock(recent_mu_);
    batch.swap(recent_);
  }
  if (batch.empty()) return Status::Ok();
  const int64_t now = UnixMillis();
  std::set<int64_t> users;
  for (const auto& [user, node] : batch) users.insert(user);
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    // A node deleted meanwhile is skipped by TouchRecent itself.
    for (const auto& [user, node] : batch) NUBO_RETURN_IF_ERROR(t.TouchRecent(user, node, now));
    for (int64_t user : users) NUBO_RETURN_IF_ERROR(t.TrimRecent(user, options_.recent_keep));
    return Status::Ok();
  });
}

Result<Page> Files::ListRecent(const Principal& who, size_t limit) {
  NUBO_RETURN_IF_ERROR(FlushRecent());
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(page.items,
                          t.ListRecent(who.user_id, std::min(limit, options_.recent_keep)));
    return KeepReadable(t, who, page.items);
  }));
  return page;
}

Result<std::vector<int64_t>> Files::SearchDrives(meta::ReadTxn& t, const Principal& who,
                                                 authz::Checker& check, bool with_shared) {
  NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(who.user_id));
  if (!d) return Status::NotFound("this account has no personal drive");
  check.Know(*d);
  NUBO_RETURN_IF_ERROR(check.RequireDrive(d->id, Action::kList));
  std::vector<int64_t> drives{d->id};
  NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, check.Groups());
  NUBO_ASSIGN_OR_RETURN(auto member, t.ListMemberDrives(who.user_id, *groups));
  for (const auto& [md, role] : member) drives.push_back(md.id);
  if (!with_shared) return drives;
  NUBO_ASSIGN_OR_RETURN(auto shared, t.ListSharedWith(who.user_id, *groups, UnixMillis(), 0, 1000));
  if (shared.empty()) return drives;
  // The shared nodes' drives, in the order they were shared, from one
  // statement (a search by someone a thousand things were shared with ran
  // a thousand lookups first).
  std::vector<int64_t> ids;
  ids.reserve(shared.size());
  for (const meta::SharedNode& sn : shared) ids.push_back(sn.node_id);
  NUBO_ASSIGN_OR_RETURN(auto nodes, t.GetNodes(ids, 0));
  std::unordered_map<int64_t, int64_t> drive_of;
  for (const NodeRow& n : nodes) drive_of.emplace(n.id, n.drive_id);
  for (const meta::SharedNode& sn : shared) {
    auto d = drive_of.find(sn.node_id);
    if (d != drive_of.end() && std::find(drives.begin(), drives.end(), d->second) == drives.end()) {
      drives.push_back(d->second);
    }
  }
  return drives;
}

Result<Page> Files::Search(const Principal& who, meta::SearchFilter filter, std::string_view query,
                           std::string_view cursor, size_t limit) {
  if (query.empty()) return Status::InvalidArgument("q must not be empty");
  if (query.size() > 4 * kMaxNameBytes) return Status::InvalidArgument("q is too long");
  filter.needle = NameKey(query);
  filter.name_match = search::TrigramPhrase(filter.needle);
  std::optional<std::pair<std::string, int64_t>> after;
  if (!cursor.empty()) {
    auto raw = HexDecode(cursor);
    auto parts = raw ? Split(*raw, '\n') : std::vector<std::string_view>{};
    std::optional<int64_t> id;
    // "s2\n<hex sort_key>\n<id>": results come in natural name order.
    std::optional<std::string> key;
    if (parts.size() == 3 && parts[0] == "s2") {
      id = ParseInt64(parts[2]);
      key = HexDecode(parts[1]);
    }
    if (!id || !key) return Status::InvalidArgument("malformed cursor");
    after = std::make_pair(std::move(*key), *id);
  }
  Page page;
  std::optional<NodeRow> resume;  // where the next page starts after
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check));
    // One keyset query per drive in the same (sort_key, id) order, merged:
    // ids are unique across drives, so the union pages like one listing.
    // Rows are safe to return only up to the first drive's last row when
    // that drive has more (beyond it, its next rows are unseen).
    auto before = [](const NodeRow& a, const NodeRow& b) {
      return a.sort_key != b.sort_key ? a.sort_key < b.sort_key : a.id < b.id;
    };
    std::vector<NodeRow> merged;
    std::optional<NodeRow> bound;
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.SearchNodes(drive, filter, after, limit + 1, who.user_id));
      if (rows.size() > limit) {
        rows.resize(limit);
        if (!bound || before(rows.back(), *bound)) bound = rows.back();
      }
      for (auto& r : rows) merged.push_back(std::move(r));
    }
    std::sort(merged.begin(), merged.end(), before);
    size_t examined = 0;
    size_t primed = 0;  // merged[0, primed): decided in one grant lookup a page
    for (; examined < merged.size() && page.items.size() < limit; ++examined) {
      NodeRow& n = merged[examined];
      if (bound && before(*bound, n)) break;
      if (examined == primed) {
        std::vector<const NodeRow*> next;
        for (; primed < merged.size() && next.size() < limit; ++primed) {
          next.push_back(&merged[primed]);
        }
        NUBO_RETURN_IF_ERROR(check.Prime(next));
      }
      resume = n;
      auto p = check.On(n);
      if (!p.ok() && p.status().code() != Code::kNotFound) return p.status();
      if (p.ok() && p->Has(Action::kRead)) page.items.push_back(std::move(n));
    }
    // More when a drive has rows beyond what was merged, or merged rows
    // were left unexamined.
    if (!bound && examined == merged.size()) resume.reset();
    return Status::Ok();
  }));
  // A page may hold fewer than `limit` results (what was examined but not
  // the caller's to see); next_cursor says whether to go on.
  if (resume) {
    std::string raw = "s2\n" + HexEncode(resume->sort_key.data(), resume->sort_key.size()) + "\n" +
                      std::to_string(resume->id);
    page.next_cursor = HexEncode(raw.data(), raw.size());
  }
  return page;
}

}  // namespace nubo::files

namespace nubo::files {

Result<Files::TextPage> Files::SearchContent(const Principal& who, std::string_view query,
                                             std::string_view cursor, size_t limit) {
  if (query.size() > 4 * kMaxNameBytes) return Status::InvalidArgument("q is too long");
  const std::string match = search::FtsQuery(query);
  if (match.empty()) return Status::InvalidArgument("q must not be empty");
  // "t1\n<rank as a hex float>\n<id>": results come best first.
  std::optional<std::pair<double, int64_t>> after;
  if (!cursor.empty()) {
    auto raw = HexDecode(cursor);
    auto parts = raw ? Split(*raw, '\n') : std::vector<std::string_view>{};
    std::optional<int64_t> id;
    double rank = 0;
    if (parts.size() == 3 && parts[0] == "t1") {
      std::string r(parts[1]);
      char* end = nullptr;
      rank = std::strtod(r.c_str(), &end);
      if (end && *end == '\0' && !r.empty()) id = ParseInt64(parts[2]);
    }
    if (!id) return Status::InvalidArgument("malformed cursor");
    after = std::make_pair(rank, *id);
  }
  TextPage page;
  std::optional<meta::TextHit> resume;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check));
    // One ranked walk over the matches of all the caller's drives (the
    // ranking costs a pass over every match; per drive it would cost that
    // once per drive).
    NUBO_ASSIGN_OR_RETURN(auto rows, t.SearchText(drives, match, after, limit + 1, who.user_id));
    const bool more = rows.size() > limit;
    if (more) rows.resize(limit);
    std::vector<const NodeRow*> hits;
    for (const meta::TextHit& h : rows) hits.push_back(&h.node);
    NUBO_RETURN_IF_ERROR(check.Prime(hits));
    std::vector<int64_t> ids;
    for (meta::TextHit& h : rows) {
      resume = h;
      auto p = check.On(h.node);
      if (!p.ok() && p.status().code() != Code::kNotFound) return p.status();
      if (p.ok() && p->Has(Action::kRead)) {
        ids.push_back(h.node.id);
        page.items.push_back({std::move(h.node), {}});
      }
    }
    if (!more) resume.reset();
    // Snippets from the words as typed first: a prefix query makes FTS5
    // merge every matching term's document list again for each row.
    NUBO_ASSIGN_OR_RETURN(auto snippets,
                          t.TextSnippets({search::FtsQuery(query, false), match}, ids));
    for (auto& [id, text] : snippets) {
      for (TextResult& r : page.items) {
        if (r.node.id == id) r.snippet = std::move(text);
      }
    }
    return Status::Ok();
  }));
  if (resume) {
    char rank[64];
    std::snprintf(rank, sizeof rank, "%a", resume->rank);
    std::string raw = std::string("t1\n") + rank + "\n" + std::to_string(resume->node.id);
    page.next_cursor = HexEncode(raw.data(), raw.size());
  }
  return page;
}

}  // namespace nubo::files

namespace nubo::files {

Result<Files::PhotoPage> Files::Photos(const Principal& who, std::string_view cursor,
                                       size_t limit) {
  // (taken_at, id): newest first.
  NUBO_ASSIGN_OR_RETURN(auto before, DecodePairCursor(cursor, "p1"));
  PhotoPage page;
  bool more = false;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check, false));
    // Every drive here is the caller's to read whole: one index range each,
    // merged newest first.
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.ListPhotos(drive, before, limit + 1, who.user_id));
      for (auto& [p, n] : rows) page.items.push_back({std::move(p), std::move(n)});
    }
    return Status::Ok();
  }));
  std::sort(page.items.begin(), page.items.end(), [](const PhotoItem& a, const PhotoItem& b) {
    return a.photo.taken_at_ms != b.photo.taken_at_ms ? a.photo.taken_at_ms > b.photo.taken_at_ms
                                                      : a.node.id > b.node.id;
  });
  if (page.items.size() > limit) {
    page.items.resize(limit);
    more = true;
  }
  if (more) {
    const PhotoItem& last = page.items.back();
    page.next_cursor = EncodePairCursor("p1", last.photo.taken_at_ms, last.node.id);
  }
  return page;
}

Result<std::vector<std::pair<std::string, int64_t>>> Files::PhotoMonths(const Principal& who) {
  std::map<std::string, int64_t, std::greater<>> months;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check, false));
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.PhotoMonths(drive));
      for (const auto& [m, n] : rows) months[m] += n;
    }
    return Status::Ok();
  }));
  return std::vector<std::pair<std::string, int64_t>>(months.begin(), months.end());
}

Result<std::vector<Files::PhotoPlace>> Files::PhotoPlaces(const Principal& who, double cell_deg) {
  if (!(cell_deg >= 0.0001 && cell_deg <= 90)) {
    return Status::InvalidArgument("cell must be 0.0001 to 90 degrees");
  }
  std::vector<PhotoPlace> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check, false));
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(auto cells, t.PhotoPlaces(drive, cell_deg));
      // The cells' covers in one statement (a fine grid over a library of
      // travels has thousands of cells).
      std::vector<int64_t> ids;
      ids.reserve(cells.size());
      for (const meta::PhotoPlace& c : cells) ids.push_back(c.cover_node_id);
      NUBO_ASSIGN_OR_RETURN(auto found, t.GetNodes(ids, who.user_id));
      std::unordered_map<int64_t, NodeRow> covers;
      for (NodeRow& n : found) covers.emplace(n.id, std::move(n));
      for (const meta::PhotoPlace& c : cells) {
        auto cover = covers.find(c.cover_node_id);
        if (cover == covers.end()) continue;
        out.push_back({c.lat, c.lon, c.count, std::move(cover->second)});
      }
    }
    return Status::Ok();
  }));
  return out;
}

}  // namespace nubo::files
