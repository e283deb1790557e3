// WebDAV state on nodes: dead properties and locks.
//
// One capability of the MetaStore (meta_store.h): DavReads are part of every
// transaction, DavWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

struct DeadProp {
  std::string ns, name;
  std::string value;  // XML content
};

struct NodeDeadProp {
  int64_t node_id = 0;
  DeadProp prop;
};

struct DavLockRow {
  std::string token;
  int64_t drive_id = 0;
  std::string path;  // case-folded, "/a/b"; "/" for the drive root
  bool depth_infinity = false;
  bool exclusive = true;
  std::string owner_xml;
  int64_t user_id = 0;
  int64_t timeout_s = 0;
  int64_t expires_at_ms = 0;
  std::string root_href;
};

class DavReads {
 public:
  virtual ~DavReads() = default;

  // WebDAV dead properties of the given nodes (a listing's page at once),
  // by (node id, ns, name).
  virtual Result<std::vector<NodeDeadProp>> ListDeadProps(const std::vector<int64_t>& node_ids) = 0;
  // Unexpired locks of the drive whose path is one of `paths` or, when
  // `below` is set, lies below `below` ("/a" → "/a/..."), by path.
  virtual Result<std::vector<DavLockRow>> FindDavLocks(int64_t drive_id,
                                                       const std::vector<std::string>& paths,
                                                       const std::string& below,
                                                       int64_t now_ms) = 0;
  virtual Result<std::optional<DavLockRow>> GetDavLock(const std::string& token) = 0;
  // Whether the drive holds any lock unexpired at `now_ms` (0: any at all).
  virtual Result<bool> HasDavLocks(int64_t drive_id, int64_t now_ms) = 0;
  // Bytes of the node's dead properties (names and values).
  virtual Result<int64_t> DeadPropsBytes(int64_t node_id) = 0;
  // Drives whose props_bytes differs from the bytes of their nodes' dead
  // properties, as (public id, stored, recomputed) (fsck).
  virtual Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> PropsBytesMismatches(
      size_t limit) = 0;
};

class DavWrites {
 public:
  virtual ~DavWrites() = default;

  // Dead properties; each keeps the drive's props_bytes in step.
  virtual Status SetDeadProp(int64_t node_id, const DeadProp& p) = 0;
  virtual Status RemoveDeadProp(int64_t node_id, const std::string& ns,
                                const std::string& name) = 0;
  virtual Status CopyDeadProps(int64_t from_node, int64_t to_node) = 0;
  virtual Status InsertDavLock(const DavLockRow& row) = 0;
  virtual Status RefreshDavLock(const std::string& token, int64_t timeout_s,
                                int64_t expires_at_ms) = 0;
  virtual Status DeleteDavLock(const std::string& token) = 0;
  // Drops the locks at `path` and below it (the resource went away).
  virtual Status DeleteDavLocksAt(int64_t drive_id, const std::string& path) = 0;
};

}  // namespace nubo::meta
