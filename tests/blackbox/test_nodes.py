"""Several nodes: two `nubo serve` processes on one PostgreSQL database and
one data directory behave as one server (docs/postgresql.md, "Several
nodes"). Always on PostgreSQL: the test starts its own throwaway cluster
(pg_cluster.py); a missing postgresql-15 fails it.

What a broken multi-node setup gets wrong, each checked here: a WebDAV lock
known to one process only, sessions or app passwords that one node does not
know or keeps honouring after they ended on the other, a lockout one node
forgets, an upload that cannot move to another node halfway, litmus
through a balancer that sends every request to the other node, and a node
killed while clients use both leaving a store fsck complains about.
"""
import http.client
import os
import random
import socket
import subprocess
import threading
import time
import unittest

import pg_cluster
from harness import Server, metric
from test_dav import ADMIN, Dav, clean_env, require_tool, tail
from test_files import Client, add_user, eventually, run_fsck
from test_uploads import TUS, Tus

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}


def two_nodes(env=None, env2=None):
    """Node 1 on a fresh database (set up with ADMIN), node 2 on the same
    database and data directory (with env2 over env when given)."""
    first = Server(env=dict(FAST, **(env or {})), test_routes=False, database=pg_cluster.fresh_database())
    try:
        admin = Client(first, *ADMIN)
        status, _, body = admin.call("POST", "/api/v1/setup", {"username": ADMIN[0], "password": ADMIN[1]},
                                     auth=False)
        assert status == 201, (status, body)
        second = Server(env=dict(FAST, **dict(env or {}, **(env2 or {}))), test_routes=False, node_of=first)
    except BaseException:
        first.close()
        raise
    return first, second


def sweeps(srv):
    """Maintenance sweeps the node has run."""
    return metric(srv, "nubo_maintenance_sweeps_total")


def fsck_clean(test, srv):
    p = run_fsck(srv)
    test.assertEqual(p.returncode, 0, p.stdout + p.stderr)
    test.assertRegex(p.stdout, r" 0 problems")


