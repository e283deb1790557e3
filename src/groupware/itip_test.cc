#include "groupware/itip.h"

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

// RFC 5545 §3.1 unfolding, so that tests can look for whole lines.
std::string Unfold(std::string s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && i + 2 < s.size() && s[i + 1] == '\n' &&
        (s[i + 2] == ' ' || s[i + 2] == '\t')) {
      i += 2;
      continue;
    }
    out += s[i];
  }
  return out;
}

bool Has(const std::string& text, std::string_view needle) {
  return Unfold(text).find(needle) != std::string::npos;
}

size_t Count(const std::string& text, std::string_view needle) {
  const std::string u = Unfold(text);
  size_t n = 0;
  for (size_t pos = u.find(needle); pos != std::string::npos; pos = u.find(needle, pos + 1)) ++n;
  return n;
}

// The ATTENDEE line of `address` in the component starting at `from` in `text`.
std::string AttendeeLine(const std::string& text, std::string_view address, size_t from = 0) {
  const std::string u = Unfold(text);
  for (size_t pos = u.find("ATTENDEE", from); pos != std::string::npos;
       pos = u.find("ATTENDEE", pos + 1)) {
    const size_t end = u.find("\r\n", pos);
    const std::string line = u.substr(pos, end - pos);
    if (line.find(std::string(address)) != std::string::npos) return line;
  }
  return "";
}

constexpr std::string_view kBob = "mailto:bob@example.org";
constexpr std::string_view kCarol = "mailto:carol@example.org";
constexpr std::string_view kDave = "mailto:dave@elsewhere.net";

// Alice's weekly meeting with Bob and Carol (local) and Dave (external);
// the 8 January instance is moved by an hour.
std::string Organizer(std::string_view dtstart = "20240101T100000",
                      std::string_view summary = "Planning") {
  const std::string start = "DTSTART;TZID=Europe/Berlin:" + std::string(dtstart);
  const std::string sum = "SUMMARY:" + std::string(summary);
  return Cal(
      {"BEGIN:VEVENT",
       "UID:meeting-1",
       "DTSTAMP:20231201T000000Z",
       "SEQUENCE:2",
       start,
       "DURATION:PT1H",
       "RRULE:FREQ=WEEKLY;COUNT=5",
       sum,
       "ORGANIZER;CN=Alice;SCHEDULE-AGENT=SERVER:mailto:alice@example.org",
       "ATTENDEE;CN=Bob;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;SCHEDULE-STATUS=1.2:MAILTO:Bob@Example.org",
       "ATTENDEE;CN=Carol;PARTSTAT=ACCEPTED:mailto:carol@example.org",
       "ATTENDEE;PARTSTAT=TENTATIVE;SCHEDULE-FORCE-SEND=REQUEST:mailto:dave@elsewhere.net",
       "ATTENDEE:mailto:carol@EXAMPLE.org",  // a duplicate
       "END:VEVENT",
       "BEGIN:VEVENT",
       "UID:meeting-1",
       "DTSTAMP:20231201T000000Z",
       "SEQUENCE:2",
       "RECURRENCE-ID;TZID=Europe/Berlin:20240108T100000",
       "DTSTART;TZID=Europe/Berlin:20240108T110000",
       "DURATION:PT1H",
       "SUMMARY:Moved",
       "ORGANIZER;CN=Alice:mailto:alice@example.org",
       "ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.org",
       "ATTENDEE;PARTSTAT=ACCEPTED:mailto:carol@example.org",
       "END:VEVENT"});
}

TEST(NormalizeAddressTest, LowerCasesMailto) {
  EXPECT_EQ(NormalizeAddress("MAILTO:Bob@Example.org"), "mailto:bob@example.org");
  EXPECT_EQ(NormalizeAddress("  mailto:x@y.z\t"), "mailto:x@y.z");
  EXPECT_EQ(NormalizeAddress(" urn:uuid:ABC "), "urn:uuid:ABC");
  EXPECT_EQ(NormalizeAddress(""), "");
}

