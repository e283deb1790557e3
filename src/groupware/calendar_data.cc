// RFC 5545 iCalendar objects as RFC 4791 CalDAV stores, filters and expands
// them. libical parses and steps recurrence rules; the CalDAV semantics
// (§4.1 validation, §9.7 filters, §9.9 time ranges, §9.6.5 expand, §9.6.6
// limit-recurrence-set, §7.10 free-busy) live here, on one "instance" model:
// every recurrence set is first turned into a list of instances (DTSTART,
// RRULE, RDATE, EXDATE, overridden instances), then each question asked of
// the instances. Every call parses its own tree, so nothing is shared
// between threads but libical's built-in time zones (which it locks).
#include "groupware/calendar_data.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "groupware/ical_tree.h"

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

// Hostile data must not buy unbounded work. Components are counted before
// parsing (libical frees and prints trees recursively).
constexpr size_t kMaxComponents = 10000;
// Instances generated per call, over every recurrence set it expands.
constexpr size_t kMaxInstances = 100000;
// libical steps a rule one FREQ×INTERVAL unit at a time while it looks for
// the next match: FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30 never returns, an
// unsatisfiable HOURLY rule takes 8 s (measured, ~1 µs a step). So every
// walk gets an UNTIL at most this many units ahead, shared per call.
constexpr int64_t kMaxRuleSteps = 100000;
// Instances one expand answer may hold (RFC 4791 §5.2.8 lets a server
// set such a max-instances): building and printing one costs ~60 µs.
constexpr size_t kMaxExpandedInstances = 10000;
// An index over an unbounded rule needs only its first instances.
constexpr size_t kUnboundedIndexInstances = 1000;
// Upper bound on the transitions libical computes for embedded VTIMEZONEs
// (it expands each observance from its DTSTART; ~12 µs a transition).
constexpr int64_t kMaxZoneChanges = 50000;
constexpr int kMaxAlarmRepeats = 1000;

constexpr int64_t kSecondMs = 1000;
constexpr int64_t kHourMs = 3600 * kSecondMs;
constexpr int64_t kDayMs = 24 * kHourMs;
constexpr int64_t kFloatingSlackMs = 14 * kHourMs;  // UTC-12 … UTC+14
constexpr int64_t kAlarmSlackMs = 366 * kDayMs;     // alarms set a year ahead at most
constexpr int64_t kMaxDurationSec = 10000LL * 366 * 86400;
constexpr int64_t kNegInf = INT64_MIN / 4;
constexpr int64_t kPosInf = INT64_MAX / 4;

struct IteratorFree {
  void operator()(icalrecur_iterator* i) const { icalrecur_iterator_free(i); }
};
using IteratorPtr = std::unique_ptr<icalrecur_iterator, IteratorFree>;
bool IsCalendarKind(icalcomponent_kind k) {
  return k == ICAL_VEVENT_COMPONENT || k == ICAL_VTODO_COMPONENT || k == ICAL_VJOURNAL_COMPONENT ||
         k == ICAL_VFREEBUSY_COMPONENT;
}

// ---- Civil time (proleptic Gregorian, as RFC 5545 §3.3.4 prescribes) ----

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

void CivilFromDays(int64_t z, int* y, int* m, int* d) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = static_cast<int>(yoe + era * 400 + (*m <= 2));
}

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// libical accepts "20241345T256199"; its zone code indexes tables by month.
bool ValidFields(const icaltimetype& t) {
  if (t.year < 0 || t.year > 9999 || t.month < 1 || t.month > 12) return false;
  if (t.day < 1 || t.day > DaysInMonth(t.year, t.month)) return false;
  return t.is_date || (t.hour >= 0 && t.hour <= 23 && t.minute >= 0 && t.minute <= 59 &&
                       t.second >= 0 && t.second <= 60);
}

// The wall-clock fields read as if they were UTC.
int64_t FieldsMs(const icaltimetype& t) {
  int64_t ms = DaysFromCivil(t.year, t.month, t.day) * kDayMs;
  if (!t.is_date) ms += (int64_t{t.hour} * 3600 + t.minute * 60 + t.second) * kSecondMs;
  return ms;
}

// The inverse of FieldsMs, keeping `like`'s kind (DATE or DATE-TIME) and zone.
icaltimetype FromFieldsMs(int64_t ms, const icaltimetype& like) {
  icaltimetype t = icaltime_null_time();
  const int64_t days = FloorDiv(ms, kDayMs);
  CivilFromDays(days, &t.year, &t.month, &t.day);
  t.is_date = like.is_date;
  if (!t.is_date) {
    const int64_t rem = (ms - days * kDayMs) / kSecondMs;
    t.hour = static_cast<int>(rem / 3600);
    t.minute = static_cast<int>(rem / 60 % 60);
    t.second = static_cast<int>(rem % 60);
  }
  t.zone = like.zone;
  return t;
}

icaltimetype UtcTime(int64_t ms) {
  icaltimetype like = icaltime_null_time();
  like.zone = icaltimezone_get_utc_timezone();
  return FromFieldsMs(ms, like);
}

icaltimetype AddDays(const icaltimetype& t, int64_t days) {
  return FromFieldsMs(FieldsMs(t) + days * kDayMs, t);
}

// Floating times and dates have no zone of their own (RFC 5545 §3.3.5 form 1).
bool IsFloating(const icaltimetype& t) { return t.is_date || t.zone == nullptr; }

// ms since the epoch; floating times and dates are read in `floating`
// (nullptr = UTC), as RFC 4791 §9.9 reads them in the calendar's zone.
int64_t ToMs(icaltimetype t, const icaltimezone* floating) {
  icaltimezone* utc = icaltimezone_get_utc_timezone();
  const icaltimezone* zone = IsFloating(t) ? floating : t.zone;
  if (t.is_date) t.hour = t.minute = t.second = 0;
  t.is_date = 0;
  // Past libical's coverage (~2582) it re-expands a zone on every call; an
  // offset that far out is noise, the cost is not.
  if (zone && zone != utc && t.year >= 1 && t.year <= 2500) {
    icaltimezone_convert_time(&t, const_cast<icaltimezone*>(zone), utc);
  }
  return FieldsMs(t);
}

// Exact length (RFC 5545 §3.3.6 counts a day as 86400 s when exact).
int64_t DurationMs(const icaldurationtype& d) {
  int64_t s =
      ((((int64_t{d.weeks} * 7 + d.days) * 24 + d.hours) * 60 + d.minutes) * 60) + d.seconds;
  s = std::min(s, kMaxDurationSec);
  return (d.is_neg ? -s : s) * kSecondMs;
}

// RFC 5545 §3.3.6: weeks and days are nominal (they follow the wall clock
// across a DST change), hours, minutes and seconds exact.
int64_t AddDuration(const icaltimetype& start, const icaldurationtype& d,
                    const icaltimezone* floating) {
  const int64_t days = std::min<int64_t>(int64_t{d.weeks} * 7 + d.days, kMaxDurationSec / 86400);
  icaldurationtype exact = d;
  exact.weeks = exact.days = 0;
  return ToMs(AddDays(start, d.is_neg ? -days : days), floating) + DurationMs(exact);
}

