"""Quotas bound the disk (ARCHITECTURE.md invariant 8), against the real
binary: an upload stops at the quota as bytes arrive instead of storing
everything and refusing at the end; a refused upload's chunks leave the disk
at once; WebDAV dead properties count; a server-wide free-space floor
answers 507 before the disk is full. Each case was seen to fail on the
build before the fix (see the regression notes)."""
import base64
import json
import os
import socket
import subprocess
import threading
import time
import unittest

from harness import NUBO_BIN, Reader, Server, exchange

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
MiB = 1 << 20


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def call(srv, method, path, auth=None, body=None, headers=None):
    h = dict(auth or {})
    h.update(headers or {})
    raw = b""
    if body is not None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        if not isinstance(body, bytes):
            h["Content-Type"] = "application/json"
    status, hdrs, data = exchange(srv, method, path, h, raw)
    try:
        return status, hdrs, json.loads(data) if data else None
    except ValueError:
        return status, hdrs, data


def tree_bytes(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(dirpath, f))
            except FileNotFoundError:
                pass
    return total


def chunked_upload(srv, method, path, headers, total, piece=MiB):
    """Streams `total` random bytes with Transfer-Encoding: chunked and
    returns (status, body, bytes sent before the answer came)."""
    s = srv.connect(timeout=60)
    head = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1", "Transfer-Encoding: chunked"]
    head += ["%s: %s" % kv for kv in headers.items()]
    s.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
    sent = [0]
    answered = threading.Event()

    def pump():
        try:
            while sent[0] < total and not answered.is_set():
                data = os.urandom(piece)  # unique: nothing deduplicates
                s.sendall(b"%x\r\n" % len(data) + data + b"\r\n")
                sent[0] += len(data)
            if not answered.is_set():
                s.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed: what we expect

    t = threading.Thread(target=pump)
    t.start()
    try:
        status, _, body = Reader(s).response()
    finally:
        answered.set()
        at = sent[0]
        s.close()
        t.join()
    return status, body, at


class LimitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(env=FAST)
        cls.admin = basic("root", "root password!")
        assert call(cls.srv, "POST", "/api/v1/setup", body={"username": "root", "password": "root password!"})[0] == 201

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()

    def user(self, name, quota):
        status, _, body = call(self.srv, "POST", "/api/v1/admin/users", self.admin,
                               {"username": name, "password": name + " password"})
        self.assertEqual(status, 201, body)
        status, _, body = call(self.srv, "PATCH", "/api/v1/admin/users/" + name, self.admin, {"quota_bytes": quota})
        self.assertEqual(status, 200, body)
        return basic(name, name + " password")

    def test_an_upload_stops_at_the_quota_as_bytes_arrive(self):
        # Regression: a user with a 1 MiB quota sent 100 MB chunked to
        # /dav/big.bin; the answer (507) came after all 100 MB, and the data
        # directory had grown by 99 MB until GC (hours later).
        auth = self.user("small", MiB)
        before = tree_bytes(self.srv.data)
        status, body, sent = chunked_upload(self.srv, "PUT", "/dav/big.bin", auth, 100 * MiB)
        self.assertEqual(status, 507, body)
        self.assertLess(sent, 40 * MiB, "the server read far past the quota before answering")
        grown = tree_bytes(self.srv.data) - before
        self.assertLess(grown, 4 * MiB, "the refused upload left %d bytes on disk" % grown)
        self.assertEqual(exchange(self.srv, "GET", "/dav/big.bin", auth)[0], 404)
        # Within the quota, uploads still work.
        self.assertEqual(exchange(self.srv, "PUT", "/dav/fits.bin", auth, os.urandom(512 << 10))[0], 201)

    def test_a_refused_upload_leaves_no_chunks_behind(self):
        # Past the first 64 MiB, chunks are durable files before the commit:
        # a refused upload used to leave them for GC after its grace (1 h).
        auth = self.user("medium", 70 * MiB)
        chunks = os.path.join(self.srv.data, "chunks")
        before = tree_bytes(chunks)
        status, body, _ = chunked_upload(self.srv, "PUT", "/dav/huge.bin", auth, 100 * MiB)
        self.assertEqual(status, 507, body)
        grown = tree_bytes(chunks) - before
        self.assertLess(grown, 2 * MiB, "%d bytes of chunks outlived the refused upload" % grown)
        # And the quota is whole again: a 60 MiB file fits.
        status, body, _ = chunked_upload(self.srv, "PUT", "/dav/next.bin", auth, 60 * MiB)
        self.assertEqual(status, 201, body)

    def test_an_overwrite_near_the_quota_fits(self):
        # The bytes a commit frees (the file it overwrites) are not reserved
        # twice: replacing a 60 KiB file under a 100 KiB quota works, with a
        # declared length and chunked.
        auth = self.user("near", 100 << 10)
        self.assertEqual(exchange(self.srv, "PUT", "/dav/f.bin", auth, os.urandom(60 << 10))[0], 201)
        self.assertEqual(exchange(self.srv, "PUT", "/dav/f.bin", auth, os.urandom(60 << 10))[0], 204)
        status, body, _ = chunked_upload(self.srv, "PUT", "/dav/f.bin", auth, 60 << 10, piece=20 << 10)
        self.assertEqual(status, 204, body)
        # But not a file that does not fit beside it.
        self.assertEqual(exchange(self.srv, "PUT", "/dav/g.bin", auth, os.urandom(60 << 10))[0], 507)

    def test_dead_properties_count(self):
        # Property bytes are stored bytes: they count against the quota and
        # are bounded per node.
        auth = self.user("props", 200 << 10)
        self.assertEqual(exchange(self.srv, "PUT", "/dav/p.txt", auth, b"p")[0], 201)

        def patch(name, size):
            body = ('<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:x="urn:x">'
                    '<d:set><d:prop><x:%s>%s</x:%s></d:prop></d:set></d:propertyupdate>'
                    % (name, "v" * size, name)).encode()
            status, _, data = exchange(self.srv, "PROPPATCH", "/dav/p.txt",
                                       dict(auth, **{"Content-Type": "application/xml"}), body)
            self.assertEqual(status, 207, data)
            return data

        self.assertIn(b"200 OK", patch("a", 90 << 10))
        _, _, usage = call(self.srv, "GET", "/api/v1/me/usage", auth)
        self.assertGreaterEqual(usage["used_bytes"], 90 << 10)
        self.assertIn(b"507 Insufficient Storage", patch("b", 150 << 10))
        # The refused property is not there; the first one is.
        for name, expect in (("a", b"200 OK"), ("b", b"404 Not Found")):
            status, _, data = exchange(
                self.srv, "PROPFIND", "/dav/p.txt", dict(auth, Depth="0"),
                ('<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:x="urn:x"><d:prop><x:%s/></d:prop>'
                 '</d:propfind>' % name).encode())
            self.assertEqual(status, 207)
            self.assertIn(expect, data, name)

    def test_the_free_space_floor(self):
        # storage.min_free beyond the disk's free space: every upload is
        # refused before a byte is stored, on REST and WebDAV alike.
        srv = Server(env=dict(FAST, NUBO_STORAGE_MIN_FREE="1000000GiB"))
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            auth = basic("root", "root password!")
            status, _, body = call(srv, "PUT", "/dav/a.txt", auth, b"abc")
            self.assertEqual(status, 507, body)
            _, _, drives = call(srv, "GET", "/api/v1/drives", auth)
            root = drives["drives"][0]["root_id"]
            status, _, body = call(srv, "PUT", "/api/v1/nodes/%s/files/a.txt" % root, auth, b"abc")
            self.assertEqual(status, 507, body)
            self.assertIn("disk", body["message"])
            # Reads and folders still work.
            self.assertEqual(exchange(srv, "MKCOL", "/dav/d", auth)[0], 201)
        finally:
            srv.close()

    def test_zz_fsck(self):
        self.srv.terminate()
        env = self.srv.tool_env()
        fsck = subprocess.run([NUBO_BIN, "--data", self.srv.data, "fsck"], capture_output=True, text=True,
                              env=env, timeout=300)
        self.assertEqual(fsck.returncode, 0, fsck.stdout + fsck.stderr)


if __name__ == "__main__":
    unittest.main()
