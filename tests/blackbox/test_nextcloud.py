"""The Nextcloud client API (docs/nextcloud.md) at the protocol level:
discovery and OCS, the oc:/nc: properties of the files tree, chunked
upload v2, Login Flow v2, app-password conversion and logout, the trash
bin tree. The real clients (nextcloudcmd, owncloudcmd) are driven in
test_nextcloud_client.py."""
import base64
import hashlib
import json
import os
import re
import signal
import socket
import time
import unittest
import urllib.parse
import xml.etree.ElementTree as ET

from harness import request
from test_files import Client, start_with_users, stop_and_fsck  # noqa: F401

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
D = "{DAV:}"
OC = "{http://owncloud.org/ns}"
NC = "{http://nextcloud.org/ns}"
NC_PROPS = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" '
            b'xmlns:nc="http://nextcloud.org/ns"><d:prop><d:getetag/><d:resourcetype/><d:getlastmodified/>'
            b'<d:getcontentlength/><oc:fileid/><oc:id/><oc:permissions/><oc:size/><oc:favorite/>'
            b'<oc:owner-id/><oc:owner-display-name/><oc:share-types/><oc:data-fingerprint/>'
            b'<nc:has-preview/><nc:mount-type/><nc:is-encrypted/><oc:checksums/></d:prop></d:propfind>')


def nc_users(names):
    """start_with_users, with clients that send paths as given (the
    Nextcloud API lives outside /api/v1)."""
    srv, admin, users = start_with_users(names, env=FAST)
    for c in [admin, *users.values()]:
        c.api_prefix = False
    return srv, admin, users


def files_url(user, path=""):
    return "/remote.php/dav/files/%s/%s" % (user, urllib.parse.quote(path))


def props_by_href(body):
    """{href (unquoted): {tag: element}} of a multistatus' 200 propstats."""
    out = {}
    for r in ET.fromstring(body).findall(D + "response"):
        href = urllib.parse.unquote(r.find(D + "href").text)
        props = {}
        for ps in r.findall(D + "propstat"):
            if "200" in ps.find(D + "status").text:
                for p in ps.find(D + "prop"):
                    props[p.tag] = p
        out[href] = props
    return out


def propfind(c, path, depth="1", body=NC_PROPS):
    status, hdrs, data = c.raw("PROPFIND", path, body, {"Depth": depth, "Content-Type": "application/xml"})
    assert status == 207, (status, data)
    return props_by_href(data)


class AliceAndBob(unittest.TestCase):
    """One server per test class, with the accounts alice and bob (the
    Nextcloud paths as given)."""

    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = nc_users(["alice", "bob"])
        cls.alice, cls.bob = users["alice"], users["bob"]

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)


class DiscoveryTest(AliceAndBob):
    def test_status_php(self):
        status, hdrs, body = self.alice.raw("GET", "/status.php", auth=False)
        self.assertEqual(status, 200)
        s = json.loads(body)
        self.assertIs(s["installed"], True)
        self.assertIs(s["maintenance"], False)
        # Clients compare versions: a major the client supports.
        self.assertGreaterEqual(int(s["version"].split(".")[0]), 20)
        self.assertEqual(s["versionstring"], ".".join(s["version"].split(".")[:3]))

    def test_capabilities_json_and_xml_agree(self):
        c = self.alice
        if True:
            status, _, body = c.raw("GET", "/ocs/v1.php/cloud/capabilities?format=json", auth=False)
            self.assertEqual(status, 200)
            j = json.loads(body)["ocs"]
            self.assertEqual(j["meta"]["statuscode"], 100)  # v1's "ok"
            caps = j["data"]["capabilities"]
            self.assertEqual(caps["dav"]["chunking"], "1.0")
            self.assertIs(caps["files"]["undelete"], True)
            self.assertEqual(set(caps["checksums"]["supportedTypes"]), {"SHA1", "MD5"})
            status, _, body = c.raw("GET", "/ocs/v2.php/cloud/capabilities", auth=False)
            self.assertEqual(status, 200)
            x = ET.fromstring(body)
            self.assertEqual(x.find("meta/statuscode").text, "200")  # v2: the HTTP status
            self.assertEqual(x.find("data/capabilities/dav/chunking").text, "1.0")
            self.assertEqual([e.text for e in x.findall("data/capabilities/checksums/supportedTypes/element")],
                             caps["checksums"]["supportedTypes"])
            self.assertEqual(x.find("data/version/major").text, str(j["data"]["version"]["major"]))

    def test_user_and_quota(self):
        self.admin.call("PATCH", "/api/v1/admin/users/alice", {"quota_bytes": 1000000})
        self.alice.raw("PUT", files_url("alice", "q.bin"), b"x" * 1234)
        status, _, body = self.alice.raw("GET", "/ocs/v2.php/cloud/user?format=json")
        self.assertEqual(status, 200, body)
        d = json.loads(body)["ocs"]["data"]
        self.assertEqual(d["id"], "alice")
        self.assertEqual(d["quota"]["quota"], 1000000)
        self.assertGreaterEqual(d["quota"]["used"], 1234)
        self.assertEqual(d["quota"]["free"], 1000000 - d["quota"]["used"])
        # Another user's record is not there for bob; an administrator sees it.
        status, _, body = self.bob.raw("GET", "/ocs/v2.php/cloud/users/alice?format=json")
        self.assertEqual(status, 404)
        status2, _, body2 = self.bob.raw("GET", "/ocs/v2.php/cloud/users/nobody-here?format=json")
        self.assertEqual((status, body), (status2, body2))
        status, _, body = self.admin.raw("GET", "/ocs/v1.php/cloud/users/alice?format=json")
        self.assertEqual(json.loads(body)["ocs"]["data"]["id"], "alice")
        # v1 answers OCS failures inside a 200.
        status, _, body = self.bob.raw("GET", "/ocs/v1.php/cloud/users/alice?format=json")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["ocs"]["meta"]["statuscode"], 998)
        self.admin.call("PATCH", "/api/v1/admin/users/alice", {"quota_bytes": None})

    def test_polled_endpoints_and_avatar(self):
        for p in ("/ocs/v2.php/apps/notifications/api/v2/notifications?format=json",
                  "/ocs/v2.php/apps/activity/api/v2/activity?format=json"):
            status, _, body = self.alice.raw("GET", p)
            self.assertEqual(status, 200, p)
            self.assertEqual(json.loads(body)["ocs"]["data"], [])
        self.assertEqual(self.alice.raw("GET", p, auth=False)[0], 401)
        self.assertEqual(self.alice.raw("GET", "/index.php/204", auth=False)[0], 204)
        status, hdrs, svg = self.alice.raw("GET", "/index.php/avatar/alice/64")
        self.assertEqual(status, 200)
        self.assertEqual(hdrs["content-type"], "image/svg+xml")
        self.assertIn(b">A</text>", svg)
        # The same answer shape for a name that does not exist: no enumeration.
        status, _, other = self.alice.raw("GET", "/index.php/avatar/alicf/64")
        self.assertEqual(status, 200)
        self.assertEqual(len(other), len(svg))

    def test_app_password_conversion_and_logout(self):
        status, _, body = self.bob.raw("GET", "/ocs/v2.php/core/getapppassword?format=json",
                                       headers={"User-Agent": "Mozilla/5.0 (Linux) mirall/3.7.3"})
        self.assertEqual(status, 200, body)
        secret = json.loads(body)["ocs"]["data"]["apppassword"]
        app = Client(self.srv, "bob", secret)
        app.api_prefix = False
        self.assertEqual(app.raw("PROPFIND", files_url("bob"), None, {"Depth": "0"})[0], 207)
        # An app password cannot be converted again.
        self.assertEqual(app.raw("GET", "/ocs/v2.php/core/getapppassword?format=json")[0], 403)
        # Logout: the client deletes the app password it uses; then it fails.
        self.assertEqual(app.raw("DELETE", "/ocs/v2.php/core/apppassword?format=json")[0], 200)
        self.assertEqual(app.raw("PROPFIND", files_url("bob"), None, {"Depth": "0"})[0], 401)
        # The account password cannot be "logged out" this way.
        self.assertEqual(self.bob.raw("DELETE", "/ocs/v2.php/core/apppassword?format=json")[0], 403)