// ---- The parsed object ----

struct Budget {
  int64_t steps = kMaxRuleSteps;
  size_t instances = kMaxInstances;
};

struct Calendar {
  ComponentPtr root;                       // the VCALENDAR
  const icaltimezone* floating = nullptr;  // nullptr = UTC
  Budget budget;
};

// RFC 5545 §3.2.19 TZID. An IANA name wins over the object's own VTIMEZONE:
// the system tzdata is current where a client's copy may be stale, and it
// costs nothing per call. Unknown names leave the time floating.
const icaltimezone* ResolveTzid(icalcomponent* root, const char* tzid) {
  if (!tzid || !*tzid) return nullptr;
  if (icaltimezone* z = icaltimezone_get_builtin_timezone(tzid)) return z;
  if (icaltimezone* z = icaltimezone_get_builtin_timezone_from_tzid(tzid)) return z;
  return icalcomponent_get_timezone(root, tzid);
}

const icaltimezone* PropZone(icalcomponent* root, icalproperty* p) {
  icalparameter* tz = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
  return tz ? ResolveTzid(root, icalparameter_get_tzid(tz)) : nullptr;
}

std::optional<icaltimetype> WithZone(icaltimetype t, const icaltimezone* zone) {
  if (icaltime_is_null_time(t) || !ValidFields(t)) return std::nullopt;
  if (!t.is_date && !icaltime_is_utc(t)) t.zone = zone;
  return t;
}

// A DATE, DATE-TIME or PERIOD (its start) value with its TZID resolved.
std::optional<icaltimetype> PropTime(icalcomponent* root, icalproperty* p) {
  icalvalue* v = p ? icalproperty_get_value(p) : nullptr;
  if (!v) return std::nullopt;
  icaltimetype t;
  switch (icalvalue_isa(v)) {
    case ICAL_DATE_VALUE:
      t = icalvalue_get_date(v);
      break;
    case ICAL_DATETIME_VALUE:
      t = icalvalue_get_datetime(v);
      break;
    case ICAL_PERIOD_VALUE:
      t = icalvalue_get_period(v).start;
      break;
    default:
      return std::nullopt;
  }
  return WithZone(t, PropZone(root, p));
}

// [start, end) of a PERIOD value (RFC 5545 §3.3.9), for RDATE and FREEBUSY.
std::optional<std::pair<int64_t, int64_t>> PropPeriod(const Calendar& cal, icalproperty* p) {
  icalvalue* v = icalproperty_get_value(p);
  if (!v || icalvalue_isa(v) != ICAL_PERIOD_VALUE) return std::nullopt;
  const icalperiodtype period = icalvalue_get_period(v);
  const icaltimezone* zone = PropZone(cal.root.get(), p);
  auto start = WithZone(period.start, zone);
  if (!start) return std::nullopt;
  int64_t s = ToMs(*start, cal.floating), e = s;
  if (auto end = WithZone(period.end, zone)) {
    e = ToMs(*end, cal.floating);
  } else if (!icaldurationtype_is_bad_duration(period.duration)) {
    e = AddDuration(*start, period.duration, cal.floating);
  }
  return std::make_pair(s, std::max(s, e));
}

size_t ArrayLen(const short* a, size_t size) {
  size_t n = 0;
  while (n < size && a[n] != ICAL_RECURRENCE_ARRAY_MAX) ++n;
  return n;
}

// An upper bound on the transitions one yearly observance rule makes a year.
int64_t ChangesPerYear(const icalrecurrencetype& r) {
  const int64_t months = static_cast<int64_t>(ArrayLen(r.by_month, ICAL_BY_MONTH_SIZE));
  const int64_t mdays = static_cast<int64_t>(ArrayLen(r.by_month_day, ICAL_BY_MONTHDAY_SIZE));
  const int64_t ydays = static_cast<int64_t>(ArrayLen(r.by_year_day, ICAL_BY_YEARDAY_SIZE));
  const int64_t weeks = static_cast<int64_t>(ArrayLen(r.by_week_no, ICAL_BY_WEEKNO_SIZE));
  const size_t ndays = ArrayLen(r.by_day, ICAL_BY_DAY_SIZE);
  int64_t weekdays = 0;  // an ordinal weekday ("-1SU") matches once, a plain one up to 5 times
  for (size_t i = 0; i < ndays; ++i) {
    weekdays += icalrecurrencetype_day_position(r.by_day[i]) != 0 ? 1 : 5;
  }
  int64_t days = months ? months : 1;
  if (ydays) {
    days = ydays;
  } else if (weeks) {
    days = weeks * std::max<int64_t>(1, static_cast<int64_t>(ndays));
  } else if (mdays || weekdays) {
    days = (months ? months : 12) * (mdays ? mdays : weekdays);
  }
  return days * std::max<size_t>(1, ArrayLen(r.by_hour, ICAL_BY_HOUR_SIZE)) *
         std::max<size_t>(1, ArrayLen(r.by_minute, ICAL_BY_MINUTE_SIZE)) *
         std::max<size_t>(1, ArrayLen(r.by_second, ICAL_BY_SECOND_SIZE));
}

// libical expands an embedded VTIMEZONE from each observance's DTSTART to
// the year asked for, and lets any FREQ through (FREQ=DAILY costs seconds):
// only yearly rules (all real zones use) within a transition budget pass.
bool TimezonesAreCheap(icalcomponent* root) {
  int64_t changes = 0;
  for (icalcomponent* tz : Children(root, ICAL_VTIMEZONE_COMPONENT)) {
    for (icalcomponent* obs : Children(tz)) {
      auto start = PropTime(root, FirstProp(obs, ICAL_DTSTART_PROPERTY));
      const int64_t years = std::max(1, 2600 - std::max(start ? start->year : 1, 1));
      for (icalproperty* p : Props(obs, ICAL_RRULE_PROPERTY)) {
        const icalrecurrencetype r = icalproperty_get_rrule(p);
        if (r.freq != ICAL_YEARLY_RECURRENCE) return false;
        changes += ChangesPerYear(r) * years / std::max<int64_t>(1, r.interval);
      }
      changes += 1 + icalcomponent_count_properties(obs, ICAL_RDATE_PROPERTY);
      if (changes > kMaxZoneChanges) return false;
    }
  }
  return true;
}