TEST(ReadSchedulingTest, ReadsTheMaster) {
  auto info = ReadScheduling(Organizer());
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->uid, "meeting-1");
  EXPECT_EQ(info->component, "VEVENT");
  EXPECT_EQ(info->organizer, "mailto:alice@example.org");
  EXPECT_EQ(info->sequence, 2);
  EXPECT_FALSE(info->cancelled);
  ASSERT_EQ(info->attendees.size(), 3u);
  EXPECT_EQ(info->attendees[0].address, kBob);
  EXPECT_EQ(info->attendees[0].partstat, "NEEDS-ACTION");
  EXPECT_EQ(info->attendees[0].cn, "Bob");
  EXPECT_TRUE(info->attendees[0].rsvp);
  EXPECT_EQ(info->attendees[1].address, kCarol);
  EXPECT_EQ(info->attendees[1].partstat, "ACCEPTED");
  EXPECT_FALSE(info->attendees[1].rsvp);
  EXPECT_EQ(info->attendees[2].address, kDave);
  EXPECT_EQ(info->attendees[2].partstat, "TENTATIVE");
  EXPECT_EQ(info->attendees[2].cn, "");
}

TEST(ReadSchedulingTest, DefaultsAndCancelled) {
  auto info = ReadScheduling(Cal({"BEGIN:VTODO", "UID:t", "DTSTAMP:20240101T000000Z",
                                  "STATUS:CANCELLED", "ATTENDEE:mailto:x@y.z", "END:VTODO"}));
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->component, "VTODO");
  EXPECT_EQ(info->organizer, "");
  EXPECT_EQ(info->sequence, 0);
  EXPECT_TRUE(info->cancelled);
  ASSERT_EQ(info->attendees.size(), 1u);
  EXPECT_EQ(info->attendees[0].partstat, "NEEDS-ACTION");
}

TEST(MakeRequestTest, MethodAndNoScheduleParameters) {
  auto req = MakeRequest(Organizer());
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_TRUE(Has(*req, "METHOD:REQUEST\r\n"));
  EXPECT_FALSE(Has(*req, "SCHEDULE-STATUS"));
  EXPECT_FALSE(Has(*req, "SCHEDULE-AGENT"));
  EXPECT_FALSE(Has(*req, "SCHEDULE-FORCE-SEND"));
  EXPECT_EQ(Count(*req, "BEGIN:VEVENT"), 2u);
  EXPECT_TRUE(Has(*req, "RECURRENCE-ID;TZID=Europe/Berlin:20240108T100000"));
  EXPECT_TRUE(Has(*req, "RRULE:FREQ=WEEKLY;COUNT=5"));
  EXPECT_TRUE(Has(*req, "PARTSTAT=ACCEPTED"));
  EXPECT_TRUE(Has(*req, "\r\n"));
}

TEST(MakeCancelTest, ReducedComponents) {
  auto cancel = MakeCancel(Organizer());
  ASSERT_TRUE(cancel.ok()) << cancel.status().ToString();
  EXPECT_TRUE(Has(*cancel, "METHOD:CANCEL\r\n"));
  EXPECT_EQ(Count(*cancel, "STATUS:CANCELLED"), 2u);
  EXPECT_EQ(Count(*cancel, "SEQUENCE:3"), 2u);
  EXPECT_FALSE(Has(*cancel, "SEQUENCE:2"));
  EXPECT_FALSE(Has(*cancel, "SUMMARY"));
  EXPECT_FALSE(Has(*cancel, "RRULE"));
  EXPECT_FALSE(Has(*cancel, "SCHEDULE-"));
  EXPECT_FALSE(Has(*cancel, "DTSTAMP:20231201T000000Z"));
  EXPECT_TRUE(Has(*cancel, "RECURRENCE-ID;TZID=Europe/Berlin:20240108T100000"));
  EXPECT_TRUE(Has(*cancel, "DTSTART;TZID=Europe/Berlin:20240101T100000"));
  EXPECT_TRUE(Has(*cancel, "UID:meeting-1"));
  EXPECT_TRUE(Has(*cancel, "mailto:dave@elsewhere.net"));
  EXPECT_TRUE(Has(*cancel, "ORGANIZER"));
}

TEST(AttendeeCopyTest, WithoutPreviousKeepsOrganizersPartstat) {
  auto copy = AttendeeCopy(Organizer(), kBob, std::nullopt);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_FALSE(Has(*copy, "METHOD"));
  EXPECT_FALSE(Has(*copy, "SCHEDULE-"));
  EXPECT_NE(AttendeeLine(*copy, "Bob@Example.org").find("PARTSTAT=NEEDS-ACTION"),
            std::string::npos);
  // The stored copy is a valid calendar object resource.
  EXPECT_TRUE(ParseCalendarObject(*copy, kCompEvent, nullptr).ok());
}