class PropertiesTest(AliceAndBob):
    def test_fileid_stable_across_rename_and_move_never_reused(self):
        a = self.alice
        self.assertEqual(a.raw("MKCOL", files_url("alice", "p1"))[0], 201)
        self.assertEqual(a.raw("MKCOL", files_url("alice", "p2"))[0], 201)
        status, hdrs, _ = a.raw("PUT", files_url("alice", "p1/doc.txt"), b"hello")
        self.assertEqual(status, 201)
        p = propfind(a, files_url("alice", "p1/doc.txt"), "0")
        props = p["/remote.php/dav/files/alice/p1/doc.txt"]
        fileid = props[OC + "fileid"].text
        self.assertEqual(hdrs["oc-fileid"], props[OC + "id"].text)
        self.assertTrue(props[OC + "id"].text.startswith(fileid.zfill(8)))
        self.assertEqual(hdrs["oc-etag"], props[D + "getetag"].text)
        # Rename, then move into another folder: the same id.
        self.assertEqual(a.raw("MOVE", files_url("alice", "p1/doc.txt"), None,
                               {"Destination": files_url("alice", "p1/renamed.txt")})[0], 201)
        self.assertEqual(a.raw("MOVE", files_url("alice", "p1/renamed.txt"), None,
                               {"Destination": files_url("alice", "p2/renamed.txt")})[0], 201)
        moved = propfind(a, files_url("alice", "p2/renamed.txt"), "0")["/remote.php/dav/files/alice/p2/renamed.txt"]
        self.assertEqual(moved[OC + "fileid"].text, fileid)
        # Deleted for good (trash emptied), the newest id is never handed out again.
        newest = propfind(a, files_url("alice", "p2/renamed.txt"), "0")
        self.assertEqual(a.raw("DELETE", files_url("alice", "p2/renamed.txt"))[0], 204)
        self.assertEqual(a.raw("DELETE", "/remote.php/dav/trashbin/alice/trash/")[0], 204)
        a.raw("PUT", files_url("alice", "p2/new.txt"), b"new")
        fresh = propfind(a, files_url("alice", "p2/new.txt"), "0")["/remote.php/dav/files/alice/p2/new.txt"]
        self.assertGreater(int(fresh[OC + "fileid"].text), int(fileid))
        # Also across a restart (the floor is persistent).
        self.srv.restart()
        a.raw("DELETE", files_url("alice", "p2/new.txt"))
        self.assertEqual(a.raw("DELETE", "/remote.php/dav/trashbin/alice/trash/")[0], 204)
        self.srv.restart()
        a.raw("PUT", files_url("alice", "p2/newer.txt"), b"newer")
        newer = propfind(a, files_url("alice", "p2/newer.txt"), "0")["/remote.php/dav/files/alice/p2/newer.txt"]
        self.assertGreater(int(newer[OC + "fileid"].text), int(fresh[OC + "fileid"].text))
        del newest

    def test_client_property_set_and_etags_match_rest(self):
        a = self.alice
        a.raw("MKCOL", files_url("alice", "props"))
        a.raw("PUT", files_url("alice", "props/a.txt"), b"12345")
        listing = propfind(a, files_url("alice", "props") + "/")
        folder = listing["/remote.php/dav/files/alice/props/"]
        f = listing["/remote.php/dav/files/alice/props/a.txt"]
        self.assertEqual(f[OC + "permissions"].text, "RGDNVW")
        self.assertEqual(folder[OC + "permissions"].text, "RGDNVCK")
        self.assertEqual(folder[OC + "size"].text, "5")  # folders: the bytes below
        self.assertEqual(f[OC + "owner-id"].text, "alice")
        self.assertEqual(f[OC + "favorite"].text, "0")
        self.assertEqual(f[NC + "is-encrypted"].text, "0")
        self.assertIn(NC + "has-preview", f)
        self.assertIn(OC + "share-types", f)
        self.assertIn(OC + "data-fingerprint", f)
        # The same ETag on REST, /dav/ and the Nextcloud tree.
        dav = propfind(a, "/dav/props/a.txt", "0")["/dav/props/a.txt"]
        self.assertEqual(dav[D + "getetag"].text, f[D + "getetag"].text)
        status, hdrs, _ = a.raw("GET", files_url("alice", "props/a.txt"))
        self.assertEqual(hdrs["etag"], f[D + "getetag"].text)

    def checksums(self, c, path, depth="0"):
        """{href: oc:checksums text ("" when none)} of the files at/below path."""
        out = {}
        for href, props in propfind(c, path, depth).items():
            if OC + "checksums" in props:
                el = props[OC + "checksums"].find(OC + "checksum")
                out[href] = el.text if el is not None else ""
        return out

    def test_checksums_are_kept_answered_and_follow_the_content(self):
        a, b = self.alice, self.bob
        body = b"checksummed content\n"
        sha1 = hashlib.sha1(body).hexdigest()
        md5 = hashlib.md5(body).hexdigest()
        a.raw("MKCOL", files_url("alice", "sums"))
        self.assertEqual(a.raw("PUT", files_url("alice", "sums/a.txt"), body,
                               {"OC-Checksum": "SHA1:" + sha1})[0], 201)
        a.raw("PUT", files_url("alice", "sums/plain.txt"), b"no checksum sent")
        # A wrong one stores nothing (and keeps nothing).
        status, _, _ = a.raw("PUT", files_url("alice", "sums/bad.txt"), b"other",
                             {"OC-Checksum": "SHA1:" + sha1})
        self.assertEqual(status, 400)
        base = "/remote.php/dav/files/alice/sums/"
        # Depth 0 (the target) and Depth 1 (a listing page) agree.
        self.assertEqual(self.checksums(a, files_url("alice", "sums/a.txt")), {base + "a.txt": "SHA1:" + sha1})
        listed = self.checksums(a, files_url("alice", "sums") + "/", "1")
        self.assertEqual(listed, {base + "a.txt": "SHA1:" + sha1, base + "plain.txt": ""})
        # The download says it (one entry, as the clients verify it).
        status, hdrs, got = a.raw("GET", files_url("alice", "sums/a.txt"))
        self.assertEqual((status, got, hdrs.get("oc-checksum")), (200, body, "SHA1:" + sha1))
        self.assertNotIn("oc-checksum", a.raw("GET", files_url("alice", "sums/plain.txt"))[1])
        # The same content sent again with MD5: both are known, the newest first.
        self.assertEqual(a.raw("PUT", files_url("alice", "sums/copy.txt"), body,
                               {"OC-Checksum": "MD5:" + md5})[0], 201)
        both = "MD5:%s SHA1:%s" % (md5, sha1)
        self.assertEqual(self.checksums(a, files_url("alice", "sums/a.txt")), {base + "a.txt": both})
        self.assertEqual(a.raw("GET", files_url("alice", "sums/a.txt"))[1]["oc-checksum"], "MD5:" + md5)
        # A server-side copy has them (same content); a new version without one has none.
        self.assertEqual(a.raw("COPY", files_url("alice", "sums/a.txt"), None,
                               {"Destination": files_url("alice", "sums/b.txt")})[0], 201)
        self.assertEqual(self.checksums(a, files_url("alice", "sums/b.txt")), {base + "b.txt": both})
        self.assertIn(a.raw("PUT", files_url("alice", "sums/b.txt"), b"changed")[0], (200, 204))
        self.assertEqual(self.checksums(a, files_url("alice", "sums/b.txt")), {base + "b.txt": ""})
        self.assertNotIn("oc-checksum", a.raw("GET", files_url("alice", "sums/b.txt"))[1])
        # /dav/ answers the same property; another user learns nothing of the file.
        dav = propfind(a, "/dav/sums/a.txt", "0")["/dav/sums/a.txt"]
        self.assertEqual(dav[OC + "checksums"].find(OC + "checksum").text, both)
        self.assertEqual(b.raw("GET", "/dav/sums/a.txt")[0], 404)

    def test_favorites_proppatch_and_filter_files(self):
        a = self.alice
        a.raw("MKCOL", files_url("alice", "fav"))
        a.raw("MKCOL", files_url("alice", "fav/deep"))
        a.raw("PUT", files_url("alice", "fav/deep/star.txt"), b"*")
        a.raw("PUT", files_url("alice", "fav/plain.txt"), b".")
        body = (b'<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">'
                b'<d:set><d:prop><oc:favorite>1</oc:favorite></d:prop></d:set></d:propertyupdate>')
        status, _, data = a.raw("PROPPATCH", files_url("alice", "fav/deep/star.txt"), body)
        self.assertEqual(status, 207)
        self.assertIn(b"200 OK", data)
        a.raw("PROPPATCH", files_url("alice", "fav/deep"), body)
        p = propfind(a, files_url("alice", "fav/deep") + "/")
        self.assertEqual(p["/remote.php/dav/files/alice/fav/deep/"][OC + "favorite"].text, "1")
        self.assertEqual(p["/remote.php/dav/files/alice/fav/deep/star.txt"][OC + "favorite"].text, "1")
        report = (b'<?xml version="1.0"?><oc:filter-files xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">'
                  b'<oc:filter-rules><oc:favorite>1</oc:favorite></oc:filter-rules>'
                  b'<d:prop><d:getetag/><oc:fileid/><oc:favorite/></d:prop></oc:filter-files>')
        status, _, data = a.raw("REPORT", files_url("alice"), report)
        self.assertEqual(status, 207, data)
        got = props_by_href(data)
        self.assertEqual(set(got), {"/remote.php/dav/files/alice/fav/deep/",
                                    "/remote.php/dav/files/alice/fav/deep/star.txt"})
        # Two favorites in one folder (fav/deep/ and fav/plain.txt): each keeps its own path.
        a.raw("PROPPATCH", files_url("alice", "fav/plain.txt"), body)
        status, _, data = a.raw("REPORT", files_url("alice"), report)
        self.assertEqual(set(props_by_href(data)), {"/remote.php/dav/files/alice/fav/deep/",
                                                    "/remote.php/dav/files/alice/fav/deep/star.txt",
                                                    "/remote.php/dav/files/alice/fav/plain.txt"})
        a.raw("PROPPATCH", files_url("alice", "fav/plain.txt"), body.replace(b">1<", b">0<"))
        # Bob's favorites are his own: none.
        status, _, data = self.bob.raw("REPORT", files_url("bob"), report)
        self.assertEqual(props_by_href(data), {})
        # Unmark.
        unset = body.replace(b">1<", b">0<")
        a.raw("PROPPATCH", files_url("alice", "fav/deep/star.txt"), unset)
        status, _, data = a.raw("REPORT", files_url("alice"), report)
        self.assertEqual(set(props_by_href(data)), {"/remote.php/dav/files/alice/fav/deep/"})

    def test_x_oc_mtime_is_honoured(self):
        a = self.alice
        status, hdrs, _ = a.raw("PUT", files_url("alice", "old.txt"), b"old", {"X-OC-MTime": "1000000000"})
        self.assertEqual(status, 201)
        self.assertEqual(hdrs["x-oc-mtime"], "accepted")
        p = propfind(a, files_url("alice", "old.txt"), "0")["/remote.php/dav/files/alice/old.txt"]
        self.assertEqual(p[D + "getlastmodified"].text, "Sun, 09 Sep 2001 01:46:40 GMT")
        self.assertEqual(a.raw("PUT", files_url("alice", "bad.txt"), b"x", {"X-OC-MTime": "soon"})[0], 400)
        self.assertEqual(a.raw("GET", files_url("alice", "bad.txt"))[0], 404)


