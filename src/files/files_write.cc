// Write side of the files domain: folders, uploads, rename/move, copy,
// trash, restore, permanent delete. Each operation is one metadata write
// transaction; the authorization decision (authz), WebDAV locks
// (files/locks.h), preconditions (Conditions), reference counts
// (content/refs.h), rollups (Touch) and quotas (CheckQuota) are all checked
// or changed inside it, next to the rows they describe.
#include <algorithm>

#include "content/ingest.h"
#include "content/refs.h"
#include "files/access.h"
#include "files/checksum.h"
#include "files/files.h"
#include "files/locks.h"
#include "files/mime.h"
#include "files/names.h"
#include "files/upload_sessions.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeKind;
using meta::NodeRow;

namespace {

// New content queues a derive job (migration 0014's triggers); one that
// cannot do anything for this file is dropped in the same transaction,
// so that a folder of archives or binaries costs the job queue nothing.
// SQLite's triggers ask the same question first (migration 0032) and
// queue none, so there the delete finds no row; PostgreSQL's queue every
// file.
Status DropUnwantedDerive(meta::WriteTxn& t, const FilesOptions& o, const NodeRow& n) {
  if (!o.derive_wanted || o.derive_wanted(n.name, n.mime)) return Status::Ok();
  return t.DropJob("derive", n.id);
}

// The one place a node takes a name: the lookup and listing keys follow.
void SetName(NodeRow& n, std::string name) {
  n.name_key = NameKey(name);
  n.sort_key = SortKey(name);
  n.name = std::move(name);
}

NodeRow NewChild(const NodeRow& parent, std::string name, NodeKind kind, int64_t user,
                 int64_t now) {
  NodeRow n;
  n.public_id = NewUuidV7();
  n.drive_id = parent.drive_id;
  n.parent_id = parent.id;
  SetName(n, std::move(name));
  n.kind = kind;
  n.mime = kind == NodeKind::kFolder ? "inode/directory" : "application/octet-stream";
  n.mtime_ms = n.ctime_ms = now;
  n.created_by = n.updated_by = user;
  return n;
}

Result<NodeRow> Reload(meta::ReadTxn& t, int64_t id, int64_t user) {
  NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(id, user));
  if (!n) return Status::Internal("node vanished inside its transaction");
  return std::move(*n);
}

// A unique-index clash that slipped past PlaceName (it cannot inside one
// write transaction, but the index is the last word).
Status NameTaken(const Status& st, const std::string& name) {
  if (st.code() == Code::kAlreadyExists) {
    return Status::AlreadyExists("\"" + name + "\" already exists in this folder");
  }
  return st;
}

// True when `ancestor` is `n` or one of its ancestors.
Result<bool> IsAncestorOrSelf(meta::ReadTxn& t, int64_t ancestor, int64_t n) {
  NUBO_ASSIGN_OR_RETURN(auto chain, t.Ancestors(n));
  for (const NodeRow& a : chain) {
    if (a.id == ancestor) return true;
  }
  return false;
}

// Trash budget (quota users only): trashed bytes are on the disk, so
// they may take at most half of what the quota leaves free; beyond that
// the oldest trashed items go for good, at most `max_items` per call.
// (The rule Nextcloud uses; documented in the README.)
Status TrimTrash(meta::WriteTxn& t, int64_t drive_id, size_t max_items);

}  // namespace

// Deletes the subtree of `n` for good inside `t`: releases one manifest
// reference per file row, then removes the rows (and the locks on them).
// Items the user trashed on their own from inside it earlier are not part
// of this delete: they stay in the trash, moved under the drive root
// (where a restore puts them).
static Status DeleteTree(meta::WriteTxn& t, const NodeRow& n) {
  const int64_t now = UnixMillis();
  if (n.live()) NUBO_RETURN_IF_ERROR(DropNodeLocks(t, n));
  if (n.live() && n.parent_id) {
    NUBO_RETURN_IF_ERROR(LeaveTombstone(t, n));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, *n.parent_id, -static_cast<int64_t>(n.size)));
  }
  NUBO_ASSIGN_OR_RETURN(auto inner, t.InnerTrashRoots(n.id));
  if (!inner.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(n.drive_id));
    if (!d) return Status::Internal("drive vanished");
    for (int64_t id : inner) {
      NUBO_ASSIGN_OR_RETURN(auto item, t.GetNode(id, 0));
      if (!item) return Status::Internal("trashed item vanished");
      item->parent_id = d->root_id;
      item->trash_parent = d->root_id;
      NUBO_RETURN_IF_ERROR(t.UpdateNode(*item));
    }
  }
  NUBO_ASSIGN_OR_RETURN(auto manifests, t.SubtreeManifests(n.id));
  NUBO_RETURN_IF_ERROR(t.DeleteSubtree(n.id).status());
  for (int64_t m : manifests) NUBO_RETURN_IF_ERROR(content::ReleaseManifest(t, m, now));
  return Status::Ok();
}

// Moves live node `n` to the trash inside `t` (its locks go with it).
static Status TrashNode(meta::WriteTxn& t, NodeRow n, int64_t user) {
  if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be trashed");
  NUBO_RETURN_IF_ERROR(DropNodeLocks(t, n));
  NUBO_RETURN_IF_ERROR(LeaveTombstone(t, n));
  n.trashed_at_ms = UnixMillis();
  n.trash_parent = n.parent_id;
  n.updated_by = user;
  NUBO_RETURN_IF_ERROR(t.UpdateNode(n));
  NUBO_RETURN_IF_ERROR(t.MarkSubtreeTrashed(n.id));
  return Touch(t, n.drive_id, *n.parent_id, -static_cast<int64_t>(n.size));
}

