// iTIP (RFC 5546) messages as CalDAV scheduling (RFC 6638) makes them from
// stored calendar objects: what a stored object says about its organizer
// and attendees, the REQUEST / CANCEL / REPLY messages sent when it changes,
// the copy an attendee's calendar keeps, an organizer's object updated by a
// REPLY, and free-busy requests posted to an outbox (RFC 6638 §5).
//
// Who sends what to whom, and where the results are stored, is the
// caller's: these are pure functions from iCalendar text to iCalendar text
// (CRLF lines). Thread-safe: every call parses its own tree. Hostile input
// yields InvalidArgument (or "no change"), never a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "groupware/calendar_data.h"
#include "util/status.h"

namespace nubo::groupware {

// A calendar user address (RFC 5545 §3.3.3 CAL-ADDRESS) normalized for
// comparison: a "mailto:" URI gets its scheme and address lower-cased
// ("MAILTO:Bob@Example.org" -> "mailto:bob@example.org"); other URIs are
// returned trimmed, as they are.
std::string NormalizeAddress(std::string_view address);

struct Participant {
  std::string address;   // normalized
  std::string partstat;  // upper case, "NEEDS-ACTION" when absent (RFC 5545 §3.2.12)
  std::string cn;        // CN parameter, "" when absent
  bool rsvp = false;
};

// The scheduling facts of a stored calendar object (RFC 6638 §3.2), taken
// from the master component (the one without RECURRENCE-ID; without one,
// the first component), attendees as listed there (later duplicates of an
// address dropped).
struct SchedulingInfo {
  std::string uid;
  std::string component;  // "VEVENT", "VTODO", "VJOURNAL" or "VFREEBUSY"
  std::string organizer;  // normalized ORGANIZER, "" when none
  std::vector<Participant> attendees;
  int64_t sequence = 0;
  bool cancelled = false;  // STATUS:CANCELLED
};
// InvalidArgument when `data` is not a VCALENDAR with a UID'd component.
Result<SchedulingInfo> ReadScheduling(std::string_view data);

// RFC 5546 §3.2.2 REQUEST: the organizer's object as an iTIP message:
// METHOD:REQUEST, every component kept (master, overrides, VTIMEZONEs),
// DTSTAMP set to now (RFC 5545 §3.8.7.2: with a METHOD it is the message's
// creation time), SCHEDULE-AGENT / SCHEDULE-STATUS / SCHEDULE-FORCE-SEND
// parameters removed from ORGANIZER and ATTENDEE (RFC 6638 §7.1-§7.3: they
// are server-side state, never sent).
Result<std::string> MakeRequest(std::string_view organizer_data);

// RFC 5546 §3.2.5 CANCEL of the whole object: METHOD:CANCEL; every
// component reduced to UID, DTSTAMP (now), SEQUENCE (the stored one + 1),
// ORGANIZER, the ATTENDEEs, RECURRENCE-ID when present, DTSTART and
// STATUS:CANCELLED. VTIMEZONEs are kept so that TZIDs still resolve.
Result<std::string> MakeCancel(std::string_view organizer_data);

// The copy an attendee's own calendar gets from the organizer's object
// (RFC 6638 §3.2.2.1, §4.1): the object without METHOD and without
// SCHEDULE-* parameters. With `previous_copy` (the attendee's stored copy)
// the attendee's own PARTSTAT and RSVP from it are kept on every component
// whose time did not change (DTSTART, DTEND, DUE, DURATION and RRULE equal
// to those of the previous copy's component with the same RECURRENCE-ID;
// a new override that does not move its instance is compared with the
// previous master); elsewhere the organizer's PARTSTAT stays (normally
// NEEDS-ACTION), so that the attendee is asked again. An unreadable
// previous copy counts as none. `attendee` is a normalized address.
Result<std::string> AttendeeCopy(std::string_view organizer_data, std::string_view attendee,
                                 std::optional<std::string_view> previous_copy);

// Whether the attendee's participation (the PARTSTAT of `attendee`, per
// component matched by RECURRENCE-ID; an instance without an override has
// the master's) differs between two versions of the attendee's copy, i.e.
// whether a REPLY is due (RFC 6638 §3.2.2.3). False when either is unreadable.
bool ParticipationChanged(std::string_view before, std::string_view after,
                          std::string_view attendee);

// RFC 5546 §3.2.3 REPLY from an attendee's copy: METHOD:REPLY and, for
// every component that lists `attendee`: UID, DTSTAMP (now), SEQUENCE,
// RECURRENCE-ID if present, DTSTART, ORGANIZER and only that attendee's
// ATTENDEE line (with its PARTSTAT). InvalidArgument when no component
// lists the attendee.
Result<std::string> MakeReply(std::string_view attendee_data, std::string_view attendee);

// RFC 6638 §3.2.2.3 / RFC 5546 §3.2.3 processing of a REPLY: the
// organizer's object with the replying attendee's PARTSTAT set from
// `reply` on the components matched by RECURRENCE-ID (a reply for an
// instance the organizer has no override for changes nothing) and
// SCHEDULE-STATUS=2.0 on that ATTENDEE; other attendees untouched.
// InvalidArgument when the reply is malformed, its UID differs or its
// attendee is not an attendee of the object.
Result<std::string> ApplyReply(std::string_view organizer_data, std::string_view reply);

// RFC 6638 §5 free-busy request POSTed to an outbox (RFC 5546 §3.3.2): a
// VCALENDAR with METHOD:REQUEST and one VFREEBUSY with DTSTART and DTEND
// (UTC, or with a TZID; floating times read as UTC), ORGANIZER, one or
// more ATTENDEE and an optional UID.
struct FreeBusyRequest {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string organizer;               // normalized
  std::vector<std::string> attendees;  // normalized, duplicates dropped
  std::string uid;
};
// InvalidArgument when the request lacks any of the above or DTEND <= DTSTART.
Result<FreeBusyRequest> ReadFreeBusyRequest(std::string_view data);

// RFC 5546 §3.3.3 free-busy REPLY for one attendee: a METHOD:REPLY
// VCALENDAR with one VFREEBUSY (UID when the request had one, DTSTAMP now,
// the request's DTSTART/DTEND in UTC, ORGANIZER, ATTENDEE = `attendee`)
// and one FREEBUSY line per period (FBTYPE=BUSY or BUSY-TENTATIVE, UTC),
// periods clipped to the request's range. Merging periods is the caller's.
std::string FreeBusyReply(const FreeBusyRequest& request, std::string_view attendee,
                          const std::vector<BusyPeriod>& periods);

}  // namespace nubo::groupware