// Parses one VCALENDAR within the limits above; nullopt (with `err` filled
// when given) if that fails.
std::optional<Calendar> Load(std::string_view data, std::string_view floating_tz,
                             CalendarError* err) {
  auto fail = [&](const char* condition, std::string reason) -> std::optional<Calendar> {
    if (err) *err = {condition, std::move(reason)};
    return std::nullopt;
  };
  // RFC 5545 §3.1: no control characters but HTAB (and CR LF between
  // lines); libical would drop them silently on output.
  if (std::any_of(data.begin(), data.end(), [](char c) {
        return (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r' && c != '\n') ||
               c == 0x7f;
      })) {
    return fail("valid-calendar-data", "control character in iCalendar data");
  }
  if (CountBegins(data) > kMaxComponents) {
    return fail("max-resource-size", "more than 10000 components");
  }
  const std::string text(data);
  Calendar cal;
  cal.root.reset(icalparser_parse_string(text.c_str()));
  if (!cal.root || icalcomponent_isa(cal.root.get()) != ICAL_VCALENDAR_COMPONENT) {
    return fail("valid-calendar-data", "not one iCalendar VCALENDAR object");
  }
  if (!TimezonesAreCheap(cal.root.get())) {
    return fail("valid-calendar-data", "VTIMEZONE rules beyond what time zones use");
  }
  if (!floating_tz.empty()) {
    cal.floating = icaltimezone_get_builtin_timezone(std::string(floating_tz).c_str());
  }
  return cal;
}

// ---- Instances: RFC 5545 §3.8.5 recurrence sets made explicit ----

enum class EndKind { kNone, kEnd, kDuration };  // what set end_ms: DTEND/DUE, DURATION, nothing

struct Instance {
  icalcomponent* comp = nullptr;  // the master or override supplying properties
  std::optional<int64_t> start_ms, end_ms;
  EndKind end_kind = EndKind::kNone;
  icaltimetype start_tt = icaltime_null_time();  // local start; dates are kept as dates
  icaltimetype end_tt = icaltime_null_time();    // local end of an all-day instance
  bool is_date = false;
  bool floating = false;
  bool has_rid = false;  // RECURRENCE-ID: the start this instance has (or had) in the rule
  icaltimetype rid_tt = icaltime_null_time();
  int64_t rid_ms = 0;
};

struct Timing {
  std::optional<icaltimetype> start, end;  // DTSTART; DTEND or (VTODO) DUE
  std::optional<icaldurationtype> duration;
};

Timing ReadTiming(icalcomponent* root, icalcomponent* c) {
  Timing t;
  const icalcomponent_kind kind = icalcomponent_isa(c);
  t.start = PropTime(root, FirstProp(c, ICAL_DTSTART_PROPERTY));
  if (kind == ICAL_VJOURNAL_COMPONENT) return t;  // §3.6.3: a journal has a start only
  t.end = PropTime(
      root, FirstProp(c, kind == ICAL_VTODO_COMPONENT ? ICAL_DUE_PROPERTY : ICAL_DTEND_PROPERTY));
  if (icalproperty* p = FirstProp(c, ICAL_DURATION_PROPERTY)) {
    const icaldurationtype d = icalproperty_get_duration(p);
    if (!icaldurationtype_is_bad_duration(d)) t.duration = d;
  }
  return t;
}

// The instance of `comp` starting at `at`. RFC 5545 §3.8.5.3: the exact
// DTEND-DTSTART length repeats for every instance (all-day: whole days);
// §3.6.1: without an end a DATE start lasts a day, a DATE-TIME start none.
Instance InstanceAt(const Calendar& cal, icalcomponent* comp, const Timing& t,
                    const icaltimetype& at) {
  Instance in;
  in.comp = comp;
  in.start_tt = at;
  in.is_date = at.is_date;
  in.floating = IsFloating(at);
  const int64_t s = ToMs(at, cal.floating);
  in.start_ms = s;
  if (t.end && t.start) {
    in.end_kind = EndKind::kEnd;
    if (at.is_date && t.end->is_date) {
      in.end_tt =
          AddDays(at, std::max<int64_t>(0, (FieldsMs(*t.end) - FieldsMs(*t.start)) / kDayMs));
      in.end_ms = ToMs(in.end_tt, cal.floating);
    } else {
      in.end_ms = s + ToMs(*t.end, cal.floating) - ToMs(*t.start, cal.floating);
      in.floating = in.floating || IsFloating(*t.end);
    }
  } else if (t.duration) {
    in.end_kind = EndKind::kDuration;
    in.end_ms = AddDuration(at, *t.duration, cal.floating);
  } else if (icalcomponent_isa(comp) != ICAL_VTODO_COMPONENT) {
    if (at.is_date) in.end_tt = AddDays(at, 1);
    in.end_ms = at.is_date ? ToMs(in.end_tt, cal.floating) : s;
  }
  if (in.end_ms && *in.end_ms < s) in.end_ms = s;
  return in;
}

// A component with no DTSTART: a VTODO with at most a DUE, a VJOURNAL, a
// VFREEBUSY. Only a DUE (or DTEND) counts.
Instance Timeless(const Calendar& cal, icalcomponent* comp, const Timing& t) {
  Instance in;
  in.comp = comp;
  if (t.end) {
    in.end_kind = EndKind::kEnd;
    in.end_ms = ToMs(*t.end, cal.floating);
    in.end_tt = *t.end;
    in.is_date = t.end->is_date;
    in.floating = IsFloating(*t.end);
  }
  return in;
}

struct Group {  // one recurrence set: a master and its overridden instances
  icalcomponent* master = nullptr;
  std::vector<icalcomponent*> overrides;
};

struct Expansion {
  std::vector<Instance> instances;  // by start; overrides in place of what they replace
  bool truncated = false;           // a limit, not the data, ended the list
  bool unbounded = false;           // an RRULE without COUNT or UNTIL
};

std::vector<Group> GroupsOf(icalcomponent* root, icalcomponent_kind kind) {
  std::vector<Group> groups;
  std::map<std::string, size_t> by_uid;
  for (icalcomponent* c : Children(root, kind)) {
    const icalcomponent_kind k = icalcomponent_isa(c);
    if (!IsCalendarKind(k)) continue;
    const char* uid = icalcomponent_get_uid(c);
    const std::string key = std::to_string(k) + ":" + (uid ? uid : "");
    auto [it, fresh] = by_uid.try_emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    Group& g = groups[it->second];
    if (FirstProp(c, ICAL_RECURRENCEID_PROPERTY)) {
      g.overrides.push_back(c);
    } else if (!g.master) {
      g.master = c;
    } else {
      groups.push_back(Group{c, {}});  // a second master (invalid data) stands alone
    }
  }
  return groups;
}

int64_t FreqUnitMs(icalrecurrencetype_frequency f) {
  switch (f) {
    case ICAL_SECONDLY_RECURRENCE:
      return kSecondMs;
    case ICAL_MINUTELY_RECURRENCE:
      return 60 * kSecondMs;
    case ICAL_HOURLY_RECURRENCE:
      return kHourMs;
    case ICAL_DAILY_RECURRENCE:
      return kDayMs;
    case ICAL_WEEKLY_RECURRENCE:
      return 7 * kDayMs;
    case ICAL_MONTHLY_RECURRENCE:
      return 31 * kDayMs;
    case ICAL_YEARLY_RECURRENCE:
      return 366 * kDayMs;
    default:
      return 0;
  }
}

// Walks one RRULE (RFC 5545 §3.3.10) from DTSTART, handing each occurrence
// to `add` (false = stop), up to `until_ms`. libical takes either COUNT or
// UNTIL, so COUNT is counted here and UNTIL bounds the walk's cost.
void WalkRule(Calendar& cal, icalrecurrencetype rule, const icaltimetype& dtstart,
              std::optional<int64_t> until_ms, const std::function<bool(const icaltimetype&)>& add,
              Expansion* ex) {
  const int64_t unit = FreqUnitMs(rule.freq) * std::clamp(rule.interval, short{1}, short{10000});
  if (unit <= 0) return;
  const int count = rule.count;
  rule.count = 0;
  if (count == 0 && icaltime_is_null_time(rule.until)) ex->unbounded = true;
  // The window is reckoned in DTSTART's wall-clock fields; a day of slack
  // covers any zone offset.
  const int64_t begin = FieldsMs(dtstart);
  const int64_t last_year = DaysFromCivil(3000, 1, 1) * kDayMs;
  int64_t window = std::min(begin + cal.budget.steps * unit, last_year);
  bool budget_cut = true;
  if (until_ms && *until_ms + kDayMs < window) {
    window = *until_ms + kDayMs;
    budget_cut = false;
  }
  // The rule's own UNTIL stays unless it is surely later (UNTIL is UTC,
  // the window local): never an instance past it, at most a day's extra walk.
  if (!icaltime_is_null_time(rule.until) && FieldsMs(rule.until) <= window + kDayMs) {
    window = FieldsMs(rule.until);
    budget_cut = false;
  } else {
    rule.until = FromFieldsMs(window, dtstart);
  }
  IteratorPtr it(icalrecur_iterator_new(rule, dtstart));
  icalerror_clear_errno();
  if (!it) return;  // a rule libical refuses (e.g. BYHOUR=25): DTSTART alone
  int n = 0;
  int64_t reached = window;  // where the walk stopped, for the budget
  for (icaltimetype t = icalrecur_iterator_next(it.get()); !icaltime_is_null_time(t);
       t = icalrecur_iterator_next(it.get())) {
    if ((count > 0 && n++ >= count) || (until_ms && ToMs(t, cal.floating) > *until_ms) || !add(t)) {
      reached = FieldsMs(t);
      budget_cut = false;
      break;
    }
  }
  cal.budget.steps -= std::clamp<int64_t>((reached - begin) / unit, 0, cal.budget.steps);
  if (budget_cut) ex->truncated = true;
}

// The master's own instances: DTSTART (always the first, RFC 5545
// §3.8.5.3), RDATEs, RRULE occurrences, less EXDATEs.
void ExpandMaster(Calendar& cal, icalcomponent* master, const Timing& t,
                  std::optional<int64_t> until_ms, Expansion* ex) {
  icalcomponent* root = cal.root.get();
  std::vector<Instance>& out = ex->instances;
  auto add = [&](const icaltimetype& at) {
    if (cal.budget.instances == 0) {
      ex->truncated = true;
      return false;
    }
    --cal.budget.instances;
    out.push_back(InstanceAt(cal, master, t, at));
    return true;
  };
  add(*t.start);
  for (icalproperty* p : Props(master, ICAL_RDATE_PROPERTY)) {
    auto at = PropTime(root, p);
    if (!at || (until_ms && ToMs(*at, cal.floating) > *until_ms) || !add(*at)) continue;
    if (auto period = PropPeriod(cal, p)) {  // RDATE;VALUE=PERIOD sets its own end
      out.back().end_ms = period->second;
      out.back().end_kind = EndKind::kEnd;
    }
  }
  // After the RDATEs: a budget cut in the rule then leaves the earliest
  // instances listed (the index needs them).
  for (icalproperty* p : Props(master, ICAL_RRULE_PROPERTY)) {
    WalkRule(cal, icalproperty_get_rrule(p), *t.start, until_ms, add, ex);
  }
  std::set<int64_t> excluded;
  for (icalproperty* p : Props(master, ICAL_EXDATE_PROPERTY)) {
    if (auto at = PropTime(root, p)) excluded.insert(ToMs(*at, cal.floating));
  }
  std::erase_if(out, [&](const Instance& in) { return excluded.count(*in.start_ms) > 0; });
  std::stable_sort(out.begin(), out.end(),
                   [](const Instance& a, const Instance& b) { return *a.start_ms < *b.start_ms; });
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](const Instance& a, const Instance& b) { return *a.start_ms == *b.start_ms; }),
      out.end());
}

