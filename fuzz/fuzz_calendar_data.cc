// Fuzzes iCalendar objects (RFC 5545 through libical) as CalDAV reads them
// (RFC 4791): parsing, a §9.9 time-range filter, §9.6.5 expand and §7.10
// free-busy never crash and stay bounded, and agree with each other: the
// index span covers every match, expand's output is a valid object again,
// busy periods lie in the range.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "groupware/calendar_data.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo::groupware;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const int64_t start = *ParseUtcDateTime("20240101T000000Z");
  const int64_t end = *ParseUtcDateTime("20250101T000000Z");
  const TimeRange range{start, end};
  const uint32_t all = kCompEvent | kCompTodo | kCompJournal | kCompFreeBusy;

  CalendarError err;
  auto info = ParseCalendarObject(in, all, &err);
  if (!info.ok()) {
    static const std::set<std::string> kConditions = {
        "valid-calendar-data", "valid-calendar-object-resource", "supported-calendar-component",
        "max-resource-size"};
    FUZZ_CHECK(kConditions.count(err.condition) == 1);
  } else {
    FUZZ_CHECK(!info->uid.empty());
    FUZZ_CHECK(info->component == "VEVENT" || info->component == "VTODO" ||
               info->component == "VJOURNAL" || info->component == "VFREEBUSY");
    if (info->first_start_ms && info->last_end_ms) {
      FUZZ_CHECK(*info->first_start_ms <= *info->last_end_ms);
    }
  }

  CompFilter event;
  event.name = "VEVENT";
  event.time_range = range;
  CompFilter root;
  root.name = "VCALENDAR";
  root.comps.push_back(event);
  const bool matches = MatchesCalendarFilter(in, root);
  FUZZ_CHECK(MatchesCalendarFilter(in, root) == matches);
  if (info.ok() && matches) {  // the index must read every object that matches
    FUZZ_CHECK(!info->first_start_ms || *info->first_start_ms < end);
    FUZZ_CHECK(!info->last_end_ms || *info->last_end_ms > start);
  }

  auto expanded = ExpandCalendarObject(in, range);
  if (info.ok() && expanded.status().code() != nubo::Code::kResourceExhausted) {
    FUZZ_CHECK(expanded.ok());
    CalendarError again;
    auto reparsed = ParseCalendarObject(*expanded, all, &again);
    FUZZ_CHECK(reparsed.ok() || again.reason == "no calendar component" ||
               again.condition == "max-resource-size");
    // libical writes a bare CR unescaped, reads an invalid escape ("\z") as
    // a blank and trims blanks around values: the UID survives up to those.
    auto trim = [](std::string_view v) {
      const size_t b = v.find_first_not_of(" \t"), e = v.find_last_not_of(" \t");
      return b == std::string_view::npos ? std::string_view() : v.substr(b, e - b + 1);
    };
    const bool clean_uid = info->uid.find_first_of("\r\n") == std::string::npos;
    if (reparsed.ok() && clean_uid) FUZZ_CHECK(trim(reparsed->uid) == trim(info->uid));
  }

  int64_t last = start;
  for (const BusyPeriod& b : BusyPeriods(in, range)) {
    FUZZ_CHECK(b.start_ms >= start && b.end_ms <= end && b.start_ms < b.end_ms);
    FUZZ_CHECK(b.start_ms >= last);
    last = b.start_ms;
  }
  return 0;
}
