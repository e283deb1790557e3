// CalDAV and CardDAV query filters read from REPORT bodies into the plain
// filter values of src/groupware (RFC 4791 §9.7, RFC 6352 §10.5). Pure
// functions over a parsed body; fuzzed (fuzz/fuzz_report.cc).
#pragma once

#include "dav/xml_reader.h"
#include "groupware/calendar_data.h"
#include "groupware/text_match.h"
#include "groupware/vcard.h"
#include "util/status.h"

namespace nubo::groupdav {

// A text-match element with the default collation of its protocol;
// InvalidArgument("supported-collation") for a collation we do not have,
// InvalidArgument("supported-filter") for an unknown match-type.
Result<groupware::TextMatch> ReadTextMatch(const dav::XmlElement& el,
                                           groupware::Collation fallback);

// The <C:filter> of a calendar-query: exactly one comp-filter, on
// VCALENDAR (§9.7). InvalidArgument whose message is the precondition
// element to answer ("valid-filter", "supported-collation"…).
Result<groupware::CompFilter> ReadCalendarFilter(const dav::XmlElement& query);

// The <CR:filter> of an addressbook-query (absent: matches every card).
Result<groupware::CardFilter> ReadCardFilter(const dav::XmlElement& query);

}  // namespace nubo::groupdav