def chunk_url(user, upload, chunk=""):
    return "/remote.php/dav/uploads/%s/%s%s" % (user, upload, "/" + chunk if chunk else "")


class ChunkedUploadTest(AliceAndBob):
    def move(self, c, upload, dest, headers=None):
        h = {"Destination": "http://127.0.0.1:%d%s" % (self.srv.port, files_url(c.user, dest))}
        h.update(headers or {})
        return c.raw("MOVE", chunk_url(c.user, upload, ".file"), None, h)

    def test_numeric_order_any_order_and_headers(self):
        a = self.alice
        parts = {n: os.urandom(100000 + n) for n in range(1, 13)}  # 1..12: "10" < "2" as text
        self.assertEqual(a.raw("MKCOL", chunk_url("alice", "up-1"), None,
                               {"Destination": files_url("alice", "big.bin")})[0], 201)
        self.assertEqual(a.raw("MKCOL", chunk_url("alice", "up-1"))[0], 405)  # exists
        for n in (12, 3, 1, 10, 2, 11, 4, 5, 6, 7, 8, 9):  # any order
            self.assertEqual(a.raw("PUT", chunk_url("alice", "up-1", str(n)), parts[n],
                                   {"OC-Total-Length": str(sum(map(len, parts.values())))})[0], 201)
        # A chunk sent again replaces the earlier one.
        parts[5] = os.urandom(99999)
        self.assertEqual(a.raw("PUT", chunk_url("alice", "up-1", "5"), parts[5])[0], 201)
        listing = propfind(a, chunk_url("alice", "up-1"), "1", b"")
        sizes = {h.rsplit("/", 1)[1]: int(p[D + "getcontentlength"].text) for h, p in listing.items()
                 if not h.endswith("/")}
        self.assertEqual(sizes, {str(n): len(b) for n, b in parts.items()})
        whole = b"".join(parts[n] for n in sorted(parts))
        status, hdrs, _ = self.move(a, "up-1", "big.bin", {"OC-Total-Length": str(len(whole)),
                                                            "X-OC-MTime": "1500000000"})
        self.assertEqual(status, 201)
        self.assertEqual(hdrs["x-oc-mtime"], "accepted")
        self.assertTrue(hdrs["oc-fileid"].endswith("ocnubo"))
        status, ghdrs, got = a.raw("GET", files_url("alice", "big.bin"))
        self.assertEqual(hashlib.sha256(got).hexdigest(), hashlib.sha256(whole).hexdigest())
        self.assertEqual(ghdrs["etag"], hdrs["etag"])
        # The upload folder is gone.
        self.assertEqual(a.raw("PROPFIND", chunk_url("alice", "up-1"), None, {"Depth": "0"})[0], 404)

    def test_checksum_on_the_move_is_verified_and_kept(self):
        a = self.alice
        parts = {n: os.urandom(50000 + n) for n in range(1, 4)}
        whole = b"".join(parts[n] for n in sorted(parts))
        self.assertEqual(a.raw("MKCOL", chunk_url("alice", "up-sum"))[0], 201)
        for n in (2, 1, 3):
            self.assertEqual(a.raw("PUT", chunk_url("alice", "up-sum", str(n)), parts[n])[0], 201)
        # A wrong checksum: 400, no file, the chunks stay for another try.
        wrong = "SHA1:" + hashlib.sha1(whole + b"x").hexdigest()
        status, _, body = self.move(a, "up-sum", "summed.bin", {"OC-Checksum": wrong})
        self.assertEqual(status, 400, body)
        self.assertIn(b"mismatch", body)
        self.assertEqual(a.raw("GET", files_url("alice", "summed.bin"))[0], 404)
        self.assertEqual(self.move(a, "up-sum", "summed.bin", {"OC-Checksum": "CRC9:00"})[0], 400)
        right = "SHA1:" + hashlib.sha1(whole).hexdigest()
        status, hdrs, body = self.move(a, "up-sum", "summed.bin", {"OC-Checksum": right})
        self.assertEqual(status, 201, body)
        status, ghdrs, got = a.raw("GET", files_url("alice", "summed.bin"))
        self.assertEqual((got == whole, ghdrs.get("oc-checksum")), (True, right))
        # In order (the hash chained from chunk to chunk) verifies the same way.
        self.assertEqual(a.raw("MKCOL", chunk_url("alice", "up-sum2"))[0], 201)
        for n in (1, 2, 3):
            self.assertEqual(a.raw("PUT", chunk_url("alice", "up-sum2", str(n)), parts[n])[0], 201)
        md5 = "MD5:" + hashlib.md5(whole).hexdigest()
        self.assertEqual(self.move(a, "up-sum2", "summed2.bin", {"OC-Checksum": md5})[0], 201)
        self.assertEqual(a.raw("GET", files_url("alice", "summed2.bin"))[1].get("oc-checksum"), md5)

    def test_v1_zero_padded_names_from_zero_and_overwrite_with_if_match(self):
        a = self.alice
        a.raw("PUT", files_url("alice", "over.bin"), b"first version")
        etag = propfind(a, files_url("alice", "over.bin"), "0")["/remote.php/dav/files/alice/over.bin"][
            D + "getetag"].text
        a.raw("MKCOL", chunk_url("alice", "up-2"))
        a.raw("PUT", chunk_url("alice", "up-2", "0000000000000000"), b"A" * 5000)
        a.raw("PUT", chunk_url("alice", "up-2", "0000000000000001"), b"B" * 10)
        self.assertEqual(self.move(a, "up-2", "over.bin", {"If-Match": '"not-it"'})[0], 412)
        status, _, _ = self.move(a, "up-2", "over.bin", {"If-Match": etag})
        self.assertEqual(status, 204)
        self.assertEqual(a.raw("GET", files_url("alice", "over.bin"))[2], b"A" * 5000 + b"B" * 10)

    def test_missing_chunk_and_wrong_total_leave_nothing(self):
        a = self.alice
        a.raw("MKCOL", chunk_url("alice", "up-3"))
        for n in (1, 2, 4):
            a.raw("PUT", chunk_url("alice", "up-3", str(n)), b"x" * 100)
        status, _, body = self.move(a, "up-3", "gap.bin")
        self.assertEqual(status, 400)
        self.assertIn(b"chunk 3 is missing", body)
        self.assertEqual(a.raw("GET", files_url("alice", "gap.bin"))[0], 404)
        a.raw("PUT", chunk_url("alice", "up-3", "3"), b"x" * 100)
        status, _, body = self.move(a, "up-3", "gap.bin", {"OC-Total-Length": "401"})
        self.assertEqual(status, 400)
        self.assertIn(b"OC-Total-Length", body)
        self.assertEqual(a.raw("GET", files_url("alice", "gap.bin"))[0], 404)
        self.assertIn(self.move(a, "up-3", "gap.bin", {"OC-Total-Length": "400"})[0], (201, 204))
        self.assertEqual(a.raw("GET", files_url("alice", "gap.bin"))[2], b"x" * 400)
        # Not a number: refused before any byte is kept.
        a.raw("MKCOL", chunk_url("alice", "up-4"))
        self.assertEqual(a.raw("PUT", chunk_url("alice", "up-4", "abc"), b"x")[0], 400)
        self.assertEqual(a.raw("PUT", chunk_url("alice", "up-4", "10001"), b"x")[0], 400)

    def test_abort_and_second_user_isolation(self):
        a, b = self.alice, self.bob
        a.raw("MKCOL", chunk_url("alice", "up-5"))
        a.raw("PUT", chunk_url("alice", "up-5", "1"), b"secret chunk")
        # Bob, with Alice's name or his own, sees no such upload.
        for path in (chunk_url("alice", "up-5"), chunk_url("bob", "up-5")):
            self.assertEqual(b.raw("PROPFIND", path, None, {"Depth": "1"})[0], 404)
            self.assertEqual(b.raw("DELETE", path)[0], 404)
        self.assertEqual(b.raw("PUT", chunk_url("alice", "up-5", "2"), b"bob's")[0], 404)
        self.assertEqual(b.raw("PUT", chunk_url("bob", "up-5", "2"), b"bob's")[0], 404)
        h = {"Destination": files_url("bob", "stolen.bin")}
        self.assertEqual(b.raw("MOVE", chunk_url("bob", "up-5", ".file"), None, h)[0], 404)
        self.assertEqual(b.raw("MOVE", chunk_url("alice", "up-5", ".file"), None, h)[0], 404)
        # Alice's destination must be in her own tree.
        h = {"Destination": files_url("bob", "x.bin")}
        self.assertIn(a.raw("MOVE", chunk_url("alice", "up-5", ".file"), None, h)[0], (404, 415, 502))
        # Abort: the folder and its chunks go.
        self.assertEqual(a.raw("DELETE", chunk_url("alice", "up-5"))[0], 204)
        self.assertEqual(a.raw("PROPFIND", chunk_url("alice", "up-5"), None, {"Depth": "1"})[0], 404)
        self.assertEqual(self.move(a, "up-5", "aborted.bin")[0], 404)

    def rest_hash(self, c, name):
        """The content hash the REST API reports for a file of the root."""
        root = c.call("GET", "/api/v1/drives")[2]["drives"][0]["root_id"]
        _, _, listing = c.call("GET", "/api/v1/nodes/%s/children?limit=200" % root)
        return [n for n in listing["items"] if n["name"] == name][0]["hash"]

    def test_assembled_hash_is_the_contents_in_order_out_of_order_and_replaced(self):
        """In order, each chunk's hashing continues the one before it and
        the file's hash comes from the last state; out of order or with a
        chunk replaced, the bytes are read. Either way the hash is that of
        the same bytes sent in one plain PUT."""
        a = self.alice
        parts = [os.urandom(200000 + i) for i in range(5)]
        whole = b"".join(parts)
        a.raw("PUT", files_url("alice", "plain.bin"), whole)
        want = self.rest_hash(a, "plain.bin")
        for upload, order in (("h-in", [1, 2, 3, 4, 5]), ("h-out", [2, 1, 4, 3, 5])):
            a.raw("MKCOL", chunk_url("alice", upload))
            for n in order:
                self.assertEqual(a.raw("PUT", chunk_url("alice", upload, str(n)), parts[n - 1])[0], 201)
            self.assertEqual(self.move(a, upload, upload + ".bin")[0], 201)
            self.assertEqual(self.rest_hash(a, upload + ".bin"), want, upload)
            self.assertEqual(a.raw("GET", files_url("alice", upload + ".bin"))[2], whole)
        # In order, then chunk 2 sent again with other bytes: chunks 3..5
        # continued the old chunk 2 and must not be trusted.
        a.raw("MKCOL", chunk_url("alice", "h-rep"))
        for n in range(1, 6):
            a.raw("PUT", chunk_url("alice", "h-rep", str(n)), parts[n - 1] if n != 2 else b"stale" * 40000)
        a.raw("PUT", chunk_url("alice", "h-rep", "2"), parts[1])
        self.assertEqual(self.move(a, "h-rep", "h-rep.bin")[0], 201)
        self.assertEqual(self.rest_hash(a, "h-rep.bin"), want)
        self.assertEqual(a.raw("GET", files_url("alice", "h-rep.bin"))[2], whole)
        # The stale content was never a file: its hash names nothing.
        stale = parts[0] + b"stale" * 40000 + b"".join(parts[2:])
        a.raw("PUT", files_url("alice", "stale.bin"), stale)
        self.assertNotEqual(self.rest_hash(a, "stale.bin"), want)

    def test_kill_between_chunks_and_move_then_resume(self):
        a = self.alice
        a.raw("MKCOL", chunk_url("alice", "up-6"))
        data = [os.urandom(300000) for _ in range(3)]
        a.raw("PUT", chunk_url("alice", "up-6", "1"), data[0])
        a.raw("PUT", chunk_url("alice", "up-6", "2"), data[1])
        self.srv.proc.send_signal(signal.SIGKILL)
        self.srv.proc.wait()
        self.srv._start()
        # The client asks what arrived, sends the rest, assembles.
        listing = propfind(a, chunk_url("alice", "up-6"), "1", b"")
        self.assertEqual(sorted(h.rsplit("/", 1)[1] for h in listing if not h.endswith("/")), ["1", "2"])
        a.raw("PUT", chunk_url("alice", "up-6", "3"), data[2])
        self.assertEqual(self.move(a, "up-6", "resumed.bin")[0], 201)
        self.assertEqual(a.raw("GET", files_url("alice", "resumed.bin"))[2], b"".join(data))

    def test_chunk_cut_short_keeps_no_part_and_no_quota(self):
        """A chunk's session is written only with its bytes: a chunk whose
        connection drops leaves no part, and the quota it reserved for its
        announced length is free again at once (not when it would expire)."""
        a = self.alice
        status, _, body = a.raw("GET", "/ocs/v2.php/cloud/user?format=json")
        used = json.loads(body)["ocs"]["data"]["quota"]["used"]
        self.admin.call("PATCH", "/api/v1/admin/users/alice", {"quota_bytes": used + 2_000_000})
        try:
            a.raw("MKCOL", chunk_url("alice", "up-cut"))
            self.assertEqual(a.raw("PUT", chunk_url("alice", "up-cut", "1"), b"a" * 1000)[0], 201)
            h = {"Authorization": a.auth, "Content-Length": "1500000"}
            with self.srv.connect(timeout=30) as s:
                s.sendall(request("PUT", chunk_url("alice", "up-cut", "2"), h))
                s.sendall(os.urandom(200_000))
                time.sleep(0.3)
                s.shutdown(socket.SHUT_RDWR)
            # Only the whole chunk is listed, however soon the client asks.
            for _ in range(20):
                listing = propfind(a, chunk_url("alice", "up-cut"), "1", b"")
                names = sorted(h.rsplit("/", 1)[1] for h in listing if not h.endswith("/"))
                self.assertEqual(names, ["1"])
                time.sleep(0.05)
            # 1.5 MB held for the cut chunk would leave no room for this.
            big = os.urandom(1_800_000)
            status, _, body = a.raw("PUT", files_url("alice", "after-cut.bin"), big)
            self.assertEqual(status, 201, body)
            a.raw("DELETE", files_url("alice", "after-cut.bin"))
            self.assertEqual(a.raw("DELETE", chunk_url("alice", "up-cut"))[0], 204)
        finally:
            self.admin.call("PATCH", "/api/v1/admin/users/alice", {"unlimited": True})

    def test_a_file_over_half_the_free_quota_assembles(self):
        """The chunks hold the file's bytes against the quota; assembling
        them must not hold the same bytes a second time (a file of 1.2 MB
        with 2 MB free was refused with 507 at the MOVE)."""
        a = self.alice
        status, _, body = a.raw("GET", "/ocs/v2.php/cloud/user?format=json")
        used = json.loads(body)["ocs"]["data"]["quota"]["used"]
        self.admin.call("PATCH", "/api/v1/admin/users/alice", {"quota_bytes": used + 2_000_000})
        try:
            data = [os.urandom(400_000) for _ in range(3)]
            a.raw("MKCOL", chunk_url("alice", "up-half"))
            for i, piece in enumerate(data, 1):
                self.assertEqual(a.raw("PUT", chunk_url("alice", "up-half", str(i)), piece)[0], 201)
            status, _, body = self.move(a, "up-half", "over-half.bin")
            self.assertEqual(status, 201, body)
            self.assertEqual(a.raw("GET", files_url("alice", "over-half.bin"))[2], b"".join(data))
            # The quota still holds: chunks that fitted when they came, for
            # a file that no longer fits (the quota was lowered meanwhile),
            # are refused at the MOVE.
            more = [os.urandom(350_000) for _ in range(2)]
            a.raw("MKCOL", chunk_url("alice", "up-over"))
            for i, piece in enumerate(more, 1):
                self.assertEqual(a.raw("PUT", chunk_url("alice", "up-over", str(i)), piece)[0], 201)
            self.admin.call("PATCH", "/api/v1/admin/users/alice", {"quota_bytes": used + 1_500_000})
            status, _, body = self.move(a, "up-over", "too-big.bin")
            self.assertEqual(status, 507, body)
            self.assertEqual(a.raw("GET", files_url("alice", "too-big.bin"))[0], 404)
            a.raw("DELETE", chunk_url("alice", "up-over"))
            a.raw("DELETE", files_url("alice", "over-half.bin"))
        finally:
            self.admin.call("PATCH", "/api/v1/admin/users/alice", {"unlimited": True})


