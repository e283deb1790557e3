#include "groupware/calendar_data.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nubo::groupware {
namespace {

// Joins lines with CRLF inside a VCALENDAR.
std::string Cal(std::initializer_list<std::string_view> lines) {
  std::string out = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo//test//EN\r\n";
  for (std::string_view l : lines) {
    out += l;
    out += "\r\n";
  }
  return out + "END:VCALENDAR\r\n";
}

int64_t T(std::string_view utc) {
  auto ms = ParseUtcDateTime(utc);
  EXPECT_TRUE(ms.has_value()) << utc;
  return ms.value_or(0);
}

TimeRange R(std::string_view start, std::string_view end) { return {T(start), T(end)}; }

CompFilter Comp(std::string name) {
  CompFilter f;
  f.name = std::move(name);
  return f;
}

// VCALENDAR > `kind` with a time range.
CompFilter InRange(const TimeRange& range, std::string kind = "VEVENT") {
  CompFilter inner = Comp(std::move(kind));
  inner.time_range = range;
  CompFilter root = Comp("VCALENDAR");
  root.comps.push_back(inner);
  return root;
}

CompFilter WithProp(PropFilter p) {
  CompFilter inner = Comp("VEVENT");
  inner.props.push_back(std::move(p));
  CompFilter root = Comp("VCALENDAR");
  root.comps.push_back(inner);
  return root;
}

CalendarObjectInfo MustParse(const std::string& data, uint32_t allowed = kCompEvent | kCompTodo) {
  CalendarError err;
  auto r = ParseCalendarObject(data, allowed, &err);
  EXPECT_TRUE(r.ok()) << err.condition << ": " << err.reason;
  return r.ok() ? std::move(r).value() : CalendarObjectInfo{};
}

std::string ConditionOf(const std::string& data, uint32_t allowed = kCompEvent) {
  CalendarError err;
  auto r = ParseCalendarObject(data, allowed, &err);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  return err.condition;
}

// The values of every line starting with `name` (":"-separated), in order.
std::vector<std::string> Values(const std::string& ics, std::string_view name) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < ics.size()) {
    size_t eol = ics.find("\r\n", pos);
    if (eol == std::string::npos) eol = ics.size();
    std::string_view line(ics.data() + pos, eol - pos);
    if (line.substr(0, name.size()) == name &&
        (line.size() > name.size() && (line[name.size()] == ':' || line[name.size()] == ';'))) {
      out.emplace_back(line.substr(line.find(':') + 1));
    }
    pos = eol + 2;
  }
  return out;
}

// Weekly on Mondays 10:00Z, ten times (Jan 1 … Mar 4 2024); Jan 15 excluded;
// Jan 22 moved to Saturday Jun 1 09:00Z.
const std::string kWeekly = Cal({
    "BEGIN:VEVENT",
    "UID:weekly@test",
    "DTSTAMP:20240101T000000Z",
    "DTSTART:20240101T100000Z",
    "DTEND:20240101T110000Z",
    "RRULE:FREQ=WEEKLY;COUNT=10",
    "EXDATE:20240115T100000Z",
    "SUMMARY:Weekly sync",
    "END:VEVENT",
    "BEGIN:VEVENT",
    "UID:weekly@test",
    "DTSTAMP:20240101T000000Z",
    "RECURRENCE-ID:20240122T100000Z",
    "DTSTART:20240601T090000Z",
    "DTEND:20240601T100000Z",
    "SUMMARY:Moved sync",
    "END:VEVENT",
});

TEST(CalendarData, WeeklyRuleInfoSpansEveryInstanceAndTheMovedOne) {
  CalendarObjectInfo info = MustParse(kWeekly);
  EXPECT_EQ(info.uid, "weekly@test");
  EXPECT_EQ(info.component, "VEVENT");
  EXPECT_TRUE(info.recurring);
  EXPECT_EQ(info.first_start_ms, T("20240101T100000Z"));
  EXPECT_EQ(info.last_end_ms, T("20240601T100000Z"));  // the override ends last
}

