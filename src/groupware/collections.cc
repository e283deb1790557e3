#include "groupware/collections.h"

#include <algorithm>

#include "auth/authz.h"
#include "groupware/calendar_data.h"
#include "groupware/vcard.h"
#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::groupware {

namespace {

constexpr uint32_t kDefaultComponents = kCompEvent | kCompTodo;

Status Refuse(Refusal* r, std::string condition, std::string reason) {
  if (r) {
    r->condition = std::move(condition);
    r->reason = reason;
  }
  return Status::Conflict(std::move(reason));
}

// RFC 9110 §13.1.1/§13.1.2 on an object (`current`: its ETag, or nullopt
// when absent).
Status CheckConditions(const ObjectConditions& cond, const std::optional<std::string>& current) {
  if (!cond.if_match.empty()) {
    const bool any =
        std::find(cond.if_match.begin(), cond.if_match.end(), "*") != cond.if_match.end();
    if (!current || (!any && std::find(cond.if_match.begin(), cond.if_match.end(), *current) ==
                                 cond.if_match.end())) {
      return Status::PreconditionFailed("If-Match does not hold");
    }
  }
  if (cond.if_none_match_any && current) {
    return Status::PreconditionFailed("If-None-Match: * and the object exists");
  }
  return Status::Ok();
}

// What an object's text says about it, or a refusal.
struct Summary {
  std::string uid;
  std::string component;
  std::optional<int64_t> first_start_ms;
  std::optional<int64_t> last_end_ms;
};

Result<Summary> Summarize(const meta::DavCollectionRow& c, std::string_view data,
                          Refusal* refusal) {
  Summary s;
  if (c.kind == static_cast<int>(Kind::kCalendar)) {
    CalendarError err;
    auto info = ParseCalendarObject(data, c.components ? c.components : kDefaultComponents, &err);
    if (!info.ok()) return Refuse(refusal, err.condition, err.reason);
    s.uid = info->uid;
    s.component = info->component;
    s.first_start_ms = info->first_start_ms;
    s.last_end_ms = info->last_end_ms;
    return s;
  }
  auto card = ParseVCard(data);
  if (!card.ok()) return Refuse(refusal, "valid-address-data", card.status().message());
  s.uid = card->Find("UID")->Text();
  s.component = "VCARD";
  return s;
}

}  // namespace

Collections::Collections(meta::MetaStore& meta, GroupwareOptions options)
    : meta_(meta), options_(std::move(options)) {}

std::string Collections::ETagOf(std::string_view data) {
  std::string etag;
  etag.reserve(34);
  etag.push_back('"');
  etag.append(DigestHex(Blake3::Hash(data)), 0, 32);
  etag.push_back('"');
  return etag;
}

bool Collections::ValidName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name == "." || name == "..") return false;
  for (unsigned char ch : name) {
    if (ch < 0x20 || ch == 0x7f || ch == '/' || ch == '\\') return false;
  }
  return true;
}

Result<meta::UserRow> Collections::Home(const auth::Principal& who, std::string_view owner_name) {
  std::optional<meta::UserRow> user;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(user, txn.GetUserByName(std::string(owner_name)));
    return Status::Ok();
  }));
  // Only the account itself has a home it can see (sharing adds others).
  if (!user || !user->active || who.anonymous() || who.link() || user->id != who.user_id ||
      !who.Has(auth::kScopeGroupware)) {
    return authz::CollectionHidden();
  }
  return *user;
}

