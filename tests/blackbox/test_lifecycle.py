"""Timeouts, connection limits, graceful shutdown, start-up errors and footprint."""
import base64
import json
import os
import resource
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import pg_cluster
from harness import NUBO_BIN, Reader, Server, exchange, request


class TimeoutTest(unittest.TestCase):
    def setUp(self):
        self.srv = Server(env={"NUBO_HTTP_HEADER_TIMEOUT": "1s", "NUBO_HTTP_IDLE_TIMEOUT": "1s",
                               "NUBO_HTTP_READ_TIMEOUT": "1s"})

    def tearDown(self):
        self.assertEqual(self.srv.terminate(), 0)
        self.srv.close()

    def test_slowloris_headers_are_cut_off(self):
        # One header byte every 200 ms keeps the socket busy but never
        # finishes the head: the header deadline must close it anyway.
        with self.srv.connect() as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            start = time.time()
            closed = False
            try:
                for _ in range(50):  # would take 10 s
                    s.sendall(b"X-Drip: y\r\n"[:1])
                    time.sleep(0.2)
                    s.settimeout(0.01)
                    try:
                        if s.recv(1) == b"":
                            closed = True
                            break
                    except socket.timeout:
                        pass
            except (BrokenPipeError, ConnectionResetError):
                closed = True
            elapsed = time.time() - start
            self.assertTrue(closed, "server kept a dripping connection open")
            self.assertLess(elapsed, 4)

    def test_idle_keep_alive_connection_is_closed(self):
        with self.srv.connect() as s:
            s.sendall(request("GET", "/health"))
            r = Reader(s)
            self.assertEqual(r.response()[0], 200)
            start = time.time()
            self.assertTrue(r.closed_by_peer(timeout=5))
            self.assertLess(time.time() - start, 3)

    def test_stalled_body_is_abandoned(self):
        with self.srv.connect() as s:
            s.sendall(request("PUT", "/_test/sink", {"Content-Length": "1000"}) + b"x" * 10)
            start = time.time()
            self.assertTrue(Reader(s).closed_by_peer(timeout=5))
            self.assertLess(time.time() - start, 3)
        # The server is still healthy afterwards.
        self.assertEqual(exchange(self.srv, "GET", "/health")[0], 200)


class ConnectionLimitTest(unittest.TestCase):
    def test_connections_beyond_the_limit_get_503(self):
        srv = Server(env={"NUBO_MAX_CONNECTIONS": "2"})
        try:
            a, b = srv.connect(), srv.connect()
            for s in (a, b):  # make sure both are accepted and counted
                s.sendall(request("GET", "/health"))
                self.assertEqual(Reader(s).response()[0], 200)
            with srv.connect() as c:
                c.sendall(request("GET", "/health"))
                status, headers, body = Reader(c).response()
                self.assertEqual(status, 503)
                self.assertEqual(json.loads(body)["error"], "resource_exhausted")
            a.close()
            b.close()
            deadline = time.time() + 5
            while time.time() < deadline:  # slots free up again
                if exchange(srv, "GET", "/health")[0] == 200:
                    break
                time.sleep(0.05)
            else:
                self.fail("connection slots were never released")
            self.assertEqual(srv.terminate(), 0)
        finally:
            srv.close()


class OpenFileLimitTest(unittest.TestCase):
    def test_the_soft_limit_does_not_cap_connections(self):
        # Started the way a shell or systemd starts it, with a soft limit
        # far below the hard one: the server raises its own, so 400
        # connections with a request each are all answered (with 256
        # descriptors, accept() fails past ~240 and the rest wait).
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard != resource.RLIM_INFINITY and hard < 1024:
            self.fail("this machine's hard limit on open files is %d; the test needs 1024" % hard)
        # A PostgreSQL cluster this process starts must not inherit the low limit.
        database = pg_cluster.fresh_database() if pg_cluster.wanted() else None
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
        try:
            srv = Server(database=database)
        finally:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        conns = []
        try:
            with open("/proc/%d/limits" % srv.proc.pid) as f:
                line = next(ln for ln in f if ln.startswith("Max open files"))
            got_soft, got_hard = line.split()[3:5]
            self.assertEqual(got_soft, got_hard, line)
            self.assertIn("open files: up to %s" % got_soft, srv.log())
            for _ in range(400):
                conns.append(srv.connect(timeout=10))
            for s in conns:
                s.sendall(request("GET", "/health"))
            for s in conns:
                self.assertEqual(Reader(s).response()[0], 200)
        finally:
            for s in conns:
                s.close()
            srv.close()


