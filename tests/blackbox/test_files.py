"""The files REST API (/api/v1, issue 5) against the real binary: streamed
uploads and downloads, ranges, conditional requests, names and conflicts,
checksums, multipart and instant uploads, copy/move/trash/restore, listings,
favorites, recent, search, ZIP, batch, quotas and isolation between users.
Each class ends with an fsck of its data directory.

Python has no BLAKE3, so content is compared byte for byte and by SHA-256;
the server's BLAKE3 ("hash", ETag) is checked for form and stability (and
against the known BLAKE3 of the empty string)."""
import base64
import concurrent.futures
import email.utils
import hashlib
import http.client
import io
import json
import os
import random
import re
import sqlite3
import subprocess
import threading
import time
import unicodedata
import unittest
import urllib.parse
import zipfile

from harness import NUBO_BIN, Reader, Server, exchange, metric, request, sqlite_only

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
API = "/api/v1"
ADMIN = ("root", "root password!")
BIG_BYTES = int(os.environ.get("NUBO_TEST_BIG_BYTES", str(1 << 30)))
RSS_LIMIT_KB = 64 << 10
SANITIZED = bool(os.environ.get("NUBO_TEST_SANITIZED"))  # ASan's shadow memory is not ours
NOT_FOUND = {"error": "not_found", "message": "no such file or folder"}
EMPTY_BLAKE3 = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
HEX64 = re.compile(r"^[0-9a-f]{64}$")
MiB = 1 << 20


# ----------------------------------------------------------------------------
# Small helpers


def nfc(s):
    return unicodedata.normalize("NFC", s)


def enc(name):
    """A name as one percent-encoded path segment."""
    return urllib.parse.quote(name, safe="")


def sha(data):
    return hashlib.sha256(data).hexdigest()


def qs(**params):
    return urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})


def fake_id():
    """A well-formed UUIDv7 that names nothing."""
    ms = int(time.time() * 1000)
    r = int.from_bytes(os.urandom(10), "big")
    v = (ms << 80) | (0x7 << 76) | ((r >> 68) << 64) | (0b10 << 62) | (r & ((1 << 62) - 1))
    h = "%032x" % v
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def response_headers(resp):
    out = {}
    for k, v in resp.getheaders():
        k = k.lower()
        out[k] = out[k] + "\n" + v if k in out else v
    return out


def parse_json(data):
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data


def multipart_body(parts, boundary=None):
    """parts: (filename or None, data[, field name]) → (content type, body).
    A part without a filename is a plain form field."""
    boundary = boundary or "nubo-test-" + os.urandom(12).hex()
    b = boundary.encode()
    out = [b"preamble\r\n"]
    for p in parts:
        filename, data = p[0], p[1]
        field = p[2] if len(p) > 2 else ("file" if filename is not None else "note")
        disp = 'form-data; name="%s"' % field
        if filename is not None:
            disp += '; filename="%s"' % filename
        out.append(b"--" + b + b"\r\nContent-Disposition: " + disp.encode("utf-8") + b"\r\n")
        if filename is not None:
            out.append(b"Content-Type: application/octet-stream\r\n")
        out.append(b"\r\n" + data + b"\r\n")
    out.append(b"--" + b + b"--\r\n")
    return "multipart/form-data; boundary=" + boundary, b"".join(out)


def parse_byteranges(content_type, body):
    """multipart/byteranges → [(first, last, total, content type, data)],
    reading each part by the length its Content-Range gives."""
    m = re.search(r'boundary="?([^";]+)"?', content_type)
    assert m, content_type
    delim = b"--" + m.group(1).encode()
    pos = body.index(delim)
    parts = []
    while True:
        pos += len(delim)
        if body[pos:pos + 2] == b"--":
            return parts
        assert body[pos:pos + 2] == b"\r\n", body[pos:pos + 20]
        end = body.index(b"\r\n\r\n", pos)
        headers = {}
        for line in body[pos + 2:end].decode().split("\r\n"):
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
        cr = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", headers["content-range"])
        assert cr, headers
        first, last, total = map(int, cr.groups())
        start = end + 4
        data = body[start:start + last - first + 1]
        assert len(data) == last - first + 1
        parts.append((first, last, total, headers.get("content-type"), data))
        pos = start + len(data)
        assert body[pos:pos + 2] == b"\r\n", body[pos:pos + 20]
        pos = body.index(delim, pos)


def eventually(fn, timeout=5.0):
    """fn() until truthy (or the timeout): returns the last value."""
    deadline = time.time() + timeout
    while True:
        v = fn()
        if v or time.time() > deadline:
            return v
        time.sleep(0.05)


def run_fsck(srv):
    return subprocess.run([NUBO_BIN, "--data", srv.data, "fsck"], capture_output=True, text=True,
                          timeout=600, env=srv.tool_env())


def start_with_users(names, env=None):
    """A fresh server with its administrator ("admin", password "admin
    password 1") and the named users (password NAME + " password 1"):
    (server, the admin's Client, {name: Client})."""
    srv = Server(env=env)
    admin = Client(srv, "admin", "admin password 1")
    status, _, body = admin.call("POST", "/api/v1/setup", {"username": "admin", "password": "admin password 1"},
                                 auth=False)
    assert status == 201, body
    users = {}
    for name in names:
        status, _, body = admin.call("POST", "/admin/users", {"username": name, "password": name + " password 1"})
        assert status == 201, body
        users[name] = Client(srv, name, name + " password 1")
    return srv, admin, users


def stop_and_fsck(srv):
    """SIGTERM (a clean exit), then `nubo fsck` of the data directory must
    find nothing."""
    code = srv.terminate()
    p = run_fsck(srv)
    srv.close()
    assert code == 0, code
    assert p.returncode == 0 and " 0 problems" in p.stdout, p.stdout + p.stderr


class Client:
    """One account's view of the API; every request on a fresh connection."""

    def __init__(self, srv, user, password):
        self.srv = srv
        self.user = user
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self._root = None
        self.api_prefix = True  # paths not under /api/ or a DAV tree are below /api/v1

    def raw(self, method, path, body=None, headers=None, timeout=120, auth=True):
        """(status, lower-case headers, body bytes). `path` is below /api/v1
        unless it starts with /api/; dict/list bodies are sent as JSON."""
        h = {"Authorization": self.auth} if auth else {}
        h.update(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        conn = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=timeout)
        try:
            as_is = not self.api_prefix or path.startswith(("/api/", "/dav/", "/remote.php/", "/.well-known/"))
            conn.request(method, path if as_is else API + path, body=body,
                         headers=h)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, response_headers(resp), data
        finally:
            conn.close()

    def call(self, method, path, body=None, headers=None, **kw):
        """Like raw, with the body parsed as JSON when it is JSON."""
        status, hdrs, data = self.raw(method, path, body, headers, **kw)
        return status, hdrs, parse_json(data)

    # --- drive and nodes

    @property
    def root(self):
        if self._root is None:
            status, _, body = self.call("GET", "/drives")
            assert status == 200, (status, body)
            self._root = body["drives"][0]["root_id"]
        return self._root

    def usage(self):
        status, _, body = self.call("GET", "/me/usage")
        assert status == 200, (status, body)
        return body

    def node(self, node_id):
        status, _, body = self.call("GET", "/nodes/" + node_id)
        assert status == 200, (status, body)
        return body

    def status_of(self, node_id):
        return self.call("GET", "/nodes/" + node_id)[0]

    def mkdir(self, parent, name, conflict=None, expect=201):
        body = {"name": name}
        if conflict:
            body["conflict"] = conflict
        status, _, node = self.call("POST", "/nodes/%s/folders" % parent, body)
        assert status == expect, (status, node, name)
        return node

    def upload(self, parent, name, data, headers=None, **params):
        """PUT /nodes/{parent}/files/{name}: (status, headers, json)."""
        query = qs(**params)
        path = "/nodes/%s/files/%s%s" % (parent, enc(name), "?" + query if query else "")
        return self.call("PUT", path, data, headers)

    def send(self, parent, name, data, headers=None, **params):
        """Like upload, but with Expect: 100-continue over a raw socket: for
        uploads the server may refuse before reading the body."""
        query = qs(**params)
        path = "/nodes/%s/files/%s%s" % (parent, enc(name), "?" + query if query else "")
        return raw_upload(self.srv, self.auth, path, [data] if data else [], total=len(data),
                          expect_continue=True, headers=headers)

    def recent_ids(self):
        return [n["id"] for n in self.recent()]

    def put(self, parent, name, data, expect=201, **kw):
        status, _, node = self.upload(parent, name, data, **kw)
        assert status == expect, (status, node, name)
        return node

    def content(self, node_id, headers=None, query=""):
        return self.raw("GET", "/nodes/%s/content%s" % (node_id, query), headers=headers)

    def read(self, node_id):
        status, _, data = self.content(node_id)
        assert status == 200, (status, data[:200])
        return data

    def children(self, folder, **params):
        status, _, page = self.call("GET", "/nodes/%s/children?%s" % (folder, qs(**params)))
        assert status == 200, (status, page)
        return page

    def list_all(self, folder, **params):
        params.setdefault("limit", 500)
        items, cursor = [], None
        while True:
            page = self.children(folder, cursor=cursor, **params)
            items += page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                return items

    def names(self, folder):
        return sorted(n["name"] for n in self.list_all(folder))

    def walk(self, folder, prefix=""):
        """{relative path: node} of every live node below `folder`."""
        out = {}
        for n in self.list_all(folder):
            rel = prefix + n["name"]
            out[rel] = n
            if n["kind"] == "folder":
                out.update(self.walk(n["id"], rel + "/"))
        return out

    def multipart(self, parent, parts, **params):
        ctype, body = multipart_body(parts)
        query = qs(**params)
        return self.call("POST", "/nodes/%s/upload%s" % (parent, "?" + query if query else ""), body,
                         {"Content-Type": ctype})

    def delete(self, node_id, permanent=False):
        return self.call("DELETE", "/nodes/%s%s" % (node_id, "?permanent=true" if permanent else ""))[0]

    def paged(self, path, limit=None, key="items"):
        """Every item of a cursor-paged listing."""
        items, cursor = [], None
        while True:
            sep = "&" if "?" in path else "?"
            status, _, page = self.call("GET", path + sep + qs(limit=limit, cursor=cursor))
            assert status == 200, (status, page, path)
            items += page[key]
            cursor = page.get("next_cursor")
            if not cursor:
                return items

    def trash(self):
        return self.paged("/trash", limit=500)

    def favorites(self):
        return self.paged("/favorites", limit=500)

    def recent(self):
        status, _, body = self.call("GET", "/recent")
        assert status == 200, (status, body)
        return body["items"]

    def search(self, q, **params):
        return self.paged("/search?" + qs(q=q, **params), limit=500)


def raw_upload(srv, auth, path, chunks, total=None, expect_continue=False, headers=None):
    """PUT with Content-Length `total` (chunked when None) over a raw socket,
    tolerating an early answer (the server may refuse before reading the
    body and close). With `expect_continue` the body is sent only after
    "100 Continue", so an early refusal never races the upload. Returns
    (status, headers, json)."""
    headers = dict(headers or {}, Authorization=auth)
    if total is None:
        headers["Transfer-Encoding"] = "chunked"
    else:
        headers["Content-Length"] = str(total)
    if expect_continue:
        headers["Expect"] = "100-continue"
    with srv.connect(timeout=120) as s:
        s.sendall(request("PUT", API + path, headers))
        r = Reader(s)
        if expect_continue:
            status, hdrs, body = r.response()
            if status != 100:
                return status, hdrs, parse_json(body)
        try:
            for c in chunks:
                s.sendall(b"%x\r\n%s\r\n" % (len(c), c) if total is None else c)
            if total is None:
                s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, hdrs, body = r.response()
        while status == 100:
            status, hdrs, body = r.response()
        return status, hdrs, parse_json(body)


def start_server(env=None):
    srv = Server(env=dict(FAST, **(env or {})), test_routes=False)
    admin = Client(srv, *ADMIN)
    status, _, body = admin.call("POST", "/api/v1/setup", {"username": ADMIN[0], "password": ADMIN[1]},
                                 auth=False)
    assert status == 201, (status, body)
    return srv, admin


def add_user(admin, name, password, quota=None):
    status, _, body = admin.call("POST", "/api/v1/admin/users", {"username": name, "password": password})
    assert status == 201, (status, body)
    if quota is not None:
        status, _, body = admin.call("PATCH", "/api/v1/admin/users/" + name, {"quota_bytes": quota})
        assert status == 200 and body["quota_bytes"] == quota, (status, body)
    return Client(admin.srv, name, password)


class FsckMixin:
    def assert_clean_shutdown_and_fsck(self, srv):
        self.assertEqual(srv.terminate(), 0, srv.log()[-3000:])
        p = run_fsck(srv)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertNotIn("PROBLEM", p.stdout)
        self.assertRegex(p.stdout, r" 0 problems")


# ----------------------------------------------------------------------------
# The main class: one server, users alice and bob, one folder per test.