Status Collections::EnsureDefault(const auth::Principal& who, const meta::UserRow& owner,
                                  Kind kind) {
  if (owner.id != who.user_id) return Status::Ok();
  const std::string key = std::string("groupware.defaults.") +
                          (kind == Kind::kCalendar ? "calendar." : "book.") +
                          std::to_string(owner.id);
  // Almost always done already: a read answers that without queueing for
  // the writer (every PROPFIND of a home and every request to the default
  // calendar or address book comes through here).
  std::optional<std::string> done;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(done, txn.GetSetting(key));
    return Status::Ok();
  }));
  if (done) return Status::Ok();
  return meta_.Write([&](meta::WriteTxn& txn) -> Status {
    // Once per account: a user who deleted the default does not get it back.
    NUBO_ASSIGN_OR_RETURN(auto seen, txn.GetSetting(key));
    if (seen) return Status::Ok();
    NUBO_RETURN_IF_ERROR(txn.SetSetting(key, "1"));
    meta::DavCollectionRow row;
    row.public_id = NewUuidV7();
    row.user_id = owner.id;
    row.kind = static_cast<int>(kind);
    if (kind == Kind::kCalendar) {
      row.name = options_.default_calendar;
      row.display_name = "Personal";
      row.components = kDefaultComponents;
    } else {
      row.name = options_.default_address_book;
      row.display_name = "Contacts";
    }
    row.created_at_ms = UnixMillis();
    Status st = txn.InsertDavCollection(row);
    if (st.code() == Code::kAlreadyExists) return Status::Ok();
    return st;
  });
}

Result<std::vector<meta::DavCollectionRow>> Collections::List(const auth::Principal& who,
                                                              const meta::UserRow& owner,
                                                              Kind kind) {
  NUBO_RETURN_IF_ERROR(EnsureDefault(who, owner, kind));
  std::vector<meta::DavCollectionRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto all, txn.ListDavCollections(owner.id, static_cast<int>(kind)));
    authz::Checker check(txn, who);
    for (auto& c : all) {
      if (check.OnCollection(c).ok()) out.push_back(std::move(c));
    }
    if (owner.id == who.user_id && (kind == Kind::kCalendar || kind == Kind::kAddressBook)) {
      NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, check.Groups());
      NUBO_ASSIGN_OR_RETURN(auto shared, txn.ListDavCollectionsSharedWith(who.user_id, *groups,
                                                                          static_cast<int>(kind)));
      for (auto& s : shared) {
        s.collection.mount_name = MountName(s.collection, s.owner_name);
        s.collection.owner_name = s.owner_name;
        s.collection.shared_read_only = s.read_only;
        out.push_back(std::move(s.collection));
      }
    }
    return Status::Ok();
  }));
  return out;
}

Result<meta::DavCollectionRow> Collections::Get(const auth::Principal& who,
                                                const meta::UserRow& owner, Kind kind,
                                                std::string_view name) {
  if (name ==
      (kind == Kind::kCalendar ? options_.default_calendar : options_.default_address_book)) {
    NUBO_RETURN_IF_ERROR(EnsureDefault(who, owner, kind));
  }
  std::optional<meta::DavCollectionRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(
        row, txn.GetDavCollection(owner.id, static_cast<int>(kind), std::string(name)));
    if (!row && owner.id == who.user_id) {
      // "<name>_shared_by_<owner>" in one's own home: a collection shared
      // with one (the check below decides; anything else is absent).
      constexpr std::string_view kBy = "_shared_by_";
      const size_t at = name.rfind(kBy);
      if (at != std::string_view::npos && at > 0) {
        NUBO_ASSIGN_OR_RETURN(auto sharer,
                              txn.GetUserByName(std::string(name.substr(at + kBy.size()))));
        if (sharer && sharer->active && sharer->id != owner.id) {
          NUBO_ASSIGN_OR_RETURN(row, txn.GetDavCollection(sharer->id, static_cast<int>(kind),
                                                          std::string(name.substr(0, at))));
          if (row) {
            row->mount_name = std::string(name);
            row->owner_name = sharer->username;
          }
        }
      }
    }
    if (!row) return authz::CollectionHidden();
    authz::Checker check(txn, who);
    NUBO_ASSIGN_OR_RETURN(authz::Perms p, check.OnCollection(*row));
    row->shared_read_only = !row->mount_name.empty() && !p.Has(authz::Action::kModify);
    return Status::Ok();
  }));
  return *row;
}