BULK = "bulk_.oOo._boundary42"


def bulk_request(files, boundary=BULK):
    """A bulk upload body: files are (path, bytes, extra headers)."""
    out = b""
    for path, data, extra in files:
        head = {"Content-Length": str(len(data)), "Content-Type": "application/octet-stream",
                "X-File-MD5": hashlib.md5(data).hexdigest(), "X-File-Mtime": "1600000000", "X-File-Path": path}
        head.update(extra)
        out += ("\r\n--%s\r\n" % boundary).encode()
        out += "".join("%s: %s\r\n" % (k, v) for k, v in head.items() if v is not None).encode("utf-8")
        out += b"\r\n" + data
    return out + ("\r\n--%s--\r\n" % boundary).encode()


class BulkUploadTest(AliceAndBob):
    """POST /remote.php/dav/bulk, the desktop client's way with small files
    (the client itself drives it in test_nextcloud_client.py)."""

    def bulk(self, c, files, ctype='multipart/related; boundary="%s"' % BULK):
        status, _, body = c.raw("POST", "/remote.php/dav/bulk", bulk_request(files), {"Content-Type": ctype})
        return status, (json.loads(body) if status == 200 else body)

    def test_capability_and_per_file_answers(self):
        a = self.alice
        caps = json.loads(a.raw("GET", "/ocs/v2.php/cloud/capabilities?format=json",
                                None, {"OCS-APIRequest": "true"})[2])
        self.assertEqual(caps["ocs"]["data"]["capabilities"]["dav"]["bulkupload"], "1.0")
        self.assertEqual(a.raw("MKCOL", files_url("alice", "bulk"))[0], 201)
        a.raw("PUT", files_url("alice", "bulk/old.txt"), b"old content")
        old_etag = propfind(a, files_url("alice", "bulk/old.txt"), "0")[
            "/remote.php/dav/files/alice/bulk/old.txt"][D + "getetag"].text
        good = b"a small file\n"
        status, answers = self.bulk(a, [
            ("/bulk/one.txt", good, {}),
            ("/bulk/ünïcode ø.txt", b"second", {}),
            ("/missing/three.txt", b"three", {}),
            ("/bulk/bad-md5.txt", b"four", {"X-File-MD5": hashlib.md5(b"other").hexdigest()}),
            ("/bulk/old.txt", b"replaced", {"If-Match": '"not-the-etag"'}),
            ("/bulk/../escape.txt", b"x", {}),
            ("/bulk", b"onto a folder", {}),
            ("/bulk/empty.txt", b"", {}),
        ])
        self.assertEqual(status, 200, answers)
        self.assertEqual(set(answers), {"/bulk/one.txt", "/bulk/ünïcode ø.txt", "/missing/three.txt",
                                        "/bulk/bad-md5.txt", "/bulk/old.txt", "/bulk/../escape.txt", "/bulk",
                                        "/bulk/empty.txt"})
        ok = answers["/bulk/one.txt"]
        self.assertIs(ok["error"], False)
        self.assertEqual(ok["X-OC-MTime"], "accepted")
        self.assertTrue(ok["fileid"].endswith("ocnubo"))
        self.assertEqual(ok["permissions"], "RGDNVW")
        props = propfind(a, files_url("alice", "bulk/one.txt"), "0")["/remote.php/dav/files/alice/bulk/one.txt"]
        self.assertEqual(props[D + "getetag"].text, ok["etag"])
        self.assertEqual(props[OC + "id"].text, ok["fileid"])
        self.assertEqual(props[D + "getlastmodified"].text, "Sun, 13 Sep 2020 12:26:40 GMT")
        # The client's MD5 was verified and is kept.
        self.assertEqual(props[OC + "checksums"].find(OC + "checksum").text, "MD5:" + hashlib.md5(good).hexdigest())
        self.assertEqual(a.raw("GET", files_url("alice", "bulk/one.txt"))[2], good)
        self.assertEqual(a.raw("GET", files_url("alice", "bulk/ünïcode ø.txt"))[2], b"second")
        self.assertIs(answers["/bulk/empty.txt"]["error"], False)
        for path, status_code in (("/missing/three.txt", 409), ("/bulk/bad-md5.txt", 400),
                                  ("/bulk/old.txt", 412), ("/bulk/../escape.txt", 400), ("/bulk", 409)):
            self.assertIs(answers[path]["error"], True, path)
            self.assertEqual(answers[path]["status"], status_code, (path, answers[path]))
            self.assertTrue(answers[path]["message"], path)
        self.assertIn("md5", answers["/bulk/bad-md5.txt"]["message"])
        # Nothing of the refused files exists; the old file is as it was.
        self.assertEqual(a.raw("GET", files_url("alice", "bulk/bad-md5.txt"))[0], 404)
        self.assertEqual(a.raw("GET", files_url("alice", "bulk/old.txt"))[2], b"old content")
        # The same path twice in one request: the last part wins, as with PUTs in order.
        status, answers = self.bulk(a, [("/bulk/twice.txt", b"first", {}), ("/bulk/other.txt", b"o", {}),
                                        ("/bulk/twice.txt", b"second", {})])
        self.assertIs(answers["/bulk/twice.txt"]["error"], False, answers)
        self.assertEqual(a.raw("GET", files_url("alice", "bulk/twice.txt"))[2], b"second")
        # Many files at once (commits overlap): every one lands with its bytes.
        many = [("/bulk/many %03d.txt" % i, os.urandom(100 + i), {}) for i in range(120)]
        status, answers = self.bulk(a, many)
        self.assertEqual(len(answers), 120)
        self.assertTrue(all(x["error"] is False for x in answers.values()), answers)
        for path, data, _ in many[::17]:
            self.assertEqual(a.raw("GET", files_url("alice", path[1:]))[2], data)
        # With the right ETag, a changed file replaces the old one.
        status, answers = self.bulk(a, [("/bulk/old.txt", b"replaced", {"If-Match": old_etag})])
        self.assertIs(answers["/bulk/old.txt"]["error"], False, answers)
        self.assertEqual(a.raw("GET", files_url("alice", "bulk/old.txt"))[2], b"replaced")

    def test_malformed_bodies_and_another_user(self):
        a, b = self.alice, self.bob
        # Not multipart/related, no boundary, a part without a path: 400, nothing stored.
        self.assertEqual(self.bulk(a, [("/x.txt", b"x", {})], "multipart/form-data; boundary=" + BULK)[0], 400)
        self.assertEqual(self.bulk(a, [("/x.txt", b"x", {})], "multipart/related")[0], 400)
        status, body = self.bulk(a, [("/y.txt", b"y", {}), (None, b"no path", {})])
        self.assertEqual(status, 400, body)
        self.assertIn(b"X-File-Path", body)
        self.assertEqual(a.raw("GET", files_url("alice", "x.txt"))[0], 404)
        # A body cut short keeps the complete files before it, nothing of the cut one.
        whole = bulk_request([("/kept.txt", b"kept", {}), ("/cut.txt", b"0123456789" * 100, {})])
        status, _, _ = a.raw("POST", "/remote.php/dav/bulk", whole[:-600],
                             {"Content-Type": 'multipart/related; boundary="%s"' % BULK})
        self.assertEqual(status, 400)
        self.assertEqual(a.raw("GET", files_url("alice", "kept.txt"))[2], b"kept")
        self.assertEqual(a.raw("GET", files_url("alice", "cut.txt"))[0], 404)
        # Paths are the caller's own: Bob's upload lands in Bob's tree.
        status, answers = self.bulk(b, [("/kept.txt", b"bob's", {})])
        self.assertIs(answers["/kept.txt"]["error"], False)
        self.assertEqual(a.raw("GET", files_url("alice", "kept.txt"))[2], b"kept")
        self.assertEqual(b.raw("GET", files_url("bob", "kept.txt"))[2], b"bob's")
        self.assertEqual(a.raw("POST", "/remote.php/dav/bulk", bulk_request([("/z", b"z", {})]),
                               {"Content-Type": 'multipart/related; boundary="%s"' % BULK}, auth=False)[0], 401)