namespace {

Status TrimTrash(meta::WriteTxn& t, int64_t drive_id, size_t max_items) {
  NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(drive_id));
  if (!d) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto quota, DriveQuota(t, *d));
  if (!quota) return Status::Ok();
  for (size_t purged = 0; purged < max_items;) {
    NUBO_ASSIGN_OR_RETURN(d, t.GetDrive(drive_id));
    NUBO_ASSIGN_OR_RETURN(int64_t used, DriveUsage(t, *d));
    NUBO_ASSIGN_OR_RETURN(int64_t trashed, t.TrashBytes(drive_id));
    const int64_t budget = std::max<int64_t>(0, *quota - used) / 2;
    if (trashed <= budget) return Status::Ok();
    NUBO_ASSIGN_OR_RETURN(auto oldest, t.ListOldestTrash(drive_id, 16));
    if (oldest.empty()) return Status::Ok();
    for (const NodeRow& n : oldest) {
      if (trashed <= budget || purged >= max_items) break;
      NUBO_RETURN_IF_ERROR(DeleteTree(t, n));
      trashed -= static_cast<int64_t>(n.size);
      ++purged;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<NodeRow> Files::CreateFolder(const Principal& who, std::string_view parent_id,
                                    std::string_view name, Conflict conflict,
                                    const Conditions& cond) {
  if (who.file_drop()) return Status::PermissionDenied("a file drop takes files only");
  NUBO_ASSIGN_OR_RETURN(std::string valid, ValidateName(name));
  if (conflict == Conflict::kOverwrite || conflict == Conflict::kReplace) {
    return Status::InvalidArgument("conflict=overwrite does not apply to folders");
  }
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, who, parent_id, Action::kCreate));
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, parent));
    NUBO_ASSIGN_OR_RETURN(std::string final_name,
                          PlaceName(t, parent, valid, true, conflict, nullptr));
    NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, parent, final_name, cond.lock_tokens));
    NodeRow n = NewChild(parent, final_name, NodeKind::kFolder, who.user_id, UnixMillis());
    NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(n), final_name));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, n.id, 0));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, n.id, who.user_id));
    return Status::Ok();
  }));
  return out;
}

Result<std::string> Files::EnsureFolders(const Principal& who, std::string_view parent_id,
                                         std::string_view rel_path) {
  if (who.file_drop()) return Status::PermissionDenied("a file drop takes files only");
  std::vector<std::string> names;
  for (std::string_view seg : Split(rel_path, '/')) {
    if (seg.empty()) continue;
    NUBO_ASSIGN_OR_RETURN(std::string valid, ValidateName(seg));
    names.push_back(std::move(valid));
  }
  if (names.size() > kMaxDepth) return Status::InvalidArgument("the path is too deep");
  std::string current(parent_id);
  if (names.empty()) return current;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, who, parent_id, Action::kCreate));
    authz::Checker check(t, who);
    for (const std::string& name : names) {
      NUBO_ASSIGN_OR_RETURN(auto hit, t.FindChild(parent.id, NameKey(name), who.user_id));
      if (hit) {
        if (!hit->folder()) return Status::Conflict("\"" + name + "\" is a file, not a folder");
        NUBO_RETURN_IF_ERROR(check.Require(*hit, Action::kCreate));
        parent = std::move(*hit);
        continue;
      }
      NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, parent, name, {}));
      NodeRow n = NewChild(parent, name, NodeKind::kFolder, who.user_id, UnixMillis());
      NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(n), name));
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, n.id, 0));
      NUBO_ASSIGN_OR_RETURN(parent, Reload(t, n.id, who.user_id));
    }
    current = parent.public_id;
    return Status::Ok();
  }));
  return current;
}

Result<UploadResult> Files::AttachFile(meta::WriteTxn& t, const Principal& who,
                                       const UploadRequest& req, int64_t manifest_id, uint64_t size,
                                       const std::string& mime, int64_t reservation) {
  NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, who, req.parent_id, Action::kCreate));
  std::optional<NodeRow> existing;
  NUBO_ASSIGN_OR_RETURN(std::string name,
                        PlaceName(t, parent, req.name, false, req.conflict, &existing));
  const int64_t now = UnixMillis();
  UploadResult out;
  if (existing) {  // kOverwrite onto a live sibling
    if (existing->folder()) {
      return Status::Conflict("\"" + name + "\" is a folder; a file cannot replace it");
    }
    NUBO_RETURN_IF_ERROR(authz::Check(t, who, *existing, Action::kModify));
    if (req.if_match && !IfMatchMatches(*req.if_match, NodeETag(*existing))) {
      return Status::PreconditionFailed("If-Match does not match the current version");
    }
    NUBO_RETURN_IF_ERROR(CheckExpected(req.cond, *existing));
    NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, *existing, false, false, req.cond.lock_tokens));
    const int64_t delta = static_cast<int64_t>(size) - static_cast<int64_t>(existing->size);
    const int64_t old_manifest = *existing->manifest_id;
    // The content it replaces stays as a version (files/versions.h).
    bool kept = false;
    if (old_manifest != manifest_id) {
      NUBO_ASSIGN_OR_RETURN(kept, KeepVersion(t, *existing, manifest_id, delta, reservation));
    }
    NUBO_RETURN_IF_ERROR(CheckQuota(t, parent.drive_id, delta, reservation));
    NodeRow n = *existing;
    n.manifest_id = manifest_id;
    n.size = size;
    n.mime = mime;
    n.mtime_ms = req.mtime_ms.value_or(now);
    n.updated_by = who.user_id;
    // One change number for the file and its folders (sync-collection
    // needs the file's; the rollups the folders').
    NUBO_RETURN_IF_ERROR(Stamp(t, n));
    NUBO_RETURN_IF_ERROR(t.UpdateNode(n));
    NUBO_RETURN_IF_ERROR(DropUnwantedDerive(t, options_, n));
    if (!kept) NUBO_RETURN_IF_ERROR(content::ReleaseManifest(t, old_manifest, now));
    NUBO_RETURN_IF_ERROR(t.BumpAncestors(parent.id, n.tree_seq, delta));
    NUBO_ASSIGN_OR_RETURN(out.node, Reload(t, n.id, who.user_id));
    out.created = false;
    return out;
  }
  if (req.if_match && *req.if_match != "*") {
    // RFC 9110 §13.1.1: If-Match on a resource that does not exist fails.
    return Status::PreconditionFailed("If-Match given but \"" + name + "\" does not exist");
  }
  NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, parent, name, req.cond.lock_tokens));
  NUBO_RETURN_IF_ERROR(CheckQuota(t, parent.drive_id, static_cast<int64_t>(size), reservation));
  NodeRow n = NewChild(parent, name, NodeKind::kFile, who.user_id, now);
  n.manifest_id = manifest_id;
  n.size = size;
  n.mime = mime;
  n.mtime_ms = req.mtime_ms.value_or(now);
  NUBO_RETURN_IF_ERROR(Stamp(t, n));
  NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(n), name));
  NUBO_RETURN_IF_ERROR(DropUnwantedDerive(t, options_, n));
  NUBO_RETURN_IF_ERROR(t.BumpAncestors(parent.id, n.tree_seq, static_cast<int64_t>(size)));
  // The row as GetNode would read it, without reading it back (a round trip
  // under PostgreSQL's writer lock): a new id is nobody's favorite and a
  // file has no children.
  n.parent_public_id = parent.public_id;
  out.node = std::move(n);
  out.created = true;
  return out;
}