class ShutdownTest(unittest.TestCase):
    def test_sigterm_lets_the_inflight_request_finish(self):
        srv = Server()
        try:
            result = {}

            def slow():
                with srv.connect(timeout=20) as s:
                    s.sendall(request("GET", "/_test/sleep?ms=1500"))
                    result["response"] = Reader(s).response()

            t = threading.Thread(target=slow)
            t.start()
            time.sleep(0.4)
            start = time.time()
            code = srv.terminate(timeout=20)
            t.join(10)
            self.assertEqual(code, 0)
            status, headers, body = result["response"]
            self.assertEqual(status, 200)
            self.assertEqual(json.loads(body), {"slept_ms": 1500})
            self.assertEqual(headers.get("connection", "").lower(), "close")
            self.assertGreater(time.time() - start, 0.8)  # it did wait for the request
            with self.assertRaises(OSError):
                socket.create_connection(("127.0.0.1", srv.port), timeout=1).close()
        finally:
            srv.close()

    def test_idle_connections_do_not_delay_shutdown(self):
        srv = Server()
        try:
            idle = srv.connect()
            idle.sendall(request("GET", "/health"))
            self.assertEqual(Reader(idle).response()[0], 200)
            start = time.time()
            self.assertEqual(srv.terminate(timeout=20), 0)
            self.assertLess(time.time() - start, 3)  # grace is 30 s: it did not wait for it
            idle.close()
        finally:
            srv.close()

    def test_grace_period_bounds_the_wait(self):
        srv = Server(env={"NUBO_SHUTDOWN_GRACE": "500ms"})
        try:
            s = srv.connect(timeout=20)
            s.sendall(request("GET", "/_test/sleep?ms=5000"))
            time.sleep(0.3)
            start = time.time()
            self.assertEqual(srv.terminate(timeout=20), 0)
            self.assertLess(time.time() - start, 4)
            s.close()
        finally:
            srv.close()


def run_nubo(args, env=None, timeout=20):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    full_env.update(env or {})
    return subprocess.run([NUBO_BIN, *args], env=full_env, capture_output=True, text=True,
                          timeout=timeout)


