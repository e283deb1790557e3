// Fuzzes CalDAV/CardDAV REPORT bodies: the XML parser, the property
// request, the calendar-query and addressbook-query filter readers, and
// the evaluation of whatever filter they accept against fixed objects
// (recurrence expansion included). Nothing may crash; a filter that was
// read must evaluate the same way twice, and negating a text-match must
// never make both answers true for a single-valued property test. The
// same input, and every d:href and d:sync-token text in it, also goes to
// the oc:share sharee parser and the files tree's sync-token parser: what
// they accept must survive a round trip through the forms nubo writes.
#include <cstdint>
#include <string_view>

#include "dav/context.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "fuzz/fuzz_check.h"
#include "groupdav/context.h"
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

// A sharee href nubo accepts names the same sharee when written back as
// oc:invite writes it; a sync token it accepts is one FolderSyncToken
// writes for the same position.
void CheckHrefsAndTokens(std::string_view text) {
  using namespace nubo;
  if (auto s = groupdav::ParseShareeHref(text)) {
    FUZZ_CHECK(!s->name.empty());
    const std::string again = std::string("principal:principals/") +
                              (s->is_group ? "groups/" : "users/") + dav::EncodeSegment(s->name);
    auto back = groupdav::ParseShareeHref(again);
    FUZZ_CHECK(back && back->is_group == s->is_group && back->name == s->name);
  }
  constexpr std::string_view kFolder = "0191d5f0-aaaa-7bbb-8ccc-000000000001";
  if (auto p = dav::ParseFolderSyncToken(text, kFolder)) {
    FUZZ_CHECK(p->seq >= 0 && p->id >= 0);
    const std::string again = p->id == INT64_MAX ? dav::FolderSyncToken(kFolder, p->seq)
                                                 : dav::FolderSyncToken(kFolder, p->seq, p->id);
    auto back = dav::ParseFolderSyncToken(again, kFolder);
    FUZZ_CHECK(back && back->seq == p->seq && back->id == p->id);
  }
}

void CheckElements(const nubo::dav::XmlElement& e, int depth) {
  if (depth > 64) return;
  if (e.name == "href" || e.name == "sync-token") CheckHrefsAndTokens(e.text);
  for (const auto& c : e.children) CheckElements(c, depth + 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  dav::XmlLimits limits;
  limits.max_bytes = 64 << 10;
  if (size < 512) CheckHrefsAndTokens(in);
  auto doc = dav::ParseXml(in, limits);
  if (!doc.ok()) return 0;
  CheckElements(*doc, 0);
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
