#!/usr/bin/env python3
"""nubo's benchmark harness: starts nubo and a peer on loopback, drives both
with the same load in alternating rounds, and prints one table per scenario
with the ratio nubo/peer measured in the same run.

Usage: bench.py SCENARIO [--quick] [--rounds N] [--duration SECONDS] ...
Scenarios: all (health + the peer suite), peers, s1 .. s8 (the peer suite in suite.py: nubo vs
           Apache mod_dav, nginx + dav-ext, lighttpd, rclone, sabre/dav; see bench/README.md)
           health (keep-alive GET /health, 64 connections; peer: nginx static file)
           storage (1 GiB ingest and read; peers: b3sum, dd, cat)
           files (REST API: listing pages flat in depth; streamed 1 GiB PUT/GET; peers: b3sum, cat)
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUBO = os.environ.get("NUBO_BENCH_BIN") or os.environ.get("NUBO_BIN") or os.path.join(ROOT, "build/release/nubo")
LUA = os.path.join(ROOT, "bench/wrk_report.lua")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on %d" % port)


def peak_rss_kib(pids):
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def child_pids(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


class Nubo:
    name = "nubo"

    def __init__(self, tmp, env=None, binary=None):
        """env: extra variables for the server (the caller's NUBO_* are dropped);
        binary: another build than NUBO (an A/B's BEFORE)."""
        self.port = free_port()
        self.log_path = os.path.join(tmp, "nubo-%d.log" % self.port)
        self.log = open(self.log_path, "wb")
        extra = env or {}
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
        env.update(extra)
        self.proc = subprocess.Popen(
            [binary or NUBO, "serve", "--listen", "127.0.0.1:%d" % self.port, "--data", os.path.join(tmp, "nubo-data")],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        wait_port(self.port)

    def pids(self):
        return [self.proc.pid]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        self.log.close()


class Nginx:
    name = "nginx"
    CONF = """
worker_processes auto;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log;
events {{ worker_connections 4096; }}
http {{
  access_log {tmp}/nginx-access.log;
  client_body_temp_path {tmp}/body;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{port};
    root {tmp}/www;
    location = /health {{ default_type application/json; }}
  }}
}}
"""

    def __init__(self, tmp, body):
        self.port = free_port()
        os.makedirs(os.path.join(tmp, "www"), exist_ok=True)
        with open(os.path.join(tmp, "www", "health"), "wb") as f:
            f.write(body)
        conf = os.path.join(tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(self.CONF.format(tmp=tmp, port=self.port))
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([nginx, "-c", conf, "-e", os.path.join(tmp, "nginx-error.log")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def pids(self):
        return [self.proc.pid] + child_pids(self.proc.pid)

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)
        self.proc.wait(timeout=30)


def wrk(url, duration, connections=64, threads=2):
    out = subprocess.run(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % duration,
                          "-s", LUA, url], capture_output=True, text=True).stdout
    m = re.search(r"^RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)$", out, re.M)
    if not m:
        raise RuntimeError("wrk printed no RESULT line:\n" + out)
    return {"requests": int(m.group(1)), "errors": int(m.group(2)), "p50": float(m.group(3)),
            "p95": float(m.group(4)), "p99": float(m.group(5)), "rps": float(m.group(6))}


def fetch(port, path):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
        data = b""
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
    head, body = data.split(b"\r\n\r\n", 1)
    return int(head.split(b" ")[1]), body


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def scenario_health(args):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-")
    os.chmod(tmp, 0o755)  # nginx workers run as www-data
    try:
        nubo = Nubo(tmp)
        status, body = fetch(nubo.port, "/health")
        assert status == 200, status
        nginx = Nginx(tmp, body)
        # Equivalence gate: both answer 200 with the same bytes.
        status2, body2 = fetch(nginx.port, "/health")
        if (status2, body2) != (status, body):
            raise SystemExit("equivalence gate failed: nginx answered %r %r" % (status2, body2))
        servers = [nubo, nginx]
        results = {s.name: [] for s in servers}
        for s in servers:  # warm-up
            wrk("http://127.0.0.1:%d/health" % s.port, 2)
        for _ in range(args.rounds):
            for s in servers:
                results[s.name].append(wrk("http://127.0.0.1:%d/health" % s.port, args.duration))
        rss = {s.name: peak_rss_kib(s.pids()) for s in servers}
        for s in servers:
            s.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nscenario health: keep-alive GET /health (%d bytes), wrk -t2 -c64, %d rounds x %ds, "
          "median of rounds; load before: %s" % (len(body), args.rounds, args.duration, args.load))
    print("| server | p50 ms | p95 ms | p99 ms | req/s | errors | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    med = {}
    for name, rs in results.items():
        med[name] = {k: statistics.median(r[k] for r in rs) for k in ("p50", "p95", "p99", "rps")}
        errors = sum(r["errors"] for r in rs)
        print("| %s | %.3f | %.3f | %.3f | %.0f | %d | %.1f |" % (
            name, med[name]["p50"], med[name]["p95"], med[name]["p99"], med[name]["rps"], errors,
            rss[name] / 1024))
        med[name] = {"p50_ms": med[name]["p50"], "p95_ms": med[name]["p95"], "p99_ms": med[name]["p99"],
                     "rps": med[name]["rps"], "errors": errors, "peak_rss_mib": rss[name] / 1024}
    ratio = med["nubo"]["rps"] / med["nginx"]["rps"]
    med["nginx"]["ratio"] = {"rps": round(ratio, 4)}
    print("ratio nubo/nginx req/s: %.2f (target >= 0.80)  per round: %s" % (
        ratio, ", ".join("%.2f" % (a["rps"] / b["rps"]) for a, b in zip(results["nubo"], results["nginx"]))))
    return med


def timed(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd under /usr/bin/time; returns (seconds, peak RSS KiB, stdout text or None).
    (wait4's ru_maxrss would count the harness's own pages the child had before exec.)"""
    out = subprocess.PIPE if stdout is None else stdout
    fd, rss_path = tempfile.mkstemp(prefix="nubo-rss-")
    os.close(fd)
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%M", "-o", rss_path] + cmd, stdout=out,
                         env={k: v for k, v in os.environ.items() if not k.startswith("NUBO_")})
    text = p.stdout.read().decode() if out == subprocess.PIPE else None
    p.wait()
    dt = time.perf_counter() - t0
    with open(rss_path) as f:
        rss = int(f.read().split()[-1])
    os.unlink(rss_path)
    if p.returncode != 0:
        raise SystemExit("%s failed" % " ".join(cmd))
    return dt, rss, text


class FreshFs:
    """A new ext4 on a loop device for the run (TARGETS.md: file creation on
    the VM's root file system swings by 30x from folder to folder)."""

    def __init__(self, size):
        self.img = tempfile.mktemp(prefix="nubo-bench-", suffix=".img")
        self.mnt = tempfile.mkdtemp(prefix="nubo-bench-mnt-")
        subprocess.run(["truncate", "-s", str(size), self.img], check=True)
        subprocess.run(["mkfs.ext4", "-q", "-F", self.img], check=True)
        subprocess.run(["mount", "-o", "loop", self.img, self.mnt], check=True)

    def close(self):
        for _ in range(40):  # a server's last process may still be exiting
            if subprocess.run(["umount", self.mnt], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.25)
        os.rmdir(self.mnt)
        os.unlink(self.img)


def scenario_storage(args):
    """1 GiB ingest (chunk + hash + durable write) vs b3sum, and read vs cat."""
    size = args.storage_bytes
    fresh = None
    where = args.tmpdir
    if where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4"):
        fresh = FreshFs(4 * size + (1 << 30))
        where = fresh.mnt
    tmp = tempfile.mkdtemp(prefix="nubo-bench-", dir=where)
    try:
        src = os.path.join(tmp, "input.bin")
        with open(src, "wb") as f, open("/dev/urandom", "rb") as r:
            left = size
            while left:
                n = min(left, 1 << 24)
                f.write(r.read(n))
                left -= n
        b3 = {"ingest": [], "ingest_per_chunk": [], "read": [], "b3sum": [], "b3sum1": [], "cat": [],
              "dd": []}
        rss = {"ingest": 0, "read": 0}
        want = subprocess.run(["b3sum", "--no-names", src], capture_output=True, text=True).stdout.strip()
        got_hash = None
        for rnd in range(args.rounds):
            data = os.path.join(tmp, "data%d" % rnd)
            dt, _, _ = timed(["b3sum", "--no-names", src])
            b3["b3sum"].append(dt)
            dt, _, _ = timed(["b3sum", "--no-names", "--num-threads", "1", src])
            b3["b3sum1"].append(dt)
            # Physical reference: copy the file and fsync it once.
            dt, _, _ = timed(["dd", "if=" + src, "of=" + os.path.join(tmp, "dd.out"), "bs=1M", "conv=fsync",
                              "status=none"])
            b3["dd"].append(dt)
            os.unlink(os.path.join(tmp, "dd.out"))
            # BEFORE: every chunk fsync'd on its own (file + directory).
            dt, _, out = timed([NUBO, "--data", data + "-pc", "debug", "put", src, "--pin", "bench",
                                "--per-chunk-sync"], stdout=None)
            b3["ingest_per_chunk"].append(dt)
            shutil.rmtree(data + "-pc", ignore_errors=True)
            # AFTER: chunks staged and made durable per 64 MiB batch.
            dt, peak, out = timed([NUBO, "--data", data, "debug", "put", src, "--pin", "bench"], stdout=None)
            got_hash = out.split()[0]
            b3["ingest"].append(dt)
            rss["ingest"] = max(rss["ingest"], peak)
            dt, _, _ = timed(["cat", src])
            b3["cat"].append(dt)
            timed([NUBO, "--data", data, "debug", "cat", got_hash])  # warm the page cache as for cat
            dt, peak, _ = timed([NUBO, "--data", data, "debug", "cat", got_hash])
            b3["read"].append(dt)
            rss["read"] = max(rss["read"], peak)
            shutil.rmtree(data, ignore_errors=True) if rnd + 1 < args.rounds else None
        # Equivalence gate: the manifest hash is b3sum's, and the bytes read back hash the same.
        if got_hash != want:
            raise SystemExit("equivalence gate failed: nubo %s vs b3sum %s" % (got_hash, want))
        cat = subprocess.Popen([NUBO, "--data", data, "debug", "cat", got_hash], stdout=subprocess.PIPE)
        back = subprocess.run(["b3sum", "--no-names"], stdin=cat.stdout, capture_output=True, text=True).stdout.strip()
        cat.wait()
        if back != want:
            raise SystemExit("equivalence gate failed: read-back hash %s vs %s" % (back, want))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if fresh:
            fresh.close()
    med = {k: statistics.median(v) for k, v in b3.items()}
    gb = size / 1e9
    print("\nscenario storage: %d MiB random file, %d rounds, median; load before: %s; data dir on %s"
          % (size >> 20, args.rounds, args.load, "a fresh ext4 loop device" if fresh else where or tempfile.gettempdir()))
    print("| operation | seconds | GB/s | peak RSS MiB |")
    print("|---|---|---|---|")
    print("| nubo ingest (FastCDC + BLAKE3 + fsync'd chunks + SQLite commit) | %.3f | %.2f | %.1f |"
          % (med["ingest"], gb / med["ingest"], rss["ingest"] / 1024))
    print("| nubo ingest, BEFORE: fsync per chunk | %.3f | %.2f | |"
          % (med["ingest_per_chunk"], gb / med["ingest_per_chunk"]))
    print("| dd write + one fsync (the disk's ceiling) | %.3f | %.2f | |" % (med["dd"], gb / med["dd"]))
    print("| b3sum (all cores) | %.3f | %.2f | |" % (med["b3sum"], gb / med["b3sum"]))
    print("| b3sum --num-threads 1 | %.3f | %.2f | |" % (med["b3sum1"], gb / med["b3sum1"]))
    print("| nubo read (manifest → chunks → stdout) | %.3f | %.2f | %.1f |"
          % (med["read"], gb / med["read"], rss["read"] / 1024))
    print("| cat file > /dev/null | %.3f | %.2f | |" % (med["cat"], gb / med["cat"]))
    print("ratio ingest batched/per-chunk (AFTER/BEFORE speed-up): %.2f" % (med["ingest_per_chunk"] / med["ingest"]))
    print("ratio ingest/dd: %.2f" % (med["dd"] / med["ingest"]))
    print("ratio ingest/b3sum: %.2f (target >= 0.5); ingest/b3sum-1-thread: %.2f; read/cat: %.2f (target >= 0.8)"
          % (med["b3sum"] / med["ingest"], med["b3sum1"] / med["ingest"], med["cat"] / med["read"]))


# ----------------------------------------------------------------------------
# files: the REST API (/api/v1) — listing pages flat in depth, streamed big
# uploads and downloads.

FAST_ARGON2 = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}  # setup and the first Basic auth stay cheap
# An A/B pair times a request path: no background jobs (text extraction of
# the seeded files, one helper process per file for minutes) compete with it
# on both servers at once.
AB_ENV = dict(FAST_ARGON2, NUBO_JOBS_WORKERS="0")
API = "/api/v1"
ADMIN = ("root", "bench password!")
MiB = 1 << 20


class ServerError(Exception):
    """The server answered something the contract does not allow."""


class Api:
    """One keep-alive HTTP/1.1 connection to nubo's REST API with Basic auth."""

    def __init__(self, port, user, password):
        self.port = port
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.conn = None

    def connect(self):
        self.close()
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        self.conn.connect()
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.conn

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None

    def _conn(self):
        return self.conn or self.connect()

    def _done(self, resp):
        if resp.will_close:
            self.close()

    def raw(self, method, path, body=None, headers=None, auth=True):
        """(status, body bytes); `path` is below /api/v1."""
        h = {"Authorization": self.auth} if auth else {}
        h.update(headers or {})
        for attempt in (0, 1):
            conn = self._conn()
            try:
                conn.request(method, API + path, body=body, headers=h)
                resp = conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection (its idle
                # timeout) as this request went out: once more on a new one.
                self.close()
                if attempt or method not in ("GET", "HEAD", "PUT", "DELETE"):
                    raise
                continue
            data = resp.read()
            self._done(resp)
            return resp.status, data

    def call(self, method, path, body=None, headers=None, expect=200, auth=True):
        """JSON in, JSON out; a status other than `expect` is a ServerError."""
        h = dict(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        status, data = self.raw(method, path, body, h, auth=auth)
        if status != expect:
            raise ServerError("%s %s answered %d (expected %d): %r" % (method, API + path, status, expect, data[:500]))
        return json.loads(data) if data else None

    def put_file(self, path, src, size):
        """Streamed PUT of `src` (Content-Length, 1 MiB pieces): (status, body)."""
        conn = self._conn()
        conn.putrequest("PUT", API + path, skip_accept_encoding=True)
        conn.putheader("Authorization", self.auth)
        conn.putheader("Content-Type", "application/octet-stream")
        conn.putheader("Content-Length", str(size))
        conn.endheaders()
        buf = bytearray(MiB)
        view = memoryview(buf)
        with open(src, "rb") as f:
            while True:
                n = f.readinto(buf)
                if not n:
                    break
                conn.send(view[:n])
        resp = conn.getresponse()
        data = resp.read()
        self._done(resp)
        return resp.status, data

    def get_content(self, node_id, digest=None):
        """Streamed GET of a file's bytes in 1 MiB pieces, fed to `digest` (a
        hashlib object) on the fly when given: (status, bytes received)."""
        conn = self._conn()
        conn.request("GET", API + "/nodes/%s/content" % node_id, headers={"Authorization": self.auth})
        resp = conn.getresponse()
        if resp.status != 200:
            data = resp.read()
            self._done(resp)
            raise ServerError("GET content answered %d: %r" % (resp.status, data[:500]))
        buf = bytearray(MiB)
        view = memoryview(buf)
        total = 0
        while True:
            n = resp.readinto(view)
            if not n:
                break
            if digest is not None:
                digest.update(view[:n])
            total += n
        self._done(resp)
        return resp.status, total


def multipart_body(parts):
    """parts: [(filename, bytes)] → (content type, body)."""
    boundary = "nubo-bench-" + os.urandom(12).hex()
    b = boundary.encode()
    out = []
    for filename, data in parts:
        out.append(b"--" + b + b'\r\nContent-Disposition: form-data; name="file"; filename="' +
                   filename.encode() + b'"\r\nContent-Type: application/octet-stream\r\n\r\n' + data + b"\r\n")
    out.append(b"--" + b + b"--\r\n")
    return "multipart/form-data; boundary=" + boundary, b"".join(out)


def listing_specs(n, seed):
    """n (name, bytes) pairs: ASCII names of 1..60 characters (mixed case,
    so the case-folded sort key matters), unique case-insensitively, and
    0..2000 random bytes each; the same for the same seed."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "-_"
    exts = ("", ".txt", ".jpg", ".pdf", ".tar.gz", ".md", ".json", ".JPG")
    seen, out = set(), []
    while len(out) < n:
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 52))) + rng.choice(exts)
        if name.casefold() in seen:
            continue
        seen.add(name.casefold())
        out.append((name, rng.randbytes(rng.randint(0, 2000))))
    return out


def pct(xs, q):
    """Nearest-rank percentile q (0..100) of xs."""
    s = sorted(xs)
    return s[max(0, min(len(s) - 1, -(-len(s) * q // 100) - 1))]


def reset_hwm(pid):
    """Resets the process's VmHWM to its current RSS (clear_refs 5, Linux >= 4.0)."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def rss_breakdown_kib(pid):
    """Current (anonymous, file-backed, of which magic.mgc mappings) RSS in KiB:
    VmHWM counts shared clean file pages once per mapping."""
    anon = file_ = magic = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                anon = int(line.split()[1])
            elif line.startswith("RssFile:"):
                file_ = int(line.split()[1])
    cur = ""
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if not parts[0].endswith(":"):
                cur = parts[5] if len(parts) > 5 else ""
            elif parts[0] == "Rss:" and cur.endswith("/magic.mgc"):
                magic += int(parts[1])
    return anon, file_, magic


def natural_key(name):
    import icu_order  # ctypes into libicu, loaded on first use
    return icu_order.natural_key(name)


LIST_SORTS = (
    # label, query, key of an item as the server must order it (natural: ICU root, numeric, secondary;
    # bench/icu_order.py), reverse
    ("name asc", "", lambda n: natural_key(n["name"]), False),
    ("size asc", "&sort=size", lambda n: (n["size"], natural_key(n["name"])), False),
    ("modified desc", "&sort=modified&order=desc", lambda n: (n["modified"], natural_key(n["name"])), True),
)
# The order of builds before natural order (case-folded bytes), for listing-order-ab's BEFORE.
LIST_SORTS_CASEFOLD = (
    ("name asc", "", lambda n: n["name"].casefold(), False),
    ("size asc", "&sort=size", lambda n: (n["size"], n["name"].casefold()), False),
    ("modified desc", "&sort=modified&order=desc", lambda n: (n["modified"], n["name"].casefold()), True),
)
PAGE_LIMIT = 200


def files_listing(api, root, args, settle=None):
    """`settle`: called between creating the files and timing the listings
    (the suite waits there until the server's background jobs are done)."""
    n = args.list_entries
    folder = api.call("POST", "/nodes/%s/folders" % root, {"name": "listing"}, expect=201)["id"]
    specs = listing_specs(n, args.seed)
    want_size = {name: len(data) for name, data in specs}
    t0 = time.perf_counter()
    for i in range(0, n, 1000):
        batch = specs[i:i + 1000]
        ctype, body = multipart_body(batch)
        got = api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})["items"]
        if len(got) != len(batch):
            raise ServerError("multipart upload of %d files answered %d items" % (len(batch), len(got)))
        for (name, data), item in zip(batch, got):
            if item.get("status") != 201 or item["node"]["name"] != name or item["node"]["size"] != len(data):
                raise ServerError("multipart item for %r: %r" % (name, item))
    create_s = time.perf_counter() - t0
    if settle:
        settle()

    pages = max(1, -(-n // PAGE_LIMIT))
    far = min(100, pages)  # the "page 100" of the target, or the last page when there are fewer
    names = [name for name, _ in specs]
    results = {}
    for label, query, key, reverse in LIST_SORTS:
        base = "/nodes/%s/children?limit=%d%s" % (folder, PAGE_LIMIT, query)
        # Equivalence gate: one walk over all pages, every name once, in order.
        items, cursor, page_no, far_cursor, far_page = [], None, 0, None, None
        while True:
            page = api.call("GET", base + ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
            page_no += 1
            if page_no == far:
                far_cursor, far_page = cursor, [it["id"] for it in page["items"]]
            if page["next_cursor"] and len(page["items"]) != PAGE_LIMIT:
                raise ServerError("%s: page %d has %d items and a next cursor" % (label, page_no, len(page["items"])))
            items += page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                break
        got = [it["name"] for it in items]
        if len(got) != n or set(got) != set(names) or len(set(got)) != n:
            raise SystemExit("equivalence gate failed (%s): %d items, %d distinct, %d of %d created names" % (
                label, len(got), len(set(got)), len(set(got) & set(names)), n))
        if any(it["kind"] != "file" or it["size"] != want_size[it["name"]] for it in items):
            raise SystemExit("equivalence gate failed (%s): a kind or size differs from what was uploaded" % label)
        keys = [key(it) for it in items]
        if keys != sorted(keys, reverse=reverse):
            bad = next(i for i in range(1, len(keys)) if (keys[i] < keys[i - 1]) != reverse and keys[i] != keys[i - 1])
            raise SystemExit("equivalence gate failed (%s): out of order at %d: %r then %r" % (
                label, bad, keys[bad - 1], keys[bad]))
        if page_no != pages:
            raise SystemExit("equivalence gate failed (%s): %d pages, expected %d" % (label, page_no, pages))
        # Timing: page 1 and page `far` (its cursor reused), interleaved on this connection.
        paths = (base, base + ("&cursor=" + urllib.parse.quote(far_cursor, safe="") if far_cursor else ""))
        times = ([], [])
        conn = api._conn()
        hdrs = {"Authorization": api.auth}
        for rep in range(args.list_reps):
            for which in (0, 1):
                t = time.perf_counter()
                conn.request("GET", API + paths[which], headers=hdrs)
                resp = conn.getresponse()
                data = resp.read()
                times[which].append((time.perf_counter() - t) * 1000)
                if resp.status != 200 or resp.will_close:
                    raise ServerError("%s page %s answered %d (will_close %s): %r" % (
                        label, (1, far)[which], resp.status, resp.will_close, data[:300]))
                if rep == 0:
                    ids = [it["id"] for it in json.loads(data)["items"]]
                    want = [it["id"] for it in items[:PAGE_LIMIT]] if which == 0 else far_page
                    if ids != want:
                        raise SystemExit("equivalence gate failed (%s): page %d differs from the walk's" % (
                            label, (1, far)[which]))
        results[label] = times
    return create_s, far, results


def write_random(path, size):
    """Fresh random bytes (so no round dedups against another): sha256 hex.
    Synced before it returns: the source stands for a client's file on
    another machine, and its write-back must not land in the timed upload
    (nubo's batch syncs are per file system and would wait for it)."""
    h = hashlib.sha256()
    with open(path, "wb") as f, open("/dev/urandom", "rb") as r:
        left = size
        while left:
            b = r.read(min(left, 1 << 24))
            h.update(b)
            f.write(b)
            left -= len(b)
        f.flush()
        os.fsync(f.fileno())
    return h.hexdigest()


def files_big(api, root, nubo, tmp, args):
    size = args.files_bytes
    src = os.path.join(tmp, "input.bin")
    m = {"upload": [], "download": [], "b3sum": [], "cat": []}
    rss, parts = [], []
    hwm_reset = True
    for rnd in range(args.rounds):
        want_sha = write_random(src, size)
        dt, _, out = timed(["b3sum", "--no-names", src], stdout=None)
        want_b3 = out.split()[0]
        m["b3sum"].append(dt)
        dt, _, _ = timed(["cat", src])
        m["cat"].append(dt)
        hwm_reset = reset_hwm(nubo.proc.pid) and hwm_reset
        t = time.perf_counter()
        status, body = api.put_file("/nodes/%s/files/big-%d.bin" % (root, rnd), src, size)
        m["upload"].append(time.perf_counter() - t)
        if status != 201:
            raise ServerError("PUT big-%d.bin answered %d: %r" % (rnd, status, body[:500]))
        node = json.loads(body)
        if node.get("size") != size or node.get("hash") != want_b3:
            raise SystemExit("equivalence gate failed: node size %r hash %r vs %d bytes, b3sum %s" % (
                node.get("size"), node.get("hash"), size, want_b3))
        digest = None if args.no_download_hash else hashlib.sha256()
        t = time.perf_counter()
        _, got = api.get_content(node["id"], digest)
        m["download"].append(time.perf_counter() - t)
        if got != size or (digest is not None and digest.hexdigest() != want_sha):
            raise SystemExit("equivalence gate failed: downloaded %d bytes, sha256 %s vs %d bytes, %s" % (
                got, digest.hexdigest() if digest else "-", size, want_sha))
        rss.append(peak_rss_kib([nubo.proc.pid]))
        parts.append(rss_breakdown_kib(nubo.proc.pid))
    return m, rss, parts, hwm_reset


def client_sha256_mbps():
    """The harness's own hashing speed: the ceiling the hashed download sees."""
    b = os.urandom(MiB)
    h = hashlib.sha256()
    t = time.perf_counter()
    for _ in range(256):
        h.update(b)
    return 256 * MiB / 1e6 / (time.perf_counter() - t)


def scenario_files(args):
    fresh = None
    where = args.tmpdir
    if where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4"):
        # input + every round's stored copy + chunk staging, plus the listing's tiny files and SQLite.
        fresh = FreshFs((args.rounds + 2) * args.files_bytes + args.list_entries * 16384 + (1 << 30))
        where = fresh.mnt
    tmp = tempfile.mkdtemp(prefix="nubo-bench-", dir=where)
    nubo = None
    try:
        nubo = Nubo(tmp, env=FAST_ARGON2)
        api = Api(nubo.port, *ADMIN)
        api.call("POST", "/setup", {"username": ADMIN[0], "password": ADMIN[1]}, expect=201, auth=False)
        root = api.call("GET", "/drives")["drives"][0]["root_id"]
        create_s, far, listing = files_listing(api, root, args)
        rss_listing = peak_rss_kib([nubo.proc.pid])
        big, rss, parts, hwm_reset = files_big(api, root, nubo, tmp, args)
        api.close()
        nubo.stop()
        if nubo.proc.returncode != 0:
            raise ServerError("nubo exited with %d on SIGTERM" % nubo.proc.returncode)
    except (ServerError, http.client.HTTPException, OSError) as e:
        log = ""
        if nubo:
            if nubo.proc.poll() is None:
                nubo.stop()
            with open(nubo.log_path, "rb") as f:
                log = f.read()[-4000:].decode("utf-8", "replace")
        raise SystemExit("files scenario: the server misbehaved: %s: %s\nnubo exit code: %s\n--- nubo.log tail ---\n%s"
                         % (type(e).__name__, e, nubo.proc.returncode if nubo else None, log))
    finally:
        if nubo and nubo.proc.poll() is None:
            nubo.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        if fresh:
            fresh.close()

    on = "a fresh ext4 loop device" if fresh else where or tempfile.gettempdir()
    print("\nscenario files, listing: one folder of %d files (multipart, 1000 per request: %.1f s, %.0f files/s), "
          "GET children?limit=%d on one keep-alive connection, page 1 vs page %d (cursor reused), %d reps "
          "interleaved; load before: %s; data dir on %s"
          % (args.list_entries, create_s, args.list_entries / create_s, PAGE_LIMIT, far, args.list_reps, args.load, on))
    print("| sort | page | p50 ms | p95 ms | p99 ms | p50 page %d / page 1 |" % far)
    print("|---|---|---|---|---|---|")
    ratios = {}
    for label, (t1, tf) in listing.items():
        ratios[label] = pct(tf, 50) / pct(t1, 50)
        print("| %s | 1 | %.3f | %.3f | %.3f | |" % (label, pct(t1, 50), pct(t1, 95), pct(t1, 99)))
        print("| %s | %d | %.3f | %.3f | %.3f | %.2f |" % (label, far, pct(tf, 50), pct(tf, 95), pct(tf, 99),
                                                         ratios[label]))
    worst = max(max(pct(t1, 50), pct(tf, 50)) for t1, tf in listing.values())
    ok = all(0.8 <= r <= 1.2 for r in ratios.values()) and worst <= 2.0
    print("targets: ratio within 0.80..1.20 and p50 <= 2 ms per page: %s (worst p50 %.3f ms)%s"
          % ("met" if ok else "NOT met", worst,
             "" if far == 100 else "; only %d pages here, so page %d stands in for page 100" % (far, far)))
    print("gate: each sort's walk returned every name once, in natural order (ICU root collator, numeric, "
          "secondary strength: bench/icu_order.py)")

    med = {k: statistics.median(v) for k, v in big.items()}
    mb = args.files_bytes / 1e6
    rate = {k: mb / v for k, v in med.items()}
    print("\nscenario files, large file: %d MiB random file (fresh each round), %d rounds, median; "
          "streamed PUT and GET on one keep-alive connection, 1 MiB pieces%s; load before: %s; data dir on %s"
          % (args.files_bytes >> 20, args.rounds,
             "" if args.no_download_hash else ", GET hashed with sha256 on the fly (client sha256: %.0f MB/s)"
             % client_sha256_mbps(), args.load, on))
    print("| operation | seconds | MB/s | peak RSS MiB |")
    print("|---|---|---|---|")
    print("| nubo PUT /nodes/{root}/files/big-N.bin | %.3f | %.0f | %.1f |" % (med["upload"], rate["upload"],
                                                                           max(rss) / 1024))
    print("| nubo GET /nodes/{id}/content | %.3f | %.0f | (same) |" % (med["download"], rate["download"]))
    print("| b3sum (all cores) | %.3f | %.0f | |" % (med["b3sum"], rate["b3sum"]))
    print("| cat file > /dev/null | %.3f | %.0f | |" % (med["cat"], rate["cat"]))
    print("ratio upload/b3sum: %.2f; download/cat: %.2f; server peak RSS during upload+download (VmHWM%s, max of "
          "rounds): %.1f MiB (target < 64; per round: %s; after the listing phase: %.1f MiB)"
          % (rate["upload"] / rate["b3sum"], rate["download"] / rate["cat"],
             " reset before each upload" if hwm_reset else " since start: clear_refs refused", max(rss) / 1024,
             ", ".join("%.1f" % (r / 1024) for r in rss), rss_listing / 1024))
    anon, file_, magic = (max(p[i] for p in parts) / 1024 for i in range(3))
    print("server RSS after the last transfer (max of rounds): anonymous %.1f MiB, file-backed %.1f MiB, of which "
          "/usr/lib/file/magic.mgc mappings %.1f MiB" % (anon, file_, magic))
    print("gate: each upload's node hash equals b3sum of the input%s"
          % ("" if args.no_download_hash else "; each download's sha256 equals the input's"))



class AbPair:
    """Two builds serving one data directory at once: BEFORE (--before)
    creates and seeds it, then AFTER (the binary under test) starts on the
    same directory (applying any new migration). Requests then alternate
    between them (the order flips every repetition), so both see the same
    machine state; every pair of answers must be byte-identical (the
    equivalence gate)."""

    def __init__(self, args, seed, separate=False):
        """separate: each build seeds and serves its own data directory
        (for changes to the stored order or format, where the builds cannot
        share one database nor answer byte for byte alike)."""
        if separate:
            self._init_separate(args, seed)
            return
        if not args.before or not os.path.exists(args.before):
            raise SystemExit("%s needs --before BINARY (the build to compare against)" % args.scenario)
        global NUBO
        self.after_bin, self.before_bin = NUBO, args.before
        self.tmp = tempfile.mkdtemp(prefix="nubo-bench-ab-", dir=args.tmpdir)
        self.servers = []
        try:
            NUBO = self.before_bin
            try:
                before = Nubo(self.tmp, env=AB_ENV)
            finally:
                NUBO = self.after_bin
            self.servers.append(before)
            api = Api(before.port, *ADMIN)
            api.call("POST", "/setup", {"username": ADMIN[0], "password": ADMIN[1]}, expect=201, auth=False)
            self.root = api.call("GET", "/drives")["drives"][0]["root_id"]
            self.seeded = seed(api, self.root)
            api.close()
            # Seeding leaves BEFORE's process warm in ways a fresh one is
            # not (measured: the same binary on both sides read 1.3-1.7x
            # slower as the second-started server), so BEFORE restarts: both
            # serve from fresh processes. (BEFORE first: it would refuse a
            # database AFTER has migrated past it.)
            before.stop()
            NUBO = self.before_bin
            try:
                self.servers = [Nubo(self.tmp, env=AB_ENV)]
            finally:
                NUBO = self.after_bin
            self.servers.insert(0, Nubo(self.tmp, env=AB_ENV))  # [AFTER, BEFORE]
            self.apis = [Api(srv.port, *ADMIN) for srv in self.servers]
        except BaseException:
            self.close()
            raise

    def _init_separate(self, args, seed):
        global NUBO
        if not args.before or not os.path.exists(args.before):
            raise SystemExit("%s needs --before BINARY (the build to compare against)" % args.scenario)
        self.after_bin, self.before_bin = NUBO, args.before
        self.tmp = tempfile.mkdtemp(prefix="nubo-bench-ab-", dir=args.tmpdir)
        self.servers = []
        dirs = [os.path.join(self.tmp, "after"), os.path.join(self.tmp, "before")]
        self.seeded = [None, None]  # [AFTER, BEFORE]
        self.seed_s = [None, None]
        try:
            for which, binary in ((1, self.before_bin), (0, self.after_bin)):
                os.makedirs(dirs[which])
                NUBO = binary
                try:
                    srv = Nubo(dirs[which], env=AB_ENV)
                finally:
                    NUBO = self.after_bin
                try:
                    api = Api(srv.port, *ADMIN)
                    api.call("POST", "/setup", {"username": ADMIN[0], "password": ADMIN[1]}, expect=201,
                             auth=False)
                    root = api.call("GET", "/drives")["drives"][0]["root_id"]
                    t0 = time.perf_counter()
                    self.seeded[which] = seed(api, root)
                    self.seed_s[which] = time.perf_counter() - t0
                    api.close()
                finally:
                    srv.stop()
            # Both serve from fresh processes (see __init__).
            for which, binary in ((1, self.before_bin), (0, self.after_bin)):
                NUBO = binary
                try:
                    self.servers.append(Nubo(dirs[which], env=AB_ENV))
                finally:
                    NUBO = self.after_bin
            self.servers.reverse()  # [AFTER, BEFORE]
            self.apis = [Api(srv.port, *ADMIN) for srv in self.servers]
        except BaseException:
            self.close()
            raise

    def alternate(self, reps, method, path, body=None, headers=None, expect=200, what="", same=None):
        """Times `reps` requests on each build; returns (BEFORE ms list, AFTER
        ms list). `path` may be a pair (AFTER's, BEFORE's); `same(after_body,
        before_body)` replaces the byte-identity gate."""
        paths = path if isinstance(path, tuple) else (path, path)
        times = ([], [])
        conns = [a._conn() for a in self.apis]
        for rep in range(reps):
            bodies = []
            for which in ((0, 1) if rep % 2 else (1, 0)):
                h = {"Authorization": self.apis[which].auth}
                h.update(headers or {})
                t = time.perf_counter()
                conns[which].request(method, paths[which], body=body, headers=h)
                resp = conns[which].getresponse()
                data = resp.read()
                times[which].append((time.perf_counter() - t) * 1000)
                if resp.status != expect:
                    raise ServerError("%s: %d %r" % (what or path, resp.status, data[:200]))
                bodies.append(data)
            # bodies holds this repetition's answers in request order.
            after_body, before_body = (bodies[0], bodies[1]) if rep % 2 else (bodies[1], bodies[0])
            if not (same(after_body, before_body) if same else after_body == before_body):
                raise SystemExit("equivalence gate failed: %s differs between BEFORE and AFTER" % (what or path))
        return times[1], times[0]

    def close(self):
        for a in getattr(self, "apis", []):
            a.close()
        for srv in self.servers:
            if srv.proc.poll() is None:
                srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def seed_folder(api, parent, name, specs):
    folder = api.call("POST", "/nodes/%s/folders" % parent, {"name": name}, expect=201)["id"]
    for i in range(0, len(specs), 1000):
        ctype, body = multipart_body(specs[i:i + 1000])
        api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})
    return folder


def scenario_listing_ab(args):
    """BEFORE/AFTER of a REST listing change from one run (AbPair)."""
    pair = AbPair(args, lambda api, root: seed_folder(api, root, "listing", listing_specs(args.list_entries, args.seed)))
    rows = []
    try:
        folder, api = pair.seeded, pair.apis[0]
        for label, query, _, _ in LIST_SORTS:
            base = API + "/nodes/%s/children?limit=%d%s" % (folder, PAGE_LIMIT, query)
            cursor = None
            for _ in range(99):
                page = api.call("GET", base[len(API):] + ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
                cursor = page["next_cursor"] or cursor
            for page_label, path in (("1", base), ("100", base + "&cursor=" + urllib.parse.quote(cursor, safe=""))):
                before, after = pair.alternate(args.list_reps, "GET", path, what="%s page %s" % (label, page_label))
                rows.append((label, page_label, pct(before, 50), pct(after, 50)))
    finally:
        pair.close()
    print("\nscenario listing-ab: %d entries, limit %d, %d reps alternating BEFORE (%s) and AFTER (%s) on one data "
          "dir; load before: %s" % (args.list_entries, PAGE_LIMIT, args.list_reps, pair.before_bin, pair.after_bin,
                                    args.load))
    print("| sort | page | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|---|")
    for label, page, before, after in rows:
        print("| %s | %s | %.3f | %.3f | %.2f |" % (label, page, before, after, after / before))
    print("gate: every response body byte-identical between BEFORE and AFTER")


def walk_listing(api, folder, query, limit=PAGE_LIMIT):
    """Every item of a listing through its cursors, and the cursor of page 100."""
    items, cursor, page_no, far_cursor = [], None, 0, None
    while True:
        page = api.call("GET", "/nodes/%s/children?limit=%d%s%s" % (
            folder, limit, query, "&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
        page_no += 1
        if page_no == 100:
            far_cursor = cursor
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items, far_cursor


def scenario_listing_order_ab(args):
    """BEFORE/AFTER of a change to the listing order itself (natural order):
    each build seeds its own data directory with the same files, since the
    builds order (and page) differently. Gates: both walks hold the same
    (name, size) set; each build's order is its own rule's (BEFORE case-folded
    bytes, AFTER natural); every timed page is a full page."""
    specs = listing_specs(args.list_entries, args.seed)
    pair = AbPair(args, lambda api, root: seed_folder(api, root, "listing", specs), separate=True)
    rows = []
    try:
        for (label, query, key_after, rev), (_, _, key_before, _) in zip(LIST_SORTS, LIST_SORTS_CASEFOLD):
            walks = []
            for which, key in ((0, key_after), (1, key_before)):
                items, far = walk_listing(pair.apis[which], pair.seeded[which], query)
                keys = [key(it) for it in items]
                if keys != sorted(keys, reverse=rev):
                    raise SystemExit("equivalence gate failed (%s, %s): out of order" % (
                        label, "AFTER" if which == 0 else "BEFORE"))
                walks.append((items, far))
            sets = [{(it["name"], it["size"]) for it in items} for items, _ in walks]
            if sets[0] != sets[1] or len(sets[0]) != args.list_entries:
                raise SystemExit("equivalence gate failed (%s): the builds list different files" % label)

            def full_page(a, b):
                return all(len(json.loads(x)["items"]) == PAGE_LIMIT for x in (a, b))

            for page_label, which_cursor in (("1", None), ("100", 1)):
                paths = tuple(API + "/nodes/%s/children?limit=%d%s%s" % (
                    pair.seeded[w], PAGE_LIMIT, query,
                    "&cursor=" + urllib.parse.quote(walks[w][1], safe="") if which_cursor else "") for w in (0, 1))
                before, after = pair.alternate(args.list_reps, "GET", paths, what="%s page %s" % (label, page_label),
                                               same=full_page)
                rows.append((label, page_label, pct(before, 50), pct(after, 50)))
    finally:
        pair.close()
    print("\nscenario listing-order-ab: %d entries, limit %d, %d reps alternating BEFORE (%s) and AFTER (%s), each "
          "on its own data dir seeded alike; load before: %s" % (args.list_entries, PAGE_LIMIT, args.list_reps,
                                                                  pair.before_bin, pair.after_bin, args.load))
    print("| sort | page | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|---|")
    for label, page, before, after in rows:
        print("| %s | %s | %.3f | %.3f | %.2f |" % (label, page, before, after, after / before))
    print("| seeding (multipart, 1,000 files per request) | s | %.2f | %.2f | %.2f |" % (
        pair.seed_s[1], pair.seed_s[0], pair.seed_s[0] / pair.seed_s[1]))
    print("gate: same (name, size) set from both; BEFORE in case-folded order, AFTER in natural order "
          "(bench/icu_order.py); every timed answer a full page")


PROPFIND_S1 = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/>'
               b'<D:getcontentlength/><D:getlastmodified/><D:getetag/></D:prop></D:propfind>')


def scenario_propfind_ab(args):
    """BEFORE/AFTER of a WebDAV change from one run (AbPair): PROPFIND Depth:1
    with the peer suite's body (s1) and with allprop on folders of 1,000 and
    10,000 files, then Depth:0 on the drive root."""
    sizes = (1000, 10000)

    pair = AbPair(args, lambda api, root: [seed_folder(api, root, "p%d" % n, listing_specs(n, 1000 + n))
                                           for n in sizes])
    rows = []
    try:
        cases = []
        for n in sizes:
            reps = max(10, args.list_reps * 1000 // n)
            cases.append(("%d files, s1 props" % n, "/dav/p%d/" % n, PROPFIND_S1, "1", reps))
            cases.append(("%d files, allprop" % n, "/dav/p%d/" % n, None, "1", reps))
        cases.append(("root, Depth 0", "/dav/", PROPFIND_S1, "0", args.list_reps * 3))
        for label, path, body, depth, reps in cases:
            h = {"Depth": depth}
            if body:
                h["Content-Type"] = "application/xml"
            before, after = pair.alternate(reps, "PROPFIND", path, body=body, headers=h, expect=207, what=label)
            rows.append((label, reps, pct(before, 50), pct(after, 50), pct(before, 95), pct(after, 95)))
        # The same listing while another connection keeps writing small
        # files elsewhere in the drive (each commit changes the database
        # under the readers): a read path that only pays off at rest shows
        # here (a mapping of the database file did: 5.0x slower in this row).
        stop, written, failed = threading.Event(), [0], []

        def writer():  # its own connections (an Api holds one, used by alternate())
            conns = [Api(srv.port, *ADMIN).connect() for srv in pair.servers]
            i = 0
            try:
                while not stop.is_set():
                    which = i % 2
                    conns[which].request("PUT", "/dav/ab-writes/w%06d.bin" % i, body=os.urandom(4096),
                                         headers={"Authorization": pair.apis[which].auth})
                    resp = conns[which].getresponse()
                    resp.read()
                    if resp.status not in (201, 204):
                        failed.append("answered %d" % resp.status)
                        return
                    written[0] += 1
                    i += 1
            except (OSError, http.client.HTTPException) as e:  # the row would otherwise be timed without writes
                failed.append("%s: %s" % (type(e).__name__, e))

        c = Api(pair.servers[0].port, *ADMIN).connect()
        c.request("MKCOL", "/dav/ab-writes/", headers={"Authorization": pair.apis[0].auth})
        resp = c.getresponse()
        resp.read()
        c.close()
        if resp.status != 201:
            raise ServerError("MKCOL /dav/ab-writes/: %d" % resp.status)
        n = sizes[-1]
        label = "%d files, s1 props, while writing" % n
        reps = max(10, args.list_reps * 1000 // n)
        t = threading.Thread(target=writer)
        t.start()
        try:
            before, after = pair.alternate(reps, "PROPFIND", "/dav/p%d/" % n, body=PROPFIND_S1,
                                           headers={"Depth": "1", "Content-Type": "application/xml"},
                                           expect=207, what=label)
        finally:
            stop.set()
            t.join()
        if failed:
            raise ServerError("PUT while listing: %s" % failed[0])
        rows.append(("%s (%d PUTs of 4 KiB)" % (label, written[0]), reps, pct(before, 50), pct(after, 50),
                     pct(before, 95), pct(after, 95)))
        # The sync poll under load (the suite's s2): wrk, 64 connections,
        # alternating servers for 4 rounds of args.duration seconds.
        sys.modules.setdefault("bench", sys.modules["__main__"])
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import suite
        h = {"Authorization": pair.apis[0].auth, "Depth": "0", "Content-Type": "application/xml"}
        rps = ([], [])
        for rnd in range(4):
            for which in ((0, 1) if rnd % 2 else (1, 0)):
                r = suite.wrk_dav(pair.servers[which].port, "PROPFIND", "/dav/", h, PROPFIND_S1, args.duration)
                if r["errors"] or r["requests"] == 0:
                    raise ServerError("wrk Depth 0: %r" % r)
                rps[which].append(r["rps"])
        wrk_row = (statistics.median(rps[1]), statistics.median(rps[0]))
    finally:
        pair.close()
    print("\nscenario propfind-ab: alternating BEFORE (%s) and AFTER (%s) on one data dir, one keep-alive connection "
          "each; load before: %s" % (pair.before_bin, pair.after_bin, args.load))
    print("| case | reps | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE p50 | BEFORE p95 ms | AFTER p95 ms |")
    print("|---|---|---|---|---|---|---|")
    for label, reps, b50, a50, b95, a95 in rows:
        print("| %s | %d | %.3f | %.3f | %.2f | %.3f | %.3f |" % (label, reps, b50, a50, a50 / b50, b95, a95))
    print("gate: every response body byte-identical between BEFORE and AFTER")
    print("\n| root, Depth 0, wrk 64 connections (median of 4 × %d s) | BEFORE req/s | AFTER req/s | AFTER/BEFORE |"
          % args.duration)
    print("|---|---|---|---|")
    print("| | %.0f | %.0f | %.2f |" % (wrk_row[0], wrk_row[1], wrk_row[1] / wrk_row[0]))
    print("gate: no wrk errors, every status 207")


def main():
    ap = argparse.ArgumentParser(description="nubo benchmarks; see bench/README.md")
    ap.add_argument("scenario", choices=["all", "peers", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8",
                                         "health", "storage", "files", "listing-ab", "listing-order-ab", "propfind-ab",
                                         "auth-storm", "zip-ab", "authz-cost", "sharing-cost",
                                         "share-mounts", "content-over-time", "groupware", "nextcloud", "media",
                                         "idle-rss-ab"],
                    help="all = health + the peer suite s1..s8; peers = s1..s8; the rest run alone")
    ap.add_argument("--quick", action="store_true", help="suite: smaller sizes, one round (under 5 minutes)")
    ap.add_argument("--peers", default=None,
                    help="suite: comma-separated peers (default apache,nginx,lighttpd,rclone,sabre); "
                         "groupware: none leaves out Radicale and Xandikos")
    ap.add_argument("--out", default=None, help="suite: JSON result path (default bench/results/DATE-SCENARIO.json)")
    ap.add_argument("--md", default=None, help="suite: also write the printed tables to this file")
    ap.add_argument("--baseline", default=None, help="suite: compare with this JSON (default: the newest of the "
                                                     "same mode in bench/results/)")
    ap.add_argument("--no-compare", action="store_true", help="suite: no baseline deltas")
    ap.add_argument("--no-wait", action="store_true",
                    help="suite: do not wait for running builds/tests (ninja, ctest, cc1plus) to finish")
    ap.add_argument("--max-busy", type=float, default=0.5,
                    help="suite: wait while other processes keep more than this many cores busy")
    ap.add_argument("--keep", action="store_true", help="suite: keep the temp folder (servers' data and logs)")
    ap.add_argument("--skip-health", action="store_true", help="all: skip the health scenario")
    ap.add_argument("--s3-files", type=int, default=None, help="s3: PUTs per round")
    ap.add_argument("--s4-bytes", type=int, default=None, help="s4: size of the large file")
    ap.add_argument("--before", default=None, help="listing-ab, listing-order-ab, propfind-ab, zip-ab, idle-rss-ab, auth-storm: the binary to compare against; the suite (all, peers, s1-s8): also run "
                         "it, as the peer nubo-before; groupware: also run it, with an AFTER/BEFORE column; media: time the content queries on it too")
    ap.add_argument("--storage-bytes", type=int, default=1 << 30)
    ap.add_argument("--tmpdir", default=None,
                    help="where the data goes (default: a fresh ext4 loop device as root)")
    ap.add_argument("--list-entries", type=int, default=20000, help="files: entries in the listed folder")
    ap.add_argument("--list-reps", type=int, default=300, help="files: timed requests per page and sort")
    ap.add_argument("--files-bytes", type=int, default=1 << 30, help="files: size of the big file")
    ap.add_argument("--tus-rss-bytes", type=int, default=10 << 30,
                    help="content-over-time: size of the tus upload whose peak RSS is measured")
    ap.add_argument("--seed", type=int, default=5, help="files: seed of the listing's names and sizes")
    ap.add_argument("--no-download-hash", action="store_true",
                    help="files: do not sha256 the download on the fly (the gate then rests on the node hash)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per scenario (default 3; --quick: 1)")
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--shares", type=int, default=20, help="share-mounts: folders shared with the recipient")
    ap.add_argument("--thumb-files", type=int, default=30, help="media: 12-megapixel JPEGs to thumbnail")
    ap.add_argument("--docs", type=int, default=20000, help="media: text documents to index and search")
    ap.add_argument("--photos", type=int, default=5000, help="media: photos in the timeline")
    ap.add_argument("--names", type=int, default=100000,
                    help="media: nodes for the name search at scale (part names; the target is at 1,000,000)")
    ap.add_argument("--part", default="all", choices=["all", "thumbs", "search", "photos", "names"],
                    help="media: which part")
    args = ap.parse_args()
    args.rounds_given = args.rounds is not None
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    args.load = loadavg()
    if not os.path.exists(NUBO):
        raise SystemExit("build nubo first (make build): %s missing" % NUBO)
    if args.scenario in ("all", "peers") or re.fullmatch(r"s\d", args.scenario):
        sys.modules.setdefault("bench", sys.modules["__main__"])
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import suite
        suite.run(args, args.scenario)
        return
    if args.scenario == "health":
        scenario_health(args)
    if args.scenario == "storage":
        scenario_storage(args)
    if args.scenario == "files":
        scenario_files(args)
    if args.scenario == "listing-ab":
        scenario_listing_ab(args)
    if args.scenario == "listing-order-ab":
        scenario_listing_order_ab(args)
    if args.scenario == "propfind-ab":
        scenario_propfind_ab(args)
    if args.scenario in ("auth-storm", "zip-ab", "authz-cost", "sharing-cost", "share-mounts", "content-over-time",
                         "groupware", "nextcloud", "media", "idle-rss-ab"):
        # One file per scenario; they import this module as `bench`.
        sys.modules.setdefault("bench", sys.modules["__main__"])
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        if args.scenario == "auth-storm":
            import auth_storm
            auth_storm.run(args)
        elif args.scenario == "authz-cost":
            import authz_cost
            authz_cost.run(args)
        elif args.scenario == "sharing-cost":
            import sharing_cost
            sharing_cost.run(args)
        elif args.scenario == "share-mounts":
            import share_mounts
            share_mounts.run(args)
        elif args.scenario == "groupware":
            import groupware
            groupware.run(args)
        elif args.scenario == "nextcloud":
            import nextcloud
            nextcloud.run(args)
        elif args.scenario == "media":
            import media
            media.run(args)
        elif args.scenario == "content-over-time":
            import content_over_time
            content_over_time.run(args)
        elif args.scenario == "idle-rss-ab":
            import idle_rss_ab
            idle_rss_ab.run(args)
        else:
            import zip_ab
            zip_ab.run(args)


if __name__ == "__main__":
    main()