class FilesTest(FsckMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin = start_server()
        cls.a = add_user(cls.admin, "alice", "alice password")
        cls.b = add_user(cls.admin, "bob", "bob's password")

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def setUp(self):
        if self.srv.proc.poll() is None:
            self.base = self.a.mkdir(self.a.root, self._testMethodName)["id"]

    def assertNotFound(self, status, body):
        self.assertEqual(status, 404, body)
        self.assertEqual(body, NOT_FOUND)

    def assertNodeFile(self, node, name, data, parent):
        self.assertEqual(node["kind"], "file")
        self.assertEqual(node["name"], name)
        self.assertEqual(node["parent_id"], parent)
        self.assertEqual(node["size"], len(data))
        self.assertRegex(node["hash"], HEX64)
        # The ETag is the content hash's first 128 bits (short enough for
        # clients that build If headers in fixed buffers).
        self.assertEqual(node["etag"], '"%s"' % node["hash"][:32])
        self.assertIs(node["favorite"], False)
        self.assertIsInstance(node["modified"], int)
        self.assertIsInstance(node["created"], int)
        self.assertIsInstance(node["id"], str)

    # --- basics

    def test_drives_usage_root_and_auth(self):
        a = self.a
        self.assertEqual(a.raw("GET", "/drives", auth=False)[0], 401)
        self.assertEqual(a.raw("GET", "/nodes/" + a.root, auth=False)[0], 401)
        self.assertEqual(a.raw("PUT", "/nodes/%s/files/x.txt" % a.root, b"x", auth=False)[0], 401)
        status, _, body = a.call("GET", "/drives")
        self.assertEqual(status, 200, body)
        self.assertEqual(len(body["drives"]), 1)
        d = body["drives"][0]
        self.assertEqual(d["kind"], "personal")
        self.assertIsNone(d["quota_bytes"])
        self.assertIsInstance(d["used_bytes"], int)
        self.assertEqual(set(d), {"id", "kind", "name", "root_id", "used_bytes", "versions_bytes", "quota_bytes",
                                  "role"})
        self.assertEqual(d["role"], "owner")
        root = a.node(a.root)
        self.assertEqual((root["kind"], root["parent_id"], root["path"], root["mime"]),
                         ("folder", None, [], "inode/directory"))
        self.assertNotIn("hash", root)
        self.assertTrue(root["etag"].startswith('"') and root["etag"].endswith('"'), root["etag"])
        self.assertEqual(a.usage(), {"used_bytes": d["used_bytes"], "versions_bytes": d["versions_bytes"],
                                     "quota_bytes": None})
        self.assertNotEqual(self.b.root, a.root)
        # The root can be neither renamed, moved nor deleted.
        self.assertEqual(a.call("PATCH", "/nodes/" + a.root, {"name": "x"})[0], 409)
        self.assertEqual(a.delete(a.root), 409)
        self.assertEqual(a.delete(a.root, permanent=True), 409)
        # A folder has no content; a file has no children.
        status, _, body = a.call("GET", "/nodes/%s/content" % self.base)
        self.assertEqual((status, body["error"]), (400, "invalid_argument"))
        f = a.put(self.base, "f.txt", b"f")
        self.assertNotFound(*a.call("GET", "/nodes/%s/children" % f["id"])[::2])

    def test_round_trips(self):
        a = self.a
        for size in (0, 1, 64 << 10, 10 * MiB):
            data = os.urandom(size)
            name = "rt-%d.bin" % size
            node = a.put(self.base, name, data)
            self.assertNodeFile(node, name, data, self.base)
            if size == 0:
                self.assertEqual(node["hash"], EMPTY_BLAKE3)
            status, hdrs, got = a.content(node["id"])
            self.assertEqual(status, 200)
            self.assertEqual(len(got), size)
            self.assertEqual(sha(got), sha(data))
            self.assertEqual(got, data)
            self.assertEqual(hdrs["etag"], node["etag"])
            self.assertEqual(hdrs["content-length"], str(size))
            self.assertEqual(hdrs["accept-ranges"], "bytes")
            self.assertEqual(hdrs["x-content-type-options"], "nosniff")
            self.assertIn("last-modified", hdrs)
            # Stable on a second read, and by GET /nodes/{id}.
            status, hdrs2, got2 = a.content(node["id"])
            self.assertEqual((status, hdrs2["etag"], got2), (200, node["etag"], data))
            again = a.node(node["id"])
            self.assertEqual((again["etag"], again["hash"], again["size"]), (node["etag"], node["hash"], size))
            self.assertEqual([p["id"] for p in again["path"]], [a.root, self.base])
            self.assertEqual(again["path"][-1]["name"], self._testMethodName)
            # HEAD: the headers of GET, no body.
            status, hdrs3, body = a.raw("HEAD", "/nodes/%s/content" % node["id"])
            self.assertEqual((status, hdrs3["content-length"], hdrs3["etag"], body), (200, str(size), node["etag"], b""))
            # Same bytes under another name: same BLAKE3.
            twin = a.put(self.base, "twin-" + name, data)
            self.assertEqual(twin["hash"], node["hash"])
            self.assertNotEqual(twin["id"], node["id"])
        self.assertEqual(a.node(self.base)["size"], 2 * (1 + (64 << 10) + 10 * MiB))

    def test_chunked_upload(self):
        a = self.a
        pieces = [os.urandom(n) for n in (1, 65535, 1 << 20, 3 * MiB + 7, 12)]
        data = b"".join(pieces)
        conn = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=120)
        try:
            conn.request("PUT", API + "/nodes/%s/files/chunked.bin" % self.base, body=iter(pieces),
                         headers={"Authorization": a.auth, "Transfer-Encoding": "chunked"}, encode_chunked=True)
            resp = conn.getresponse()
            node = json.loads(resp.read())
            self.assertEqual(resp.status, 201, node)
        finally:
            conn.close()
        self.assertNodeFile(node, "chunked.bin", data, self.base)
        self.assertEqual(sha(a.read(node["id"])), sha(data))

    def test_content_headers_and_modified(self):
        a = self.a
        ms = 1_600_000_000_123
        txt = a.put(self.base, "Grüße report.txt", b"hello world\n", modified=ms)
        self.assertEqual((txt["mime"], txt["modified"], txt["name"]), ("text/plain", ms, "Grüße report.txt"))
        status, hdrs, data = a.content(txt["id"])
        self.assertEqual((status, data), (200, b"hello world\n"))
        self.assertEqual(hdrs["content-type"].split(";")[0].strip(), "text/plain")
        self.assertEqual(hdrs["last-modified"], email.utils.formatdate(ms // 1000, usegmt=True))
        self.assertEqual(hdrs["x-content-type-options"], "nosniff")
        cd = hdrs["content-disposition"]
        self.assertTrue(cd.startswith("inline"), cd)
        m = re.search(r"filename\*=UTF-8''([^;\s]+)", cd, re.I)
        self.assertTrue(m, cd)
        self.assertEqual(urllib.parse.unquote(m.group(1)), "Grüße report.txt")
        m = re.search(r'filename="([^"]*)"', cd)
        self.assertTrue(m, cd)
        self.assertTrue(all(32 <= ord(c) < 127 for c in m.group(1)), cd)
        _, hdrs, _ = a.content(txt["id"], query="?download=1")
        self.assertTrue(hdrs["content-disposition"].startswith("attachment"), hdrs["content-disposition"])
        for name, body in (("page.html", b"<!DOCTYPE html><html><body><script>1</script></body></html>"),
                           ("pic.svg", b'<svg xmlns="http://www.w3.org/2000/svg"></svg>')):
            n = a.put(self.base, name, body)
            status, hdrs, data = a.content(n["id"])
            self.assertEqual((status, data), (200, body))
            self.assertEqual(hdrs["content-type"].split(";")[0].strip(), n["mime"])
            self.assertTrue(hdrs["content-disposition"].startswith("attachment"), (name, hdrs["content-disposition"]))
            self.assertEqual(hdrs["x-content-type-options"], "nosniff")

    # --- ranges and conditionals

    def test_ranges(self):
        a = self.a
        size = 3 * MiB + 12345
        data = os.urandom(size)
        node = a.put(self.base, "ranges.bin", data)
        fid = node["id"]

        def single(spec, first, last):
            status, hdrs, body = a.content(fid, {"Range": spec})
            self.assertEqual(status, 206, spec)
            self.assertEqual(hdrs["content-range"], "bytes %d-%d/%d" % (first, last, size), spec)
            self.assertEqual(hdrs["content-length"], str(last - first + 1), spec)
            self.assertEqual(body, data[first:last + 1], spec)
            self.assertEqual(hdrs["etag"], node["etag"])

        for first, last in ((0, 0), (65535, 65536), (65536, 65536), (262143, 262145), (1048575, 1048577),
                            (2097151, 2097153), (size - 1, size - 1), (0, size - 1)):
            single("bytes=%d-%d" % (first, last), first, last)
        single("bytes=%d-" % (size - 1), size - 1, size - 1)
        single("bytes=-10", size - 10, size - 1)
        single("bytes=%d-%d" % (size - 5, size + 100), size - 5, size - 1)
        single("bytes=0-", 0, size - 1)
        single("bytes=0-1,%d-" % (size + 5), 0, 1)  # the unsatisfiable piece is dropped
        rng = random.Random(5)
        for _ in range(60):
            first = rng.randrange(size)
            last = min(size - 1, first + rng.randrange(1, 3 * MiB // 2))
            single("bytes=%d-%d" % (first, last), first, last)
        # Several ranges: multipart/byteranges, in the order asked.
        asked = [(0, 9), (65530, 65545), (262140, 262150), (size - 3, size - 1)]
        status, hdrs, body = a.content(fid, {"Range": "bytes=0-9,65530-65545,262140-262150,%d-" % (size - 3)})
        self.assertEqual(status, 206)
        self.assertTrue(hdrs["content-type"].startswith("multipart/byteranges"), hdrs["content-type"])
        self.assertNotIn("content-range", hdrs)
        parts = parse_byteranges(hdrs["content-type"], body)
        self.assertEqual([(p[0], p[1], p[2]) for p in parts], [(f, l, size) for f, l in asked])
        for f, l, _, _, chunk in parts:
            self.assertEqual(chunk, data[f:l + 1])
        # Unsatisfiable.
        for spec in ("bytes=%d-" % size, "bytes=%d-%d" % (size + 10, size + 20)):
            status, hdrs, body = a.content(fid, {"Range": spec})
            self.assertEqual(status, 416, spec)
            self.assertEqual(hdrs["content-range"], "bytes */%d" % size)
            self.assertEqual(json.loads(body)["error"], "range_not_satisfiable")
        # A malformed Range is ignored (RFC 9110 §14.2).
        status, hdrs, body = a.content(fid, {"Range": "bytes=abc"})
        self.assertEqual((status, len(body)), (200, size))
        self.assertEqual(body, data)
        # An empty file has no satisfiable range.
        empty = a.put(self.base, "empty.bin", b"")
        status, hdrs, _ = a.content(empty["id"], {"Range": "bytes=0-0"})
        self.assertEqual((status, hdrs["content-range"]), (416, "bytes */0"))
        # If-Range: a matching ETag honours the range, another one sends everything.
        status, _, body = a.content(fid, {"Range": "bytes=0-3", "If-Range": node["etag"]})
        self.assertEqual((status, body), (206, data[:4]))
        status, _, body = a.content(fid, {"Range": "bytes=0-3", "If-Range": '"%s"' % ("0" * 64)})
        self.assertEqual((status, len(body)), (200, size))

    def test_conditionals(self):
        a = self.a
        data = os.urandom(100000)
        node = a.put(self.base, "cond.bin", data)
        fid, etag = node["id"], node["etag"]
        other = '"%s"' % ("0" * 64)
        status, hdrs, body = a.content(fid, {"If-None-Match": etag})
        self.assertEqual((status, body, hdrs["etag"]), (304, b"", etag))
        self.assertEqual(a.content(fid, {"If-None-Match": "*"})[0], 304)
        self.assertEqual(a.content(fid, {"If-None-Match": other})[:3:2], (200, data))
        self.assertEqual(a.content(fid, {"If-Match": other})[0], 412)
        self.assertEqual(a.content(fid, {"If-Match": etag})[:3:2], (200, data))
        self.assertEqual(a.content(fid, {"If-Unmodified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})[0], 412)
        self.assertEqual(a.content(fid, {"If-Unmodified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"})[0], 200)
        last_modified = a.content(fid)[1]["last-modified"]
        self.assertEqual(a.content(fid, {"If-Modified-Since": last_modified})[0], 304)
        self.assertEqual(a.content(fid, {"If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"})[0], 200)
        status, hdrs, _ = a.raw("HEAD", "/nodes/%s/content" % fid, headers={"If-None-Match": etag})
        self.assertEqual(status, 304)
        # Overwrite guarded by If-Match: the wrong tag stores nothing.
        new = os.urandom(5000)
        status, _, body = a.send(self.base, "cond.bin", new, {"If-Match": other}, conflict="overwrite")
        self.assertEqual(status, 412, body)
        self.assertEqual(body["error"], "precondition_failed")
        self.assertEqual(a.read(fid), data)
        self.assertEqual(a.node(fid)["etag"], etag)
        status, _, body = a.upload(self.base, "cond.bin", new, {"If-Match": etag}, conflict="overwrite")
        self.assertEqual(status, 200, body)
        self.assertEqual((body["id"], body["size"]), (fid, len(new)))
        self.assertNotEqual(body["etag"], etag)
        self.assertEqual(a.read(fid), new)
        # The old tag is stale now.
        self.assertEqual(a.send(self.base, "cond.bin", data, {"If-Match": etag}, conflict="overwrite")[0], 412)
        self.assertEqual(a.read(fid), new)
        self.assertEqual(a.content(fid, {"If-None-Match": etag})[0], 200)

    # --- names and conflicts

    def test_conflict_policies(self):
        a, base = self.a, self.base
        first = a.put(base, "a.txt", b"one")
        status, _, body = a.upload(base, "a.txt", b"two")
        self.assertEqual(status, 409, body)
        self.assertIn(body["error"], ("already_exists", "conflict"))
        self.assertEqual(a.upload(base, "a.txt", b"two", conflict="fail")[0], 409)
        self.assertEqual(a.read(first["id"]), b"one")
        self.assertEqual(a.put(base, "a.txt", b"two", conflict="rename")["name"], "a (1).txt")
        self.assertEqual(a.put(base, "a.txt", b"2b", conflict="rename")["name"], "a (2).txt")
        status, _, body = a.upload(base, "a.txt", b"three", conflict="overwrite")
        self.assertEqual(status, 200, body)
        self.assertEqual((body["id"], body["size"]), (first["id"], 5))
        self.assertEqual(a.read(first["id"]), b"three")
        # Sibling names are unique case-insensitively.
        self.assertEqual(a.upload(base, "A.TXT", b"x")[0], 409)
        self.assertEqual(a.put(base, "A.TXT", b"x", conflict="rename")["name"], "A (3).TXT")
        status, _, body = a.upload(base, "A.txt", b"four", conflict="overwrite")
        self.assertEqual((status, body["id"]), (200, first["id"]))
        self.assertEqual(a.read(first["id"]), b"four")
        self.assertEqual(a.upload(base, "a.txt", b"x", conflict="sideways")[0], 400)
        # Folders: the same rules, and files and folders share the namespace.
        docs = a.mkdir(base, "docs")
        self.assertEqual(docs["kind"], "folder")
        self.assertEqual(docs["mime"], "inode/directory")
        self.assertNotIn("hash", docs)
        status, _, body = a.call("POST", "/nodes/%s/folders" % base, {"name": "DOCS"})
        self.assertEqual(status, 409, body)
        self.assertEqual(a.mkdir(base, "DOCS", conflict="rename")["name"], "DOCS (1)")
        self.assertEqual(a.upload(base, "docs", b"file")[0], 409)
        self.assertEqual(a.upload(base, "Docs", b"file", conflict="overwrite")[0], 409)
        self.assertEqual(a.put(base, "docs", b"file", conflict="rename")["name"], "docs (2)")
        self.assertEqual(a.put(base, "README", b"r")["name"], "README")
        self.assertEqual(a.put(base, "README", b"r", conflict="rename")["name"], "README (1)")
        # NFD and NFC spell one name.
        nfd = unicodedata.normalize("NFD", "été.txt")
        self.assertNotEqual(nfd, "été.txt")
        n = a.put(base, nfd, b"e")
        self.assertEqual(n["name"], nfd)  # kept as sent, byte for byte
        self.assertEqual(a.upload(base, nfc("ÉTÉ.txt"), b"e")[0], 409)
        self.assertEqual(a.names(base), sorted(["A (3).TXT", "DOCS (1)", "README", "README (1)", "a (1).txt",
                                                "a (2).txt", "a.txt", "docs", "docs (2)", nfd]))

    def test_checksums(self):
        a, base = self.a, self.base
        data = os.urandom(300000)
        first = a.put(base, "s256", data, headers={"X-Checksum": "sha256:" + sha(data)})
        self.assertEqual(first["size"], len(data))
        self.assertEqual(a.upload(base, "s256u", data, {"X-Checksum": "SHA256:" + sha(data)})[0], 201)
        self.assertEqual(a.upload(base, "sha1", data, {"X-Checksum": "sha1:" + hashlib.sha1(data).hexdigest()})[0], 201)
        self.assertEqual(a.upload(base, "md5", data, {"X-Checksum": "md5:" + hashlib.md5(data).hexdigest()})[0], 201)
        self.assertEqual(a.upload(base, "b3", data, {"X-Checksum": "blake3:" + first["hash"]})[0], 201)
        self.assertEqual(a.upload(base, "b3u", data, {"X-Checksum": "BLAKE3:" + first["hash"]})[0], 201)
        before = a.names(base)
        bad = "0" * 64 if sha(data) != "0" * 64 else "1" * 64
        for name, header in (("bad256", "sha256:" + bad), ("badmd5", "md5:" + "0" * 32),
                             ("badb3", "blake3:" + "0" * 64), ("badalgo", "crc32:deadbeef"),
                             ("badhex", "sha256:xyz")):
            status, _, body = a.send(base, name, data, {"X-Checksum": header})
            self.assertEqual(status, 400, (name, body))
            self.assertEqual(body["error"], "invalid_argument")
        self.assertEqual(a.names(base), before)
        # The name stays free; an overwrite with a wrong checksum changes nothing.
        self.assertEqual(a.upload(base, "bad256", b"later")[0], 201)
        self.assertEqual(a.send(base, "s256", b"new", {"X-Checksum": "sha256:" + bad}, conflict="overwrite")[0], 400)
        self.assertEqual(a.read(first["id"]), data)

    def test_bad_names(self):
        a, base = self.a, self.base
        for raw_name in (".", "..", "a%2Fb", "%2F", "a%00b", "a" * 256, "%C3%A9" * 128, "x%01y", "x%7F",
                         "%C2%85x", "%FF.txt", "%C3", "%ED%A0%80.txt"):
            status, _, body = a.call("PUT", "/nodes/%s/files/%s" % (base, raw_name), b"data")
            self.assertEqual(status, 400, raw_name)
            self.assertEqual(body["error"], "invalid_argument", raw_name)
        self.assertEqual(a.put(base, "a" * 251 + ".txt", b"ok")["name"], "a" * 251 + ".txt")
        self.assertEqual(a.put(base, "é" * 127 + "x", b"ok")["name"], "é" * 127 + "x")  # 255 bytes
        for name in ("", ".", "..", "a/b", "x\x00", "x\ny", "a" * 256, "é" * 128):
            self.assertEqual(a.call("POST", "/nodes/%s/folders" % base, {"name": name})[0], 400, repr(name))
        f = a.put(base, "f.txt", b"f")
        for name in ("", "..", "a/b", "\x7f"):
            self.assertEqual(a.call("PATCH", "/nodes/" + f["id"], {"name": name})[0], 400, repr(name))
            self.assertEqual(a.call("POST", "/nodes/%s/copy" % f["id"], {"parent_id": base, "name": name})[0],
                             400, repr(name))
        self.assertEqual(a.names(base), sorted(["a" * 251 + ".txt", "é" * 127 + "x", "f.txt"]))

    # --- multipart and instant uploads

    def test_multipart_upload(self):
        a, base = self.a, self.base
        big = os.urandom(3 * MiB) + b"\r\n--nubo-test-" + os.urandom(1000) + b"\r\n--"
        x, y = os.urandom(70000), b"why"
        parts = [("one.txt", b"1"), (None, b"a plain form field"), ("empty.bin", b""), ("dir/sub/x.txt", x),
                 ("dir/y.txt", y), ("Grüße.txt", "grüße".encode()), ("big.bin", big), ("../evil.txt", b"evil"),
                 ("one.txt", b"dup"), ("a/./b.txt", b"dot")]
        status, _, body = a.multipart(base, parts)
        self.assertEqual(status, 200, body)
        items = body["items"]
        self.assertEqual([i["name"] for i in items],
                         ["one.txt", "empty.bin", "dir/sub/x.txt", "dir/y.txt", "Grüße.txt", "big.bin",
                          "../evil.txt", "one.txt", "a/./b.txt"])
        self.assertEqual([i["status"] for i in items], [201, 201, 201, 201, 201, 201, 400, 409, 400])
        for i in items[:6]:
            self.assertEqual(i["node"]["name"], i["name"].split("/")[-1])
            self.assertNotIn("error", i)
        for i in items[6:]:
            self.assertNotIn("node", i)
            self.assertEqual(set(i["error"]), {"error", "message"})
        self.assertEqual(items[6]["error"]["error"], "invalid_argument")
        self.assertEqual(items[7]["error"]["error"], "already_exists")
        tree = a.walk(base)
        self.assertEqual(sorted(tree), ["Grüße.txt", "big.bin", "dir", "dir/sub", "dir/sub/x.txt", "dir/y.txt",
                                        "empty.bin", "one.txt"])
        self.assertEqual(items[2]["node"]["parent_id"], tree["dir/sub"]["id"])
        for rel, data in (("one.txt", b"1"), ("empty.bin", b""), ("dir/sub/x.txt", x), ("dir/y.txt", y),
                          ("Grüße.txt", "grüße".encode()), ("big.bin", big)):
            self.assertEqual(a.read(tree[rel]["id"]), data, rel)
        self.assertNotIn("evil.txt", a.names(a.root))
        # Existing folders are reused; conflict policies apply per file.
        status, _, body = a.multipart(base, [("DIR/z.txt", b"z"), ("one.txt", b"11")], conflict="rename")
        self.assertEqual([(i["status"], i["node"]["name"]) for i in body["items"]], [(201, "z.txt"), (201, "one (1).txt")])
        self.assertEqual(body["items"][0]["node"]["parent_id"], tree["dir"]["id"])
        status, _, body = a.multipart(base, [("one.txt", b"111")], conflict="overwrite")
        self.assertEqual((body["items"][0]["status"], body["items"][0]["node"]["id"]), (200, tree["one.txt"]["id"]))
        self.assertEqual(a.read(tree["one.txt"]["id"]), b"111")
        self.assertEqual([n["name"] for n in a.list_all(base) if n["kind"] == "folder"], ["dir"])
        # A folder in the way of a path, and an unknown target folder.
        a.put(base, "plain", b"p")
        status, _, body = a.multipart(base, [("plain/q.txt", b"q")])
        self.assertEqual(status, 200, body)
        self.assertEqual(body["items"][0]["status"], 409)
        self.assertNotFound(*a.multipart(fake_id(), [("q.txt", b"q")])[::2])

    def test_instant_upload(self):
        a, b, base = self.a, self.b, self.base
        data = os.urandom(300000)
        orig = a.put(base, "orig.bin", data)
        req = {"name": "inst.bin", "hash": orig["hash"], "size": len(data), "conflict": "fail"}
        status, _, node = a.call("POST", "/nodes/%s/instant" % base, req)
        self.assertEqual(status, 201, node)
        self.assertNodeFile(node, "inst.bin", data, base)
        self.assertEqual(node["hash"], orig["hash"])
        self.assertNotEqual(node["id"], orig["id"])
        self.assertEqual(a.read(node["id"]), data)
        self.assertEqual(a.call("POST", "/nodes/%s/instant" % base, req)[0], 409)
        status, _, node2 = a.call("POST", "/nodes/%s/instant" % base, dict(req, conflict="rename"))
        self.assertEqual((status, node2["name"]), (201, "inst (1).bin"))
        unknown = os.urandom(32).hex()
        status, _, body = a.call("POST", "/nodes/%s/instant" % base, dict(req, name="u.bin", hash=unknown))
        self.assertEqual((status, body["error"]), (404, "not_found"))
        self.assertEqual(a.call("POST", "/nodes/%s/instant" % base, dict(req, name="u.bin", hash="xyz"))[0], 400)
        # A size that does not match the content: refused, and nothing is created.
        status, _, body = a.call("POST", "/nodes/%s/instant" % base, dict(req, name="badsize.bin", size=len(data) + 1))
        self.assertIn(status, (400, 404), body)
        self.assertNotIn("badsize.bin", a.names(base))
        # Another user cannot claim alice's content by its hash.
        s1, _, b1 = b.raw("POST", "/nodes/%s/instant" % b.root, dict(req, name="stolen.bin"))
        s2, _, b2 = b.raw("POST", "/nodes/%s/instant" % b.root, dict(req, name="stolen.bin", hash=unknown))
        self.assertEqual((s1, b1), (s2, b2))
        self.assertEqual(s1, 404)
        self.assertNotIn("stolen.bin", b.names(b.root))
        # Content only in the trash still counts as owned ...
        t = os.urandom(5000)
        tnode = a.put(base, "t.bin", t)
        self.assertEqual(a.delete(tnode["id"]), 204)
        status, _, node3 = a.call("POST", "/nodes/%s/instant" % base,
                                  {"name": "from-trash.bin", "hash": tnode["hash"], "size": len(t)})
        self.assertEqual(status, 201, node3)
        self.assertEqual(a.read(node3["id"]), t)
        # ... content deleted for good does not.
        g = os.urandom(5000)
        gnode = a.put(base, "gone.bin", g)
        self.assertEqual(a.delete(gnode["id"], permanent=True), 204)
        self.assertEqual(a.call("POST", "/nodes/%s/instant" % base,
                                {"name": "gone2.bin", "hash": gnode["hash"], "size": len(g)})[0], 404)

    # --- copy, move, delete

    def build_tree(self, parent, name):
        a = self.a
        top = a.mkdir(parent, name)
        s1 = a.mkdir(top["id"], "s1")
        s2 = a.mkdir(s1["id"], "s2")
        a.mkdir(top["id"], "empty")
        files = {"a.txt": b"alpha\n", "s1/b.bin": os.urandom(200000), "s1/s2/c.bin": os.urandom(1300000),
                 "s1/s2/d.txt": b"delta"}
        ids = {"": top["id"], "s1": s1["id"], "s1/s2": s2["id"]}
        for rel, data in files.items():
            folder, _, fname = rel.rpartition("/")
            ids[rel] = a.put(ids[folder], fname, data)["id"]
        return top, files, ids

    def test_copy_tree_then_delete_original(self):
        a, base = self.a, self.base
        top, files, ids = self.build_tree(base, "T")
        self.assertEqual(a.node(top["id"])["size"], sum(map(len, files.values())))
        status, _, cp = a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": base, "name": "T copy"})
        self.assertEqual(status, 201, cp)
        self.assertEqual((cp["name"], cp["kind"], cp["parent_id"], cp["size"]),
                         ("T copy", "folder", base, sum(map(len, files.values()))))
        self.assertEqual(a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": base})[0], 409)
        status, _, cp2 = a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": base, "conflict": "rename"})
        self.assertEqual((status, cp2["name"]), (201, "T (1)"))
        # Into itself or below: refused.
        self.assertEqual(a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": ids["s1/s2"]})[0], 409)
        self.assertEqual(a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": top["id"]})[0], 409)
        self.assertEqual(a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": ids["a.txt"]})[0], 409)
        self.assertNotFound(*a.call("POST", "/nodes/%s/copy" % top["id"], {"parent_id": fake_id()})[::2])
        # Delete the original for good: the copy is untouched.
        self.assertEqual(a.delete(top["id"], permanent=True), 204)
        for rel, nid in ids.items():
            self.assertNotFound(*a.call("GET", "/nodes/" + nid)[::2])
        self.assertNotIn(top["id"], [t["id"] for t in a.trash()])
        for cid in (cp["id"], cp2["id"]):
            tree = a.walk(cid)
            self.assertEqual(sorted(tree), ["a.txt", "empty", "s1", "s1/b.bin", "s1/s2", "s1/s2/c.bin", "s1/s2/d.txt"])
            for rel, data in files.items():
                got = a.read(tree[rel]["id"])
                self.assertEqual(sha(got), sha(data), rel)
                self.assertNotIn(tree[rel]["id"], ids.values())
        # A file copy: new id, same bytes and hash.
        tree = a.walk(cp["id"])
        status, _, fc = a.call("POST", "/nodes/%s/copy" % tree["s1/s2/c.bin"]["id"], {"parent_id": base})
        self.assertEqual((status, fc["name"], fc["hash"]), (201, "c.bin", tree["s1/s2/c.bin"]["hash"]))
        self.assertEqual(a.read(fc["id"]), files["s1/s2/c.bin"])

    def test_rename_and_move_folders(self):
        a, base = self.a, self.base
        top, files, ids = self.build_tree(base, "M")
        status, _, body = a.call("PATCH", "/nodes/" + top["id"], {"name": "M renamed"})
        self.assertEqual((status, body["name"], body["id"]), (200, "M renamed", top["id"]))
        for rel, nid in ids.items():
            n = a.node(nid)
            path = [(e["id"], e["name"]) for e in n["path"]]
            if rel == "":
                self.assertEqual([e[0] for e in path], [a.root, base])
                continue
            self.assertEqual([e[0] for e in path[:3]], [a.root, base, top["id"]], rel)
            self.assertEqual(path[1:3], [(base, self._testMethodName), (top["id"], "M renamed")], rel)
            self.assertEqual(len(path), 3 + rel.count("/"), rel)
            if rel in files:
                self.assertEqual(a.read(nid), files[rel], rel)
        # Into itself or a descendant: 409, nothing moves.
        for target in (top["id"], ids["s1"], ids["s1/s2"]):
            status, _, body = a.call("PATCH", "/nodes/" + top["id"], {"parent_id": target})
            self.assertEqual(status, 409, body)
        self.assertEqual(a.call("PATCH", "/nodes/" + ids["s1"], {"parent_id": ids["a.txt"]})[0], 409)
        self.assertEqual(a.node(top["id"])["parent_id"], base)
        self.assertNotFound(*a.call("PATCH", "/nodes/" + ids["s1"], {"parent_id": fake_id()})[::2])
        # Move a subfolder up: paths follow, sizes roll up.
        status, _, body = a.call("PATCH", "/nodes/" + ids["s1"], {"parent_id": base})
        self.assertEqual((status, body["parent_id"]), (200, base))
        self.assertEqual([p["id"] for p in a.node(ids["s1/s2/c.bin"])["path"]], [a.root, base, ids["s1"], ids["s1/s2"]])
        self.assertEqual(a.node(top["id"])["size"], len(files["a.txt"]))
        self.assertEqual(a.node(ids["s1"])["size"], sum(len(files[k]) for k in files if k.startswith("s1/")))
        self.assertEqual(a.read(ids["s1/s2/c.bin"]), files["s1/s2/c.bin"])
        # Rename and move at once, with conflicts.
        a.put(top["id"], "taken.txt", b"t")
        self.assertEqual(a.call("PATCH", "/nodes/" + ids["a.txt"], {"name": "TAKEN.TXT"})[0], 409)
        status, _, body = a.call("PATCH", "/nodes/" + ids["a.txt"], {"name": "TAKEN.TXT", "conflict": "rename"})
        self.assertEqual((status, body["name"]), (200, "TAKEN (1).TXT"))
        # A case-only rename of a node onto itself is allowed.
        status, _, body = a.call("PATCH", "/nodes/" + ids["a.txt"], {"name": "taken (1).txt"})
        self.assertEqual((status, body["name"]), (200, "taken (1).txt"))
        status, _, body = a.call("PATCH", "/nodes/" + ids["s1/s2/d.txt"], {"name": "moved.txt", "parent_id": top["id"]})
        self.assertEqual((status, body["name"], body["parent_id"]), (200, "moved.txt", top["id"]))
        self.assertEqual(a.read(ids["s1/s2/d.txt"]), files["s1/s2/d.txt"])
        self.assertEqual(a.names(top["id"]), ["empty", "moved.txt", "taken (1).txt", "taken.txt"])

    def test_delete_then_upload_identical(self):
        a, base = self.a, self.base
        for size in (10, 200000, 2 * MiB + 3):
            data = os.urandom(size)
            n = a.put(base, "again.bin", data)
            self.assertEqual(a.delete(n["id"], permanent=True), 204)
            self.assertNotFound(*a.call("GET", "/nodes/" + n["id"])[::2])
            self.assertEqual(a.content(n["id"])[0], 404)
            n2 = a.put(base, "again.bin", data)
            self.assertEqual((n2["hash"], a.read(n2["id"])), (n["hash"], data))
            self.assertEqual(a.delete(n2["id"]), 204)  # trash, then empty the trash
            status, _, body = a.call("DELETE", "/trash")
            self.assertEqual(status, 200, body)
            self.assertGreaterEqual(body["deleted"], 1)
            n3 = a.put(base, "again.bin", data)
            self.assertEqual(a.read(n3["id"]), data)
            self.assertEqual(a.delete(n3["id"], permanent=True), 204)
        self.assertEqual(a.delete(fake_id()), 404)
        self.assertEqual(a.delete(fake_id(), permanent=True), 404)

    def test_concurrent_identical_uploads(self):
        a, base = self.a, self.base
        data = os.urandom(MiB + 4321)
        barrier = threading.Barrier(16)

        def one(i):
            barrier.wait()
            return a.upload(base, "same-%02d.bin" % i, data)

        with concurrent.futures.ThreadPoolExecutor(16) as ex:
            results = list(ex.map(one, range(16)))
        self.assertEqual([r[0] for r in results], [201] * 16, [r[2] for r in results if r[0] != 201])
        self.assertEqual(len({r[2]["hash"] for r in results}), 1)
        self.assertEqual(len({r[2]["id"] for r in results}), 16)
        for r in results:
            self.assertEqual(sha(a.read(r[2]["id"])), sha(data))
        self.assertEqual(a.node(base)["size"], 16 * len(data))

    def test_folder_etags(self):
        a, base = self.a, self.base
        e = a.mkdir(base, "E")
        sub = a.mkdir(e["id"], "sub")
        g = a.put(sub["id"], "g.txt", b"g1")
        s = a.mkdir(base, "S")
        a.put(s["id"], "h.txt", b"h")

        def tags():
            return {k: a.node(v)["etag"] for k, v in (("E", e["id"]), ("sub", sub["id"]), ("S", s["id"]),
                                                      ("base", base), ("root", a.root))}

        t0 = tags()
        self.assertEqual(t0, tags())  # stable while nothing changes
        for v in t0.values():
            self.assertRegex(v, r'^"[^"]+"$')
        a.put(sub["id"], "g.txt", b"g2 changed", expect=200, conflict="overwrite")
        t1 = tags()
        for k in ("E", "sub", "base", "root"):
            self.assertNotEqual(t1[k], t0[k], k)
        self.assertEqual(t1["S"], t0["S"])
        self.assertEqual(a.node(e["id"])["size"], len(b"g2 changed"))
        a.put(s["id"], "new.txt", b"n")
        t2 = tags()
        self.assertEqual((t2["E"], t2["sub"]), (t1["E"], t1["sub"]))
        self.assertNotEqual(t2["S"], t1["S"])
        self.assertNotEqual(t2["base"], t1["base"])
        # Renames and trashing below change it too.
        a.call("PATCH", "/nodes/" + g["id"], {"name": "g2.txt"})
        t3 = tags()
        self.assertNotEqual(t3["E"], t2["E"])
        self.assertEqual(t3["S"], t2["S"])
        self.assertEqual(a.delete(g["id"]), 204)
        t4 = tags()
        self.assertNotEqual(t4["E"], t3["E"])
        self.assertEqual(a.node(e["id"])["size"], 0)
        self.assertEqual(a.children(e["id"])["folder"]["etag"], t4["E"])

    # --- listings

    def test_listing_pages_sorts_and_cursors(self):
        a = self.a
        folder = self.base
        n_files = 1234
        exts = (".txt", ".bin", ".json", ".html", ".csv")
        rng = random.Random(11)
        sizes = list(range(1, n_files + 1))
        rng.shuffle(sizes)
        mods = list(range(n_files))
        rng.shuffle(mods)
        base_ms = 1_500_000_000_000
        specs = []
        for i in range(n_files):
            ext = exts[i % len(exts)]
            body = os.urandom(sizes[i]) if ext == ".bin" else (b"abcdefghij" * (sizes[i] // 10 + 1))[:sizes[i]]
            specs.append(("f%04d%s" % (i, ext), body, base_ms + mods[i] * 1000))
        folders = [a.mkdir(folder, "d%d" % i)["id"] for i in range(5)]

        def put(spec):
            return a.upload(folder, spec[0], spec[1], modified=spec[2])

        with concurrent.futures.ThreadPoolExecutor(8) as ex:
            results = list(ex.map(put, specs))
        self.assertEqual([r[0] for r in results], [201] * n_files)
        for r, spec in zip(results, specs):
            self.assertEqual((r[2]["name"], r[2]["size"], r[2]["modified"]), (spec[0], len(spec[1]), spec[2]))
        file_ids = {r[2]["id"] for r in results}
        total = n_files + len(folders)

        def page_through(limit=100, between=None, **params):
            seen, cursor, n = [], None, 0
            while True:
                page = a.children(folder, limit=limit, cursor=cursor, **params)
                self.assertEqual(page["folder"]["id"], folder)
                cursor = page["next_cursor"]
                if cursor:
                    self.assertEqual(len(page["items"]), limit)
                self.assertLessEqual(len(page["items"]), limit)
                seen += page["items"]
                n += 1
                if not cursor:
                    return seen
                if between:
                    between(n)

        keys = {"name": lambda n: n["name"], "size": lambda n: n["size"], "modified": lambda n: n["modified"],
                "type": lambda n: (n["mime"], n["name"])}
        for sort in ("name", "size", "modified", "type"):
            for order in ("asc", "desc"):
                items = page_through(sort=sort, order=order)
                what = "%s %s" % (sort, order)
                self.assertEqual(len(items), total, what)
                ids = [n["id"] for n in items]
                self.assertEqual(len(set(ids)), total, what + ": duplicates")
                self.assertEqual(set(ids[:5]), set(folders), what + ": folders first")
                self.assertEqual(set(ids[5:]), file_ids, what)
                k = [keys[sort](n) for n in items[5:]]
                self.assertEqual(k, sorted(k, reverse=(order == "desc")), what)
                self.assertEqual(len(set(k)), len(k))
                if sort == "name":
                    fk = [n["name"] for n in items[:5]]
                    self.assertEqual(fk, sorted(fk, reverse=(order == "desc")), what)
        # Defaults: name ascending, 100 per page.
        page = a.children(folder)
        self.assertEqual(len(page["items"]), 100)
        self.assertEqual([n["name"] for n in page["items"][:6]], ["d0", "d1", "d2", "d3", "d4", "f0000.txt"])
        self.assertIsNotNone(page["next_cursor"])
        # Bad parameters.
        for bad in ({"cursor": "garbage"}, {"cursor": "!!!"}, {"limit": 501}, {"limit": 0}, {"limit": "x"},
                    {"sort": "color"}, {"order": "sideways"}):
            status, _, body = a.call("GET", "/nodes/%s/children?%s" % (folder, qs(**bad)))
            self.assertEqual(status, 400, (bad, body))
            self.assertEqual(body["error"], "invalid_argument")
        self.assertEqual(len(a.children(folder, limit=500)["items"]), 500)
        # A cursor is only good for the order that made it.
        cursor = a.children(folder, sort="name", order="asc")["next_cursor"]
        for other in ({"sort": "size", "order": "asc"}, {"sort": "name", "order": "desc"}):
            self.assertEqual(a.call("GET", "/nodes/%s/children?%s" % (folder, qs(cursor=cursor, **other)))[0], 400,
                             other)
        # Inserts between page fetches: no original is skipped or repeated.
        counter = [0]

        def insert(n, name_fn, size_fn):
            if n % 3 == 0:
                for _ in range(2):
                    counter[0] += 1
                    a.put(folder, name_fn(counter[0]), b"y" * size_fn(counter[0]))

        for params, name_fn, size_fn in (
                ({"sort": "name", "order": "asc"}, lambda c: "f%04d-new%d.txt" % ((c * 397) % n_files, c), lambda c: 7),
                ({"sort": "size", "order": "desc"}, lambda c: "g-new%d.txt" % c, lambda c: (c * 211) % n_files + 1),
                ({"sort": "modified", "order": "asc"}, lambda c: "h-new%d.txt" % c, lambda c: 3)):
            items = page_through(between=lambda n: insert(n, name_fn, size_fn), **params)
            ids = [n["id"] for n in items]
            self.assertEqual(len(ids), len(set(ids)), params)
            self.assertTrue(file_ids <= set(ids), params)
            self.assertTrue(set(folders) <= set(ids), params)
        # A file and an unknown id have no children.
        self.assertNotFound(*a.call("GET", "/nodes/%s/children" % next(iter(file_ids)))[::2])
        self.assertNotFound(*a.call("GET", "/nodes/%s/children" % fake_id())[::2])

    # --- natural order and item counts

    # Names in the order every listing must give them: numbers by value at
    # any length (leading zeros do not count), case ignored, Unicode digits
    # by value (Arabic-Indic ٢ = 2, ١٠ = 10).
    NATURAL_FILES = ["a2", "A3", "a10", "b", "B1", "p\u0662", "p3", "p\u0661\u0660",
                     "Report-1.txt", "report-2.txt", "report-10.txt", "report-100.txt",
                     "x007", "x8", "x99999999999999999999", "x100000000000000000000"]
    NATURAL_FOLDERS = ["dir 9", "Dir 10", "dir 100"]

    def make_natural(self, folder):
        rng = random.Random(22)
        names = self.NATURAL_FILES[:]
        rng.shuffle(names)
        for name in names:
            self.a.put(folder, name, name.encode())
        for name in reversed(self.NATURAL_FOLDERS):
            self.a.mkdir(folder, name)

    def test_natural_name_order(self):
        a, folder = self.a, self.base
        self.make_natural(folder)
        want = self.NATURAL_FOLDERS + self.NATURAL_FILES
        self.assertEqual([n["name"] for n in a.children(folder)["items"]], want)
        desc = a.children(folder, order="desc")["items"]
        self.assertEqual([n["name"] for n in desc], self.NATURAL_FOLDERS[::-1] + self.NATURAL_FILES[::-1])
        # Pages of 2 carry the position through the cursor, both ways.
        for order, expect in (("asc", want), ("desc", self.NATURAL_FOLDERS[::-1] + self.NATURAL_FILES[::-1])):
            self.assertEqual([n["name"] for n in a.list_all(folder, limit=2, order=order)], expect, order)
        # Ties of the other sorts break by the natural name order too.
        by_type = [n["name"] for n in a.children(folder, sort="type")["items"]][3:]
        self.assertEqual([x for x in by_type if x.endswith(".txt")],
                         ["Report-1.txt", "report-2.txt", "report-10.txt", "report-100.txt"])
        # A rename takes its new place.
        node = {n["name"]: n for n in a.list_all(folder)}["b"]
        status, _, body = a.call("PATCH", "/nodes/" + node["id"], {"name": "a9"})
        self.assertEqual(status, 200, body)
        names = [n["name"] for n in a.list_all(folder)]
        self.assertEqual(names.index("a9"), names.index("A3") + 1)
        self.assertEqual(names.index("a10"), names.index("a9") + 1)
        # Search results come in the same order, page after page.
        for name in ("natord 10", "Natord 9", "natord 100", "natord 1"):
            a.put(folder, name, b"s")
        self.assertEqual([n["name"] for n in a.paged("/search?" + qs(q="NATORD"), limit=1)],
                         ["natord 1", "Natord 9", "natord 10", "natord 100"])
        # WebDAV's Depth: 1 listing gives the members in the same order.
        status, _, body = a.raw("PROPFIND", "/dav/%s/" % self._testMethodName, b"",
                                {"Depth": "1", "Content-Type": "application/xml"})
        self.assertEqual(status, 207, body[:300])
        hrefs = re.findall(rb"<(?:[A-Za-z]+:)?href>([^<]*)</", body)
        members = [urllib.parse.unquote(h.decode()).rstrip("/").rsplit("/", 1)[-1] for h in hrefs[1:]]
        self.assertEqual(members, [n["name"] for n in a.list_all(folder)])

    def test_folder_item_counts(self):
        a, folder = self.a, self.base
        sub = a.mkdir(folder, "counted")
        for i in range(5):
            a.put(sub["id"], "f%d" % i, b"x")
        inner = a.mkdir(sub["id"], "inner")
        a.put(inner["id"], "deep", b"y")

        def count(node_id):
            return a.node(node_id)["item_count"]

        self.assertEqual(count(sub["id"]), 6)  # direct children only
        self.assertEqual(count(inner["id"]), 1)
        page = a.children(sub["id"], limit=2)
        self.assertEqual(page["folder"]["item_count"], 6)  # exact before the last page
        self.assertEqual({n["name"]: n.get("item_count") for n in page["items"]}["inner"], 1)
        self.assertNotIn("item_count", a.children(sub["id"])["items"][-1])  # files have none
        # Trash, restore, move and delete keep it exact.
        f0 = {n["name"]: n for n in a.list_all(sub["id"])}["f0"]
        self.assertEqual(a.delete(f0["id"]), 204)
        self.assertEqual(count(sub["id"]), 5)
        self.assertEqual(a.call("POST", "/nodes/%s/restore" % f0["id"])[0], 200)
        self.assertEqual(count(sub["id"]), 6)
        status, _, body = a.call("PATCH", "/nodes/" + f0["id"], {"parent_id": inner["id"]})
        self.assertEqual(status, 200, body)
        self.assertEqual((count(sub["id"]), count(inner["id"])), (5, 2))
        self.assertEqual(a.delete(inner["id"], permanent=True), 204)
        self.assertEqual(count(sub["id"]), 4)
        # A copy counts its own children.
        status, _, body = a.call("POST", "/nodes/%s/copy" % sub["id"], {"parent_id": folder, "name": "copied"})
        self.assertIn(status, (200, 201), body)
        self.assertEqual(body["item_count"], 4)
        self.assertEqual(count(folder), 2)

    def test_zip_names(self):
        a, folder = self.a, self.base
        sub = a.mkdir(folder, "Holiday 2026")
        one = a.put(sub["id"], "one.txt", b"1")
        two = a.put(sub["id"], "two.txt", b"2")

        def filename(path):
            status, hdrs, body = a.raw("GET", path)
            self.assertEqual(status, 200, body[:200])
            d = hdrs["content-disposition"]
            m = re.search(r"filename\*=UTF-8''([^;]+)", d)
            return urllib.parse.unquote(m.group(1)) if m else re.search(r'filename="([^"]*)"', d).group(1)

        self.assertEqual(filename("/zip?ids=" + sub["id"]), "Holiday 2026.zip")
        self.assertEqual(filename("/nodes/%s/zip" % sub["id"]), "Holiday 2026.zip")
        self.assertEqual(filename("/zip?ids=%s,%s" % (one["id"], two["id"])), "2 items.zip")
        self.assertEqual(filename("/zip?%s" % qs(ids=one["id"] + "," + two["id"], name="Auswahl ü")),
                         "Auswahl ü.zip")
        for bad in ("", "a/b", "..", "x\x01"):
            status, _, body = a.call("GET", "/zip?%s" % qs(ids=one["id"], name=bad))
            self.assertEqual(status, 400, (bad, body))
        # Another user's node is unknown whatever the name.
        self.assertNotFound(*self.b.call("GET", "/zip?ids=" + sub["id"])[::2])

    # --- trash

    def test_trash_and_restore(self):
        a, base = self.a, self.base
        tok = "trashtok" + os.urandom(3).hex()
        t = a.mkdir(base, tok + "-T")
        x = a.put(t["id"], tok + "-x.txt", b"x data")
        sub = a.mkdir(t["id"], "sub")
        y = a.put(sub["id"], tok + "-y.txt", b"y data")
        self.assertEqual(a.call("PUT", "/favorites/" + y["id"])[0], 204)
        self.assertEqual(a.read(y["id"]), b"y data")
        self.assertTrue(eventually(lambda: a.recent_ids()[:1] == [y["id"]]))
        self.assertEqual(len(a.search(tok)), 3)
        used = a.usage()["used_bytes"]
        base_size = a.node(base)["size"]
        # Trash the folder: the whole subtree disappears.
        self.assertEqual(a.delete(t["id"]), 204)
        for nid in (t["id"], x["id"], sub["id"], y["id"]):
            self.assertNotFound(*a.call("GET", "/nodes/" + nid)[::2])
        self.assertNotFound(*a.call("GET", "/nodes/%s/content" % y["id"])[::2])
        self.assertNotFound(*a.call("GET", "/nodes/%s/children" % t["id"])[::2])
        self.assertNotFound(*a.call("GET", "/nodes/%s/zip" % t["id"])[::2])
        self.assertEqual(a.call("PATCH", "/nodes/" + x["id"], {"name": "z"})[0], 404)
        self.assertEqual(a.upload(t["id"], "new.txt", b"n")[0], 404)
        self.assertEqual(a.names(base), [])
        self.assertEqual(a.search(tok), [])
        self.assertNotIn(y["id"], [n["id"] for n in a.favorites()])
        self.assertFalse({x["id"], y["id"]} & {n["id"] for n in a.recent()})
        self.assertEqual(a.usage()["used_bytes"], used - 12)
        self.assertEqual(a.node(base)["size"], base_size - 12)
        trash = a.trash()
        tids = [n["id"] for n in trash]
        self.assertIn(t["id"], tids)
        self.assertFalse({x["id"], sub["id"], y["id"]} & set(tids))
        entry = [n for n in trash if n["id"] == t["id"]][0]
        self.assertEqual((entry["name"], entry["kind"]), (tok + "-T", "folder"))
        self.assertIsInstance(entry["trashed_at"], int)
        # The listing says how long items stay (files.trash_retention, 30 days by default).
        self.assertEqual(a.call("GET", "/trash")[2]["retention_ms"], 30 * 86400 * 1000)
        # Only the trashed folder itself restores.
        self.assertEqual(a.call("POST", "/nodes/%s/restore" % y["id"])[0], 404)
        status, _, body = a.call("POST", "/nodes/%s/restore" % t["id"])
        self.assertEqual(status, 200, body)
        self.assertEqual((body["name"], body["parent_id"]), (tok + "-T", base))
        self.assertEqual(a.read(x["id"]), b"x data")
        self.assertEqual(a.read(y["id"]), b"y data")
        self.assertEqual(a.node(y["id"])["path"][-1]["id"], sub["id"])
        self.assertEqual(len(a.search(tok)), 3)
        self.assertIn(y["id"], [n["id"] for n in a.favorites()])
        self.assertEqual(a.usage()["used_bytes"], used)
        self.assertNotIn(t["id"], [n["id"] for n in a.trash()])
        self.assertEqual(a.call("POST", "/nodes/%s/restore" % t["id"])[0], 409)  # not in the trash
        # Restoring onto a taken name renames.
        r = a.put(base, "r.txt", b"old r")
        self.assertEqual(a.delete(r["id"]), 204)
        r2 = a.put(base, "R.txt", b"new r")
        status, _, body = a.call("POST", "/nodes/%s/restore" % r["id"])
        self.assertEqual((status, body["name"], body["parent_id"]), (200, "r (1).txt", base))
        self.assertEqual((a.read(r["id"]), a.read(r2["id"])), (b"old r", b"new r"))
        # Restoring a node whose folder is in the trash puts it in the drive root.
        p = a.mkdir(base, "P")
        qname = tok + "-q.txt"
        qn = a.put(p["id"], qname, b"q")
        self.assertEqual(a.delete(qn["id"]), 204)
        time.sleep(0.01)  # distinct trashed_at
        self.assertEqual(a.delete(p["id"]), 204)
        trash = a.trash()
        self.assertEqual([n["id"] for n in trash][:2], [p["id"], qn["id"]])  # newest first
        self.assertGreaterEqual(trash[0]["trashed_at"], trash[1]["trashed_at"])
        status, _, body = a.call("POST", "/nodes/%s/restore" % qn["id"])
        self.assertEqual((status, body["parent_id"], body["name"]), (200, a.root, qname))
        self.assertEqual([e["id"] for e in a.node(qn["id"])["path"]], [a.root])
        self.assertEqual(a.status_of(p["id"]), 404)
        # Permanent delete from the trash.
        self.assertEqual(a.delete(p["id"], permanent=True), 204)
        self.assertNotIn(p["id"], [n["id"] for n in a.trash()])
        self.assertEqual(a.call("POST", "/nodes/%s/restore" % p["id"])[0], 404)
        self.assertEqual(a.delete(qn["id"], permanent=True), 204)
        # Paging through the trash.
        for i in range(3):
            self.assertEqual(a.delete(a.put(base, "page%d" % i, b"p")["id"]), 204)
        everything = [n["id"] for n in a.trash()]
        self.assertEqual([n["id"] for n in a.paged("/trash", limit=1)], everything)
        self.assertEqual(a.call("GET", "/trash?limit=501")[0], 400)
        # Empty the trash.
        status, _, body = a.call("DELETE", "/trash")
        self.assertEqual((status, body), (200, {"deleted": len(everything)}))
        self.assertEqual(a.trash(), [])
        for nid in everything:
            self.assertEqual(a.call("POST", "/nodes/%s/restore" % nid)[0], 404)
        self.assertEqual(a.call("DELETE", "/trash")[2], {"deleted": 0})

    # --- favorites and recent

    def test_favorites_and_recent(self):
        a, base = self.a, self.base
        f1 = a.put(base, "fav1.txt", b"1")
        fd = a.mkdir(base, "favdir")
        f2 = a.put(base, "fav2.txt", b"2")
        for n in (f1, fd, f2):
            self.assertEqual(a.call("PUT", "/favorites/" + n["id"])[0], 204)
        mine = {f1["id"], fd["id"], f2["id"]}
        listed = [n["id"] for n in a.favorites() if n["id"] in mine]
        self.assertEqual(listed, [f2["id"], fd["id"], f1["id"]])
        paged = [n["id"] for n in a.paged("/favorites", limit=1) if n["id"] in mine]
        self.assertEqual(paged, listed)
        self.assertIs(a.node(f1["id"])["favorite"], True)
        self.assertIs([n for n in a.list_all(base) if n["id"] == fd["id"]][0]["favorite"], True)
        self.assertEqual(a.call("PUT", "/favorites/" + f1["id"])[0], 204)  # idempotent
        self.assertEqual(a.call("DELETE", "/favorites/" + f1["id"])[0], 204)
        self.assertEqual([n["id"] for n in a.favorites() if n["id"] in mine], [f2["id"], fd["id"]])
        self.assertIs(a.node(f1["id"])["favorite"], False)
        self.assertNotFound(*a.call("PUT", "/favorites/" + fake_id())[::2])
        self.assertEqual(a.call("GET", "/favorites?limit=501")[0], 400)
        # Recent: uploads, downloads and renames move a file to the front.
        r1 = a.put(base, "recent1.txt", b"r1")
        r2 = a.put(base, "recent2.txt", b"r2")
        self.assertTrue(eventually(lambda: a.recent_ids()[:2] == [r2["id"], r1["id"]]),
                        [n["name"] for n in a.recent()[:5]])
        self.assertEqual(a.read(r1["id"]), b"r1")
        self.assertTrue(eventually(lambda: a.recent_ids()[:2] == [r1["id"], r2["id"]]),
                        [n["name"] for n in a.recent()[:5]])
        a.call("PATCH", "/nodes/" + r2["id"], {"name": "recent2-renamed.txt"})
        self.assertTrue(eventually(lambda: a.recent_ids()[:1] == [r2["id"]]))
        self.assertEqual(a.recent()[0]["name"], "recent2-renamed.txt")
        ids = [n["id"] for n in a.recent()]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertLessEqual(len(ids), 100)
        status, _, body = a.call("GET", "/recent?limit=1")
        self.assertEqual((status, [n["id"] for n in body["items"]]), (200, [r2["id"]]))

    # --- search

    def test_search(self):
        a, base = self.a, self.base
        sub = a.mkdir(base, "sub")
        ms = {"ärger.txt": 1_500_000_000_000, "großer ärger.bin": 1_600_000_000_000, "ÄRGERNIS.md": 1_700_000_000_000}
        a.put(base, "ärger.txt", b"0123456789", modified=ms["ärger.txt"])
        a.put(base, "großer ärger.bin", os.urandom(5000), modified=ms["großer ärger.bin"])
        a.put(sub["id"], "ÄRGERNIS.md", b"# title\n" + b"x" * 192, modified=ms["ÄRGERNIS.md"])
        a.mkdir(base, "Ärger-Ordner")
        a.put(base, "harmlos.txt", b"h")
        a.put(base, "100%_done.txt", b"d")
        everything = {"ärger.txt", "großer ärger.bin", "ÄRGERNIS.md", "Ärger-Ordner"}

        def names(q, **params):
            items = a.search(q, **params)
            ids = [n["id"] for n in items]
            self.assertEqual(len(ids), len(set(ids)))
            return {n["name"] for n in items}

        for q in ("ÄRGER", "ärger", "RGER", "Ärger", "äRgEr"):
            self.assertEqual(names(q), everything, q)
        self.assertEqual(names("GROßER ÄRGER"), {"großer ärger.bin"})
        self.assertEqual(names("ärger.TXT"), {"ärger.txt"})
        self.assertEqual(names("ärger", kind="file"), everything - {"Ärger-Ordner"})
        self.assertEqual(names("ärger", kind="folder"), {"Ärger-Ordner"})
        self.assertEqual(names("ärger", kind="file", min_size=100), {"großer ärger.bin", "ÄRGERNIS.md"})
        self.assertEqual(names("ärger", kind="file", max_size=100), {"ärger.txt"})
        self.assertEqual(names("ärger", kind="file", min_size=100, max_size=1000), {"ÄRGERNIS.md"})
        self.assertEqual(names("ärger", kind="file", mime="text/"), {"ärger.txt", "ÄRGERNIS.md"})
        self.assertEqual(names("ärger", kind="file", modified_after=1_550_000_000_000),
                         {"großer ärger.bin", "ÄRGERNIS.md"})
        self.assertEqual(names("ärger", kind="file", modified_before=1_650_000_000_000),
                         {"ärger.txt", "großer ärger.bin"})
        # SQL wildcards are plain characters.
        self.assertEqual(names("%"), {"100%_done.txt"})
        self.assertEqual(names("0%_d"), {"100%_done.txt"})
        self.assertEqual(names("%ärger"), set())
        # Paging: one at a time, nothing twice, nothing lost.
        one = a.paged("/search?" + qs(q="ärger"), limit=1)
        self.assertEqual(len(one), 4)
        self.assertEqual({n["name"] for n in one}, everything)
        nodes = {n["name"]: n for n in one}
        self.assertEqual(nodes["ÄRGERNIS.md"]["parent_id"], sub["id"])
        self.assertEqual(nodes["ärger.txt"]["size"], 10)
        for bad in ({}, {"q": ""}, {"q": "x", "limit": 501}, {"q": "x", "kind": "thing"}, {"q": "x", "cursor": "garbage"},
                    {"q": "x", "min_size": "big"}):
            self.assertEqual(a.call("GET", "/search?" + qs(**bad))[0], 400, bad)

    # --- batch

    def test_batch(self):
        a, base = self.a, self.base
        src = a.mkdir(base, "src")
        dst = a.mkdir(base, "dst")
        fa, fb, fc = (a.put(src["id"], n, n.encode()) for n in ("a.txt", "b.txt", "c.txt"))
        bad = fake_id()

        def batch(body, expect):
            status, _, out = a.call("POST", "/batch", body)
            self.assertEqual(status, 200, out)
            results = out["results"]
            self.assertEqual([r["id"] for r in results], body["ids"])
            self.assertEqual([r["status"] for r in results], expect, results)
            for r in results:
                if r["status"] == 404:
                    self.assertEqual(r["error"], NOT_FOUND)
                    self.assertNotIn("node", r)
            return results

        res = batch({"op": "move", "ids": [fa["id"], bad, fb["id"]], "parent_id": dst["id"]}, [200, 404, 200])
        self.assertEqual([res[0]["node"]["parent_id"], res[2]["node"]["parent_id"]], [dst["id"], dst["id"]])
        self.assertEqual(a.names(dst["id"]), ["a.txt", "b.txt"])
        self.assertEqual(a.names(src["id"]), ["c.txt"])
        res = batch({"op": "copy", "ids": [fc["id"]], "parent_id": src["id"]}, [409])
        res = batch({"op": "copy", "ids": [fa["id"], bad, fc["id"]], "parent_id": src["id"], "conflict": "rename"},
                    [201, 404, 201])
        copy_a = res[0]["node"]
        self.assertEqual((copy_a["name"], copy_a["parent_id"]), ("a.txt", src["id"]))
        self.assertNotEqual(copy_a["id"], fa["id"])
        self.assertEqual((res[2]["node"]["name"], res[2]["node"]["hash"]), ("c (1).txt", fc["hash"]))
        self.assertEqual(a.names(src["id"]), ["a.txt", "c (1).txt", "c.txt"])
        self.assertEqual(a.read(copy_a["id"]), b"a.txt")
        # Name conflicts per item: fail, then rename.
        res = batch({"op": "move", "ids": [copy_a["id"]], "parent_id": dst["id"]}, [409])
        self.assertIn(res[0]["error"]["error"], ("already_exists", "conflict"))
        res = batch({"op": "move", "ids": [copy_a["id"]], "parent_id": dst["id"], "conflict": "rename"}, [200])
        self.assertEqual(res[0]["node"]["name"], "a (1).txt")
        batch({"op": "trash", "ids": [fb["id"], bad, fc["id"]]}, [204, 404, 204])
        self.assertEqual(a.status_of(fb["id"]), 404)
        self.assertEqual(a.status_of(fc["id"]), 404)
        res = batch({"op": "restore", "ids": [fb["id"], bad]}, [200, 404])
        self.assertEqual(res[0]["node"]["parent_id"], dst["id"])
        batch({"op": "delete", "ids": [fb["id"], bad, fc["id"]]}, [204, 404, 204])
        self.assertEqual(a.status_of(fb["id"]), 404)
        trash_ids = {n["id"] for n in a.trash()}
        self.assertFalse({fb["id"], fc["id"]} & trash_ids)
        self.assertEqual(a.names(dst["id"]), ["a (1).txt", "a.txt"])
        # Malformed batches.
        for body in ({"op": "explode", "ids": [fa["id"]]}, {"op": "move", "ids": [fa["id"]]},
                     {"op": "trash", "ids": [fake_id() for _ in range(1001)]}, {"op": "trash"},
                     {"op": "trash", "ids": "x"}):
            self.assertEqual(a.call("POST", "/batch", body)[0], 400, str(body)[:80])
        self.assertEqual(a.names(dst["id"]), ["a (1).txt", "a.txt"])

    # --- ZIP

    def test_zip(self):
        a, base = self.a, self.base
        top_name = nfc("Zip Ordner ü")
        z = a.mkdir(base, top_name)
        words = [nfc(w) for w in ("plain", "Grüße", "日本語", "emoji 😀", "naïve café", "Ωmega", "x+y=z", "ünïcödé",
                                  "Ελληνικά", "a&b")]
        rng = random.Random(3)
        expected = {}
        parts = []
        for i in range(1000):
            name = "%04d %s.txt" % (i, words[i % len(words)])
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 300))) if i % 3 else (
                ("line %d\n" % i).encode() * rng.randrange(0, 40))
            expected[name] = data
            parts.append((name, data))
        for rel, data in (("sub/inner ü.txt", b"inner"), ("sub/deeper/x.bin", os.urandom(150000))):
            expected[rel] = data
            parts.append((rel, data))
        for off in range(0, len(parts), 250):
            status, _, body = a.multipart(z["id"], parts[off:off + 250])
            self.assertEqual(status, 200, body)
            self.assertEqual({i["status"] for i in body["items"]}, {201}, [i for i in body["items"] if i["status"] != 201][:3])
        a.mkdir(z["id"], "empty")
        # A trashed file is not in the archive.
        gone = a.put(z["id"], "trashed.txt", b"not here")
        self.assertEqual(a.delete(gone["id"]), 204)
        status, hdrs, body = a.raw("GET", "/nodes/%s/zip" % z["id"])
        self.assertEqual(status, 200, body[:200])
        self.assertEqual(hdrs["content-type"].split(";")[0], "application/zip")
        self.assertTrue(hdrs.get("content-disposition", "").startswith("attachment"), hdrs)
        zf = zipfile.ZipFile(io.BytesIO(body))
        files = {i.filename: zf.read(i) for i in zf.infolist() if not i.filename.endswith("/")}
        dirs = {i.filename for i in zf.infolist() if i.filename.endswith("/")}
        self.assertIsNone(zf.testzip())
        self.assertEqual(set(files), {top_name + "/" + k for k in expected})
        for k, data in expected.items():
            self.assertEqual(files[top_name + "/" + k], data, k)
        self.assertTrue(dirs <= {top_name + "/", top_name + "/sub/", top_name + "/sub/deeper/", top_name + "/empty/"},
                        dirs)
        self.assertIn(top_name + "/empty/", dirs)
        # A selection: entries relative to the selected nodes' folder.
        tree = {n["name"]: n for n in a.list_all(z["id"])}
        first = "0000 plain.txt"
        status, hdrs, body = a.raw("GET", "/zip?ids=%s,%s" % (tree[first]["id"], tree["sub"]["id"]))
        self.assertEqual(status, 200, body[:200])
        zf = zipfile.ZipFile(io.BytesIO(body))
        files = {i.filename: zf.read(i) for i in zf.infolist() if not i.filename.endswith("/")}
        self.assertEqual(files, {first: expected[first], "sub/inner ü.txt": b"inner",
                                 "sub/deeper/x.bin": expected["sub/deeper/x.bin"]})
        self.assertNotFound(*a.call("GET", "/zip?ids=%s,%s" % (tree[first]["id"], fake_id()))[::2])
        self.assertNotFound(*a.call("GET", "/nodes/%s/zip" % fake_id())[::2])
        self.assertEqual(a.call("GET", "/zip?ids=")[0], 400)

    # --- isolation

    def test_isolation_between_users(self):
        a, b, base = self.a, self.b, self.base
        secret = "secretname" + os.urandom(3).hex()
        folder = a.mkdir(base, secret + "-dir")
        data = os.urandom(20000)
        f = a.put(folder["id"], secret + ".bin", data)
        trashed = a.put(folder["id"], secret + "-trashed.txt", b"t")
        self.assertEqual(a.delete(trashed["id"]), 204)
        self.assertEqual(a.call("PUT", "/favorites/" + f["id"])[0], 204)
        a.read(f["id"])
        mine = b.put(b.root, "bobs-own.txt", b"bob")
        ctype, mp = multipart_body([("x.txt", b"x")])
        routes = [
            ("GET", "/nodes/{id}", None, None),
            ("GET", "/nodes/{id}/children", None, None),
            ("GET", "/nodes/{id}/content", None, None),
            ("GET", "/nodes/{id}/content?download=1", None, {"Range": "bytes=0-10"}),
            ("GET", "/nodes/{id}/zip", None, None),
            ("GET", "/zip?ids={id}", None, None),
            ("PATCH", "/nodes/{id}", {"name": "stolen"}, None),
            ("PATCH", "/nodes/%s" % mine["id"], {"parent_id": "{id}"}, None),
            ("POST", "/nodes/{id}/copy", {"parent_id": b.root}, None),
            ("POST", "/nodes/%s/copy" % mine["id"], {"parent_id": "{id}"}, None),
            ("POST", "/nodes/{id}/folders", {"name": "x"}, None),
            ("PUT", "/nodes/{id}/files/x.txt", b"hello", None),
            ("POST", "/nodes/{id}/upload", mp, {"Content-Type": ctype}),
            ("POST", "/nodes/{id}/instant", {"name": "i.bin", "hash": mine["hash"], "size": 3}, None),
            ("DELETE", "/nodes/{id}", None, None),
            ("DELETE", "/nodes/{id}?permanent=true", None, None),
            ("POST", "/nodes/{id}/restore", None, None),
            ("PUT", "/favorites/{id}", None, None),
            ("DELETE", "/favorites/{id}", None, None),
        ]
        for victim in (folder["id"], f["id"], trashed["id"]):
            for method, path, body, headers in routes:
                def fill(v, target=victim):
                    if isinstance(v, str):
                        return v.replace("{id}", target)
                    if isinstance(v, dict):
                        return {k: fill(x, target) for k, x in v.items()}
                    return v
                unknown = fake_id()
                s1, _, b1 = b.raw(method, fill(path), fill(body), headers)
                s2, _, b2 = b.raw(method, fill(path, unknown), fill(body, unknown), headers)
                what = "%s %s on %s" % (method, path, victim)
                self.assertEqual(s1, 404, what + ": " + b1[:200].decode("utf-8", "replace"))
                self.assertEqual((s1, b1), (s2, b2), what)
                self.assertEqual(json.loads(b1), NOT_FOUND, what)
            s1, _, b1 = b.raw("HEAD", "/nodes/%s/content" % victim)
            self.assertEqual(s1, 404)
            # Batches answer per item, the same way.
            for op in ("move", "copy", "trash", "restore", "delete"):
                status, _, out = b.call("POST", "/batch", {"op": op, "ids": [victim, fake_id()], "parent_id": b.root})
                self.assertEqual(status, 200, out)
                r1, r2 = out["results"]
                self.assertEqual((r1["status"], r1["error"]), (r2["status"], r2["error"]), op)
                self.assertEqual(r1["status"], 404)
        # Bob's instant with alice's hash looks exactly like an unknown hash.
        s1, _, b1 = b.raw("POST", "/nodes/%s/instant" % b.root, {"name": "h.bin", "hash": f["hash"], "size": len(data)})
        s2, _, b2 = b.raw("POST", "/nodes/%s/instant" % b.root,
                          {"name": "h.bin", "hash": os.urandom(32).hex(), "size": len(data)})
        self.assertEqual((s1, b1), (s2, b2))
        self.assertEqual(s1, 404)
        # Alice's nodes are untouched.
        n = a.node(f["id"])
        self.assertEqual((n["name"], n["parent_id"], n["favorite"]), (secret + ".bin", folder["id"], True))
        self.assertEqual(a.read(f["id"]), data)
        self.assertEqual(a.names(folder["id"]), [secret + ".bin"])
        self.assertIn(trashed["id"], [t["id"] for t in a.trash()])
        # Bob's lists never show alice's names.
        self.assertEqual(b.search(secret), [])
        self.assertEqual(b.search("secretname"), [])
        for items in (b.recent(), b.favorites(), b.trash(), b.list_all(b.root)):
            self.assertFalse([x for x in items if "secretname" in x["name"]], items)
        self.assertEqual(b.names(b.root), ["bobs-own.txt"])
        self.assertEqual(b.usage()["used_bytes"], 3)
        self.assertEqual(a.search("bobs-own"), [])

    # --- the end: totals agree, the server stops cleanly, fsck is clean

    def test_zy_usage_matches_tree(self):
        for c in (self.a, self.b):
            tree = c.walk(c.root)
            total = sum(n["size"] for n in tree.values() if n["kind"] == "file")
            # Overwritten files keep versions, charged what they do not share.
            charged = 0
            for n in tree.values():
                if n["kind"] == "file":
                    status, _, vs = c.call("GET", "/nodes/%s/versions" % n["id"])
                    self.assertEqual(status, 200, vs)
                    charged += sum(v["charged_bytes"] for v in vs["items"])
            usage = c.usage()
            self.assertEqual(usage["versions_bytes"], charged, c.user)
            self.assertEqual(usage["used_bytes"], total + charged, c.user)
            self.assertEqual(c.node(c.root)["size"], total, c.user)
            _, _, drives = c.call("GET", "/drives")
            self.assertEqual(drives["drives"][0]["used_bytes"], total + charged, c.user)
            for rel, n in tree.items():
                if n["kind"] == "folder":
                    below = sum(m["size"] for r, m in tree.items() if r.startswith(rel + "/") and m["kind"] == "file")
                    self.assertEqual(n["size"], below, rel)

    def test_zz_fsck(self):
        self.assert_clean_shutdown_and_fsck(self.srv)


# ----------------------------------------------------------------------------
# Quotas and the upload size limit, on their own server.


class QuotaTest(FsckMixin, unittest.TestCase):
    QUOTA = 10 * MiB
    PART = 3 * MiB  # 30 % of the quota
    MAX_UPLOAD = 8 * MiB

    @classmethod
    def setUpClass(cls):
        # A maintenance sweep trims an over-budget trash whenever it runs,
        # and test_quota holds a trashed file over budget while it checks
        # that restoring it is refused: the sweep a server runs soon after
        # it starts is waited for here, and the next is a week away.
        cls.srv, cls.admin = start_server({"NUBO_FILES_MAX_UPLOAD": "8MiB", "NUBO_MAINTENANCE_INTERVAL": "7d"})
        cls.c = add_user(cls.admin, "carol", "carol password", quota=cls.QUOTA)
        deadline = time.time() + 30
        while metric(cls.srv, "nubo_maintenance_sweeps_total") < 1:
            assert time.time() < deadline, "no maintenance sweep within 30 s of the start"
            time.sleep(0.05)

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def assertQuotaExceeded(self, status, body):
        self.assertEqual(status, 507, body)
        self.assertEqual(body["error"], "quota_exceeded")

    def test_max_upload(self):
        admin = self.admin
        root = admin.root
        status, _, body = raw_upload(self.srv, admin.auth, "/nodes/%s/files/big1.bin" % root, [],
                                     total=self.MAX_UPLOAD + 1, expect_continue=True)
        self.assertEqual(status, 413, body)
        self.assertEqual(body["error"], "too_large")
        piece = os.urandom(MiB)
        status, _, body = raw_upload(self.srv, admin.auth, "/nodes/%s/files/big2.bin" % root, [piece] * 9)
        self.assertEqual(status, 413, body)
        self.assertEqual(admin.names(root), [])
        data = os.urandom(self.MAX_UPLOAD)
        node = admin.put(root, "exactly.bin", data)
        self.assertEqual(sha(admin.read(node["id"])), sha(data))
        self.assertEqual(admin.usage(), {"used_bytes": self.MAX_UPLOAD, "versions_bytes": 0, "quota_bytes": None})

    def test_quota(self):
        c = self.c
        root = c.root
        self.assertEqual(c.usage(), {"used_bytes": 0, "versions_bytes": 0, "quota_bytes": self.QUOTA})
        _, _, drives = c.call("GET", "/drives")
        self.assertEqual((drives["drives"][0]["quota_bytes"], drives["drives"][0]["used_bytes"]), (self.QUOTA, 0))
        # 8 concurrent uploads of 30 % each: at most 3 fit, usage never exceeds the quota.
        blobs = [os.urandom(self.PART) for _ in range(8)]
        peak = [0]
        stop = threading.Event()

        def poll():
            while not stop.is_set():
                peak[0] = max(peak[0], c.usage()["used_bytes"])
                time.sleep(0.01)

        barrier = threading.Barrier(8)

        def one(i):
            barrier.wait()
            pieces = [blobs[i][o:o + (256 << 10)] for o in range(0, self.PART, 256 << 10)]
            return raw_upload(self.srv, c.auth, "/nodes/%s/files/q%d.bin" % (root, i), pieces, total=self.PART,
                              expect_continue=True)

        poller = threading.Thread(target=poll)
        poller.start()
        try:
            with concurrent.futures.ThreadPoolExecutor(8) as ex:
                results = list(ex.map(one, range(8)))
        finally:
            stop.set()
            poller.join()
        statuses = [r[0] for r in results]
        self.assertTrue(set(statuses) <= {201, 507}, statuses)
        ok = [i for i, r in enumerate(results) if r[0] == 201]
        self.assertTrue(1 <= len(ok) <= 3, statuses)
        for r in results:
            if r[0] == 507:
                self.assertQuotaExceeded(r[0], r[2])
        self.assertLessEqual(peak[0], self.QUOTA)
        self.assertEqual(c.usage()["used_bytes"], len(ok) * self.PART)
        # Refused uploads left nothing behind (and no reservation): fill up to exactly 3.
        extra = 0
        while len(ok) < 3:
            data = os.urandom(self.PART)
            c.put(root, "fill%d.bin" % extra, data)
            ok.append(None)
            extra += 1
        self.assertQuotaExceeded(*c.send(root, "one-too-many.bin", os.urandom(self.PART))[::2])
        used = 3 * self.PART
        self.assertEqual(c.usage()["used_bytes"], used)
        self.assertEqual(len(c.names(root)), 3)
        files = c.list_all(root)
        # The remaining 1 MiB: a small file fits, a bigger one does not.
        c.put(root, "small.bin", os.urandom(512 << 10))
        used += 512 << 10
        self.assertQuotaExceeded(*c.send(root, "medium.bin", os.urandom(600 << 10))[::2])
        status, _, body = raw_upload(self.srv, c.auth, "/nodes/%s/files/chunked.bin" % root, [os.urandom(256 << 10)] * 8)
        self.assertQuotaExceeded(status, body)
        self.assertEqual(c.usage()["used_bytes"], used)
        # Copy, instant and multipart count too.
        self.assertQuotaExceeded(*c.call("POST", "/nodes/%s/copy" % files[0]["id"],
                                         {"parent_id": root, "name": "copy.bin"})[::2])
        self.assertQuotaExceeded(*c.call("POST", "/nodes/%s/instant" % root,
                                         {"name": "inst.bin", "hash": files[0]["hash"], "size": self.PART})[::2])
        status, _, body = c.multipart(root, [("mp-big.bin", os.urandom(2 * MiB)), ("mp-small.bin", b"s" * 10240)])
        self.assertEqual(status, 200, body)
        self.assertEqual([i["status"] for i in body["items"]], [507, 201])
        self.assertEqual(body["items"][0]["error"]["error"], "quota_exceeded")
        used += 10240
        self.assertEqual(c.usage()["used_bytes"], used)
        self.assertEqual(sorted(set(c.names(root)) & {"medium.bin", "chunked.bin", "copy.bin", "inst.bin", "mp-big.bin",
                                                      "one-too-many.bin"}), [])
        # Trashed bytes do not count; restoring them counts again. (The
        # victim is small: with a quota the trash holds at most half of what
        # the quota leaves free, and a 3 MiB file would go for good at once.)
        victim = [n for n in c.list_all(root) if n["name"] == "mp-small.bin"][0]
        self.assertEqual(c.delete(victim["id"]), 204)
        used -= 10240
        self.assertEqual(c.usage()["used_bytes"], used)
        refill = c.put(root, "refill.bin", os.urandom(self.QUOTA - used - 5000))
        used = self.QUOTA - 5000
        self.assertQuotaExceeded(*c.call("POST", "/nodes/%s/restore" % victim["id"])[::2])
        self.assertIn(victim["id"], [n["id"] for n in c.trash()])
        self.assertEqual(c.status_of(victim["id"]), 404)
        self.assertEqual(c.usage()["used_bytes"], used)
        self.assertEqual(c.delete(refill["id"], permanent=True), 204)
        used -= refill["size"]
        status, _, body = c.call("POST", "/nodes/%s/restore" % victim["id"])
        self.assertEqual(status, 200, body)
        used += 10240
        self.assertEqual(c.usage()["used_bytes"], used)
        self.assertLessEqual(used, self.QUOTA)
        # A small copy still fits.
        small = [n for n in c.list_all(root) if n["name"] == "mp-small.bin"][0]
        self.assertEqual(c.call("POST", "/nodes/%s/copy" % small["id"], {"parent_id": root, "name": "s2.bin"})[0], 201)
        used += 10240
        self.assertEqual(c.usage()["used_bytes"], used)
        self.assertEqual(sum(n["size"] for n in c.list_all(root)), used)

    def test_zz_fsck(self):
        self.assert_clean_shutdown_and_fsck(self.srv)


# ----------------------------------------------------------------------------
# A big file through the server with bounded memory.


class SizeUnitsTest(unittest.TestCase):
    """A configured size means what its unit says: "1MB" is 1,000,000 bytes
    (SI), "1MiB" 1,048,576 (IEC)."""

    def test_si_megabyte_is_a_million_bytes(self):
        srv, admin = start_server({"NUBO_FILES_MAX_UPLOAD": "1MB"})
        try:
            root = admin.root
            admin.put(root, "exact.bin", b"m" * 1_000_000)
            status, _, body = raw_upload(srv, admin.auth, "/nodes/%s/files/over.bin" % root, [b"m" * 1_000_001])
            self.assertEqual(status, 413, body)  # 1 MiB would have taken it
        finally:
            srv.close()


class BigFileTest(FsckMixin, unittest.TestCase):
    def test_big_upload_and_download_in_bounded_memory(self):
        srv, admin = start_server()
        try:
            size = BIG_BYTES
            piece = 1 << 20
            up_hash = hashlib.sha256()
            sample_len = 4000
            samples = {off: b"" for off in (size // 2 - 1000, 65000, size - sample_len)}  # checked by ranges

            def body():
                sent = 0
                while sent < size:
                    chunk = os.urandom(min(piece, size - sent))
                    up_hash.update(chunk)
                    for off in samples:
                        lo, hi = max(off, sent), min(off + sample_len, sent + len(chunk))
                        if lo < hi:
                            samples[off] += chunk[lo - sent:hi - sent]
                    sent += len(chunk)
                    yield chunk

            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=600)
            try:
                conn.request("PUT", API + "/nodes/%s/files/big.bin" % admin.root, body=body(),
                             headers={"Authorization": admin.auth, "Content-Length": str(size)})
                resp = conn.getresponse()
                node = json.loads(resp.read())
                self.assertEqual(resp.status, 201, node)
            finally:
                conn.close()
            self.assertEqual(node["size"], size)
            self.assertRegex(node["hash"], HEX64)
            rss_up = srv.peak_rss_kb()
            # Streamed download, hashed as it arrives.
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=600)
            try:
                conn.request("GET", API + "/nodes/%s/content" % node["id"], headers={"Authorization": admin.auth})
                resp = conn.getresponse()
                self.assertEqual(resp.status, 200)
                self.assertEqual(resp.getheader("Content-Length"), str(size))
                self.assertEqual(resp.getheader("ETag"), node["etag"])
                down_hash, got = hashlib.sha256(), 0
                while True:
                    chunk = resp.read(piece)
                    if not chunk:
                        break
                    down_hash.update(chunk)
                    got += len(chunk)
            finally:
                conn.close()
            self.assertEqual(got, size)
            self.assertEqual(down_hash.hexdigest(), up_hash.hexdigest())
            for off, data in samples.items():
                self.assertEqual(len(data), sample_len)
                status, hdrs, part = admin.content(node["id"], {"Range": "bytes=%d-%d" % (off, off + len(data) - 1)})
                self.assertEqual((status, part), (206, data), off)
            rss = srv.peak_rss_kb()
            print("peak RSS after %d bytes up (%d KiB) and down: %d KiB" % (size, rss_up, rss))
            if not SANITIZED:
                self.assertLess(rss, RSS_LIMIT_KB)
            self.assertEqual(admin.usage()["used_bytes"], size)
            self.assert_clean_shutdown_and_fsck(srv)
        finally:
            srv.close()


if __name__ == "__main__":
    unittest.main()


# ----------------------------------------------------------------------------
# Retention: the background job deletes expired trash for good.


@sqlite_only
class FsckFindsTamperedMetadataTest(unittest.TestCase):
    """fsck recomputes what the server keeps denormalized: each folder's size
    rollup, each file's content hash (its ETag) beside its manifest, and each
    drive's sum of WebDAV property bytes (which its quota counts)."""

    def test_tampered_hash_and_rollup_are_reported(self):
        srv, admin = start_server()
        try:
            folder = admin.mkdir(admin.root, "f")
            f = admin.put(folder["id"], "a.txt", b"some bytes")
            self.assertEqual(srv.terminate(), 0, srv.log()[-3000:])
            clean = run_fsck(srv)
            self.assertEqual(clean.returncode, 0, clean.stdout + clean.stderr)
            db = sqlite3.connect(os.path.join(srv.data, "nubo.db"))
            with db:
                db.execute("UPDATE nodes SET content_hash = zeroblob(32) WHERE public_id = ?", (f["id"],))
                db.execute("UPDATE nodes SET size = size + 1 WHERE public_id = ?", (folder["id"],))
                db.execute("UPDATE drives SET props_bytes = props_bytes + 7")
            db.close()
            p = run_fsck(srv)
            self.assertNotEqual(p.returncode, 0, p.stdout)
            self.assertIn("node %s records a content hash" % f["id"], p.stdout + p.stderr)
            self.assertIn("folder %s records 11 bytes" % folder["id"], p.stdout + p.stderr)
            self.assertIn("records 7 bytes of properties, its nodes hold 0", p.stdout + p.stderr)
            # The item count kept by triggers, and a row without a listing key.
            db = sqlite3.connect(os.path.join(srv.data, "nubo.db"))
            with db:
                db.execute("UPDATE nodes SET child_count = 5 WHERE public_id = ?", (folder["id"],))
                db.execute("UPDATE nodes SET sort_key = NULL WHERE public_id = ?", (f["id"],))
            db.close()
            p = run_fsck(srv)
            self.assertIn("folder %s records 5 items, it holds 1" % folder["id"], p.stdout)
            self.assertIn("1 node(s) have no listing key", p.stdout)
        finally:
            srv.close()


@sqlite_only
class ListingKeysUpgradeTest(unittest.TestCase):
    """Rows without a listing key (written before natural order) and keys of
    another collation version are rebuilt before the server serves, so an
    upgraded server lists in natural order at once."""

    def test_keys_are_filled_and_rebuilt_at_start(self):
        srv, admin = start_server()
        try:
            folder = admin.mkdir(admin.root, "up")
            for name in ("a10", "a9", "A1"):
                admin.put(folder["id"], name, b"x")
            want = ["A1", "a9", "a10"]
            self.assertEqual([n["name"] for n in admin.list_all(folder["id"])], want)
            self.assertEqual(srv.terminate(), 0, srv.log()[-3000:])
            db_path = os.path.join(srv.data, "nubo.db")
            db = sqlite3.connect(db_path)
            with db:  # as a database migrated from before natural order is
                db.execute("UPDATE nodes SET sort_key = NULL WHERE parent_id IS NOT NULL")
            db.close()
            srv._start()
            self.assertEqual([n["name"] for n in admin.list_all(folder["id"])], want)
            self.assertEqual(srv.terminate(), 0, srv.log()[-3000:])
            db = sqlite3.connect(db_path)
            with db:  # as after an ICU upgrade: every key is stale
                db.execute("UPDATE settings SET value = 'icu-0.0-old' WHERE key = 'collation_version'")
                db.execute("UPDATE nodes SET sort_key = X'FFFF' WHERE parent_id IS NOT NULL")
            db.close()
            srv._start()
            self.assertEqual([n["name"] for n in admin.list_all(folder["id"])], want)
            self.assertEqual(srv.terminate(), 0, srv.log()[-3000:])
            db = sqlite3.connect(db_path)
            (version,), = db.execute("SELECT value FROM settings WHERE key = 'collation_version'").fetchall()
            (unkeyed,), = db.execute("SELECT COUNT(*) FROM nodes WHERE sort_key IS NULL OR sort_key = X'FFFF'")
            db.close()
            self.assertNotEqual(version, "icu-0.0-old")
            self.assertEqual(unkeyed, 0)
            collator, library = version.split("@icu-")
            self.assertTrue(collator.startswith("icu-") and library, version)

            def restart_with(setting, sentinel):
                # A marker key on one row tells whether the start rebuilt
                # the keys (it drops them all) or kept them.
                db = sqlite3.connect(db_path)
                with db:
                    db.execute("UPDATE settings SET value = ? WHERE key = 'collation_version'", (setting,))
                    db.execute("UPDATE nodes SET sort_key = ? WHERE public_id = ?", (sentinel, folder["id"]))
                db.close()
                srv._start()
                self.assertEqual([n["name"] for n in admin.list_all(folder["id"])], want)
                self.assertEqual(srv.terminate(), 0, srv.log()[-3000:])
                db = sqlite3.connect(db_path)
                (value,), = db.execute("SELECT value FROM settings WHERE key = 'collation_version'").fetchall()
                (key,), = db.execute("SELECT sort_key FROM nodes WHERE public_id = ?", (folder["id"],)).fetchall()
                db.close()
                self.assertEqual(value, version)
                return key == sentinel

            # The same library: the stored collator version is trusted.
            self.assertTrue(restart_with(version, b"\x01kept"))
            # Written before the library version was kept, same collator:
            # only the setting is rewritten.
            self.assertTrue(restart_with(collator, b"\x01kept"))
            # Another library whose collator matches: keys stay.
            self.assertTrue(restart_with(collator + "@icu-0.0", b"\x01kept"))
            # Another library and another collator: every key is rebuilt.
            self.assertFalse(restart_with("icu-0.0-old@icu-0.0", b"\x01kept"))
            p = run_fsck(srv)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        finally:
            srv.close()


class TrashRetentionTest(FsckMixin, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin = start_server({"NUBO_FILES_TRASH_RETENTION": "1s",
                                           "NUBO_MAINTENANCE_INTERVAL": "200ms"})

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def test_expired_trash_is_purged(self):
        a = self.admin
        folder = a.mkdir(a.root, "old")
        kept = a.put(a.root, "kept.txt", b"kept")
        inner = a.put(folder["id"], "inner.txt", b"inner bytes")
        self.assertEqual(a.call("DELETE", "/nodes/%s" % folder["id"])[0], 204)
        self.assertEqual(a.call("GET", "/trash")[2]["retention_ms"], 1000)
        # Within a second or two the purge job deletes it: gone from the
        # trash, gone by id (even for a permanent delete), usage unchanged.
        gone = eventually(lambda: a.call("GET", "/trash")[2]["items"] == [], timeout=10)
        self.assertTrue(gone)
        self.assertEqual(a.call("DELETE", "/nodes/%s?permanent=true" % inner["id"])[0], 404)
        self.assertEqual(a.call("POST", "/nodes/%s/restore" % folder["id"])[0], 404)
        self.assertEqual(a.usage()["used_bytes"], 4)
        self.assertEqual(a.read(kept["id"]), b"kept")
        # Log lines reach the file within a second (the log is buffered).
        self.assertTrue(eventually(lambda: "trash purge: 1 expired items deleted" in self.srv.log()))
        self.assert_clean_shutdown_and_fsck(self.srv)


# ----------------------------------------------------------------------------
# Content sent with sendfile(2) (the default) and through a buffer agree.

RANGE_CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fuzz", "corpus", "fuzz_range")


def sendfile_bytes(srv):
    return metric(srv, "nubo_http_sendfile_bytes_total")


def corpus_range_headers():
    """The Range headers of the range parser's fuzz corpus that a client can
    send (no control characters but tab), in a stable order."""
    out = []
    for name in sorted(os.listdir(RANGE_CORPUS)):
        with open(os.path.join(RANGE_CORPUS, name), "rb") as f:
            raw = f.read()[1:]  # the first byte picks the fuzzer's size
        text = raw.decode("latin-1")
        if text.strip(" \t") and all(c == "\t" or 32 <= ord(c) < 127 for c in text):
            out.append(text)
    return out


def chunk_files(data_dir):
    return sum(len(files) for _, _, files in os.walk(os.path.join(data_dir, "chunks")))


@sqlite_only
class TinyFilesInlineTest(FsckMixin, unittest.TestCase):
    """Files up to storage.inline_max (8 KiB by default) keep their bytes in
    the metadata database: no chunk file is written for them, and reads,
    ranges, copies, versions, a move into a shared drive, trash and GC treat
    them like any file; fsck hashes their bytes where they are."""

    def test_tiny_files_live_in_the_database(self):
        srv, a = start_server()
        try:
            base = chunk_files(srv.data)
            tiny = random.Random(5).randbytes(4096)
            f = a.put(a.root, "tiny.bin", tiny)
            self.assertEqual(chunk_files(srv.data), base)  # no chunk file for it
            self.assertEqual(a.read(f["id"]), tiny)
            status, hdrs, part = a.content(f["id"], {"Range": "bytes=100-199,4000-"})
            self.assertEqual(status, 206)
            self.assertEqual([p[4] for p in parse_byteranges(hdrs["content-type"], part)],
                             [tiny[100:200], tiny[4000:]])
            self.assertEqual(a.raw("GET", "/dav/tiny.bin")[2], tiny)
            # The same bytes under another name: one stored copy (same ETag).
            twin = a.put(a.root, "twin.bin", tiny)
            self.assertEqual(twin["etag"], f["etag"])
            status, _, cp = a.call("POST", "/nodes/%s/copy" % f["id"], {"parent_id": a.root, "name": "copy.bin"})
            self.assertEqual(status, 201, cp)
            self.assertEqual(a.read(cp["id"]), tiny)
            # One byte over the limit is a chunk file as before.
            a.put(a.root, "over.bin", random.Random(6).randbytes(8193))
            self.assertEqual(chunk_files(srv.data), base + 1)
            # Overwritten, the old bytes stay as a version.
            newer = random.Random(7).randbytes(3000)
            a.put(a.root, "tiny.bin", newer, expect=200, conflict="overwrite")
            status, _, vs = a.call("GET", "/nodes/%s/versions" % f["id"])
            self.assertEqual((status, len(vs["items"])), (200, 1), vs)
            status, _, old = a.raw("GET", "/nodes/%s/versions/%s/content" % (f["id"], vs["items"][0]["id"]))
            self.assertEqual((status, old), (200, tiny))
            # Moved into a shared drive (a copy of the rows, the bytes by reference).
            status, _, team = a.call("POST", "/drives", {"name": "Team"})
            self.assertEqual(status, 201, team)
            status, _, moved = a.call("PATCH", "/nodes/%s" % twin["id"], {"parent_id": team["root_id"]})
            self.assertEqual(status, 200, moved)
            self.assertEqual(a.read(moved["id"]), tiny)
            a.api_prefix = False
            self.assertEqual(a.raw("GET", "/dav-drives/%s/twin.bin" % team["id"])[2], tiny)
            a.api_prefix = True
            # A ZIP of the root carries it.
            status, _, z = a.raw("GET", "/nodes/%s/zip" % a.root)
            self.assertEqual(status, 200)
            with zipfile.ZipFile(io.BytesIO(z)) as zf:
                self.assertEqual(zf.read("files/copy.bin"), tiny)
                self.assertEqual(zf.read("files/tiny.bin"), newer)
            self.assertEqual(chunk_files(srv.data), base + 1)
            code = srv.terminate()
            self.assertEqual(code, 0)
            p = run_fsck(srv)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertRegex(p.stdout, r"\((\d+) inline\)")
            self.assertGreaterEqual(int(re.search(r"\((\d+) inline\)", p.stdout).group(1)), 2)
        finally:
            srv.close()

    def test_off_writes_chunk_files(self):
        srv, a = start_server({"NUBO_STORAGE_INLINE_MAX": "0"})
        try:
            base = chunk_files(srv.data)
            tiny = random.Random(8).randbytes(100)
            f = a.put(a.root, "t.bin", tiny)
            self.assertEqual(chunk_files(srv.data), base + 1)
            self.assertEqual(a.read(f["id"]), tiny)
            self.assert_clean_shutdown_and_fsck(srv)
        finally:
            srv.close()


class SendfileParityTest(FsckMixin, unittest.TestCase):
    """The same file served by a server that sends content from its chunk
    files (sendfile) and by one that copies it through a buffer
    (http.sendfile=false): every Range header of the fuzz corpus plus ranges
    across chunk boundaries get the same status, headers and bytes, and the
    bytes are the file's."""

    def test_every_range_agrees_with_the_buffered_path(self):
        on, a_on = start_server()
        off, a_off = start_server({"NUBO_HTTP_SENDFILE": "false"})
        try:
            size = 5 * MiB + 777  # several chunks
            data = random.Random(21).randbytes(size)
            n_on = a_on.put(a_on.root, "r.bin", data)
            n_off = a_off.put(a_off.root, "r.bin", data)
            self.assertEqual(n_on["etag"], n_off["etag"])
            specs = corpus_range_headers()
            self.assertGreater(len(specs), 50)  # the corpus is there and read
            rng = random.Random(7)
            for _ in range(40):
                first = rng.randrange(size)
                specs.append("bytes=%d-%d" % (first, min(size - 1, first + rng.randrange(1, 3 * MiB))))
            specs += ["bytes=0-", "bytes=-1", "bytes=%d-" % (size - 1), "bytes=0-0,%d-" % (size - 2),
                      "bytes=10-20,1048570-2097160,4194300-", "bytes=%d-%d" % (size, size + 5)]
            before_on, before_off = sendfile_bytes(on), sendfile_bytes(off)
            kinds = set()
            for spec in specs:
                s1, h1, b1 = a_on.content(n_on["id"], {"Range": spec})
                s2, h2, b2 = a_off.content(n_off["id"], {"Range": spec})
                self.assertEqual(s1, s2, spec)
                for k in ("content-range", "content-length", "etag"):
                    self.assertEqual(h1.get(k), h2.get(k), (spec, k))
                ctype = h1.get("content-type", "")
                if s1 == 206 and ctype.startswith("multipart/byteranges"):
                    kinds.add("multipart")
                    p1 = parse_byteranges(ctype, b1)
                    p2 = parse_byteranges(h2["content-type"], b2)
                    self.assertEqual(p1, p2, spec)
                    for first, last, total, _, chunk in p1:
                        self.assertEqual((total, chunk), (size, data[first:last + 1]), spec)
                elif s1 == 206:
                    kinds.add("single")
                    self.assertEqual(b1, b2, spec)
                    first, last = map(int, re.fullmatch(r"bytes (\d+)-(\d+)/\d+", h1["content-range"]).groups())
                    self.assertEqual(b1, data[first:last + 1], spec)
                elif s1 == 200:
                    kinds.add("whole")
                    self.assertEqual((b1, b2), (data, data), spec)
                else:
                    kinds.add(s1)
                    self.assertEqual(s1, 416, spec)
            self.assertEqual(kinds, {"multipart", "single", "whole", 416})
            # WebDAV's GET shares the path.
            path = "/dav/r.bin"
            s1, _, b1 = a_on.raw("GET", path)
            s2, _, b2 = a_off.raw("GET", path)
            self.assertEqual((s1, s2, b1 == data, b2 == data), (200, 200, True, True))
            # The bytes above went through sendfile on one server only.
            self.assertGreater(sendfile_bytes(on) - before_on, 10 * size)
            self.assertEqual(sendfile_bytes(off) - before_off, 0)
            self.assert_clean_shutdown_and_fsck(on)
            self.assert_clean_shutdown_and_fsck(off)
        finally:
            on.close()
            off.close()

    def test_a_reader_that_stops_is_dropped_at_the_write_timeout(self):
        """A client that asks for a big file and never reads must not hold
        its connection past http.write_timeout, on either path (the
        sendfile path waits for writability under its own timer)."""
        import socket
        for sendfile in ("true", "false"):
            srv, admin = start_server({"NUBO_HTTP_SENDFILE": sendfile, "NUBO_HTTP_WRITE_TIMEOUT": "1s"})
            try:
                node = admin.put(admin.root, "big.bin", random.Random(5).randbytes(48 * MiB))

                def open_connections():
                    return metric(srv, "nubo_http_open_connections")

                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect(("127.0.0.1", srv.port))
                s.sendall(("GET %s/nodes/%s/content HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\n\r\n"
                           % (API, node["id"], admin.auth)).encode())
                time.sleep(0.3)
                self.assertEqual(open_connections(), 2, sendfile)  # the stalled one and this one
                self.assertTrue(eventually(lambda: open_connections() == 1, 15), sendfile)
                # What it can still read ends well before the file does.
                s.settimeout(10)
                got = 0
                try:
                    while True:
                        b = s.recv(1 << 20)
                        if not b:
                            break
                        got += len(b)
                except (ConnectionResetError, socket.timeout):
                    pass
                s.close()
                self.assertLess(got, 48 * MiB, sendfile)
                self.assertEqual(admin.read(node["id"]), random.Random(5).randbytes(48 * MiB))  # still served
            finally:
                srv.close()

    def test_a_short_chunk_truncates_the_body_never_shortens_it_silently(self):
        srv, admin = start_server()
        try:
            data = random.Random(3).randbytes(100000)  # one chunk: its address is the content's BLAKE3
            node = admin.put(admin.root, "short.bin", data)
            h = node["hash"]
            chunk = os.path.join(srv.data, "chunks", h[0:2], h[2:4], h)
            self.assertTrue(os.path.exists(chunk), chunk)
            os.truncate(chunk, 50000)
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            try:
                conn.request("GET", API + "/nodes/%s/content" % node["id"], headers={"Authorization": admin.auth})
                resp = conn.getresponse()
                if resp.status == 200:
                    # Headers went out before the chunk was found short:
                    # the body must end early, visibly.
                    self.assertEqual(resp.getheader("Content-Length"), str(len(data)))
                    with self.assertRaises(http.client.IncompleteRead):
                        resp.read()
                else:
                    self.assertGreaterEqual(resp.status, 500)
            finally:
                conn.close()
            self.assertEqual(exchange(srv, "GET", "/health")[0], 200)  # the server lives on
        finally:
            srv.close()