Status Files::CheckFreeSpace(uint64_t extra) {
  if (options_.min_free_bytes == 0) return Status::Ok();
  auto free = chunks_.FreeBytes();
  if (!free) return Status::Ok();
  if (*free < extra || *free - extra < options_.min_free_bytes) {
    return Status::QuotaExceeded("the server's disk is nearly full (storage.min_free keeps " +
                                 std::to_string(options_.min_free_bytes) +
                                 " bytes free); try again later");
  }
  return Status::Ok();
}

Result<int64_t> Files::Reserve(int64_t drive_id, int64_t reservation_id, int64_t bytes, bool check,
                               int64_t expires_at_ms, int64_t ending) {
  int64_t id = reservation_id;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    if (check) NUBO_RETURN_IF_ERROR(CheckQuota(t, drive_id, bytes - ending, reservation_id));
    const int64_t expires =
        expires_at_ms ? expires_at_ms : UnixMillis() + options_.reservation_ttl_ms;
    if (reservation_id == 0) {
      NUBO_ASSIGN_OR_RETURN(id, t.InsertReservation(drive_id, bytes, expires));
      return Status::Ok();
    }
    return t.UpdateReservation(reservation_id, bytes, expires);
  }));
  return id;
}

void Files::Unreserve(int64_t reservation_id) {
  if (reservation_id == 0) return;
  (void)meta_.Write([&](meta::WriteTxn& t) { return t.DeleteReservation(reservation_id); });
}

// One file's bytes on their way in. When the drive's owner has a quota,
// the upload holds a reservation (quota_reservations) for the bytes it
// declared, or — without a declared length — for what it has received
// plus a step, grown as bytes arrive: the upload stops with 507 as soon as
// the quota cannot hold the next step, having stored at most one step more
// than the quota allows. The commit replaces the reservation by the file
// in one transaction; a refused or abandoned upload drops it and deletes
// its unreferenced chunks at once.
class IngestUpload final : public Upload {
 public:
  // `credit`: bytes the commit releases (the file it overwrites), which
  // the reservation need not hold again.
  IngestUpload(Files& files, Principal who, UploadRequest req, std::unique_ptr<Checksum> checksum,
               int64_t drive_id, int64_t reservation_id, int64_t reserved, bool quota,
               int64_t credit)
      : files_(files),
        who_(std::move(who)),
        req_(std::move(req)),
        checksum_(std::move(checksum)),
        ingest_(files.chunks()),
        drive_id_(drive_id),
        reservation_id_(reservation_id),
        reserved_(reserved),
        quota_(quota),
        credit_(credit),
        refreshed_ms_(UnixMillis()) {
    ingest_.InlineUpTo(files.options().inline_max_bytes);
  }

  ~IngestUpload() override { Abort(); }

  // Refused or abandoned: the reservation goes, and so do the chunks only
  // this upload stored (at once, not after the GC grace). Runs where the
  // transport aborts a body (the blocking pool).
  void Abort() override {
    if (done_) return;
    done_ = true;
    if (!committed_) ingest_.Discard(files_.meta());
    files_.Unreserve(reservation_id_);
    reservation_id_ = 0;
  }

  Status Write(const char* data, size_t len) override {
    bytes_ += len;
    const uint64_t max = files_.options().max_upload;
    if (max && bytes_ > max) {
      return Status::TooLarge("file is larger than the server's upload limit of " +
                              std::to_string(max) + " bytes");
    }
    if (req_.expected_size && bytes_ > *req_.expected_size) {
      return Status::InvalidArgument("body longer than announced");
    }
    NUBO_RETURN_IF_ERROR(Budget());
    if (head_.size() < kHeadBytes) head_.append(data, std::min(len, kHeadBytes - head_.size()));
    if (checksum_) checksum_->Update(data, len);
    return ingest_.Write(data, len);
  }

