// Calendars and address books: the groupware domain (docs/groupware.md).
//
// Every collection belongs to one account and lives in the MetaStore with
// its objects (iCalendar or vCard texts, validated before they are
// stored). Every operation names its caller and asks authz's Checker
// (OnCollection) before it reads or writes, so the DAV trees, REST and
// the web UI decide identically; a collection or object the caller may
// not see answers exactly like one that does not exist.
//
// Thread-safe: no state beyond the options; each call runs its own
// MetaStore transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/principal.h"
#include "groupware/scheduling.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::groupware {

// PERSISTED (dav_collections.kind): never renumber.
enum class Kind : int { kCalendar = 1, kAddressBook = 2, kInbox = 3, kOutbox = 4 };

struct GroupwareOptions {
  uint64_t max_object_size = 1 << 20;  // RFC 4791 §5.2.5 max-resource-size
  uint64_t max_collections = 1000;     // per account and kind
  std::string default_calendar = "personal";
  std::string default_address_book = "contacts";
};

// Why a write was refused with a precondition element (RFC 4791 §5.3.2.1,
// RFC 6352 §6.3.2.1): the element's local name in the CalDAV or CardDAV
// namespace, and for no-uid-conflict the name of the object holding the
// UID.
struct Refusal {
  std::string condition;
  std::string reason;
  std::string conflicting_name;
};

// What a new collection or a PROPPATCH sets (absent: unchanged).
struct CollectionProps {
  std::optional<std::string> display_name;
  std::optional<std::string> description;
  std::optional<std::string> color;
  std::optional<int64_t> sort_order;
  std::optional<std::string> timezone;
  std::optional<uint32_t> components;  // calendars only, at creation only
};

// HTTP preconditions on an object, checked inside the write's transaction.
struct ObjectConditions {
  std::vector<std::string> if_match;  // ETags, or "*"; empty: no If-Match
  bool if_none_match_any = false;     // If-None-Match: *
};

struct PutOutcome {
  meta::DavObjectRow object;  // without data
  bool created = false;
};

class Collections {
 public:
  Collections(meta::MetaStore& meta, GroupwareOptions options);

  const GroupwareOptions& options() const { return options_; }

  // The account whose home `owner_name` names, if the caller may see it
  // (its own; NotFound otherwise, like an account that does not exist).
  Result<meta::UserRow> Home(const auth::Principal& who, std::string_view owner_name);

  // The owner's collections of `kind`, and in the caller's own home those
  // others shared with it (under their mount_name); the account's own
  // default calendar or address book is created on first use.
  Result<std::vector<meta::DavCollectionRow>> List(const auth::Principal& who,
                                                   const meta::UserRow& owner, Kind kind);
  Result<meta::DavCollectionRow> Get(const auth::Principal& who, const meta::UserRow& owner,
                                     Kind kind, std::string_view name);
  // AlreadyExists when the name is taken; InvalidArgument for a bad name.
  Result<meta::DavCollectionRow> Create(const auth::Principal& who, const meta::UserRow& owner,
                                        Kind kind, std::string_view name,
                                        const CollectionProps& props);
  // Applies `props` (and the dead properties: value nullopt removes).
  Result<meta::DavCollectionRow> Update(
      const auth::Principal& who, const meta::DavCollectionRow& c, const CollectionProps& props,
      const std::vector<std::pair<meta::DavDeadProp, bool>>& dead);  // bool: remove
  // The owner deletes the collection; a sharee leaves its own share
  // (Nextcloud clients delete a shared calendar to unsubscribe).
  Status Delete(const auth::Principal& who, const meta::DavCollectionRow& c);

  // Who the collection is shared with (the owner asks).
  Result<std::vector<meta::DavShareRow>> Shares(const auth::Principal& who,
                                                const meta::DavCollectionRow& c);
  // The owner shares the collection with a user or one of its own groups
  // (administrators: any group), read-only or read-write, or ends that.
  // NotFound for an unknown user or a group it may not name.
  Status Share(const auth::Principal& who, const meta::DavCollectionRow& c, bool is_group,
               std::string_view grantee, bool read_only);
  Status Unshare(const auth::Principal& who, const meta::DavCollectionRow& c, bool is_group,
                 std::string_view grantee);
  // "<name>_shared_by_<owner>": a shared collection's name in a sharee's home.
  static std::string MountName(const meta::DavCollectionRow& c, std::string_view owner_name);
  Result<std::vector<meta::DavDeadProp>> DeadProps(const auth::Principal& who,
                                                   const meta::DavCollectionRow& c);

