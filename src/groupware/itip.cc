// RFC 5546 iTIP messages and RFC 6638 implicit scheduling on libical trees.
// Every function parses its input into its own tree (freed by RAII), edits
// or rebuilds it and prints it; nothing is shared between calls but
// libical's built-in time zones, which it locks.
//
// Components are matched across versions of an object by RECURRENCE-ID
// (RFC 5545 §3.8.4.4). Times are compared as written (value and TZID), not
// converted: the versions compared come from the same organizer, and a
// conversion through an embedded VTIMEZONE costs what calendar_data.cc
// has to budget for. Only RECURRENCE-IDs, which a REPLY from another
// system may write in UTC, are converted, and only through built-in zones.
#include "groupware/itip.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>

#include "groupware/ical_tree.h"
#include "util/time.h"

namespace nubo::groupware {
namespace {

using ical::BufferPtr;
using ical::Children;
using ical::ComponentPtr;
using ical::CountBegins;
using ical::EqualsIgnoreCase;
using ical::ErrnoScope;
using ical::FirstProp;
using ical::Lower;
using ical::Props;
using ical::RemoveProps;
using ical::Serialize;

// As calendar_data.cc: hostile data must not buy unbounded work, and
// libical frees and prints trees recursively.
constexpr size_t kMaxComponents = 10000;
constexpr const char* kProdId = "-//nubo//scheduling//EN";

char Upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::string UpperCopy(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), Upper);
  return out;
}

bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// One VCALENDAR, or InvalidArgument.
Result<ComponentPtr> Parse(std::string_view data) {
  if (std::any_of(data.begin(), data.end(),
                  [](char c) { return IsControl(c) && c != '\t' && c != '\r' && c != '\n'; })) {
    return Status::InvalidArgument("control character in iCalendar data");
  }
  if (CountBegins(data) > kMaxComponents) {
    return Status::InvalidArgument("more than 10000 components");
  }
  const std::string text(data);
  ComponentPtr root(icalparser_parse_string(text.c_str()));
  if (!root || icalcomponent_isa(root.get()) != ICAL_VCALENDAR_COMPONENT) {
    return Status::InvalidArgument("not one iCalendar VCALENDAR object");
  }
  return root;
}

void AddClone(icalcomponent* to, icalproperty* p) {
  if (p) icalcomponent_add_property(to, icalproperty_new_clone(p));
}

// The components scheduling is about (RFC 5546 §1.4), in order.
std::vector<icalcomponent*> Scheduled(icalcomponent* root) {
  std::vector<icalcomponent*> out;
  for (icalcomponent* c : Children(root)) {
    const icalcomponent_kind k = icalcomponent_isa(c);
    if (k == ICAL_VEVENT_COMPONENT || k == ICAL_VTODO_COMPONENT || k == ICAL_VJOURNAL_COMPONENT ||
        k == ICAL_VFREEBUSY_COMPONENT) {
      out.push_back(c);
    }
  }
  return out;
}

icalcomponent* Master(const std::vector<icalcomponent*>& comps) {
  for (icalcomponent* c : comps) {
    if (!FirstProp(c, ICAL_RECURRENCEID_PROPERTY)) return c;
  }
  return comps.empty() ? nullptr : comps.front();
}

std::string ValueString(icalproperty* p) {
  BufferPtr s(p ? icalproperty_get_value_as_string_r(p) : nullptr);
  return s ? std::string(s.get()) : std::string();
}

std::string ParamString(icalproperty* p, const char* name) {
  BufferPtr s(p ? icalproperty_get_parameter_as_string_r(p, name) : nullptr);
  return s ? std::string(s.get()) : std::string();
}

std::string ParamName(icalparameter* param) {
  const icalparameter_kind k = icalparameter_isa(param);
  const char* name = k == ICAL_X_PARAMETER      ? icalparameter_get_xname(param)
                     : k == ICAL_IANA_PARAMETER ? icalparameter_get_iana_name(param)
                                                : icalparameter_kind_to_string(k);
  return name ? name : "";
}

// Removes every parameter called `name` (libical's by-name removal stops
// at the first and compares case-sensitively).
void RemoveParams(icalproperty* p, std::string_view name) {
  std::vector<icalparameter*> doomed;
  for (icalparameter* q = icalproperty_get_first_parameter(p, ICAL_ANY_PARAMETER); q;
       q = icalproperty_get_next_parameter(p, ICAL_ANY_PARAMETER)) {
    if (EqualsIgnoreCase(ParamName(q), name)) doomed.push_back(q);
  }
  for (icalparameter* q : doomed) icalproperty_remove_parameter_by_ref(p, q);  // frees q
}

