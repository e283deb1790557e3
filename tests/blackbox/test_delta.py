"""Delta sync: upload only the chunks the server lacks, download only the
chunks the client lacks (docs/versions-and-uploads.md).

The client side is `nubo chunk` (the server's own chunker as a client
tool); the server counts the body bytes it received, and the tests bound
them. A chunk counts as present only when the caller can read a file that
lists it: announcing another account's hashes teaches nothing.
"""
import hashlib
import json
import os
import subprocess
import tempfile
import unittest

from test_files import NUBO_BIN, start_with_users, stop_and_fsck

BIG = int(os.environ.get("NUBO_TEST_BIG_BYTES", str(1 << 30)))
SIZE = min(256 << 20, BIG)  # the 1-byte-edit file
MAX_CHUNK = 1 << 20


def write_random(path, size, seed):
    """Deterministic pseudo-random bytes (SHA-256 in counter mode), written in blocks."""
    with open(path, "wb") as f:
        block = 0
        left = size
        while left:
            chunk = b"".join(hashlib.sha256(b"%d:%d" % (seed, block * 64 + i)).digest() for i in range(2048))
            f.write(chunk[:left])
            left -= min(left, len(chunk))
            block += 1


def plan_of(path):
    p = subprocess.run([NUBO_BIN, "chunk", path], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def read_at(path, offset, size):
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)


def offsets(plan):
    out, off = [], 0
    for e in plan["chunks"]:
        h, n = e.split(":")
        out.append((h, off, int(n)))
        off += int(n)
    return out


class Delta:
    def __init__(self, client):
        self.c = client

    def start(self, path, name, expect=201, **extra):
        plan = plan_of(path)
        body = dict(plan, name=name, **extra)
        status, _, state = self.c.call("POST", "/uploads/delta", body)
        assert status == expect, (status, state)
        return plan, state

    def send_needed(self, path, plan, state):
        chunks = offsets(plan)
        sent = 0
        for i in state["needed"]:
            h, off, n = chunks[i]
            status, _, body = self.c.raw("PUT", "/uploads/delta/%s/chunks/%s" % (state["id"], h),
                                         read_at(path, off, n))
            assert status == 204, (status, body)
            sent += n
        return sent

    def commit(self, state, expect=(200, 201)):
        status, _, node = self.c.call("POST", "/uploads/delta/%s/commit" % state["id"], {})
        assert status in expect, (status, node)
        return node


class DeltaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, users = start_with_users(["ann", "bob"])
        cls.ann, cls.bob = users["ann"], users["bob"]
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-delta-")

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_one_byte_insertion_sends_about_one_chunk_each_way(self):
        old, new = self.path("old.bin"), self.path("new.bin")
        write_random(old, SIZE, 1)
        with open(old, "rb") as src, open(new, "wb") as dst:
            dst.write(src.read(SIZE // 2))
            dst.write(b"!")
            for b in iter(lambda: src.read(1 << 20), b""):
                dst.write(b)
        with open(old, "rb") as f:
            status, _, node = self.ann.call("PUT", "/nodes/%s/files/edit.bin" % self.ann.root, f.read())
        self.assertEqual(status, 201)
        d = Delta(self.ann)
        plan, state = d.start(new, "edit.bin", conflict="overwrite", if_match=node["etag"],
                              parent_id=self.ann.root)
        # At most the two chunks around the insertion are new.
        self.assertLessEqual(len(state["needed"]), 2, state)
        self.assertLessEqual(state["needed_bytes"], 2 * MAX_CHUNK)
        sent = d.send_needed(new, plan, state)
        done = d.commit(state)
        self.assertEqual(done["id"], node["id"])
        self.assertEqual(done["size"], SIZE + 1)
        self.assertEqual(done["received_bytes"], sent)
        self.assertLessEqual(done["received_bytes"], 2 * MAX_CHUNK)
        # The file is the new content, the old one is a version.
        h = hashlib.sha256()
        status, _, data = self.ann.content(node["id"])
        h.update(data)
        self.assertEqual(h.hexdigest(), sha256_file(new))
        versions = self.ann.call("GET", "/nodes/%s/versions" % node["id"])[2]["items"]
        self.assertEqual(len(versions), 1)
        self.assertEqual(versions[0]["size"], SIZE)
        self.assertLessEqual(versions[0]["charged_bytes"], 2 * MAX_CHUNK)

        # Download side: the client holds the old content's chunks and
        # fetches only the ranges of the chunks it lacks.
        status, _, manifest = self.ann.call("GET", "/nodes/%s/manifest" % node["id"])
        self.assertEqual(status, 200)
        self.assertEqual(manifest["size"], SIZE + 1)
        local = {h: (off, n) for h, off, n in offsets(plan_of(old))}
        fetched = 0
        out = hashlib.sha256()
        for c in manifest["chunks"]:
            if c["hash"] in local:
                off, n = local[c["hash"]]
                piece = read_at(old, off, n)
            else:
                status, hdrs, piece = self.ann.content(
                    node["id"], headers={"Range": "bytes=%d-%d" % (c["offset"], c["offset"] + c["size"] - 1)})
                self.assertEqual(status, 206)
                fetched += len(piece)
            out.update(piece)
        self.assertEqual(out.hexdigest(), sha256_file(new))
        self.assertLessEqual(fetched, 2 * MAX_CHUNK)

    def test_a_tiny_files_chunk_kept_in_the_database_counts_as_present(self):
        # A file of a few KiB keeps its bytes in its chunk row (storage.inline_max),
        # not in a chunk file; a delta upload of the same bytes finds the chunk
        # present, sends nothing, and the new file reads back (ranges too).
        path = os.path.join(self.tmp.name, "tiny.txt")
        data = os.urandom(3000)
        with open(path, "wb") as f:
            f.write(data)
        first = self.ann.put(self.ann.root, "tiny-a.txt", data)
        d = Delta(self.ann)
        plan, state = d.start(path, "tiny-b.txt")
        self.assertEqual(state["needed"], [])
        node = d.commit(state)
        self.assertEqual(node["etag"], first["etag"])
        self.assertEqual(self.ann.read(node["id"]), data)
        status, _, part = self.ann.content(node["id"], {"Range": "bytes=10-19"})
        self.assertEqual((status, part), (206, data[10:20]))
        # And a tus-style concatenation path: a new version of it by delta, one byte changed.
        data2 = data[:-1] + bytes([data[-1] ^ 1])
        with open(path, "wb") as f:
            f.write(data2)
        plan, state = d.start(path, "tiny-b.txt", conflict="overwrite")
        self.assertEqual(d.send_needed(path, plan, state), len(data2))
        self.assertEqual(self.ann.read(d.commit(state)["id"]), data2)

    def test_another_accounts_chunks_must_be_uploaded(self):
        secret = self.path("secret.bin")
        write_random(secret, 3 << 20, 2)
        with open(secret, "rb") as f:
            self.assertEqual(self.ann.call("PUT", "/nodes/%s/files/secret.bin" % self.ann.root, f.read())[0], 201)
        # Bob announces exactly Ann's chunks: the server asks for every one.
        d = Delta(self.bob)
        plan, state = d.start(secret, "guess.bin")
        self.assertEqual(sorted(state["needed"]), list(range(len(plan["chunks"]))))
        self.assertEqual(state["needed_bytes"], 3 << 20)
        # Claiming a chunk with other bytes is refused.
        h, off, n = offsets(plan)[0]
        status, _, body = self.bob.raw("PUT", "/uploads/delta/%s/chunks/%s" % (state["id"], h), b"x" * n)
        self.assertEqual(status, 400, body)
        self.assertEqual(self.bob.call("POST", "/uploads/delta/%s/commit" % state["id"], {})[0], 409)
        # With the bytes, the upload completes (Bob had them after all).
        d.send_needed(secret, plan, state)
        self.assertEqual(d.commit(state)["size"], 3 << 20)
        # Now Bob holds them himself: a second upload needs nothing.
        plan, state = d.start(secret, "again.bin")
        self.assertEqual(state["needed"], [])
        self.assertEqual(d.commit(state)["received_bytes"], 0)
        # Ann's upload session is hers alone.
        plan, state = Delta(self.ann).start(secret, "ann-copy.bin")
        self.assertEqual(self.bob.call("GET", "/uploads/delta/" + state["id"])[0], 404)
        self.assertEqual(self.bob.raw("PUT", "/uploads/delta/%s/chunks/%s" % (state["id"], offsets(plan)[0][0]),
                                      b"x")[0], 404)
        self.assertEqual(self.bob.call("POST", "/uploads/delta/%s/commit" % state["id"], {})[0], 404)
        self.assertEqual(self.ann.call("DELETE", "/uploads/delta/" + state["id"])[0], 204)
        self.assertEqual(self.ann.call("GET", "/uploads/delta/" + state["id"])[0], 404)

    def test_resume_and_bad_plans(self):
        f = self.path("resume.bin")
        write_random(f, 5 << 20, 3)
        d = Delta(self.ann)
        plan, state = d.start(f, "resume.bin")
        needed = state["needed"]
        self.assertGreater(len(needed), 3)
        chunks = offsets(plan)
        for i in needed[:2]:
            h, off, n = chunks[i]
            self.assertEqual(self.ann.raw("PUT", "/uploads/delta/%s/chunks/%s" % (state["id"], h),
                                          read_at(f, off, n))[0], 204)
        status, _, again = self.ann.call("GET", "/uploads/delta/" + state["id"])
        self.assertEqual(again["needed"], needed[2:])
        d.send_needed(f, plan, again)
        node = d.commit(state)
        self.assertEqual(self.ann.read(node["id"]), read_at(f, 0, 5 << 20))

        # Plans the server refuses, with reasons.
        base = dict(plan, name="bad.bin")
        for change, status in (
                ({"size": plan["size"] + 1}, 400),
                ({"chunks": plan["chunks"][:-1]}, 400),
                ({"chunks": ["zz:10"]}, 400),
                ({"chunks": ["%s:%d" % ("0" * 64, 5 << 20)], "size": 5 << 20}, 400),
                ({"hash": "abc"}, 400)):
            got, _, body = self.ann.call("POST", "/uploads/delta", dict(base, **change))
            self.assertEqual(got, status, (change, body))
        # A wrong whole-file hash is caught at commit; nothing is created.
        wrong = dict(base, name="wrong.bin", hash="0" * 64)
        status, _, state = self.ann.call("POST", "/uploads/delta", wrong)
        self.assertEqual(status, 201)
        self.assertEqual(state["needed"], [])  # every chunk is Ann's already
        status, _, body = self.ann.call("POST", "/uploads/delta/%s/commit" % state["id"], {})
        self.assertEqual(status, 400, body)
        names = [n["name"] for n in self.ann.children(self.ann.root, limit=500)["items"]]
        self.assertNotIn("wrong.bin", names)

    def test_params_describe_the_chunker(self):
        status, _, p = self.ann.call("GET", "/uploads/delta/params")
        self.assertEqual(status, 200)
        self.assertEqual((p["hash"], p["min_size"], p["avg_size"], p["max_size"]),
                         ("blake3", 64 << 10, 256 << 10, 1 << 20))


if __name__ == "__main__":
    unittest.main()
