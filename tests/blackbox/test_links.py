"""Public links: view, edit and file-drop links over REST and over public
WebDAV (/public.php/webdav, the token as user name), passwords (unlock
cookie scoped to one link, Basic, throttling), expiry, download limits,
revocation, and answers that do not tell "not yours" from "does not exist".
rclone lists, downloads and uploads through links. Ends with an fsck."""
import base64
import io
import json
import os
import re
import tempfile
import time
import unittest
import zipfile

from harness import Server, exchange
from test_dav import clean_env, require_tool, run, tail
from test_files import Client, fake_id, start_with_users, stop_and_fsck

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
P = "/api/v1/public/"


def basic(user, password=""):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def fake_token():
    return os.urandom(20).hex()


class LinksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, _, users = start_with_users(("alice", "bob"), FAST)
        cls.alice, cls.bob = users["alice"], users["bob"]
        cls.anon = Client(cls.srv, "nobody", "x")

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    # ---- helpers

    def pub(self, method, path, body=None, headers=None):
        """An anonymous request (no credentials at all)."""
        return self.anon.call(method, path, body, headers, auth=False)

    def link(self, node, expect=201, **spec):
        status, _, l = self.alice.call("POST", "/nodes/%s/links" % node, spec)
        self.assertEqual(status, expect, l)
        return l

    def tree(self, name):
        a = self.alice
        top = a.mkdir(a.root, name)["id"]
        f = a.put(top, "a.txt", b"bytes of a")
        sub = a.mkdir(top, "sub")["id"]
        g = a.put(sub, "b.txt", b"bytes of b")
        return top, f, sub, g

    def dav(self, method, path, body=None, headers=None):
        """A request on the public WebDAV tree (no account credentials)."""
        return exchange(self.srv, method, path, headers or {}, body or b"")

    def same(self, x, y, what):
        self.assertEqual((x[0], x[1].get("content-type"), x[2]), (y[0], y[1].get("content-type"), y[2]), what)

    # ---- tests

    def test_view_link(self):
        top, f, sub, g = self.tree("Pub")
        secret = self.alice.put(self.alice.root, "secret.txt", b"not shared")
        l = self.link(top, role="view", label="for the team")
        self.assertRegex(l["token"], "^[0-9a-f]{40}$")
        self.assertEqual(l["url"], "/s/" + l["token"])
        self.assertEqual((l["role"], l["has_password"], l["token_hint"]), ("view", False, l["token"][-4:]))
        t = l["token"]
        # The token is never shown again.
        listed = self.alice.call("GET", "/nodes/%s/links" % top)[2]["items"]
        self.assertEqual([x["id"] for x in listed], [l["id"]])
        self.assertNotIn(t, json.dumps(listed))
        info = self.pub("GET", P + t)
        self.assertEqual((info[0], info[2]["role"], info[2]["node_id"]), (200, "view", top))
        kids = self.pub("GET", P + t + "/nodes/%s/children" % top)[2]["items"]
        self.assertEqual(sorted(k["name"] for k in kids), ["a.txt", "sub"])
        self.assertEqual(self.anon.raw("GET", P + t + "/nodes/%s/content" % g["id"], auth=False)[2], b"bytes of b")
        node = self.pub("GET", P + t + "/nodes/%s" % g["id"])[2]
        self.assertEqual(node["etag"], g["etag"])
        self.assertEqual([p["name"] for p in node["path"]], ["Pub", "sub"])  # starts at the link
        status, hdrs, data = self.anon.raw("GET", P + t + "/nodes/%s/zip" % top, auth=False)
        self.assertEqual(status, 200)
        self.assertIn("Pub.zip", hdrs["content-disposition"])
        names = sorted(zipfile.ZipFile(io.BytesIO(data)).namelist())
        self.assertEqual([n for n in names if not n.endswith("/")], ["Pub/a.txt", "Pub/sub/b.txt"])
        # A view link changes nothing.
        self.assertEqual(self.pub("PUT", P + t + "/nodes/%s/files/new.txt" % top, b"x")[0], 403)
        self.assertEqual(self.pub("POST", P + t + "/nodes/%s/folders" % top, {"name": "x"})[0], 403)
        self.assertEqual(self.pub("DELETE", P + t + "/nodes/%s" % f["id"])[0], 403)
        self.assertEqual(self.pub("PATCH", P + t + "/nodes/%s" % f["id"], {"name": "y.txt"})[0], 403)
        # Outside the link: exactly like an id that does not exist.
        for nid in (secret["id"], self.alice.root):
            self.same(self.pub("GET", P + t + "/nodes/%s" % nid), self.pub("GET", P + t + "/nodes/%s" % fake_id()),
                      "outside the link")
        # Unknown, malformed, revoked and expired tokens answer alike.
        unknown = self.pub("GET", P + fake_token())
        self.assertEqual(unknown[0], 404)
        self.same(self.pub("GET", P + "not-a-token"), unknown, "malformed token")
        self.same(self.pub("GET", P + fake_token() + "/nodes/%s" % f["id"]),
                  self.pub("GET", P + fake_token() + "/nodes/%s" % fake_id()), "unknown token, real node")
        exp = self.link(top, role="view", expires_at=int(time.time() * 1000) + 1200)
        self.assertEqual(self.pub("GET", P + exp["token"])[0], 200)
        time.sleep(1.4)
        self.same(self.pub("GET", P + exp["token"]), unknown, "expired link")
        self.assertEqual(self.alice.call("DELETE", "/links/%s" % l["id"])[0], 204)
        self.same(self.pub("GET", P + t), unknown, "revoked link")
        self.same(self.pub("GET", P + t + "/nodes/%s/content" % f["id"]),
                  self.pub("GET", P + fake_token() + "/nodes/%s/content" % f["id"]), "revoked link, content")
        # A link's token is no account credential, and an account's
        # credentials open no link.
        l2 = self.link(top, role="view")
        self.assertEqual(self.anon.raw("GET", "/nodes/%s" % top, headers=basic(l2["token"]), auth=False)[0], 401)
        self.assertEqual(self.bob.call("GET", P + fake_token())[0], 404)

    def test_links_are_managed_like_shares(self):
        a, bob = self.alice, self.bob
        top, f, _, _ = self.tree("Managed links")
        l = self.link(top, role="view")
        # Bob: the node, its links and the link's id are all absent for him.
        for method, path, body in (("GET", "/nodes/%s/links", None), ("POST", "/nodes/%s/links", {"role": "view"})):
            x = bob.raw(method, path % top, body)
            y = bob.raw(method, path % fake_id(), body)
            self.same(x, y, "%s %s" % (method, path))
        for method, body in (("PATCH", {"label": "mine"}), ("DELETE", None)):
            self.same(bob.raw(method, "/links/%s" % l["id"], body), bob.raw(method, "/links/%s" % fake_id(), body),
                      "%s a link" % method)
        # A viewer grant does not allow making links; an editor's does
        # (with may_reshare), but not above what the editor holds.
        g = a.call("POST", "/nodes/%s/grants" % top, {"user": "bob", "role": "viewer"})[2]
        self.assertEqual(bob.call("POST", "/nodes/%s/links" % top, {"role": "view"})[0], 403)
        self.assertEqual(bob.call("GET", "/nodes/%s/links" % top)[0], 403)
        a.call("PATCH", "/grants/%s" % g["id"], {"role": "editor", "may_reshare": True})
        self.assertEqual(bob.call("POST", "/nodes/%s/links" % top, {"role": "edit"})[0], 201)
        self.assertEqual(bob.call("POST", "/nodes/%s/links" % f["id"], {"role": "drop"})[0], 400)  # a file
        a.call("DELETE", "/grants/%s" % g["id"])
        # Bad input is 400, never 500.
        for body in ({"role": "own"}, {"password": "short"}, {"expires_at": 5}, {"max_downloads": 0},
                     {"label": "x" * 300}, {"role": 1}):
            self.assertEqual(a.call("POST", "/nodes/%s/links" % top, body)[0], 400, body)
        self.assertEqual(a.call("POST", "/nodes/%s/links" % a.root, {"role": "view"})[0], 409)

    def test_password(self):
        top, f, _, _ = self.tree("Locked")
        l = self.link(top, role="view", password="open sesame")
        t = l["token"]
        self.assertTrue(l["has_password"])
        # Locked: 401 without a Basic challenge (a browser would pop a dialog).
        status, hdrs, body = self.pub("GET", P + t)
        self.assertEqual((status, body["message"]), (401, "password required"))
        self.assertNotIn("www-authenticate", hdrs)
        self.assertEqual(self.pub("POST", P + t + "/unlock", {"password": "wrong one"})[0], 401)
        status, hdrs, _ = self.pub("POST", P + t + "/unlock", {"password": "open sesame"})
        self.assertEqual(status, 204)
        cookie = hdrs["set-cookie"]
        self.assertIn("Path=/api/v1/public/%s" % t, cookie)
        self.assertIn("HttpOnly", cookie)
        value = re.match(r"nubo_link=([^;]+)", cookie).group(1)
        jar = {"Cookie": "nubo_link=" + value}
        self.assertEqual(self.pub("GET", P + t, headers=jar)[0], 200)
        self.assertEqual(self.anon.raw("GET", P + t + "/nodes/%s/content" % f["id"], headers=jar, auth=False)[2],
                         b"bytes of a")
        # The cookie opens this link only, and only until the password changes.
        other = self.link(top, role="view", password="open sesame")
        self.assertEqual(self.pub("GET", P + other["token"], headers=jar)[0], 401)
        forged = {"Cookie": "nubo_link=%d.%s" % (int(time.time()) + 3600, "0" * 64)}
        self.assertEqual(self.pub("GET", P + t, headers=forged)[0], 401)
        self.assertEqual(self.alice.call("PATCH", "/links/%s" % l["id"], {"password": "another secret"})[0], 200)
        self.assertEqual(self.pub("GET", P + t, headers=jar)[0], 401)
        # Removing the password opens the link to the token alone.
        self.assertEqual(self.alice.call("PATCH", "/links/%s" % l["id"], {"password": ""})[2]["has_password"], False)
        self.assertEqual(self.pub("GET", P + t)[0], 200)
        # Guessing is throttled per link and address.
        codes = [self.pub("POST", P + other["token"] + "/unlock", {"password": "guess %d" % i})[0] for i in range(12)]
        self.assertEqual(codes[0], 401)
        self.assertEqual(codes[-1], 429)
        self.assertEqual(self.pub("POST", P + other["token"] + "/unlock", {"password": "open sesame"})[0], 429)
        self.assertEqual(self.pub("POST", P + fake_token() + "/unlock", {"password": "x"})[0], 404)

    def test_download_limit(self):
        top, f, _, _ = self.tree("Limited")
        l = self.link(top, role="view", max_downloads=2)
        t = l["token"]
        get = lambda h=None: self.anon.raw("GET", P + t + "/nodes/%s/content" % f["id"], headers=h, auth=False)  # noqa
        self.assertEqual(self.anon.raw("HEAD", P + t + "/nodes/%s/content" % f["id"], auth=False)[0], 200)
        self.assertEqual(get({"Range": "bytes=2-4"})[0], 206)  # a later range: the same download
        self.assertEqual(get()[0], 200)
        self.assertEqual(self.pub("GET", P + t)[2]["downloads_left"], 1)
        self.assertEqual(self.anon.raw("GET", P + t + "/nodes/%s/zip" % top, auth=False)[0], 200)
        status, _, body = self.pub("GET", P + t + "/nodes/%s/content" % f["id"])
        self.assertEqual(status, 403)
        self.assertIn("download limit", body["message"])
        self.assertEqual(self.pub("GET", P + t)[2]["downloads_left"], 0)
        self.assertEqual(self.alice.call("GET", "/nodes/%s/links" % top)[2]["items"][0]["downloads"], 2)
        # Listing still works; raising the limit opens downloads again.
        self.assertEqual(self.pub("GET", P + t + "/nodes/%s/children" % top)[0], 200)
        self.alice.call("PATCH", "/links/%s" % l["id"], {"max_downloads": 0})
        self.assertEqual(get()[0], 200)

    def test_download_limit_counts_every_way_to_the_bytes(self):
        """Whatever delivers a file's first byte is a download: a suffix range
        as long as the file, a multi-range that includes byte 0, and a GET
        over public WebDAV each take one; a range past byte 0 and a HEAD do
        not. Before, all three of the first went through uncounted."""
        top, f, _, _ = self.tree("Limited ways")
        l = self.link(top, role="view", max_downloads=3)
        t = l["token"]
        url = P + t + "/nodes/%s/content" % f["id"]
        left = lambda: self.pub("GET", P + t)[2]["downloads_left"]  # noqa
        status, _, body = self.anon.raw("GET", url, headers={"Range": "bytes=-1000"}, auth=False)
        self.assertEqual((status, body), (206, b"bytes of a"))
        self.assertEqual(left(), 2)
        status, hdrs, body = self.anon.raw("GET", url, headers={"Range": "bytes=1-,0-0"}, auth=False)
        self.assertEqual(status, 206)
        self.assertIn("multipart/byteranges", hdrs["content-type"])
        self.assertEqual(left(), 1)
        self.assertEqual(self.anon.raw("GET", url, headers={"Range": "bytes=3-"}, auth=False)[0], 206)
        self.assertEqual(self.dav("HEAD", "/public.php/webdav/a.txt", headers=basic(t))[0], 200)
        self.assertEqual(left(), 1)
        self.assertEqual(self.dav("GET", "/public.php/webdav/a.txt", headers=basic(t))[2], b"bytes of a")
        self.assertEqual(left(), 0)
        status, _, body = self.dav("GET", "/public.php/webdav/sub/b.txt", headers=basic(t))
        self.assertEqual(status, 403, body)
        self.assertIn(b"download limit", body)
        self.assertEqual(self.anon.raw("GET", url, headers={"Range": "bytes=-1000"}, auth=False)[0], 403)
        # Past byte 0 stays open (a player seeking in what it began).
        self.assertEqual(self.anon.raw("GET", url, headers={"Range": "bytes=2-4"}, auth=False)[2], b"tes")
        # A conditional GET that answers 304 delivers nothing and takes nothing.
        self.alice.call("PATCH", "/links/%s" % l["id"], {"max_downloads": 5})
        etag = self.anon.raw("HEAD", url, auth=False)[1]["etag"]
        self.assertEqual(self.anon.raw("GET", url, headers={"If-None-Match": etag}, auth=False)[0], 304)
        self.assertEqual(left(), 2)

    def test_file_drop(self):
        a = self.alice
        box = a.mkdir(a.root, "Inbox")["id"]
        existing = a.put(box, "report.pdf", b"alice's own report")
        l = self.link(box, role="drop")
        t = l["token"]
        self.assertEqual(self.pub("GET", P + t)[2]["role"], "drop")
        # Uploads land, never over an existing file, and show nothing back.
        status, _, n = self.pub("PUT", P + t + "/nodes/%s/files/report.pdf" % box, b"dropped report")
        self.assertEqual((status, n["name"]), (201, "report (1).pdf"))
        status, _, n2 = self.pub("PUT", P + t + "/nodes/%s/files/report.pdf?conflict=overwrite" % box, b"again")
        self.assertEqual((status, n2["name"]), (201, "report (2).pdf"))
        self.assertEqual(a.read(existing["id"]), b"alice's own report")
        self.assertEqual(a.read(n["id"]), b"dropped report")
        # No listing, no reading, not even of what one dropped.
        # (The drop's own folder is known to the dropper: listing it is 403.)
        self.assertEqual(self.pub("GET", P + t + "/nodes/%s/children" % box)[0], 403)
        self.same(self.pub("GET", P + t + "/nodes/%s/content" % n["id"]),
                  self.pub("GET", P + t + "/nodes/%s/content" % fake_id()), "reading a drop")
        self.assertEqual(self.pub("GET", P + t + "/nodes/%s/zip" % box)[0], 403)
        self.assertEqual(self.pub("POST", P + t + "/nodes/%s/folders" % box, {"name": "x"})[0], 403)
        # The multipart form the public page uses.
        b = "dropboundary42"
        body = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.jpg\"\r\n"
                "Content-Type: image/jpeg\r\n\r\n" % b).encode() + b"\xff\xd8jpeg" + ("\r\n--%s--\r\n" % b).encode()
        status, _, res = self.pub("POST", P + t + "/nodes/%s/upload" % box, body,
                                  {"Content-Type": "multipart/form-data; boundary=" + b})
        self.assertEqual((status, res["items"][0]["status"]), (200, 201), res)
        self.assertEqual(sorted(x["name"] for x in a.list_all(box)),
                         ["photo.jpg", "report (1).pdf", "report (2).pdf", "report.pdf"])
        # Uploads count against the owner's quota.
        before = a.usage()["used_bytes"]
        self.pub("PUT", P + t + "/nodes/%s/files/more.bin" % box, b"12345")
        self.assertEqual(a.usage()["used_bytes"], before + 5)

    def test_edit_link(self):
        a = self.alice
        top, f, sub, g = self.tree("Editable")
        t = self.link(top, role="edit")["token"]
        status, _, n = self.pub("PUT", P + t + "/nodes/%s/files/new.txt" % sub, b"from the link")
        self.assertEqual(status, 201)
        self.assertEqual(a.read(n["id"]), b"from the link")
        self.assertEqual(self.pub("POST", P + t + "/nodes/%s/folders" % top, {"name": "made"})[0], 201)
        self.assertEqual(self.pub("PATCH", P + t + "/nodes/%s" % f["id"], {"name": "renamed.txt"})[0], 200)
        self.assertEqual(self.pub("DELETE", P + t + "/nodes/%s" % g["id"])[0], 204)
        self.assertIn(g["id"], [x["id"] for x in a.trash()])  # the owner's trash
        # The link's own folder stays: no delete, no rename.
        self.assertEqual(self.pub("DELETE", P + t + "/nodes/%s" % top)[0], 403)
        self.assertEqual(self.pub("PATCH", P + t + "/nodes/%s" % top, {"name": "gone"})[0], 403)
        # Moving a file out of the link's folder ends the link's reach.
        self.assertEqual(a.call("PATCH", "/nodes/%s" % n["id"], {"parent_id": a.root})[0], 200)
        self.same(self.pub("GET", P + t + "/nodes/%s" % n["id"]), self.pub("GET", P + t + "/nodes/%s" % fake_id()),
                  "moved out")
        # Trashing the linked folder closes the link.
        a.delete(top)
        self.assertEqual(self.pub("GET", P + t)[0], 404)

    def test_public_webdav(self):
        a = self.alice
        top, f, sub, g = self.tree("Dav link")
        view = self.link(top, role="view")["token"]
        edit = self.link(top, role="edit", password="dav secret 1")["token"]
        drop = self.link(top, role="drop")["token"]
        dav = "/public.php/webdav/"
        pf = {"Depth": "1", "Content-Type": "application/xml"}
        status, _, body = self.dav("PROPFIND", dav, headers=dict(pf, **basic(view)))
        self.assertEqual(status, 207, body)
        hrefs = sorted(re.findall(rb"<d:href>([^<]+)</d:href>", body))
        self.assertEqual(hrefs, [b"/public.php/webdav/", b"/public.php/webdav/a.txt", b"/public.php/webdav/sub/"])
        self.assertEqual(self.dav("GET", dav + "sub/b.txt", headers=basic(view))[2], b"bytes of b")
        self.assertEqual(self.dav("PUT", dav + "x.txt", b"x", basic(view))[0], 403)
        # Password links: the password in Basic; a wrong one is challenged.
        status, hdrs, _ = self.dav("PROPFIND", dav, headers=dict(pf, **basic(edit, "nope")))
        self.assertEqual(status, 401)
        self.assertIn("Basic", hdrs["www-authenticate"])
        ok = basic(edit, "dav secret 1")
        self.assertEqual(self.dav("PUT", dav + "sub/dav.txt", b"over dav", ok)[0], 201)
        self.assertEqual(self.dav("MKCOL", dav + "col", headers=ok)[0], 201)
        mv = dict(ok, Destination="/public.php/webdav/col/moved.txt")
        self.assertEqual(self.dav("MOVE", dav + "sub/dav.txt", headers=mv)[0], 201)
        names = sorted(x["name"] for x in a.list_all(top))
        self.assertEqual(names, ["a.txt", "col", "sub"])
        # Another tree is another server; links cannot lock.
        out = dict(ok, Destination="/dav/stolen.txt")
        self.assertEqual(self.dav("COPY", dav + "a.txt", headers=out)[0], 502)
        lock = (b'<?xml version="1.0"?><d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope>'
                b'<d:locktype><d:write/></d:locktype></d:lockinfo>')
        self.assertEqual(self.dav("LOCK", dav + "a.txt", lock, dict(ok, **{"Content-Type": "application/xml"}))[0], 403)
        self.assertEqual(self.dav("DELETE", dav, headers=ok)[0], 403)
        # A drop over WebDAV: uploads only, under a free name.
        self.assertEqual(self.dav("PUT", dav + "a.txt", b"dropped", basic(drop))[0], 201)
        self.assertEqual(a.read(f["id"]), b"bytes of a")
        self.assertIn("a (1).txt", [x["name"] for x in a.list_all(top)])
        self.assertEqual(self.dav("PROPFIND", dav, headers=dict(pf, **basic(drop)))[0], 403)
        self.assertEqual(self.dav("GET", dav + "a.txt", headers=basic(drop))[0], 404)
        # No token, an unknown one.
        self.assertEqual(self.dav("PROPFIND", dav, headers=pf)[0], 401)
        self.assertEqual(self.dav("PROPFIND", dav, headers=dict(pf, **basic(fake_token())))[0], 404)