  Result<UploadResult> Finish() override {
    auto draft_or = ingest_.Finish();
    if (draft_or.ok() && checksum_) {
      if (Status st = checksum_->Verify(draft_or->hash); !st.ok()) draft_or = st;
    }
    if (!draft_or.ok()) {
      Abort();
      return draft_or.status();
    }
    const content::ManifestDraft& draft = *draft_or;
    const std::string mime = DetectMime(req_.name, head_);
    UploadResult out;
    auto id = content::CommitManifest(
        files_.meta(), files_.chunks(), draft,
        [&](meta::WriteTxn& t, int64_t manifest_id) -> Status {
          auto r = files_.AttachFile(t, who_, req_, manifest_id, draft.size, mime, reservation_id_);
          if (!r.ok()) return r.status();
          out = std::move(*r);
          if (checksum_) NUBO_RETURN_IF_ERROR(KeepChecksum(t, manifest_id, *checksum_));
          // The file now counts itself: its reservation ends with it.
          if (reservation_id_) NUBO_RETURN_IF_ERROR(t.DeleteReservation(reservation_id_));
          return Status::Ok();
        });
    if (!id.ok()) {
      Abort();
      return id.status();
    }
    committed_ = true;
    done_ = true;
    reservation_id_ = 0;
    files_.NoteRecent(who_.user_id, out.node.id);
    return out;
  }

 private:
  static constexpr size_t kHeadBytes = 4096;  // what MIME sniffing looks at
  static constexpr uint64_t kStep = 8 << 20;  // reservation growth without a declared length
  static constexpr uint64_t kFreeCheckEvery = 16 << 20;
  static constexpr int64_t kRefreshMs = 60'000;

  // Keeps the upload within the quota (reservation) and the disk floor.
  Status Budget() {
    if (bytes_ >= next_free_check_) {
      next_free_check_ = bytes_ + kFreeCheckEvery;
      NUBO_RETURN_IF_ERROR(files_.CheckFreeSpace(kFreeCheckEvery));
    }
    if (!quota_) return Status::Ok();
    const int64_t now = UnixMillis();
    const int64_t need = static_cast<int64_t>(bytes_) - credit_;  // beyond what the commit frees
    if (need <= reserved_) {
      if (now - refreshed_ms_ < kRefreshMs) return Status::Ok();
      refreshed_ms_ = now;  // a long upload keeps its reservation alive
      return files_.Reserve(drive_id_, reservation_id_, reserved_, /*check=*/false).status();
    }
    // Grow by a step, or to what the quota still holds.
    const int64_t want = need + static_cast<int64_t>(kStep);
    auto grown = files_.Reserve(drive_id_, reservation_id_, want);
    if (!grown.ok() && grown.status().code() == Code::kQuotaExceeded) {
      grown = files_.Reserve(drive_id_, reservation_id_, need);
      if (grown.ok()) {
        reservation_id_ = *grown;
        reserved_ = need;
        refreshed_ms_ = now;
        return Status::Ok();
      }
    }
    if (!grown.ok()) return grown.status();
    reservation_id_ = *grown;
    reserved_ = want;
    refreshed_ms_ = now;
    return Status::Ok();
  }

  Files& files_;
  Principal who_;
  UploadRequest req_;
  std::unique_ptr<Checksum> checksum_;
  content::Ingest ingest_;
  int64_t drive_id_;
  int64_t reservation_id_;
  int64_t reserved_;
  bool quota_;
  int64_t credit_;
  int64_t refreshed_ms_;
  uint64_t bytes_ = 0;
  uint64_t next_free_check_ = kFreeCheckEvery;
  bool committed_ = false;
  bool done_ = false;
  std::string head_;
};

Result<Files::UploadTarget> Files::CheckUploadTarget(const Principal& who,
                                                     const UploadRequest& req) {
  UploadTarget out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, who, req.parent_id, Action::kCreate));
    out.drive_id = parent.drive_id;
    std::optional<NodeRow> existing;
    NUBO_ASSIGN_OR_RETURN(std::string name,
                          PlaceName(t, parent, req.name, false, req.conflict, &existing));
    if (existing) {
      if (existing->folder()) {
        return Status::Conflict("\"" + existing->name + "\" is a folder; a file cannot replace it");
      }
      NUBO_RETURN_IF_ERROR(authz::Check(t, who, *existing, Action::kModify));
      if (req.if_match && !IfMatchMatches(*req.if_match, NodeETag(*existing))) {
        return Status::PreconditionFailed("If-Match does not match the current version");
      }
      NUBO_RETURN_IF_ERROR(CheckExpected(req.cond, *existing));
      NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, *existing, false, false, req.cond.lock_tokens));
      out.credit = static_cast<int64_t>(existing->size);
    } else {
      if (req.if_match && *req.if_match != "*") {
        return Status::PreconditionFailed("If-Match given but \"" + req.name + "\" does not exist");
      }
      NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, parent, name, req.cond.lock_tokens));
    }
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(out.drive_id));
    if (d) {
      NUBO_ASSIGN_OR_RETURN(auto q, DriveQuota(t, *d));
      out.quota = q.has_value();
    }
    return Status::Ok();
  }));
  return out;
}

