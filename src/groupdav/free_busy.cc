// RFC 4791 §7.10 free-busy-query: the busy time of a calendar in a range,
// as one VFREEBUSY (periods merged, in UTC). Only the caller's own
// calendars reach here; free-busy of others goes through scheduling.
#include <algorithm>

#include "groupdav/props.h"
#include "groupdav/report.h"
#include "util/time.h"

namespace nubo::groupdav {

namespace {

using dav::XmlElement;

void AppendPeriods(std::string& out, std::vector<groupware::BusyPeriod> periods, bool tentative) {
  std::vector<groupware::BusyPeriod> mine;
  for (const auto& p : periods) {
    if (p.tentative == tentative) mine.push_back(p);
  }
  std::sort(mine.begin(), mine.end(),
            [](const auto& a, const auto& b) { return a.start_ms < b.start_ms; });
  std::vector<groupware::BusyPeriod> merged;
  for (const auto& p : mine) {
    if (!merged.empty() && p.start_ms <= merged.back().end_ms) {
      merged.back().end_ms = std::max(merged.back().end_ms, p.end_ms);
    } else {
      merged.push_back(p);
    }
  }
  for (const auto& p : merged) {
    out += tentative ? "FREEBUSY;FBTYPE=BUSY-TENTATIVE:" : "FREEBUSY;FBTYPE=BUSY:";
    out += groupware::FormatUtcDateTime(p.start_ms) + "/" + groupware::FormatUtcDateTime(p.end_ms);
    out += "\r\n";
  }
}

}  // namespace

http::Response FreeBusyQuery(GContext& c, const XmlElement& root) {
  const XmlElement* tr = root.Child(kCalNs, "time-range");
  if (!tr) return http::Response::Text(400, "free-busy-query needs a time-range\n");
  groupware::TimeRange range;
  for (const auto& [k, v] : tr->attrs) {
    auto t = groupware::ParseUtcDateTime(v);
    if (!t) return http::Response::Text(400, "time-range needs UTC date-times\n");
    if (k == "start") range.start_ms = *t;
    if (k == "end") range.end_ms = *t;
  }
  if (!range.start_ms || !range.end_ms || *range.end_ms <= *range.start_ms) {
    return http::Response::Text(400, "time-range needs start < end\n");
  }
  std::vector<groupware::BusyPeriod> periods;
  std::string after;
  for (;;) {
    auto page = c.gw.ObjectsInRange(c.who(), *c.target.collection, range.start_ms, range.end_ms,
                                    after, 500);
    if (!page.ok()) return http::Response::Text(404, "no such collection or object\n");
    for (const auto& o : *page) {
      auto b = groupware::BusyPeriods(o.data, range, c.target.collection->timezone);
      periods.insert(periods.end(), b.begin(), b.end());
    }
    if (page->size() < 500) break;
    after = page->back().name;
  }
  std::string out =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo//free-busy//EN\r\nBEGIN:VFREEBUSY\r\n";
  out += "DTSTAMP:" + groupware::FormatUtcDateTime(UnixMillis()) + "\r\n";
  out += "DTSTART:" + groupware::FormatUtcDateTime(*range.start_ms) + "\r\n";
  out += "DTEND:" + groupware::FormatUtcDateTime(*range.end_ms) + "\r\n";
  AppendPeriods(out, periods, false);
  AppendPeriods(out, periods, true);
  out += "END:VFREEBUSY\r\nEND:VCALENDAR\r\n";
  return http::Response::Text(200, std::move(out), "text/calendar; charset=utf-8");
}

}  // namespace nubo::groupdav