TEST(CalendarData, WeeklyRuleMatchesOnlyLiveInstances) {
  EXPECT_TRUE(MatchesCalendarFilter(kWeekly, InRange(R("20240108T000000Z", "20240109T000000Z"))));
  // EXDATE removes Jan 15; the override takes Jan 22 away.
  EXPECT_FALSE(MatchesCalendarFilter(kWeekly, InRange(R("20240115T000000Z", "20240116T000000Z"))));
  EXPECT_FALSE(MatchesCalendarFilter(kWeekly, InRange(R("20240122T000000Z", "20240123T000000Z"))));
  EXPECT_TRUE(MatchesCalendarFilter(kWeekly, InRange(R("20240601T000000Z", "20240602T000000Z"))));
  // COUNT=10 ends on Mar 4.
  EXPECT_TRUE(MatchesCalendarFilter(kWeekly, InRange(R("20240304T000000Z", "20240305T000000Z"))));
  EXPECT_FALSE(MatchesCalendarFilter(kWeekly, InRange(R("20240311T000000Z", "20240312T000000Z"))));
  // Half-open: a range starting at an instance's end misses it.
  EXPECT_TRUE(MatchesCalendarFilter(kWeekly, InRange(R("20240108T103000Z", "20240108T104500Z"))));
  EXPECT_FALSE(MatchesCalendarFilter(kWeekly, InRange(R("20240108T110000Z", "20240108T120000Z"))));
  EXPECT_FALSE(MatchesCalendarFilter(kWeekly, InRange(R("20240108T090000Z", "20240108T100000Z"))));
  // Open-ended ranges.
  EXPECT_TRUE(MatchesCalendarFilter(kWeekly, InRange({T("20240305T000000Z"), std::nullopt})));
  EXPECT_FALSE(MatchesCalendarFilter(kWeekly, InRange({T("20240602T000000Z"), std::nullopt})));
  EXPECT_TRUE(MatchesCalendarFilter(kWeekly, InRange({std::nullopt, T("20240101T100001Z")})));
}