Result<std::unique_ptr<Upload>> Files::BeginUpload(const Principal& who, UploadRequest req) {
  NUBO_ASSIGN_OR_RETURN(req.name, ValidateName(req.name));
  // A file drop never replaces (nor learns of) a file, whatever surface it
  // came through: its uploads get a free name.
  if (who.file_drop()) {
    req.conflict = Conflict::kRename;
    req.if_match.reset();
  }
  std::unique_ptr<Checksum> checksum;
  if (!req.checksum.empty()) {
    NUBO_ASSIGN_OR_RETURN(checksum, Checksum::Parse(req.checksum));
  }
  if (options_.max_upload && req.expected_size && *req.expected_size > options_.max_upload) {
    return Status::TooLarge("file is larger than the server's upload limit of " +
                            std::to_string(options_.max_upload) + " bytes");
  }
  NUBO_RETURN_IF_ERROR(CheckFreeSpace(req.expected_size.value_or(0)));
  // Early answers (before "100 Continue"): the commit re-checks all of it.
  // A body already received gains nothing from them (a read transaction,
  // seven statements on PostgreSQL, per upload): then the upload holds no
  // drive, credit or quota reservation, and the commit's checks decide.
  UploadTarget target;
  if (!req.body_in_hand) {
    NUBO_ASSIGN_OR_RETURN(target, CheckUploadTarget(who, req));
  }
  const int64_t drive_id = target.drive_id, credit = target.credit;
  const bool quota = target.quota;
  // The quota holds the declared length (or a first step) from now on.
  int64_t reservation = 0, reserved = 0;
  if (quota) {
    reserved = std::max<int64_t>(0, static_cast<int64_t>(req.expected_size.value_or(0)) - credit);
    NUBO_ASSIGN_OR_RETURN(reservation, Reserve(drive_id, 0, reserved));
  }
  return std::unique_ptr<Upload>(new IngestUpload(*this, who, std::move(req), std::move(checksum),
                                                  drive_id, reservation, reserved, quota, credit));
}

Result<UploadResult> Files::InstantUpload(const Principal& who, const UploadRequest& in,
                                          const meta::Digest& hash) {
  UploadRequest req = in;
  NUBO_ASSIGN_OR_RETURN(req.name, ValidateName(req.name));
  const std::string mime = DetectMime(req.name, "");
  UploadResult out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(who.user_id));
    if (!d) return Status::NotFound("this account has no personal drive");
    NUBO_RETURN_IF_ERROR(authz::Checker(t, who).RequireDrive(d->id, Action::kRead));
    // Only content the caller owns: answering for anyone's content would
    // reveal whether some other user stores a given file.
    NUBO_ASSIGN_OR_RETURN(auto manifest_id, t.FindDriveManifest(d->id, hash));
    if (!manifest_id) return Status::NotFound("none of your files has this content; upload it");
    NUBO_ASSIGN_OR_RETURN(auto m, t.GetManifest(*manifest_id));
    if (!m) return Status::Internal("manifest vanished");
    if (req.expected_size && *req.expected_size != m->size) {
      return Status::InvalidArgument("size " + std::to_string(*req.expected_size) +
                                     " does not match the content's size " +
                                     std::to_string(m->size));
    }
    NUBO_RETURN_IF_ERROR(content::AddManifestRef(t, m->id));
    NUBO_ASSIGN_OR_RETURN(out, AttachFile(t, who, req, m->id, m->size, mime));
    return Status::Ok();
  }));
  NoteRecent(who.user_id, out.node.id);
  return out;
}

Result<FileContent> Files::OpenContent(const Principal& who, std::string_view id,
                                       bool want_checksums) {
  FileContent fc;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(fc.node, Access(t, who, id, Want::kLive, Action::kRead));
    if (fc.node.folder()) return Status::InvalidArgument("\"" + fc.node.name + "\" is a folder");
    NUBO_ASSIGN_OR_RETURN(fc.chunks, t.ManifestChunks(*fc.node.manifest_id));
    if (want_checksums) {
      NUBO_ASSIGN_OR_RETURN(fc.checksums, t.ManifestChecksums(*fc.node.manifest_id));
    }
    return Status::Ok();
  }));
  return fc;
}

Result<std::string> Files::ContentChecksums(int64_t manifest_id) {
  std::string out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out, t.ManifestChecksums(manifest_id));
    return Status::Ok();
  }));
  return out;
}

namespace {

// kReplace: the live sibling holding the destination name goes to the
// trash inside the caller's transaction (RFC 4918 §9.8.4 / §9.9.3: as if
// DELETE), after its own authorization and lock checks. Refused when it is
// the source or holds the source (replacing it would delete the source).
Status ReplaceExisting(meta::WriteTxn& t, const Principal& who, const NodeRow& existing,
                       const NodeRow& src, const Conditions& cond) {
  NUBO_ASSIGN_OR_RETURN(bool holds_src, IsAncestorOrSelf(t, existing.id, src.id));
  if (holds_src) return Status::Conflict("the destination contains the source");
  NUBO_RETURN_IF_ERROR(authz::Check(t, who, existing, Action::kDelete));
  NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, existing, true, true, cond.lock_tokens));
  return TrashNode(t, existing, who.user_id);
}