// Bob's stored copy after he accepted the series and declined the moved instance.
std::string BobAccepted() {
  auto copy = AttendeeCopy(Organizer(), kBob, std::nullopt);
  EXPECT_TRUE(copy.ok());
  std::string s = *copy;
  const size_t first = s.find("PARTSTAT=NEEDS-ACTION");
  s.replace(first, 21, "PARTSTAT=ACCEPTED");
  const size_t second = s.find("PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob");
  EXPECT_NE(second, std::string::npos) << s;
  s.replace(second, 21, "PARTSTAT=DECLINED");
  return s;
}

TEST(AttendeeCopyTest, KeepsAnswerWhenOnlyTextChanged) {
  const std::string previous = BobAccepted();
  auto copy =
      AttendeeCopy(Organizer("20240101T100000", "Planning (agenda attached)"), kBob, previous);
  ASSERT_TRUE(copy.ok());
  EXPECT_TRUE(Has(*copy, "SUMMARY:Planning (agenda attached)"));
  const size_t override_at = Unfold(*copy).find("RECURRENCE-ID");
  ASSERT_NE(override_at, std::string::npos);
  // The master comes first in the output, the override second.
  EXPECT_NE(AttendeeLine(*copy, "Bob@Example.org").find("PARTSTAT=ACCEPTED"), std::string::npos)
      << *copy;
  EXPECT_NE(AttendeeLine(*copy, kBob, override_at).find("PARTSTAT=DECLINED"), std::string::npos)
      << *copy;
  // Other attendees keep what the organizer says.
  EXPECT_NE(AttendeeLine(*copy, kDave).find("PARTSTAT=TENTATIVE"), std::string::npos);
}

TEST(AttendeeCopyTest, ResetsAnswerWhenTheTimeMoved) {
  const std::string previous = BobAccepted();
  auto copy = AttendeeCopy(Organizer("20240101T150000"), kBob, previous);
  ASSERT_TRUE(copy.ok());
  EXPECT_NE(AttendeeLine(*copy, "Bob@Example.org").find("PARTSTAT=NEEDS-ACTION"), std::string::npos)
      << *copy;
  // The override's own time did not change: its answer stays.
  const size_t override_at = Unfold(*copy).find("RECURRENCE-ID");
  EXPECT_NE(AttendeeLine(*copy, kBob, override_at).find("PARTSTAT=DECLINED"), std::string::npos)
      << *copy;
}

TEST(AttendeeCopyTest, BrokenPreviousCountsAsNone) {
  auto copy = AttendeeCopy(Organizer(), kBob, std::string_view("garbage"));
  ASSERT_TRUE(copy.ok());
  EXPECT_NE(AttendeeLine(*copy, "Bob@Example.org").find("PARTSTAT=NEEDS-ACTION"),
            std::string::npos);
}

TEST(ParticipationChangedTest, Cases) {
  const std::string base = *AttendeeCopy(Organizer(), kBob, std::nullopt);
  const std::string accepted = BobAccepted();
  EXPECT_FALSE(ParticipationChanged(base, base, kBob));
  EXPECT_TRUE(ParticipationChanged(base, accepted, kBob));
  EXPECT_FALSE(ParticipationChanged(accepted, accepted, kBob));
  // Carol's answer is not Bob's business.
  EXPECT_FALSE(ParticipationChanged(base, accepted, kCarol));
  // Only the overridden instance changes.
  std::string declined_again = accepted;
  const size_t at = declined_again.find("PARTSTAT=DECLINED");
  ASSERT_NE(at, std::string::npos);
  declined_again.replace(at, 17, "PARTSTAT=TENTATIVE");
  EXPECT_TRUE(ParticipationChanged(accepted, declined_again, kBob));
  // A new override that declines one instance of an accepted series.
  const std::string series =
      Cal({"BEGIN:VEVENT", "UID:s", "DTSTAMP:20240101T000000Z", "DTSTART:20240101T100000Z",
           "RRULE:FREQ=DAILY;COUNT=3", "ORGANIZER:mailto:alice@example.org",
           "ATTENDEE;PARTSTAT=ACCEPTED:mailto:bob@example.org", "END:VEVENT"});
  std::string with_override = series;
  with_override.insert(with_override.rfind("END:VCALENDAR"),
                       "BEGIN:VEVENT\r\nUID:s\r\nDTSTAMP:20240101T000000Z\r\n"
                       "RECURRENCE-ID:20240102T100000Z\r\nDTSTART:20240102T100000Z\r\n"
                       "ORGANIZER:mailto:alice@example.org\r\n"
                       "ATTENDEE;PARTSTAT=DECLINED:mailto:bob@example.org\r\nEND:VEVENT\r\n");
  EXPECT_TRUE(ParticipationChanged(series, with_override, kBob));
  EXPECT_FALSE(ParticipationChanged("garbage", with_override, kBob));
}