Result<meta::DavCollectionRow> Collections::Create(const auth::Principal& who,
                                                   const meta::UserRow& owner, Kind kind,
                                                   std::string_view name,
                                                   const CollectionProps& props) {
  if (!ValidName(name)) return Status::InvalidArgument("not a valid collection name");
  // The form a sharee's home gives collections shared with it.
  if (name.find("_shared_by_") != std::string_view::npos) {
    return Status::InvalidArgument("\"_shared_by_\" is kept for shared collections");
  }
  meta::DavCollectionRow row;
  row.public_id = NewUuidV7();
  row.user_id = owner.id;
  row.kind = static_cast<int>(kind);
  row.name = std::string(name);
  row.display_name = props.display_name.value_or("");
  row.description = props.description.value_or("");
  row.color = props.color.value_or("");
  row.sort_order = props.sort_order.value_or(0);
  row.timezone = props.timezone.value_or("");
  if (kind == Kind::kCalendar) row.components = props.components.value_or(kDefaultComponents);
  row.created_at_ms = UnixMillis();
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    // Only the owner makes collections in a home (RFC 4791 §5.3.1).
    if (owner.id != who.user_id || !who.Has(auth::kScopeGroupware)) {
      return authz::CollectionHidden();
    }
    NUBO_ASSIGN_OR_RETURN(auto existing, txn.ListDavCollections(owner.id, row.kind));
    if (existing.size() >= options_.max_collections) {
      return Status::QuotaExceeded("too many collections");
    }
    Status st = txn.InsertDavCollection(row);
    if (st.code() == Code::kAlreadyExists) {
      return Status::AlreadyExists("a collection of that name exists");
    }
    return st;
  }));
  return row;
}

Result<meta::DavCollectionRow> Collections::Update(
    const auth::Principal& who, const meta::DavCollectionRow& c, const CollectionProps& props,
    const std::vector<std::pair<meta::DavDeadProp, bool>>& dead) {
  meta::DavCollectionRow row;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    authz::Checker check(txn, who);
    // The collection's own properties are its owner's (a sharee may
    // write objects, not rename or recolour the owner's calendar).
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kManage));
    NUBO_ASSIGN_OR_RETURN(auto cur, txn.GetDavCollection(c.user_id, c.kind, c.name));
    if (!cur) return authz::CollectionHidden();
    row = *cur;
    row.mount_name = c.mount_name;
    if (props.display_name) row.display_name = *props.display_name;
    if (props.description) row.description = *props.description;
    if (props.color) row.color = *props.color;
    if (props.sort_order) row.sort_order = *props.sort_order;
    if (props.timezone) row.timezone = *props.timezone;
    NUBO_RETURN_IF_ERROR(txn.UpdateDavCollection(row));
    for (const auto& [p, remove] : dead) {
      NUBO_RETURN_IF_ERROR(txn.SetDavCollectionProp(
          row.id, p.ns, p.name, remove ? std::nullopt : std::optional<std::string>(p.value)));
    }
    return Status::Ok();
  }));
  return row;
}

Status Collections::Delete(const auth::Principal& who, const meta::DavCollectionRow& c) {
  return meta_.Write([&](meta::WriteTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_ASSIGN_OR_RETURN(authz::Perms p, check.OnCollection(c));
    if (c.user_id != who.user_id) {
      // A sharee leaves: its own share ends, the owner's data stays. One
      // that a group of its own also holds would stay visible: refused
      // before anything changes.
      NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* groups, check.Groups());
      if (!groups->empty()) {
        NUBO_ASSIGN_OR_RETURN(auto through_group, txn.DavShareAccess(c.id, 0, *groups));
        if (through_group) {
          return Status::PermissionDenied(
              "this was shared with a group of yours: leave the group, or ask the owner");
        }
      }
      NUBO_ASSIGN_OR_RETURN(bool left, txn.RemoveDavShare(c.id, false, who.user_id));
      if (!left) {
        return Status::PermissionDenied(
            "this was shared with a group of yours: leave the group, or ask the owner");
      }
      return Status::Ok();
    }
    if (!p.Has(authz::Action::kDelete)) return Status::PermissionDenied("not yours to delete");
    return txn.DeleteDavCollection(c.id);
  });
}

std::string Collections::MountName(const meta::DavCollectionRow& c, std::string_view owner_name) {
  return c.name + "_shared_by_" + std::string(owner_name);
}

Result<std::vector<meta::DavShareRow>> Collections::Shares(const auth::Principal& who,
                                                           const meta::DavCollectionRow& c) {
  std::vector<meta::DavShareRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kManage));
    NUBO_ASSIGN_OR_RETURN(out, txn.ListDavShares(c.id));
    return Status::Ok();
  }));
  return out;
}

