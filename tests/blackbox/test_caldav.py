"""CalDAV and CardDAV under /remote.php/dav/, driven by real clients.

python3-caldav (Debian's) discovers the server from /.well-known/caldav,
creates calendars, stores events (a recurring one with an exception and an
override) and searches time ranges; the instance lists it gets back are
checked against what RFC 5545 says they are. Raw requests check what the
RFCs leave no freedom on: precondition elements, sync tokens, multiget and
addressbook-query answers, and that a second user gets exactly the 404 of
a resource that does not exist from every method.
"""
import datetime
import re
import unittest
import xml.etree.ElementTree as ET

import caldav

from harness import metric
from test_files import FAST, eventually, start_with_users, stop_and_fsck

ROOT = "/remote.php/dav"
NS = {"d": "DAV:", "C": "urn:ietf:params:xml:ns:caldav", "CR": "urn:ietf:params:xml:ns:carddav",
      "cs": "http://calendarserver.org/ns/"}

WEEKLY = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//nubo tests//EN\r
BEGIN:VEVENT\r
UID:weekly-1@nubo.test\r
DTSTAMP:20251201T000000Z\r
DTSTART:20260105T100000Z\r
DTEND:20260105T110000Z\r
SUMMARY:Weekly sync\r
RRULE:FREQ=WEEKLY;COUNT=5\r
EXDATE:20260112T100000Z\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:weekly-1@nubo.test\r
DTSTAMP:20251201T000000Z\r
RECURRENCE-ID:20260119T100000Z\r
DTSTART:20260120T110000Z\r
DTEND:20260120T120000Z\r
SUMMARY:Weekly sync (moved)\r
END:VEVENT\r
END:VCALENDAR\r
"""


def event(uid, start, end, summary="Event", extra=""):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo tests//EN\r\nBEGIN:VEVENT\r\n"
            "UID:%s\r\nDTSTAMP:20251201T000000Z\r\nDTSTART:%s\r\nDTEND:%s\r\nSUMMARY:%s\r\n%s"
            "END:VEVENT\r\nEND:VCALENDAR\r\n" % (uid, start, end, summary, extra))


def vcard(uid, fn, email="", version="4.0"):
    lines = ["BEGIN:VCARD", "VERSION:" + version, "UID:" + uid, "FN:" + fn]
    if email:
        lines.append("EMAIL;TYPE=work:" + email)
    lines.append("END:VCARD")
    return "\r\n".join(lines) + "\r\n"


def dav_request(who, method, path, body=b"", headers=None):
    """A groupware DAV request with an XML body (str or bytes): (status, headers, body)."""
    h = {"Content-Type": "application/xml; charset=utf-8"}
    h.update(headers or {})
    if isinstance(body, str):
        body = body.encode()
    return who.raw(method, path, body=body, headers=h)


def xml(body):
    return ET.fromstring(body)


def responses(body):
    """{href: (status-or-None, {prop tag: element}) } of a multistatus."""
    out = {}
    for r in xml(body).findall("d:response", NS):
        href = r.find("d:href", NS).text
        st = r.find("d:status", NS)
        props = {}
        for ps in r.findall("d:propstat", NS):
            if "200" in ps.find("d:status", NS).text:
                for p in ps.find("d:prop", NS):
                    props[p.tag] = p
        out[href] = (st.text if st is not None else None, props)
    return out


def recurrence_ids(ics):
    return sorted(re.findall(r"RECURRENCE-ID[^:]*:(\S+)", ics))


class CalDavTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = start_with_users(["alice", "bob"], env=FAST)
        cls.alice, cls.bob = users["alice"], users["bob"]

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def dav(self, who, method, path, body=b"", headers=None):
        return dav_request(who, method, path, body, headers)

    def report(self, who, path, body, depth="1"):
        return self.dav(who, "REPORT", path, body, {"Depth": depth})

    # -- discovery and a real client ------------------------------------

    def test_python_caldav_discovers_creates_and_searches(self):
        client = caldav.DAVClient(url=self.srv.url("/.well-known/caldav"), username="alice",
                                  password="alice password 1")
        principal = client.principal()
        self.assertTrue(str(principal.url).endswith("/remote.php/dav/principals/users/alice/"), principal.url)
        names = [c.name for c in principal.calendars()]
        self.assertIn("Personal", names)  # the default calendar, made on first use
        cal = principal.make_calendar(name="Work", cal_id="work")
        cal.save_event(WEEKLY)
        cal.save_event(event("single-1@nubo.test", "20260201T090000Z", "20260201T100000Z", "Single"))
        cal.save_event(event("far-1@nubo.test", "20270301T090000Z", "20270301T100000Z", "Far"))
        self.assertEqual(len(cal.events()), 3)

        def found(start, end):
            hits = cal.date_search(start=start, end=end)
            return sorted(str(h.url).rsplit("/", 1)[1] for h in hits)

        d = datetime.datetime
        utc = datetime.timezone.utc
        jan = found(d(2026, 1, 1, tzinfo=utc), d(2026, 2, 1, tzinfo=utc))
        self.assertEqual(len(jan), 1, jan)  # only the weekly event
        # The EXDATE'd Monday and the overridden one's original day: nothing.
        self.assertEqual(found(d(2026, 1, 12, tzinfo=utc), d(2026, 1, 13, tzinfo=utc)), [])
        self.assertEqual(found(d(2026, 1, 19, tzinfo=utc), d(2026, 1, 20, tzinfo=utc)), [])
        self.assertEqual(len(found(d(2026, 1, 20, tzinfo=utc), d(2026, 1, 21, tzinfo=utc))), 1)
        # Feb 1 holds the single event and the last weekly instance (Feb 2).
        self.assertEqual(len(found(d(2026, 2, 1, tzinfo=utc), d(2026, 2, 3, tzinfo=utc))), 2)
        self.assertEqual(len(found(d(2027, 1, 1, tzinfo=utc), d(2028, 1, 1, tzinfo=utc))), 1)
        # Sync tokens through the client: one addition and one deletion.
        snap = cal.objects_by_sync_token(load_objects=True)
        self.assertEqual(len(list(snap)), 3)
        first = snap.sync_token
        cal.save_event(event("late-1@nubo.test", "20260401T090000Z", "20260401T100000Z", "Late"))
        cal.event_by_uid("far-1@nubo.test").delete()
        updated, deleted = snap.sync()
        self.assertEqual([str(o.url).rsplit("/", 1)[1] for o in updated], [
            str(e.url).rsplit("/", 1)[1] for e in cal.events() if "Late" in e.data])
        self.assertEqual(len(deleted), 1)
        self.assertNotEqual(snap.sync_token, first)
        self.assertEqual(snap.sync(), ([], []))

    # -- raw protocol checks ---------------------------------------------

    def test_reading_homes_writes_nothing(self):
        """The default calendar and address book are made once; afterwards
        reading a home or the defaults queues no write transaction."""
        def writes():
            return metric(self.srv, "nubo_meta_writes_total")

        paths = [ROOT + "/calendars/alice/", ROOT + "/addressbooks/users/alice/",
                 ROOT + "/calendars/alice/personal/", ROOT + "/addressbooks/users/alice/contacts/"]
        for p in paths:  # the first visit may make them
            self.assertEqual(self.dav(self.alice, "PROPFIND", p, b"", {"Depth": "1"})[0], 207)
        # Files other tests uploaded queue background jobs (text extraction),
        # whose writes are not the reads' doing: measure once the queue is idle.
        idle = eventually(lambda: metric(self.srv, "nubo_jobs_due") + metric(self.srv, "nubo_jobs_running") == 0, 60)
        self.assertTrue(idle, "the job queue never became idle")
        before = writes()
        for _ in range(3):
            for p in paths:
                self.assertEqual(self.dav(self.alice, "PROPFIND", p, b"", {"Depth": "1"})[0], 207)
        # 12 reads; a broken check writes once per read. Background work
        # (maintenance, credential bookkeeping) may write once or twice meanwhile.
        self.assertLessEqual(writes() - before, 2)

    def test_well_known_redirects(self):
        for p in ("/.well-known/caldav", "/.well-known/carddav"):
            status, h, _ = self.alice.raw("PROPFIND", p, headers={"Depth": "0"}, auth=False)
            self.assertEqual(status, 307)  # keeps the method and the body
            self.assertEqual(h["location"], ROOT + "/")
            status, h, _ = self.alice.raw("GET", p, auth=False)
            self.assertEqual(status, 301)
            self.assertEqual(h["location"], ROOT + "/")

    def test_principal_properties(self):
        body = """<d:propfind xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"
            xmlns:CR="urn:ietf:params:xml:ns:carddav"><d:prop><d:current-user-principal/>
            <C:calendar-home-set/><CR:addressbook-home-set/><d:displayname/>
            <C:calendar-user-address-set/><d:nope/></d:prop></d:propfind>"""
        status, _, data = self.dav(self.alice, "PROPFIND", ROOT + "/principals/users/alice/", body,
                                   {"Depth": "0"})
        self.assertEqual(status, 207, data)
        (_, props), = responses(data).values()
        self.assertEqual(props["{DAV:}current-user-principal"].find("d:href", NS).text,
                         ROOT + "/principals/users/alice/")
        self.assertEqual(props["{%s}calendar-home-set" % NS["C"]].find("d:href", NS).text,
                         ROOT + "/calendars/alice/")
        self.assertEqual(props["{%s}addressbook-home-set" % NS["CR"]].find("d:href", NS).text,
                         ROOT + "/addressbooks/users/alice/")
        self.assertIn(b"<d:nope/>", data.replace(b"ns1:nope", b"d:nope"))  # reported missing

    def make_calendar(self, who, name):
        body = """<C:mkcalendar xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>
            <d:displayname>%s</d:displayname></d:prop></d:set></C:mkcalendar>""" % name
        status, _, data = self.dav(who, "MKCALENDAR", "%s/calendars/%s/%s/" % (ROOT, who.user, name), body)
        self.assertEqual(status, 201, data)
        return "%s/calendars/%s/%s/" % (ROOT, who.user, name)

    def put(self, who, path, text, ctype="text/calendar; charset=utf-8", headers=None):
        h = {"Content-Type": ctype}
        h.update(headers or {})
        return who.raw("PUT", path, body=text.encode(), headers=h)

    def test_preconditions_on_put(self):
        cal = self.make_calendar(self.alice, "checks")
        status, h, _ = self.put(self.alice, cal + "a.ics", event("u-a", "20260101T100000Z", "20260101T110000Z"))
        self.assertEqual(status, 201)
        etag = h["etag"]
        self.assertRegex(etag, r'^"[0-9a-f]{32}"$')
        cases = [
            ("garbage", "not a calendar", "valid-calendar-data"),
            ("method", event("u-m", "20260101T100000Z", "20260101T110000Z").replace(
                "VERSION:2.0\r\n", "VERSION:2.0\r\nMETHOD:REQUEST\r\n"), "valid-calendar-object-resource"),
            ("dup-uid", event("u-a", "20260102T100000Z", "20260102T110000Z"), "no-uid-conflict"),
        ]
        for name, text, cond in cases:
            status, _, data = self.put(self.alice, cal + name + ".ics", text)
            self.assertEqual(status, 403, (name, data))
            self.assertIn(cond.encode(), data, name)
            self.assertEqual(self.alice.raw("GET", cal + name + ".ics")[0], 404, name)
        # no-uid-conflict names the object that holds the UID.
        _, _, data = self.put(self.alice, cal + "dup-uid.ics", cases[2][1])
        self.assertIn((cal + "a.ics").encode(), data)
        status, _, data = self.put(self.alice, cal + "t.ics", event("u-t", "20260101T100000Z", "20260101T110000Z"),
                                   ctype="text/plain")
        self.assertEqual(status, 403)
        self.assertIn(b"supported-calendar-data", data)
        # Strong ETags and If-Match / If-None-Match.
        status, _, _ = self.put(self.alice, cal + "a.ics", event("u-a", "20260101T100000Z", "20260101T120000Z"),
                                headers={"If-Match": '"0000"'})
        self.assertEqual(status, 412)
        status, _, _ = self.put(self.alice, cal + "a.ics", event("u-a", "20260101T100000Z", "20260101T120000Z"),
                                headers={"If-None-Match": "*"})
        self.assertEqual(status, 412)
        status, h2, _ = self.put(self.alice, cal + "a.ics", event("u-a", "20260101T100000Z", "20260101T120000Z"),
                                 headers={"If-Match": etag})
        self.assertEqual(status, 204)
        self.assertNotEqual(h2["etag"], etag)
        status, h3, data = self.alice.raw("GET", cal + "a.ics")
        self.assertEqual((status, h3["etag"]), (200, h2["etag"]))
        self.assertIn(b"DTEND:20260101T120000Z", data)
        self.assertEqual(self.alice.raw("DELETE", cal + "a.ics", headers={"If-Match": etag})[0], 412)
        self.assertEqual(self.alice.raw("DELETE", cal + "a.ics", headers={"If-Match": h2["etag"]})[0], 204)

    def test_listings_describe_members_alike(self):
        # PROPFIND, sync-collection (which reads the change log, not the
        # objects) and calendar-query must describe a member the same way:
        # a sync once called every member of a calendar a VEVENT modified in
        # 1970.
        cal = self.make_calendar(self.alice, "todos")
        todo = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo tests//EN\r\nBEGIN:VTODO\r\n"
                "UID:todo-1\r\nDTSTAMP:20251201T000000Z\r\nSUMMARY:Buy milk\r\nEND:VTODO\r\n"
                "END:VCALENDAR\r\n")
        self.assertEqual(self.put(self.alice, cal + "todo.ics", todo)[0], 201)
        self.assertEqual(self.put(self.alice, cal + "ev.ics",
                                  event("u-ev", "20260301T100000Z", "20260301T110000Z", "Café ☕"))[0], 201)
        props = "<d:prop><d:getetag/><d:getcontenttype/><d:getcontentlength/><d:getlastmodified/></d:prop>"
        pf = '<d:propfind xmlns:d="DAV:">%s</d:propfind>' % props
        sync = ('<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level>%s'
                '</d:sync-collection>' % props)
        query = ('<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">%s<C:filter>'
                 '<C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>' % props)

        def described(status, data):
            self.assertEqual(status, 207, data)
            out = {}
            for href, (_, p) in responses(data).items():
                if href == cal:
                    continue
                out[href] = tuple(p["{DAV:}" + n].text for n in
                                  ("getetag", "getcontenttype", "getcontentlength", "getlastmodified"))
            return out

        want = {}
        for name in ("todo.ics", "ev.ics"):
            status, h, body = self.alice.raw("GET", cal + name)
            self.assertEqual(status, 200)
            want[cal + name] = (h["etag"], h["content-type"], str(len(body)), h["last-modified"])
        self.assertIn("component=vtodo", want[cal + "todo.ics"][1])
        status, _, data = self.dav(self.alice, "PROPFIND", cal, pf, {"Depth": "1"})
        self.assertEqual(described(status, data), want)
        self.assertEqual(described(*self.report(self.alice, cal, sync, depth="0")[::2]), want)
        self.assertEqual(described(*self.report(self.alice, cal, query)[::2]), want)

    def test_calendar_query_multiget_and_sync(self):
        cal = self.make_calendar(self.alice, "q")
        self.assertEqual(self.put(self.alice, cal + "weekly.ics", WEEKLY)[0], 201)
        self.assertEqual(self.put(self.alice, cal + "one.ics",
                                  event("u-one", "20260301T100000Z", "20260301T110000Z", "Dentist"))[0], 201)
        # GET of the calendar exports it: one VCALENDAR with every component.
        status, h, data = self.alice.raw("GET", cal)
        self.assertEqual(status, 200)
        self.assertEqual(h["content-disposition"], 'attachment; filename="q.ics"')
        self.assertEqual(data.count(b"BEGIN:VCALENDAR"), 1)
        self.assertEqual(data.count(b"BEGIN:VEVENT"), 3)  # the weekly master, its override, the dentist
        self.assertIn(b"UID:u-one", data)
        self.assertTrue(data.rstrip().endswith(b"END:VCALENDAR"))
        q = """<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
          <d:prop><d:getetag/><C:calendar-data><C:expand start="20260101T000000Z" end="20260201T000000Z"/>
          </C:calendar-data></d:prop>
          <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
          <C:time-range start="20260101T000000Z" end="20260201T000000Z"/></C:comp-filter></C:comp-filter>
          </C:filter></C:calendar-query>"""
        status, _, data = self.report(self.alice, cal, q)
        self.assertEqual(status, 207, data)
        rs = responses(data)
        self.assertEqual(list(rs), [cal + "weekly.ics"])
        ics = rs[cal + "weekly.ics"][1]["{%s}calendar-data" % NS["C"]].text
        self.assertEqual(recurrence_ids(ics), ["20260105T100000Z", "20260119T100000Z", "20260126T100000Z"])
        self.assertNotIn("RRULE", ics)
        # text-match on SUMMARY, case-insensitive by default (i;ascii-casemap).
        q2 = """<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
          <d:prop><d:getetag/></d:prop><C:filter><C:comp-filter name="VCALENDAR">
          <C:comp-filter name="VEVENT"><C:prop-filter name="SUMMARY"><C:text-match>dENTIST</C:text-match>
          </C:prop-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"""
        status, _, data = self.report(self.alice, cal, q2)
        self.assertEqual(list(responses(data)), [cal + "one.ics"])
        bad = q2.replace("<C:text-match>", '<C:text-match collation="i;klingon">')
        status, _, data = self.report(self.alice, cal, bad)
        self.assertEqual(status, 403)
        self.assertIn(b"supported-collation", data)
        # multiget: found, missing, and an href outside the calendar.
        mg = """<C:calendar-multiget xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
          <d:prop><d:getetag/><C:calendar-data/></d:prop><d:href>{0}one.ics</d:href>
          <d:href>{0}missing.ics</d:href><d:href>/remote.php/dav/calendars/bob/personal/x.ics</d:href>
          </C:calendar-multiget>""".format(cal)
        status, _, data = self.report(self.alice, cal, mg)
        rs = responses(data)
        self.assertIn("Dentist", rs[cal + "one.ics"][1]["{%s}calendar-data" % NS["C"]].text)
        self.assertIn("404", rs[cal + "missing.ics"][0])
        self.assertIn("404", rs["/remote.php/dav/calendars/bob/personal/x.ics"][0])
        # sync-collection: initial, then a change and a deletion.
        sync = """<d:sync-collection xmlns:d="DAV:"><d:sync-token>{}</d:sync-token><d:sync-level>1</d:sync-level>
          <d:prop><d:getetag/></d:prop></d:sync-collection>"""
        status, _, data = self.report(self.alice, cal, sync.format(""), depth="0")
        self.assertEqual(status, 207, data)
        self.assertEqual(sorted(responses(data)), [cal + "one.ics", cal + "weekly.ics"])
        token = xml(data).find("d:sync-token", NS).text
        status, _, data = self.report(self.alice, cal, sync.format(token), depth="0")
        self.assertEqual(responses(data), {})
        self.assertEqual(xml(data).find("d:sync-token", NS).text, token)
        self.put(self.alice, cal + "one.ics", event("u-one", "20260301T100000Z", "20260301T120000Z", "Dentist"))
        self.alice.raw("DELETE", cal + "weekly.ics")
        status, _, data = self.report(self.alice, cal, sync.format(token), depth="0")
        rs = responses(data)
        self.assertEqual(sorted(rs), [cal + "one.ics", cal + "weekly.ics"])
        self.assertIn("404", rs[cal + "weekly.ics"][0])
        self.assertIn("{DAV:}getetag", rs[cal + "one.ics"][1])
        # A token of another collection, or a made-up one: valid-sync-token.
        other = self.make_calendar(self.alice, "other")
        status, _, data = self.report(self.alice, other, sync.format(token), depth="0")
        self.assertEqual(status, 403)
        self.assertIn(b"valid-sync-token", data)
        # A limit cuts the answer with 507 on the request URI; the token resumes.
        for i in range(5):
            self.put(self.alice, other + "e%d.ics" % i, event("u-o%d" % i, "20260101T100000Z", "20260101T110000Z"))
        lim = sync.format("").replace("<d:prop>", "<d:limit><d:nresults>3</d:nresults></d:limit><d:prop>")
        status, _, data = self.report(self.alice, other, lim, depth="0")
        rs = responses(data)
        self.assertIn("507", rs[other][0])
        self.assertEqual(len(rs), 4)
        t2 = xml(data).find("d:sync-token", NS).text
        status, _, data = self.report(self.alice, other, sync.format(t2), depth="0")
        self.assertEqual(sorted(responses(data)), [other + "e3.ics", other + "e4.ics"])

    def test_second_user_sees_nothing(self):
        cal = self.make_calendar(self.alice, "private")
        self.put(self.alice, cal + "p.ics", event("u-p", "20260101T100000Z", "20260101T110000Z", "Secret"))
        q = """<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
          <d:prop><C:calendar-data/></d:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter>
          </C:calendar-query>"""
        probes = [
            ("GET", cal + "p.ics", b"", {}),
            ("PROPFIND", cal, b"", {"Depth": "1"}),
            ("PROPFIND", ROOT + "/calendars/alice/", b"", {"Depth": "1"}),
            ("PROPFIND", ROOT + "/principals/users/alice/", b"", {"Depth": "0"}),
            ("REPORT", cal, q.encode(), {"Depth": "1"}),
            ("PUT", cal + "p.ics", event("u-p", "20260101T100000Z", "20260101T110000Z").encode(),
             {"Content-Type": "text/calendar"}),
            ("DELETE", cal + "p.ics", b"", {}),
            ("PROPPATCH", cal, b'<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>x'
                               b'</d:displayname></d:prop></d:set></d:propertyupdate>', {}),
            ("MKCALENDAR", ROOT + "/calendars/alice/new/", b"", {}),
        ]
        for method, path, body, headers in probes:
            seen = self.dav(self.bob, method, path, body, headers)
            ghost = self.dav(self.bob, method, path.replace("alice", "nobody-here"), body, headers)
            self.assertEqual(seen[0], 404, (method, path, seen))
            self.assertEqual((seen[0], seen[2]), (ghost[0], ghost[2]), (method, path))
            self.assertNotIn(b"Secret", seen[2])
        # Alice's data is untouched.
        status, _, data = self.alice.raw("GET", cal + "p.ics")
        self.assertEqual(status, 200)
        self.assertIn(b"Secret", data)
        # Listing the principals shows only the caller.
        status, _, data = self.dav(self.bob, "PROPFIND", ROOT + "/principals/users/", b"", {"Depth": "1"})
        self.assertEqual(sorted(responses(data)), [ROOT + "/principals/users/", ROOT + "/principals/users/bob/"])

    def test_carddav(self):
        books = ROOT + "/addressbooks/users/alice/"
        status, _, data = self.dav(self.alice, "PROPFIND", books, b"", {"Depth": "1"})
        self.assertIn(books + "contacts/", responses(data))  # the default address book
        mk = """<d:mkcol xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><d:set><d:prop>
          <d:resourcetype><d:collection/><CR:addressbook/></d:resourcetype><d:displayname>Friends</d:displayname>
          </d:prop></d:set></d:mkcol>"""
        status, _, data = self.dav(self.alice, "MKCOL", books + "friends/", mk)
        self.assertEqual(status, 201, data)
        book = books + "friends/"
        vc = "text/vcard; charset=utf-8"
        self.assertEqual(self.put(self.alice, book + "m.vcf", vcard("c-1", "Jürgen Müller", "jm@example.org"), vc)[0], 201)
        self.assertEqual(self.put(self.alice, book + "a.vcf", vcard("c-2", "Ann Other", "ann@example.org", "3.0"), vc)[0], 201)
        status, _, data = self.put(self.alice, book + "bad.vcf", "BEGIN:VCARD\r\nVERSION:4.0\r\nFN:x\r\nEND:VCARD\r\n", vc)
        self.assertEqual(status, 403)
        self.assertIn(b"valid-address-data", data)
        status, _, data = self.put(self.alice, book + "dup.vcf", vcard("c-1", "Dup"), vc)
        self.assertIn(b"no-uid-conflict", data)
        q = """<CR:addressbook-query xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav">
          <d:prop><d:getetag/><CR:address-data/></d:prop><CR:filter><CR:prop-filter name="FN">
          <CR:text-match match-type="contains">MÜLLER</CR:text-match></CR:prop-filter></CR:filter>
          </CR:addressbook-query>"""
        status, _, data = self.report(self.alice, book, q)
        self.assertEqual(status, 207, data)
        rs = responses(data)
        self.assertEqual(list(rs), [book + "m.vcf"])
        self.assertIn("jm@example.org", rs[book + "m.vcf"][1]["{%s}address-data" % NS["CR"]].text)
        allq = """<CR:addressbook-query xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav">
          <d:prop><d:getetag/></d:prop><CR:limit><CR:nresults>1</CR:nresults></CR:limit></CR:addressbook-query>"""
        status, _, data = self.report(self.alice, book, allq)
        rs = responses(data)
        self.assertEqual(len(rs), 2)
        self.assertIn("507", rs[book][0])
        # RFC 6352 §8.6.1: 507 only when more cards *matched* than the limit
        # (a card after the last match that the filter rejects is no reason).
        ann = q.replace("MÜLLER", "ann").replace("</CR:filter>",
                                                 "</CR:filter><CR:limit><CR:nresults>1</CR:nresults></CR:limit>")
        status, _, data = self.report(self.alice, book, ann)
        self.assertEqual(status, 207, data)
        self.assertEqual(list(responses(data)), [book + "a.vcf"])
        mg = """<CR:addressbook-multiget xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav">
          <d:prop><d:getetag/></d:prop><d:href>{0}a.vcf</d:href><d:href>{0}zz.vcf</d:href>
          </CR:addressbook-multiget>""".format(book)
        rs = responses(self.report(self.alice, book, mg)[2])
        self.assertIn("{DAV:}getetag", rs[book + "a.vcf"][1])
        self.assertIn("404", rs[book + "zz.vcf"][0])
        # Bob sees none of it.
        self.assertEqual(self.report(self.bob, book, q)[0], 404)
        self.assertEqual(self.bob.raw("GET", book + "m.vcf")[0], 404)

    def test_files_tree_in_the_nextcloud_layout(self):
        mine = ROOT + "/files/alice/"
        status, _, _ = self.alice.raw("PUT", mine + "nc.txt", body=b"via remote.php")
        self.assertEqual(status, 201)
        self.assertEqual(self.alice.raw("GET", "/dav/nc.txt")[2], b"via remote.php")
        self.assertEqual(self.alice.raw("GET", "/remote.php/webdav/nc.txt")[2], b"via remote.php")
        status, _, _ = self.alice.raw("MOVE", mine + "nc.txt",
                                      headers={"Destination": self.srv.url(mine + "moved.txt")})
        self.assertEqual(status, 201)
        self.assertEqual(self.alice.raw("GET", "/dav/moved.txt")[2], b"via remote.php")
        # Another account's name in the path is a path that does not exist.
        seen = self.bob.raw("GET", mine + "moved.txt")
        ghost = self.bob.raw("GET", ROOT + "/files/nobody-here/moved.txt")
        self.assertEqual((seen[0], seen[2]), (404, ghost[2]))
        status, _, _ = self.bob.raw("PUT", mine + "evil.txt", body=b"x")
        self.assertEqual(status, 404)
        self.assertEqual(self.alice.raw("GET", "/dav/evil.txt")[0], 404)
        # A Destination in someone else's files tree is not this tree.
        status, _, _ = self.bob.raw("PUT", ROOT + "/files/bob/b.txt", body=b"bob's")
        self.assertEqual(status, 201)
        status, _, _ = self.bob.raw("MOVE", ROOT + "/files/bob/b.txt",
                                    headers={"Destination": self.srv.url(mine + "stolen.txt")})
        self.assertIn(status, (403, 502))
        self.assertEqual(self.alice.raw("GET", "/dav/stolen.txt")[0], 404)

    def test_proppatch_and_delete_collection(self):
        cal = self.make_calendar(self.alice, "props")
        pp = """<d:propertyupdate xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"
          xmlns:A="http://apple.com/ns/ical/" xmlns:x="urn:x"><d:set><d:prop><d:displayname>Renamed</d:displayname>
          <A:calendar-color>#ff0000</A:calendar-color><C:calendar-description>Desc</C:calendar-description>
          <x:custom>kept</x:custom></d:prop></d:set></d:propertyupdate>"""
        status, _, data = self.dav(self.alice, "PROPPATCH", cal, pp)
        self.assertEqual(status, 207, data)
        self.assertIn(b"200 OK", data)
        body = """<d:propfind xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"
          xmlns:A="http://apple.com/ns/ical/" xmlns:x="urn:x"><d:prop><d:displayname/><A:calendar-color/>
          <C:calendar-description/><x:custom/><d:resourcetype/></d:prop></d:propfind>"""
        status, _, data = self.dav(self.alice, "PROPFIND", cal, body, {"Depth": "0"})
        (_, props), = responses(data).values()
        self.assertEqual(props["{DAV:}displayname"].text, "Renamed")
        self.assertEqual(props["{http://apple.com/ns/ical/}calendar-color"].text, "#ff0000")
        self.assertEqual(props["{urn:x}custom"].text, "kept")
        self.assertIsNotNone(props["{DAV:}resourcetype"].find("C:calendar", NS))
        # A protected property fails the whole request.
        bad = pp.replace("<d:displayname>Renamed</d:displayname>", "<d:getetag>x</d:getetag>"
                         "<d:displayname>Other</d:displayname>")
        status, _, data = self.dav(self.alice, "PROPPATCH", cal, bad)
        self.assertIn(b"403 Forbidden", data)
        self.assertIn(b"424 Failed Dependency", data)
        status, _, data = self.dav(self.alice, "PROPFIND", cal, body, {"Depth": "0"})
        self.assertIn(b"Renamed", data)
        self.assertEqual(self.alice.raw("DELETE", cal)[0], 204)
        self.assertEqual(self.dav(self.alice, "PROPFIND", cal, b"", {"Depth": "0"})[0], 404)


if __name__ == "__main__":
    unittest.main()