# Every route a public link's bearer may use, with a request for it ({t}:
# the token, {id}: a node). A link route missing here fails the test.
LINK_ROUTES = {
    ("GET", "/api/v1/public/{token}"): ("GET", P + "{t}", None),
    ("GET", "/api/v1/public/{token}/nodes/{id}"): ("GET", P + "{t}/nodes/{id}", None),
    ("PATCH", "/api/v1/public/{token}/nodes/{id}"): ("PATCH", P + "{t}/nodes/{id}", {"name": "x.txt"}),
    ("DELETE", "/api/v1/public/{token}/nodes/{id}"): ("DELETE", P + "{t}/nodes/{id}", None),
    ("GET", "/api/v1/public/{token}/nodes/{id}/children"): ("GET", P + "{t}/nodes/{id}/children", None),
    ("GET", "/api/v1/public/{token}/nodes/{id}/content"): ("GET", P + "{t}/nodes/{id}/content", None),
    ("GET", "/api/v1/public/{token}/nodes/{id}/thumbnail"): ("GET", P + "{t}/nodes/{id}/thumbnail", None),
    ("GET", "/api/v1/public/{token}/nodes/{id}/zip"): ("GET", P + "{t}/nodes/{id}/zip", None),
    ("POST", "/api/v1/public/{token}/nodes/{id}/folders"): ("POST", P + "{t}/nodes/{id}/folders", {"name": "d"}),
    ("PUT", "/api/v1/public/{token}/nodes/{id}/files/{name}"): ("PUT", P + "{t}/nodes/{id}/files/f.txt", b"x"),
    ("POST", "/api/v1/public/{token}/nodes/{id}/upload"): ("POST", P + "{t}/nodes/{id}/upload", b""),
}
DAV_METHODS = ("OPTIONS", "PROPFIND", "PROPPATCH", "MKCOL", "GET", "PUT", "PATCH", "DELETE", "COPY", "MOVE", "LOCK",
               "UNLOCK", "REPORT")