TEST(MakeReplyTest, OnlyThatAttendee) {
  auto reply = MakeReply(BobAccepted(), kBob);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_TRUE(Has(*reply, "METHOD:REPLY\r\n"));
  EXPECT_EQ(Count(*reply, "ATTENDEE"), 2u);  // one per component
  EXPECT_FALSE(Has(*reply, "carol"));
  EXPECT_FALSE(Has(*reply, "dave"));
  EXPECT_FALSE(Has(*reply, "SUMMARY"));
  EXPECT_TRUE(Has(*reply, "PARTSTAT=ACCEPTED"));
  EXPECT_TRUE(Has(*reply, "PARTSTAT=DECLINED"));
  EXPECT_TRUE(Has(*reply, "SEQUENCE:2"));
  EXPECT_TRUE(Has(*reply, "ORGANIZER"));
  EXPECT_TRUE(Has(*reply, "RECURRENCE-ID;TZID=Europe/Berlin:20240108T100000"));
  EXPECT_FALSE(MakeReply(BobAccepted(), "mailto:eve@example.org").ok());
}

TEST(ApplyReplyTest, SetsPartstatOfThatAttendeeOnly) {
  auto reply = MakeReply(BobAccepted(), kBob);
  ASSERT_TRUE(reply.ok());
  auto updated = ApplyReply(Organizer(), *reply);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  const std::string bob = AttendeeLine(*updated, "Bob@Example.org");
  EXPECT_NE(bob.find("PARTSTAT=ACCEPTED"), std::string::npos) << bob;
  EXPECT_NE(bob.find("SCHEDULE-STATUS=2.0"), std::string::npos) << bob;
  EXPECT_EQ(bob.find("SCHEDULE-STATUS=1.2"), std::string::npos) << bob;
  const size_t override_at = Unfold(*updated).find("RECURRENCE-ID");
  EXPECT_NE(AttendeeLine(*updated, kBob, override_at).find("PARTSTAT=DECLINED"), std::string::npos);
  EXPECT_NE(AttendeeLine(*updated, kDave).find("PARTSTAT=TENTATIVE"), std::string::npos);
  EXPECT_EQ(AttendeeLine(*updated, kDave).find("SCHEDULE-STATUS"), std::string::npos);
  EXPECT_EQ(Count(*updated, "SCHEDULE-STATUS=2.0"), 2u);
  EXPECT_FALSE(Has(*updated, "METHOD"));
  auto info = ReadScheduling(*updated);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->attendees[0].partstat, "ACCEPTED");
  EXPECT_EQ(info->attendees[1].partstat, "ACCEPTED");  // Carol, as before
}

TEST(ApplyReplyTest, ReplyInUtcMatchesTheOverride) {
  const std::string reply =
      Cal({"METHOD:REPLY", "BEGIN:VEVENT", "UID:meeting-1", "DTSTAMP:20240102T000000Z",
           "RECURRENCE-ID:20240108T090000Z", "DTSTART:20240108T100000Z",
           "ORGANIZER:mailto:alice@example.org",
           "ATTENDEE;PARTSTAT=TENTATIVE:mailto:carol@example.org", "END:VEVENT"});
  auto updated = ApplyReply(Organizer(), reply);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  const size_t override_at = Unfold(*updated).find("RECURRENCE-ID");
  EXPECT_NE(AttendeeLine(*updated, kCarol, override_at).find("PARTSTAT=TENTATIVE"),
            std::string::npos)
      << *updated;
  // The master's Carol line is untouched.
  EXPECT_EQ(AttendeeLine(*updated, "CN=Carol").find("SCHEDULE-STATUS"), std::string::npos);
}