namespace {

// A sharee by name: an active user other than the owner, or a group the
// owner belongs to (directly or nested; administrators: any group), so
// that sharing names no group one could not see. NotFound otherwise, the
// same for "not yours" and "none".
Result<int64_t> Grantee(meta::ReadTxn& txn, authz::Checker& check, const meta::DavCollectionRow& c,
                        bool is_group, std::string_view name) {
  if (name.empty() || name.size() > 256) return Status::NotFound("no such user or group");
  if (!is_group) {
    NUBO_ASSIGN_OR_RETURN(auto u, txn.GetUserByName(std::string(name)));
    if (!u || !u->active) return Status::NotFound("no such user or group");
    if (u->id == c.user_id) return Status::InvalidArgument("the owner has it already");
    return u->id;
  }
  NUBO_ASSIGN_OR_RETURN(auto g, txn.GetGroupByName(std::string(name)));
  if (!g) return Status::NotFound("no such user or group");
  if (authz::CheckAdmin(check.who()).ok()) return g->id;
  NUBO_ASSIGN_OR_RETURN(const std::vector<int64_t>* mine, check.Groups());
  if (std::find(mine->begin(), mine->end(), g->id) == mine->end()) {
    return Status::NotFound("no such user or group");
  }
  return g->id;
}

}  // namespace

Status Collections::Share(const auth::Principal& who, const meta::DavCollectionRow& c,
                          bool is_group, std::string_view grantee, bool read_only) {
  if (c.kind != static_cast<int>(Kind::kCalendar) &&
      c.kind != static_cast<int>(Kind::kAddressBook)) {
    return Status::PermissionDenied("only calendars and address books are shared");
  }
  return meta_.Write([&](meta::WriteTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kManage));
    NUBO_ASSIGN_OR_RETURN(int64_t id, Grantee(txn, check, c, is_group, grantee));
    return txn.SetDavShare(c.id, is_group, id, read_only, UnixMillis());
  });
}

Status Collections::Unshare(const auth::Principal& who, const meta::DavCollectionRow& c,
                            bool is_group, std::string_view grantee) {
  return meta_.Write([&](meta::WriteTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kManage));
    // Named among the collection's sharees only: a name that is none of
    // them answers as Share does for a sharee one may not name, so ending
    // a share tells nothing about which groups exist.
    NUBO_ASSIGN_OR_RETURN(auto shares, txn.ListDavShares(c.id));
    for (const meta::DavShareRow& s : shares) {
      if (s.is_group == is_group && s.grantee_name == grantee) {
        return txn.RemoveDavShare(c.id, is_group, s.grantee_id).status();
      }
    }
    return Status::NotFound("no such user or group");
  });
}

Result<std::vector<meta::DavDeadProp>> Collections::DeadProps(const auth::Principal& who,
                                                              const meta::DavCollectionRow& c) {
  std::vector<meta::DavDeadProp> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kRead));
    NUBO_ASSIGN_OR_RETURN(out, txn.ListDavCollectionProps(c.id));
    return Status::Ok();
  }));
  return out;
}

Result<meta::DavObjectRow> Collections::GetObject(const auth::Principal& who,
                                                  const meta::DavCollectionRow& c,
                                                  std::string_view name) {
  std::optional<meta::DavObjectRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kRead));
    NUBO_ASSIGN_OR_RETURN(row, txn.GetDavObject(c.id, std::string(name)));
    if (!row) return authz::CollectionHidden();
    return Status::Ok();
  }));
  return std::move(*row);
}

Status Collections::GetObjects(const auth::Principal& who, const meta::DavCollectionRow& c,
                               const std::vector<std::string>& names,
                               const std::function<Status(size_t, const meta::DavObjectRow*)>& fn) {
  return meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kRead));
    for (size_t i = 0; i < names.size(); ++i) {
      std::optional<meta::DavObjectRow> row;
      if (!names[i].empty()) {
        NUBO_ASSIGN_OR_RETURN(row, txn.GetDavObject(c.id, names[i]));
      }
      NUBO_RETURN_IF_ERROR(fn(i, row ? &*row : nullptr));
    }
    return Status::Ok();
  });
}