class FootprintTest(unittest.TestCase):
    def test_libpq_is_loaded_only_for_postgresql(self):
        # libpq brings Kerberos, LDAP, GnuTLS and more with it (about
        # 3.5 MiB resident); a server on SQLite must not map any of it,
        # and one on PostgreSQL must have it (the same binary serves both).
        def mapped(srv):
            with open("/proc/%d/maps" % srv.proc.pid) as f:
                return {os.path.basename(line.split()[-1]) for line in f if "/" in line}

        srv = Server(database="")
        try:
            self.assertEqual(exchange(srv, "GET", "/health")[0], 200)
            libs = mapped(srv)
            self.assertTrue(any(n.startswith("libsqlite3.so") for n in libs), libs)
            for lib in ("libpq.so", "libldap", "libgssapi_krb5.so", "libgnutls.so"):
                self.assertFalse(any(n.startswith(lib) for n in libs), "%s mapped: %s" % (lib, libs))
        finally:
            srv.terminate()
            srv.close()
        if pg_cluster.wanted():
            srv = Server()
            try:
                self.assertEqual(exchange(srv, "GET", "/health")[0], 200)
                self.assertTrue(any(n.startswith("libpq.so") for n in mapped(srv)))
            finally:
                srv.terminate()
                srv.close()

    def test_request_libraries_load_with_the_first_request_that_needs_them(self):
        # libjwt with libcrypto (~1.5 MiB resident) and libmagic with its
        # compression libraries are opened by the first token and the first
        # sniff, not at start; the requests that open them work at once.
        def mapped(srv):
            with open("/proc/%d/maps" % srv.proc.pid) as f:
                return {os.path.basename(line.split()[-1]) for line in f if "/" in line}

        def has(libs, prefix):
            return any(n.startswith(prefix) for n in libs)

        srv = Server(database="")
        try:
            self.assertEqual(exchange(srv, "GET", "/health")[0], 200)
            libs = mapped(srv)
            for lib in ("libcrypto.so", "libjwt.so", "libmagic.so", "liblzma.so"):
                self.assertFalse(has(libs, lib), "%s mapped at start: %s" % (lib, libs))
            body = json.dumps({"username": "lazy", "password": "password-1234"}).encode()
            js = {"Content-Type": "application/json"}
            self.assertEqual(exchange(srv, "POST", "/api/v1/setup", js, body)[0], 201)
            st, _, out = exchange(srv, "POST", "/api/v1/auth/login", js, body)
            self.assertEqual(st, 200, out)
            token = json.loads(out)["access_token"]
            st, _, out = exchange(srv, "GET", "/api/v1/me", {"Authorization": "Bearer " + token})
            self.assertEqual((st, json.loads(out)["username"]), (200, "lazy"), out)
            forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
            self.assertEqual(exchange(srv, "GET", "/api/v1/me", {"Authorization": "Bearer " + forged})[0], 401)
            libs = mapped(srv)
            self.assertTrue(has(libs, "libjwt.so") and has(libs, "libcrypto.so"), libs)
            self.assertFalse(has(libs, "libmagic.so"), libs)
            basic = {"Authorization": "Basic " + base64.b64encode(b"lazy:password-1234").decode()}
            png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90wS\xde"
            self.assertIn(exchange(srv, "PUT", "/dav/scan", basic, png)[0], (201, 204))
            st, hdr, got = exchange(srv, "GET", "/dav/scan", basic)
            self.assertEqual((st, got, hdr.get("content-type")), (200, png, "image/png"))
            self.assertTrue(has(mapped(srv), "libmagic.so"))
        finally:
            srv.terminate()
            srv.close()

    @unittest.skipIf(os.environ.get("NUBO_TEST_SANITIZED"), "ASan keeps freed memory in its quarantine")
    def test_argon2_memory_goes_back_to_the_system(self):
        # A cold Basic login runs Argon2id over 64 MiB (an unknown name
        # too, so that timing tells nothing). The peak shows it ran; the
        # resident size must fall back near where it was within seconds,
        # not keep the 64 MiB in a malloc arena.
        srv = Server(env={"NUBO_ARGON2_MEM": "64MiB"})
        try:
            self.assertEqual(exchange(srv, "GET", "/health")[0], 200)
            before = srv.status_kb("VmRSS")
            auth = "Basic " + base64.b64encode(b"nobody:not-a-password").decode()
            status = exchange(srv, "PROPFIND", "/dav/", {"Authorization": auth, "Depth": "0"})[0]
            self.assertEqual(status, 401)
            self.assertGreater(srv.status_kb("VmHWM"), before + (48 << 10), "Argon2id did not run")
            deadline, rss = time.time() + 5, srv.status_kb("VmRSS")
            while rss > before + (8 << 10) and time.time() < deadline:
                time.sleep(0.1)
                rss = srv.status_kb("VmRSS")
            self.assertLess(rss, before + (8 << 10), "RSS %d KiB after Argon2id, %d before" % (rss, before))
        finally:
            srv.terminate()
            srv.close()


