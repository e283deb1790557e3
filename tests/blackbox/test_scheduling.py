"""CalDAV scheduling (RFC 6638) between two accounts of one server.

Alice organizes a meeting with Bob (and an external address): Bob's inbox
gets the REQUEST and his calendar the event; Bob accepts (a PUT of his copy
with PARTSTAT=ACCEPTED): Alice's inbox gets the REPLY and her copy shows
him ACCEPTED; Alice moves the meeting: Bob's copy moves; Alice deletes it:
Bob gets a CANCEL and loses his copy. The external attendee's messages wait
in Alice's outbox. Free-busy through the outbox answers Bob's busy time.
Everything is checked on both sides.
"""
import re
import unittest

from test_caldav import NS, responses, xml
from test_files import FAST, start_with_users, stop_and_fsck

ROOT = "/remote.php/dav"
CAL = {"Content-Type": "text/calendar; charset=utf-8"}
XMLH = {"Content-Type": "application/xml; charset=utf-8"}


def meeting(start="20260310T100000Z", end="20260310T110000Z", bob_partstat="NEEDS-ACTION", seq=0,
            summary="Planning"):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo tests//EN\r\nBEGIN:VEVENT\r\nUID:meet-1@nubo.test\r\n"
            "DTSTAMP:20260301T000000Z\r\nDTSTART:%s\r\nDTEND:%s\r\nSEQUENCE:%d\r\nSUMMARY:%s\r\n"
            "ORGANIZER;CN=Alice:mailto:alice@example.org\r\n"
            "ATTENDEE;CN=Alice;PARTSTAT=ACCEPTED:mailto:alice@example.org\r\n"
            "ATTENDEE;CN=Bob;PARTSTAT=%s;RSVP=TRUE:mailto:Bob@Example.org\r\n"
            "ATTENDEE;CN=Eve;PARTSTAT=NEEDS-ACTION:mailto:eve@elsewhere.example\r\n"
            "END:VEVENT\r\nEND:VCALENDAR\r\n" % (start, end, seq, summary, bob_partstat))


def unfold(text):
    """RFC 5545 §3.1: content lines may be folded anywhere."""
    return re.sub(r"\r\n[ \t]", "", text)


class SchedulingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = start_with_users(["alice", "bob"], env=FAST)
        cls.alice, cls.bob = users["alice"], users["bob"]
        for who in (cls.alice, cls.bob):
            status, _, body = who.call("PATCH", "/me", {"email": who.user + "@example.org"})
            assert status == 200, body

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def box(self, who, name):
        """{href: calendar-data} of a schedule inbox or outbox."""
        body = (b'<d:propfind xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>'
                b'<C:calendar-data/></d:prop></d:propfind>')
        status, _, data = who.raw("PROPFIND", "%s/calendars/%s/%s/" % (ROOT, who.user, name), body=body,
                                  headers=dict(XMLH, Depth="1"))
        self.assertEqual(status, 207, data)
        out = {}
        for href, (_, props) in responses(data).items():
            cd = props.get("{%s}calendar-data" % NS["C"])
            if cd is not None:
                out[href] = unfold(cd.text)
        return out

    def copy_of(self, who):
        """(href, data) of the meeting in the account's default calendar, or None."""
        q = ('<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>'
             '<C:calendar-data/></d:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">'
             '<C:prop-filter name="UID"><C:text-match collation="i;octet">meet-1@nubo.test</C:text-match>'
             '</C:prop-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>').encode()
        status, _, data = who.raw("REPORT", "%s/calendars/%s/personal/" % (ROOT, who.user), body=q,
                                  headers=dict(XMLH, Depth="1"))
        self.assertEqual(status, 207, data)
        rs = responses(data)
        self.assertLessEqual(len(rs), 1)
        for href, (_, props) in rs.items():
            return href, unfold(props["{%s}calendar-data" % NS["C"]].text)
        return None

    def test_invite_reply_update_cancel(self):
        # Discovery: the principal names its inbox and outbox.
        body = (b'<d:propfind xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:prop>'
                b'<C:schedule-inbox-URL/><C:schedule-outbox-URL/><C:calendar-user-address-set/></d:prop></d:propfind>')
        status, _, data = self.bob.raw("PROPFIND", ROOT + "/principals/users/bob/", body=body,
                                       headers=dict(XMLH, Depth="0"))
        (_, props), = responses(data).values()
        self.assertEqual(props["{%s}schedule-inbox-URL" % NS["C"]].find("d:href", NS).text,
                         ROOT + "/calendars/bob/inbox/")
        self.assertIn("mailto:bob@example.org",
                      [h.text for h in props["{%s}calendar-user-address-set" % NS["C"]].findall("d:href", NS)])
        status, h, _ = self.alice.raw("OPTIONS", ROOT + "/calendars/alice/")
        self.assertIn("calendar-auto-schedule", h["dav"])
        self.assertEqual(self.box(self.bob, "inbox"), {})

        # 1. Alice invites.
        status, _, data = self.alice.raw("PUT", ROOT + "/calendars/alice/personal/meeting.ics",
                                         body=meeting().encode(), headers=CAL)
        self.assertEqual(status, 201, data)
        inbox = self.box(self.bob, "inbox")
        self.assertEqual(len(inbox), 1)
        (req,) = inbox.values()
        self.assertIn("METHOD:REQUEST", req)
        self.assertIn("meet-1@nubo.test", req)
        href, copy = self.copy_of(self.bob)
        self.assertIn("Planning", copy)
        self.assertNotIn("METHOD", copy)
        self.assertRegex(copy, r"(?i)ATTENDEE[^\r\n]*PARTSTAT=NEEDS-ACTION[^\r\n]*:mailto:bob@example.org")
        outbox = self.box(self.alice, "outbox")
        self.assertEqual(len(outbox), 1)  # for eve@elsewhere, kept for a mail gateway
        self.assertIn("eve@elsewhere.example", list(outbox.values())[0])
        # Bob may not write into an inbox, and Alice's inbox is not his.
        status, _, _ = self.bob.raw("PUT", ROOT + "/calendars/bob/inbox/x.ics", body=meeting().encode(),
                                    headers=CAL)
        self.assertEqual(status, 403)
        self.assertEqual(self.bob.raw("PROPFIND", ROOT + "/calendars/alice/inbox/",
                                      headers={"Depth": "1"})[0], 404)

        # 2. Bob accepts: the organizer's copy records it, her inbox has the REPLY.
        accepted = re.sub(r"(ATTENDEE[^\r\n]*)PARTSTAT=NEEDS-ACTION([^\r\n]*:mailto:bob@example.org)",
                          r"\1PARTSTAT=ACCEPTED\2", copy, flags=re.I)
        self.assertNotEqual(accepted, copy)
        status, _, data = self.bob.raw("PUT", href, body=accepted.encode(), headers=CAL)
        self.assertEqual(status, 204, data)
        replies = [m for m in self.box(self.alice, "inbox").values() if "METHOD:REPLY" in m]
        self.assertEqual(len(replies), 1)
        self.assertRegex(replies[0], r"(?i)PARTSTAT=ACCEPTED[^\r\n]*:mailto:bob@example.org")
        _, mine = self.copy_of(self.alice)
        self.assertRegex(mine, r"(?i)ATTENDEE[^\r\n]*PARTSTAT=ACCEPTED[^\r\n]*:mailto:bob@example.org")
        self.assertRegex(mine, r"ATTENDEE[^\r\n]*PARTSTAT=NEEDS-ACTION[^\r\n]*:mailto:eve@elsewhere.example")

        # 3. Alice moves the meeting: Bob's copy moves (and asks him again).
        status, _, _ = self.alice.raw("PUT", ROOT + "/calendars/alice/personal/meeting.ics",
                                      body=meeting("20260311T140000Z", "20260311T150000Z", seq=1).encode(),
                                      headers=CAL)
        self.assertEqual(status, 204)
        _, copy2 = self.copy_of(self.bob)
        self.assertIn("DTSTART:20260311T140000Z", copy2)
        self.assertEqual(len([m for m in self.box(self.bob, "inbox").values() if "METHOD:REQUEST" in m]), 2)

        # 4. Alice cancels: Bob gets a CANCEL and loses the event.
        status, _, _ = self.alice.raw("DELETE", ROOT + "/calendars/alice/personal/meeting.ics")
        self.assertEqual(status, 204)
        cancels = [m for m in self.box(self.bob, "inbox").values() if "METHOD:CANCEL" in m]
        self.assertEqual(len(cancels), 1)
        self.assertIn("STATUS:CANCELLED", cancels[0])
        self.assertIsNone(self.copy_of(self.bob))
        # Bob clears his inbox.
        for h in list(self.box(self.bob, "inbox")):
            self.assertEqual(self.bob.raw("DELETE", h)[0], 204)
        self.assertEqual(self.box(self.bob, "inbox"), {})

    def test_free_busy_through_the_outbox(self):
        busy = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:busy-1\r\n"
                "DTSTAMP:20260301T000000Z\r\nDTSTART:20260401T090000Z\r\nDTEND:20260401T100000Z\r\n"
                "SUMMARY:Private\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
        self.assertEqual(self.bob.raw("PUT", ROOT + "/calendars/bob/personal/busy.ics", body=busy.encode(),
                                      headers=CAL)[0], 201)
        req = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nMETHOD:REQUEST\r\nBEGIN:VFREEBUSY\r\n"
               "UID:fb-1\r\nDTSTAMP:20260301T000000Z\r\nDTSTART:20260401T000000Z\r\nDTEND:20260402T000000Z\r\n"
               "ORGANIZER:mailto:alice@example.org\r\nATTENDEE:mailto:bob@example.org\r\n"
               "ATTENDEE:mailto:nobody@elsewhere.example\r\nEND:VFREEBUSY\r\nEND:VCALENDAR\r\n")
        status, _, data = self.alice.raw("POST", ROOT + "/calendars/alice/outbox/", body=req.encode(), headers=CAL)
        self.assertEqual(status, 200, data)
        answers = {}
        for r in xml(data).findall("C:response", NS):
            who = r.find("C:recipient/d:href", NS).text
            cd = r.find("C:calendar-data", NS)
            answers[who] = (r.find("C:request-status", NS).text, cd.text if cd is not None else "")
        self.assertTrue(answers["mailto:bob@example.org"][0].startswith("2.0"))
        self.assertIn("FREEBUSY;FBTYPE=BUSY:20260401T090000Z/20260401T100000Z", answers["mailto:bob@example.org"][1])
        self.assertNotIn("Private", answers["mailto:bob@example.org"][1])
        self.assertTrue(answers["mailto:nobody@elsewhere.example"][0].startswith("3.7"))
        # Only the outbox's owner may ask, and only as the organizer.
        self.assertEqual(self.bob.raw("POST", ROOT + "/calendars/alice/outbox/", body=req.encode(),
                                      headers=CAL)[0], 404)
        status, _, _ = self.bob.raw("POST", ROOT + "/calendars/bob/outbox/", body=req.encode(), headers=CAL)
        self.assertEqual(status, 403)


if __name__ == "__main__":
    unittest.main()
