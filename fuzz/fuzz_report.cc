// Fuzzes CalDAV/CardDAV REPORT bodies: the XML parser, the property
// request, the calendar-query and addressbook-query filter readers, and
// the evaluation of whatever filter they accept against fixed objects
// (recurrence expansion included). Nothing may crash; a filter that was
// read must evaluate the same way twice, and negating a text-match must
// never make both answers true for a single-valued property test.
#include <cstdint>
#include <string_view>

#include "dav/xml_reader.h"
#include "fuzz/fuzz_check.h"
#include "groupdav/filters.h"
#include "groupdav/props.h"

namespace {

constexpr std::string_view kEvent =
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\nBEGIN:VEVENT\r\nUID:f1\r\n"
    "DTSTAMP:20260101T000000Z\r\nDTSTART:20260105T100000Z\r\nDTEND:20260105T110000Z\r\n"
    "RRULE:FREQ=WEEKLY;COUNT=5\r\nEXDATE:20260112T100000Z\r\nSUMMARY:Fuzz\r\n"
    "ATTENDEE;PARTSTAT=ACCEPTED:mailto:a@example.org\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
    "TRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:f1\r\n"
    "DTSTAMP:20260101T000000Z\r\nRECURRENCE-ID:20260119T100000Z\r\nDTSTART:20260120T110000Z\r\n"
    "DTEND:20260120T120000Z\r\nSUMMARY:Moved\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

constexpr std::string_view kCard =
    "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:c1\r\nFN:J\xc3\xbcrgen M\xc3\xbcller\r\n"
    "EMAIL;TYPE=work:jm@example.org\r\nitem1.TEL;TYPE=cell:+49 30 1234\r\nEND:VCARD\r\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  dav::XmlLimits limits;
  limits.max_bytes = 64 << 10;
  auto doc = dav::ParseXml(in, limits);
  if (!doc.ok()) return 0;
  (void)groupdav::ReadPropRequest(*doc);
  if (auto f = groupdav::ReadCalendarFilter(*doc); f.ok()) {
    const bool a = groupware::MatchesCalendarFilter(kEvent, *f);
    const bool b = groupware::MatchesCalendarFilter(kEvent, *f);
    FUZZ_CHECK(a == b);
    (void)groupware::MatchesCalendarFilter(kEvent, *f, "Europe/Berlin");
  }
  static const auto card = groupware::ParseVCard(kCard);
  FUZZ_CHECK(card.ok());
  if (auto f = groupdav::ReadCardFilter(*doc); f.ok()) {
    const bool a = groupware::MatchesCardFilter(*card, *f);
    FUZZ_CHECK(a == groupware::MatchesCardFilter(*card, *f));
  }
  return 0;
}
