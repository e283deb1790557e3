#include "dav/props.h"

#include "files/locks.h"

#include <ctime>

#include "media/thumbnails.h"
#include "util/time.h"

namespace nubo::dav {

namespace {

using meta::NodeRow;

bool Always(const NodeRow&) { return true; }
bool FileOnly(const NodeRow& n) { return !n.folder(); }
bool FolderOnly(const NodeRow& n) { return n.folder(); }

void WriteLockEntry(XmlWriter& w, std::string_view scope) {
  w.Open(kDavNs, "lockentry");
  w.Open(kDavNs, "lockscope");
  w.Empty(kDavNs, scope);
  w.Close();
  w.Open(kDavNs, "locktype");
  w.Empty(kDavNs, "write");
  w.Close();
  w.Close();
}

const std::vector<LiveProp> kLive = {
    {kDavNs, "resourcetype", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       if (e.node().folder()) {
         w.Open(kDavNs, "resourcetype");
         w.Empty(kDavNs, "collection");
         w.Close();
       } else {
         w.Empty(kDavNs, "resourcetype");
       }
     }},
    {kDavNs, "getcontentlength", true, FileOnly,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kDavNs, "getcontentlength", std::to_string(e.node().size));
     }},
    {kDavNs, "getcontenttype", true, FileOnly,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kDavNs, "getcontenttype", e.node().mime); }},
    {kDavNs, "getetag", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       std::string& v = e.Scratch();
       files::AppendNodeETag(v, e.node());
       // An own folder with received shares below it changes its ETag
       // when one of them changes (a sync client polls only the root).
       if (const std::string* tag = e.MountTag()) v.insert(v.size() - 1, "-" + *tag);
       w.Leaf(kDavNs, "getetag", v);
     }},
    {kDavNs, "getlastmodified", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       std::string& v = e.Scratch();
       AppendHttpDate(v, static_cast<std::time_t>(e.node().mtime_ms / 1000));
       w.Leaf(kDavNs, "getlastmodified", v);
     }},
    {kDavNs, "creationdate", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       std::string& v = e.Scratch();
       AppendRfc3339(v, static_cast<std::time_t>(e.node().ctime_ms / 1000));
       w.Leaf(kDavNs, "creationdate", v);
     }},
    {kDavNs, "displayname", true, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kDavNs, "displayname", e.node().name); }},
    {kDavNs, "supportedlock", true, Always,
     [](XmlWriter& w, PropEnv&) {
       w.Open(kDavNs, "supportedlock");
       WriteLockEntry(w, "exclusive");
       WriteLockEntry(w, "shared");
       w.Close();
     }},
    {kDavNs, "lockdiscovery", true, Always,
     [](XmlWriter& w, PropEnv& e) {
       const auto& locks = e.Locks();
       if (locks.empty()) {
         w.Empty(kDavNs, "lockdiscovery");
         return;
       }
       w.Open(kDavNs, "lockdiscovery");
       for (const auto& l : locks) WriteActiveLock(w, l);
       w.Close();
     }},
    // RFC 6578 §4: a folder's sync token (protected, not in allprop), and
    // RFC 3253 §3.1.5: the REPORTs a folder answers.
    {kDavNs, "sync-token", false, FolderOnly,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kDavNs, "sync-token",
              SignedFolderSyncToken(e.context(), e.node().public_id, e.node().tree_seq));
     }},
    {kDavNs, "supported-report-set", false, FolderOnly,
     [](XmlWriter& w, PropEnv&) {
       w.Open(kDavNs, "supported-report-set");
       w.Open(kDavNs, "supported-report");
       w.Open(kDavNs, "report");
       w.Empty(kDavNs, "sync-collection");
       w.Close();
       w.Close();
       w.Close();
     }},
    // RFC 4331: on collections, not part of allprop (§3: they may be costly).
    {kDavNs, "quota-used-bytes", false, FolderOnly,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kDavNs, "quota-used-bytes", std::to_string(e.Usage().used_bytes));
     }},
    {kDavNs, "quota-available-bytes", false, FolderOnly,
     [](XmlWriter& w, PropEnv& e) {
       const auto& u = e.Usage();
       // Without a quota: what the disk holds is not ours to promise; a
       // large number tells clients there is room.
       int64_t avail =
           u.quota_bytes ? std::max<int64_t>(0, *u.quota_bytes - static_cast<int64_t>(u.used_bytes))
                         : (int64_t{1} << 50);
       w.Leaf(kDavNs, "quota-available-bytes", std::to_string(avail));
     }},
    // The Nextcloud clients' properties (oc: and nc:), asked by name only.
    // oc:fileid is the node's numeric id: stable across renames and moves,
    // never reused (the store hands out ids above every id it ever gave).
    {kOcNs, "fileid", false, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kOcNs, "fileid", std::to_string(e.node().id)); }},
    {kOcNs, "id", false, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kOcNs, "id", OcId(e.node().id)); }},
    {kOcNs, "permissions", false, Always,
     [](XmlWriter& w, PropEnv& e) {
       std::string p = OcPermissions(e.node(), e.Perms());
       if (e.ctx().target.home_drive_id && !e.OwnTree()) {
         // A received share in the caller's own tree: S (shared); its
         // mount point is M (mounted), which the caller may rename, move
         // and delete (D N V: only its own view of it; a DELETE removes
         // the share from the caller's tree, as the clients expect).
         if (e.MountPoint()) {
           std::erase_if(p, [](char ch) { return ch == 'D' || ch == 'N' || ch == 'V'; });
           p.insert(0, "SM");
           p += "DNV";
         } else {
           p.insert(0, "S");
         }
       }
       w.Leaf(kOcNs, "permissions", p);
     }},
    {kOcNs, "size", false, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kOcNs, "size", std::to_string(e.node().size)); }},
    {kOcNs, "favorite", false, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kOcNs, "favorite", e.node().favorite ? "1" : "0"); },
     // "1" marks, anything else (or remove) unmarks.
     [](DavContext& c, const NodeRow& n, bool set, std::string_view value) {
       return c.files.SetFavorite(c.who(), n.public_id, set && value == "1");
     }},
    // A received share shows who shared it (its drive's owner; nobody for
    // a shared drive).
    {kOcNs, "owner-id", false, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kOcNs, "owner-id", e.Owner().first); }},
    {kOcNs, "owner-display-name", false, Always,
     [](XmlWriter& w, PropEnv& e) { w.Leaf(kOcNs, "owner-display-name", e.Owner().second); }},
    // Checksums the upload was verified against (OC-Checksum, X-Checksum):
    // one element holding "SHA1:<hex> MD5:<hex>", space-separated, as the
    // clients pick the strongest they know out of the element's text.
    {kOcNs, "checksums", false, FileOnly,
     [](XmlWriter& w, PropEnv& e) {
       const std::string& sums = e.Checksums();
       if (sums.empty()) {
         w.Empty(kOcNs, "checksums");
         return;
       }
       w.Open(kOcNs, "checksums");
       w.Leaf(kOcNs, "checksum", sums);
       w.Close();
     }},
    // The caller's shares of the node (all of them on its own drive): the
    // clients' "shared" badge.
    {kOcNs, "share-types", false, Always,
     [](XmlWriter& w, PropEnv& e) {
       const std::vector<int>& kinds = e.ShareTypes();
       if (kinds.empty()) {
         w.Empty(kOcNs, "share-types");
         return;
       }
       w.Open(kOcNs, "share-types");
       for (int k : kinds) w.Leaf(kOcNs, "share-type", std::to_string(k));
       w.Close();
     }},
    // Changes only when the server's data were restored from a backup
    // (clients then re-check everything): never, so far.
    {kOcNs, "data-fingerprint", false, Always,
     [](XmlWriter& w, PropEnv&) { w.Empty(kOcNs, "data-fingerprint"); }},
    // True for the types a thumbnail can be made of (/index.php/core/preview
    // then answers, or 404 for a file that turns out undecodable).
    {kNcNs, "has-preview", false, Always,
     [](XmlWriter& w, PropEnv& e) {
       const meta::NodeRow& n = e.node();
       w.Leaf(kNcNs, "has-preview",
              !n.folder() && media::Previewable(n.name, n.mime) ? "true" : "false");
     }},
    {kNcNs, "mount-type", false, Always,
     [](XmlWriter& w, PropEnv& e) {
       w.Leaf(kNcNs, "mount-type", e.OwnTree() ? std::string_view() : "shared");
     }},
    {kNcNs, "is-encrypted", false, Always,
     [](XmlWriter& w, PropEnv&) { w.Leaf(kNcNs, "is-encrypted", "0"); }},
};

}  // namespace