TEST(ApplyReplyTest, Errors) {
  const std::string foreign =
      Cal({"METHOD:REPLY", "BEGIN:VEVENT", "UID:meeting-1", "DTSTAMP:20240102T000000Z",
           "DTSTART:20240101T090000Z", "ORGANIZER:mailto:alice@example.org",
           "ATTENDEE;PARTSTAT=ACCEPTED:mailto:eve@example.org", "END:VEVENT"});
  EXPECT_EQ(ApplyReply(Organizer(), foreign).status().code(), Code::kInvalidArgument);
  std::string other_uid = foreign;
  other_uid.replace(other_uid.find("UID:meeting-1"), 13, "UID:meeting-2");
  other_uid.replace(other_uid.find("eve"), 3, "bob");
  EXPECT_EQ(ApplyReply(Organizer(), other_uid).status().code(), Code::kInvalidArgument);
  std::string bad_partstat = foreign;
  bad_partstat.replace(bad_partstat.find("eve"), 3, "bob");
  bad_partstat.replace(bad_partstat.find("ACCEPTED"), 8, "MAYBE");
  EXPECT_FALSE(ApplyReply(Organizer(), bad_partstat).ok());
  EXPECT_FALSE(ApplyReply(Organizer(), "BEGIN:VCALENDAR").ok());
}

TEST(FreeBusyTest, ReadsRequestAndWritesReply) {
  const std::string request = Cal(
      {"METHOD:REQUEST", "BEGIN:VFREEBUSY", "UID:fb-1", "DTSTAMP:20240101T000000Z",
       "DTSTART:20240101T000000Z", "DTEND;TZID=Europe/Berlin:20240102T010000",
       "ORGANIZER:MAILTO:Alice@Example.org", "ATTENDEE:mailto:bob@example.org",
       "ATTENDEE:mailto:Carol@example.org", "ATTENDEE:mailto:bob@example.org", "END:VFREEBUSY"});
  auto req = ReadFreeBusyRequest(request);
  ASSERT_TRUE(req.ok()) << req.status().ToString();
  EXPECT_EQ(req->start_ms, *ParseUtcDateTime("20240101T000000Z"));
  EXPECT_EQ(req->end_ms, *ParseUtcDateTime("20240102T000000Z"));  // CET is UTC+1
  EXPECT_EQ(req->organizer, "mailto:alice@example.org");
  ASSERT_EQ(req->attendees.size(), 2u);
  EXPECT_EQ(req->attendees[0], kBob);
  EXPECT_EQ(req->attendees[1], kCarol);
  EXPECT_EQ(req->uid, "fb-1");

  const std::vector<BusyPeriod> periods = {
      {*ParseUtcDateTime("20231231T230000Z"), *ParseUtcDateTime("20240101T010000Z"), false},
      {*ParseUtcDateTime("20240101T120000Z"), *ParseUtcDateTime("20240101T130000Z"), true},
      {*ParseUtcDateTime("20240105T120000Z"), *ParseUtcDateTime("20240105T130000Z"), false}};
  const std::string reply = FreeBusyReply(*req, kBob, periods);
  EXPECT_TRUE(Has(reply, "METHOD:REPLY\r\n"));
  EXPECT_TRUE(Has(reply, "UID:fb-1\r\n"));
  EXPECT_TRUE(Has(reply, "DTSTART:20240101T000000Z\r\n"));
  EXPECT_TRUE(Has(reply, "DTEND:20240102T000000Z\r\n"));
  EXPECT_TRUE(Has(reply, "ATTENDEE:mailto:bob@example.org\r\n"));
  EXPECT_TRUE(Has(reply, "ORGANIZER:mailto:alice@example.org\r\n"));
  EXPECT_TRUE(Has(reply, "FREEBUSY;FBTYPE=BUSY:20240101T000000Z/20240101T010000Z\r\n")) << reply;
  EXPECT_TRUE(Has(reply, "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20240101T120000Z/20240101T130000Z\r\n"))
      << reply;
  EXPECT_EQ(Count(reply, "FREEBUSY;"), 2u);  // the 5 January one is outside the range
  EXPECT_TRUE(Has(reply, "DTSTAMP:"));
}

