"""Crash consistency of the whole server (ARCHITECTURE.md §4.1): a client
drives a mixed workload over REST, WebDAV and tus (uploads, overwrites,
moves, copies, deletes to the trash, restores, grants to a second user and
their revocation, public links and their revocation) while the server is killed
with SIGKILL at random instants. The client keeps an oracle of what the
server acknowledged. After every restart:

- every acknowledged file reads back byte-identical at its path;
- the operation in flight at the kill is either wholly done or not at all
  (a new file is absent or complete, an overwrite shows the old or the new
  bytes, a move leaves the file at exactly one of its two paths);
- every listed file reads back whole (no truncation, no mix);
- every version of a file reads back at the size it lists, and the newest
  one after an acknowledged overwrite holds the bytes it replaced;
- the second user reads exactly the files granted to it, and every
  acknowledged public link serves its file's bytes (a grant, revocation or
  link removal in flight is either done or not);

and at the end `nubo fsck` finds nothing. NUBO_SERVER_CRASH_TRIALS (default
50) sets the number of kills; `make soak` runs thousands."""
import base64
import hashlib
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "blackbox"))
import pg_cluster  # noqa: E402
from harness import NUBO_BIN, tool_env  # noqa: E402

TRIALS = int(os.environ.get("NUBO_SERVER_CRASH_TRIALS", "50"))
SEED = int(os.environ.get("NUBO_CRASH_SEED", "20261130"))
USER, PASSWORD = "crash", "crash test password"
AUTH = "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()
PEER, PEER_PASSWORD = "peer", "peer test password"
PEER_AUTH = "Basic " + base64.b64encode(("%s:%s" % (PEER, PEER_PASSWORD)).encode()).decode()
NAMES = ["f%02d.bin" % i for i in range(12)]


class Server:
    def __init__(self, data, log_path, database):
        env = tool_env(database)
        env.update({"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB", "NUBO_LOG_LEVEL": "info",
                    "NUBO_ACCESS_LOG": "false"})
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen([NUBO_BIN, "serve", "--listen", "127.0.0.1:0", "--data", data],
                                     stdout=self.log, stderr=subprocess.STDOUT, env=env)
        self.port = self._port(log_path)

    def _port(self, log_path, timeout=20):
        deadline = time.time() + timeout
        start = self.log.tell()
        while time.time() < deadline:
            with open(log_path, "rb") as f:
                f.seek(start)
                m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", f.read())
            if m:
                return int(m.group(1))
            if self.proc.poll() is not None:
                raise RuntimeError("nubo exited during start-up")
            time.sleep(0.01)
        raise RuntimeError("nubo did not start")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log.close()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=60)
        self.log.close()
        return code