class LoginFlowTest(unittest.TestCase):
    def test_flow_poll_once_grant_and_expiry(self):
        srv, admin, users = nc_users(["alice"])
        try:
            a = users["alice"]
            status, _, body = a.raw("POST", "/index.php/login/v2", b"", {"User-Agent": "Nextcloud-Test (Desktop)"},
                                    auth=False)
            self.assertEqual(status, 200, body)
            flow = json.loads(body)
            token = flow["poll"]["token"]
            login_token = flow["login"].rsplit("/", 1)[1]
            self.assertTrue(flow["poll"]["endpoint"].endswith("/index.php/login/v2/poll"))
            poll = lambda: a.raw("POST", "/index.php/login/v2/poll", ("token=" + token).encode(),  # noqa: E731
                                 {"Content-Type": "application/x-www-form-urlencoded"}, auth=False)
            self.assertEqual(poll()[0], 404)
            # The browser step redirects to the web UI's page.
            status, hdrs, _ = a.raw("GET", "/index.php/login/v2/flow/" + login_token, auth=False)
            self.assertEqual((status, hdrs["location"]), (302, "/login-flow/" + login_token))
            # The page's API needs the account's own session (not an app password).
            status, _, t = a.call("POST", "/api/v1/auth/login", {"username": "alice", "password": "alice password 1"},
                                  auth=False)
            bearer = {"Authorization": "Bearer " + t["access_token"]}
            status, _, d = a.call("GET", "/api/v1/login-flows/" + login_token, headers=bearer, auth=False)
            self.assertEqual(status, 200)
            self.assertEqual(d["client_name"], "Nextcloud-Test (Desktop)")
            # Still nothing until granted.
            self.assertEqual(poll()[0], 404)
            status, _, _ = a.call("POST", "/api/v1/login-flows/%s/grant" % login_token, headers=bearer, auth=False)
            self.assertEqual(status, 204)
            # Granted: no longer describable, not grantable twice.
            self.assertEqual(a.call("GET", "/api/v1/login-flows/" + login_token, headers=bearer, auth=False)[0], 404)
            status, _, body = poll()
            self.assertEqual(status, 200, body)
            creds = json.loads(body)
            self.assertEqual(creds["loginName"], "alice")
            self.assertTrue(creds["server"].startswith("http://127.0.0.1:"))
            # Exactly once.
            self.assertEqual(poll()[0], 404)
            app = Client(srv, "alice", creds["appPassword"])
            app.api_prefix = False
            self.assertEqual(app.raw("PROPFIND", files_url("alice"), None, {"Depth": "0"})[0], 207)
            # The app password is a sync credential: account routes refuse it.
            self.assertEqual(app.raw("GET", "/api/v1/login-flows/" + login_token)[0], 403)
            # A wrong or malformed poll token learns nothing.
            for bad in ("0" * 64, "", "zz", token[:-1]):
                self.assertEqual(a.raw("POST", "/index.php/login/v2/poll", ("token=" + bad).encode(),
                                       {"Content-Type": "application/x-www-form-urlencoded"}, auth=False)[0], 404)
            # Expiry after 20 minutes.
            status, _, body = a.raw("POST", "/index.php/login/v2", b"", auth=False)
            flow2 = json.loads(body)
            lt2 = flow2["login"].rsplit("/", 1)[1]
            status, _, _ = a.raw("PUT", "/_test/clock?offset_ms=%d" % (21 * 60 * 1000), b"", auth=False)
            self.assertIn(status, (200, 204))
            _, _, t = a.call("POST", "/api/v1/auth/login", {"username": "alice", "password": "alice password 1"},
                             auth=False)
            bearer = {"Authorization": "Bearer " + t["access_token"]}
            self.assertEqual(a.call("GET", "/api/v1/login-flows/" + lt2, headers=bearer, auth=False)[0], 404)
            self.assertEqual(a.call("POST", "/api/v1/login-flows/%s/grant" % lt2, headers=bearer,
                                    auth=False)[0], 404)
        finally:
            stop_and_fsck(srv)

    def test_long_client_name_is_cut_at_a_character(self):
        """A client name longer than 200 bytes is cut before the character
        it splits: the app password's label stays valid UTF-8."""
        srv, admin, users = nc_users(["alice"])
        try:
            a = users["alice"]
            agent = b"x" * 199 + "é and more".encode()
            status, _, body = a.raw("POST", "/index.php/login/v2", b"", {"User-Agent": agent}, auth=False)
            self.assertEqual(status, 200, body)
            lt = json.loads(body)["login"].rsplit("/", 1)[1]
            _, _, t = a.call("POST", "/api/v1/auth/login", {"username": "alice", "password": "alice password 1"},
                             auth=False)
            bearer = {"Authorization": "Bearer " + t["access_token"]}
            status, _, d = a.call("GET", "/api/v1/login-flows/" + lt, headers=bearer, auth=False)
            self.assertEqual(status, 200)
            self.assertEqual(d["client_name"], "x" * 199)
            self.assertEqual(a.call("POST", "/api/v1/login-flows/%s/grant" % lt, headers=bearer, auth=False)[0], 204)
            _, _, pw = a.call("GET", "/api/v1/me/app-passwords")
            self.assertEqual([p["label"] for p in pw["app_passwords"]], ["x" * 199])
        finally:
            stop_and_fsck(srv)

    def test_grant_needs_a_signed_in_account(self):
        srv, admin, users = nc_users(["alice"])
        try:
            a = users["alice"]
            _, _, body = a.raw("POST", "/index.php/login/v2", b"", auth=False)
            lt = json.loads(body)["login"].rsplit("/", 1)[1]
            self.assertEqual(a.raw("POST", "/api/v1/login-flows/%s/grant" % lt, b"", auth=False)[0], 401)
            # Nothing was granted.
            _, _, pw = a.call("GET", "/api/v1/me/app-passwords")
            self.assertEqual(pw["app_passwords"], [])
        finally:
            stop_and_fsck(srv)