TEST(CalendarData, ExpandListsExactlyTheInstancesInRange) {
  auto r = ExpandCalendarObject(kWeekly, R("20240101T000000Z", "20240201T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID"),
            (std::vector<std::string>{"20240101T100000Z", "20240108T100000Z", "20240129T100000Z"}));
  EXPECT_EQ(Values(*r, "DTSTART"),
            (std::vector<std::string>{"20240101T100000Z", "20240108T100000Z", "20240129T100000Z"}));
  EXPECT_EQ(Values(*r, "DTEND")[2], "20240129T110000Z");
  EXPECT_TRUE(Values(*r, "RRULE").empty());
  EXPECT_TRUE(Values(*r, "EXDATE").empty());
  EXPECT_NE(r->find("\r\n"), std::string::npos);

  r = ExpandCalendarObject(kWeekly, R("20240501T000000Z", "20240701T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID"), std::vector<std::string>{"20240122T100000Z"});
  EXPECT_EQ(Values(*r, "DTSTART"), std::vector<std::string>{"20240601T090000Z"});
  EXPECT_EQ(Values(*r, "SUMMARY"), std::vector<std::string>{"Moved sync"});

  r = ExpandCalendarObject(kWeekly, R("20250101T000000Z", "20250201T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->find("BEGIN:VEVENT"), std::string::npos);
  EXPECT_NE(r->find("BEGIN:VCALENDAR"), std::string::npos);
}

TEST(CalendarData, LimitRecurrenceSetKeepsMasterAndOverridesInRange) {
  auto r = LimitRecurrenceSet(kWeekly, R("20240201T000000Z", "20240301T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "UID").size(), 1u);
  EXPECT_TRUE(Values(*r, "RECURRENCE-ID").empty());
  EXPECT_EQ(Values(*r, "RRULE").size(), 1u);
  // The override's original slot (Jan 22) or its new one (Jun 1) keeps it.
  r = LimitRecurrenceSet(kWeekly, R("20240120T000000Z", "20240125T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID").size(), 1u);
  r = LimitRecurrenceSet(kWeekly, R("20240601T000000Z", "20240602T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID").size(), 1u);
}

const std::string kAllDay = Cal({
    "BEGIN:VEVENT",
    "UID:allday@test",
    "DTSTAMP:20240101T000000Z",
    "DTSTART;VALUE=DATE:20240215",
    "LAST-MODIFIED:yesterday",
    "SUMMARY:Holiday",
    "END:VEVENT",
});

TEST(CalendarData, AllDayEventLastsOneDayInTheCalendarZone) {
  CalendarObjectInfo info = MustParse(kAllDay);
  EXPECT_FALSE(info.recurring);
  EXPECT_EQ(info.first_start_ms, T("20240215T000000Z") - 14 * 3600 * 1000);
  EXPECT_EQ(info.last_end_ms, T("20240216T000000Z") + 14 * 3600 * 1000);
  const CompFilter evening = InRange(R("20240216T010000Z", "20240216T020000Z"));
  EXPECT_FALSE(MatchesCalendarFilter(kAllDay, evening));  // read as UTC: over at 00:00Z
  EXPECT_TRUE(MatchesCalendarFilter(kAllDay, evening, "America/New_York"));  // until 05:00Z
  EXPECT_TRUE(MatchesCalendarFilter(kAllDay, InRange(R("20240215T230000Z", "20240216T000000Z"))));

  auto r = ExpandCalendarObject(kAllDay, R("20240201T000000Z", "20240301T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "DTSTART"), std::vector<std::string>{"20240215"});
  EXPECT_NE(r->find("DTSTART;VALUE=DATE:20240215"), std::string::npos);
  EXPECT_TRUE(Values(*r, "RECURRENCE-ID").empty());      // not recurring: passed through
  EXPECT_EQ(r->find("X-LIC-ERROR"), std::string::npos);  // libical's note on LAST-MODIFIED
}

TEST(CalendarData, AllDayRecurrenceIdsAreDates) {
  const std::string data = Cal({
      "BEGIN:VEVENT",
      "UID:bday@test",
      "DTSTAMP:20240101T000000Z",
      "DTSTART;VALUE=DATE:20200301",
      "DTEND;VALUE=DATE:20200302",
      "RRULE:FREQ=YEARLY",
      "END:VEVENT",
  });
  auto r = ExpandCalendarObject(data, R("20230101T000000Z", "20250101T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID"), (std::vector<std::string>{"20230301", "20240301"}));
  EXPECT_NE(r->find("RECURRENCE-ID;VALUE=DATE:20240301"), std::string::npos);
  EXPECT_EQ(Values(*r, "DTEND"), (std::vector<std::string>{"20230302", "20240302"}));
}

const std::string kFloating = Cal({
    "BEGIN:VEVENT",
    "UID:floating@test",
    "DTSTAMP:20240101T000000Z",
    "DTSTART:20240301T090000",
    "DTEND:20240301T100000",
    "END:VEVENT",
});

TEST(CalendarData, FloatingEventIsReadInTheCalendarZone) {
  CalendarObjectInfo info = MustParse(kFloating);
  EXPECT_EQ(info.first_start_ms, T("20240301T090000Z") - 14 * 3600 * 1000);
  EXPECT_EQ(info.last_end_ms, T("20240301T100000Z") + 14 * 3600 * 1000);
  const CompFilter early = InRange(R("20240301T080000Z", "20240301T083000Z"));
  EXPECT_FALSE(MatchesCalendarFilter(kFloating, early));
  EXPECT_TRUE(MatchesCalendarFilter(kFloating, early, "Europe/Berlin"));  // 08:00Z-09:00Z
  auto r =
      ExpandCalendarObject(kFloating, R("20240301T000000Z", "20240302T000000Z"), "Europe/Berlin");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "DTSTART"), std::vector<std::string>{"20240301T080000Z"});
}

const char* const kBerlinTz[] = {
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0200",
    "TZNAME:CEST",
    "DTSTART:19700329T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:+0200",
    "TZOFFSETTO:+0100",
    "TZNAME:CET",
    "DTSTART:19701025T030000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD",
};

std::string ZonedEvent(const std::string& tzid, const std::string& start, const std::string& rule) {
  std::string out = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo//test//EN\r\n";
  out += "BEGIN:VTIMEZONE\r\nTZID:" + tzid + "\r\n";
  for (const char* l : kBerlinTz) out += std::string(l) + "\r\n";
  out += "END:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:zoned@test\r\nDTSTAMP:20240101T000000Z\r\n";
  out += "DTSTART;TZID=" + tzid + ":" + start + "\r\nDURATION:PT1H\r\n";
  if (!rule.empty()) out += "RRULE:" + rule + "\r\n";
  return out + "END:VEVENT\r\nEND:VCALENDAR\r\n";
}

TEST(CalendarData, ZonedTimesAreConvertedToUtc) {
  CalendarObjectInfo info = MustParse(ZonedEvent("Europe/Berlin", "20240115T100000", ""));
  EXPECT_EQ(info.first_start_ms, T("20240115T090000Z"));  // CET, no floating slack
  EXPECT_EQ(info.last_end_ms, T("20240115T100000Z"));
  // An Outlook-style name: the embedded VTIMEZONE is what defines it.
  info = MustParse(ZonedEvent("W. Europe Standard Time", "20240715T100000", ""));
  EXPECT_EQ(info.first_start_ms, T("20240715T080000Z"));  // CEST
  EXPECT_EQ(info.last_end_ms, T("20240715T090000Z"));
}

TEST(CalendarData, RecurrenceFollowsTheWallClockAcrossDst) {
  for (const char* tzid : {"Europe/Berlin", "Custom Berlin"}) {
    const std::string data = ZonedEvent(tzid, "20240325T100000", "FREQ=WEEKLY;COUNT=3");
    auto r = ExpandCalendarObject(data, R("20240301T000000Z", "20240501T000000Z"));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(
        Values(*r, "RECURRENCE-ID"),
        (std::vector<std::string>{"20240325T090000Z", "20240401T080000Z", "20240408T080000Z"}))
        << tzid;
    EXPECT_TRUE(Values(*r, "TZID").empty());
    EXPECT_EQ(r->find("BEGIN:VTIMEZONE"), std::string::npos);
    EXPECT_EQ(r->find("TZID="), std::string::npos);
  }
}

const std::string kMondays = Cal({
    "BEGIN:VEVENT",
    "UID:mondays@test",
    "DTSTAMP:20200101T000000Z",
    "DTSTART:20200106T080000Z",
    "DTEND:20200106T090000Z",
    "RRULE:FREQ=WEEKLY;BYDAY=MO",
    "END:VEVENT",
});

TEST(CalendarData, InfiniteRuleHasNoEndAndMatchesYearsLater) {
  CalendarObjectInfo info = MustParse(kMondays);
  EXPECT_TRUE(info.recurring);
  EXPECT_EQ(info.first_start_ms, T("20200106T080000Z"));
  EXPECT_FALSE(info.last_end_ms.has_value());
  // 2025-01-06 is a Monday, 2025-01-07 a Tuesday.
  EXPECT_TRUE(MatchesCalendarFilter(kMondays, InRange(R("20250106T070000Z", "20250106T083000Z"))));
  EXPECT_FALSE(MatchesCalendarFilter(kMondays, InRange(R("20250107T000000Z", "20250108T000000Z"))));
  auto busy = BusyPeriods(kMondays, R("20250101T000000Z", "20250115T000000Z"));
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[1].start_ms, T("20250113T080000Z"));
}

TEST(CalendarData, UntilBeyondTheInstanceLimitCountsAsUnbounded) {
  const std::string data = Cal({
      "BEGIN:VEVENT",
      "UID:minutely@test",
      "DTSTAMP:20240101T000000Z",
      "DTSTART:20240101T000000Z",
      "RRULE:FREQ=MINUTELY;UNTIL=20340101T000000Z",
      "END:VEVENT",
  });
  CalendarObjectInfo info = MustParse(data);
  EXPECT_EQ(info.first_start_ms, T("20240101T000000Z"));
  EXPECT_FALSE(info.last_end_ms.has_value());
  const std::string bounded = Cal({
      "BEGIN:VEVENT",
      "UID:daily@test",
      "DTSTAMP:20240101T000000Z",
      "DTSTART:20240101T120000Z",
      "RRULE:FREQ=DAILY;UNTIL=20240110T120000Z",
      "END:VEVENT",
  });
  info = MustParse(bounded);
  EXPECT_EQ(info.last_end_ms, T("20240110T120000Z") + 1);  // a point, widened by 1 ms
}

TEST(CalendarData, BoundedRuleLeavesBudgetForLaterFilters) {
  const std::string data = Cal({
      "BEGIN:VEVENT",
      "UID:ten@test",
      "DTSTAMP:20240101T000000Z",
      "DTSTART:20240101T120000Z",
      "DTEND:20240101T130000Z",
      "RRULE:FREQ=DAILY;UNTIL=20240110T120000Z",
      "END:VEVENT",
  });
  // Two comp-filters with open ends: two full walks in one call, both must
  // reach day 9 (a walk ended by UNTIL costs only the days it walked).
  CompFilter root = InRange({T("20240109T000000Z"), std::nullopt});
  root.comps.push_back(root.comps[0]);
  EXPECT_TRUE(MatchesCalendarFilter(data, root));
  root.comps[1].time_range = {T("20240111T000000Z"), std::nullopt};  // past UNTIL
  EXPECT_FALSE(MatchesCalendarFilter(data, root));
}

TEST(CalendarData, HostileRulesEndQuickly) {
  // libical alone would step second by second for centuries here.
  const std::string data = Cal({
      "BEGIN:VEVENT",
      "UID:never@test",
      "DTSTAMP:20240101T000000Z",
      "DTSTART:20240101T000000Z",
      "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=30",
      "END:VEVENT",
  });
  CalendarObjectInfo info = MustParse(data);
  EXPECT_FALSE(info.last_end_ms.has_value());
  EXPECT_TRUE(MatchesCalendarFilter(data, InRange(R("20240101T000000Z", "20240102T000000Z"))));
  EXPECT_FALSE(MatchesCalendarFilter(data, InRange({T("20240102T000000Z"), std::nullopt})));
  auto r = ExpandCalendarObject(data, {std::nullopt, std::nullopt});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID").size(), 1u);
}

TEST(CalendarData, ExpandRefusesMoreThanMaxInstances) {
  const std::string daily = Cal({
      "BEGIN:VEVENT",
      "UID:daily@test",
      "DTSTAMP:20000101T000000Z",
      "DTSTART:20000101T090000Z",
      "RRULE:FREQ=DAILY",
      "END:VEVENT",
  });
  auto r = ExpandCalendarObject(daily, R("20000101T000000Z", "20200101T000000Z"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Values(*r, "RECURRENCE-ID").size(), 7305u);  // 20 years of days
  r = ExpandCalendarObject(daily, R("20000101T000000Z", "20300101T000000Z"));
  EXPECT_EQ(r.status().code(), Code::kResourceExhausted);  // RFC 4791 §5.2.8 max-instances
}

TEST(CalendarData, RefusesEachInvalidShape) {
  const std::string event_lines =
      "BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20240101T000000Z\r\nDTSTART:20240101T100000Z\r\n"
      "END:VEVENT\r\n";
  EXPECT_EQ(ConditionOf("garbage"), "valid-calendar-data");
  EXPECT_EQ(ConditionOf("BEGIN:VCARD\r\nVERSION:4.0\r\nEND:VCARD\r\n"), "valid-calendar-data");
  EXPECT_EQ(ConditionOf("BEGIN:VCALENDAR\r\nPRODID:x\r\n" + event_lines + "END:VCALENDAR\r\n"),
            "valid-calendar-data");  // no VERSION
  EXPECT_EQ(ConditionOf(Cal({"METHOD:REQUEST", "BEGIN:VEVENT", "UID:a", "DTSTART:20240101T100000Z",
                             "END:VEVENT"})),
            "valid-calendar-object-resource");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VEVENT", "UID:a", "DTSTART:20240101T100000Z", "END:VEVENT",
                             "BEGIN:VEVENT", "UID:b", "RECURRENCE-ID:20240108T100000Z",
                             "DTSTART:20240108T100000Z", "END:VEVENT"})),
            "valid-calendar-object-resource");
  EXPECT_EQ(ConditionOf(
                Cal({"BEGIN:VEVENT", "UID:a", "DTSTART:20240101T100000Z", "RRULE:FREQ=DAILY",
                     "END:VEVENT", "BEGIN:VEVENT", "UID:a", "RECURRENCE-ID:20240102T100000Z",
                     "DTSTART:20240102T110000Z", "END:VEVENT", "BEGIN:VEVENT", "UID:a",
                     "RECURRENCE-ID:20240102T100000Z", "DTSTART:20240102T120000Z", "END:VEVENT"})),
            "valid-calendar-object-resource");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VEVENT", "DTSTART:20240101T100000Z", "END:VEVENT"})),
            "valid-calendar-object-resource");  // no UID
  EXPECT_EQ(ConditionOf(Cal({})), "valid-calendar-object-resource");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VEVENT", "UID:a", "DTSTART:20240101T100000Z", "END:VEVENT",
                             "BEGIN:VTODO", "UID:a", "END:VTODO"}),
                        kCompEvent | kCompTodo),
            "valid-calendar-object-resource");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VTODO", "UID:t", "SUMMARY:x", "END:VTODO"}), kCompEvent),
            "supported-calendar-component");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VEVENT", "UID:a", "SUMMARY:no start", "END:VEVENT"})),
            "valid-calendar-data");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VEVENT", "UID:a", "DTSTART:20240101T100000Z",
                             "DTEND:20240101T110000Z", "DURATION:PT1H", "END:VEVENT"})),
            "valid-calendar-data");
  EXPECT_EQ(ConditionOf(Cal({"BEGIN:VTIMEZONE", "TZID:Evil", "BEGIN:STANDARD",
                             "DTSTART:19700101T000000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
                             "RRULE:FREQ=SECONDLY", "END:STANDARD", "END:VTIMEZONE", "BEGIN:VEVENT",
                             "UID:a", "DTSTART;TZID=Evil:20240101T100000", "END:VEVENT"})),
            "valid-calendar-data");
  EXPECT_EQ(
      ConditionOf(Cal({"BEGIN:VEVENT", "UID:a\bb", "DTSTART:20240101T100000Z", "END:VEVENT"})),
      "valid-calendar-data");  // RFC 5545 §3.1: no control characters
  std::string many = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n";
  for (int i = 0; i < 10001; ++i) many += "BEGIN:X-A\r\nEND:X-A\r\n";
  EXPECT_EQ(ConditionOf(many + "END:VCALENDAR\r\n"), "max-resource-size");

  // Accepted: PRODID missing, a to-do where to-dos are allowed.
  MustParse("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n" + event_lines + "END:VCALENDAR\r\n");
  CalendarObjectInfo todo = MustParse(Cal({"BEGIN:VTODO", "UID:t", "SUMMARY:x", "END:VTODO"}));
  EXPECT_EQ(todo.component, "VTODO");
  EXPECT_FALSE(todo.first_start_ms.has_value());  // no dates: matches every range
  EXPECT_FALSE(todo.last_end_ms.has_value());
}

