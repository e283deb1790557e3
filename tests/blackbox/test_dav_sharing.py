"""Calendars and address books shared between accounts, the way Nextcloud's
clients do it: the owner POSTs an oc:share body to the collection; the
sharee finds it in its own home as "<name>_shared_by_<owner>" with the
owner, oc:invite and current-user-privilege-set a client reads to show it
read-only or writable; a read-only sharee reads (GET, REPORT, sync) but
cannot write, a read-write one writes objects but not the collection;
members of a group get what the group got; deleting it from the sharee's
home leaves the share; a stranger and a revoked sharee see exactly what a
missing collection answers. python3-caldav lists the shared calendar and
reads its events."""
import unittest
import xml.etree.ElementTree as ET

import caldav

from test_caldav import ROOT, dav_request, event, responses, vcard
from test_files import FAST, start_with_users, stop_and_fsck

OC = "{http://owncloud.org/ns}"
D = "{DAV:}"


def share_body(*ops):
    """ops: ("set", href, read_write) or ("remove", href)."""
    parts = []
    for op in ops:
        if op[0] == "set":
            parts.append("<o:set><d:href>%s</d:href>%s</o:set>" % (op[1], "<o:read-write/>" if op[2] else ""))
        else:
            parts.append("<o:remove><d:href>%s</d:href></o:remove>" % op[1])
    return ('<?xml version="1.0"?><o:share xmlns:d="DAV:" xmlns:o="http://owncloud.org/ns">%s</o:share>'
            % "".join(parts)).encode()


class DavSharingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = start_with_users(["alice", "bob", "carol", "dave"], env=FAST)
        cls.alice, cls.bob, cls.carol, cls.dave = (users[n] for n in ("alice", "bob", "carol", "dave"))

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def dav(self, who, method, path, body=b"", headers=None):
        return dav_request(who, method, path, body, headers)

    def mkcalendar(self, who, name):
        body = ('<C:mkcalendar xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>'
                "<d:displayname>%s</d:displayname></d:prop></d:set></C:mkcalendar>" % name)
        status, _, data = self.dav(who, "MKCALENDAR", "%s/calendars/%s/%s/" % (ROOT, who.user, name), body)
        self.assertEqual(status, 201, data)
        return "%s/calendars/%s/%s/" % (ROOT, who.user, name)

    def put(self, who, path, text, ctype="text/calendar; charset=utf-8"):
        return who.raw("PUT", path, body=text.encode(), headers={"Content-Type": ctype})

    def home(self, who, kind="calendars"):
        """{href: props} of the caller's home, Depth 1."""
        base = "%s/%s/%s/" % (ROOT, kind, who.user) if kind == "calendars" else \
            "%s/addressbooks/users/%s/" % (ROOT, who.user)
        body = ('<d:propfind xmlns:d="DAV:" xmlns:o="http://owncloud.org/ns"><d:prop><d:displayname/><d:owner/>'
                "<d:current-user-privilege-set/><o:invite/><o:owner-principal/><d:resourcetype/>"
                "</d:prop></d:propfind>")
        status, _, data = self.dav(who, "PROPFIND", base, body, {"Depth": "1"})
        self.assertEqual(status, 207, data)
        return responses(data)

    @staticmethod
    def privileges(props):
        el = props.get(D + "current-user-privilege-set")
        return sorted(p[0].tag.split("}")[1] for p in el.findall(D + "privilege")) if el is not None else []

    def test_share_a_calendar_read_only_then_read_write(self):
        alice, bob, carol = self.alice, self.bob, self.carol
        cal = self.mkcalendar(alice, "family")
        self.assertEqual(self.put(alice, cal + "dinner.ics",
                                  event("dinner@nubo.test", "20260301T180000Z", "20260301T200000Z", "Dinner"))[0], 201)
        mount = "%s/calendars/bob/family_shared_by_alice/" % ROOT
        # Before: Bob's path to it answers like nothing at all.
        before = self.dav(bob, "PROPFIND", mount, b"", {"Depth": "0"})
        missing = self.dav(bob, "PROPFIND", "%s/calendars/bob/nothing_shared_by_alice/" % ROOT, b"", {"Depth": "0"})
        self.assertEqual((before[0], before[2]), (missing[0], missing[2]))
        self.assertEqual(before[0], 404)
        # Only the owner shares; a stranger's POST finds nothing.
        st, _, data = self.dav(bob, "POST", cal, share_body(("set", "principal:principals/users/bob", True)))
        self.assertEqual(st, 404, data)
        st, _, data = self.dav(alice, "POST", cal, share_body(("set", "principal:principals/users/bob", False)))
        self.assertEqual(st, 200, data)
        # The owner sees the sharee in oc:invite.
        own = self.home(alice)[cal][1]
        invite = own[OC + "invite"]
        users = invite.findall(OC + "user")
        self.assertEqual([u.find(D + "href").text for u in users], ["principal:principals/users/bob"])
        self.assertIsNotNone(users[0].find(OC + "access/" + OC + "read"))
        # Bob's home lists it, owned by Alice, read-only.
        props = self.home(bob)[mount][1]
        self.assertEqual(props[D + "owner"].find(D + "href").text, ROOT + "/principals/users/alice/")
        self.assertEqual(props[OC + "owner-principal"].text, "principals/users/alice")
        self.assertEqual(props[D + "displayname"].text, "family")
        self.assertEqual(self.privileges(props), ["read", "read-current-user-privilege-set", "read-free-busy"])
        # He reads what is in it, by GET, REPORT and sync.
        st, _, body = bob.raw("GET", mount + "dinner.ics")
        self.assertEqual(st, 200)
        self.assertIn(b"Dinner", body)
        st, _, body = self.dav(bob, "REPORT", mount, '<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">'
                               '<d:prop><d:getetag/></d:prop><C:filter><C:comp-filter name="VCALENDAR"/></C:filter>'
                               "</C:calendar-query>", {"Depth": "1"})
        self.assertEqual(st, 207, body)
        self.assertEqual(list(responses(body)), [mount + "dinner.ics"])
        st, _, body = self.dav(bob, "REPORT", mount, '<d:sync-collection xmlns:d="DAV:"><d:sync-token/>'
                               "<d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>",
                               {"Depth": "0"})
        self.assertEqual(st, 207, body)
        self.assertIn(mount.encode() + b"dinner.ics", body)
        # Read-only: no writes, no deletes, no property changes.
        lunch = event("lunch@nubo.test", "20260302T120000Z", "20260302T130000Z", "Lunch")
        self.assertEqual(self.put(bob, mount + "lunch.ics", lunch)[0], 403)
        self.assertEqual(bob.raw("DELETE", mount + "dinner.ics")[0], 403)
        pp = ('<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>Mine</d:displayname></d:prop>'
              "</d:set></d:propertyupdate>")
        st, _, body = self.dav(bob, "PROPPATCH", mount, pp)
        self.assertIn(st, (207, 403), body)
        self.assertNotIn(b"200 OK", body)
        self.assertEqual(self.home(alice)[cal][1][D + "displayname"].text, "family")
        # Read-write: objects yes, the collection's properties still no.
        st, _, data = self.dav(alice, "POST", cal, share_body(("set", "principal:principals/users/bob", True)))
        self.assertEqual(st, 200, data)
        self.assertIn("write-content", self.privileges(self.home(bob)[mount][1]))
        self.assertEqual(self.put(bob, mount + "lunch.ics", lunch)[0], 201)
        st, _, body = alice.raw("GET", cal + "lunch.ics")
        self.assertEqual(st, 200)
        self.assertIn(b"Lunch", body)
        self.assertEqual(bob.raw("DELETE", mount + "lunch.ics")[0], 204)
        self.assertEqual(alice.raw("GET", cal + "lunch.ics")[0], 404)
        st, _, body = self.dav(bob, "PROPPATCH", mount, pp)
        self.assertNotIn(b"200 OK", body)
        # Carol, a stranger, gets what a missing calendar answers, on every path.
        for path in (mount, cal, "%s/calendars/carol/family_shared_by_alice/" % ROOT):
            a = self.dav(carol, "PROPFIND", path, b"", {"Depth": "0"})
            b = self.dav(carol, "PROPFIND", path.replace("family", "nothing"), b"", {"Depth": "0"})
            self.assertEqual((a[0], a[2]), (b[0], b[2]), path)
            self.assertEqual(a[0], 404)
        self.assertEqual(carol.raw("GET", mount.replace("bob", "carol") + "dinner.ics")[0], 404)
        # Revoked: gone from Bob's home, his paths answer 404.
        st, _, data = self.dav(alice, "POST", cal, share_body(("remove", "principal:principals/users/bob")))
        self.assertEqual(st, 200, data)
        self.assertNotIn(mount, self.home(bob))
        self.assertEqual(bob.raw("GET", mount + "dinner.ics")[0], 404)
        self.assertEqual(alice.raw("GET", cal + "dinner.ics")[0], 200)

    def test_a_group_share_and_leaving_it(self):
        admin, alice, bob, dave = self.admin, self.alice, self.bob, self.dave
        team = admin.call("POST", "/groups", {"name": "Cal Team"})[2]
        for name in ("alice", "dave"):
            self.assertEqual(admin.call("POST", "/groups/%s/members" % team["id"], {"user": name})[0], 204)
        cal = self.mkcalendar(alice, "rota")
        self.assertEqual(self.put(alice, cal + "shift.ics",
                                  event("shift@nubo.test", "20260401T080000Z", "20260401T160000Z", "Shift"))[0], 201)
        # A group is named by its principal path too (percent-encoded).
        href = ROOT + "/principals/groups/Cal%20Team/"
        st, _, data = self.dav(alice, "POST", cal, share_body(("set", href, True)))
        self.assertEqual(st, 200, data)
        mount = "%s/calendars/dave/rota_shared_by_alice/" % ROOT
        self.assertIn(mount, self.home(dave))
        # oc:invite names the group as a principal URI, percent-encoded.
        invite = self.home(alice)[cal][1][OC + "invite"]
        self.assertEqual([u.find(D + "href").text for u in invite.findall(OC + "user")],
                         ["principal:principals/groups/Cal%20Team"])
        self.assertNotIn("%s/calendars/bob/rota_shared_by_alice/" % ROOT, self.home(bob))
        self.assertEqual(self.put(dave, mount + "swap.ics",
                                  event("swap@nubo.test", "20260402T080000Z", "20260402T160000Z", "Swap"))[0], 201)
        # Leaving a group's share is leaving the group: DELETE says so.
        st, _, body = dave.raw("DELETE", mount)
        self.assertEqual(st, 403, body)
        self.assertIn(b"group", body)
        self.assertEqual(alice.raw("GET", cal + "swap.ics")[0], 200)
        # Shared with Dave himself too: his DELETE leaves that, the owner's data stays.
        st, _, data = self.dav(alice, "POST", cal, share_body(("set", "principal:principals/users/dave", False)))
        self.assertEqual(st, 200, data)
        # Still also through the group: leaving would change nothing he sees, so it is refused whole.
        self.assertEqual(dave.raw("DELETE", mount)[0], 403)
        users = self.home(alice)[cal][1][OC + "invite"].findall(OC + "user")
        self.assertEqual(len(users), 2)
        st, _, data = self.dav(alice, "POST", cal, share_body(("remove", href)))
        self.assertEqual(st, 200, data)
        self.assertEqual(dave.raw("DELETE", mount)[0], 204)
        self.assertNotIn(mount, self.home(dave))
        self.assertEqual(alice.raw("GET", cal + "shift.ics")[0], 200)
        # Groups one is not in are not one's to share with; bad sharees are 400.
        other = admin.call("POST", "/groups", {"name": "Not Alices"})[2]
        self.assertTrue(other)
        for bad in ("principal:principals/groups/Not%20Alices", "principal:principals/users/nobody-here",
                    "mailto:someone@example.com", "principal:principals/users/alice"):
            st, _, body = self.dav(alice, "POST", cal, share_body(("set", bad, False)))
            self.assertEqual(st, 400, (bad, body))
        self.assertEqual(self.dav(alice, "POST", cal, b"<nonsense/>")[0], 400)
        # Ending a share names one of the sharees: another group, existing or
        # not, answers the same, so nothing tells which groups exist.
        gone = self.dav(alice, "POST", cal, share_body(("remove", "principal:principals/groups/Not%20Alices")))
        none = self.dav(alice, "POST", cal, share_body(("remove", "principal:principals/groups/No%20Such")))
        self.assertEqual((gone[0], gone[2]), (none[0], none[2]))
        self.assertEqual(gone[0], 400)
        # The sharee form of a name is not one an owner may take.
        st, _, _ = self.dav(alice, "MKCALENDAR", "%s/calendars/alice/x_shared_by_bob/" % ROOT, b"")
        self.assertGreaterEqual(st, 400)
        self.assertLess(st, 500)

    def test_an_address_book(self):
        alice, bob = self.alice, self.bob
        book = "%s/addressbooks/users/alice/contacts/" % ROOT
        self.assertEqual(self.put(alice, book + "ann.vcf", vcard("ann@nubo.test", "Ann Example"),
                                  "text/vcard; charset=utf-8")[0], 201)
        st, _, data = self.dav(alice, "POST", book, share_body(("set", "principal:principals/users/bob", False)))
        self.assertEqual(st, 200, data)
        mount = "%s/addressbooks/users/bob/contacts_shared_by_alice/" % ROOT
        self.assertIn(mount, self.home(bob, "addressbooks"))
        st, _, body = bob.raw("GET", mount + "ann.vcf")
        self.assertEqual(st, 200)
        self.assertIn(b"Ann Example", body)
        self.assertEqual(self.put(bob, mount + "x.vcf", vcard("x@nubo.test", "X"), "text/vcard; charset=utf-8")[0], 403)

    def test_python_caldav_sees_the_shared_calendar(self):
        alice = self.alice
        cal = self.mkcalendar(alice, "club")
        self.assertEqual(self.put(alice, cal + "match.ics",
                                  event("match@nubo.test", "20260501T150000Z", "20260501T170000Z", "Match"))[0], 201)
        st, _, data = self.dav(alice, "POST", cal, share_body(("set", "principal:principals/users/carol", False)))
        self.assertEqual(st, 200, data)
        client = caldav.DAVClient(url=self.srv.url("/.well-known/caldav"), username="carol",
                                  password="carol password 1")
        cals = {str(c.url).rstrip("/").rsplit("/", 1)[1]: c for c in client.principal().calendars()}
        self.assertIn("club_shared_by_alice", cals)
        events = cals["club_shared_by_alice"].events()
        self.assertEqual([e.vobject_instance.vevent.summary.value for e in events], ["Match"])


if __name__ == "__main__":
    unittest.main()
