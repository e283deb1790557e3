"""Resumable uploads: tus 1.0.0 at /api/v1/uploads/tus/ over upload sessions
kept in the metadata store (docs/versions-and-uploads.md).

Every test drives the real binary over loopback and checks what a broken
implementation would get wrong: offsets, status codes the protocol names
(409, 412, 415, 460), byte-identical files, chunk boundaries identical to a
plain upload, sessions surviving kill -9 and GC, and fsck after each server.
"""
import base64
import hashlib
import os
import socket
import time
import unittest

from harness import Reader, request
from test_files import (API, eventually, parse_json, response_headers, run_fsck,
                        start_with_users, stop_and_fsck)

TUS = "/api/v1/uploads/tus/"


def meta(**kv):
    return ",".join("%s %s" % (k, base64.b64encode(str(v).encode()).decode()) for k, v in kv.items())


def chunk_bytes(data_dir):
    """Bytes of every stored chunk file (what the disk holds)."""
    total = 0
    for root, _, files in os.walk(os.path.join(data_dir, "chunks")):
        for f in files:
            if not f.endswith(".tmp"):
                total += os.path.getsize(os.path.join(root, f))
    return total


class Tus:
    """A minimal tus client over the test Client's credentials."""

    def __init__(self, client):
        self.c = client

    def h(self, **extra):
        h = {"Tus-Resumable": "1.0.0"}
        h.update({k.replace("_", "-"): str(v) for k, v in extra.items()})
        return h

    def create(self, length=None, expect=201, **md):
        h = self.h(Upload_Metadata=meta(**md))
        if length is None:
            h["Upload-Defer-Length"] = "1"
        else:
            h["Upload-Length"] = str(length)
        status, hdrs, body = self.c.raw("POST", TUS, headers=h)
        assert status == expect, (status, body)
        return hdrs.get("location"), hdrs

    def head(self, url):
        return self.c.raw("HEAD", url, headers=self.h())

    def offset(self, url):
        status, hdrs, _ = self.head(url)
        assert status == 200, status
        return int(hdrs["upload-offset"])

    def patch(self, url, offset, data, **extra):
        h = self.h(Upload_Offset=offset, Content_Type="application/offset+octet-stream", **extra)
        return self.c.raw("PATCH", url, data, headers=h)

    def upload(self, url, data, piece=1 << 20, start=0):
        off = start
        last = None
        while off < len(data) or (off == 0 and not data):
            status, hdrs, body = self.patch(url, off, data[off:off + piece])
            assert status == 204, (status, body)
            assert int(hdrs["upload-offset"]) == min(off + piece, len(data)), hdrs
            off = int(hdrs["upload-offset"])
            last = hdrs
            if not data:
                break
        return last


def cut_patch(srv, auth, url, offset, data, send):
    """PATCH announcing all of `data` but sending only its first `send`
    bytes, then closing the connection (a flaky network)."""
    h = {"Authorization": auth, "Tus-Resumable": "1.0.0", "Upload-Offset": str(offset),
         "Content-Type": "application/offset+octet-stream", "Content-Length": str(len(data))}
    with srv.connect(timeout=30) as s:
        s.sendall(request("PATCH", url, h))
        s.sendall(data[:send])
        time.sleep(0.3)
        s.shutdown(socket.SHUT_RDWR)


class TusProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = start_with_users(["ann", "bob"], env={"NUBO_FILES_MAX_UPLOAD": "1GiB"})
        cls.ann, cls.bob = users["ann"], users["bob"]
        cls.tus = Tus(cls.ann)

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def test_options_advertise_the_protocol(self):
        status, hdrs, _ = self.ann.raw("OPTIONS", TUS)
        self.assertEqual(status, 204)
        self.assertEqual(hdrs["tus-resumable"], "1.0.0")
        self.assertEqual(hdrs["tus-version"], "1.0.0")
        ext = hdrs["tus-extension"].split(",")
        for e in ("creation", "creation-with-upload", "creation-defer-length", "expiration", "checksum",
                  "termination", "concatenation"):
            self.assertIn(e, ext)
        self.assertEqual(hdrs["tus-max-size"], str(1 << 30))
        self.assertIn("sha1", hdrs["tus-checksum-algorithm"].split(","))

    def test_version_is_required(self):
        status, hdrs, _ = self.ann.raw("POST", TUS, headers={"Upload-Length": "3",
                                                             "Upload-Metadata": meta(filename="v.txt")})
        self.assertEqual(status, 412)
        self.assertEqual(hdrs["tus-version"], "1.0.0")
        url, _ = self.tus.create(3, filename="v2.txt")
        self.assertEqual(self.ann.raw("HEAD", url)[0], 412)

    def test_upload_in_uneven_pieces_is_byte_identical(self):
        data = os.urandom(3 * 1024 * 1024 + 12345)
        url, hdrs = self.tus.create(len(data), filename="pieces.bin")
        self.assertTrue(url.startswith(TUS), url)
        self.assertIn("upload-expires", hdrs)
        status, h, _ = self.tus.head(url)
        self.assertEqual((status, h["upload-offset"], h["upload-length"]), (200, "0", str(len(data))))
        self.assertEqual(h["cache-control"], "no-store")
        # Pieces that end inside chunks, including single bytes.
        off = 0
        for size in (1, 70000, 1, 300000, 1 << 20, 5, 900001):
            status, h, body = self.tus.patch(url, off, data[off:off + size])
            self.assertEqual(status, 204, body)
            off += size
            self.assertEqual(int(h["upload-offset"]), off)
            self.assertEqual(self.tus.offset(url), off)
            self.assertNotIn("x-nubo-node-id", h)
        status, h, body = self.tus.patch(url, off, data[off:])
        self.assertEqual(status, 204, body)
        node = h["x-nubo-node-id"]
        self.assertEqual(self.ann.read(node), data)
        self.assertEqual(self.ann.node(node)["name"], "pieces.bin")
        # The completed upload keeps answering (a lost last response).
        status, h, _ = self.tus.head(url)
        self.assertEqual((status, h["upload-offset"], h["x-nubo-node-id"]), (200, str(len(data)), node))
        # Further bytes are refused.
        self.assertEqual(self.tus.patch(url, len(data), b"x")[0], 409)

    def test_wrong_offset_and_content_type(self):
        url, _ = self.tus.create(10, filename="strict.bin")
        status, _, body = self.tus.patch(url, 3, b"abc")
        self.assertEqual(status, 409, body)
        h = self.tus.h(Upload_Offset=0, Content_Type="application/octet-stream")
        self.assertEqual(self.ann.raw("PATCH", url, b"abc", headers=h)[0], 415)
        self.assertEqual(self.tus.offset(url), 0)
        # Past the declared length: refused, offset unchanged.
        self.assertEqual(self.tus.patch(url, 0, b"x" * 11)[0], 400)
        self.assertEqual(self.tus.offset(url), 0)

    def test_checksum_mismatch_is_460_and_keeps_nothing(self):
        url, _ = self.tus.create(8, filename="sum.bin")
        good = base64.b64encode(hashlib.sha1(b"abcd").digest()).decode()
        bad = base64.b64encode(hashlib.sha1(b"abce").digest()).decode()
        status, _, _ = self.tus.patch(url, 0, b"abcd", Upload_Checksum="sha1 " + bad)
        self.assertEqual(status, 460)
        self.assertEqual(self.tus.offset(url), 0)
        status, h, _ = self.tus.patch(url, 0, b"abcd", Upload_Checksum="sha1 " + good)
        self.assertEqual((status, h["upload-offset"]), (204, "4"))
        md5 = base64.b64encode(hashlib.md5(b"efgh").digest()).decode()
        status, h, _ = self.tus.patch(url, 4, b"efgh", Upload_Checksum="md5 " + md5)
        self.assertEqual(status, 204)
        self.assertEqual(self.ann.read(h["x-nubo-node-id"]), b"abcdefgh")
        url, _ = self.tus.create(4, filename="sum2.bin")
        self.assertEqual(self.tus.patch(url, 0, b"abcd", Upload_Checksum="crc99 AAAA")[0], 400)

    def test_deferred_length(self):
        url, _ = self.tus.create(None, filename="later.bin")
        status, h, _ = self.tus.head(url)
        self.assertEqual(h["upload-defer-length"], "1")
        self.assertNotIn("upload-length", h)
        self.assertEqual(self.tus.patch(url, 0, b"hello ")[0], 204)
        status, h, _ = self.tus.patch(url, 6, b"world", Upload_Length=11)
        self.assertEqual(status, 204)
        self.assertEqual(self.ann.read(h["x-nubo-node-id"]), b"hello world")

    def test_creation_with_upload_and_empty_file(self):
        h = self.tus.h(Upload_Length=5, Upload_Metadata=meta(filename="with.txt"),
                       Content_Type="application/offset+octet-stream")
        status, hdrs, body = self.ann.raw("POST", TUS, b"12345", headers=h)
        self.assertEqual(status, 201, body)
        self.assertEqual(hdrs["upload-offset"], "5")
        self.assertEqual(self.ann.read(hdrs["x-nubo-node-id"]), b"12345")
        url, hdrs = self.tus.create(0, filename="empty.txt")
        self.assertEqual(self.ann.read(hdrs["x-nubo-node-id"]), b"")

    def test_metadata_places_the_file(self):
        folder = self.ann.mkdir(self.ann.root, "tus-here")
        url, _ = self.tus.create(2, filename="in.txt", parent_id=folder["id"], mtime=1700000000000)
        node = self.tus.upload(url, b"in")["x-nubo-node-id"]
        n = self.ann.node(node)
        self.assertEqual((n["parent_id"], n["modified"]), (folder["id"], 1700000000000))
        # The name is taken: fail (409 at creation), rename or overwrite.
        self.tus.create(2, expect=409, filename="in.txt", parent_id=folder["id"])
        url, _ = self.tus.create(2, filename="in.txt", parent_id=folder["id"], conflict="rename")
        self.assertEqual(self.ann.node(self.tus.upload(url, b"r2")["x-nubo-node-id"])["name"], "in (1).txt")
        # Overwrite keeps the previous content as a version.
        url, _ = self.tus.create(2, filename="in.txt", parent_id=folder["id"], conflict="overwrite",
                                 if_match=n["etag"])
        self.assertEqual(self.tus.upload(url, b"v2")["x-nubo-node-id"], node)
        self.assertEqual(self.ann.read(node), b"v2")
        versions = self.ann.call("GET", "/nodes/%s/versions" % node)[2]["items"]
        self.assertEqual(len(versions), 1)
        self.assertEqual(self.ann.raw("GET", "/nodes/%s/versions/%s/content" % (node, versions[0]["id"]))[2],
                         b"in")
        # A stale If-Match is refused before any byte.
        self.tus.create(2, expect=412, filename="in.txt", parent_id=folder["id"], conflict="overwrite",
                        if_match=n["etag"])
        # No name, a bad parent, a bad name: 400/404 before any byte.
        self.tus.create(2, expect=400)
        self.tus.create(2, expect=404, filename="x", parent_id="00000000-0000-0000-0000-000000000000")
        self.tus.create(2, expect=400, filename="a/b")

    def test_termination(self):
        url, _ = self.tus.create(100, filename="gone.bin")
        self.assertEqual(self.tus.patch(url, 0, b"x" * 50)[0], 204)
        self.assertEqual(self.ann.raw("DELETE", url, headers=self.tus.h())[0], 204)
        self.assertEqual(self.tus.head(url)[0], 404)
        self.assertEqual(self.tus.patch(url, 50, b"y")[0], 404)

    def test_another_account_sees_nothing(self):
        url, _ = self.tus.create(10, filename="mine.bin")
        self.assertEqual(self.tus.patch(url, 0, b"12345")[0], 204)
        other = Tus(self.bob)
        self.assertEqual(other.head(url)[0], 404)
        self.assertEqual(other.patch(url, 5, b"67890")[0], 404)
        self.assertEqual(self.bob.raw("DELETE", url, headers=other.h())[0], 404)
        self.assertEqual(self.tus.offset(url), 5)
        # Nor can anyone join it into a concatenation.
        h = other.h(Upload_Concat="final;" + url, Upload_Metadata=meta(filename="stolen.bin"))
        self.assertEqual(self.bob.raw("POST", TUS, headers=h)[0], 404)
        # Unauthenticated: 401.
        self.assertEqual(self.ann.raw("HEAD", url, headers=self.tus.h(), auth=False)[0], 401)

    def test_concatenation_joins_partial_uploads(self):
        a, b = os.urandom(700_000), os.urandom(1_300_000)
        # Partial uploads need no metadata (tus-js-client sends it with the final one).
        h = self.tus.h(Upload_Concat="partial", Upload_Length=len(a))
        status, ha, _ = self.ann.raw("POST", TUS, headers=h)
        self.assertEqual(status, 201)
        h["Upload-Length"] = str(len(b))
        status, hb, _ = self.ann.raw("POST", TUS, headers=h)
        # Upload them "in parallel" (interleaved).
        self.assertEqual(self.tus.patch(hb["location"], 0, b[:500_000])[0], 204)
        self.assertEqual(self.tus.patch(ha["location"], 0, a)[0], 204)
        self.assertEqual(self.tus.patch(hb["location"], 500_000, b[500_000:])[0], 204)
        self.assertEqual(self.tus.head(ha["location"])[1]["upload-concat"], "partial")
        # A partial upload makes no file on its own.
        names = [n["name"] for n in self.ann.children(self.ann.root, limit=500)["items"]]
        self.assertNotIn("partial upload", names)
        url_a = self.srv.url(ha["location"])  # absolute URLs are allowed too
        h = self.tus.h(Upload_Concat="final;%s %s" % (url_a, hb["location"]),
                       Upload_Metadata=meta(filename="joined.bin"))
        status, hf, body = self.ann.raw("POST", TUS, headers=h)
        self.assertEqual(status, 201, body)
        self.assertEqual(self.ann.read(hf["x-nubo-node-id"]), a + b)
        self.assertEqual(self.tus.head(ha["location"])[0], 404)
        self.assertEqual(int(self.tus.head(hf["location"])[1]["upload-offset"]), len(a) + len(b))
        # An incomplete partial cannot be joined.
        h = self.tus.h(Upload_Concat="partial", Upload_Length=10, Upload_Metadata=meta(filename="p3"))
        status, hc, _ = self.ann.raw("POST", TUS, headers=h)
        self.assertEqual(self.tus.patch(hc["location"], 0, b"12345")[0], 204)
        h = self.tus.h(Upload_Concat="final;" + hc["location"], Upload_Metadata=meta(filename="no.bin"))
        self.assertEqual(self.ann.raw("POST", TUS, headers=h)[0], 400)

    def test_cut_connection_keeps_what_arrived(self):
        data = os.urandom(2 * 1024 * 1024)
        url, _ = self.tus.create(len(data), filename="cut.bin")
        cut_patch(self.srv, self.ann.auth, url, 0, data, 1_500_000)
        # At once: HEAD waits for the server to finish storing what the cut
        # request delivered, rather than answer the offset from before it.
        off = self.tus.offset(url)
        self.assertTrue(0 < off <= 1_500_000, off)
        # The exact prefix was kept: resume from the server's offset.
        status, h, _ = self.tus.patch(url, off, data[off:])
        self.assertEqual(status, 204)
        self.assertEqual(self.ann.read(h["x-nubo-node-id"]), data)