// Overridden instances (RECURRENCE-ID) replace the instance they name; one
// naming no generated instance (moved out of a window, or of the rule)
// still counts, as its own instance.
void ApplyOverrides(Calendar& cal, const Group& g, Expansion* ex) {
  icalcomponent* root = cal.root.get();
  std::vector<Instance> added;
  std::set<int64_t> replaced;
  for (icalcomponent* o : g.overrides) {
    auto rid = PropTime(root, FirstProp(o, ICAL_RECURRENCEID_PROPERTY));
    if (!rid) continue;
    Timing t = ReadTiming(root, o);
    if (!t.start) t.start = rid;
    Instance in = InstanceAt(cal, o, t, *t.start);
    in.has_rid = true;
    in.rid_tt = *rid;
    in.rid_ms = ToMs(*rid, cal.floating);
    replaced.insert(in.rid_ms);
    added.push_back(in);
  }
  std::erase_if(ex->instances,
                [&](const Instance& in) { return in.has_rid && replaced.count(in.rid_ms); });
  ex->instances.insert(ex->instances.end(), added.begin(), added.end());
  std::stable_sort(ex->instances.begin(), ex->instances.end(),
                   [](const Instance& a, const Instance& b) {
                     return a.start_ms.value_or(kNegInf) < b.start_ms.value_or(kNegInf);
                   });
}

// Every instance of the group starting by `until_ms` (all when nullopt),
// plus every overridden instance wherever it moved.
Expansion ExpandGroup(Calendar& cal, const Group& g, std::optional<int64_t> until_ms) {
  Expansion ex;
  if (g.master) {
    const Timing t = ReadTiming(cal.root.get(), g.master);
    const bool rules =
        FirstProp(g.master, ICAL_RRULE_PROPERTY) || FirstProp(g.master, ICAL_RDATE_PROPERTY);
    if (!t.start) {
      ex.instances.push_back(Timeless(cal, g.master, t));
    } else if (rules) {
      ExpandMaster(cal, g.master, t, until_ms, &ex);
    } else {
      ex.instances.push_back(InstanceAt(cal, g.master, t, *t.start));
    }
    if (t.start && (rules || !g.overrides.empty())) {
      for (Instance& in : ex.instances) {
        in.has_rid = true;
        in.rid_tt = in.start_tt;
        in.rid_ms = *in.start_ms;
      }
    }
  }
  ApplyOverrides(cal, g, &ex);
  return ex;
}