const std::string kMeeting = Cal({
    "BEGIN:VEVENT",
    "UID:meeting@test",
    "DTSTAMP:20240101T000000Z",
    "DTSTART:20240301T100000Z",
    "DTEND:20240301T110000Z",
    "SUMMARY:Weekly Planning",
    "ATTENDEE;PARTSTAT=ACCEPTED;CN=Ann:mailto:ann@example.com",
    "ATTENDEE;PARTSTAT=DECLINED:mailto:bob@example.com",
    "BEGIN:VALARM",
    "ACTION:DISPLAY",
    "TRIGGER:-PT15M",
    "END:VALARM",
    "END:VEVENT",
});

TEST(CalendarData, PropFilterTextMatchIsCaseInsensitiveByDefault) {
  PropFilter p;
  p.name = "SUMMARY";
  p.text = TextMatch{"weekly plan"};
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.text = TextMatch{"daily"};
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.text->negate = true;
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.text = TextMatch{"weekly plan", Collation::kOctet};
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, WithProp(p)));
}

TEST(CalendarData, IsNotDefinedOnPropertiesAndComponents) {
  PropFilter p;
  p.name = "LOCATION";
  p.is_not_defined = true;
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.name = "SUMMARY";
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  CompFilter root = Comp("VCALENDAR");
  CompFilter todo = Comp("VTODO");
  root.comps.push_back(todo);
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, root));
  root.comps[0].is_not_defined = true;
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, root));
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, Comp("VCALENDAR")));
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, Comp("VEVENT")));  // the root must be VCALENDAR
  EXPECT_FALSE(MatchesCalendarFilter("garbage", Comp("VCALENDAR")));
}

