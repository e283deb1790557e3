// Write side of the files domain: folders, uploads, rename/move, copy,
// trash, restore, permanent delete. Each operation is one metadata write
// transaction; reference counts (content/refs.h), rollups (Touch) and
// quotas (CheckQuota) change inside it, next to the rows they describe.
#include <algorithm>

#include "content/ingest.h"
#include "content/refs.h"
#include "files/access.h"
#include "files/checksum.h"
#include "files/files.h"
#include "files/mime.h"
#include "files/names.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeKind;
using meta::NodeRow;

namespace {

NodeRow NewChild(const NodeRow& parent, std::string name, NodeKind kind, int64_t user,
                 int64_t now) {
  NodeRow n;
  n.public_id = NewUuidV7();
  n.drive_id = parent.drive_id;
  n.parent_id = parent.id;
  n.name_key = NameKey(name);
  n.name = std::move(name);
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

}  // namespace

Result<NodeRow> Files::CreateFolder(int64_t user, std::string_view parent_id, std::string_view name,
                                    Conflict conflict) {
  NUBO_ASSIGN_OR_RETURN(std::string norm, NormalizeName(name));
  if (conflict == Conflict::kOverwrite) {
    return Status::InvalidArgument("conflict=overwrite does not apply to folders");
  }
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, user, parent_id));
    NUBO_ASSIGN_OR_RETURN(std::string final_name,
                          PlaceName(t, parent, norm, true, conflict, nullptr));
    NodeRow n = NewChild(parent, final_name, NodeKind::kFolder, user, UnixMillis());
    NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(n), final_name));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, n.id, 0));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, n.id, user));
    return Status::Ok();
  }));
  return out;
}

Result<std::string> Files::EnsureFolders(int64_t user, std::string_view parent_id,
                                         std::string_view rel_path) {
  std::vector<std::string> names;
  for (std::string_view seg : Split(rel_path, '/')) {
    if (seg.empty()) continue;
    NUBO_ASSIGN_OR_RETURN(std::string norm, NormalizeName(seg));
    names.push_back(std::move(norm));
  }
  std::string current(parent_id);
  if (names.empty()) return current;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, user, parent_id));
    for (const std::string& name : names) {
      NUBO_ASSIGN_OR_RETURN(auto hit, t.FindChild(parent.id, NameKey(name), user));
      if (hit) {
        if (!hit->folder()) return Status::Conflict("\"" + name + "\" is a file, not a folder");
        parent = std::move(*hit);
        continue;
      }
      NodeRow n = NewChild(parent, name, NodeKind::kFolder, user, UnixMillis());
      NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(n), name));
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, n.id, 0));
      NUBO_ASSIGN_OR_RETURN(parent, Reload(t, n.id, user));
    }
    current = parent.public_id;
    return Status::Ok();
  }));
  return current;
}

Result<UploadResult> Files::AttachFile(meta::WriteTxn& t, int64_t user, const UploadRequest& req,
                                       int64_t manifest_id, uint64_t size,
                                       const std::string& mime) {
  NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, user, req.parent_id));
  std::optional<NodeRow> existing;
  NUBO_ASSIGN_OR_RETURN(std::string name,
                        PlaceName(t, parent, req.name, false, req.conflict, &existing));
  const int64_t now = UnixMillis();
  UploadResult out;
  if (existing) {  // kOverwrite onto a live sibling
    if (existing->folder()) {
      return Status::Conflict("\"" + name + "\" is a folder; a file cannot replace it");
    }
    if (req.if_match && !IfMatchMatches(*req.if_match, NodeETag(*existing))) {
      return Status::PreconditionFailed("If-Match does not match the current version");
    }
    const int64_t delta = static_cast<int64_t>(size) - static_cast<int64_t>(existing->size);
    NUBO_RETURN_IF_ERROR(CheckQuota(t, parent.drive_id, delta));
    const int64_t old_manifest = *existing->manifest_id;
    NodeRow n = *existing;
    n.manifest_id = manifest_id;
    n.size = size;
    n.mime = mime;
    n.mtime_ms = req.mtime_ms.value_or(now);
    n.updated_by = user;
    NUBO_RETURN_IF_ERROR(t.UpdateNode(n));
    NUBO_RETURN_IF_ERROR(content::ReleaseManifest(t, old_manifest, now));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, parent.id, delta));
    NUBO_ASSIGN_OR_RETURN(out.node, Reload(t, n.id, user));
    out.created = false;
    return out;
  }
  if (req.if_match && *req.if_match != "*") {
    // RFC 9110 §13.1.1: If-Match on a resource that does not exist fails.
    return Status::PreconditionFailed("If-Match given but \"" + name + "\" does not exist");
  }
  NUBO_RETURN_IF_ERROR(CheckQuota(t, parent.drive_id, static_cast<int64_t>(size)));
  NodeRow n = NewChild(parent, name, NodeKind::kFile, user, now);
  n.manifest_id = manifest_id;
  n.size = size;
  n.mime = mime;
  n.mtime_ms = req.mtime_ms.value_or(now);
  NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(n), name));
  NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, parent.id, static_cast<int64_t>(size)));
  NUBO_ASSIGN_OR_RETURN(out.node, Reload(t, n.id, user));
  out.created = true;
  return out;
}