bool HasInfiniteRule(icalcomponent* master) {
  for (icalproperty* p : Props(master, ICAL_RRULE_PROPERTY)) {
    const icalrecurrencetype r = icalproperty_get_rrule(p);
    if (r.count == 0 && icaltime_is_null_time(r.until)) return true;
  }
  return false;
}

// ---- RFC 4791 §9.9 time ranges ----

struct Range {  // [start, end), open sides at ±infinity
  int64_t start, end;
};

Range ToRange(const TimeRange& r) {
  return {r.start_ms.value_or(kNegInf), r.end_ms.value_or(kPosInf)};
}

// A span overlaps; a zero-length one is a point that must lie in [start, end)
// (the §9.9 rows "start <= DTSTART AND end > DTSTART").
bool SpanOverlaps(int64_t s, int64_t e, Range r) {
  return e > s ? r.start < e && r.end > s : r.start <= s && r.end > s;
}

std::optional<int64_t> PropMs(const Calendar& cal, icalcomponent* c, icalproperty_kind kind) {
  auto t = PropTime(cal.root.get(), FirstProp(c, kind));
  return t ? std::optional<int64_t>(ToMs(*t, cal.floating)) : std::nullopt;
}

// The §9.9 VTODO table, row by row.
bool TodoOverlaps(const Calendar& cal, const Instance& in, Range r) {
  if (in.start_ms) {
    const int64_t s = *in.start_ms;
    if (in.end_kind == EndKind::kDuration) {
      const int64_t e = *in.end_ms;
      return r.start <= e && (r.end > s || r.end >= e);
    }
    if (in.end_kind == EndKind::kEnd) {
      const int64_t due = *in.end_ms;
      return (r.start < due || r.start <= s) && (r.end > s || r.end >= due);
    }
    return r.start <= s && r.end > s;
  }
  if (in.end_ms) return r.start < *in.end_ms && r.end >= *in.end_ms;
  const auto completed = PropMs(cal, in.comp, ICAL_COMPLETED_PROPERTY);
  const auto created = PropMs(cal, in.comp, ICAL_CREATED_PROPERTY);
  if (completed && created) {
    return (r.start <= *created || r.start <= *completed) &&
           (r.end >= *created || r.end >= *completed);
  }
  if (completed) return r.start <= *completed && r.end >= *completed;
  if (created) return r.start < *created && r.end > *created;
  return true;
}

std::vector<std::pair<int64_t, int64_t>> FreeBusyPeriods(const Calendar& cal, icalcomponent* c) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (icalproperty* p : Props(c, ICAL_FREEBUSY_PROPERTY)) {
    if (auto period = PropPeriod(cal, p)) out.push_back(*period);
  }
  return out;
}

// §9.9 VFREEBUSY: DTSTART/DTEND if present, else the FREEBUSY periods.
bool FreeBusyOverlaps(const Calendar& cal, const Instance& in, Range r) {
  if (in.start_ms && in.end_kind == EndKind::kEnd) {
    return r.start <= *in.end_ms && r.end > *in.start_ms;
  }
  for (const auto& [s, e] : FreeBusyPeriods(cal, in.comp)) {
    if (r.start < e && r.end > s) return true;
  }
  return false;
}

bool InstanceOverlaps(const Calendar& cal, const Instance& in, const TimeRange& tr) {
  const Range r = ToRange(tr);
  switch (icalcomponent_isa(in.comp)) {
    case ICAL_VEVENT_COMPONENT:
    case ICAL_VJOURNAL_COMPONENT:  // same rows; a journal without DTSTART never matches
      return in.start_ms && SpanOverlaps(*in.start_ms, in.end_ms.value_or(*in.start_ms), r);
    case ICAL_VTODO_COMPONENT:
      return TodoOverlaps(cal, in, r);
    case ICAL_VFREEBUSY_COMPONENT:
      return FreeBusyOverlaps(cal, in, r);
    default:
      return false;
  }
}

// §9.9 VALARM: (start <= trigger AND end > trigger) for the first trigger and
// each REPEAT; relative triggers count from the instance's start or, with
// RELATED=END, its end (DTEND or DUE).
bool AlarmInRange(const Calendar& cal, icalcomponent* alarm, const TimeRange& tr,
                  const Instance* inst) {
  icalproperty* tp = FirstProp(alarm, ICAL_TRIGGER_PROPERTY);
  if (!tp) return false;
  const icaltriggertype trig = icalproperty_get_trigger(tp);
  int64_t first;
  if (!icaltime_is_null_time(trig.time)) {
    if (!ValidFields(trig.time)) return false;
    first = ToMs(trig.time, cal.floating);
  } else {
    if (!inst) return false;
    icalparameter* rel = icalproperty_get_first_parameter(tp, ICAL_RELATED_PARAMETER);
    const bool at_end = rel && icalparameter_get_related(rel) == ICAL_RELATED_END;
    const std::optional<int64_t> base = at_end && inst->end_ms ? inst->end_ms : inst->start_ms;
    if (!base) return false;
    first = *base + DurationMs(trig.duration);
  }
  int repeat = 0;
  int64_t step = 0;
  if (icalproperty* rp = FirstProp(alarm, ICAL_REPEAT_PROPERTY)) {
    repeat = std::clamp(icalproperty_get_repeat(rp), 0, kMaxAlarmRepeats);
  }
  if (icalproperty* dp = FirstProp(alarm, ICAL_DURATION_PROPERTY)) {
    step = DurationMs(icalproperty_get_duration(dp));
  }
  if (step <= 0) repeat = 0;
  const Range r = ToRange(tr);
  for (int k = 0; k <= repeat; ++k) {
    const int64_t t = first + k * step;
    if (r.start <= t && r.end > t) return true;
  }
  return false;
}

// ---- RFC 4791 §9.7 filters ----

std::string PropName(icalproperty* p) {
  BufferPtr s(icalproperty_get_property_name_r(p));
  return s ? std::string(s.get()) : std::string();
}

// The value as text, unescaped for TEXT (§9.7.5 matches what people typed).
std::string PropText(icalproperty* p) {
  icalvalue* v = icalproperty_get_value(p);
  if (!v) return {};
  const char* raw = nullptr;
  if (icalvalue_isa(v) == ICAL_TEXT_VALUE) raw = icalvalue_get_text(v);
  if (icalvalue_isa(v) == ICAL_X_VALUE) raw = icalvalue_get_x(v);
  if (raw) return raw;
  BufferPtr s(icalvalue_as_ical_string_r(v));
  return s ? std::string(s.get()) : std::string();
}

// The named parameter's value (quotes removed), nullopt when absent.
std::optional<std::string> ParamValue(icalproperty* p, std::string_view name) {
  for (icalparameter* q = icalproperty_get_first_parameter(p, ICAL_ANY_PARAMETER); q;
       q = icalproperty_get_next_parameter(p, ICAL_ANY_PARAMETER)) {
    BufferPtr s(icalparameter_as_ical_string_r(q));
    const std::string_view text = s ? std::string_view(s.get()) : std::string_view();
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || !EqualsIgnoreCase(text.substr(0, eq), name)) continue;
    std::string_view value = text.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return std::string(value);
  }
  return std::nullopt;
}

