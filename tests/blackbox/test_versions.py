"""File versions (docs/versions-and-uploads.md): every overwrite, whatever
the surface (REST, WebDAV PUT and PATCH, tus, delta), keeps the previous
content; versions are listed, downloaded byte for byte, restored (the
restore itself versioned) and deleted; they are charged against the quota
for the chunks they do not share, thinned on a schedule (tested with the
server's clock moved through /_test/clock) and fsck checks them.
"""
import base64
import json
import os
import random
import subprocess
import tempfile
import time
import unittest

from harness import NUBO_BIN, exchange
from test_files import eventually, start_with_users, stop_and_fsck

DAY = 24 * 3600 * 1000


def tus_overwrite(client, parent, name, data, etag):
    md = ",".join("%s %s" % (k, base64.b64encode(v.encode()).decode()) for k, v in
                  (("filename", name), ("parent_id", parent), ("conflict", "overwrite"), ("if_match", etag)))
    h = {"Tus-Resumable": "1.0.0", "Upload-Length": str(len(data)), "Upload-Metadata": md}
    status, hdrs, body = client.raw("POST", "/api/v1/uploads/tus/", headers=h)
    assert status == 201, (status, body)
    h = {"Tus-Resumable": "1.0.0", "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"}
    status, hdrs, body = client.raw("PATCH", hdrs["location"], data, headers=h)
    assert status == 204, (status, body)
    return hdrs["x-nubo-node-id"]


def delta_overwrite(client, parent, name, data):
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        plan = json.loads(subprocess.run([NUBO_BIN, "chunk", f.name], capture_output=True, check=True).stdout)
    status, _, state = client.call("POST", "/uploads/delta", dict(plan, name=name, parent_id=parent,
                                                                     conflict="overwrite"))
    assert status == 201, state
    off = 0
    chunks = []
    for e in plan["chunks"]:
        h, n = e.split(":")
        chunks.append((h, off, int(n)))
        off += int(n)
    for i in state["needed"]:
        h, o, n = chunks[i]
        assert client.raw("PUT", "/uploads/delta/%s/chunks/%s" % (state["id"], h), data[o:o + n])[0] == 204
    status, _, node = client.call("POST", "/uploads/delta/%s/commit" % state["id"], {})
    assert status == 200, node
    return node["id"]


class VersionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = start_with_users(["ann", "bob"])
        cls.ann, cls.bob = users["ann"], users["bob"]

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def versions(self, node_id, who=None):
        status, _, body = (who or self.ann).call("GET", "/nodes/%s/versions" % node_id)
        self.assertEqual(status, 200, body)
        return body["items"]

    def version_bytes(self, node_id, vid):
        status, _, data = self.ann.raw("GET", "/nodes/%s/versions/%s/content" % (node_id, vid))
        self.assertEqual(status, 200)
        return data

    def test_every_surface_keeps_the_previous_content(self):
        a = self.ann
        contents = [os.urandom(300_000) + b"v%d" % i for i in range(6)]
        node = a.put(a.root, "every.bin", contents[0])
        nid = node["id"]
        # 1: REST overwrite.
        a.put(a.root, "every.bin", contents[1], expect=200, conflict="overwrite")
        # 2: WebDAV PUT.
        self.assertEqual(a.raw("PUT", "/dav/every.bin", contents[2])[0], 204)
        # 3: WebDAV PATCH (sabre partial update) replacing the first 4 bytes.
        patched = b"PTCH" + contents[2][4:]
        contents[3] = patched
        status, _, body = a.raw("PATCH", "/dav/every.bin", b"PTCH", headers={
            "Content-Type": "application/x-sabredav-partialupdate", "X-Update-Range": "bytes=0-3"})
        self.assertIn(status, (200, 204), body)
        # 4: tus; 5: delta.
        self.assertEqual(tus_overwrite(a, a.root, "every.bin", contents[4], a.node(nid)["etag"]), nid)
        self.assertEqual(delta_overwrite(a, a.root, "every.bin", contents[5]), nid)
        self.assertEqual(a.read(nid), contents[5])
        vs = self.versions(nid)
        self.assertEqual(len(vs), 5)
        # Newest first; each byte-identical to what it was.
        for v, want in zip(vs, reversed(contents[:5])):
            self.assertEqual(v["size"], len(want))
            self.assertEqual(self.version_bytes(nid, v["id"]), want)
        self.assertTrue(all(v["author"] == "ann" for v in vs))
        # Ranges work on versions too.
        status, _, part = a.raw("GET", "/nodes/%s/versions/%s/content" % (nid, vs[-1]["id"]),
                                headers={"Range": "bytes=10-19"})
        self.assertEqual((status, part), (206, contents[0][10:20]))
        # Restore the second (contents[1]): the current becomes a version.
        second = vs[-2]
        status, _, restored = a.call("POST", "/nodes/%s/versions/%s/restore" % (nid, second["id"]), {})
        self.assertEqual(status, 200, restored)
        self.assertEqual((restored["id"], restored["size"]), (nid, len(contents[1])))
        self.assertEqual(a.read(nid), contents[1])
        vs2 = self.versions(nid)
        self.assertEqual(len(vs2), 5)
        self.assertNotIn(second["id"], [v["id"] for v in vs2])
        self.assertEqual(self.version_bytes(nid, vs2[0]["id"]), contents[5])
        # The restore is itself undone by restoring again.
        status, _, _ = a.call("POST", "/nodes/%s/versions/%s/restore" % (nid, vs2[0]["id"]), {})
        self.assertEqual(a.read(nid), contents[5])
        # Delete one: gone, and its charge leaves the usage.
        before = a.usage()
        victim = self.versions(nid)[-1]
        self.assertEqual(a.call("DELETE", "/nodes/%s/versions/%s" % (nid, victim["id"]))[0], 204)
        self.assertNotIn(victim["id"], [v["id"] for v in self.versions(nid)])
        after = a.usage()
        self.assertEqual(before["versions_bytes"] - after["versions_bytes"], victim["charged_bytes"])
        self.assertEqual(a.raw("GET", "/nodes/%s/versions/%s/content" % (nid, victim["id"]))[0], 404)

    def test_versions_follow_their_file_and_no_one_else_sees_them(self):
        a = self.ann
        node = a.put(a.root, "mine.txt", b"one")
        a.put(a.root, "mine.txt", b"two", expect=200, conflict="overwrite")
        vid = self.versions(node["id"])[0]["id"]
        self.assertEqual(self.bob.call("GET", "/nodes/%s/versions" % node["id"])[0], 404)
        # Another file's version id answers like an unknown one.
        other = a.put(a.root, "other.txt", b"x")
        self.assertEqual(a.raw("GET", "/nodes/%s/versions/%s/content" % (other["id"], vid))[0], 404)
        # Renames keep them; the trash keeps them; a permanent delete ends them.
        self.assertEqual(a.call("PATCH", "/nodes/%s" % node["id"], {"name": "renamed.txt"})[0], 200)
        self.assertEqual(len(self.versions(node["id"])), 1)
        self.assertEqual(a.call("DELETE", "/nodes/%s" % node["id"])[0], 204)
        self.assertEqual(a.call("POST", "/nodes/%s/restore" % node["id"], {})[0], 200)
        self.assertEqual(len(self.versions(node["id"])), 1)
        before = a.usage()["versions_bytes"]
        self.assertEqual(a.call("DELETE", "/nodes/%s?permanent=true" % node["id"])[0], 204)
        self.assertEqual(a.usage()["versions_bytes"], before - 3)
        # Copies start without versions.
        src = a.put(a.root, "src.txt", b"a")
        a.put(a.root, "src.txt", b"b", expect=200, conflict="overwrite")
        status, _, copy = a.call("POST", "/nodes/%s/copy" % src["id"], {"parent_id": a.root, "name": "copy.txt"})
        self.assertEqual(self.versions(copy["id"]), [])
        # Identical content is no new version.
        a.put(a.root, "src.txt", b"b", expect=200, conflict="overwrite")
        self.assertEqual(len(self.versions(src["id"])), 1)