namespace {

class IngestUpload final : public Upload {
 public:
  IngestUpload(Files& files, int64_t user, UploadRequest req, std::unique_ptr<Checksum> checksum)
      : files_(files),
        user_(user),
        req_(std::move(req)),
        checksum_(std::move(checksum)),
        ingest_(files.chunks()) {}

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
    if (head_.size() < kHeadBytes) head_.append(data, std::min(len, kHeadBytes - head_.size()));
    if (checksum_) checksum_->Update(data, len);
    return ingest_.Write(data, len);
  }

  Result<UploadResult> Finish() override {
    NUBO_ASSIGN_OR_RETURN(content::ManifestDraft draft, ingest_.Finish());
    if (checksum_) NUBO_RETURN_IF_ERROR(checksum_->Verify(draft.hash));
    const std::string mime = DetectMime(req_.name, head_);
    UploadResult out;
    auto id = content::CommitManifest(
        files_.meta(), files_.chunks(), draft,
        [&](meta::WriteTxn& t, int64_t manifest_id) -> Status {
          NUBO_ASSIGN_OR_RETURN(out,
                                files_.AttachFile(t, user_, req_, manifest_id, draft.size, mime));
          return Status::Ok();
        });
    if (!id.ok()) return id.status();
    files_.NoteRecent(user_, out.node.id);
    return out;
  }

 private:
  static constexpr size_t kHeadBytes = 4096;  // what MIME sniffing looks at
  Files& files_;
  int64_t user_;
  UploadRequest req_;
  std::unique_ptr<Checksum> checksum_;
  content::Ingest ingest_;
  uint64_t bytes_ = 0;
  std::string head_;
};

}  // namespace

Result<std::unique_ptr<Upload>> Files::BeginUpload(int64_t user, UploadRequest req) {
  NUBO_ASSIGN_OR_RETURN(req.name, NormalizeName(req.name));
  std::unique_ptr<Checksum> checksum;
  if (!req.checksum.empty()) {
    NUBO_ASSIGN_OR_RETURN(checksum, Checksum::Parse(req.checksum));
  }
  if (options_.max_upload && req.expected_size && *req.expected_size > options_.max_upload) {
    return Status::TooLarge("file is larger than the server's upload limit of " +
                            std::to_string(options_.max_upload) + " bytes");
  }
  // Early answers (before "100 Continue"): the commit re-checks all of it.
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow parent, AccessFolder(t, user, req.parent_id));
    std::optional<NodeRow> existing;
    NUBO_ASSIGN_OR_RETURN(std::string name,
                          PlaceName(t, parent, req.name, false, req.conflict, &existing));
    (void)name;
    int64_t extra = static_cast<int64_t>(req.expected_size.value_or(0));
    if (existing) {
      if (existing->folder()) {
        return Status::Conflict("\"" + existing->name + "\" is a folder; a file cannot replace it");
      }
      if (req.if_match && !IfMatchMatches(*req.if_match, NodeETag(*existing))) {
        return Status::PreconditionFailed("If-Match does not match the current version");
      }
      extra -= static_cast<int64_t>(existing->size);
    } else if (req.if_match && *req.if_match != "*") {
      return Status::PreconditionFailed("If-Match given but \"" + req.name + "\" does not exist");
    }
    return CheckQuota(t, parent.drive_id, extra);
  }));
  return std::unique_ptr<Upload>(
      new IngestUpload(*this, user, std::move(req), std::move(checksum)));
}

Result<UploadResult> Files::InstantUpload(int64_t user, const UploadRequest& in,
                                          const meta::Digest& hash) {
  UploadRequest req = in;
  NUBO_ASSIGN_OR_RETURN(req.name, NormalizeName(req.name));
  const std::string mime = DetectMime(req.name, "");
  UploadResult out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(user));
    if (!d) return Status::NotFound("this account has no personal drive");
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
    NUBO_ASSIGN_OR_RETURN(out, AttachFile(t, user, req, m->id, m->size, mime));
    return Status::Ok();
  }));
  NoteRecent(user, out.node.id);
  return out;
}

