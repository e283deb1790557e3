// RFC 3253 §3.6 REPORT on the groupware trees: one handler per report,
// chosen by the body's root element (report.cc). Internal to src/groupdav.
#pragma once

#include "dav/xml_reader.h"
#include "groupdav/context.h"
#include "groupware/text_match.h"

namespace nubo::groupdav {

http::Response CalendarQuery(GContext& c, const dav::XmlElement& root);     // RFC 4791 §7.8
http::Response Multiget(GContext& c, const dav::XmlElement& root);          // §7.9, RFC 6352 §8.7
http::Response AddressbookQuery(GContext& c, const dav::XmlElement& root);  // RFC 6352 §8.6
http::Response SyncCollection(GContext& c, const dav::XmlElement& root);    // RFC 6578 §3.2
http::Response FreeBusyQuery(GContext& c, const dav::XmlElement& root);     // RFC 4791 §7.10

// Reads a text-match element (RFC 4791 §9.7.5, RFC 6352 §10.5.4) with the
// default collation of its protocol; InvalidArgument("supported-collation")
// for a collation we do not have.
Result<groupware::TextMatch> ReadTextMatch(const dav::XmlElement& el,
                                           groupware::Collation fallback);

}  // namespace nubo::groupdav
