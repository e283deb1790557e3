// RFC 3253 §3.6 REPORT on the groupware trees: one handler per report,
// chosen by the body's root element (report.cc). Internal to src/groupdav.
#pragma once

#include "dav/xml_reader.h"
#include "groupdav/context.h"

namespace nubo::groupdav {

http::Response CalendarQuery(GContext& c, const dav::XmlElement& root);     // RFC 4791 §7.8
http::Response Multiget(GContext& c, const dav::XmlElement& root);          // §7.9, RFC 6352 §8.7
http::Response AddressbookQuery(GContext& c, const dav::XmlElement& root);  // RFC 6352 §8.6
http::Response SyncCollection(GContext& c, const dav::XmlElement& root);    // RFC 6578 §3.2
http::Response FreeBusyQuery(GContext& c, const dav::XmlElement& root);     // RFC 4791 §7.10

}  // namespace nubo::groupdav