class Alternator:
    """A balancer that sends each HTTP request to the next node in turn, on
    a fresh upstream connection ("Connection: close"), so consecutive
    requests of one client connection land on different processes."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.turn = 0
        self.lock = threading.Lock()
        self.counts = [0] * len(nodes)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def _accept(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    @staticmethod
    def _until(f, buf, marker):
        while marker not in buf:
            more = f.recv(65536)
            if not more:
                return buf, False
            buf += more
        return buf, True

    @staticmethod
    def _exact(f, buf, n):
        while len(buf) < n:
            more = f.recv(65536)
            if not more:
                return buf, False
            buf += more
        return buf, True

    def _read_request(self, c, buf):
        """(raw request bytes with Connection: close, rest) or None."""
        buf, ok = self._until(c, buf, b"\r\n\r\n")
        if not ok:
            return None
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        kept, length, chunked = [lines[0]], 0, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            n = name.strip().lower()
            if n == b"connection":
                continue
            if n == b"expect":
                # Answered here, as a buffering proxy does: the body is
                # read before a node is chosen.
                c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                continue
            if n == b"content-length":
                length = int(value.strip())
            if n == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            kept.append(line)
        kept.append(b"Connection: close")
        out = b"\r\n".join(kept) + b"\r\n\r\n"
        if chunked:
            body = b""
            while True:
                buf, ok = self._until(c, buf, b"\r\n")
                if not ok:
                    return None
                size_line, buf = buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                buf, ok = self._exact(c, buf, size + 2)
                if not ok:
                    return None
                body += size_line + b"\r\n" + buf[:size + 2]
                buf = buf[size + 2:]
                if size == 0:
                    break
            return out + body, buf
        buf, ok = self._exact(c, buf, length)
        if not ok:
            return None
        return out + buf[:length], buf[length:]

    def _serve(self, c):
        buf = b""
        try:
            while True:
                req = self._read_request(c, buf)
                if req is None:
                    return
                raw, buf = req
                with self.lock:
                    i = self.turn % len(self.nodes)
                    self.turn += 1
                    self.counts[i] += 1
                with socket.create_connection(("127.0.0.1", self.nodes[i].port), timeout=120) as u:
                    u.sendall(raw)
                    while True:
                        data = u.recv(65536)
                        if not data:
                            break
                        c.sendall(data)
                # The node closed after its answer ("Connection: close"), so
                # the client sees the close too and opens a new connection.
                return
        except OSError:
            return
        finally:
            c.close()

    def close(self):
        self.sock.close()


class TwoNodesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.n1, cls.n2 = two_nodes({"NUBO_LOCKOUT_FAILURES": "3", "NUBO_LOCKOUT": "60s"})
        cls.admin1 = Client(cls.n1, *ADMIN)
        cls.ann1 = add_user(cls.admin1, "ann", "ann password 1")
        cls.ann2 = Client(cls.n2, "ann", "ann password 1")

    @classmethod
    def tearDownClass(cls):
        codes = [cls.n2.terminate(), cls.n1.terminate()]
        try:
            assert codes == [0, 0], codes
            p = run_fsck(cls.n1)
            assert p.returncode == 0 and " 0 problems" in p.stdout, p.stdout + p.stderr
        finally:
            cls.n2.close()
            cls.n1.close()

    def test_files_written_on_one_node_are_read_on_the_other(self):
        a1, a2 = Dav(self.n1, "ann", "ann password 1"), Dav(self.n2, "ann", "ann password 1")
        self.assertEqual(a1.mkcol("/dav/both/")[0], 201)
        data = os.urandom(3 << 20)
        self.assertEqual(a2.put("/dav/both/f.bin", data)[0], 201)
        status, hdrs1, body = a1.raw("GET", "/dav/both/f.bin")
        self.assertEqual((status, body == data), (200, True))
        self.assertEqual(a2.raw("HEAD", "/dav/both/f.bin")[1]["etag"], hdrs1["etag"])
        self.assertEqual(a1.raw("MOVE", "/dav/both/f.bin", headers={"Destination": "/dav/both/g.bin"})[0], 201)
        self.assertEqual(a2.raw("GET", "/dav/both/f.bin")[0], 404)
        self.assertEqual(a2.raw("GET", "/dav/both/g.bin")[2], data)

    def test_a_lock_taken_on_one_node_holds_on_the_other(self):
        a1, a2 = Dav(self.n1, "ann", "ann password 1"), Dav(self.n2, "ann", "ann password 1")
        self.assertIn(a1.put("/dav/locked.txt", b"v1")[0], (201, 204))
        body = ('<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/>'
                '</D:lockscope><D:locktype><D:write/></D:locktype><D:owner>n1</D:owner></D:lockinfo>')
        status, hdrs, resp = a1.raw("LOCK", "/dav/locked.txt", body.encode(),
                                    {"Depth": "0", "Timeout": "Second-600", "Content-Type": "application/xml"})
        self.assertEqual(status, 200, resp)
        token = hdrs["lock-token"].strip("<>")
        # Node 2 refuses a write without the token, and shows the lock.
        self.assertEqual(a2.put("/dav/locked.txt", b"v2")[0], 423)
        self.assertIn(token.encode(), a2.propfind("/dav/locked.txt", "0", ["lockdiscovery"])[2])
        self.assertEqual(a1.raw("GET", "/dav/locked.txt")[2], b"v1")
        # With the token it writes there, and unlocks there.
        self.assertEqual(a2.raw("PUT", "/dav/locked.txt", b"v3", {"If": "(<%s>)" % token})[0], 204)
        self.assertEqual(a2.raw("UNLOCK", "/dav/locked.txt", headers={"Lock-Token": "<%s>" % token})[0], 204)
        self.assertEqual(a1.put("/dav/locked.txt", b"v4")[0], 204)
        self.assertEqual(a2.raw("GET", "/dav/locked.txt")[2], b"v4")

    def test_sessions_work_on_both_nodes_and_end_on_both(self):
        status, _, t = self.ann1.call("POST", "/api/v1/auth/login",
                                      {"username": "ann", "password": "ann password 1"}, auth=False)
        self.assertEqual(status, 200, t)
        bearer = {"Authorization": "Bearer " + t["access_token"]}
        self.assertEqual(self.ann2.call("GET", "/api/v1/me", headers=bearer, auth=False)[0], 200)
        # A refresh on node 2, then the rotated token reused on node 1: the
        # family is revoked everywhere.
        status, _, t2 = self.ann2.call("POST", "/api/v1/auth/refresh", {"refresh_token": t["refresh_token"]},
                                       auth=False)
        self.assertEqual(status, 200, t2)
        bearer2 = {"Authorization": "Bearer " + t2["access_token"]}
        self.assertEqual(self.ann1.call("GET", "/api/v1/me", headers=bearer2, auth=False)[0], 200)
        time.sleep(10.5)  # past the grace for a just-rotated token
        self.assertEqual(self.ann1.call("POST", "/api/v1/auth/refresh", {"refresh_token": t["refresh_token"]},
                                        auth=False)[0], 401)
        for node in (self.ann1, self.ann2):
            self.assertEqual(eventually(lambda: node.call("GET", "/api/v1/me", headers=bearer2,
                                                          auth=False)[0] == 401), True)
        # Logout on node 1 ends the session on node 2 within the check cache.
        _, _, t3 = self.ann1.call("POST", "/api/v1/auth/login", {"username": "ann", "password": "ann password 1"},
                                  auth=False)
        bearer3 = {"Authorization": "Bearer " + t3["access_token"]}
        self.assertEqual(self.ann2.call("GET", "/api/v1/me", headers=bearer3, auth=False)[0], 200)
        self.assertEqual(self.ann1.call("POST", "/api/v1/auth/logout", headers=bearer3, auth=False)[0], 204)
        self.assertTrue(eventually(lambda: self.ann2.call("GET", "/api/v1/me", headers=bearer3,
                                                          auth=False)[0] == 401))

    def test_app_passwords_and_password_changes_reach_both_nodes(self):
        bob1 = add_user(self.admin1, "bob", "bob password 1")
        bob2 = Client(self.n2, "bob", "bob password 1")
        self.assertEqual(bob2.call("GET", "/api/v1/me")[0], 200)  # cached on node 2
        status, _, app = bob1.call("POST", "/api/v1/me/app-passwords", {"label": "phone"})
        self.assertEqual(status, 201, app)
        phone2 = Client(self.n2, "bob", app["password"])
        phone1 = Client(self.n1, "bob", app["password"])
        self.assertEqual(phone2.call("GET", "/api/v1/me")[0], 200)
        self.assertEqual(phone1.call("GET", "/api/v1/me")[0], 200)
        # Revoked on node 2: refused on node 1 too (its cache state is at
        # most two seconds old).
        self.assertEqual(bob2.call("DELETE", "/api/v1/me/app-passwords/%s" % app["id"])[0], 204)
        self.assertTrue(eventually(lambda: phone1.call("GET", "/api/v1/me")[0] == 401))
        # A password changed on node 1: node 2 stops taking the old one and
        # takes the new one.
        status, _, body = bob1.call("POST", "/api/v1/me/password",
                                    {"current_password": "bob password 1", "new_password": "bob password 2"})
        self.assertEqual(status, 204, body)
        self.assertTrue(eventually(lambda: bob2.call("GET", "/api/v1/me")[0] == 401))
        self.assertEqual(Client(self.n2, "bob", "bob password 2").call("GET", "/api/v1/me")[0], 200)

    def test_a_lockout_on_one_node_holds_on_the_other(self):
        self.assertEqual(add_user(self.admin1, "cy", "cy password 1").call("GET", "/api/v1/me")[0], 200)
        wrong1 = Client(self.n1, "cy", "guess guess")
        for _ in range(3):
            self.assertEqual(wrong1.call("GET", "/api/v1/me")[0], 401)
        self.assertEqual(wrong1.call("GET", "/api/v1/me")[0], 429)
        # Node 2 never saw a failure; once the nodes have shared their
        # counts (twice a second each) it refuses this address too, the
        # right password included, and guesses there are not checked.
        right2 = Client(self.n2, "cy", "cy password 1")
        self.assertTrue(eventually(lambda: right2.call("GET", "/api/v1/me")[0] == 429, timeout=10))
        for password in ("guess again", "cy password 1"):
            status, hdrs, body = Client(self.n2, "cy", password).call("GET", "/api/v1/me")
            self.assertEqual(status, 429, body)
            self.assertGreater(int(hdrs["retry-after"]), 1)

    def test_an_upload_started_on_one_node_finishes_on_the_other(self):
        data = os.urandom(5 * 1024 * 1024 + 777)
        t1, t2 = Tus(self.ann1), Tus(self.ann2)
        url, _ = t1.create(len(data), filename="moved.bin")
        half = 2 * 1024 * 1024 + 5
        self.assertEqual(t1.patch(url, 0, data[:half])[0], 204)
        self.assertEqual(t2.offset(url), half)
        # A stale offset is refused on the other node as on the first.
        self.assertEqual(t2.patch(url, 0, data[:10])[0], 409)
        t2.upload(url, data, start=half)
        status, _, body = self.ann1.raw("GET", "/dav/moved.bin")
        self.assertEqual((status, body == data), (200, True))
        # The completed upload answers on the first node too (a lost last
        # response is asked for again wherever the balancer sends it).
        status, h, _ = t1.head(url)
        self.assertEqual((status, h["upload-offset"]), (200, str(len(data))))

    def test_litmus_through_alternating_nodes(self):
        require_tool("litmus")
        bal = Alternator([self.n1, self.n2])
        try:
            a1 = Dav(self.n1, *ADMIN)
            self.assertEqual(a1.mkcol("/dav/litmus-nodes/")[0], 201)
            failed = []
            import tempfile
            for suite in ("basic", "copymove", "props", "locks", "http"):
                with tempfile.TemporaryDirectory(prefix="nubo-litmus-") as cwd:
                    p = subprocess.run(["litmus", "-k", bal.url("/dav/litmus-nodes/"), ADMIN[0], ADMIN[1]],
                                       timeout=300, cwd=cwd, env=clean_env(TESTS=suite), capture_output=True,
                                       text=True, errors="replace")
                out = p.stdout + p.stderr
                if ("of" not in out or " 0 failed" not in out or "100.0%" not in out
                        or "does not claim Class 2" in out):
                    failed.append("%s:\n%s" % (suite, tail(out.replace("\r", "\n"), 40)))
            self.assertEqual(failed, [], "\n".join(failed) + "\n" + tail(self.n2.log(), 30))
            # Both nodes served a fair share.
            self.assertGreater(min(bal.counts), 100, bal.counts)
        finally:
            bal.close()


class CrossNodeGcTest(unittest.TestCase):
    def test_gc_on_one_node_spares_an_upload_in_flight_on_the_other(self):
        # Node 1 collects garbage every 100 ms with no grace at all (node 2
        # sweeps once an hour: the sweeps are node 1's); node 2 receives a
        # slow upload whose first 64 MiB batch of chunks is already in the
        # store without a row. Node 1 knows nothing of node 2's pins but
        # its heartbeat: the chunks must survive and the upload commit.
        n1, n2 = two_nodes({"NUBO_GC_GRACE": "0s", "NUBO_MAINTENANCE_INTERVAL": "100ms",
                            "NUBO_FILES_MAX_UPLOAD": "1GiB"}, {"NUBO_MAINTENANCE_INTERVAL": "1h"})
        try:
            add_user(Client(n1, *ADMIN), "eve", "eve password 1")
            rnd = random.Random(5)
            data = bytes(rnd.getrandbits(8) for _ in range(1 << 20)) * 70 + os.urandom(3 << 20)
            conn = http.client.HTTPConnection("127.0.0.1", n2.port, timeout=120)
            dav = Dav(n2, "eve", "eve password 1")
            conn.putrequest("PUT", "/dav/slow.bin")
            conn.putheader("Authorization", dav.auth)
            conn.putheader("Content-Length", str(len(data)))
            conn.endheaders()
            fast = 68 << 20
            for i in range(0, fast, 1 << 20):
                conn.send(data[i:i + (1 << 20)])
            # Several of node 1's GC runs while node 2 holds the chunks.
            gc_before = sweeps(n1)
            for i in range(fast, len(data), 256 << 10):
                time.sleep(0.25)
                conn.send(data[i:i + (256 << 10)])
            self.assertGreaterEqual(sweeps(n1) - gc_before, 2)
            resp = conn.getresponse()
            body = resp.read()
            conn.close()
            self.assertEqual(resp.status, 201, body)
            status, _, back = Dav(n1, "eve", "eve password 1").raw("GET", "/dav/slow.bin")
            self.assertEqual((status, len(back), back == data), (200, len(data), True))
            self.assertEqual(n2.terminate(), 0)
            self.assertEqual(n1.terminate(), 0)
            fsck_clean(self, n1)
        finally:
            n2.close()
            n1.close()


class MaintenanceLeaseTest(unittest.TestCase):
    def test_one_node_sweeps_at_a_time_once_an_interval(self):
        # Both nodes sweep every second. A sweep starts only an interval
        # after the last one ended, wherever that was (the lease), so over
        # W seconds both together end at most W + 1 of them; each on its
        # own schedule would end about twice as many.
        n1, n2 = two_nodes({"NUBO_MAINTENANCE_INTERVAL": "1s"})
        try:
            time.sleep(1.5)
            t0 = time.monotonic()
            before = sweeps(n1) + sweeps(n2)
            time.sleep(8)
            after = sweeps(n1) + sweeps(n2)
            window = time.monotonic() - t0
            self.assertGreaterEqual(after - before, 2)  # the sweeps go on
            self.assertLessEqual(after - before, int(window) + 1)
            # The other node carries on alone once one has stopped.
            self.assertEqual(n2.terminate(), 0)
            alone = sweeps(n1)
            self.assertTrue(eventually(lambda: sweeps(n1) >= alone + 2, 15))
            self.assertEqual(n1.terminate(), 0)
        finally:
            n2.close()
            n1.close()


class NodeCrashTest(unittest.TestCase):
    """Clients write through both nodes while one of them is killed (-9)
    at random instants and restarted; nothing acknowledged is lost and
    fsck finds nothing wrong."""

    def test_kill_one_node_while_clients_use_both(self):
        n1, n2 = two_nodes()
        try:
            add_user(Client(n1, *ADMIN), "dee", "dee password 1")
            rng = random.Random(int(os.environ.get("NUBO_TEST_SEED", "20")))
            acked = {}  # path -> bytes the server acknowledged
            lock = threading.Lock()
            stop = threading.Event()

            def writer(k):
                i = 0
                while not stop.is_set():
                    node = (n1, n2)[(i + k) % 2]
                    path = "/dav/w%d-%d.bin" % (k, i)
                    data = os.urandom(rng.choice((100, 5000, 300000, 1200000)))
                    try:
                        status = Dav(node, "dee", "dee password 1").put(path, data, timeout=30)[0]
                    except OSError:
                        status = None  # the node died mid-request: not acknowledged
                    if status == 201:
                        with lock:
                            acked[path] = data
                    i += 1

            threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
            for t in threads:
                t.start()
            try:
                for _ in range(4):
                    time.sleep(rng.uniform(0.3, 1.5))
                    n1.proc.kill()
                    n1.proc.wait()
                    time.sleep(0.2)
                    n1.restart()
            finally:
                stop.set()
                for t in threads:
                    t.join()
            self.assertGreater(len(acked), 20)
            reader = Dav(n2, "dee", "dee password 1")
            for path, data in acked.items():
                status, _, body = reader.raw("GET", path)
                self.assertEqual((path, status, len(body), body == data), (path, 200, len(data), True))
            self.assertEqual(n2.terminate(), 0)
            self.assertEqual(n1.terminate(), 0)
            fsck_clean(self, n1)
        finally:
            n2.close()
            n1.close()


if __name__ == "__main__":
    unittest.main()