// Sets `name` to `value` (replacing it), or removes it when `value` is
// empty. False when libical refuses the value.
bool SetParam(icalproperty* p, icalparameter_kind kind, const std::string& value) {
  if (value.empty()) {
    RemoveParams(p, icalparameter_kind_to_string(kind));
    return true;
  }
  icalparameter* param = icalparameter_new_from_value_string(kind, value.c_str());
  if (!param) return false;
  RemoveParams(p, icalparameter_kind_to_string(kind));
  icalproperty_add_parameter(p, param);
  return true;
}

// RFC 6638 §7.1-§7.3: SCHEDULE-AGENT, SCHEDULE-STATUS and
// SCHEDULE-FORCE-SEND are the server's business with its own clients and
// never travel in iTIP messages or into another user's calendar.
void StripScheduleParams(icalcomponent* c) {
  for (icalproperty_kind kind : {ICAL_ORGANIZER_PROPERTY, ICAL_ATTENDEE_PROPERTY}) {
    for (icalproperty* p : Props(c, kind)) {
      for (const char* name : {"SCHEDULE-AGENT", "SCHEDULE-STATUS", "SCHEDULE-FORCE-SEND"}) {
        RemoveParams(p, name);
      }
    }
  }
}

std::string Address(icalproperty* p) { return NormalizeAddress(ValueString(p)); }

icalproperty* FindAttendee(icalcomponent* c, std::string_view address) {
  for (icalproperty* p : Props(c, ICAL_ATTENDEE_PROPERTY)) {
    if (Address(p) == address) return p;
  }
  return nullptr;
}

std::string Partstat(icalproperty* attendee) {
  const std::string s = UpperCopy(ParamString(attendee, "PARTSTAT"));
  return s.empty() ? "NEEDS-ACTION" : s;
}

bool ValidFields(const icaltimetype& t) {
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (t.year < 1 || t.year > 9999 || t.month < 1 || t.month > 12) return false;
  if (t.day < 1 || t.day > kDays[t.month - 1]) return false;
  return t.is_date || (t.hour >= 0 && t.hour <= 23 && t.minute >= 0 && t.minute <= 59 &&
                       t.second >= 0 && t.second <= 60);
}

// The key a component is matched by across versions: "" for a master,
// otherwise its RECURRENCE-ID, in UTC when it is UTC or in a built-in
// zone (a REPLY from elsewhere may write "…Z" for "TZID=Europe/Berlin:…"),
// else as written with its TZID.
std::string RidKey(icalcomponent* c) {
  icalproperty* p = FirstProp(c, ICAL_RECURRENCEID_PROPERTY);
  if (!p) return "";
  const std::string tzid = ParamString(p, "TZID");
  icalvalue* v = icalproperty_get_value(p);
  if (!v || icalvalue_isa(v) != ICAL_DATETIME_VALUE) return "=" + ValueString(p) + "|" + tzid;
  icaltimetype t = icalvalue_get_datetime(v);
  icaltimezone* utc = icaltimezone_get_utc_timezone();
  icaltimezone* zone = icaltime_is_utc(t) ? utc : nullptr;
  if (!zone && !tzid.empty()) {
    zone = icaltimezone_get_builtin_timezone(tzid.c_str());
    if (!zone) zone = icaltimezone_get_builtin_timezone_from_tzid(tzid.c_str());
  }
  // Past ~2500 libical re-expands a zone on every call (see calendar_data.cc).
  if (!zone || !ValidFields(t) || t.year > 2500) return "=" + ValueString(p) + "|" + tzid;
  t.zone = nullptr;
  if (zone != utc) icaltimezone_convert_time(&t, zone, utc);
  char buf[32];
  std::snprintf(buf, sizeof buf, "Z%04d%02d%02dT%02d%02d%02d", t.year, t.month, t.day, t.hour,
                t.minute, t.second);
  return buf;
}

icalcomponent* FindByRid(const std::vector<icalcomponent*>& comps, const std::string& key) {
  for (icalcomponent* c : comps) {
    if (RidKey(c) == key) return c;
  }
  return nullptr;
}