// Copies `src` (with its members unless `shallow`) into folder `dest` as
// `as`, inside `t`: rows, not bytes (ARCHITECTURE.md §4.4) — each file row
// takes one more reference on its manifest, in any drive. Charges nothing
// and bumps nothing: the caller checks the quota and bumps `dest`'s
// ancestors with `seq`. Depth-first with an explicit stack.
Result<NodeRow> CloneInto(meta::WriteTxn& t, const Principal& who, const NodeRow& src,
                          const NodeRow& dest, const std::string& as, bool shallow, int64_t seq) {
  const int64_t now = UnixMillis();
  auto clone = [&](const NodeRow& from, const NodeRow& to_parent,
                   const std::string& name) -> Result<NodeRow> {
    NodeRow c = NewChild(to_parent, name, from.kind, who.user_id, now);
    c.manifest_id = from.manifest_id;
    c.size = from.size;
    c.mime = from.mime;
    c.mtime_ms = from.mtime_ms;
    c.tree_seq = seq;
    if (c.manifest_id) NUBO_RETURN_IF_ERROR(content::AddManifestRef(t, *c.manifest_id));
    if (shallow && !c.manifest_id) c.size = 0;  // a folder without its members
    NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(c), name));
    NUBO_RETURN_IF_ERROR(t.CopyDeadProps(from.id, c.id));
    return c;
  };
  NUBO_ASSIGN_OR_RETURN(NodeRow top, clone(src, dest, as));
  std::vector<std::pair<int64_t, NodeRow>> stack;  // (source folder id, its copy)
  if (src.folder() && !shallow) stack.emplace_back(src.id, top);
  while (!stack.empty()) {
    auto [from_id, to] = std::move(stack.back());
    stack.pop_back();
    int64_t after = 0;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(auto kids, t.ListChildrenById(from_id, after, 500, false));
      if (kids.empty()) break;
      after = kids.back().id;
      for (const NodeRow& k : kids) {
        NUBO_ASSIGN_OR_RETURN(NodeRow c, clone(k, to, k.name));
        if (k.folder()) stack.emplace_back(k.id, c);
      }
    }
  }
  return top;
}

// Copies `src` into folder `dest` as `name` inside `t`, as COPY does: the
// name placed by `conflict` (an existing node replaced goes to the trash),
// locks at the destination checked, the destination drive's quota charged.
// Returns the copy's top node.
Result<NodeRow> CopyInto(meta::WriteTxn& t, const Principal& who, const NodeRow& src,
                         const NodeRow& dest, const std::string& name, Conflict conflict,
                         bool shallow, const Conditions& cond) {
  std::optional<NodeRow> existing;
  NUBO_ASSIGN_OR_RETURN(std::string final_name,
                        PlaceName(t, dest, name, src.folder(), conflict, &existing));
  if (existing) {
    NUBO_RETURN_IF_ERROR(ReplaceExisting(t, who, *existing, src, cond));
  } else {
    NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, dest, final_name, cond.lock_tokens));
  }
  const int64_t bytes = shallow && src.folder() ? 0 : static_cast<int64_t>(src.size);
  NUBO_ASSIGN_OR_RETURN(int64_t src_props, t.DeadPropsBytes(src.id));
  NUBO_RETURN_IF_ERROR(CheckQuota(t, dest.drive_id, bytes + src_props));
  NUBO_ASSIGN_OR_RETURN(int64_t seq, t.NextChangeSeq(dest.drive_id));
  NUBO_ASSIGN_OR_RETURN(NodeRow top, CloneInto(t, who, src, dest, final_name, shallow, seq));
  NUBO_RETURN_IF_ERROR(t.BumpAncestors(dest.id, seq, bytes));
  // The members' properties were counted by the copy itself: the whole
  // must still fit now that they are known.
  NUBO_RETURN_IF_ERROR(CheckQuotaHolds(t, dest.drive_id));
  if (existing) NUBO_RETURN_IF_ERROR(TrimTrash(t, dest.drive_id, 100));
  return top;
}

// A move into another drive (a received share to one's own files, one's
// files into a shared drive): a node cannot change drives (its drive's
// paths, quota and trash are its own), so the subtree is copied into the
// destination by reference and the source goes to its own drive's trash
// (recoverable there, as a delete through a share is), both inside `t`:
// either both happen or neither. The copy has new ids (Nextcloud's clients
// expect that of a move across storages), no versions and no locks.
Result<NodeRow> MoveAcross(meta::WriteTxn& t, const Principal& who, const NodeRow& n,
                           const NodeRow& dest, const std::string& name, Conflict conflict,
                           const Conditions& cond) {
  NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, n, true, true, cond.lock_tokens));
  NUBO_ASSIGN_OR_RETURN(NodeRow copy, CopyInto(t, who, n, dest, name, conflict, false, cond));
  NUBO_RETURN_IF_ERROR(TrashNode(t, n, who.user_id));
  NUBO_RETURN_IF_ERROR(TrimTrash(t, n.drive_id, 100));
  return Reload(t, copy.id, who.user_id);
}

}  // namespace