class TrashbinTest(unittest.TestCase):
    def test_list_restore_delete_empty(self):
        srv, admin, users = nc_users(["alice", "bob"])
        try:
            a, b = users["alice"], users["bob"]
            a.raw("MKCOL", files_url("alice", "docs"))
            a.raw("PUT", files_url("alice", "docs/report.txt"), b"r")
            a.raw("PUT", files_url("alice", "docs/other.txt"), b"o")
            self.assertEqual(a.raw("DELETE", files_url("alice", "docs/report.txt"))[0], 204)
            self.assertEqual(a.raw("DELETE", files_url("alice", "docs/other.txt"))[0], 204)
            items = propfind(a, "/remote.php/dav/trashbin/alice/trash/", "1", b"")
            found = {p[NC + "trashbin-filename"].text: (h, p) for h, p in items.items() if NC + "trashbin-filename" in p}
            self.assertEqual(set(found), {"report.txt", "other.txt"})
            href, p = found["report.txt"]
            self.assertEqual(p[NC + "trashbin-original-location"].text, "docs/report.txt")
            self.assertLess(abs(int(p[NC + "trashbin-deletion-time"].text) - time.time()), 120)
            # Bob sees none of it, with Alice's name or with the item's id in his own.
            self.assertEqual(b.raw("PROPFIND", "/remote.php/dav/trashbin/alice/trash/", None, {"Depth": "1"})[0], 404)
            item = href.rstrip("/").rsplit("/", 1)[1]
            self.assertEqual(b.raw("PROPFIND", "/remote.php/dav/trashbin/bob/trash/" + item, None,
                                   {"Depth": "0"})[0], 404)
            self.assertEqual(b.raw("DELETE", "/remote.php/dav/trashbin/bob/trash/" + item)[0], 404)
            self.assertEqual(b.raw("MOVE", "/remote.php/dav/trashbin/bob/trash/" + item, None,
                                   {"Destination": "/remote.php/dav/trashbin/bob/restore/x"})[0], 404)
            # Restore by MOVE into restore/.
            status, _, _ = a.raw("MOVE", "/remote.php/dav/trashbin/alice/trash/" + item, None,
                                 {"Destination": "/remote.php/dav/trashbin/alice/restore/report.txt"})
            self.assertEqual(status, 201)
            self.assertEqual(a.raw("GET", files_url("alice", "docs/report.txt"))[2], b"r")
            # Delete one item for good, then the trash is empty.
            other = found["other.txt"][0].rstrip("/").rsplit("/", 1)[1]
            self.assertEqual(a.raw("DELETE", "/remote.php/dav/trashbin/alice/trash/" + other)[0], 204)
            items = propfind(a, "/remote.php/dav/trashbin/alice/trash/", "1", b"")
            self.assertEqual([h for h, p in items.items() if NC + "trashbin-filename" in p], [])
            a.raw("DELETE", files_url("alice", "docs"))
            self.assertEqual(a.raw("DELETE", "/remote.php/dav/trashbin/alice/trash/")[0], 204)
            items = propfind(a, "/remote.php/dav/trashbin/alice/trash/", "1", b"")
            self.assertEqual(len(items), 1)  # the trash collection alone
        finally:
            stop_and_fsck(srv)