// What decides when an instance happens, as written (RFC 5545 §3.8.2,
// §3.8.5.3): equal keys mean the attendee's answer still applies.
std::string TimingKey(icalcomponent* c) {
  std::string key;
  for (icalproperty_kind kind : {ICAL_DTSTART_PROPERTY, ICAL_DTEND_PROPERTY, ICAL_DUE_PROPERTY,
                                 ICAL_DURATION_PROPERTY, ICAL_RRULE_PROPERTY}) {
    for (icalproperty* p : Props(c, kind)) {
      key += icalproperty_kind_to_string(kind);
      key += ";" + ParamString(p, "TZID") + ":" + ValueString(p) + "\n";
    }
  }
  return key;
}

icaltimetype UtcTime(int64_t ms) {
  // Years 1-9999 (RFC 5545 §3.3.4 writes four digits) whatever the caller passes.
  static const int64_t kMin = ParseUtcDateTime("00010101T000000Z").value_or(0);
  static const int64_t kMax = ParseUtcDateTime("99991231T235959Z").value_or(0);
  icaltimetype t = icaltime_from_string(FormatUtcDateTime(std::clamp(ms, kMin, kMax)).c_str());
  t.zone = icaltimezone_get_utc_timezone();
  return t;
}

void SetDtstampNow(icalcomponent* c) {
  RemoveProps(c, ICAL_DTSTAMP_PROPERTY);
  icalcomponent_add_property(c, icalproperty_new_dtstamp(UtcTime(UnixMillis())));
}

// A fresh VCALENDAR for a message, with the source's VERSION and PRODID
// (ours when it has none) and `method`.
ComponentPtr NewMessage(icalcomponent* source, icalproperty_method method) {
  ComponentPtr out(icalcomponent_new(ICAL_VCALENDAR_COMPONENT));
  icalcomponent_add_property(out.get(), icalproperty_new_version("2.0"));
  icalproperty* prodid = source ? FirstProp(source, ICAL_PRODID_PROPERTY) : nullptr;
  icalcomponent_add_property(
      out.get(), prodid ? icalproperty_new_clone(prodid) : icalproperty_new_prodid(kProdId));
  icalcomponent_add_property(out.get(), icalproperty_new_method(method));
  if (source) {
    for (icalcomponent* tz : Children(source, ICAL_VTIMEZONE_COMPONENT)) {
      icalcomponent_add_component(out.get(), icalcomponent_new_clone(tz));
    }
  }
  return out;
}

std::string Sanitized(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!IsControl(c)) out += c;
  }
  return out;
}

// ---- AttendeeCopy ----

// The attendee's PARTSTAT and RSVP from `from` onto `to`.
void CopyAnswer(icalproperty* from, icalproperty* to) {
  SetParam(to, ICAL_PARTSTAT_PARAMETER, ParamString(from, "PARTSTAT"));
  SetParam(to, ICAL_RSVP_PARAMETER, UpperCopy(ParamString(from, "RSVP")));
}

// The previous copy's component whose answer still holds for `c`, or null.
icalcomponent* UnchangedPrevious(icalcomponent* c, const std::vector<icalcomponent*>& previous) {
  const std::string key = RidKey(c);
  if (icalcomponent* p = FindByRid(previous, key)) {
    return TimingKey(p) == TimingKey(c) ? p : nullptr;
  }
  // A new override (the organizer edited one instance's text): the answer
  // given to the whole series holds if the instance stays where it was.
  icalcomponent* master = key.empty() ? nullptr : FindByRid(previous, "");
  if (!master) return nullptr;
  icalproperty* rid = FirstProp(c, ICAL_RECURRENCEID_PROPERTY);
  icalproperty* start = FirstProp(c, ICAL_DTSTART_PROPERTY);
  if (!start || ValueString(start) != ValueString(rid) ||
      ParamString(start, "TZID") != ParamString(rid, "TZID")) {
    return nullptr;
  }
  return master;
}

// ---- ParticipationChanged ----

// RECURRENCE-ID key -> the attendee's PARTSTAT, for components listing them.
std::map<std::string, std::string> Answers(icalcomponent* root, std::string_view attendee) {
  std::map<std::string, std::string> out;
  for (icalcomponent* c : Scheduled(root)) {
    if (icalproperty* a = FindAttendee(c, attendee)) out.emplace(RidKey(c), Partstat(a));
  }
  return out;
}

