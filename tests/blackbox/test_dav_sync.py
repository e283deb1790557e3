"""RFC 6578 sync-collection on the files tree (/dav/), against the real
binary: the initial sync lists a folder's members, a later one exactly what
changed (modified, created, renamed, moved in or out, trashed, deleted,
restored) and nothing else, DAV:limit pages with 507 and resumable tokens,
tokens survive a restart, stale or foreign tokens answer valid-sync-token,
sync-level infinite hands changed subfolders back (sync-traversal-supported),
and another user's folder stays as unknown as one that does not exist."""
import re
import unittest
import xml.etree.ElementTree as ET

from test_dav import ADMIN, FAST, Dav, dav_path, href_path, start_server
from test_files import Client, add_user

D = "{DAV:}"
XML = {"Content-Type": "application/xml; charset=utf-8"}


def sync_body(token="", level="1", limit=None, props=("getetag",)):
    lim = "<d:limit><d:nresults>%d</d:nresults></d:limit>" % limit if limit else ""
    return ('<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:">'
            "<d:sync-token>%s</d:sync-token><d:sync-level>%s</d:sync-level>%s<d:prop>%s</d:prop>"
            "</d:sync-collection>" % (token, level, lim, "".join("<d:%s/>" % p for p in props))).encode()


class DavSyncTest(unittest.TestCase):
    A = ("alice", "alice-password-1")
    B = ("bob", "bob-password-123")

    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin = start_server()
        add_user(cls.admin, *cls.A)
        add_user(cls.admin, *cls.B)
        cls.a = Dav(cls.srv, *cls.A)
        cls.b = Dav(cls.srv, *cls.B)
        cls.rest = Client(cls.srv, *cls.A)

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def sync(self, path, token="", who=None, expect=207, **kw):
        """(responses {name: (status, etag)}, token, raw body) of a sync."""
        status, _, body = (who or self.a).raw("REPORT", path, sync_body(token, **kw), dict(XML, Depth="0"))
        self.assertEqual(status, expect, body[:1500])
        if status != 207:
            return None, None, body
        root = ET.fromstring(body)
        out = {}
        base = href_path(path)
        for r in root.findall(D + "response"):
            href = r.findtext(D + "href")
            name = href_path(href)[len(base) + 1:] if href_path(href) != base else "."
            if href.endswith("/") and name != ".":
                name += "/"
            code = r.findtext(D + "status")
            if code is None:
                ps = r.find(D + "propstat")
                code = ps.findtext(D + "status")
                etag = ps.find(D + "prop").findtext(D + "getetag")
            else:
                etag = None
                err = r.find(D + "error")
                if err is not None:
                    code += " " + "".join(e.tag for e in err)
            self.assertNotIn(name, out, "one response per member")
            out[name] = (int(code.split()[1]), etag, code)
        return out, root.findtext(D + "sync-token"), body

    def test_changes_since_a_token(self):
        a, top = self.a, dav_path("sync-basic", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        for name in ("a.txt", "b.txt", "tmp0.txt"):
            self.assertEqual(a.put(top + name, name.encode())[0], 201)
        self.assertEqual(a.mkcol(top + "sub")[0], 201)
        self.assertEqual(a.mkcol(top + "old")[0], 201)
        self.assertEqual(a.put(top + "old/inner.txt", b"inner")[0], 201)
        # The folder says it supports the report and gives its token.
        st, _, body = a.propfind(top, "0", ["sync-token", "supported-report-set"])
        self.assertEqual(st, 207)
        self.assertIn(b"<d:sync-collection/>", body)
        prop_token = re.search(rb"<d:sync-token>([^<]+)</d:sync-token>", body).group(1).decode()
        # Initial sync: the members, no removals, the same token.
        first, t1, _ = self.sync(top)
        self.assertEqual(sorted(first), ["a.txt", "b.txt", "old/", "sub/", "tmp0.txt"])
        self.assertTrue(all(c == 200 for c, _, _ in first.values()))
        self.assertEqual(t1, prop_token)
        self.assertRegex(t1, r"^http://nubo\.dev/ns/sync/files/[^/]+/\d+-[0-9a-f]{64}$")
        # Nothing changed: nothing reported, the same token.
        same, t_same, _ = self.sync(top, t1)
        self.assertEqual((same, t_same), ({}, t1))
        # Changes of every kind.
        self.assertEqual(a.put(top + "a.txt", b"a, edited")[0], 204)
        self.assertEqual(a.raw("DELETE", top + "b.txt")[0], 204)
        mv = {"Destination": top + "sub2", "Overwrite": "F"}
        self.assertEqual(a.raw("MOVE", top + "sub", headers=mv)[0], 201)
        self.assertEqual(a.put(top + "c.txt", b"c")[0], 201)
        self.assertEqual(a.put(top + "old/inner.txt", b"inner, edited")[0], 204)  # old/ changes below
        self.assertEqual(a.put(top + "tmp.txt", b"gone soon")[0], 201)
        self.assertEqual(a.raw("DELETE", top + "tmp.txt")[0], 204)
        elsewhere = dav_path("sync-elsewhere", collection=True)
        self.assertEqual(a.mkcol(elsewhere)[0], 201)
        self.assertEqual(a.raw("MOVE", top + "tmp0.txt", headers={"Destination": elsewhere + "tmp0.txt"})[0], 201)
        self.assertEqual(a.put(elsewhere + "in.txt", b"moves in")[0], 201)
        self.assertEqual(a.raw("MOVE", elsewhere + "in.txt", headers={"Destination": top + "in.txt"})[0], 201)
        changes, t2, _ = self.sync(top, t1)
        codes = {k: v[0] for k, v in changes.items()}
        self.assertEqual(codes, {"a.txt": 200, "b.txt": 404, "sub/": 404, "sub2/": 200, "c.txt": 200,
                                 "old/": 200, "tmp.txt": 404, "tmp0.txt": 404, "in.txt": 200})
        # What it reports is what a listing says now.
        listing = a.listing(top, "1", ["getetag"])
        for name in ("a.txt", "c.txt", "old/", "sub2/", "in.txt"):
            self.assertEqual(changes[name][1], listing[href_path(top + name)][D + "getetag"][1].text, name)
        self.assertNotEqual(changes["a.txt"][1], first["a.txt"][1])
        self.assertNotEqual(t2, t1)
        self.assertEqual(self.sync(top, t2)[0], {})
        # The old token still answers the same (tokens are positions).
        self.assertEqual({k: v[0] for k, v in self.sync(top, t1)[0].items()}, codes)
        # A restore from the trash brings the name back as a member.
        trashed = [n for n in self.rest.call("GET", "/trash?limit=500")[2]["items"] if n["name"] == "b.txt"]
        self.assertEqual(self.rest.call("POST", "/nodes/%s/restore" % trashed[0]["id"])[0], 200)
        restored, t3, _ = self.sync(top, t2)
        self.assertEqual({k: v[0] for k, v in restored.items()}, {"b.txt": 200})
        # A name taken again is a member, not a removal.
        self.assertEqual(a.raw("DELETE", top + "c.txt")[0], 204)
        self.assertEqual(a.put(top + "c.txt", b"c again")[0], 201)
        again, _, _ = self.sync(top, t3)
        self.assertEqual({k: v[0] for k, v in again.items()}, {"c.txt": 200})

    def test_a_file_replaced_by_a_folder_is_both_a_removal_and_a_member(self):
        a, top = self.a, dav_path("sync-kind", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        self.assertEqual(a.put(top + "x", b"a file")[0], 201)
        _, t0, _ = self.sync(top)
        self.assertEqual(a.raw("DELETE", top + "x")[0], 204)
        self.assertEqual(a.mkcol(top + "x")[0], 201)
        got, _, _ = self.sync(top, t0)
        self.assertEqual({k: v[0] for k, v in got.items()}, {"x": 404, "x/": 200})

    def test_limit_pages_with_507_and_resumes(self):
        a, top = self.a, dav_path("sync-pages", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        _, t0, _ = self.sync(top)
        names = ["f%02d.txt" % i for i in range(7)]
        for n in names:
            self.assertEqual(a.put(top + n, n.encode())[0], 201)
        self.assertEqual(a.raw("DELETE", top + "f03.txt")[0], 204)
        seen, token, pages = {}, t0, 0
        while True:
            got, token, body = self.sync(top, token, limit=3)
            pages += 1
            truncated = "." in got
            if truncated:
                self.assertEqual(got.pop(".")[0], 507)
                self.assertIn(b"number-of-matches-within-limits", body)
            self.assertLessEqual(len(got), 3)
            for k, v in got.items():
                seen[k] = v[0]
            if not truncated:
                break
            self.assertLess(pages, 10)
        self.assertGreaterEqual(pages, 3)
        # Created then removed: the removal is the newest word on f03.
        self.assertEqual(seen, dict({n: 200 for n in names}, **{"f03.txt": 404}))
        self.assertEqual(self.sync(top, token)[0], {})
        # Bad limits are refused, not ignored.
        st, _, _ = a.raw("REPORT", top, sync_body(t0).replace(b"<d:prop>", b"<d:limit><d:nresults>0</d:nresults>"
                                                                         b"</d:limit><d:prop>"), dict(XML, Depth="0"))
        self.assertEqual(st, 400)

    def test_infinite_hands_back_changed_subfolders(self):
        a, top = self.a, dav_path("sync-deep", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        self.assertEqual(a.mkcol(top + "quiet")[0], 201)
        self.assertEqual(a.mkcol(top + "busy")[0], 201)
        _, t0, _ = self.sync(top, level="infinite")
        self.assertEqual(a.put(top + "busy/x.txt", b"x")[0], 201)
        self.assertEqual(a.put(top + "y.txt", b"y")[0], 201)
        got, _, body = self.sync(top, t0, level="infinite")
        self.assertEqual({k: v[0] for k, v in got.items()}, {"busy/": 403, "y.txt": 200})
        self.assertIn("sync-traversal-supported", got["busy/"][2])
        # Its own sync says what changed inside.
        inner, _, _ = self.sync(top + "busy/")
        self.assertEqual(list(inner), ["x.txt"])

    def test_tokens_survive_a_restart(self):
        a, top = self.a, dav_path("sync-restart", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        self.assertEqual(a.put(top + "one.txt", b"1")[0], 201)
        _, token, _ = self.sync(top)
        self.srv.restart()
        self.assertEqual(a.put(top + "two.txt", b"2")[0], 201)
        got, _, _ = self.sync(top, token)
        self.assertEqual(list(got), ["two.txt"])

    def test_bad_tokens_and_requests(self):
        a, top = self.a, dav_path("sync-bad", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        self.assertEqual(a.mkcol(top + "other")[0], 201)
        self.assertEqual(a.put(top + "f.txt", b"f")[0], 201)
        _, token, _ = self.sync(top)
        _, other, _ = self.sync(top + "other/")
        body, mac = token.rsplit("-", 1)
        seq = int(body.rsplit("/", 1)[1])
        future = body.rsplit("/", 1)[0] + "/%d-%s" % (seq + 1000, mac)  # the signature no longer fits
        for bad in ("garbage", other, future, token + "x", body, "http://nubo.dev/ns/sync/files/"):
            _, _, body = self.sync(top, bad, expect=403)
            self.assertIn(b"valid-sync-token", body, bad)
        # Depth other than 0, an unknown level, no prop, a file: refused.
        body = sync_body()
        self.assertEqual(a.raw("REPORT", top, body, dict(XML, Depth="1"))[0], 400)
        self.assertEqual(a.raw("REPORT", top, sync_body(level="2"), dict(XML, Depth="0"))[0], 400)
        self.assertEqual(a.raw("REPORT", top, body.replace(b"<d:prop><d:getetag/></d:prop>", b""), XML)[0], 400)
        st, _, out = a.raw("REPORT", top + "f.txt", body, XML)
        self.assertEqual(st, 403)
        self.assertIn(b"supported-report", out)

    def test_another_users_folder_is_unknown(self):
        a, b = self.a, self.b
        top = dav_path("sync-private", collection=True)
        self.assertEqual(a.mkcol(top)[0], 201)
        self.assertEqual(a.put(top + "secret.txt", b"s")[0], 201)
        node = [n for n in self.rest.list_all(self.rest.root) if n["name"] == "sync-private"][0]
        theirs = b.raw("REPORT", "/dav-shares/%s/" % node["id"], sync_body(), dict(XML, Depth="0"))
        unknown = b.raw("REPORT", "/dav-shares/%s/" % ("0" + node["id"][1:]), sync_body(), dict(XML, Depth="0"))
        self.assertEqual(theirs[0], 404)
        self.assertEqual((theirs[0], theirs[2]), (unknown[0], unknown[2]))
        # Bob's /dav/ is his own tree: the same path names his (absent) folder.
        self.assertEqual(b.raw("REPORT", top, sync_body(), dict(XML, Depth="0"))[0], 404)
        # Shared with him, the folder syncs for him with tokens of his own:
        # Alice's token (which could reach back before his access) is not his.
        self.assertEqual(self.rest.call("POST", "/nodes/%s/grants" % node["id"],
                                        {"user": "bob", "role": "viewer"})[0], 201)
        _, alices, _ = self.sync(top)
        shared = "/dav-shares/%s/" % node["id"]
        first, his, _ = self.sync(shared, who=b)
        self.assertEqual(list(first), ["secret.txt"])
        self.assertNotEqual(his, alices)
        _, _, body = self.sync(shared, alices, who=b, expect=403)
        self.assertIn(b"valid-sync-token", body)
        self.assertEqual(self.sync(shared, his, who=b)[0], {})


if __name__ == "__main__":
    unittest.main()