// §9.7.3 param-filter.
bool MatchParam(icalproperty* p, const ParamFilter& f) {
  const auto value = ParamValue(p, f.name);
  if (f.is_not_defined) return !value;
  return value && (!f.text || TextMatches(*value, *f.text));
}

// A time-range on a DATE or DATE-TIME property: its value as a point (a
// date as its day), without recurrence.
bool PropInRange(const Calendar& cal, icalproperty* p, const TimeRange& tr) {
  auto t = PropTime(cal.root.get(), p);
  if (!t) return false;
  const int64_t s = ToMs(*t, cal.floating);
  return SpanOverlaps(s, t->is_date ? ToMs(AddDays(*t, 1), cal.floating) : s, ToRange(tr));
}

// §9.7.2 prop-filter: some property of the name passes every test.
bool MatchProp(const Calendar& cal, icalcomponent* c, const PropFilter& f) {
  std::vector<icalproperty*> props;
  for (icalproperty* p : Props(c)) {
    if (EqualsIgnoreCase(PropName(p), f.name)) props.push_back(p);
  }
  if (f.is_not_defined) return props.empty();
  for (icalproperty* p : props) {
    if (f.time_range && !PropInRange(cal, p, *f.time_range)) continue;
    if (f.text && !TextMatches(PropText(p), *f.text)) continue;
    if (std::all_of(f.params.begin(), f.params.end(),
                    [&](const ParamFilter& pf) { return MatchParam(p, pf); })) {
      return true;
    }
  }
  return false;
}

bool HasTimeRange(const CompFilter& f) {
  return f.time_range || std::any_of(f.comps.begin(), f.comps.end(), [](const CompFilter& c) {
           return !c.is_not_defined && HasTimeRange(c);
         });
}

// Widens `end` to what deciding `f` needs instances up to; false when some
// range has no end. Nested (alarm) ranges get a year of slack, since an
// alarm may ring before its instance.
bool NeededEnd(const CompFilter& f, int64_t slack, int64_t* end) {
  if (f.is_not_defined) return true;
  if (f.time_range) {
    if (!f.time_range->end_ms) return false;
    *end = std::max(*end, *f.time_range->end_ms + slack);
  }
  return std::all_of(f.comps.begin(), f.comps.end(),
                     [&](const CompFilter& c) { return NeededEnd(c, kAlarmSlackMs, end); });
}

bool MatchComp(Calendar& cal, icalcomponent* parent, const CompFilter& f, const Instance* inst);

bool MatchBody(Calendar& cal, icalcomponent* c, const CompFilter& f, const Instance* inst) {
  for (const PropFilter& pf : f.props) {
    if (!MatchProp(cal, c, pf)) return false;
  }
  for (const CompFilter& sub : f.comps) {
    if (!MatchComp(cal, c, sub, inst)) return false;
  }
  return true;
}

// §9.7.1 comp-filter: is-not-defined, or some component of the name (for
// time ranges: some instance) passing its range, props and nested filters.
bool MatchComp(Calendar& cal, icalcomponent* parent, const CompFilter& f, const Instance* inst) {
  std::vector<icalcomponent*> kids;
  for (icalcomponent* c : Children(parent)) {
    const char* name = icalcomponent_kind_to_string(icalcomponent_isa(c));
    if (name && EqualsIgnoreCase(name, f.name)) kids.push_back(c);
  }
  if (f.is_not_defined) return kids.empty();
  if (kids.empty()) return false;
  const icalcomponent_kind kind = icalcomponent_isa(kids.front());
  if (icalcomponent_isa(parent) == ICAL_VCALENDAR_COMPONENT && IsCalendarKind(kind) &&
      HasTimeRange(f)) {
    int64_t end = kNegInf;
    const std::optional<int64_t> until =
        NeededEnd(f, 0, &end) ? std::optional<int64_t>(end) : std::nullopt;
    for (const Group& g : GroupsOf(parent, kind)) {
      for (const Instance& in : ExpandGroup(cal, g, until).instances) {
        if (f.time_range && !InstanceOverlaps(cal, in, *f.time_range)) continue;
        if (MatchBody(cal, in.comp, f, &in)) return true;
      }
    }
    return false;
  }
  for (icalcomponent* c : kids) {
    if (f.time_range && (kind != ICAL_VALARM_COMPONENT ||  // §9.9 defines no other
                         !AlarmInRange(cal, c, *f.time_range, inst))) {
      continue;
    }
    if (MatchBody(cal, c, f, inst)) return true;
  }
  return false;
}

// ---- RFC 4791 §4.1 validation and the index ----

Status Fail(CalendarError* err, const char* condition, std::string reason) {
  *err = {condition, reason};
  return Status::InvalidArgument(std::move(reason));
}

// RFC 5545 §3.6.1/§3.6.2: DTSTART where required, DTEND/DUE and DURATION
// never together, DURATION and RRULE only with a DTSTART to count from.
Status CheckTiming(const Calendar& cal, icalcomponent* c, CalendarError* err) {
  const icalcomponent_kind kind = icalcomponent_isa(c);
  const Timing t = ReadTiming(cal.root.get(), c);
  const bool has_start = FirstProp(c, ICAL_DTSTART_PROPERTY) != nullptr;
  const char* name = icalcomponent_kind_to_string(kind);
  if (has_start && !t.start) return Fail(err, "valid-calendar-data", "unreadable DTSTART");
  if (kind == ICAL_VEVENT_COMPONENT && !t.start) {
    return Fail(err, "valid-calendar-data", "VEVENT without DTSTART");
  }
  const icalproperty_kind end_kind =
      kind == ICAL_VTODO_COMPONENT ? ICAL_DUE_PROPERTY : ICAL_DTEND_PROPERTY;
  if (kind != ICAL_VFREEBUSY_COMPONENT && FirstProp(c, end_kind) &&
      FirstProp(c, ICAL_DURATION_PROPERTY)) {
    return Fail(err, "valid-calendar-data", std::string(name) + " with both an end and DURATION");
  }
  if (!t.start && (FirstProp(c, ICAL_DURATION_PROPERTY) || FirstProp(c, ICAL_RRULE_PROPERTY) ||
                   FirstProp(c, ICAL_RDATE_PROPERTY))) {
    return Fail(err, "valid-calendar-data",
                std::string(name) + " with DURATION or recurrence but no DTSTART");
  }
  return Status::Ok();
}