// An instance without an override answers as the master does.
std::optional<std::string> AnswerFor(const std::map<std::string, std::string>& answers,
                                     const std::string& key) {
  auto it = answers.find(key);
  if (it == answers.end()) it = answers.find("");
  if (it == answers.end()) return std::nullopt;
  return it->second;
}

// ---- MakeReply / ApplyReply ----

// One REPLY component: the identifying properties and the attendee's line.
icalcomponent* ReplyComponent(icalcomponent* c, icalproperty* attendee) {
  icalcomponent* out = icalcomponent_new(icalcomponent_isa(c));
  AddClone(out, FirstProp(c, ICAL_UID_PROPERTY));
  SetDtstampNow(out);
  icalproperty* seq = FirstProp(c, ICAL_SEQUENCE_PROPERTY);
  icalcomponent_add_property(out,
                             icalproperty_new_sequence(seq ? icalproperty_get_sequence(seq) : 0));
  AddClone(out, FirstProp(c, ICAL_RECURRENCEID_PROPERTY));
  AddClone(out, FirstProp(c, ICAL_DTSTART_PROPERTY));
  AddClone(out, FirstProp(c, ICAL_ORGANIZER_PROPERTY));
  AddClone(out, attendee);
  StripScheduleParams(out);
  return out;
}

// RFC 5545 §3.2.12's values and experimental "X-" names: another token is
// no IANA registration any client would understand.
bool KnownPartstat(std::string_view s) {
  for (std::string_view known : {"NEEDS-ACTION", "ACCEPTED", "DECLINED", "TENTATIVE", "DELEGATED",
                                 "COMPLETED", "IN-PROCESS"}) {
    if (s == known) return true;
  }
  return s.size() > 2 && s.substr(0, 2) == "X-" && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
         });
}

struct ReplyAnswer {
  std::string rid_key;
  std::string partstat;
};

// The replying attendee and their answers, checked against `uid`.
Status ReadReply(icalcomponent* reply, const std::string& uid, std::string* attendee,
                 std::vector<ReplyAnswer>* answers) {
  icalproperty* method = FirstProp(reply, ICAL_METHOD_PROPERTY);
  if (method && icalproperty_get_method(method) != ICAL_METHOD_REPLY) {
    return Status::InvalidArgument("not an iTIP REPLY");
  }
  for (icalcomponent* c : Scheduled(reply)) {
    const char* c_uid = icalcomponent_get_uid(c);
    if (!c_uid || uid != c_uid) return Status::InvalidArgument("REPLY for another UID");
    // RFC 5546 §3.2.3: exactly one ATTENDEE, the one replying.
    std::vector<icalproperty*> lines = Props(c, ICAL_ATTENDEE_PROPERTY);
    if (lines.size() != 1) return Status::InvalidArgument("REPLY needs exactly one ATTENDEE");
    const std::string who = Address(lines[0]);
    if (who.empty() || (!attendee->empty() && *attendee != who)) {
      return Status::InvalidArgument("REPLY from more than one attendee");
    }
    *attendee = who;
    std::string partstat = Partstat(lines[0]);
    if (!KnownPartstat(partstat)) return Status::InvalidArgument("unknown PARTSTAT in REPLY");
    answers->push_back({RidKey(c), std::move(partstat)});
  }
  if (answers->empty()) return Status::InvalidArgument("REPLY without a component");
  return Status::Ok();
}

// ---- Free-busy ----