Result<std::vector<meta::DavObjectRow>> Collections::ListObjects(const auth::Principal& who,
                                                                 const meta::DavCollectionRow& c,
                                                                 const std::string& after,
                                                                 size_t limit, bool with_data) {
  std::vector<meta::DavObjectRow> out;
  NUBO_RETURN_IF_ERROR(
      ScanObjects(who, c, after, limit, with_data, [&](const meta::DavObjectRow& o) {
        out.push_back(o);
        return Status::Ok();
      }).status());
  return out;
}

Result<size_t> Collections::ScanObjects(
    const auth::Principal& who, const meta::DavCollectionRow& c, const std::string& after,
    size_t limit, bool with_data, const std::function<Status(const meta::DavObjectRow&)>& fn) {
  size_t n = 0;
  // Bound to the statement without a copy, while `fn` may change `after`.
  const std::string from = after;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kList));
    return txn.ScanDavObjects(c.id, from, limit, with_data, [&](const meta::DavObjectRow& o) {
      ++n;
      return fn(o);
    });
  }));
  return n;
}

Result<std::vector<meta::DavObjectRow>> Collections::ObjectsInRange(
    const auth::Principal& who, const meta::DavCollectionRow& c, std::optional<int64_t> start_ms,
    std::optional<int64_t> end_ms, const std::string& after, size_t limit) {
  std::vector<meta::DavObjectRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kList));
    NUBO_ASSIGN_OR_RETURN(out, txn.ListDavObjectsInRange(c.id, start_ms, end_ms, after, limit));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<meta::DavChange>> Collections::Changes(const auth::Principal& who,
                                                          const meta::DavCollectionRow& c,
                                                          int64_t since, size_t limit) {
  std::vector<meta::DavChange> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kList));
    NUBO_ASSIGN_OR_RETURN(auto cur, txn.GetDavCollection(c.user_id, c.kind, c.name));
    if (!cur) return authz::CollectionHidden();
    if (since > cur->sync_seq || since < cur->sync_floor) {
      return Status::InvalidArgument("valid-sync-token");
    }
    NUBO_ASSIGN_OR_RETURN(out, txn.DavChangesSince(c.id, since, limit));
    return Status::Ok();
  }));
  return out;
}

Result<meta::DavCollectionRow> Collections::Box(const auth::Principal& who,
                                                const meta::UserRow& owner, Kind kind) {
  if (owner.id != who.user_id || !who.Has(auth::kScopeGroupware)) {
    return authz::CollectionHidden();
  }
  const std::string name = kind == Kind::kInbox ? "inbox" : "outbox";
  std::optional<meta::DavCollectionRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, txn.GetDavCollection(owner.id, static_cast<int>(kind), name));
    return Status::Ok();
  }));
  if (row) return *row;
  meta::DavCollectionRow made;
  made.public_id = NewUuidV7();
  made.user_id = owner.id;
  made.kind = static_cast<int>(kind);
  made.name = name;
  made.created_at_ms = UnixMillis();
  const meta::DavCollectionRow fresh = made;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    made = fresh;  // a write may run again: not the row an earlier run found
    NUBO_ASSIGN_OR_RETURN(auto again, txn.GetDavCollection(owner.id, made.kind, name));
    if (again) {
      made = *again;
      return Status::Ok();
    }
    return txn.InsertDavCollection(made);
  }));
  return made;
}

Result<std::vector<FreeBusyAnswer>> Collections::FreeBusy(const auth::Principal& who,
                                                          const meta::UserRow& owner,
                                                          std::string_view request) {
  if (owner.id != who.user_id || !who.Has(auth::kScopeGroupware)) {
    return authz::CollectionHidden();
  }
  std::vector<FreeBusyAnswer> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(out, ScheduleFreeBusy(txn, owner, request));
    return Status::Ok();
  }));
  return out;
}

Result<meta::DavCollectionRow> Collections::Reload(const auth::Principal& who,
                                                   const meta::DavCollectionRow& c) {
  std::optional<meta::DavCollectionRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, txn.GetDavCollection(c.user_id, c.kind, c.name));
    if (!row) return authz::CollectionHidden();
    row->mount_name = c.mount_name;
    row->owner_name = c.owner_name;
    row->shared_read_only = c.shared_read_only;
    authz::Checker check(txn, who);
    return check.OnCollection(*row).status();
  }));
  return *row;
}