Result<NodeRow> Files::Update(const Principal& who, std::string_view id,
                              std::optional<std::string> name, std::optional<std::string> parent_id,
                              Conflict conflict, const Conditions& cond) {
  if (conflict == Conflict::kOverwrite) {
    return Status::InvalidArgument("conflict=overwrite is not supported for rename or move");
  }
  if (name) {
    NUBO_ASSIGN_OR_RETURN(*name, ValidateName(*name));
  }
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    bool replaced = false;  // of this run: a write may run again
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kLive, Action::kRead));
    if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be renamed or moved");
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, n));
    NUBO_ASSIGN_OR_RETURN(auto old_parent, t.GetNode(*n.parent_id, who.user_id));
    if (!old_parent) return Status::Internal("parent vanished");
    NodeRow dest = *old_parent;
    const bool moving = parent_id && *parent_id != old_parent->public_id;
    // Moving away removes the node from its folder (delete there, create
    // in the destination); a rename in place modifies it and changes where
    // it is found, so it also needs delete (a share's recipient may not
    // rename the shared item itself in its owner's tree).
    authz::Checker check(t, who);
    const bool renaming = name && *name != n.name;
    NUBO_RETURN_IF_ERROR(check.Require(n, moving ? Action::kDelete : Action::kModify));
    if (renaming) NUBO_RETURN_IF_ERROR(check.Require(n, Action::kDelete));
    if (moving) {
      NUBO_ASSIGN_OR_RETURN(dest, AccessFolder(t, who, *parent_id, Action::kCreate));
      if (dest.drive_id != n.drive_id) {
        NUBO_ASSIGN_OR_RETURN(out,
                              MoveAcross(t, who, n, dest, name ? *name : n.name, conflict, cond));
        return Status::Ok();
      }
      // Cycle check (ARCHITECTURE.md §4.5): the destination must not be the
      // node or lie below it.
      NUBO_ASSIGN_OR_RETURN(bool cycle, IsAncestorOrSelf(t, n.id, dest.id));
      if (cycle)
        return Status::Conflict("cannot move a folder into itself or one of its subfolders");
    }
    const std::string new_name = name ? *name : n.name;
    std::optional<NodeRow> existing;
    NUBO_ASSIGN_OR_RETURN(std::string final_name,
                          PlaceName(t, dest, new_name, n.folder(), conflict, &existing, n.id));
    // The source leaves its place (its locks must be submitted, and go),
    // and arrives in the destination folder.
    NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, n, true, true, cond.lock_tokens));
    if (existing && existing->id != n.id) {
      NUBO_RETURN_IF_ERROR(ReplaceExisting(t, who, *existing, n, cond));
      replaced = true;
    } else {
      NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, dest, final_name, cond.lock_tokens));
    }
    // §9.9.1: locks do not move with the resource.
    NUBO_RETURN_IF_ERROR(DropNodeLocks(t, n));
    const bool moved = dest.id != old_parent->id;
    if (moved || final_name != n.name) NUBO_RETURN_IF_ERROR(LeaveTombstone(t, n));
    const std::string old_name = n.name;
    SetName(n, final_name);
    n.parent_id = dest.id;
    n.updated_by = who.user_id;
    NUBO_RETURN_IF_ERROR(Stamp(t, n));
    NUBO_RETURN_IF_ERROR(NameTaken(t.UpdateNode(n), final_name));
    // A file renamed into a type the derive job reads (a download's
    // "x.txt.part" becoming "x.txt") is read now.
    if (!n.folder() && options_.derive_wanted && options_.derive_wanted(n.name, n.mime) &&
        !options_.derive_wanted(old_name, n.mime)) {
      NUBO_RETURN_IF_ERROR(t.QueueJob("derive", n.id));
    }
    const int64_t size = static_cast<int64_t>(n.size);
    if (moved) {
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, old_parent->id, -size));
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, dest.id, size));
    } else {
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, n.folder() ? n.id : dest.id, 0));
    }
    if (replaced) NUBO_RETURN_IF_ERROR(TrimTrash(t, n.drive_id, 100));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, n.id, who.user_id));
    return Status::Ok();
  }));
  NoteRecent(who.user_id, out.id);
  return out;
}

Result<NodeRow> Files::Copy(const Principal& who, std::string_view id, std::string_view parent_id,
                            std::optional<std::string> name, Conflict conflict, bool shallow,
                            const Conditions& cond) {
  if (conflict == Conflict::kOverwrite) {
    return Status::InvalidArgument("conflict=overwrite is not supported for copy");
  }
  if (name) {
    NUBO_ASSIGN_OR_RETURN(*name, ValidateName(*name));
  }
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow src, Access(t, who, id, Want::kLive, Action::kRead));
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, src));
    NUBO_ASSIGN_OR_RETURN(NodeRow dest, AccessFolder(t, who, parent_id, Action::kCreate));
    // Into another drive too: content is shared by reference across drives,
    // and the copy counts against the destination drive's quota.
    if (src.folder() && dest.drive_id == src.drive_id) {
      NUBO_ASSIGN_OR_RETURN(bool cycle, IsAncestorOrSelf(t, src.id, dest.id));
      if (cycle)
        return Status::Conflict("cannot copy a folder into itself or one of its subfolders");
    }
    NUBO_ASSIGN_OR_RETURN(NodeRow copy, CopyInto(t, who, src, dest, name ? *name : src.name,
                                                 conflict, shallow, cond));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, copy.id, who.user_id));
    return Status::Ok();
  }));
  return out;
}

Status Files::Trash(const Principal& who, std::string_view id, const Conditions& cond) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kLive, Action::kDelete));
    if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be trashed");
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, n));
    NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, n, true, true, cond.lock_tokens));
    NUBO_RETURN_IF_ERROR(TrashNode(t, n, who.user_id));
    return TrimTrash(t, n.drive_id, 100);
  });
}

Result<NodeRow> Files::Restore(const Principal& who, std::string_view id, const Conditions& cond) {
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kAny, Action::kDelete));
    if (!n.trashed_at_ms) {
      // Live, or inside a trashed folder: only the trashed folder restores.
      return n.live() ? Status::Conflict("\"" + n.name + "\" is not in the trash") : NodeNotFound();
    }
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, n));
    std::optional<NodeRow> dest;
    if (n.trash_parent) {
      NUBO_ASSIGN_OR_RETURN(dest, t.GetNode(*n.trash_parent, who.user_id));
    }
    if (!dest || !dest->live()) {
      // The original folder is itself in the trash: restore to the drive
      // root rather than resurrect a folder the user threw away.
      NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(n.drive_id));
      if (!d) return Status::Internal("drive vanished");
      NUBO_ASSIGN_OR_RETURN(dest, t.GetNode(d->root_id, who.user_id));
      if (!dest) return Status::Internal("drive root vanished");
    }
    NUBO_RETURN_IF_ERROR(authz::Check(t, who, *dest, Action::kCreate));
    NUBO_RETURN_IF_ERROR(CheckQuota(t, n.drive_id, static_cast<int64_t>(n.size)));
    NUBO_ASSIGN_OR_RETURN(std::string final_name,
                          PlaceName(t, *dest, n.name, n.folder(), Conflict::kRename, nullptr));
    NUBO_RETURN_IF_ERROR(CheckNewMemberLocks(t, who, *dest, final_name, cond.lock_tokens));
    SetName(n, final_name);
    n.parent_id = dest->id;
    n.trashed_at_ms.reset();
    n.trash_root.reset();
    n.trash_parent.reset();
    n.updated_by = who.user_id;
    NUBO_RETURN_IF_ERROR(Stamp(t, n));
    NUBO_RETURN_IF_ERROR(NameTaken(t.UpdateNode(n), final_name));
    NUBO_RETURN_IF_ERROR(t.UnmarkSubtreeTrashed(n.id));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, dest->id, static_cast<int64_t>(n.size)));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, n.id, who.user_id));
    return Status::Ok();
  }));
  return out;
}