  Result<meta::DavObjectRow> GetObject(const auth::Principal& who, const meta::DavCollectionRow& c,
                                       std::string_view name);
  // Looks up each of `names` in one read: `fn(i, object)` in order, with
  // null for a name the collection does not hold (a multiget's 404).
  // `fn` runs inside the read transaction (never retried) — it formats,
  // no I/O. NotFound when the collection is not the caller's to read.
  Status GetObjects(const auth::Principal& who, const meta::DavCollectionRow& c,
                    const std::vector<std::string>& names,
                    const std::function<Status(size_t, const meta::DavObjectRow*)>& fn);
  // One page of objects by name after `after`.
  Result<std::vector<meta::DavObjectRow>> ListObjects(const auth::Principal& who,
                                                      const meta::DavCollectionRow& c,
                                                      const std::string& after, size_t limit,
                                                      bool with_data);
  // The same page without copies: `fn` sees each object in turn (the row
  // is reused, so keep what you need of it); how many it saw. `fn` runs
  // inside the read transaction (never retried) — it formats, no I/O.
  Result<size_t> ScanObjects(const auth::Principal& who, const meta::DavCollectionRow& c,
                             const std::string& after, size_t limit, bool with_data,
                             const std::function<Status(const meta::DavObjectRow&)>& fn);
  // One page of objects (with data) whose span may overlap the range.
  Result<std::vector<meta::DavObjectRow>> ObjectsInRange(const auth::Principal& who,
                                                         const meta::DavCollectionRow& c,
                                                         std::optional<int64_t> start_ms,
                                                         std::optional<int64_t> end_ms,
                                                         const std::string& after, size_t limit);
  // Members changed after `since` (a sync token's sequence number), by
  // sequence number. InvalidArgument("valid-sync-token") for a token this
  // collection cannot answer (newer than its state or older than its floor).
  Result<std::vector<meta::DavChange>> Changes(const auth::Principal& who,
                                               const meta::DavCollectionRow& c, int64_t since,
                                               size_t limit);
  // The collection as stored now (its sync_seq moves with every change).
  Result<meta::DavCollectionRow> Reload(const auth::Principal& who,
                                        const meta::DavCollectionRow& c);

  // Validates and stores `data` as object `name`. On a refusal fills
  // `refusal` and returns Conflict (403/409 per the condition,
  // chosen by the caller); a failed If-Match/If-None-Match is
  // PreconditionFailed.
  Result<PutOutcome> PutObject(const auth::Principal& who, const meta::DavCollectionRow& c,
                               std::string_view name, std::string data,
                               const ObjectConditions& cond, Refusal* refusal);
  Status DeleteObject(const auth::Principal& who, const meta::DavCollectionRow& c,
                      std::string_view name, const ObjectConditions& cond);

  // The owner's schedule inbox or outbox (RFC 6638 §2.1, §2.2), made on
  // first use. Only the owner sees them.
  Result<meta::DavCollectionRow> Box(const auth::Principal& who, const meta::UserRow& owner,
                                     Kind kind);
  // RFC 6638 §5: a free-busy request POSTed to the owner's outbox.
  Result<std::vector<FreeBusyAnswer>> FreeBusy(const auth::Principal& who,
                                               const meta::UserRow& owner,
                                               std::string_view request);

  // A strong ETag for an object's text.
  static std::string ETagOf(std::string_view data);
  // Whether a collection or object name is acceptable in a URL segment.
  static bool ValidName(std::string_view name);

 private:
  Status EnsureDefault(const auth::Principal& who, const meta::UserRow& owner, Kind kind);

  meta::MetaStore& meta_;
  const GroupwareOptions options_;
};

}  // namespace nubo::groupware
