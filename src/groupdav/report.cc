// REPORT dispatch (RFC 3253 §3.6): by the body's root element; a report the
// target does not support is 403 with DAV:supported-report.
#include "groupdav/report.h"

#include "groupdav/props.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;

struct Report {
  std::string_view ns;
  std::string_view name;
  bool (*applies)(Res);
  http::Response (*handler)(GContext&, const dav::XmlElement&);
};

bool OnCalendar(Res r) { return r == Res::kCalendar; }
bool OnCalendarOrObject(Res r) { return r == Res::kCalendar || r == Res::kCalendarObject; }
bool OnCalendarSide(Res r) {
  return OnCalendarOrObject(r) || r == Res::kInbox || r == Res::kBoxObject;
}
bool OnBookOrCard(Res r) { return r == Res::kBook || r == Res::kCard; }

constexpr Report kReports[] = {
    {kCalNs, "calendar-query", OnCalendarOrObject, CalendarQuery},
    {kCalNs, "calendar-multiget", OnCalendarSide, Multiget},
    {kCalNs, "free-busy-query", OnCalendar, FreeBusyQuery},
    {kCardNs, "addressbook-query", OnBookOrCard, AddressbookQuery},
    {kCardNs, "addressbook-multiget", OnBookOrCard, Multiget},
    {kDavNs, "sync-collection", IsStore, SyncCollection},
};

}  // namespace

http::Response HandleReport(GContext& c) {
  if (!c.target.exists) return http::Response::Text(404, "no such collection or object\n");
  auto doc = dav::ParseXml(c.req.body);
  if (!doc.ok()) return http::Response::Text(400, doc.status().message() + "\n");
  for (const Report& r : kReports) {
    if (r.ns != doc->ns || r.name != doc->name) continue;
    if (!r.applies(c.target.kind)) break;
    return r.handler(c, *doc);
  }
  return Precondition(403, kDavNs, "supported-report");
}

}  // namespace nubo::groupdav