Status Files::DeletePermanently(const Principal& who, std::string_view id, const Conditions& cond) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, who, id, Want::kAny, Action::kDelete));
    if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be deleted");
    if (!n.live() && !n.trashed_at_ms) return NodeNotFound();  // inside a trashed folder
    NUBO_RETURN_IF_ERROR(CheckExpected(cond, n));
    if (n.live()) NUBO_RETURN_IF_ERROR(CheckNodeLocks(t, who, n, true, true, cond.lock_tokens));
    return DeleteTree(t, n);
  });
}

Result<int64_t> Files::EmptyTrash(const Principal& who, std::string_view drive_id) {
  int64_t drive = 0;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, DriveFor(t, who, drive_id, static_cast<int>(Action::kDelete)));
    drive = d.id;
    return Status::Ok();
  }));
  int64_t deleted = 0;
  for (;;) {
    size_t batch = 0;
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
      NUBO_RETURN_IF_ERROR(authz::Checker(t, who).RequireDrive(drive, Action::kDelete));
      NUBO_ASSIGN_OR_RETURN(auto items, t.ListTrash(drive, std::nullopt, 100, who.user_id));
      batch = items.size();
      for (const NodeRow& n : items) NUBO_RETURN_IF_ERROR(DeleteTree(t, n));
      return Status::Ok();
    }));
    deleted += static_cast<int64_t>(batch);
    if (batch < 100) return deleted;
  }
}

Status Files::DeleteDrive(const Principal& who, std::string_view id) {
  // Whole drives go in one transaction: their rows, and one release of
  // each file's content (the GC then collects what nothing else holds).
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    std::optional<meta::DriveRow> d;
    auto visible = DriveFor(t, who, id, static_cast<int>(Action::kRead));
    if (visible.ok()) {
      d = std::move(*visible);
    } else if (authz::CheckAdmin(who).ok() && !id.empty() && id.size() <= 64) {
      NUBO_ASSIGN_OR_RETURN(d, t.GetDriveByPublicId(std::string(id)));
    }
    if (!d) return Status::NotFound("no such drive");
    if (d->kind != "shared") return Status::Conflict("a personal drive goes with its account");
    if (!authz::CheckAdmin(who).ok()) {
      NUBO_RETURN_IF_ERROR(DriveFor(t, who, id, static_cast<int>(Action::kManage)).status());
    }
    NUBO_RETURN_IF_ERROR(DropDriveUploads(t, d->id, UnixMillis()));
    NUBO_ASSIGN_OR_RETURN(auto root, t.GetNode(d->root_id, 0));
    if (root) {
      const int64_t now = UnixMillis();
      NUBO_ASSIGN_OR_RETURN(auto manifests, t.SubtreeManifests(root->id));
      NUBO_RETURN_IF_ERROR(t.DeleteDavLocksAt(d->id, "/"));
      NUBO_RETURN_IF_ERROR(t.DeleteSubtree(root->id).status());
      for (int64_t m : manifests) NUBO_RETURN_IF_ERROR(content::ReleaseManifest(t, m, now));
    }
    return t.DeleteDrive(d->id);
  });
}

Result<int64_t> Files::PurgeExpiredTrash(int64_t now_ms) {
  int64_t deleted = 0;
  for (;;) {
    size_t batch = 0;
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto ids,
                            t.ListExpiredTrash(now_ms - options_.trash_retention_ms, 100));
      batch = ids.size();
      for (int64_t id : ids) {
        NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(id, 0));
        if (n) NUBO_RETURN_IF_ERROR(DeleteTree(t, *n));
      }
      return Status::Ok();
    }));
    deleted += static_cast<int64_t>(batch);
    if (batch < 100) break;
  }
  // Reservations whose upload died with its process, then every quota
  // drive's trash back within its budget (usage grows after a trash, so
  // the budget shrinks between deletes too).
  NUBO_RETURN_IF_ERROR(
      meta_.Write([&](meta::WriteTxn& t) { return t.DeleteExpiredReservations(now_ms).status(); }));
  NUBO_RETURN_IF_ERROR(
      ForEachQuotaDrive([&](meta::WriteTxn& t, int64_t d) { return TrimTrash(t, d, 1000); }));
  // Removals sync-collection reports are kept this long; a token older
  // than the newest pruned one is refused (valid-sync-token) and the client
  // starts over, as RFC 6578 §3.2 provides.
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) {
    return t.PruneTombstones(now_ms - kTombstoneRetentionMs).status();
  }));
  return deleted;
}

Status Files::ForEachQuotaDrive(const std::function<Status(meta::WriteTxn&, int64_t)>& fn) {
  int64_t after = 0;
  for (;;) {
    std::vector<int64_t> drives;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(drives, t.ListQuotaDrives(after, 100));
      return Status::Ok();
    }));
    if (drives.empty()) return Status::Ok();
    after = drives.back();
    for (int64_t d : drives) {
      NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) { return fn(t, d); }));
    }
  }
}

}  // namespace nubo::files