Result<FileContent> Files::OpenContent(int64_t user, std::string_view id) {
  FileContent fc;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(fc.node, Access(t, user, id, Want::kLive));
    if (fc.node.folder()) return Status::InvalidArgument("\"" + fc.node.name + "\" is a folder");
    NUBO_ASSIGN_OR_RETURN(fc.chunks, t.ManifestChunks(*fc.node.manifest_id));
    return Status::Ok();
  }));
  return fc;
}

Result<NodeRow> Files::Update(int64_t user, std::string_view id, std::optional<std::string> name,
                              std::optional<std::string> parent_id, Conflict conflict) {
  if (conflict == Conflict::kOverwrite) {
    return Status::InvalidArgument("conflict=overwrite is not supported for rename or move");
  }
  if (name) {
    NUBO_ASSIGN_OR_RETURN(*name, NormalizeName(*name));
  }
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, user, id, Want::kLive));
    if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be renamed or moved");
    NUBO_ASSIGN_OR_RETURN(auto old_parent, t.GetNode(*n.parent_id, user));
    if (!old_parent) return Status::Internal("parent vanished");
    NodeRow dest = *old_parent;
    if (parent_id && *parent_id != old_parent->public_id) {
      NUBO_ASSIGN_OR_RETURN(dest, AccessFolder(t, user, *parent_id));
      if (dest.drive_id != n.drive_id)
        return Status::Unsupported("moving between drives is not supported yet");
      // Cycle check (ARCHITECTURE.md §4.5): the destination must not be the
      // node or lie below it.
      NUBO_ASSIGN_OR_RETURN(auto chain, t.Ancestors(dest.id));
      for (const NodeRow& a : chain) {
        if (a.id == n.id)
          return Status::Conflict("cannot move a folder into itself or one of its subfolders");
      }
    }
    const std::string new_name = name ? *name : n.name;
    NUBO_ASSIGN_OR_RETURN(std::string final_name,
                          PlaceName(t, dest, new_name, n.folder(), conflict, nullptr, n.id));
    const bool moved = dest.id != old_parent->id;
    n.name = final_name;
    n.name_key = NameKey(final_name);
    n.parent_id = dest.id;
    n.updated_by = user;
    NUBO_RETURN_IF_ERROR(NameTaken(t.UpdateNode(n), final_name));
    const int64_t size = static_cast<int64_t>(n.size);
    if (moved) {
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, old_parent->id, -size));
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, dest.id, size));
    } else {
      NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, n.folder() ? n.id : dest.id, 0));
    }
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, n.id, user));
    return Status::Ok();
  }));
  NoteRecent(user, out.id);
  return out;
}

Result<NodeRow> Files::Copy(int64_t user, std::string_view id, std::string_view parent_id,
                            std::optional<std::string> name, Conflict conflict, bool shallow) {
  if (conflict == Conflict::kOverwrite) {
    return Status::InvalidArgument("conflict=overwrite is not supported for copy");
  }
  if (name) {
    NUBO_ASSIGN_OR_RETURN(*name, NormalizeName(*name));
  }
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow src, Access(t, user, id, Want::kLive));
    NUBO_ASSIGN_OR_RETURN(NodeRow dest, AccessFolder(t, user, parent_id));
    if (dest.drive_id != src.drive_id)
      return Status::Unsupported("copying between drives is not supported yet");
    if (src.folder()) {
      NUBO_ASSIGN_OR_RETURN(auto chain, t.Ancestors(dest.id));
      for (const NodeRow& a : chain) {
        if (a.id == src.id)
          return Status::Conflict("cannot copy a folder into itself or one of its subfolders");
      }
    }
    const int64_t bytes = shallow && src.folder() ? 0 : static_cast<int64_t>(src.size);
    NUBO_RETURN_IF_ERROR(CheckQuota(t, dest.drive_id, bytes));
    NUBO_ASSIGN_OR_RETURN(std::string final_name, PlaceName(t, dest, name ? *name : src.name,
                                                            src.folder(), conflict, nullptr));
    NUBO_ASSIGN_OR_RETURN(int64_t seq, t.NextChangeSeq(dest.drive_id));
    const int64_t now = UnixMillis();
    // Copy rows, not bytes (ARCHITECTURE.md §4.4): each file row takes one
    // more reference on its manifest. Depth-first with an explicit stack.
    auto clone = [&](const NodeRow& from, const NodeRow& to_parent,
                     const std::string& as) -> Result<NodeRow> {
      NodeRow c = NewChild(to_parent, as, from.kind, user, now);
      c.manifest_id = from.manifest_id;
      c.size = from.size;
      c.mime = from.mime;
      c.mtime_ms = from.mtime_ms;
      c.tree_seq = seq;
      if (c.manifest_id) NUBO_RETURN_IF_ERROR(content::AddManifestRef(t, *c.manifest_id));
      if (shallow && !c.manifest_id) c.size = 0;  // a folder without its members
      NUBO_RETURN_IF_ERROR(NameTaken(t.InsertNode(c), as));
      NUBO_RETURN_IF_ERROR(t.CopyDeadProps(from.id, c.id));
      return c;
    };
    NUBO_ASSIGN_OR_RETURN(NodeRow top, clone(src, dest, final_name));
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
    NUBO_RETURN_IF_ERROR(t.BumpAncestors(dest.id, seq, bytes));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, top.id, user));
    return Status::Ok();
  }));
  return out;
}