class TusDurabilityTest(unittest.TestCase):
    def test_kill_9_mid_upload_then_resume(self):
        srv, admin, users = start_with_users(["ann"])
        try:
            ann = users["ann"]
            tus = Tus(ann)
            data = os.urandom(5 * 1024 * 1024 + 77)
            url, _ = tus.create(len(data), filename="survivor.bin")
            tus.patch(url, 0, data[:3_000_001])
            cut_patch(srv, ann.auth, url, 3_000_001, data[3_000_001:], 1_000_000)
            off = eventually(lambda: tus.offset(url) if tus.offset(url) > 3_000_001 else None, timeout=10)
            srv.proc.kill()
            srv.proc.wait()
            srv._start()
            self.assertEqual(tus.offset(url), off)
            status, h, _ = tus.patch(url, off, data[off:])
            self.assertEqual(status, 204)
            self.assertEqual(ann.read(h["x-nubo-node-id"]), data)
        finally:
            stop_and_fsck(srv)

    def test_a_long_request_is_durable_as_it_goes(self):
        # One PATCH of 200 MiB (what tus clients send by default), the
        # server killed after ~150 MiB arrived: the session kept what was
        # committed along the way (every 64 MiB), and the upload resumes.
        srv, admin, users = start_with_users(["ann"])
        try:
            ann = users["ann"]
            tus = Tus(ann)
            size = 200 << 20
            block = os.urandom(1 << 20)
            data_at = lambda i: block[i % 7:] + block[:i % 7]  # noqa: E731 -- 1 MiB, differs per index
            url, _ = tus.create(size, filename="long.bin")
            h = {"Authorization": ann.auth, "Tus-Resumable": "1.0.0", "Upload-Offset": "0",
                 "Content-Type": "application/offset+octet-stream", "Content-Length": str(size)}
            with srv.connect(timeout=60) as s:
                s.sendall(request("PATCH", url, h))
                for i in range(150):
                    s.sendall(data_at(i))
                time.sleep(1.0)
                srv.proc.kill()
                srv.proc.wait()
            srv._start()
            off = tus.offset(url)
            self.assertGreaterEqual(off, 128 << 20)
            self.assertLessEqual(off, 150 << 20)
            sent = off
            while sent < size:
                i, skip = divmod(sent, 1 << 20)
                piece = data_at(i)[skip:]
                status, hdrs, body = tus.patch(url, sent, piece)
                self.assertEqual(status, 204, body)
                sent += len(piece)
            node = hdrs["x-nubo-node-id"]
            want = hashlib.sha256(b"".join(data_at(i) for i in range(200))).hexdigest()
            status, _, got = ann.content(node)
            self.assertEqual(hashlib.sha256(got).hexdigest(), want)
        finally:
            stop_and_fsck(srv)

    def test_slow_upload_outlives_gc_grace(self):
        # GC runs every 200 ms with a grace of 1 s; the upload pauses 1.5 s
        # between pieces: its chunks are referenced, never swept.
        srv, admin, users = start_with_users(["ann"], env={"NUBO_GC_GRACE": "1s",
                                                            "NUBO_MAINTENANCE_INTERVAL": "200ms"})
        try:
            ann = users["ann"]
            tus = Tus(ann)
            data = os.urandom(3 * 1024 * 1024)
            url, _ = tus.create(len(data), filename="slow.bin")
            off = 0
            for size in (1_000_000, 1_000_000):
                self.assertEqual(tus.patch(url, off, data[off:off + size])[0], 204)
                off += size
                time.sleep(1.5)
            status, h, body = tus.patch(url, off, data[off:])
            self.assertEqual(status, 204, body)
            self.assertEqual(ann.read(h["x-nubo-node-id"]), data)
        finally:
            stop_and_fsck(srv)

    def test_boundaries_match_a_plain_upload_and_tails_are_collected(self):
        # A file uploaded in odd pieces through tus, then the same bytes by
        # PUT: once GC collected the released tails, the disk holds each
        # chunk once — the plain upload found every one of them, so the
        # resumed upload cut exactly where one stream cuts.
        srv, admin, users = start_with_users(["ann"], env={"NUBO_GC_GRACE": "0s",
                                                            "NUBO_MAINTENANCE_INTERVAL": "200ms"})
        try:
            ann = users["ann"]
            tus = Tus(ann)
            data = os.urandom(4 * 1024 * 1024 + 999)
            url, _ = tus.create(len(data), filename="a.bin")
            off = 0
            for size in (123_457, 1_000_003, 7, 2_000_000):
                self.assertEqual(tus.patch(url, off, data[off:off + size])[0], 204)
                off += size
            self.assertEqual(tus.patch(url, off, data[off:])[0], 204)
            ann.put(ann.root, "b.bin", data)
            self.assertTrue(eventually(lambda: chunk_bytes(srv.data) == len(data), timeout=10),
                            chunk_bytes(srv.data))
        finally:
            stop_and_fsck(srv)

    def test_expired_sessions_release_their_chunks(self):
        srv, admin, users = start_with_users(["ann"], env={"NUBO_FILES_UPLOAD_SESSION_TTL": "1s",
                                                            "NUBO_GC_GRACE": "0s",
                                                            "NUBO_MAINTENANCE_INTERVAL": "200ms"})
        try:
            ann = users["ann"]
            tus = Tus(ann)
            url, _ = tus.create(4_000_000, filename="abandoned.bin")
            self.assertEqual(tus.patch(url, 0, os.urandom(2_500_000))[0], 204)
            self.assertGreater(chunk_bytes(srv.data), 2_000_000)
            self.assertTrue(eventually(lambda: tus.head(url)[0] == 404, timeout=10))
            self.assertTrue(eventually(lambda: chunk_bytes(srv.data) == 0, timeout=10), chunk_bytes(srv.data))
            self.assertTrue(eventually(lambda: "1 expired upload sessions dropped" in srv.log(), timeout=5))
        finally:
            stop_and_fsck(srv)

    def test_quota_holds_the_declared_length(self):
        srv, admin, users = start_with_users(["ann"])
        try:
            ann = users["ann"]
            status, _, body = admin.call("PATCH", "/admin/users/ann", {"quota_bytes": 1_000_000})
            self.assertEqual(status, 200, body)
            tus = Tus(ann)
            tus.create(2_000_000, expect=507, filename="big.bin")
            url, _ = tus.create(600_000, filename="first.bin")
            # The first session holds 600 kB: a second of 600 kB does not fit.
            tus.create(600_000, expect=507, filename="second.bin")
            # Deferred length grows its reservation and stops at the quota.
            url2, _ = tus.create(None, filename="deferred.bin")
            status, _, body = tus.patch(url2, 0, os.urandom(500_000))
            self.assertEqual(status, 507, body)
            self.assertEqual(ann.raw("DELETE", url, headers=tus.h())[0], 204)
            self.assertEqual(tus.patch(url2, tus.offset(url2), os.urandom(10))[0], 204)
        finally:
            stop_and_fsck(srv)

    def test_concatenation_counts_its_bytes_once(self):
        # Two partial uploads of 350 kB hold 700 kB of a 1 MB quota; the
        # final upload takes their place (was: refused, 1.4 MB held).
        srv, admin, users = start_with_users(["ann"])
        try:
            ann = users["ann"]
            self.assertEqual(admin.call("PATCH", "/admin/users/ann", {"quota_bytes": 1_000_000})[0], 200)
            tus = Tus(ann)
            parts, urls = [os.urandom(350_000), os.urandom(350_000)], []
            for part in parts:
                status, h, body = ann.raw("POST", TUS, headers=tus.h(Upload_Concat="partial",
                                                                     Upload_Length=len(part)))
                self.assertEqual(status, 201, body)
                self.assertEqual(tus.patch(h["location"], 0, part)[0], 204)
                urls.append(h["location"])
            h = tus.h(Upload_Concat="final;" + " ".join(urls), Upload_Metadata=meta(filename="joined.bin"))
            status, hf, body = ann.raw("POST", TUS, headers=h)
            self.assertEqual(status, 201, body)
            self.assertEqual(ann.read(hf["x-nubo-node-id"]), b"".join(parts))
            # 700 kB used: a new 400 kB upload does not fit, 300 kB does.
            tus.create(400_000, expect=507, filename="more.bin")
            tus.create(300_000, filename="fits.bin")
        finally:
            stop_and_fsck(srv)


if __name__ == "__main__":
    unittest.main()