SHARES = "/ocs/v2.php/apps/files_sharing/api/v1/shares"


class OcsSharingTest(unittest.TestCase):
    """The share dialog's API on the sharing model: a user share is a
    grant the recipient can use at once, a link share a working link."""

    def test_user_group_and_link_shares(self):
        srv, admin, users = nc_users(["alice", "bob", "carol"])
        try:
            a, b, c = users["alice"], users["bob"], users["carol"]
            a.raw("MKCOL", files_url("alice", "Project"))
            a.raw("PUT", files_url("alice", "Project/plan.txt"), b"the plan")
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            # Share with bob, read only.
            status, _, body = a.raw("POST", SHARES + "?format=json",
                                    b"path=%2FProject&shareType=0&shareWith=bob&permissions=1", form)
            self.assertEqual(status, 200, body)
            share = json.loads(body)["ocs"]["data"]
            self.assertEqual((share["share_type"], share["share_with"], share["permissions"]), (0, "bob", 1))
            self.assertEqual((share["path"], share["item_type"]), ("/Project", "folder"))
            # Bob reads through the grant (REST) but may not write; it is in his shared-with-me.
            status, _, body = b.raw("GET", SHARES + "?shared_with_me=true&format=json")
            mine = json.loads(body)["ocs"]["data"]
            self.assertEqual([s["file_target"] for s in mine], ["/Project"])
            self.assertEqual(mine[0]["permissions"] & 2, 0)
            # Listing by path (the dialog's first request).
            status, _, body = a.raw("GET", SHARES + "?path=/Project&reshares=true&format=json")
            self.assertEqual([s["share_with"] for s in json.loads(body)["ocs"]["data"]], ["bob"])
            # Upgrade to editor with resharing.
            status, _, body = a.raw("PUT", SHARES + "/%s?format=json" % share["id"], b"permissions=31", form)
            self.assertEqual(status, 200, body)
            status, _, body = a.raw("GET", SHARES + "?path=/Project&format=json")
            self.assertEqual(json.loads(body)["ocs"]["data"][0]["permissions"], 31)
            # Carol cannot see, change or delete alice's share: like an unknown id.
            for method in ("PUT", "DELETE"):
                got = c.raw(method, SHARES + "/%s?format=json" % share["id"], b"permissions=1", form)
                unknown = c.raw(method, SHARES + "/%s?format=json" % ("0" * 36), b"permissions=1", form)
                self.assertEqual((got[0], got[2]), (unknown[0], unknown[2]))
            self.assertEqual(c.raw("GET", SHARES + "?path=/Project&format=json")[0], 404)
            # A path that is not the caller's: 404, nothing shared.
            status, _, _ = c.raw("POST", SHARES + "?format=json",
                                 b"path=%2FProject&shareType=0&shareWith=carol&permissions=1", form)
            self.assertEqual(status, 404)
            # A public link with a password; its URL opens the link's tree.
            status, _, body = a.raw("POST", SHARES + "?format=json",
                                    b"path=%2FProject&shareType=3&password=link%20password%201", form)
            self.assertEqual(status, 200, body)
            link = json.loads(body)["ocs"]["data"]
            self.assertEqual(link["share_type"], 3)
            token = link["token"]
            self.assertTrue(link["url"].endswith("/s/" + token))
            auth = "Basic " + base64.b64encode((token + ":link password 1").encode()).decode()
            status, _, data = a.raw("GET", "/public.php/webdav/plan.txt", None, {"Authorization": auth},
                                    auth=False)
            self.assertEqual((status, data), (200, b"the plan"))
            # Revoke both; bob loses access, the link stops.
            for sid in (share["id"], link["id"]):
                self.assertEqual(a.raw("DELETE", SHARES + "/%s?format=json" % sid)[0], 200)
            status, _, body = b.raw("GET", SHARES + "?shared_with_me=true&format=json")
            self.assertEqual(json.loads(body)["ocs"]["data"], [])
            self.assertIn(a.raw("GET", "/public.php/webdav/plan.txt", None, {"Authorization": auth},
                                auth=False)[0], (401, 404))
            # Sharees: bob is found by his exact name (whatever the search mode).
            status, _, body = a.raw("GET", "/ocs/v2.php/apps/files_sharing/api/v1/sharees?search=bob&format=json")
            self.assertEqual(status, 200)
            self.assertIn("bob", [u["value"]["shareWith"] for u in json.loads(body)["ocs"]["data"]["users"]])
            # Everything alice shared, each with its own path (two in one folder, one a level deeper).
            a.raw("PUT", files_url("alice", "Project/notes.txt"), b"notes")
            a.raw("MKCOL", files_url("alice", "Project/sub"))
            a.raw("PUT", files_url("alice", "Project/sub/deep.txt"), b"deep")
            for path in (b"%2FProject%2Fplan.txt", b"%2FProject%2Fnotes.txt", b"%2FProject%2Fsub%2Fdeep.txt",
                         b"%2FProject"):
                status, _, body = a.raw("POST", SHARES + "?format=json",
                                        b"path=" + path + b"&shareType=0&shareWith=carol&permissions=1", form)
                self.assertEqual(status, 200, body)
            status, _, body = a.raw("GET", SHARES + "?format=json")
            self.assertEqual(status, 200, body)
            self.assertEqual(sorted((s["path"], s["file_target"]) for s in json.loads(body)["ocs"]["data"]),
                             [("/Project", "/Project"), ("/Project/notes.txt", "/notes.txt"),
                              ("/Project/plan.txt", "/plan.txt"), ("/Project/sub/deep.txt", "/deep.txt")])
        finally:
            stop_and_fsck(srv)