std::string OcId(int64_t file_id) {
  std::string id = std::to_string(file_id);
  if (id.size() < 8) id.insert(0, 8 - id.size(), '0');
  return id + "ocnubo";
}

std::string OcPermissions(const NodeRow& node, authz::Perms p) {
  using authz::Action;
  std::string out;
  if (p.Has(Action::kShare)) out += 'R';
  if (p.Has(Action::kRead)) out += 'G';
  if (p.Has(Action::kDelete)) out += "DNV";
  if (node.folder()) {
    if (p.Has(Action::kCreate)) out += "CK";
  } else if (p.Has(Action::kModify)) {
    out += 'W';
  }
  return out;
}

bool PropEnv::OwnTree() const {
  return c_.target.home_drive_id != 0 && node_->drive_id == c_.target.home_drive_id;
}

const std::string* PropEnv::MountTag() const {
  if (!mount_tags_ || !node_->folder()) return nullptr;
  auto it = mount_tags_->find(node_->id);
  return it == mount_tags_->end() ? nullptr : &it->second;
}

authz::Perms PropEnv::Perms() {
  // A listing of the caller's own folder can hold received shares of
  // other drives: the drive's permissions are kept per drive.
  if (!drive_perms_ || drive_perms_->first != node_->drive_id) {
    auto d = c_.files.PermsOnDrive(c_.who(), node_->drive_id);
    drive_perms_.emplace(node_->drive_id, d.ok() ? *d : authz::Perms());
  }
  if (drive_perms_->second == authz::Perms::AllNode()) return drive_perms_->second;
  auto p = c_.files.PermsOn(c_.who(), *node_);
  return p.ok() ? *p : authz::Perms();
}

