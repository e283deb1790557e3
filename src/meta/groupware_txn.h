// Calendars and address books: collections, their objects, shares, change
// log and dead properties.
//
// One capability of the MetaStore (meta_store.h): GroupwareReads are part of every
// transaction, GroupwareWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

// PERSISTED: never renumber (nodes.kind; folders sort before files).
// Groupware (docs/groupware.md): a calendar or address book of one account.
struct DavCollectionRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  int kind = 0;  // PERSISTED: 1 calendar, 2 address book, 3 scheduling inbox, 4 scheduling outbox
  std::string name;
  std::string display_name;
  std::string description;
  std::string color;
  int64_t sort_order = 0;
  std::string timezone;
  uint32_t components = 0;
  int64_t sync_seq = 0;
  int64_t sync_floor = 0;
  int64_t created_at_ms = 0;
  // Not stored, set when a sharee reaches a collection shared with it: the
  // name its home shows it under ("<name>_shared_by_<owner>"; hrefs use
  // it), the owner's name, and whether the share is read-only.
  std::string mount_name;
  std::string owner_name;
  bool shared_read_only = false;
};

// A calendar or address book shared with a user or a group.
struct DavShareRow {
  int64_t collection_id = 0;
  bool is_group = false;
  int64_t grantee_id = 0;    // users.id or user_groups.id
  std::string grantee_name;  // username or group name
  std::string display_name;  // a user's display name (groups: the name)
  bool read_only = true;
};

// A collection shared with the caller, and whose it is.
struct SharedDavCollection {
  DavCollectionRow collection;
  std::string owner_name;
  bool read_only = true;
};

// One calendar object or vCard. `data` is empty when listed without it.
struct DavObjectRow {
  int64_t id = 0;
  int64_t collection_id = 0;
  std::string name;
  std::string uid;
  std::string component;
  std::string data;
  std::string etag;
  std::optional<int64_t> first_start_ms;
  std::optional<int64_t> last_end_ms;
  int64_t modseq = 0;
  int64_t mtime_ms = 0;
  int64_t size = 0;
};

// A member that changed after a sync token: present (etag set) or gone.
struct DavChange {
  std::string name;
  int64_t modseq = 0;
  bool deleted = false;
  std::string etag;
  int64_t size = 0;
  std::string component;  // VEVENT, VTODO…, VCARD (empty when deleted)
  int64_t mtime_ms = 0;
};

struct DavDeadProp {
  std::string ns;
  std::string name;
  std::string value;  // context-free XML
};

class GroupwareReads {
 public:
  virtual ~GroupwareReads() = default;

  virtual Result<std::optional<DavCollectionRow>> GetDavCollection(int64_t user_id, int kind,
                                                                   const std::string& name) = 0;
  // The account's collections of `kind`, by sort order then name.
  virtual Result<std::vector<DavCollectionRow>> ListDavCollections(int64_t user_id, int kind) = 0;
  // Who a collection is shared with, users first, by name.
  virtual Result<std::vector<DavShareRow>> ListDavShares(int64_t collection_id) = 0;
  // What a share gives `user_id` (directly or through one of `groups`) on
  // a collection: nullopt nothing, else whether read-only (read-write wins).
  virtual Result<std::optional<bool>> DavShareAccess(int64_t collection_id, int64_t user_id,
                                                     const std::vector<int64_t>& groups) = 0;
  // Collections of `kind` others shared with `user_id` or its `groups`.
  virtual Result<std::vector<SharedDavCollection>> ListDavCollectionsSharedWith(
      int64_t user_id, const std::vector<int64_t>& groups, int kind) = 0;
  virtual Result<std::optional<DavObjectRow>> GetDavObject(int64_t collection_id,
                                                           const std::string& name) = 0;
  virtual Result<std::optional<DavObjectRow>> GetDavObjectByUid(int64_t collection_id,
                                                                const std::string& uid) = 0;
  // Calls `fn` for at most `limit` objects with name > `after_name`, by
  // name; `with_data` loads the whole row, otherwise only what a listing
  // shows is set (name, etag, size, mtime, modseq, component; the id,
  // uid, data and time bounds are left empty). The row passed is reused
  // from call to call (a listing of thousands allocates nothing per
  // object); an error from `fn` ends the scan and is returned.
  virtual Status ScanDavObjects(int64_t collection_id, const std::string& after_name, size_t limit,
                                bool with_data,
                                const std::function<Status(const DavObjectRow&)>& fn) = 0;
  // Objects (with data) whose span may overlap [start, end) — an index
  // scan on first_start; nullopt sides are open — with name > `after_name`.
  virtual Result<std::vector<DavObjectRow>> ListDavObjectsInRange(int64_t collection_id,
                                                                  std::optional<int64_t> start_ms,
                                                                  std::optional<int64_t> end_ms,
                                                                  const std::string& after_name,
                                                                  size_t limit) = 0;
  // Members changed or removed after `since_seq`, by modseq then name.
  virtual Result<std::vector<DavChange>> DavChangesSince(int64_t collection_id, int64_t since_seq,
                                                         size_t limit) = 0;
  virtual Result<std::vector<DavDeadProp>> ListDavCollectionProps(int64_t collection_id) = 0;
};

class GroupwareWrites {
 public:
  virtual ~GroupwareWrites() = default;

  // Fills `row.id`. AlreadyExists when the account has a collection of that
  // kind and name.
  virtual Status InsertDavCollection(DavCollectionRow& row) = 0;
  // Shares the collection with a user or group (or changes its access).
  virtual Status SetDavShare(int64_t collection_id, bool is_group, int64_t grantee_id,
                             bool read_only, int64_t at_ms) = 0;
  // Ends that share; false when there was none.
  virtual Result<bool> RemoveDavShare(int64_t collection_id, bool is_group, int64_t grantee_id) = 0;
  // Writes the descriptive fields (display name … components).
  virtual Status UpdateDavCollection(const DavCollectionRow& row) = 0;
  virtual Status DeleteDavCollection(int64_t id) = 0;  // and its objects
  // Creates or replaces the object `row.name`: the collection's sync_seq
  // grows by one and becomes the object's modseq (set in `row`); a
  // tombstone of the name goes. AlreadyExists when another name holds the
  // UID.
  virtual Status PutDavObject(DavObjectRow& row) = 0;
  // Removes the object and leaves a tombstone at the next sync_seq.
  // NotFound when absent.
  virtual Status DeleteDavObject(int64_t collection_id, const std::string& name) = 0;
  // Sets (value) or removes (nullopt) a dead property of a collection.
  virtual Status SetDavCollectionProp(int64_t collection_id, const std::string& ns,
                                      const std::string& name,
                                      const std::optional<std::string>& value) = 0;
};

}  // namespace nubo::meta