class LinkRoutesTest(unittest.TestCase):
    """Every link route (the server's own table) opens nothing without a
    live link: an unknown token is 404 on REST and WebDAV, no token at all
    is a 401 challenge on WebDAV, and an account's own credentials are no
    link. With a view link on Alice's folder, a node outside it answers
    like a node that does not exist."""

    def test_every_link_route(self):
        srv = Server(env=FAST)
        try:
            alice = Client(srv, "alice", "alice password 1")
            alice.call("POST", "/api/v1/setup", {"username": "alice", "password": "alice password 1"}, auth=False)
            top = alice.mkdir(alice.root, "linked")["id"]
            inside = alice.put(top, "in.txt", b"inside")["id"]
            outside = alice.put(alice.root, "out.txt", b"outside")["id"]
            token = alice.call("POST", "/nodes/%s/links" % top, {"role": "edit"})[2]["token"]
            routes = json.loads(exchange(srv, "GET", "/_test/routes")[2])["routes"]
            link_routes = {(r["method"], r["pattern"]) for r in routes if r["access"] == "link"}
            dav = {(m, "/public.php/webdav/{path...}") for m in DAV_METHODS}
            self.assertEqual(sorted(link_routes - dav - set(LINK_ROUTES)), [], "link routes without a row here")
            self.assertEqual(sorted(set(LINK_ROUTES) - link_routes), [], "rows for routes that are gone")
            self.assertEqual(sorted(dav - link_routes), [])

            def send(method, path, body, headers=None):
                h = dict(headers or {})
                if isinstance(body, dict):
                    body = json.dumps(body).encode()
                    h["Content-Type"] = "application/json"
                return exchange(srv, method, path, h, body or b"")

            def norm(r, *values):
                body = r[2]
                for v in values:
                    body = body.replace(v.encode(), b"<id>")
                return r[0], r[1].get("content-type"), body

            for key, (method, path, body) in sorted(LINK_ROUTES.items()):
                with self.subTest(route="%s %s" % key):
                    unknown = send(method, path.format(t=fake_token(), id=inside), body)
                    self.assertEqual(unknown[0], 404, unknown)
                    # Alice's own session is no link.
                    mine = send(method, path.format(t=fake_token(), id=inside), body, {
                        "Authorization": alice.auth})
                    self.assertEqual(mine[0], 404)
                    if "{id}" in path:
                        out = send(method, path.format(t=token, id=outside), body)
                        nowhere_id = fake_id()
                        nowhere = send(method, path.format(t=token, id=nowhere_id), body)
                        self.assertEqual(norm(out, outside), norm(nowhere, nowhere_id),
                                         "%s %s: a node outside the link" % key)
            for method in DAV_METHODS:
                with self.subTest(route=method + " /public.php/webdav/"):
                    anon = send(method, "/public.php/webdav/in.txt", None)
                    self.assertEqual(anon[0], 401)
                    self.assertIn("Basic", anon[1].get("www-authenticate", ""))
                    self.assertEqual(send(method, "/public.php/webdav/in.txt", None, basic(fake_token()))[0], 404)
                    self.assertEqual(send(method, "/public.php/webdav/in.txt", None,
                                          {"Authorization": alice.auth})[0], 404)
        finally:
            srv.terminate()
            srv.close()