// [start, end) of the request's DTSTART/DTEND in ms. The times go through
// BusyPeriods (a one-event calendar with the request's VTIMEZONEs) so that
// TZIDs resolve under calendar_data.cc's cost limits on embedded zones.
Result<std::pair<int64_t, int64_t>> RequestSpan(icalcomponent* root, icalcomponent* fb) {
  icalproperty* start = FirstProp(fb, ICAL_DTSTART_PROPERTY);
  icalproperty* end = FirstProp(fb, ICAL_DTEND_PROPERTY);
  if (!start || !end) return Status::InvalidArgument("VFREEBUSY needs DTSTART and DTEND");
  ComponentPtr cal(icalcomponent_new(ICAL_VCALENDAR_COMPONENT));
  icalcomponent_add_property(cal.get(), icalproperty_new_version("2.0"));
  icalcomponent_add_property(cal.get(), icalproperty_new_prodid(kProdId));
  for (icalcomponent* tz : Children(root, ICAL_VTIMEZONE_COMPONENT)) {
    icalcomponent_add_component(cal.get(), icalcomponent_new_clone(tz));
  }
  icalcomponent* ev = icalcomponent_new(ICAL_VEVENT_COMPONENT);
  icalcomponent_add_property(ev, icalproperty_new_uid("free-busy-request"));
  AddClone(ev, start);
  AddClone(ev, end);
  icalcomponent_add_component(cal.get(), ev);
  const std::vector<BusyPeriod> span = BusyPeriods(Serialize(cal.get()), TimeRange{});
  if (span.size() != 1) {
    return Status::InvalidArgument("VFREEBUSY needs readable DTSTART before DTEND");
  }
  return std::make_pair(span[0].start_ms, span[0].end_ms);
}

}  // namespace

std::string NormalizeAddress(std::string_view address) {
  while (!address.empty() && (address.front() == ' ' || address.front() == '\t')) {
    address.remove_prefix(1);
  }
  while (!address.empty() && (address.back() == ' ' || address.back() == '\t')) {
    address.remove_suffix(1);
  }
  static constexpr std::string_view kMailto = "mailto:";
  if (address.size() < kMailto.size() || !EqualsIgnoreCase(address.substr(0, 7), kMailto)) {
    return std::string(address);
  }
  std::string out(address);
  std::transform(out.begin(), out.end(), out.begin(), Lower);
  return out;
}

Result<SchedulingInfo> ReadScheduling(std::string_view data) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(data));
  icalcomponent* master = Master(Scheduled(root.get()));
  if (!master) return Status::InvalidArgument("no calendar component");
  SchedulingInfo info;
  const char* uid = icalcomponent_get_uid(master);
  if (!uid || !*uid) return Status::InvalidArgument("component without UID");
  info.uid = uid;
  info.component = icalcomponent_kind_to_string(icalcomponent_isa(master));
  info.organizer = Address(FirstProp(master, ICAL_ORGANIZER_PROPERTY));
  std::set<std::string> seen;
  for (icalproperty* p : Props(master, ICAL_ATTENDEE_PROPERTY)) {
    Participant part;
    part.address = Address(p);
    if (part.address.empty() || !seen.insert(part.address).second) continue;
    part.partstat = Partstat(p);
    part.cn = ParamString(p, "CN");
    part.rsvp = EqualsIgnoreCase(ParamString(p, "RSVP"), "TRUE");
    info.attendees.push_back(std::move(part));
  }
  if (icalproperty* seq = FirstProp(master, ICAL_SEQUENCE_PROPERTY)) {
    info.sequence = icalproperty_get_sequence(seq);
  }
  icalproperty* status = FirstProp(master, ICAL_STATUS_PROPERTY);
  info.cancelled = status && icalproperty_get_status(status) == ICAL_STATUS_CANCELLED;
  return info;
}

Result<std::string> MakeRequest(std::string_view organizer_data) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(organizer_data));
  const std::vector<icalcomponent*> comps = Scheduled(root.get());
  if (comps.empty()) return Status::InvalidArgument("no calendar component");
  RemoveProps(root.get(), ICAL_METHOD_PROPERTY);
  icalcomponent_add_property(root.get(), icalproperty_new_method(ICAL_METHOD_REQUEST));
  for (icalcomponent* c : comps) {
    StripScheduleParams(c);
    SetDtstampNow(c);
  }
  return Serialize(root.get());
}

Result<std::string> MakeCancel(std::string_view organizer_data) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(organizer_data));
  const std::vector<icalcomponent*> comps = Scheduled(root.get());
  if (comps.empty()) return Status::InvalidArgument("no calendar component");
  ComponentPtr out = NewMessage(root.get(), ICAL_METHOD_CANCEL);
  for (icalcomponent* c : comps) {
    icalcomponent* k = icalcomponent_new(icalcomponent_isa(c));
    AddClone(k, FirstProp(c, ICAL_UID_PROPERTY));
    SetDtstampNow(k);
    // RFC 5546 §2.1.4: a CANCEL is a revision, so it outranks the REQUEST.
    icalproperty* seq = FirstProp(c, ICAL_SEQUENCE_PROPERTY);
    const int next = seq ? icalproperty_get_sequence(seq) : 0;
    icalcomponent_add_property(k, icalproperty_new_sequence(next < INT32_MAX ? next + 1 : next));
    AddClone(k, FirstProp(c, ICAL_ORGANIZER_PROPERTY));
    for (icalproperty* a : Props(c, ICAL_ATTENDEE_PROPERTY)) AddClone(k, a);
    AddClone(k, FirstProp(c, ICAL_RECURRENCEID_PROPERTY));
    AddClone(k, FirstProp(c, ICAL_DTSTART_PROPERTY));
    icalcomponent_add_property(k, icalproperty_new_status(ICAL_STATUS_CANCELLED));
    StripScheduleParams(k);
    icalcomponent_add_component(out.get(), k);
  }
  return Serialize(out.get());
}