TEST(FreeBusyTest, BadRequests) {
  const auto fb = [](std::initializer_list<std::string_view> lines) {
    std::string body = "BEGIN:VFREEBUSY\r\n";
    for (std::string_view l : lines) body += std::string(l) + "\r\n";
    return Cal({"METHOD:REQUEST", body + "END:VFREEBUSY"});
  };
  EXPECT_TRUE(ReadFreeBusyRequest(fb({"DTSTART:20240101T000000Z", "DTEND:20240102T000000Z",
                                      "ORGANIZER:mailto:a@b.c", "ATTENDEE:mailto:d@e.f"}))
                  .ok());
  // No attendee, no organizer, end before start, no DTEND.
  EXPECT_FALSE(ReadFreeBusyRequest(fb({"DTSTART:20240101T000000Z", "DTEND:20240102T000000Z",
                                       "ORGANIZER:mailto:a@b.c"}))
                   .ok());
  EXPECT_FALSE(ReadFreeBusyRequest(fb({"DTSTART:20240101T000000Z", "DTEND:20240102T000000Z",
                                       "ATTENDEE:mailto:d@e.f"}))
                   .ok());
  EXPECT_FALSE(ReadFreeBusyRequest(fb({"DTSTART:20240102T000000Z", "DTEND:20240101T000000Z",
                                       "ORGANIZER:mailto:a@b.c", "ATTENDEE:mailto:d@e.f"}))
                   .ok());
  EXPECT_FALSE(ReadFreeBusyRequest(fb({"DTSTART:20240101T000000Z", "ORGANIZER:mailto:a@b.c",
                                       "ATTENDEE:mailto:d@e.f"}))
                   .ok());
  // Not a REQUEST.
  EXPECT_FALSE(ReadFreeBusyRequest(
                   Cal({"BEGIN:VFREEBUSY", "DTSTART:20240101T000000Z", "DTEND:20240102T000000Z",
                        "ORGANIZER:mailto:a@b.c", "ATTENDEE:mailto:d@e.f", "END:VFREEBUSY"}))
                   .ok());
}

TEST(ItipTest, GarbageIsAnErrorNotACrash) {
  const std::vector<std::string> inputs = {
      "",
      "garbage",
      "BEGIN:VCALENDAR",
      "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
      "BEGIN:VEVENT\r\nUID:x\r\nEND:VEVENT\r\n",
      "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nATTENDEE;PARTSTAT=:\r\nRECURRENCE-ID:xyz\r\n"
      "DTSTART:2024\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
      std::string("BEGIN:VCALENDAR\r\n\x01\r\nEND:VCALENDAR\r\n"),
      std::string(20000, 'B') + "BEGIN:" + std::string(3000, ':'),
  };
  std::string deep;
  for (int i = 0; i < 20000; ++i) deep += "BEGIN:VEVENT\r\n";
  const std::vector<std::string> all = [&] {
    std::vector<std::string> v = inputs;
    v.push_back(deep);
    return v;
  }();
  for (const std::string& in : all) {
    if (in.find("RECURRENCE-ID:xyz") == std::string::npos) {
      EXPECT_FALSE(ReadScheduling(in).ok()) << in.substr(0, 40);
      EXPECT_FALSE(MakeRequest(in).ok());
      EXPECT_FALSE(MakeCancel(in).ok());
      EXPECT_FALSE(AttendeeCopy(in, kBob, in).ok());
    }
    EXPECT_FALSE(MakeReply(in, kBob).ok());
    EXPECT_FALSE(ApplyReply(Organizer(), in).ok());
    EXPECT_FALSE(ApplyReply(in, Organizer()).ok());
    EXPECT_FALSE(ParticipationChanged(in, in, kBob));
    EXPECT_FALSE(ReadFreeBusyRequest(in).ok());
  }
  // Whatever the caller passes, the reply is well-formed.
  FreeBusyRequest req;
  req.start_ms = INT64_MIN;
  req.end_ms = INT64_MAX;
  req.organizer = "mailto:a@b.c\r\nX-INJECTED:1";
  const std::string reply = FreeBusyReply(req, "mailto:\nx", {{0, 1000, false}});
  EXPECT_FALSE(Has(reply, "\r\nX-INJECTED"));
  EXPECT_TRUE(Has(reply, "FREEBUSY;FBTYPE=BUSY:19700101T000000Z/19700101T000001Z"));
}

}  // namespace
}  // namespace nubo::groupware