TEST(CalendarData, ParamFilterOnAttendeePartstat) {
  PropFilter p;
  p.name = "ATTENDEE";
  p.text = TextMatch{"mailto:bob@example.com", Collation::kAsciiCasemap, MatchType::kEquals};
  ParamFilter partstat;
  partstat.name = "PARTSTAT";
  partstat.text = TextMatch{"DECLINED", Collation::kAsciiCasemap, MatchType::kEquals};
  p.params.push_back(partstat);
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.params[0].text->text = "ACCEPTED";  // Bob did not accept; Ann did
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.text.reset();
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  ParamFilter cn;
  cn.name = "CN";
  cn.is_not_defined = true;
  p.params = {cn};  // Bob's line has no CN
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, WithProp(p)));
  p.text = TextMatch{"ann@"};
  EXPECT_FALSE(MatchesCalendarFilter(kMeeting, WithProp(p)));
}

TEST(CalendarData, AlarmTimeRangeUsesTheTrigger) {
  auto alarm_in = [](const TimeRange& range) {
    CompFilter alarm = Comp("VALARM");
    alarm.time_range = range;
    CompFilter event = Comp("VEVENT");
    event.comps.push_back(alarm);
    CompFilter root = Comp("VCALENDAR");
    root.comps.push_back(event);
    return root;
  };
  EXPECT_TRUE(MatchesCalendarFilter(kMeeting, alarm_in(R("20240301T094000Z", "20240301T095000Z"))));
  EXPECT_FALSE(
      MatchesCalendarFilter(kMeeting, alarm_in(R("20240301T095000Z", "20240301T110000Z"))));
}

