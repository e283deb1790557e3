"""What clients count on not to lose data, against the real binary: HTTP
preconditions on every method (RFC 9110 §13.2), names returned byte for
byte as sent (invariant 12), WebDAV locks that hold on every surface and
cannot be taken twice, COPY/MOVE overwrites that are atomic, and bounds on
what one request may make the server walk. Each case was seen to fail on the
build before the fix."""
import base64
import json
import os
import threading
import unicodedata
import unittest
import urllib.parse

from harness import Server, exchange

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
LOCKINFO = (b'<?xml version="1.0"?><d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope>'
            b'<d:locktype><d:write/></d:locktype><d:owner>test</d:owner></d:lockinfo>')


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def seg(name):
    return urllib.parse.quote(name, safe="")


class SafetyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(env=FAST)
        cls.auth = basic("root", "root password!")
        status, _, _ = exchange(cls.srv, "POST", "/api/v1/setup", {"Content-Type": "application/json"},
                                json.dumps({"username": "root", "password": "root password!"}).encode())
        assert status == 201

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()

    def dav(self, method, path, body=b"", **headers):
        h = dict(self.auth)
        h.update({k.replace("_", "-"): v for k, v in headers.items()})
        return exchange(self.srv, method, path, h, body)

    def api(self, method, path, body=None, **headers):
        h = dict(self.auth)
        h.update({k.replace("_", "-"): v for k, v in headers.items()})
        raw = b""
        if body is not None:
            raw = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        status, hdrs, data = exchange(self.srv, method, "/api/v1" + path, h, raw)
        return status, hdrs, json.loads(data) if data else None

    def node_of(self, dav_path):
        """The REST node of a /dav/ path (through the parent's listing)."""
        _, _, drives = self.api("GET", "/drives")
        node = {"id": drives["drives"][0]["root_id"]}
        for name in urllib.parse.unquote(dav_path[len("/dav/"):]).split("/"):
            _, _, page = self.api("GET", "/nodes/%s/children?limit=500" % node["id"])
            node = next(n for n in page["items"] if n["name"] == name)
        return node

    def test_preconditions_hold_for_every_method(self):
        # Regression: DELETE with a wrong If-Match answered 204 and deleted
        # the file; MOVE with one answered 201 and moved it. Only PUT and
        # PATCH looked at If-Match.
        self.assertEqual(self.dav("MKCOL", "/dav/pre")[0], 201)
        status, hdrs, _ = self.dav("PUT", "/dav/pre/f.txt", b"version 1")
        self.assertEqual(status, 201)
        etag = hdrs["etag"]
        wrong = '"00000000000000000000000000000000"'
        old = "Mon, 01 Jan 2001 00:00:00 GMT"
        proppatch = (b'<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:x="urn:x"><d:set><d:prop>'
                     b'<x:k>v</x:k></d:prop></d:set></d:propertyupdate>')
        refused = [
            ("DELETE", b"", {"If-Match": wrong}),
            ("DELETE", b"", {"If-Unmodified-Since": old}),
            ("DELETE", b"", {"If-None-Match": etag}),
            ("MOVE", b"", {"If-Match": wrong, "Destination": "/dav/pre/g.txt"}),
            ("COPY", b"", {"If-Match": wrong, "Destination": "/dav/pre/h.txt"}),
            ("PROPPATCH", proppatch, {"If-Match": wrong}),
            ("LOCK", LOCKINFO, {"If-Match": wrong}),
            ("PROPFIND", b"", {"If-None-Match": "*", "Depth": "0"}),
            ("PUT", b"version 2", {"If-Match": wrong}),
            ("PUT", b"version 2", {"If-None-Match": "*"}),
        ]
        for method, body, headers in refused:
            status, _, data = self.dav(method, "/dav/pre/f.txt", body, **headers)
            self.assertEqual(status, 412, (method, headers, data))
        self.assertEqual(self.dav("MKCOL", "/dav/pre/new", If_Match=etag)[0], 412)  # If-Match, no resource
        # Nothing happened.
        status, _, data = self.dav("GET", "/dav/pre/f.txt")
        self.assertEqual((status, data), (200, b"version 1"))
        for gone in ("/dav/pre/g.txt", "/dav/pre/h.txt", "/dav/pre/new"):
            self.assertEqual(self.dav("PROPFIND", gone, Depth="0")[0], 404)
        # With the right tag, each goes through.
        self.assertEqual(self.dav("COPY", "/dav/pre/f.txt", If_Match=etag, Destination="/dav/pre/h.txt")[0], 201)
        self.assertEqual(self.dav("MOVE", "/dav/pre/h.txt", If_Match=etag, Destination="/dav/pre/g.txt")[0], 201)
        self.assertEqual(self.dav("DELETE", "/dav/pre/g.txt", If_Match=etag)[0], 204)
        # REST writes evaluate them too, against the node in the path.
        node = self.node_of("/dav/pre/f.txt")
        status, _, body = self.api("PATCH", "/nodes/%s" % node["id"], {"name": "r.txt"}, If_Match=wrong)
        self.assertEqual(status, 412, body)
        self.assertEqual(self.api("DELETE", "/nodes/%s" % node["id"], If_Match=wrong)[0], 412)
        self.assertEqual(self.api("DELETE", "/nodes/%s" % node["id"], If_Unmodified_Since=old)[0], 412)
        self.assertEqual(self.api("POST", "/nodes/%s/copy" % node["id"], {"parent_id": node["parent_id"]},
                                  If_Match=wrong)[0], 412)
        status, _, body = self.api("PATCH", "/nodes/%s" % node["id"], {"name": "r.txt"}, If_Match=etag)
        self.assertEqual((status, body["name"]), (200, "r.txt"))

    def test_names_come_back_as_sent(self):
        # Regression: a file PUT as "Ω ohm sign.txt" with U+2126, or as
        # "café" in NFD (macOS), was listed in NFC — another byte string —
        # so a sync client saw its file vanish and a stranger appear.
        ohm = "\u2126 ohm sign.txt"
        nfd = unicodedata.normalize("NFD", "café.txt")
        self.assertEqual(self.dav("MKCOL", "/dav/names")[0], 201)
        for name in (ohm, nfd):
            self.assertEqual(self.dav("PUT", "/dav/names/" + seg(name), name.encode())[0], 201)
        status, _, data = self.dav("PROPFIND", "/dav/names/", Depth="1")
        self.assertEqual(status, 207)
        self.assertIn(("/dav/names/" + seg(ohm)).encode(), data)
        self.assertIn(("/dav/names/" + seg(nfd)).encode(), data)
        names = [n["name"] for n in self.api("GET", "/nodes/%s/children" % self.node_of("/dav/names")["id"])[2]["items"]]
        self.assertEqual(sorted(names), sorted([ohm, nfd]))
        # Lookups stay normalization- and case-insensitive: the other
        # spellings find the same files and cannot make twins.
        for other, content in ((unicodedata.normalize("NFC", ohm), ohm), ("CAFÉ.TXT", nfd)):
            status, _, data = self.dav("GET", "/dav/names/" + seg(other))
            self.assertEqual((status, data), (200, content.encode()))
        status, _, _ = self.dav("PUT", "/dav/names/" + seg(unicodedata.normalize("NFC", nfd)), b"twin?")
        self.assertEqual(status, 204)  # overwrote the one file
        names = [n["name"] for n in self.api("GET", "/nodes/%s/children" % self.node_of("/dav/names")["id"])[2]["items"]]
        self.assertEqual(sorted(names), sorted([ohm, nfd]))

    def test_rest_writes_honour_webdav_locks(self):
        # Regression: REST renames, moves and deletes ignored WebDAV locks.
        self.assertEqual(self.dav("PUT", "/dav/locked.txt", b"mine")[0], 201)
        status, hdrs, _ = self.dav("LOCK", "/dav/locked.txt", LOCKINFO, Depth="0")
        self.assertEqual(status, 200)
        token = hdrs["lock-token"]
        node = self.node_of("/dav/locked.txt")
        _, _, drives = self.api("GET", "/drives")
        root = drives["drives"][0]["root_id"]
        _, _, folder = self.api("POST", "/nodes/%s/folders" % root, {"name": "elsewhere"})
        for method, path, body in (("PATCH", "/nodes/%s" % node["id"], {"name": "renamed.txt"}),
                                   ("PATCH", "/nodes/%s" % node["id"], {"parent_id": folder["id"]}),
                                   ("DELETE", "/nodes/%s" % node["id"], None),
                                   ("DELETE", "/nodes/%s?permanent=true" % node["id"], None)):
            status, _, data = self.api(method, path, body)
            self.assertEqual(status, 423, (method, path, data))
        status, _, data = exchange(self.srv, "PUT", "/api/v1/nodes/%s/files/locked.txt?conflict=overwrite" % root,
                                   self.auth, b"theirs")
        self.assertEqual(status, 423, data)
        self.assertEqual(self.dav("GET", "/dav/locked.txt")[2], b"mine")
        self.assertEqual(self.dav("UNLOCK", "/dav/locked.txt", Lock_Token=token)[0], 204)
        self.assertEqual(self.api("PATCH", "/nodes/%s" % node["id"], {"name": "renamed.txt"})[0], 200)

    def test_two_exclusive_locks_are_never_both_granted(self):
        # Regression: LOCK checked for conflicts and inserted in two
        # transactions, so concurrent LOCKs could both succeed.
        for round_ in range(5):
            path = "/dav/race%d.txt" % round_
            self.assertEqual(self.dav("PUT", path, b"x")[0], 201)
            results = []
            barrier = threading.Barrier(8)

            def one():
                barrier.wait()
                results.append(self.dav("LOCK", path, LOCKINFO, Depth="0")[0])

            threads = [threading.Thread(target=one) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(sorted(results), [200] + [423] * 7, results)

    def test_an_overwrite_that_fails_keeps_the_destination(self):
        # Regression: COPY/MOVE with Overwrite: T trashed the destination in
        # its own transaction first, so a 507 afterwards lost it to the trash.
        status, _, _ = self.api("POST", "/admin/users", {"username": "tight", "password": "tight password"})
        self.assertEqual(status, 201)
        self.assertEqual(self.api("PATCH", "/admin/users/tight", {"quota_bytes": 300000})[0], 200)
        tight = basic("tight", "tight password")
        self.assertEqual(exchange(self.srv, "PUT", "/dav/big.bin", tight, os.urandom(200000))[0], 201)
        self.assertEqual(exchange(self.srv, "PUT", "/dav/dest.bin", tight, b"keep me")[0], 201)
        status, _, data = exchange(self.srv, "COPY", "/dav/big.bin", dict(tight, Destination="/dav/dest.bin",
                                                                         Overwrite="T"))
        self.assertEqual(status, 507, data)
        status, _, data = exchange(self.srv, "GET", "/dav/dest.bin", tight)
        self.assertEqual((status, data), (200, b"keep me"))
        status, _, trash = exchange(self.srv, "GET", "/api/v1/trash", tight)
        self.assertEqual(json.loads(trash)["items"], [])
        # A move onto it that succeeds replaces it, and the old one is in the trash.
        self.assertEqual(exchange(self.srv, "PUT", "/dav/small.bin", tight, b"new")[0], 201)
        self.assertEqual(exchange(self.srv, "MOVE", "/dav/small.bin",
                                  dict(tight, Destination="/dav/dest.bin", Overwrite="T"))[0], 204)
        self.assertEqual(exchange(self.srv, "GET", "/dav/dest.bin", tight)[2], b"new")
        _, _, trash = exchange(self.srv, "GET", "/api/v1/trash", tight)
        self.assertEqual([n["name"] for n in json.loads(trash)["items"]], ["dest.bin"])

    def test_bounds_on_what_one_request_walks(self):
        # Paths deeper than 256 segments and If headers naming many
        # resources are refused before any lookup (each cost a query per
        # ancestor).
        deep = "/dav/" + "/".join(["d"] * 300)
        self.assertIn(self.dav("PROPFIND", deep, Depth="0")[0], (400, 404))
        self.assertEqual(self.dav("PUT", deep + "/f.txt", b"x")[0], 400)
        self.assertEqual(self.dav("PUT", "/dav/if.txt", b"x")[0], 201)
        many = " ".join("</dav/x%d> (<urn:uuid:%d>)" % (i, i) for i in range(40))
        status, _, _ = self.dav("PUT", "/dav/if.txt", b"y", If=many)
        self.assertEqual(status, 400)
        # A folder holding many " (n)" names picks the first free number.
        self.assertEqual(self.dav("MKCOL", "/dav/nums")[0], 201)
        for n in ["a.txt"] + ["a (%d).txt" % i for i in range(1, 60) if i != 37]:
            self.assertEqual(self.dav("PUT", "/dav/nums/" + seg(n), b"n")[0], 201)
        folder = self.node_of("/dav/nums")
        status, _, data = exchange(self.srv, "PUT", "/api/v1/nodes/%s/files/a.txt?conflict=rename" % folder["id"],
                                   self.auth, b"another")
        self.assertEqual((status, json.loads(data)["name"]), (201, "a (37).txt"))


if __name__ == "__main__":
    unittest.main()