Result<PutOutcome> Collections::PutObject(const auth::Principal& who,
                                          const meta::DavCollectionRow& c, std::string_view name,
                                          std::string data, const ObjectConditions& cond,
                                          Refusal* refusal) {
  if (!ValidName(name)) return Status::InvalidArgument("not a valid object name");
  if (c.kind != static_cast<int>(Kind::kCalendar) &&
      c.kind != static_cast<int>(Kind::kAddressBook)) {
    // RFC 6638 §2.1.1: only the server delivers into a schedule inbox.
    return Status::PermissionDenied("messages arrive here only by scheduling");
  }
  if (data.size() > options_.max_object_size) {
    return Refuse(
        refusal, "max-resource-size",
        "the object is larger than " + std::to_string(options_.max_object_size) + " bytes");
  }
  NUBO_ASSIGN_OR_RETURN(Summary s, Summarize(c, data, refusal));
  PutOutcome out;
  meta::DavObjectRow& row = out.object;
  row.collection_id = c.id;
  row.name = std::string(name);
  row.uid = s.uid;
  row.component = s.component;
  row.etag = ETagOf(data);
  row.first_start_ms = s.first_start_ms;
  row.last_end_ms = s.last_end_ms;
  row.mtime_ms = UnixMillis();
  row.data = std::move(data);
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    if (refusal) *refusal = Refusal{};  // a write may run again: only its last run answers
    authz::Checker check(txn, who);
    NUBO_ASSIGN_OR_RETURN(authz::Perms perms, check.OnCollection(c));
    NUBO_ASSIGN_OR_RETURN(auto existing, txn.GetDavObject(c.id, row.name));
    NUBO_RETURN_IF_ERROR(CheckConditions(
        cond, existing ? std::optional<std::string>(existing->etag) : std::nullopt));
    const authz::Action need = existing ? authz::Action::kModify : authz::Action::kCreate;
    if (!perms.Has(need)) return Status::PermissionDenied("not allowed to write here");
    // RFC 4791 §5.3.2.1 / RFC 6352 §6.3.2.1: a UID names one resource per
    // collection, and a resource keeps its UID.
    NUBO_ASSIGN_OR_RETURN(auto holder, txn.GetDavObjectByUid(c.id, row.uid));
    if (holder && holder->name != row.name) {
      if (refusal) refusal->conflicting_name = holder->name;
      return Refuse(refusal, "no-uid-conflict", "another object in the collection has this UID");
    }
    out.created = !existing;
    NUBO_RETURN_IF_ERROR(txn.PutDavObject(row));
    // RFC 6638 §3.2: implicit scheduling, in this transaction.
    if (c.kind != static_cast<int>(Kind::kCalendar)) return Status::Ok();
    NUBO_ASSIGN_OR_RETURN(auto owner, txn.GetUser(c.user_id));
    if (!owner) return Status::Ok();
    return ScheduleAfterPut(txn, options_, *owner, existing, row);
  }));
  row.size = static_cast<int64_t>(row.data.size());
  row.data.clear();
  return out;
}

Status Collections::DeleteObject(const auth::Principal& who, const meta::DavCollectionRow& c,
                                 std::string_view name, const ObjectConditions& cond) {
  return meta_.Write([&](meta::WriteTxn& txn) -> Status {
    authz::Checker check(txn, who);
    NUBO_RETURN_IF_ERROR(check.RequireCollection(c, authz::Action::kDelete));
    NUBO_ASSIGN_OR_RETURN(auto existing, txn.GetDavObject(c.id, std::string(name)));
    if (!existing) return authz::CollectionHidden();
    NUBO_RETURN_IF_ERROR(CheckConditions(cond, existing->etag));
    NUBO_RETURN_IF_ERROR(txn.DeleteDavObject(c.id, existing->name));
    if (c.kind != static_cast<int>(Kind::kCalendar)) return Status::Ok();
    NUBO_ASSIGN_OR_RETURN(auto owner, txn.GetUser(c.user_id));
    if (!owner) return Status::Ok();
    return ScheduleAfterDelete(txn, options_, *owner, *existing);
  });
}

}  // namespace nubo::groupware