// The §4.1 shape: one component type, one UID, distinct RECURRENCE-IDs.
Status CheckComponents(const Calendar& cal, uint32_t allowed, CalendarObjectInfo* info,
                       CalendarError* err) {
  icalcomponent_kind kind = ICAL_NO_COMPONENT;
  std::set<int64_t> rids;
  bool master = false;
  for (icalcomponent* c : Children(cal.root.get())) {
    const icalcomponent_kind k = icalcomponent_isa(c);
    if (k == ICAL_VTIMEZONE_COMPONENT || k == ICAL_X_COMPONENT) continue;
    const char* name = icalcomponent_kind_to_string(k);
    if (!IsCalendarKind(k)) {
      return Fail(err, "supported-calendar-component",
                  std::string(name ? name : "unknown") + " is not a supported component");
    }
    if (kind != ICAL_NO_COMPONENT && k != kind) {
      return Fail(err, "valid-calendar-object-resource", "more than one component type");
    }
    kind = k;
    info->component = name;
    const char* uid = icalcomponent_get_uid(c);
    if (!uid || !*uid) return Fail(err, "valid-calendar-object-resource", "component without UID");
    if (info->uid.empty()) info->uid = uid;
    if (info->uid != uid) return Fail(err, "valid-calendar-object-resource", "more than one UID");
    if (icalproperty* p = FirstProp(c, ICAL_RECURRENCEID_PROPERTY)) {
      auto rid = PropTime(cal.root.get(), p);
      if (!rid) return Fail(err, "valid-calendar-data", "unreadable RECURRENCE-ID");
      if (!rids.insert(ToMs(*rid, nullptr)).second) {
        return Fail(err, "valid-calendar-object-resource", "duplicate RECURRENCE-ID");
      }
      info->recurring = true;
    } else if (std::exchange(master, true)) {
      return Fail(err, "valid-calendar-object-resource", "two components without RECURRENCE-ID");
    }
    NUBO_RETURN_IF_ERROR(CheckTiming(cal, c, err));
  }
  if (kind == ICAL_NO_COMPONENT) {
    return Fail(err, "valid-calendar-object-resource", "no calendar component");
  }
  const uint32_t bit = kind == ICAL_VEVENT_COMPONENT     ? kCompEvent
                       : kind == ICAL_VTODO_COMPONENT    ? kCompTodo
                       : kind == ICAL_VJOURNAL_COMPONENT ? kCompJournal
                                                         : kCompFreeBusy;
  if (!(allowed & bit)) {
    return Fail(err, "supported-calendar-component",
                info->component + " is not supported by this calendar");
  }
  return Status::Ok();
}

// The half-open span an instance can match in, so that the index's overlap
// test is implied by every §9.9 match: points and the inclusive VTODO
// bounds are widened by 1 ms, floating times by 14 hours. nullopt = unbounded.
std::optional<std::pair<int64_t, int64_t>> IndexSpan(const Calendar& cal, const Instance& in) {
  std::vector<int64_t> times;
  int64_t lo = 0, hi = 0;
  switch (icalcomponent_isa(in.comp)) {
    case ICAL_VEVENT_COMPONENT:
    case ICAL_VJOURNAL_COMPONENT:
      if (!in.start_ms) return std::nullopt;
      lo = *in.start_ms;
      hi = std::max(in.end_ms.value_or(lo), lo + 1);
      break;
    case ICAL_VFREEBUSY_COMPONENT:
      if (in.start_ms) times.push_back(*in.start_ms);
      if (in.end_ms) times.push_back(*in.end_ms);
      for (const auto& [s, e] : FreeBusyPeriods(cal, in.comp)) times.insert(times.end(), {s, e});
      [[fallthrough]];
    default:
      if (in.start_ms) times.push_back(*in.start_ms);
      if (in.end_ms) times.push_back(*in.end_ms);
      if (times.empty()) {
        for (icalproperty_kind k : {ICAL_COMPLETED_PROPERTY, ICAL_CREATED_PROPERTY}) {
          if (auto ms = PropMs(cal, in.comp, k)) times.push_back(*ms);
        }
      }
      if (times.empty()) return std::nullopt;
      lo = *std::min_element(times.begin(), times.end()) - 1;
      hi = *std::max_element(times.begin(), times.end()) + 1;
  }
  if (in.floating) return std::make_pair(lo - kFloatingSlackMs, hi + kFloatingSlackMs);
  return std::make_pair(lo, hi);
}

void ComputeBounds(Calendar& cal, CalendarObjectInfo* info) {
  bool first = true, unbounded = false;
  for (const Group& g : GroupsOf(cal.root.get(), ICAL_ANY_COMPONENT)) {
    if (g.master && FirstProp(g.master, ICAL_RRULE_PROPERTY)) info->recurring = true;
    if (g.master && FirstProp(g.master, ICAL_RDATE_PROPERTY)) info->recurring = true;
    const bool infinite = g.master && HasInfiniteRule(g.master);
    cal.budget.instances = infinite ? kUnboundedIndexInstances : kMaxInstances;
    const Expansion ex = ExpandGroup(cal, g, std::nullopt);
    if (ex.truncated || ex.unbounded) unbounded = true;
    for (const Instance& in : ex.instances) {
      auto span = IndexSpan(cal, in);
      if (!span) {
        info->first_start_ms = info->last_end_ms = std::nullopt;
        return;
      }
      info->first_start_ms = first ? span->first : std::min(*info->first_start_ms, span->first);
      info->last_end_ms = first ? span->second : std::max(*info->last_end_ms, span->second);
      first = false;
    }
  }
  if (unbounded) info->last_end_ms = std::nullopt;
}

// ---- Output ----

void SetTime(icalcomponent* c, icalproperty_kind kind, const icaltimetype& t) {
  RemoveProps(c, kind);
  icalproperty* p = icalproperty_new(kind);
  icalproperty_set_value(p, t.is_date ? icalvalue_new_date(t) : icalvalue_new_datetime(t));
  icalcomponent_add_property(c, p);
}

// One §9.6.5 instance: the master's or override's properties with this
// instance's times in UTC (all-day dates stay dates) and no recurrence rules.
icalcomponent* InstanceComponent(const Instance& in) {
  icalcomponent* c = icalcomponent_new_clone(in.comp);
  for (icalproperty_kind k : {ICAL_RRULE_PROPERTY, ICAL_RDATE_PROPERTY, ICAL_EXDATE_PROPERTY}) {
    RemoveProps(c, k);
  }
  const icalproperty_kind end_kind =
      icalcomponent_isa(c) == ICAL_VTODO_COMPONENT ? ICAL_DUE_PROPERTY : ICAL_DTEND_PROPERTY;
  const bool has_end = FirstProp(c, end_kind) != nullptr;
  if (in.start_ms)
    SetTime(c, ICAL_DTSTART_PROPERTY, in.is_date ? in.start_tt : UtcTime(*in.start_ms));
  if (has_end && in.end_ms) {
    const bool date_end = in.is_date && !icaltime_is_null_time(in.end_tt);
    SetTime(c, end_kind, date_end ? in.end_tt : UtcTime(*in.end_ms));
  }
  if (in.has_rid) {
    SetTime(c, ICAL_RECURRENCEID_PROPERTY, in.rid_tt.is_date ? in.rid_tt : UtcTime(in.rid_ms));
  }
  return c;
}

}  // namespace

