// RFC 6638 §5 POST to a schedule outbox: a free-busy request
// (METHOD:REQUEST with one VFREEBUSY) answered for each recipient with a
// C:schedule-response (§10.1): the recipient, a request status and, for
// accounts of this server, their busy time across their calendars.
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "groupdav/props.h"
#include "util/strings.h"

namespace nubo::groupdav {

http::Response HandlePost(GContext& c) {
  if (c.target.kind == Res::kCalendar || c.target.kind == Res::kBook) {
    // Nextcloud's oc:share (share.cc).
    auto doc = dav::ParseXml(c.req.body);
    if (!doc.ok()) return http::Response::Text(400, doc.status().message() + "\n");
    if (doc->ns != kOcNs || doc->name != "share") {
      return http::Response::Text(400, "POST to a collection takes an oc:share body\n");
    }
    return HandleShare(c, *doc);
  }
  if (c.target.kind != Res::kOutbox) {
    return http::Response::Text(405,
                                "POST is for a schedule outbox, a calendar or an address book\n");
  }
  const std::string type =
      AsciiLowerCopy(Trim(c.req.headers.Get("Content-Type").value_or("").substr(0, 13)));
  if (type != "text/calendar") return Precondition(403, kCalNs, "supported-calendar-data");
  auto answers = c.gw.FreeBusy(c.who(), *c.target.owner, c.req.body);
  if (!answers.ok()) {
    const Code code = answers.status().code();
    if (code == Code::kPermissionDenied) return Precondition(403, kCalNs, "organizer-allowed");
    if (code == Code::kInvalidArgument) return Precondition(400, kCalNs, "valid-calendar-data");
    return http::Response::Text(404, "no such collection or object\n");
  }
  dav::XmlWriter w;
  w.Open(kCalNs, "schedule-response",
         {{"C", std::string(kCalNs)}, {"d", std::string(dav::kDavNs)}});
  for (const auto& a : *answers) {
    w.Open(kCalNs, "response");
    w.Open(kCalNs, "recipient");
    w.Leaf(dav::kDavNs, "href", a.recipient);
    w.Close();
    w.Leaf(kCalNs, "request-status", a.request_status);
    if (!a.calendar_data.empty()) w.Leaf(kCalNs, "calendar-data", a.calendar_data);
    w.Close();
  }
  w.Close();
  return http::Response::Text(200, std::move(w.buffer()), "application/xml; charset=utf-8");
}

}  // namespace nubo::groupdav