void PropEnv::Reset(const meta::NodeRow& node, std::string_view path_key, bool mount_point) {
  node_ = &node;
  path_key_.assign(path_key);
  node_locks_.reset();
  mount_point_ = mount_point;
}

const std::string& PropEnv::Checksums() {
  node_checksums_.clear();
  if (node_->folder() || !node_->manifest_id) return node_checksums_;
  if (checksums_) {
    auto it = checksums_->find(*node_->manifest_id);
    return it == checksums_->end() ? node_checksums_ : it->second;
  }
  // A read failure shows none: the client then has nothing to compare,
  // as before the file had any.
  auto sums = c_.files.ContentChecksums(*node_->manifest_id);
  if (sums.ok()) node_checksums_ = std::move(*sums);
  return node_checksums_;
}

const std::vector<int>& PropEnv::ShareTypes() {
  node_share_types_.clear();
  if (share_types_) {
    auto it = share_types_->find(node_->id);
    return it == share_types_->end() ? node_share_types_ : it->second;
  }
  // A read failure shows none.
  auto kinds = c_.files.ShareTypes(c_.who(), *node_);
  if (kinds.ok()) node_share_types_ = std::move(*kinds);
  return node_share_types_;
}

const std::pair<std::string, std::string>& PropEnv::Owner() {
  const int64_t drive = OwnTree() ? 0 : node_->drive_id;
  if (!owner_ || owner_->first != drive) {
    std::pair<std::string, std::string> names;
    if (drive == 0) {
      names = {c_.who().username, c_.who().username};
    } else if (auto o = c_.files.DriveOwner(drive); o.ok()) {
      names = std::move(*o);
    }
    owner_.emplace(drive, std::move(names));
  }
  return owner_->second;
}