class SwitchedOffTest(unittest.TestCase):
    def test_nc_enabled_false_removes_the_surface_not_the_files_tree(self):
        srv, admin, users = start_with_users(["alice"], env=dict(FAST, NUBO_NC_ENABLED="false"))
        try:
            a = users["alice"]
            a.api_prefix = False
            self.assertEqual(a.raw("GET", "/status.php", auth=False)[0], 404)
            self.assertEqual(a.raw("GET", "/ocs/v2.php/cloud/capabilities", auth=False)[0], 404)
            self.assertIn(a.raw("POST", "/index.php/login/v2", b"", auth=False)[0], (404, 405))
            self.assertNotEqual(a.raw("MKCOL", chunk_url("alice", "up"))[0], 201)
            # The files tree is WebDAV: it stays.
            self.assertEqual(a.raw("PUT", files_url("alice", "still.txt"), b"here")[0], 201)
            self.assertEqual(a.raw("GET", files_url("alice", "still.txt"))[2], b"here")
        finally:
            stop_and_fsck(srv)


    def test_bulk_upload_false_removes_only_the_bulk_upload(self):
        srv, admin, users = start_with_users(["alice"], env=dict(FAST, NUBO_NC_BULK_UPLOAD="false"))
        try:
            a = users["alice"]
            a.api_prefix = False
            caps = json.loads(a.raw("GET", "/ocs/v2.php/cloud/capabilities?format=json", None,
                                    {"OCS-APIRequest": "true"})[2])["ocs"]["data"]["capabilities"]
            self.assertEqual(caps["dav"], {"chunking": "1.0"})
            status, _, _ = a.raw("POST", "/remote.php/dav/bulk", bulk_request([("/b.txt", b"b", {})]),
                                 {"Content-Type": 'multipart/related; boundary="%s"' % BULK})
            self.assertIn(status, (404, 405))
            self.assertEqual(a.raw("GET", files_url("alice", "b.txt"))[0], 404)
        finally:
            stop_and_fsck(srv)


class GrantedItemsTest(unittest.TestCase):
    """A grant opens the owner's files, never the owner's trash or another
    tree's URLs: a recipient names only their own trash."""

    def test_trash_of_a_granted_folder_stays_the_owners(self):
        srv, admin, users = nc_users(["alice", "bob"])
        try:
            a, b = users["alice"], users["bob"]
            a.raw("MKCOL", files_url("alice", "team"))
            a.raw("PUT", files_url("alice", "team/gone.txt"), b"trashed by alice")
            _, _, listing = a.call("GET", "/api/v1/nodes/%s/children" % a.call("GET", "/api/v1/drives")[2][
                "drives"][0]["root_id"])
            team = [n for n in listing["items"] if n["name"] == "team"][0]["id"]
            status, _, _ = a.call("POST", "/api/v1/nodes/%s/grants" % team, {"user": "bob", "role": "editor"})
            self.assertEqual(status, 201)
            self.assertEqual(a.raw("DELETE", files_url("alice", "team/gone.txt"))[0], 204)
            items = propfind(a, "/remote.php/dav/trashbin/alice/trash/", "1", b"")
            item = [h for h, p in items.items() if NC + "trashbin-filename" in p][0].rstrip("/").rsplit("/", 1)[1]
            unknown = "01a23689-0000-7000-8000-000000000000"
            for method, extra in (("PROPFIND", {"Depth": "0"}), ("DELETE", {}),
                                  ("MOVE", {"Destination": "/remote.php/dav/trashbin/bob/restore/x"})):
                got = b.raw(method, "/remote.php/dav/trashbin/bob/trash/" + item, None, extra)
                want = b.raw(method, "/remote.php/dav/trashbin/bob/trash/" + unknown, None, extra)
                self.assertEqual((got[0], got[2]), (want[0], want[2]), method)
                self.assertEqual(got[0], 404)
            # Still in Alice's trash, restorable by her.
            self.assertEqual(a.raw("MOVE", "/remote.php/dav/trashbin/alice/trash/" + item, None,
                                   {"Destination": "/remote.php/dav/trashbin/alice/restore/gone.txt"})[0], 201)
            self.assertEqual(a.raw("GET", files_url("alice", "team/gone.txt"))[2], b"trashed by alice")
        finally:
            stop_and_fsck(srv)


class VersionsTest(unittest.TestCase):
    def test_list_download_restore_delete(self):
        srv, admin, users = nc_users(["alice", "bob"])
        try:
            a, b = users["alice"], users["bob"]
            for text in (b"one", b"two two", b"three three three"):
                self.assertIn(a.raw("PUT", files_url("alice", "v.txt"), text)[0], (201, 204))
            fileid = propfind(a, files_url("alice", "v.txt"), "0")["/remote.php/dav/files/alice/v.txt"][
                OC + "fileid"].text
            base = "/remote.php/dav/versions/alice/versions/%s/" % fileid
            listing = propfind(a, base, "1", b"")
            versions = {h: p for h, p in listing.items() if h != base}
            self.assertEqual(sorted(int(p[D + "getcontentlength"].text) for p in versions.values()), [3, 7])
            by_size = {int(p[D + "getcontentlength"].text): h for h, p in versions.items()}
            self.assertEqual(a.raw("GET", by_size[3])[2], b"one")
            status, hdrs, part = a.raw("GET", by_size[7], headers={"Range": "bytes=0-2"})
            self.assertEqual((status, part), (206, b"two"))
            # Bob: with Alice's name or his own, the file id is unknown.
            for path in (base, "/remote.php/dav/versions/bob/versions/%s/" % fileid):
                self.assertEqual(b.raw("PROPFIND", path, None, {"Depth": "1"})[0], 404)
            self.assertEqual(b.raw("GET", "/remote.php/dav/versions/bob/versions/%s/%s" % (
                fileid, by_size[3].rsplit("/", 1)[1]))[0], 404)
            # Restore "one": the current content becomes a version.
            status, _, _ = a.raw("MOVE", by_size[3], None,
                                 {"Destination": "/remote.php/dav/versions/alice/restore/target"})
            self.assertEqual(status, 204)
            self.assertEqual(a.raw("GET", files_url("alice", "v.txt"))[2], b"one")
            sizes = sorted(int(p[D + "getcontentlength"].text) for h, p in propfind(a, base, "1", b"").items()
                           if h != base)
            self.assertIn(17, sizes)
            # Delete one.
            listing = propfind(a, base, "1", b"")
            victim = [h for h, p in listing.items() if h != base and p[D + "getcontentlength"].text == "17"][0]
            self.assertEqual(a.raw("DELETE", victim)[0], 204)
            self.assertEqual(a.raw("GET", victim)[0], 404)
        finally:
            stop_and_fsck(srv)


if __name__ == "__main__":
    unittest.main()
