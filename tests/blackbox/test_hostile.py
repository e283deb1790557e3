"""Hostile inputs, each answered precisely and harmlessly: path traversal in
every spelling (dot segments, percent-encoded, overlong UTF-8, NUL,
backslashes) on REST, WebDAV and the static files; XML entity expansion and
external entities; ZIP entry names; a multipart body of 100,000 parts.
(Huge headers and slowloris are in test_http_core.)"""
import base64
import io
import json
import os
import tempfile
import time
import unittest
import zipfile

from harness import Server, exchange

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
AUTH = {"Authorization": "Basic " + base64.b64encode(b"admin:admin password 1").decode()}


class HostileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.web = tempfile.TemporaryDirectory(prefix="nubo-web-")
        with open(os.path.join(cls.web.name, "index.html"), "w") as f:
            f.write("<!doctype html><title>app</title>")
        cls.srv = Server(env=dict(FAST, NUBO_WEB_DIR=cls.web.name))
        st, _, _ = exchange(cls.srv, "POST", "/api/v1/setup", {"Content-Type": "application/json"},
                            json.dumps({"username": "admin", "password": "admin password 1"}).encode())
        assert st == 201
        st, _, body = exchange(cls.srv, "GET", "/api/v1/drives", AUTH)
        cls.root = json.loads(body)["drives"][0]["root_id"]

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()
        cls.web.cleanup()

    def call(self, method, path, body=b"", headers=None):
        h = dict(AUTH)
        h.update(headers or {})
        return exchange(self.srv, method, path, h, body)

    def names(self):
        st, _, body = self.call("GET", "/api/v1/nodes/%s/children?limit=500" % self.root)
        return [n["name"] for n in json.loads(body)["items"]]

    def test_traversal_in_upload_names(self):
        before = self.names()
        for name in ("..", ".", "%2e%2e", "a%2Fb", "%2F", "a%00b", "%C0%AE%C0%AE", "%C0%AF", "%E0%80%AF",
                     "%FF", "%2e%2e%2f%2e%2e%2fetc%2fpasswd"):
            st, _, body = self.call("PUT", "/api/v1/nodes/%s/files/%s" % (self.root, name), b"x")
            self.assertIn(st, (400, 404), "%s: %d %r" % (name, st, body[:200]))
        self.assertEqual(self.names(), before)
        # A backslash is an ordinary character on Linux and macOS: stored as
        # a name, never as a path separator.
        st, _, body = self.call("PUT", "/api/v1/nodes/%s/files/a%%5C..%%5Cb" % self.root, b"x")
        self.assertEqual(st, 201, body)
        self.assertIn("a\\..\\b", self.names())

    def test_traversal_on_dav_and_static(self):
        for path in ("/dav/../../etc/passwd", "/dav/%2e%2e/%2e%2e/etc/passwd", "/dav/a%2f..%2f..%2fx",
                     "/dav/%C0%AE%C0%AE/x", "/dav/a%00b"):
            st, _, body = self.call("GET", path)
            self.assertIn(st, (400, 404), "%s: %d" % (path, st))
            self.assertNotIn(b"root:", body)
        for path in ("/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fetc%2fpasswd",
                     "/%C0%AE%C0%AE/etc/passwd"):
            st, _, body = exchange(self.srv, "GET", path)
            self.assertNotIn(b"root:", body, path)
        # Destination headers that climb out of the mount.
        self.assertEqual(self.call("PUT", "/dav/src.txt", b"s")[0], 201)
        for dest in ("/dav/../../tmp/x", "/dav/%2e%2e/x", "http://evil.example/dav/x", "/api/v1/x"):
            st, _, _ = self.call("COPY", "/dav/src.txt", headers={"Destination": dest})
            self.assertIn(st, (400, 403, 502), dest)

    def test_xml_entities_are_refused(self):
        bombs = [
            b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
            b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]><D:propfind xmlns:D="DAV:"><D:prop><D:x>&c;</D:x></D:prop>'
            b'</D:propfind>',
            b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<D:propfind xmlns:D="DAV:"><D:prop><D:x>&x;</D:x></D:prop></D:propfind>',
            b'<?xml version="1.0"?><!DOCTYPE d SYSTEM "http://127.0.0.1:1/x.dtd"><D:propfind xmlns:D="DAV:"/>',
        ]
        for body in bombs:
            st, _, resp = self.call("PROPFIND", "/dav/", body, {"Depth": "0", "Content-Type": "application/xml"})
            self.assertEqual(st, 400, resp[:200])
            self.assertNotIn(b"root:", resp)

    def test_zip_entry_names_stay_inside(self):
        st, _, body = self.call("POST", "/api/v1/nodes/%s/folders" % self.root,
                                json.dumps({"name": "zipme"}).encode(), {"Content-Type": "application/json"})
        folder = json.loads(body)["id"]
        for name in ("..%5C..%5Cwin.txt", "%E2%80%AEtxt.exe", "a:b.txt", "%20lead.txt"):
            st, _, body = self.call("PUT", "/api/v1/nodes/%s/files/%s" % (folder, name), b"z")
            self.assertEqual(st, 201, body)
        st, _, body = self.call("GET", "/api/v1/nodes/%s/zip" % folder)
        self.assertEqual(st, 200)
        with zipfile.ZipFile(io.BytesIO(body)) as zf:
            names = [i.filename for i in zf.infolist()]
            for name in names:
                # Windows extractors split on backslashes too: no component
                # may climb, none may be absolute.
                parts = name.replace("\\", "/").split("/")
                self.assertNotIn("..", parts, name)
                self.assertFalse(name.startswith(("/", "\\")), name)
                self.assertTrue(name.startswith("zipme/"), name)
            self.assertIn("zipme/.._.._win.txt", names)

    def test_multipart_with_100k_parts(self):
        boundary = "b0undary"
        part = ('--%s\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n' % boundary).encode()
        body = part * 100000 + ("--%s--\r\n" % boundary).encode()
        t0 = time.time()
        st, _, resp = self.call("POST", "/api/v1/nodes/%s/upload" % self.root, body,
                                {"Content-Type": "multipart/form-data; boundary=" + boundary})
        self.assertEqual(st, 400, resp[:300])
        self.assertIn(b"part", resp)
        self.assertLess(time.time() - t0, 30)
        # The server is fine afterwards.
        self.assertEqual(exchange(self.srv, "GET", "/health")[0], 200)
