"""A big upload through the real tus client over a flaky network.

The web UI uploads large files with tus-js-client. Here the same client (in
Node, web/scripts/tus-upload.mjs, streaming from disk) uploads a file of
NUBO_TEST_BIG_BYTES bytes (1 GiB by default) through a TCP proxy that cuts
the connection, both sides at once, every ~150 MB it forwards. The client
must resume each time at the offset the server kept (never start over), the
file must arrive byte-identical (SHA-256 of a streamed download), and fsck
must find nothing afterwards.

Node.js and web/node_modules (npm ci in web/) are required: without them the
test fails, it does not skip.
"""
import hashlib
import http.client
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from test_files import FAST, start_with_users, stop_and_fsck

WEB = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web"))
SCRIPT = os.path.join(WEB, "scripts", "tus-upload.mjs")
BIG_BYTES = int(os.environ.get("NUBO_TEST_BIG_BYTES", str(1 << 30)))
MiB = 1 << 20
TUS = "/api/v1/uploads/tus/"


class CuttingProxy:
    """Forwards loopback TCP connections to the server and, each time
    another `every` bytes went from the client to the server (all
    connections together), closes both sockets of the connection that
    crossed the mark: the client sees a cut request, the server a body that
    ends early."""

    def __init__(self, upstream_port, every, max_cuts):
        self.upstream_port = upstream_port
        self.every = every
        self.max_cuts = max_cuts
        self.forwarded = 0  # client -> server bytes
        self.cuts = []  # forwarded count at each cut
        self.connections = 0
        self._next_cut = every
        self._lock = threading.Lock()
        self._closing = False
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def close(self):
        self._closing = True
        try:
            self.listener.close()
        except OSError:
            pass

    def _accept(self):
        while not self._closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self.connections += 1
            pair = {"closed": False}
            threading.Thread(target=self._pump, args=(client, server, pair, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, pair, False), daemon=True).start()

    @staticmethod
    def _close_both(a, b, pair):
        if pair["closed"]:
            return
        pair["closed"] = True
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass

    def _pump(self, src, dst, pair, upstream):
        try:
            while True:
                data = src.recv(1 << 20)
                if not data:
                    break
                dst.sendall(data)
                if not upstream:
                    continue
                with self._lock:
                    self.forwarded += len(data)
                    cut = self.forwarded >= self._next_cut and len(self.cuts) < self.max_cuts
                    if cut:
                        self.cuts.append(self.forwarded)
                        self._next_cut = self.forwarded + self.every
                if cut:
                    break
        except OSError:
            pass
        self._close_both(src, dst, pair)


def write_random_file(path, size):
    """Pseudo-random content in 16 MiB blocks; returns its SHA-256."""
    h = hashlib.sha256()
    block = 16 * MiB
    with open(path, "wb") as f:
        left = size
        while left:
            data = os.urandom(min(block, left))
            h.update(data)
            f.write(data)
            left -= len(data)
    return h.hexdigest()


class TusClientOverFlakyNetworkTest(unittest.TestCase):
    def test_big_upload_resumes_after_every_cut(self):
        t0 = time.time()
        node = shutil.which("node")
        self.assertIsNotNone(node, "Node.js (node) is required for the tus client test")
        self.assertTrue(os.path.isfile(os.path.join(WEB, "node_modules", "tus-js-client", "package.json")),
                        "tus-js-client is missing: run `npm ci` in %s" % WEB)

        srv, _admin, users = start_with_users(["tess"], env=dict(FAST))
        self.addCleanup(srv.close)
        tess = users["tess"]
        tmp = tempfile.TemporaryDirectory(prefix="nubo-tus-")
        self.addCleanup(tmp.cleanup)
        src = os.path.join(tmp.name, "big-upload.bin")
        want = write_random_file(src, BIG_BYTES)
        t_file = time.time()

        # ~150 MB between cuts; smaller files get at least four.
        every = max(64 << 10, min(150 * 1000 * 1000, BIG_BYTES // 5))
        proxy = CuttingProxy(srv.port, every, max_cuts=16)
        self.addCleanup(proxy.close)

        password = "tess password 1"
        proc = subprocess.run(
            [node, SCRIPT, "--endpoint", "http://127.0.0.1:%d%s" % (proxy.port, TUS), "--file", src,
             "--user", "tess", "--password", password],
            cwd=WEB, capture_output=True, text=True, timeout=600)
        t_upload = time.time()
        events = []
        for line in proc.stdout.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
        report = "exit %s\nstdout:\n%s\nstderr:\n%s" % (proc.returncode, proc.stdout[-4000:], proc.stderr[-4000:])
        self.assertEqual(proc.returncode, 0, report)
        done = [e for e in events if e["event"] == "done"]
        self.assertEqual(len(done), 1, report)
        node_id = done[0]["node_id"]
        self.assertTrue(node_id, report)

        # The proxy cut often enough, and every cut was followed by a resume
        # from where the server stood, not by a new upload.
        self.assertGreaterEqual(len(proxy.cuts), 3, (proxy.cuts, report))
        self.assertEqual(len([e for e in events if e["event"] == "created"]), 1, report)
        resumed = [e["offset"] for e in events if e["event"] == "resumed"]
        self.assertGreaterEqual(len(resumed), len(proxy.cuts), report)
        self.assertGreaterEqual(len([o for o in resumed if o > 0]), 3, report)
        self.assertEqual(resumed, sorted(resumed), "the offset never goes back: %s" % resumed)
        self.assertLess(proxy.forwarded, 2 * BIG_BYTES, "the server received the file about once")

        # The upload's URL keeps naming the file.
        status, hdrs, _ = tess.raw("HEAD", done[0]["url"][done[0]["url"].index(TUS):],
                                   headers={"Tus-Resumable": "1.0.0"})
        self.assertEqual(status, 200)
        self.assertEqual((hdrs["upload-offset"], hdrs.get("x-nubo-node-id")), (str(BIG_BYTES), node_id))

        # The file: in the root, the right size, the same bytes.
        meta = tess.node(node_id)
        self.assertEqual((meta["name"], meta["size"], meta["parent_id"]), ("big-upload.bin", BIG_BYTES, tess.root))
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=600)
        try:
            conn.request("GET", "/api/v1/nodes/%s/content" % node_id, headers={"Authorization": tess.auth})
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200)
            self.assertEqual(resp.getheader("Content-Length"), str(BIG_BYTES))
            got, n = hashlib.sha256(), 0
            while True:
                piece = resp.read(4 * MiB)
                if not piece:
                    break
                got.update(piece)
                n += len(piece)
        finally:
            conn.close()
        self.assertEqual(n, BIG_BYTES)
        self.assertEqual(got.hexdigest(), want, "the stored file differs from the source")
        t_check = time.time()

        proxy.close()
        stop_and_fsck(srv)
        print("\n  %d bytes, %d cuts at %s MB, resumed at %s; file %.1f s, upload %.1f s, "
              "download+hash %.1f s, fsck %.1f s" % (
                  BIG_BYTES, len(proxy.cuts), [c // 1000000 for c in proxy.cuts],
                  [o // 1000000 for o in resumed], t_file - t0, t_upload - t_file, t_check - t_upload,
                  time.time() - t_check))


if __name__ == "__main__":
    unittest.main()