class RcloneLinkTest(unittest.TestCase):
    """rclone as a link's user: lists and copies a view link, uploads
    through an edit link (public WebDAV, token as user name)."""

    def test_rclone(self):
        require_tool("rclone")
        srv = Server(env=FAST)
        tmp = tempfile.TemporaryDirectory(prefix="nubo-rclone-link-")
        try:
            alice = Client(srv, "alice", "alice password 1")
            alice.call("POST", "/api/v1/setup", {"username": "alice", "password": "alice password 1"}, auth=False)
            top = alice.mkdir(alice.root, "Shared out")["id"]
            files = {"one.txt": b"one\n", "two.bin": os.urandom(300 * 1024), "deep/three.txt": b"three\n"}
            deep = alice.mkdir(top, "deep")["id"]
            for rel, data in files.items():
                alice.put(deep if rel.startswith("deep/") else top, rel.split("/")[-1], data)
            view = alice.call("POST", "/nodes/%s/links" % top, {"role": "view"})[2]["token"]
            edit = alice.call("POST", "/nodes/%s/links" % top, {"role": "edit", "password": "rclone pw 1"})[2]["token"]
            env = clean_env(RCLONE_CONFIG=os.path.join(tmp.name, "rclone.conf"), HOME=tmp.name)
            obscured = run(["rclone", "obscure", "rclone pw 1"], timeout=60, env=env, text=True).stdout.strip()
            url = "http://127.0.0.1:%d/public.php/webdav" % srv.port
            view_remote = ":webdav,url='%s',vendor=other,user=%s:" % (url, view)
            edit_remote = ":webdav,url='%s',vendor=other,user=%s,pass=%s:" % (url, edit, obscured)

            def rclone(*args):
                p = run(["rclone", *args, "--retries", "1", "--low-level-retries", "1"], timeout=300, env=env,
                        text=True, errors="replace")
                self.assertEqual(p.returncode, 0, "rclone %s:\n%s\n---- server ----\n%s" % (
                    " ".join(args), tail(p.stdout + p.stderr, 40), tail(srv.log(), 30)))
                return p.stdout

            listed = sorted(rclone("lsf", "-R", "--files-only", view_remote).split())
            self.assertEqual(listed, sorted(files))
            out = os.path.join(tmp.name, "out")
            rclone("copy", view_remote, out)
            for rel, data in files.items():
                with open(os.path.join(out, rel), "rb") as fh:
                    self.assertEqual(fh.read(), data, rel)
            src = os.path.join(tmp.name, "up")
            os.makedirs(src)
            with open(os.path.join(src, "from-rclone.txt"), "wb") as fh:
                fh.write(b"uploaded by rclone through a link\n")
            rclone("copy", src, edit_remote + "incoming")
            inc = [n for n in alice.list_all(top) if n["name"] == "incoming"]
            self.assertEqual(len(inc), 1)
            got = alice.list_all(inc[0]["id"])
            self.assertEqual([n["name"] for n in got], ["from-rclone.txt"])
            self.assertEqual(alice.read(got[0]["id"]), b"uploaded by rclone through a link\n")
            # The view link cannot write, whatever rclone tries.
            p = run(["rclone", "copy", src, view_remote + "nope", "--retries", "1", "--low-level-retries", "1"],
                    timeout=300, env=env, text=True)
            self.assertNotEqual(p.returncode, 0)
            self.assertNotIn("nope", [n["name"] for n in alice.list_all(top)])
        finally:
            srv.terminate()
            srv.close()
            tmp.cleanup()


if __name__ == "__main__":
    unittest.main()