TEST(CalendarData, TodoTimeRangeFollowsTheRfcTable) {
  const std::string due_only = Cal(
      {"BEGIN:VTODO", "UID:t", "DTSTAMP:20240101T000000Z", "DUE:20240301T120000Z", "END:VTODO"});
  // (start < DUE) AND (end >= DUE): a range ending at DUE matches, one starting there not.
  EXPECT_TRUE(
      MatchesCalendarFilter(due_only, InRange(R("20240301T110000Z", "20240301T120000Z"), "VTODO")));
  EXPECT_FALSE(
      MatchesCalendarFilter(due_only, InRange(R("20240301T120000Z", "20240301T130000Z"), "VTODO")));
  CalendarObjectInfo info = MustParse(due_only);
  ASSERT_TRUE(info.first_start_ms && info.last_end_ms);
  EXPECT_LT(*info.first_start_ms, T("20240301T120000Z"));
  EXPECT_GT(*info.last_end_ms, T("20240301T120000Z"));

  const std::string undated = Cal({"BEGIN:VTODO", "UID:u", "SUMMARY:x", "END:VTODO"});
  EXPECT_TRUE(
      MatchesCalendarFilter(undated, InRange(R("19900101T000000Z", "19900102T000000Z"), "VTODO")));
}

TEST(CalendarData, BusyPeriodsSkipTransparentAndCancelled) {
  const std::string data = Cal({
      "BEGIN:VEVENT",
      "UID:b",
      "DTSTAMP:20240101T000000Z",
      "DTSTART:20240101T090000Z",
      "DTEND:20240101T100000Z",
      "RRULE:FREQ=DAILY;COUNT=4",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:b",
      "RECURRENCE-ID:20240102T090000Z",
      "DTSTART:20240102T090000Z",
      "DTEND:20240102T100000Z",
      "TRANSP:TRANSPARENT",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:b",
      "RECURRENCE-ID:20240103T090000Z",
      "DTSTART:20240103T090000Z",
      "DTEND:20240103T100000Z",
      "STATUS:TENTATIVE",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:b",
      "RECURRENCE-ID:20240104T090000Z",
      "DTSTART:20240104T090000Z",
      "DTEND:20240104T100000Z",
      "STATUS:CANCELLED",
      "END:VEVENT",
  });
  auto busy = BusyPeriods(data, R("20240101T093000Z", "20240110T000000Z"));
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0].start_ms, T("20240101T093000Z"));  // clipped to the range
  EXPECT_EQ(busy[0].end_ms, T("20240101T100000Z"));
  EXPECT_FALSE(busy[0].tentative);
  EXPECT_EQ(busy[1].start_ms, T("20240103T090000Z"));
  EXPECT_TRUE(busy[1].tentative);
}

TEST(CalendarData, UtcDateTimeIsStrict) {
  EXPECT_EQ(ParseUtcDateTime("19700101T000000Z"), 0);
  EXPECT_EQ(ParseUtcDateTime("20240229T123456Z"), int64_t{1709210096} * 1000);
  EXPECT_EQ(FormatUtcDateTime(int64_t{1709210096} * 1000), "20240229T123456Z");
  EXPECT_EQ(FormatUtcDateTime(-1000), "19691231T235959Z");
  for (const char* bad :
       {"", "20240101T000000", "20240101T000000z", "20240230T000000Z", "20241301T000000Z",
        "20240101T240000Z", "2024-01-01T00:00:00Z", "20240101T00000aZ", "20240101 000000Z"}) {
    EXPECT_FALSE(ParseUtcDateTime(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace nubo::groupware