Status Files::Trash(int64_t user, std::string_view id) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, user, id, Want::kLive));
    if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be trashed");
    n.trashed_at_ms = UnixMillis();
    n.trash_parent = n.parent_id;
    NUBO_RETURN_IF_ERROR(t.UpdateNode(n));
    NUBO_RETURN_IF_ERROR(t.MarkSubtreeTrashed(n.id));
    return Touch(t, n.drive_id, *n.parent_id, -static_cast<int64_t>(n.size));
  });
}

Result<NodeRow> Files::Restore(int64_t user, std::string_view id) {
  NodeRow out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, user, id, Want::kAny));
    if (!n.trashed_at_ms) {
      // Live, or inside a trashed folder: only the trashed folder restores.
      return n.live() ? Status::Conflict("\"" + n.name + "\" is not in the trash") : NodeNotFound();
    }
    std::optional<NodeRow> dest;
    if (n.trash_parent) {
      NUBO_ASSIGN_OR_RETURN(dest, t.GetNode(*n.trash_parent, user));
    }
    if (!dest || !dest->live()) {
      // The original folder is itself in the trash: restore to the drive
      // root rather than resurrect a folder the user threw away.
      NUBO_ASSIGN_OR_RETURN(auto d, t.GetDrive(n.drive_id));
      if (!d) return Status::Internal("drive vanished");
      NUBO_ASSIGN_OR_RETURN(dest, t.GetNode(d->root_id, user));
      if (!dest) return Status::Internal("drive root vanished");
    }
    NUBO_RETURN_IF_ERROR(CheckQuota(t, n.drive_id, static_cast<int64_t>(n.size)));
    NUBO_ASSIGN_OR_RETURN(std::string final_name,
                          PlaceName(t, *dest, n.name, n.folder(), Conflict::kRename, nullptr));
    n.name = final_name;
    n.name_key = NameKey(final_name);
    n.parent_id = dest->id;
    n.trashed_at_ms.reset();
    n.trash_root.reset();
    n.trash_parent.reset();
    n.updated_by = user;
    NUBO_RETURN_IF_ERROR(NameTaken(t.UpdateNode(n), final_name));
    NUBO_RETURN_IF_ERROR(t.UnmarkSubtreeTrashed(n.id));
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, dest->id, static_cast<int64_t>(n.size)));
    NUBO_ASSIGN_OR_RETURN(out, Reload(t, n.id, user));
    return Status::Ok();
  }));
  return out;
}

namespace {

// Deletes the subtree of `n` for good inside `t`: releases one manifest
// reference per file row, then removes the rows. Items the user trashed on
// their own from inside it earlier are not part of this delete: they stay
// in the trash, moved under the drive root (where a restore puts them).
Status DeleteTree(meta::WriteTxn& t, const NodeRow& n) {
  const int64_t now = UnixMillis();
  if (n.live() && n.parent_id)
    NUBO_RETURN_IF_ERROR(Touch(t, n.drive_id, *n.parent_id, -static_cast<int64_t>(n.size)));
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

}  // namespace

Status Files::DeletePermanently(int64_t user, std::string_view id) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, user, id, Want::kAny));
    if (!n.parent_id) return Status::Conflict("the drive's root folder cannot be deleted");
    if (!n.live() && !n.trashed_at_ms) return NodeNotFound();  // inside a trashed folder
    return DeleteTree(t, n);
  });
}

Result<int64_t> Files::EmptyTrash(int64_t user) {
  NUBO_ASSIGN_OR_RETURN(meta::DriveRow d, PersonalDrive(user));
  int64_t deleted = 0;
  for (;;) {
    size_t batch = 0;
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto items, t.ListTrash(d.id, std::nullopt, 100, user));
      batch = items.size();
      for (const NodeRow& n : items) NUBO_RETURN_IF_ERROR(DeleteTree(t, n));
      return Status::Ok();
    }));
    deleted += static_cast<int64_t>(batch);
    if (batch < 100) return deleted;
  }
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
    if (batch < 100) return deleted;
  }
}

}  // namespace nubo::files
