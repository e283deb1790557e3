"""Fault injection at the service level: the server runs with its chunk
store and metadata store wrapped in fault injectors (test-only routes arm
them: "succeed N times, then fail"). For N = 0, 1, 2, … every request gets a
clean error with a reason (never a hang or a dropped connection), nothing
partial becomes visible, and at the end `nubo fsck` finds every count
exact."""
import base64
import json
import os
import subprocess
import unittest

from harness import NUBO_BIN, Server, exchange

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
AUTH = {"Authorization": "Basic " + base64.b64encode(b"admin:admin password 1").decode()}


class FaultTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(env=FAST)
        st, _, _ = exchange(cls.srv, "POST", "/api/v1/setup", {"Content-Type": "application/json"},
                            json.dumps({"username": "admin", "password": "admin password 1"}).encode())
        assert st == 201
        cls.faults = {"chunks": 0, "meta": 0}

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def call(self, method, path, body=b"", headers=None):
        h = dict(AUTH)
        h.update(headers or {})
        if body and method in ("POST", "PATCH") and "Content-Type" not in h:
            h["Content-Type"] = "application/json"
        return exchange(self.srv, method, path, h, body)

    def arm(self, target, after, fault):
        st, _, body = exchange(self.srv, "POST", "/_test/faults", {"Content-Type": "application/json"},
                               json.dumps({"target": target, "after": after, "fault": fault}).encode())
        self.assertEqual(st, 204, body)

    def disarm(self):
        """Disarms both plans; returns how many faults fired since the last call."""
        st, _, body = exchange(self.srv, "DELETE", "/_test/faults")
        self.assertEqual(st, 204, body)
        st, _, body = exchange(self.srv, "GET", "/_test/faults")
        now = json.loads(body)
        fired = {k: now[k]["fired"] - self.faults[k] for k in self.faults}
        for k in self.faults:
            self.faults[k] = now[k]["fired"]
        return {k: {"fired": v} for k, v in fired.items()}

    def folder(self, name):
        st, _, body = self.call("GET", "/api/v1/drives")
        root = json.loads(body)["drives"][0]["root_id"]
        st, _, body = self.call("POST", "/api/v1/nodes/%s/folders" % root, json.dumps({"name": name}).encode())
        self.assertEqual(st, 201, body)
        return json.loads(body)["id"]

    def names(self, folder):
        st, _, body = self.call("GET", "/api/v1/nodes/%s/children?limit=500" % folder)
        self.assertEqual(st, 200, body)
        return {n["name"]: n for n in json.loads(body)["items"]}

    def assertCleanError(self, st, body, what):
        self.assertIn(st, (500, 503, 507), "%s: %d %r" % (what, st, body[:300]))
        err = json.loads(body)
        self.assertTrue(err.get("error") and err.get("message"), body)

    def test_chunk_store_faults(self):
        folder = self.folder("chunks")
        data = os.urandom(3 << 20)  # several chunks
        fired_total = 0
        for fault in ("enospc", "eio", "short"):
            for n in range(0, 10):
                name = "%s-%d.bin" % (fault, n)
                self.arm("chunks", n, fault)
                st, _, body = self.call("PUT", "/api/v1/nodes/%s/files/%s" % (folder, name), data)
                fired = self.disarm()["chunks"]["fired"]
                fired_total += fired
                listed = self.names(folder)
                if st == 201:
                    self.assertEqual(fired, 0, "a fault fired but the upload succeeded")
                    st2, _, got = self.call("GET", "/api/v1/nodes/%s/content" % listed[name]["id"])
                    self.assertEqual((st2, got), (200, data))
                else:
                    self.assertCleanError(st, body, name)
                    self.assertNotIn(name, listed, "a failed upload is visible")
        self.assertGreater(fired_total, 10)

    def test_metadata_faults(self):
        folder = self.folder("meta")
        fired_total = 0
        for n in range(0, 8):
            self.arm("meta", n, "enospc")
            done = {}
            steps = [
                ("mkdir", "POST", "/api/v1/nodes/%s/folders" % folder, json.dumps({"name": "d%d" % n}).encode()),
                ("put", "PUT", "/api/v1/nodes/%s/files/f%d.txt" % (folder, n), b"content %d" % n),
                ("dav-put", "PUT", "/dav/meta/g%d.txt" % n, b"dav content %d" % n),
                ("dav-copy", "COPY", "/dav/meta/g%d.txt" % n, b""),
                ("dav-move", "MOVE", "/dav/meta/f%d.txt" % n, b""),
                ("dav-delete", "DELETE", "/dav/meta/g%d.txt" % n, b""),
            ]
            for label, method, path, body in steps:
                headers = {}
                if label == "dav-copy":
                    headers["Destination"] = "/dav/meta/copy%d.txt" % n
                if label == "dav-move":
                    headers["Destination"] = "/dav/meta/moved%d.txt" % n
                st, _, resp = self.call(method, path, body, headers)
                ok = 200 <= st < 300
                done[label] = ok
                if not ok and st not in (404, 409):  # a step after a failed one may find nothing
                    self.assertIn(st, (500, 503, 507), "%s at N=%d: %d %r" % (label, n, st, resp[:300]))
            fired_total += self.disarm()["meta"]["fired"]
            listed = self.names(folder)
            # What was acknowledged is there; what failed left no trace.
            self.assertEqual("d%d" % n in listed, done["mkdir"], n)
            if done["put"] and not done["dav-move"]:
                self.assertIn("f%d.txt" % n, listed)
            if done["dav-move"]:
                self.assertIn("moved%d.txt" % n, listed)
                self.assertNotIn("f%d.txt" % n, listed)
            if done["dav-copy"]:
                st, _, got = self.call("GET", "/dav/meta/copy%d.txt" % n)
                self.assertEqual((st, got), (200, b"dav content %d" % n))
            if done["dav-delete"]:
                self.assertNotIn("g%d.txt" % n, listed)
            for name, node in listed.items():
                if node["kind"] == "file":
                    st, _, got = self.call("GET", "/api/v1/nodes/%s/content" % node["id"])
                    self.assertEqual(st, 200)
                    self.assertEqual(len(got), node["size"])
        self.assertGreater(fired_total, 4)

    def test_zz_fsck_after_all_faults(self):
        self.assertEqual(self.srv.terminate(), 0, self.srv.log()[-3000:])
        env = self.srv.tool_env()
        p = subprocess.run([NUBO_BIN, "--data", self.srv.data, "fsck"], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r" 0 problems")