Result<std::string> AttendeeCopy(std::string_view organizer_data, std::string_view attendee,
                                 std::optional<std::string_view> previous_copy) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(organizer_data));
  const std::vector<icalcomponent*> comps = Scheduled(root.get());
  if (comps.empty()) return Status::InvalidArgument("no calendar component");
  RemoveProps(root.get(), ICAL_METHOD_PROPERTY);  // RFC 4791 §4.1: stored objects have none
  ComponentPtr previous;
  if (previous_copy) {
    // A broken stored copy must not block the organizer's updates: the
    // attendee is then asked again, as if the copy were new.
    Result<ComponentPtr> parsed = Parse(*previous_copy);
    if (parsed.ok()) previous = std::move(parsed).value();
  }
  const std::vector<icalcomponent*> before =
      previous ? Scheduled(previous.get()) : std::vector<icalcomponent*>();
  for (icalcomponent* c : comps) {
    StripScheduleParams(c);
    icalproperty* mine = FindAttendee(c, attendee);
    if (!mine) continue;
    icalcomponent* old = UnchangedPrevious(c, before);
    if (icalproperty* was = old ? FindAttendee(old, attendee) : nullptr) CopyAnswer(was, mine);
  }
  return Serialize(root.get());
}

bool ParticipationChanged(std::string_view before, std::string_view after,
                          std::string_view attendee) {
  ErrnoScope errno_scope;
  Result<ComponentPtr> a = Parse(before);
  Result<ComponentPtr> b = Parse(after);
  if (!a.ok() || !b.ok()) return false;
  const std::map<std::string, std::string> was = Answers(a->get(), attendee);
  const std::map<std::string, std::string> is = Answers(b->get(), attendee);
  std::set<std::string> keys;
  for (const auto& [k, v] : was) keys.insert(k);
  for (const auto& [k, v] : is) keys.insert(k);
  for (const std::string& key : keys) {
    const std::optional<std::string> now = AnswerFor(is, key);
    if (!now) continue;  // no longer an attendee there: nothing to answer
    const std::optional<std::string> then = AnswerFor(was, key);
    if (then ? *then != *now : *now != "NEEDS-ACTION") return true;
  }
  return false;
}

Result<std::string> MakeReply(std::string_view attendee_data, std::string_view attendee) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(attendee_data));
  ComponentPtr out = NewMessage(root.get(), ICAL_METHOD_REPLY);
  bool any = false;
  for (icalcomponent* c : Scheduled(root.get())) {
    icalproperty* mine = FindAttendee(c, attendee);
    if (!mine) continue;
    icalcomponent_add_component(out.get(), ReplyComponent(c, mine));
    any = true;
  }
  if (!any) return Status::InvalidArgument("the attendee is not invited");
  return Serialize(out.get());
}

Result<std::string> ApplyReply(std::string_view organizer_data, std::string_view reply) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(organizer_data));
  NUBO_ASSIGN_OR_RETURN(ComponentPtr message, Parse(reply));
  const std::vector<icalcomponent*> comps = Scheduled(root.get());
  icalcomponent* master = Master(comps);
  const char* uid = master ? icalcomponent_get_uid(master) : nullptr;
  if (!uid || !*uid) return Status::InvalidArgument("no calendar component with a UID");
  std::string attendee;
  std::vector<ReplyAnswer> answers;
  NUBO_RETURN_IF_ERROR(ReadReply(message.get(), uid, &attendee, &answers));
  if (std::none_of(comps.begin(), comps.end(),
                   [&](icalcomponent* c) { return FindAttendee(c, attendee) != nullptr; })) {
    return Status::InvalidArgument("REPLY from someone who is not an attendee");
  }
  for (const ReplyAnswer& answer : answers) {
    // RFC 6638 §3.2.2.3: an answer for an instance the organizer has no
    // override for would need one made; the answer is dropped instead.
    icalcomponent* c = FindByRid(comps, answer.rid_key);
    icalproperty* line = c ? FindAttendee(c, attendee) : nullptr;
    if (!line) continue;
    if (!SetParam(line, ICAL_PARTSTAT_PARAMETER, answer.partstat)) {
      return Status::InvalidArgument("unusable PARTSTAT in REPLY");
    }
    // RFC 6638 §7.3: 2.0 = the reply was delivered and processed.
    SetParam(line, ICAL_SCHEDULESTATUS_PARAMETER, "2.0");
  }
  return Serialize(root.get());
}