const std::vector<meta::DavLockRow>& PropEnv::Locks() {
  if (node_locks_) return *node_locks_;
  if (!locks_by_path_) {
    // One query for every lock that can cover a node of this response:
    // those on the target and its ancestors, and (when members follow)
    // those below the target.
    const std::string& top = c_.target.path_key;
    std::vector<std::string> paths;
    // (Below "/" is the whole drive, "/" included: no separate path then.)
    if (top != "/" || !members_) paths = files::SelfAndAncestors(top);
    const std::string below = members_ ? top : "";
    locks_by_path_.emplace();
    auto rows = c_.files.FindLocks(c_.who(), node_->drive_id, paths, below, node_);
    // A failed read shows no locks.
    if (rows.ok()) {
      for (auto& l : *rows) (*locks_by_path_)[l.path].push_back(std::move(l));
    }
  }
  // As CoveringLocks: the node's own locks, then each ancestor's with
  // Depth infinity (§6.1), nearest first.
  node_locks_.emplace();
  if (locks_by_path_->empty()) return *node_locks_;
  for (const std::string& p : files::SelfAndAncestors(path_key_)) {
    if (auto it = locks_by_path_->find(p); it != locks_by_path_->end()) {
      for (const auto& l : it->second) {
        if (p == path_key_ || l.depth_infinity) node_locks_->push_back(l);
      }
    }
  }
  return *node_locks_;
}

const files::Usage& PropEnv::Usage() {
  if (!usage_) {
    usage_ = files::Usage{};
    if (c_.who().link()) {
      // A link's bearer has no drive of its own and learns nothing of the owner's.
    } else if (c_.drive.empty()) {
      auto u = c_.files.GetUsage(c_.who());
      if (u.ok()) usage_ = *u;
    } else if (auto drives = c_.files.Drives(c_.who()); drives.ok()) {
      // RFC 4331 quota of a shared drive is the drive's own.
      for (const auto& d : *drives) {
        if (d.drive.public_id == c_.drive) usage_ = d.usage;
      }
    }
  }
  return *usage_;
}

const std::vector<LiveProp>& LiveProps() { return kLive; }

const LiveProp* FindLiveProp(std::string_view ns, std::string_view name) {
  for (const LiveProp& p : kLive) {
    if (p.ns == ns && p.name == name) return &p;
  }
  return nullptr;
}

void WriteActiveLock(XmlWriter& w, const meta::DavLockRow& l) {
  w.Open(kDavNs, "activelock");
  w.Open(kDavNs, "locktype");
  w.Empty(kDavNs, "write");
  w.Close();
  w.Open(kDavNs, "lockscope");
  w.Empty(kDavNs, l.exclusive ? "exclusive" : "shared");
  w.Close();
  w.Leaf(kDavNs, "depth", l.depth_infinity ? "infinity" : "0");
  if (!l.owner_xml.empty()) {
    w.Open(kDavNs, "owner");
    w.Raw(l.owner_xml);
    w.Close();
  }
  w.Leaf(kDavNs, "timeout", "Second-" + std::to_string(l.timeout_s));
  w.Open(kDavNs, "locktoken");
  w.Leaf(kDavNs, "href", l.token);
  w.Close();
  w.Open(kDavNs, "lockroot");
  w.Leaf(kDavNs, "href", l.root_href);
  w.Close();
  w.Close();
}

}  // namespace nubo::dav
