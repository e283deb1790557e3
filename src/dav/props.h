// The live property table (RFC 4918 §15, RFC 4331 quotas) and the
// property writers shared by PROPFIND, PROPPATCH and LOCK. Internal to
// src/dav. Not thread-safe (per request).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "auth/authz.h"
#include "dav/context.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "meta/meta_store.h"

namespace nubo::dav {

// What the live properties of the target and the nodes below it need
// beyond the node itself, each loaded at most once per response: a
// PROPFIND over a folder of 10,000 files asks one query for the locks
// and one for the quota, not one per file. Reset() moves it to the next
// node.
class PropEnv {
 public:
  // `members`: nodes below the target will be asked about too (Depth 1 or
  // infinity on a collection); otherwise only the target.
  PropEnv(DavContext& c, bool members) : c_(c), members_(members) {}
  DavContext& context() const { return c_; }
  // `node` must outlive the next Reset; `path_key` is its case-folded path
  // (c.target.path_key or below it).
  // `mount_point`: the node is a received share's mount point in the
  // caller's own tree (docs/sharing.md).
  void Reset(const meta::NodeRow& node, std::string_view path_key, bool mount_point = false);
  bool MountPoint() const { return mount_point_; }
  // Folders of the caller's own tree with received shares below them:
  // the digest their ETag carries (Resolved::mount_tags).
  void SetMountTags(const std::unordered_map<int64_t, std::string>* tags) { mount_tags_ = tags; }
  const std::string* MountTag() const;
  // The checksums of a page of members, read with the page (by manifest
  // id; a file of the page missing from it has none). Null: each node's
  // are read when asked for (the target, received shares).
  void SetChecksums(const std::unordered_map<int64_t, std::string>* sums) { checksums_ = sums; }
  // The file's verified client checksums ("SHA1:<hex> MD5:<hex>"; empty:
  // none), oc:checksums.
  const std::string& Checksums();
  // The same for the kinds of shares on a page's nodes (oc:share-types).
  void SetShareTypes(const std::unordered_map<int64_t, std::vector<int>>* kinds) {
    share_types_ = kinds;
  }
  const std::vector<int>& ShareTypes();
  // oc:owner-id and oc:owner-display-name: the caller in its own tree,
  // else the account owning the node's drive (per drive, once).
  const std::pair<std::string, std::string>& Owner();
  const meta::NodeRow& node() const { return *node_; }
  // The unexpired locks covering the node (as CoveringLocks answers).
  const std::vector<meta::DavLockRow>& Locks();
  const files::Usage& Usage();
  // The caller's permissions on the node (oc:permissions): the drive's
  // once when the caller holds all of it (an owner), else per node.
  authz::Perms Perms();
  // Whether the node lies in the caller's own personal drive (its owner
  // is the caller), reached from that drive's root: oc:owner-id and the
  // like.
  bool OwnTree() const;
  DavContext& ctx() { return c_; }
  // A buffer for formatting a value; cleared on every call.
  std::string& Scratch() {
    scratch_.clear();
    return scratch_;
  }

 private:
  DavContext& c_;
  const bool members_;
  const meta::NodeRow* node_ = nullptr;
  std::string path_key_;
  // The locks on the target, its ancestors and everything below it, by
  // path in the store's order; loaded on the first Locks().
  std::optional<std::unordered_map<std::string, std::vector<meta::DavLockRow>>> locks_by_path_;
  std::optional<std::vector<meta::DavLockRow>> node_locks_;
  std::optional<files::Usage> usage_;
  std::optional<std::pair<int64_t, authz::Perms>> drive_perms_;  // (drive, perms)
  bool mount_point_ = false;
  const std::unordered_map<int64_t, std::string>* mount_tags_ = nullptr;
  const std::unordered_map<int64_t, std::string>* checksums_ = nullptr;
  std::string node_checksums_;
  const std::unordered_map<int64_t, std::vector<int>>* share_types_ = nullptr;
  std::vector<int> node_share_types_;
  std::optional<std::pair<int64_t, std::pair<std::string, std::string>>> owner_;  // (drive, names)
  std::string scratch_;
};

struct LiveProp {
  std::string_view ns;
  std::string_view name;
  bool in_allprop;                            // §9.1: returned by allprop
  bool (*applies)(const meta::NodeRow&);      // absent on this node → 404 in propstat
  void (*write)(XmlWriter& w, PropEnv& env);  // writes the whole property element
  // Live properties a client may set (oc:favorite): PROPPATCH calls this
  // instead of refusing the property as protected. nullptr: protected.
  Status (*patch)(DavContext& c, const meta::NodeRow& node, bool set,
                  std::string_view value) = nullptr;
};

// Namespaces of the Nextcloud clients' properties.
inline constexpr std::string_view kOcNs = "http://owncloud.org/ns";
inline constexpr std::string_view kNcNs = "http://nextcloud.org/ns";

const std::vector<LiveProp>& LiveProps();
const LiveProp* FindLiveProp(std::string_view ns, std::string_view name);

// <D:activelock> for `l` (LOCK responses and lockdiscovery).
void WriteActiveLock(XmlWriter& w, const meta::DavLockRow& l);

}  // namespace nubo::dav