Result<FreeBusyRequest> ReadFreeBusyRequest(std::string_view data) {
  ErrnoScope errno_scope;
  NUBO_ASSIGN_OR_RETURN(ComponentPtr root, Parse(data));
  icalproperty* method = FirstProp(root.get(), ICAL_METHOD_PROPERTY);
  if (!method || icalproperty_get_method(method) != ICAL_METHOD_REQUEST) {
    return Status::InvalidArgument("free-busy request needs METHOD:REQUEST");
  }
  const std::vector<icalcomponent*> comps = Scheduled(root.get());
  if (comps.size() != 1 || icalcomponent_isa(comps[0]) != ICAL_VFREEBUSY_COMPONENT) {
    return Status::InvalidArgument("free-busy request needs exactly one VFREEBUSY");
  }
  icalcomponent* fb = comps[0];
  FreeBusyRequest req;
  NUBO_ASSIGN_OR_RETURN(auto span, RequestSpan(root.get(), fb));
  req.start_ms = span.first;
  req.end_ms = span.second;
  req.organizer = Address(FirstProp(fb, ICAL_ORGANIZER_PROPERTY));
  if (req.organizer.empty()) return Status::InvalidArgument("VFREEBUSY needs an ORGANIZER");
  std::set<std::string> seen;
  for (icalproperty* p : Props(fb, ICAL_ATTENDEE_PROPERTY)) {
    std::string a = Address(p);
    if (!a.empty() && seen.insert(a).second) req.attendees.push_back(std::move(a));
  }
  if (req.attendees.empty()) return Status::InvalidArgument("VFREEBUSY needs an ATTENDEE");
  if (const char* uid = icalcomponent_get_uid(fb)) req.uid = uid;
  return req;
}

std::string FreeBusyReply(const FreeBusyRequest& request, std::string_view attendee,
                          const std::vector<BusyPeriod>& periods) {
  ErrnoScope errno_scope;
  ComponentPtr out = NewMessage(nullptr, ICAL_METHOD_REPLY);
  icalcomponent* fb = icalcomponent_new(ICAL_VFREEBUSY_COMPONENT);
  icalcomponent_add_component(out.get(), fb);
  if (!request.uid.empty()) {
    icalcomponent_add_property(fb, icalproperty_new_uid(Sanitized(request.uid).c_str()));
  }
  SetDtstampNow(fb);
  icalcomponent_add_property(fb, icalproperty_new_dtstart(UtcTime(request.start_ms)));
  icalcomponent_add_property(fb, icalproperty_new_dtend(UtcTime(request.end_ms)));
  icalcomponent_add_property(fb, icalproperty_new_organizer(Sanitized(request.organizer).c_str()));
  icalcomponent_add_property(fb, icalproperty_new_attendee(Sanitized(attendee).c_str()));
  for (const BusyPeriod& b : periods) {
    const int64_t s = std::max(b.start_ms, request.start_ms);
    const int64_t e = std::min(b.end_ms, request.end_ms);
    if (e <= s) continue;
    icalperiodtype period = icalperiodtype_null_period();
    period.start = UtcTime(s);
    period.end = UtcTime(e);
    icalproperty* p = icalproperty_new_freebusy(period);
    icalproperty_add_parameter(
        p, icalparameter_new_fbtype(b.tentative ? ICAL_FBTYPE_BUSYTENTATIVE : ICAL_FBTYPE_BUSY));
    icalcomponent_add_property(fb, p);
  }
  return Serialize(out.get());
}

}  // namespace nubo::groupware