def call(port, method, path, body=None, headers=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        h = {"Authorization": AUTH}
        h.update(headers or {})
        conn.request(method, path, body=body, headers=h)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def api(port, method, path, obj=None):
    body = json.dumps(obj).encode() if obj is not None else None
    status, data = call(port, method, "/api/v1" + path, body,
                        {"Content-Type": "application/json"} if body else None)
    return status, (json.loads(data) if data and data[:1] == b"{" else None)


def dav(name):
    return "/dav/crash/" + urllib.parse.quote(name)


class ServerCrashTest(unittest.TestCase):
    def test_kill_9_during_mixed_rest_and_dav_workload(self):
        rng = random.Random(SEED)
        with tempfile.TemporaryDirectory(prefix="nubo-srv-crash-") as tmp:
            data = os.path.join(tmp, "data")
            log_path = os.path.join(tmp, "server.log")
            # With NUBO_TEST_POSTGRES=1 the metadata is in a fresh PostgreSQL
            # database, which outlives each kill of the server.
            database = pg_cluster.fresh_database() if pg_cluster.wanted() else None
            srv = Server(data, log_path, database)
            status, _ = call(srv.port, "POST", "/api/v1/setup",
                             json.dumps({"username": USER, "password": PASSWORD}).encode(),
                             {"Content-Type": "application/json"})
            self.assertEqual(status, 201)
            self.assertEqual(call(srv.port, "MKCOL", "/dav/crash")[0], 201)
            self.assertEqual(api(srv.port, "POST", "/admin/users", {"username": PEER, "password": PEER_PASSWORD})[0],
                             201)
            oracle = {}      # name → bytes the server acknowledged
            self.shared = set()  # names of files granted to PEER
            self.links = {}      # token → (name, link id) of acknowledged public links
            ops_done = 0
            kills = 0
            for trial in range(TRIALS):
                # Acknowledged operations for a random while...
                deadline = time.time() + rng.uniform(0.0, 0.3)
                while time.time() < deadline:
                    op, _ = self._pick(rng, oracle, acked=True)
                    self._run(srv.port, op, oracle)
                    ops_done += 1
                # ...then one more in flight in another process, and the
                # kill at a random instant during it (or before/after).
                op, pending = self._pick(rng, oracle)
                op_path = os.path.join(tmp, "inflight.json")
                with open(op_path, "w") as f:
                    json.dump(op, f)
                inflight = subprocess.Popen([sys.executable, "-c", INFLIGHT, str(srv.port), op_path],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(rng.uniform(0.0, 0.15))  # python start-up takes ~40 ms of it
                srv.kill()
                kills += 1
                inflight.wait()
                srv = Server(data, log_path, database)
                self._verify(srv.port, oracle, pending, trial)
            self.assertEqual(srv.stop(), 0)
            fsck = subprocess.run([NUBO_BIN, "--data", data, "fsck"], capture_output=True, text=True,
                                  env=tool_env(database))
            self.assertEqual(fsck.returncode, 0, fsck.stdout + fsck.stderr)
            # The engine asked for was the one used (no SQLite file beside a
            # PostgreSQL installation).
            self.assertEqual(os.path.exists(os.path.join(data, "nubo.db")), database is None)
            self.assertRegex(fsck.stdout, r" 0 problems")
            print("\nserver crash test: %d kills, %d acknowledged operations, %d files, %d grants and %d links "
                  "at the end" % (kills, ops_done, len(oracle), len(self.shared), len(self.links)), file=sys.stderr)
            self.assertGreaterEqual(kills, min(TRIALS, 50))

    # An operation is a dict the in-flight helper can replay; `pending`
    # describes its allowed outcomes for the verifier.
    def _pick(self, rng, oracle, acked=False):
        names = sorted(oracle)
        free = [n for n in NAMES if n not in oracle]
        if names and rng.random() < 0.25:
            return self._pick_sharing(rng, names, acked)
        r = rng.random()
        if (r < 0.35 and free) or not names:
            name = rng.choice(free or NAMES)
            content = rng.randbytes(rng.choice([0, 1, 4096, rng.randint(1, 700000)]))
            via = rng.choice(["rest", "dav", "tus"])
            return ({"op": "put", "name": name, "via": via, "data": content.hex()},
                    {"kind": "put", "name": name, "old": oracle.get(name), "new": content})
        name = rng.choice(names)
        if r < 0.55:
            content = rng.randbytes(rng.randint(1, 700000))
            via = rng.choice(["rest", "dav", "tus"])
            return ({"op": "put", "name": name, "via": via, "data": content.hex()},
                    {"kind": "put", "name": name, "old": oracle[name], "new": content})
        if r < 0.7 and free:
            to = rng.choice(free)
            return ({"op": "move", "name": name, "to": to},
                    {"kind": "move", "name": name, "to": to, "data": oracle[name]})
        if r < 0.82 and free:
            to = rng.choice(free)
            return ({"op": "copy", "name": name, "to": to},
                    {"kind": "copy", "name": name, "to": to, "data": oracle[name]})
        return ({"op": "delete", "name": name}, {"kind": "delete", "name": name, "data": oracle[name]})

    def _pick_sharing(self, rng, names, acked):
        """A grant, a revocation, a link or a link's removal. A new link's
        token is only known from its answer: links are made only by
        acknowledged operations, never in flight."""
        name = rng.choice(names)
        r = rng.random()
        if r < 0.35:
            return ({"op": "grant", "name": name}, {"kind": "grant", "name": name})
        if r < 0.6 and self.shared:
            name = rng.choice(sorted(self.shared))
            return ({"op": "revoke", "name": name}, {"kind": "grant", "name": name})
        if r < 0.85 and acked:
            return ({"op": "link", "name": name}, None)
        if self.links:
            token = rng.choice(sorted(self.links))
            return ({"op": "unlink", "name": self.links[token][0], "id": self.links[token][1]},
                    {"kind": "unlink", "token": token})
        return ({"op": "grant", "name": name}, {"kind": "grant", "name": name})

    def _run(self, port, op, oracle):
        result = run_op(port, op)
        status = result[0] if isinstance(result, tuple) else result
        name = op["name"]
        if op["op"] == "put":
            self.assertIn(status, (200, 201, 204), op)
            if name not in oracle:
                self.shared.discard(name)  # a new file: nothing granted on it
            elif oracle[name] != bytes.fromhex(op["data"]):
                # The replaced content is the newest version now.
                versions = self._versions(port, name)
                self.assertTrue(versions, op)
                self.assertEqual(self._version_get(port, name, versions[0]), oracle[name], op)
            oracle[name] = bytes.fromhex(op["data"])
        elif op["op"] == "move":
            self.assertIn(status, (201, 204), op)
            oracle[op["to"]] = oracle.pop(name)
            self._moved(name, op["to"])
        elif op["op"] == "copy":
            self.assertIn(status, (201, 204), op)
            oracle[op["to"]] = oracle[name]
        elif op["op"] == "delete":
            self.assertEqual(status, 204, op)
            del oracle[name]
            self._forget(name)
        elif op["op"] == "grant":
            self.assertIn(status, (201, 409), op)  # 409: granted already
            self.shared.add(name)
        elif op["op"] == "revoke":
            self.assertEqual(status, 204, op)
            self.shared.discard(name)
        elif op["op"] == "link":
            self.assertEqual(status, 201, op)
            self.links[result[1]["token"]] = (name, result[1]["id"])
        elif op["op"] == "unlink":
            self.assertEqual(status, 204, op)
            self.links = {t: v for t, v in self.links.items() if v[1] != op["id"]}

    def _moved(self, name, to):
        """Grants and links belong to the node: they move with it."""
        if name in self.shared:
            self.shared.discard(name)
            self.shared.add(to)
        for token, (n, lid) in list(self.links.items()):
            if n == name:
                self.links[token] = (to, lid)

    def _forget(self, name):
        """A file went to the trash: what was granted or linked on it is
        out of reach (a later file of that name is another node)."""
        self.shared.discard(name)
        self.links = {t: v for t, v in self.links.items() if v[0] != name}

    def _verify(self, port, oracle, pending, trial):
        # Resolve the in-flight operation: whichever outcome the server
        # shows must be one of the two allowed, and becomes the truth.
        if pending:
            k, name = pending["kind"], pending.get("name")
            if k == "put":
                got = self._get(port, name)
                allowed = [pending["new"], pending["old"]]
                self.assertIn(got, allowed, "trial %d: %s after a put in flight: %s bytes" %
                              (trial, name, None if got is None else len(got)))
                if pending["old"] is None:
                    self.shared.discard(name)  # a new file, if it is there at all
                if got is None:
                    oracle.pop(name, None)
                else:
                    oracle[name] = got
            elif k == "move":
                a, b = self._get(port, name), self._get(port, pending["to"])
                self.assertTrue((a, b) in ((pending["data"], None), (None, pending["data"])),
                                "trial %d: move in flight left %s / %s" % (trial, a is not None, b is not None))
                oracle.pop(name, None)
                oracle[pending["to"] if b is not None else name] = pending["data"]
                if b is not None:
                    self._moved(name, pending["to"])
            elif k == "copy":
                b = self._get(port, pending["to"])
                self.assertIn(b, (None, pending["data"]), "trial %d: copy in flight" % trial)
                if b is not None:
                    oracle[pending["to"]] = b
            elif k == "delete":
                a = self._get(port, name)
                self.assertIn(a, (None, pending["data"]), "trial %d: delete in flight" % trial)
                if a is None:
                    oracle.pop(name, None)
                    self._forget(name)
            elif k == "grant":
                # A grant or revocation in flight: either outcome, then the truth.
                if name in oracle:
                    if self._peer_get(port, name) is None:
                        self.shared.discard(name)
                    else:
                        self.shared.add(name)
            elif k == "unlink":
                token = pending["token"]
                if token in self.links and self._link_get(port, token) is None:
                    del self.links[token]
        # Every acknowledged file, byte for byte; nothing else listed.
        for name, content in oracle.items():
            got = self._get(port, name)
            self.assertIsNotNone(got, "trial %d: acknowledged %s is gone" % (trial, name))
            self.assertEqual(hashlib.sha256(got).hexdigest(), hashlib.sha256(content).hexdigest(),
                             "trial %d: %s differs (%d vs %d bytes)" % (trial, name, len(got), len(content)))
        status, body = call(port, "PROPFIND", "/dav/crash/", headers={"Depth": "1"})
        self.assertEqual(status, 207)
        hrefs = [h.decode() for h in re.findall(rb"<d:href>([^<]*)</d:href>", body)]
        listed = {urllib.parse.unquote(h.rsplit("/", 1)[-1]) for h in hrefs if not h.endswith("/")}
        self.assertEqual(listed, set(oracle), "trial %d: listing differs from the oracle" % trial)
        # The second user reads exactly what was granted; links serve their file.
        for name, content in oracle.items():
            got = self._peer_get(port, name)
            if name in self.shared:
                self.assertTrue(got == content, "trial %d: granted %s unreadable or different" % (trial, name))
            else:
                self.assertTrue(got is None, "trial %d: %s readable without a grant" % (trial, name))
        for token, (name, _) in self.links.items():
            self.assertTrue(self._link_get(port, token) == oracle[name], "trial %d: link to %s" % (trial, name))
        # Versions of one file: each reads back whole.
        if oracle:
            name = sorted(oracle)[trial % len(oracle)]
            for v in self._versions(port, name):
                got = self._version_get(port, name, v)
                self.assertEqual(len(got), v["size"], "trial %d: a version of %s is cut" % (trial, name))

    def _versions(self, port, name):
        status, body = api(port, "GET", "/nodes/%s/versions" % node_id(port, name))
        self.assertEqual(status, 200, body)
        return body["items"]

    def _version_get(self, port, name, v):
        status, body = call(port, "GET", "/api/v1/nodes/%s/versions/%s/content" % (node_id(port, name), v["id"]))
        self.assertEqual(status, 200)
        return body

    def _peer_get(self, port, name):
        node = node_id(port, name)
        if node is None:
            return None
        status, body = call(port, "GET", "/api/v1/nodes/%s/content" % node, headers={"Authorization": PEER_AUTH})
        if status == 404:
            return None
        self.assertEqual(status, 200, name)
        return body

    def _link_get(self, port, token):
        status, body = call(port, "GET", "/api/v1/public/%s" % token, headers={"Authorization": ""})
        if status == 404:
            return None
        self.assertEqual(status, 200, body)
        status, body = call(port, "GET", "/api/v1/public/%s/nodes/%s/content" % (token, json.loads(body)["node_id"]),
                            headers={"Authorization": ""})
        self.assertEqual(status, 200)
        return body

    def _get(self, port, name):
        status, body = call(port, "GET", dav(name))
        if status == 404:
            return None
        self.assertEqual(status, 200, name)
        return body


def crash_folder(port):
    status, drives = api(port, "GET", "/drives")
    root = drives["drives"][0]["root_id"]
    status, kids = api(port, "GET", "/nodes/%s/children?limit=500" % root)
    return [n for n in kids["items"] if n["name"] == "crash"][0]["id"]


def node_id(port, name):
    status, kids = api(port, "GET", "/nodes/%s/children?limit=500" % crash_folder(port))
    ids = [n["id"] for n in kids["items"] if n["name"] == name]
    return ids[0] if ids else None


def call_h(port, method, path, body=b"", headers=None):
    """(status, lower-case response headers)."""
    h = {"Authorization": AUTH}
    h.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=h)
        resp = conn.getresponse()
        resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


def run_op(port, op):
    """The operation's status; for a new link (status, its JSON)."""
    name = op["name"]
    if op["op"] in ("grant", "revoke", "link"):
        node = node_id(port, name)
        if op["op"] == "grant":
            return api(port, "POST", "/nodes/%s/grants" % node, {"user": PEER, "role": "viewer"})[0]
        if op["op"] == "link":
            return api(port, "POST", "/nodes/%s/links" % node, {"role": "view"})
        grants = api(port, "GET", "/nodes/%s/grants" % node)[1]["items"]
        return api(port, "DELETE", "/grants/%s" % grants[0]["id"])[0] if grants else 404
    if op["op"] == "unlink":
        return api(port, "DELETE", "/links/%s" % op["id"])[0]
    if op["op"] == "put":
        data = bytes.fromhex(op["data"])
        if op["via"] == "dav":
            return call(port, "PUT", dav(name), data)[0]
        folder = crash_folder(port)
        if op["via"] == "tus":
            md = ",".join("%s %s" % (k, base64.b64encode(v.encode()).decode()) for k, v in
                          (("filename", name), ("parent_id", folder), ("conflict", "overwrite")))
            status, headers = call_h(port, "POST", "/api/v1/uploads/tus/", b"", {
                "Tus-Resumable": "1.0.0", "Upload-Length": str(len(data)), "Upload-Metadata": md})
            if status != 201 or not data:
                return status  # an empty file is complete at creation
            # In two requests, so a kill may fall between them.
            half = len(data) // 2
            h = {"Tus-Resumable": "1.0.0", "Content-Type": "application/offset+octet-stream"}
            status, _ = call_h(port, "PATCH", headers["location"], data[:half], dict(h, **{"Upload-Offset": "0"}))
            if status != 204 or half == len(data):
                return status
            return call_h(port, "PATCH", headers["location"], data[half:],
                          dict(h, **{"Upload-Offset": str(half)}))[0]
        return call(port, "PUT", "/api/v1/nodes/%s/files/%s?conflict=overwrite" % (folder, urllib.parse.quote(name, safe="")),
                    data)[0]
    if op["op"] in ("move", "copy"):
        return call(port, op["op"].upper(), dav(name),
                    headers={"Destination": "http://127.0.0.1:%d%s" % (port, dav(op["to"])), "Overwrite": "F"})[0]
    if op["op"] == "delete":
        return call(port, "DELETE", dav(name))[0]
    raise ValueError(op)


INFLIGHT = """
import json, sys
sys.path.insert(0, %r)
from test_server_crash import run_op
try:
    with open(sys.argv[2]) as f:
        run_op(int(sys.argv[1]), json.load(f))
except Exception:
    pass
""" % os.path.dirname(os.path.abspath(__file__))


if __name__ == "__main__":
    unittest.main()