class CliTest(unittest.TestCase):
    def test_version(self):
        p = run_nubo(["version"])
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, r"^nubo \d+\.\d+\.\d+")

    def test_bad_environment_value_exits_2_with_a_reason(self):
        with tempfile.TemporaryDirectory() as d:
            p = run_nubo(["serve", "--data", d], env={"NUBO_THREADS": "many"})
        self.assertEqual(p.returncode, 2)
        self.assertIn("NUBO_THREADS='many' (env)", p.stderr)

    def test_bad_listen_flag_exits_2(self):
        p = run_nubo(["serve", "--listen", "nowhere"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("server.listen", p.stderr)

    def test_config_file_errors_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "nubo.toml")
            with open(path, "w") as f:
                f.write("[http]\nmax_json_body = \"lots\"\n")
            p = run_nubo(["--config", path, "serve"])
            self.assertEqual(p.returncode, 2)
            self.assertIn("http.max_json_body='lots' (file)", p.stderr)
            with open(path, "w") as f:
                f.write("[server\n")
            p = run_nubo(["--config", path, "config"])
            self.assertEqual(p.returncode, 2)
            self.assertIn(path, p.stderr)

    def test_config_prints_sources(self):
        p = run_nubo(["--data", "/tmp/x", "config"], env={"NUBO_LISTEN": "127.0.0.1:9999"})
        self.assertEqual(p.returncode, 0)
        self.assertIn("server.listen = 127.0.0.1:9999 (env)", p.stdout)
        self.assertIn("server.data_dir = /tmp/x (flag)", p.stdout)
        self.assertIn("http.max_header_bytes = 16KiB (default)", p.stdout)

    def test_serve_prints_its_configuration(self):
        srv = Server(env={"NUBO_HTTP_IDLE_TIMEOUT": "45s"})
        try:
            self.assertIn("config http.idle_timeout = 45s (env)", srv.log())
            self.assertEqual(srv.terminate(), 0)
        finally:
            srv.close()

    def test_port_in_use_exits_1(self):
        srv = Server()
        try:
            p = run_nubo(["serve", "--listen", "127.0.0.1:%d" % srv.port, "--data",
                          os.path.join(srv.tmp.name, "other")])
            self.assertEqual(p.returncode, 1)
            self.assertIn("cannot listen on 127.0.0.1:%d" % srv.port, p.stderr)
        finally:
            srv.close()

    def test_test_routes_are_off_by_default(self):
        srv = Server(test_routes=False)
        try:
            self.assertEqual(exchange(srv, "GET", "/_test/source?bytes=1")[0], 404)
            self.assertEqual(exchange(srv, "GET", "/health")[0], 200)
        finally:
            srv.close()

    def test_user_management_from_the_shell(self):
        with tempfile.TemporaryDirectory() as d:
            data = os.path.join(d, "data")
            fast = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}

            def user(*args, stdin=None):
                env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
                env.update(fast)
                return subprocess.run([NUBO_BIN, "--data", data, "user", *args], input=stdin,
                                      capture_output=True, text=True, env=env, timeout=60)

            p = user("add", "Alice", "--admin", "--password-stdin", stdin="a long password\n")
            self.assertEqual(p.returncode, 0, p.stderr)
            p = user("add", "alice", "--password-stdin", stdin="another long one\n")
            self.assertEqual(p.returncode, 2)
            self.assertIn("already taken", p.stderr)
            p = user("add", "bob", "--password-stdin", stdin="short\n")
            self.assertEqual(p.returncode, 2)
            self.assertIn("at least 10", p.stderr)
            p = user("add", "bob")  # no --password-stdin
            self.assertEqual(p.returncode, 2)
            self.assertEqual(user("add", "bob", "--password-stdin", stdin="bob's password\n").returncode, 0)
            p = user("app-password", "bob", "--label", "phone")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r"^[0-9a-f]{48}\n$")  # the secret alone
            p = user("role", "Alice", "user")
            self.assertEqual(p.returncode, 2)
            self.assertIn("last active admin", p.stderr)
            self.assertEqual(user("disable", "bob").returncode, 0)
            p = user("list")
            self.assertEqual(p.stdout, "Alice\tadmin\tactive\nbob\tuser\tdisabled\n")
            self.assertEqual(user("passwd", "nobody", "--password-stdin", stdin="whatever long\n").returncode, 2)

    def test_migrate_fsck_gc_on_a_fresh_data_dir(self):
        with tempfile.TemporaryDirectory() as d:
            data = os.path.join(d, "data")
            p = run_nubo(["--data", data, "fsck"])
            self.assertEqual(p.returncode, 2, "fsck must refuse an unmigrated database")
            self.assertIn("nubo migrate", p.stderr)
            p = run_nubo(["--data", data, "migrate"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r"applied [1-9][0-9]* migration")
            p = run_nubo(["--data", data, "migrate"])
            self.assertIn("applied 0 migration", p.stdout)  # idempotent
            src = os.path.join(d, "f")
            with open(src, "wb") as f:
                f.write(os.urandom(300000))
            p = run_nubo(["--data", data, "debug", "put", src, "--pin", "x"])
            self.assertEqual(p.returncode, 0, p.stderr)
            digest = p.stdout.split()[0]
            p = subprocess.run([NUBO_BIN, "--data", data, "debug", "cat", digest], capture_output=True)
            with open(src, "rb") as f:
                self.assertEqual(p.stdout, f.read())
            self.assertEqual(run_nubo(["--data", data, "fsck"]).returncode, 0)
            # Corrupt one chunk file on disk: fsck must fail.
            chunk = None
            for root, _, files in os.walk(os.path.join(data, "chunks")):
                for name in files:
                    chunk = os.path.join(root, name)
            with open(chunk, "r+b") as f:
                f.seek(10)
                b = f.read(1)
                f.seek(10)
                f.write(bytes([b[0] ^ 1]))
            p = run_nubo(["--data", data, "fsck"])
            self.assertEqual(p.returncode, 1)
            self.assertIn("is corrupt", p.stdout)
            p = run_nubo(["--data", data, "gc", "--grace", "soon"])
            self.assertEqual(p.returncode, 2)
            p = run_nubo(["--data", data, "gc"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("0 chunks deleted", p.stdout)  # still referenced


if __name__ == "__main__":
    unittest.main()