Result<CalendarObjectInfo> ParseCalendarObject(std::string_view data, uint32_t allowed_components,
                                               CalendarError* error) {
  ErrnoScope errno_scope;
  CalendarError local;
  CalendarError* err = error ? error : &local;
  std::optional<Calendar> cal = Load(data, "", err);
  if (!cal) return Status::InvalidArgument(err->reason);
  icalcomponent* root = cal->root.get();
  // RFC 5545 §3.7.4: VERSION:2.0 is required. PRODID (§3.7.3) is too, but
  // clients omit it and nothing here depends on it.
  icalproperty* version = FirstProp(root, ICAL_VERSION_PROPERTY);
  const char* v = version ? icalproperty_get_version(version) : nullptr;
  if (!v || std::string_view(v) != "2.0") {
    return Fail(err, "valid-calendar-data", "VERSION:2.0 missing");
  }
  // RFC 4791 §4.1: METHOD belongs to iTIP messages, not stored resources.
  if (FirstProp(root, ICAL_METHOD_PROPERTY)) {
    return Fail(err, "valid-calendar-object-resource", "METHOD in a calendar object resource");
  }
  CalendarObjectInfo info;
  NUBO_RETURN_IF_ERROR(CheckComponents(*cal, allowed_components, &info, err));
  ComputeBounds(*cal, &info);
  return info;
}

bool MatchesCalendarFilter(std::string_view data, const CompFilter& filter,
                           std::string_view floating_tz) {
  ErrnoScope errno_scope;
  if (!EqualsIgnoreCase(filter.name, "VCALENDAR") || filter.is_not_defined) return false;
  std::optional<Calendar> cal = Load(data, floating_tz, nullptr);
  return cal && MatchBody(*cal, cal->root.get(), filter, nullptr);
}

Result<std::string> ExpandCalendarObject(std::string_view data, const TimeRange& range,
                                         std::string_view floating_tz) {
  ErrnoScope errno_scope;
  std::optional<Calendar> cal = Load(data, floating_tz, nullptr);
  if (!cal) return Status::InvalidArgument("not an iCalendar object");
  ComponentPtr out(icalcomponent_new(ICAL_VCALENDAR_COMPONENT));
  for (icalproperty* p : Props(cal->root.get())) {
    icalcomponent_add_property(out.get(), icalproperty_new_clone(p));
  }
  size_t count = 0;
  for (const Group& g : GroupsOf(cal->root.get(), ICAL_ANY_COMPONENT)) {
    for (const Instance& in : ExpandGroup(*cal, g, range.end_ms).instances) {
      if (!InstanceOverlaps(*cal, in, range)) continue;
      if (++count > kMaxExpandedInstances) {
        return Status::ResourceExhausted("more than 10000 instances in the time range");
      }
      icalcomponent_add_component(out.get(), InstanceComponent(in));
    }
  }
  return Serialize(out.get());
}

Result<std::string> LimitRecurrenceSet(std::string_view data, const TimeRange& range) {
  ErrnoScope errno_scope;
  std::optional<Calendar> cal = Load(data, "", nullptr);
  if (!cal) return Status::InvalidArgument("not an iCalendar object");
  icalcomponent* root = cal->root.get();
  const Range r = ToRange(range);
  for (const Group& g : GroupsOf(root, ICAL_ANY_COMPONENT)) {
    Expansion ex;
    ApplyOverrides(*cal, Group{nullptr, g.overrides}, &ex);
    for (const Instance& in : ex.instances) {
      // Kept when the instance lands in the range or the instance it
      // replaces started there (RANGE=THISANDFUTURE: any time before its end).
      icalproperty* rid = FirstProp(in.comp, ICAL_RECURRENCEID_PROPERTY);
      icalparameter* rp = icalproperty_get_first_parameter(rid, ICAL_RANGE_PARAMETER);
      const bool future = rp && icalparameter_get_range(rp) == ICAL_RANGE_THISANDFUTURE;
      const int64_t rid_end = in.rid_tt.is_date ? in.rid_ms + kDayMs : in.rid_ms;
      if (InstanceOverlaps(*cal, in, range) || SpanOverlaps(in.rid_ms, rid_end, r) ||
          (future && in.rid_ms < r.end)) {
        continue;
      }
      icalcomponent_remove_component(root, in.comp);
      icalcomponent_free(in.comp);
    }
  }
  return Serialize(root);
}

std::vector<BusyPeriod> BusyPeriods(std::string_view data, const TimeRange& range,
                                    std::string_view floating_tz) {
  ErrnoScope errno_scope;
  std::vector<BusyPeriod> out;
  std::optional<Calendar> cal = Load(data, floating_tz, nullptr);
  if (!cal) return out;
  const Range r = ToRange(range);
  for (const Group& g : GroupsOf(cal->root.get(), ICAL_VEVENT_COMPONENT)) {
    for (const Instance& in : ExpandGroup(*cal, g, range.end_ms).instances) {
      if (!in.start_ms || !InstanceOverlaps(*cal, in, range)) continue;
      icalproperty* transp = FirstProp(in.comp, ICAL_TRANSP_PROPERTY);
      const icalproperty_transp tr = transp ? icalproperty_get_transp(transp) : ICAL_TRANSP_NONE;
      if (tr == ICAL_TRANSP_TRANSPARENT || tr == ICAL_TRANSP_TRANSPARENTNOCONFLICT) continue;
      icalproperty* status = FirstProp(in.comp, ICAL_STATUS_PROPERTY);
      const icalproperty_status st = status ? icalproperty_get_status(status) : ICAL_STATUS_NONE;
      if (st == ICAL_STATUS_CANCELLED) continue;
      const int64_t s = std::max(*in.start_ms, r.start);
      const int64_t e = std::min(in.end_ms.value_or(*in.start_ms), r.end);
      if (e > s) out.push_back({s, e, st == ICAL_STATUS_TENTATIVE});  // points block nothing
    }
  }
  std::sort(out.begin(), out.end(),
            [](const BusyPeriod& a, const BusyPeriod& b) { return a.start_ms < b.start_ms; });
  return out;
}

std::optional<int64_t> ParseUtcDateTime(std::string_view s) {
  if (s.size() != 16 || s[8] != 'T' || s[15] != 'Z') return std::nullopt;
  auto num = [&](size_t pos, size_t len) {
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  icaltimetype t = icaltime_null_time();
  t.year = num(0, 4);
  t.month = num(4, 2);
  t.day = num(6, 2);
  t.hour = num(9, 2);
  t.minute = num(11, 2);
  t.second = num(13, 2);
  if (t.year < 0 || t.hour < 0 || t.minute < 0 || t.second < 0 || t.second > 59 ||
      !ValidFields(t)) {
    return std::nullopt;
  }
  return FieldsMs(t);
}

std::string FormatUtcDateTime(int64_t ms) {
  const icaltimetype t = UtcTime(FloorDiv(ms, kSecondMs) * kSecondMs);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d%02d%02dT%02d%02d%02dZ", t.year, t.month, t.day, t.hour,
                t.minute, t.second);
  return buf;
}

}  // namespace nubo::groupware