class VersionQuotaTest(unittest.TestCase):
    def test_versions_are_charged_and_give_way(self):
        srv, admin, users = start_with_users(["ann"])
        try:
            ann = users["ann"]
            self.assertEqual(admin.call("PATCH", "/admin/users/ann", {"quota_bytes": 2_000_000})[0], 200)
            node = ann.put(ann.root, "q.bin", os.urandom(400_000))
            ann.put(ann.root, "q.bin", os.urandom(400_000), expect=200, conflict="overwrite")
            u = ann.usage()
            # Unshared content: the whole old file is charged.
            self.assertEqual((u["used_bytes"], u["versions_bytes"]), (800_000, 400_000))
            # A one-byte change in a large file costs about a chunk. Fixed
            # bytes: with random ones the first chunk (64 KiB to 1 MiB) was
            # now and then so large that this version, with q.bin's, passed
            # the versions' half of the quota and gave way at once.
            base = random.Random(170).randbytes(1_500_000)
            big = ann.put(ann.root, "big.bin", base[:1_000_000])
            ann.put(ann.root, "big.bin", b"!" + base[1:1_000_000], expect=200, conflict="overwrite")
            charged = ann.call("GET", "/nodes/%s/versions" % big["id"])[2]["items"][0]["charged_bytes"]
            self.assertGreater(charged, 0)
            self.assertLessEqual(charged, 1 << 20)
            # Versions take at most half the quota (files.versions_quota_share):
            # more overwrites push the oldest out, and uploads never fail
            # because of versions.
            for i in range(4):
                ann.put(ann.root, "q.bin", os.urandom(400_000), expect=200, conflict="overwrite")
                u = ann.usage()
                self.assertLessEqual(u["versions_bytes"], 1_000_000)
                self.assertLessEqual(u["used_bytes"], 2_000_000)
            vs = ann.call("GET", "/nodes/%s/versions" % node["id"])[2]["items"]
            self.assertGreaterEqual(len(vs), 1)
            # Restoring needs the room: it is counted like an upload.
            status, _, body = ann.call("POST", "/nodes/%s/versions/%s/restore" % (node["id"], vs[0]["id"]), {})
            self.assertEqual(status, 200, body)
        finally:
            stop_and_fsck(srv)

    def test_retention_schedule_with_a_moved_clock(self):
        srv, admin, users = start_with_users(["ann"], env={"NUBO_MAINTENANCE_INTERVAL": "200ms"})
        try:
            ann = users["ann"]
            node = ann.put(ann.root, "t.txt", b"v0")
            for i in range(1, 7):
                ann.put(ann.root, "t.txt", b"v%d" % i, expect=200, conflict="overwrite")
            vs = ann.call("GET", "/nodes/%s/versions" % node["id"])[2]["items"]
            self.assertEqual(len(vs), 6)
            time.sleep(0.5)  # a maintenance pass at today's time keeps them all
            self.assertEqual(len(ann.call("GET", "/nodes/%s/versions" % node["id"])[2]["items"]), 6)
            # Three days later the six (all made within one day) thin to one
            # per day: the newest.
            status, _, _ = exchange(srv, "PUT", "/_test/clock?offset_ms=%d" % (3 * DAY))
            self.assertEqual(status, 200)
            kept = eventually(lambda: (lambda v: v if len(v) == 1 else None)(
                ann.call("GET", "/nodes/%s/versions" % node["id"])[2]["items"]), timeout=10)
            self.assertTrue(kept)
            self.assertEqual(kept[0]["id"], vs[0]["id"])
            self.assertEqual(ann.raw("GET", "/nodes/%s/versions/%s/content" % (node["id"], kept[0]["id"]))[2], b"v5")
            self.assertEqual(ann.usage()["versions_bytes"], 2)
        finally:
            exchange(srv, "PUT", "/_test/clock?offset_ms=0")
            stop_and_fsck(srv)


if __name__ == "__main__":
    unittest.main()
