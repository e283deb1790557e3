"""Black-box harness: starts the real nubo binary on a random loopback port
with a fresh data directory, and speaks raw HTTP/1.1 to it.

Only the standard library is used so the tests run on any Debian python3.
"""
import os
import re
import signal
import socket
import subprocess
import tempfile
import time

import pg_cluster

NUBO_BIN = os.environ.get("NUBO_BIN", os.path.join(os.path.dirname(__file__), "../../build/test/nubo"))


def tool_env(database):
    """The environment for a `nubo` process: no NUBO_ settings of the test
    run's own but the metadata's database (None: SQLite in the data
    directory)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    if database:
        env["NUBO_DATABASE"] = database
    return env


class Server:
    def __init__(self, env=None, args=(), test_routes=True, node_of=None, database=None, data=None):
        """`node_of`: another Server whose data directory and database this
        one serves too (a second node). `database`: a postgres:// URL to
        use instead of SQLite or a fresh database ("" for SQLite whatever
        NUBO_TEST_POSTGRES says). `data`: a data directory to serve instead
        of a fresh one."""
        self.tmp = tempfile.TemporaryDirectory(prefix="nubo-bb-")
        self.data = node_of.data if node_of else data or os.path.join(self.tmp.name, "data")
        cmd = [NUBO_BIN, "serve", "--listen", "127.0.0.1:0", "--data", self.data, *args]
        if test_routes:
            cmd.append("--enable-test-routes")
        # The metadata in a fresh PostgreSQL database (tools run on the
        # server's data pass it along: tool_env()).
        if node_of:
            database = node_of.database
        elif database is None and pg_cluster.wanted():
            database = pg_cluster.fresh_database()
        self.database = database
        full_env = tool_env(self.database)
        full_env["NUBO_LOG_LEVEL"] = "info"
        full_env.update(env or {})
        self._cmd, self._env, self._starts = cmd, full_env, 0
        self._start()

    def _start(self):
        self._starts += 1
        self.log_path = os.path.join(self.tmp.name, "server-%d.log" % self._starts)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self._cmd, stdout=self._log, stderr=subprocess.STDOUT, env=self._env)
        self.port = self._wait_listening()

    def restart(self):
        """SIGTERM, wait, and serve the same data directory again (a new
        port and log); returns the exit code of the stopped process."""
        code = self.terminate()
        self._start()
        return code

    def _wait_listening(self, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.log())
            if m:
                return int(m.group(1))
            if self.proc.poll() is not None:
                raise RuntimeError("nubo exited early (%s):\n%s" % (self.proc.returncode, self.log()))
            time.sleep(0.02)
        raise RuntimeError("nubo did not start listening:\n" + self.log())

    def tool_env(self):
        """The environment for a `nubo` tool (fsck, gc…) on this server's
        data: no NUBO_ settings but the database."""
        return tool_env(self.database)

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def connect(self, timeout=10):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def status_kb(self, field):
        """A size from /proc/PID/status in KiB (VmRSS, VmHWM…); -1 if absent."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return -1

    def peak_rss_kb(self):
        return self.status_kb("VmHWM")

    def terminate(self, timeout=30):
        """SIGTERM, then wait; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self._log.close()

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if not self._log.closed:
            self._log.close()
        self.tmp.cleanup()


# A test that reads or edits SQLite's file itself has no PostgreSQL twin.
sqlite_only = __import__("unittest").skipIf(pg_cluster.wanted(), "reads or edits the SQLite file itself")


class Reader:
    """Reads HTTP/1.1 responses from a socket, one after another."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("connection closed by server")
        self.buf += chunk

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def response(self, head=False):
        """Returns (status, headers with lower-case names, body)."""
        status_line = self._line().decode()
        status = int(status_line.split(" ")[1])
        headers = {}
        while True:
            line = self._line()
            if not line:
                break
            k, v = line.decode().split(":", 1)
            k = k.strip().lower()
            # Repeated fields (Set-Cookie) are kept, one per line.
            headers[k] = headers[k] + "\n" + v.strip() if k in headers else v.strip()
        if head or status in (204, 304) or status < 200:
            return status, headers, b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self._line().split(b";")[0], 16)
                if size == 0:
                    while self._line():
                        pass
                    return status, headers, body
                body += self._exact(size)
                self._exact(2)
        if "content-length" in headers:
            return status, headers, self._exact(int(headers["content-length"]))
        body = self.buf
        self.buf = b""
        while True:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return status, headers, body
            body += chunk

    def closed_by_peer(self, timeout=5):
        """True when the server closes (EOF or reset) within `timeout`."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False


def request(method, path, headers=None, body=b""):
    lines = ["%s %s HTTP/1.1" % (method, path), "Host: 127.0.0.1"]
    for k, v in (headers or {}).items():
        lines.append("%s: %s" % (k, v))
    if body and not any(k.lower() in ("content-length", "transfer-encoding") for k in (headers or {})):
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def exchange(server, method, path, headers=None, body=b""):
    with server.connect() as s:
        s.sendall(request(method, path, headers, body))
        return Reader(s).response(head=(method == "HEAD"))


def metric(server, name):
    """The value of an unlabelled counter or gauge in the server's
    /metrics; fails when the server does not report it."""
    text = exchange(server, "GET", "/metrics")[2].decode()
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    assert m, "no %s in /metrics" % name
    return int(m.group(1))
