#include "groupware/scheduling.h"

#include <algorithm>

#include "groupware/calendar_data.h"
#include "groupware/collections.h"
#include "groupware/itip.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::groupware {

namespace {

constexpr int kCalendarKind = static_cast<int>(Kind::kCalendar);
constexpr int kInboxKind = 3;   // PERSISTED (dav_collections.kind)
constexpr int kOutboxKind = 4;  // PERSISTED
constexpr uint32_t kAnyComponent = kCompEvent | kCompTodo | kCompJournal | kCompFreeBusy;
constexpr std::string_view kPrincipalPath = "/remote.php/dav/principals/users/";

// The box of `kind` of an account, made on first use.
Result<meta::DavCollectionRow> Box(meta::WriteTxn& txn, int64_t user_id, int kind) {
  const std::string name = kind == kInboxKind ? "inbox" : "outbox";
  NUBO_ASSIGN_OR_RETURN(auto got, txn.GetDavCollection(user_id, kind, name));
  if (got) return *got;
  meta::DavCollectionRow row;
  row.public_id = NewUuidV7();
  row.user_id = user_id;
  row.kind = kind;
  row.name = name;
  row.created_at_ms = UnixMillis();
  NUBO_RETURN_IF_ERROR(txn.InsertDavCollection(row));
  return row;
}

// Stores an iTIP message in a box: a message of its own (its own name and
// UID column, so several messages about one event can wait side by side).
Status Drop(meta::WriteTxn& txn, int64_t user_id, int kind, const std::string& message) {
  NUBO_ASSIGN_OR_RETURN(auto box, Box(txn, user_id, kind));
  meta::DavObjectRow row;
  row.collection_id = box.id;
  const std::string id = NewUuidV7();
  row.name = id + ".ics";
  row.uid = id;
  row.component = "VEVENT";
  row.etag = Collections::ETagOf(message);
  row.data = message;
  row.mtime_ms = UnixMillis();
  return txn.PutDavObject(row);
}

// Fills the span columns of a calendar object the server writes itself.
void Bounds(meta::DavObjectRow& row) {
  CalendarError err;
  auto info = ParseCalendarObject(row.data, kAnyComponent, &err);
  if (info.ok()) {
    row.first_start_ms = info->first_start_ms;
    row.last_end_ms = info->last_end_ms;
    row.component = info->component;
  }
}

// An account's object with `uid` in any of its calendars.
Result<std::optional<meta::DavObjectRow>> FindByUid(meta::ReadTxn& txn, int64_t user_id,
                                                    const std::string& uid) {
  NUBO_ASSIGN_OR_RETURN(auto cals, txn.ListDavCollections(user_id, kCalendarKind));
  for (const auto& c : cals) {
    NUBO_ASSIGN_OR_RETURN(auto hit, txn.GetDavObjectByUid(c.id, uid));
    if (hit) return txn.GetDavObject(c.id, hit->name);
  }
  return std::optional<meta::DavObjectRow>();
}

// Where an invitation lands: the default calendar, else the first one.
Result<std::optional<meta::DavCollectionRow>> InviteCalendar(meta::ReadTxn& txn, int64_t user_id,
                                                             const GroupwareOptions& opt) {
  NUBO_ASSIGN_OR_RETURN(auto def,
                        txn.GetDavCollection(user_id, kCalendarKind, opt.default_calendar));
  if (def) return def;
  NUBO_ASSIGN_OR_RETURN(auto cals, txn.ListDavCollections(user_id, kCalendarKind));
  for (auto& c : cals) {
    if (c.components == 0 || (c.components & kCompEvent)) return std::optional(c);
  }
  return std::optional<meta::DavCollectionRow>();
}

bool Mine(const std::vector<std::string>& mine, const std::string& address) {
  return std::find(mine.begin(), mine.end(), address) != mine.end();
}

// The organizer's REQUEST for one local attendee: inbox and calendar copy.
Status Invite(meta::WriteTxn& txn, const GroupwareOptions& opt, const meta::UserRow& attendee,
              const std::string& address, const meta::DavObjectRow& organizer_copy,
              const std::string& uid, const std::string& request) {
  NUBO_RETURN_IF_ERROR(Drop(txn, attendee.id, kInboxKind, request));
  NUBO_ASSIGN_OR_RETURN(auto existing, FindByUid(txn, attendee.id, uid));
  std::optional<std::string_view> previous;
  if (existing) previous = existing->data;
  NUBO_ASSIGN_OR_RETURN(std::string copy, AttendeeCopy(organizer_copy.data, address, previous));
  meta::DavObjectRow row;
  if (existing) {
    row = *existing;
  } else {
    NUBO_ASSIGN_OR_RETURN(auto cal, InviteCalendar(txn, attendee.id, opt));
    if (!cal) return Status::Ok();  // no calendar to put it in: the inbox has it
    row.collection_id = cal->id;
    row.name = organizer_copy.name;
    NUBO_ASSIGN_OR_RETURN(auto clash, txn.GetDavObject(cal->id, row.name));
    if (clash) row.name = NewUuidV7() + ".ics";
    row.uid = uid;
  }
  row.data = std::move(copy);
  row.etag = Collections::ETagOf(row.data);
  row.mtime_ms = UnixMillis();
  Bounds(row);
  return txn.PutDavObject(row);
}

Status Uninvite(meta::WriteTxn& txn, const meta::UserRow& attendee, const std::string& uid,
                const std::string& cancel) {
  NUBO_RETURN_IF_ERROR(Drop(txn, attendee.id, kInboxKind, cancel));
  NUBO_ASSIGN_OR_RETURN(auto existing, FindByUid(txn, attendee.id, uid));
  if (!existing) return Status::Ok();
  return txn.DeleteDavObject(existing->collection_id, existing->name);
}

// The organizer's side of a PUT: invitations to every attendee, CANCEL to
// those no longer invited.
Status AsOrganizer(meta::WriteTxn& txn, const GroupwareOptions& opt, const meta::UserRow& owner,
                   const std::optional<SchedulingInfo>& old_info, const SchedulingInfo& info,
                   const meta::DavObjectRow& now, const std::optional<meta::DavObjectRow>& before) {
  const auto mine = AddressesOf(owner);
  NUBO_ASSIGN_OR_RETURN(std::string request, MakeRequest(now.data));
  bool external = false;
  for (const Participant& p : info.attendees) {
    if (Mine(mine, p.address)) continue;
    NUBO_ASSIGN_OR_RETURN(auto user, LocalUser(txn, p.address));
    if (!user) {
      external = true;
      continue;
    }
    if (user->id == owner.id) continue;
    NUBO_RETURN_IF_ERROR(Invite(txn, opt, *user, p.address, now, info.uid, request));
  }
  if (external) NUBO_RETURN_IF_ERROR(Drop(txn, owner.id, kOutboxKind, request));
  if (!old_info || !before) return Status::Ok();
  std::optional<std::string> cancel;
  for (const Participant& p : old_info->attendees) {
    const bool still = std::any_of(info.attendees.begin(), info.attendees.end(),
                                   [&](const Participant& q) { return q.address == p.address; });
    if (still || Mine(mine, p.address)) continue;
    NUBO_ASSIGN_OR_RETURN(auto user, LocalUser(txn, p.address));
    if (!user || user->id == owner.id) continue;
    if (!cancel) {
      NUBO_ASSIGN_OR_RETURN(cancel, MakeCancel(before->data));
    }
    NUBO_RETURN_IF_ERROR(Uninvite(txn, *user, info.uid, *cancel));
  }
  return Status::Ok();
}

// The attendee's side of a PUT: a REPLY when their participation changed.
Status AsAttendee(meta::WriteTxn& txn, const meta::UserRow& owner, const std::string& me,
                  const SchedulingInfo& info, const meta::DavObjectRow& before,
                  const meta::DavObjectRow& now) {
  if (!ParticipationChanged(before.data, now.data, me)) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(std::string reply, MakeReply(now.data, me));
  NUBO_ASSIGN_OR_RETURN(auto organizer, LocalUser(txn, info.organizer));
  if (!organizer || organizer->id == owner.id) {
    return Drop(txn, owner.id, kOutboxKind, reply);
  }
  NUBO_RETURN_IF_ERROR(Drop(txn, organizer->id, kInboxKind, reply));
  NUBO_ASSIGN_OR_RETURN(auto copy, FindByUid(txn, organizer->id, info.uid));
  if (!copy) return Status::Ok();
  auto updated = ApplyReply(copy->data, reply);
  if (!updated.ok()) return Status::Ok();  // not an attendee there (any more): nothing to record
  copy->data = std::move(*updated);
  copy->etag = Collections::ETagOf(copy->data);
  copy->mtime_ms = UnixMillis();
  Bounds(*copy);
  return txn.PutDavObject(*copy);
}

std::optional<std::string> MyAttendeeAddress(const SchedulingInfo& info,
                                             const std::vector<std::string>& mine) {
  for (const Participant& p : info.attendees) {
    if (Mine(mine, p.address)) return p.address;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> AddressesOf(const meta::UserRow& u) {
  std::vector<std::string> out;
  if (u.email && !u.email->empty()) out.push_back(NormalizeAddress("mailto:" + *u.email));
  out.push_back(std::string(kPrincipalPath) + u.username + "/");
  return out;
}

Result<std::optional<meta::UserRow>> LocalUser(meta::ReadTxn& txn, std::string_view address) {
  const std::string a = NormalizeAddress(address);
  std::optional<meta::UserRow> user;
  if (a.rfind("mailto:", 0) == 0) {
    NUBO_ASSIGN_OR_RETURN(user, txn.GetUserByEmail(a.substr(7)));
  } else if (size_t at = a.find(kPrincipalPath); at != std::string::npos) {
    std::string name = a.substr(at + kPrincipalPath.size());
    if (!name.empty() && name.back() == '/') name.pop_back();
    if (!name.empty() && name.find('/') == std::string::npos) {
      NUBO_ASSIGN_OR_RETURN(user, txn.GetUserByName(name));
    }
  }
  if (user && !user->active) user.reset();
  return user;
}

Status ScheduleAfterPut(meta::WriteTxn& txn, const GroupwareOptions& opt,
                        const meta::UserRow& owner, const std::optional<meta::DavObjectRow>& before,
                        const meta::DavObjectRow& now) {
  auto info = ReadScheduling(now.data);
  if (!info.ok() || info->organizer.empty()) return Status::Ok();
  std::optional<SchedulingInfo> old_info;
  if (before) {
    auto o = ReadScheduling(before->data);
    if (o.ok()) old_info = std::move(*o);
  }
  const auto mine = AddressesOf(owner);
  if (Mine(mine, info->organizer)) {
    return AsOrganizer(txn, opt, owner, old_info, *info, now, before);
  }
  auto me = MyAttendeeAddress(*info, mine);
  if (me && before) return AsAttendee(txn, owner, *me, *info, *before, now);
  return Status::Ok();
}

Status ScheduleAfterDelete(meta::WriteTxn& txn, const GroupwareOptions& opt,
                           const meta::UserRow& owner, const meta::DavObjectRow& before) {
  auto info = ReadScheduling(before.data);
  if (!info.ok() || info->organizer.empty()) return Status::Ok();
  const auto mine = AddressesOf(owner);
  if (!Mine(mine, info->organizer)) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(std::string cancel, MakeCancel(before.data));
  bool external = false;
  for (const Participant& p : info->attendees) {
    if (Mine(mine, p.address)) continue;
    NUBO_ASSIGN_OR_RETURN(auto user, LocalUser(txn, p.address));
    if (!user) {
      external = true;
      continue;
    }
    if (user->id == owner.id) continue;
    NUBO_RETURN_IF_ERROR(Uninvite(txn, *user, info->uid, cancel));
  }
  if (external) NUBO_RETURN_IF_ERROR(Drop(txn, owner.id, kOutboxKind, cancel));
  return Status::Ok();
}

Result<std::vector<FreeBusyAnswer>> ScheduleFreeBusy(meta::ReadTxn& txn, const meta::UserRow& asker,
                                                     std::string_view request) {
  NUBO_ASSIGN_OR_RETURN(FreeBusyRequest fb, ReadFreeBusyRequest(request));
  if (!Mine(AddressesOf(asker), fb.organizer)) {
    return Status::PermissionDenied("the ORGANIZER is not the outbox's owner");
  }
  std::vector<FreeBusyAnswer> out;
  const TimeRange range{fb.start_ms, fb.end_ms};
  for (const std::string& who : fb.attendees) {
    FreeBusyAnswer a;
    a.recipient = who;
    NUBO_ASSIGN_OR_RETURN(auto user, LocalUser(txn, who));
    if (!user) {
      a.request_status = "3.7;Invalid calendar user";
      out.push_back(std::move(a));
      continue;
    }
    std::vector<BusyPeriod> periods;
    NUBO_ASSIGN_OR_RETURN(auto cals, txn.ListDavCollections(user->id, kCalendarKind));
    for (const auto& c : cals) {
      std::string after;
      for (;;) {
        NUBO_ASSIGN_OR_RETURN(auto page,
                              txn.ListDavObjectsInRange(c.id, fb.start_ms, fb.end_ms, after, 500));
        for (const auto& o : page) {
          auto b = BusyPeriods(o.data, range, c.timezone);
          periods.insert(periods.end(), b.begin(), b.end());
        }
        if (page.size() < 500) break;
        after = page.back().name;
      }
    }
    std::sort(periods.begin(), periods.end(), [](const BusyPeriod& x, const BusyPeriod& y) {
      return x.tentative != y.tentative ? x.tentative < y.tentative : x.start_ms < y.start_ms;
    });
    std::vector<BusyPeriod> merged;
    for (const auto& p : periods) {
      if (!merged.empty() && merged.back().tentative == p.tentative &&
          p.start_ms <= merged.back().end_ms) {
        merged.back().end_ms = std::max(merged.back().end_ms, p.end_ms);
      } else {
        merged.push_back(p);
      }
    }
    a.request_status = "2.0;Success";
    a.calendar_data = FreeBusyReply(fb, NormalizeAddress(who), merged);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace nubo::groupware
