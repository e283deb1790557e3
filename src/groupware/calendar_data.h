// iCalendar objects (RFC 5545) as CalDAV (RFC 4791) stores and queries
// them, through libical (the only files that include libical's headers
// are calendar_data.cc and what it needs). Thread-safe: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "groupware/text_match.h"
#include "util/status.h"

namespace nubo::groupware {

// What the store indexes about one calendar object resource.
struct CalendarObjectInfo {
  std::string uid;
  std::string component;  // "VEVENT", "VTODO", "VJOURNAL" or "VFREEBUSY"
  // The union of every instance's time span (recurrences expanded), in ms
  // since the epoch, UTC: nullopt = unbounded on that side (e.g. an RRULE
  // without COUNT/UNTIL has no last_end). Floating and all-day times are
  // taken as UTC, widened by 14 hours on each side so that a floating
  // event matches a range asked in any time zone. A time-range query reads
  // only objects whose span overlaps the range (an index scan) and then
  // checks each with MatchesCalendarFilter.
  std::optional<int64_t> first_start_ms;
  std::optional<int64_t> last_end_ms;
  bool recurring = false;
};

// Why a calendar object resource is refused: the RFC 4791 §5.3.2.1
// precondition element (in the CalDAV namespace) and a reason for people.
struct CalendarError {
  std::string condition;  // "valid-calendar-data", "valid-calendar-object-resource",
                          // "supported-calendar-component", "max-resource-size"
  std::string reason;
};

// Parses and validates one calendar object resource (RFC 4791 §4.1): a
// VCALENDAR with VERSION:2.0 and PRODID, no METHOD property, components of
// one type only (plus VTIMEZONEs), every non-timezone component with the
// same UID (overrides carry RECURRENCE-ID), no two components with the
// same RECURRENCE-ID, DTSTART present where RFC 5545 requires it. On
// failure fills `error` and returns InvalidArgument.
// `allowed_components`: bit set of kCompEvent|kCompTodo|kCompJournal|kCompFreeBusy.
inline constexpr uint32_t kCompEvent = 1, kCompTodo = 2, kCompJournal = 4, kCompFreeBusy = 8;
Result<CalendarObjectInfo> ParseCalendarObject(std::string_view data, uint32_t allowed_components,
                                               CalendarError* error);

// A CalDAV time range (RFC 4791 §9.9): [start, end), either side open.
struct TimeRange {
  std::optional<int64_t> start_ms;
  std::optional<int64_t> end_ms;
};

// RFC 4791 §9.7 filters as plain values (the DAV layer parses the XML).
struct ParamFilter {
  std::string name;  // upper case, e.g. "PARTSTAT"
  bool is_not_defined = false;
  std::optional<TextMatch> text;
};
struct PropFilter {
  std::string name;  // upper case, e.g. "SUMMARY", "UID", "ATTENDEE"
  bool is_not_defined = false;
  std::optional<TimeRange> time_range;
  std::optional<TextMatch> text;
  std::vector<ParamFilter> params;
};
struct CompFilter {
  std::string name;  // "VCALENDAR" at the root, then "VEVENT", "VTODO", "VALARM"…
  bool is_not_defined = false;
  std::optional<TimeRange> time_range;
  std::vector<PropFilter> props;
  std::vector<CompFilter> comps;
};

// Whether the object matches the filter whose root is the VCALENDAR
// comp-filter (RFC 4791 §9.7.1: all nested tests must hold). Time ranges
// on components expand recurrences (RRULE, RDATE, EXDATE, overridden
// instances), with §9.9's table for events (DTSTART/DTEND/DURATION, all-day
// dates), to-dos (DTSTART/DUE/DURATION/COMPLETED/CREATED) and journals;
// on VALARM the trigger times (§9.9 alarms); floating times are read in
// `floating_tz` (an IANA name from the calendar's timezone, "" = UTC).
// Unparseable data matches nothing.
bool MatchesCalendarFilter(std::string_view data, const CompFilter& filter,
                           std::string_view floating_tz = "");

// RFC 4791 §9.6.5 `expand`: the object with its recurrence set replaced by
// the instances overlapping `range`, each a component without RRULE,
// RDATE and EXDATE, with RECURRENCE-ID and times in UTC; VTIMEZONEs
// dropped. Returns the iCalendar text (CRLF lines).
Result<std::string> ExpandCalendarObject(std::string_view data, const TimeRange& range,
                                         std::string_view floating_tz = "");

// RFC 4791 §9.6.6 `limit-recurrence-set`: the master component and the
// overridden instances whose span overlaps `range` (others removed).
Result<std::string> LimitRecurrenceSet(std::string_view data, const TimeRange& range);

// RFC 4791 §7.10 free-busy: the busy periods of the object's event
// instances overlapping `range` (TRANSP:TRANSPARENT and STATUS:CANCELLED
// are free; STATUS:TENTATIVE is BUSY-TENTATIVE), clipped to the range.
struct BusyPeriod {
  int64_t start_ms;
  int64_t end_ms;
  bool tentative = false;
};
std::vector<BusyPeriod> BusyPeriods(std::string_view data, const TimeRange& range,
                                    std::string_view floating_tz = "");

// Parses an iCalendar DATE-TIME in UTC ("20240101T000000Z") as RFC 4791
// §9.9 requires for time-range attributes; nullopt otherwise.
std::optional<int64_t> ParseUtcDateTime(std::string_view s);
// Formats ms since the epoch as "YYYYMMDDTHHMMSSZ".
std::string FormatUtcDateTime(int64_t ms);

}  // namespace nubo::groupware
