#!/usr/bin/env python3
"""nubo's benchmark harness: starts nubo and a peer on loopback, drives both
with the same load in alternating rounds, and prints one table per scenario
with the ratio nubo/peer measured in the same run.

Usage: bench.py SCENARIO [--rounds N] [--duration SECONDS]
Scenarios: health (keep-alive GET /health, 64 connections; peer: nginx static file)
"""
import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUBO = os.environ.get("NUBO_BIN", os.path.join(ROOT, "build/release/nubo"))
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

    def __init__(self, tmp):
        self.port = free_port()
        self.log = open(os.path.join(tmp, "nubo.log"), "wb")
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
        self.proc = subprocess.Popen(
            [NUBO, "serve", "--listen", "127.0.0.1:%d" % self.port, "--data", os.path.join(tmp, "nubo-data")],
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
    ratio = med["nubo"]["rps"] / med["nginx"]["rps"]
    print("ratio nubo/nginx req/s: %.2f (target >= 0.80)  per round: %s" % (
        ratio, ", ".join("%.2f" % (a["rps"] / b["rps"]) for a, b in zip(results["nubo"], results["nginx"]))))
    return ratio


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
        subprocess.run(["umount", self.mnt])
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=["health", "storage", "all"])
    ap.add_argument("--storage-bytes", type=int, default=1 << 30)
    ap.add_argument("--tmpdir", default=None, help="where the storage scenario writes (a fresh fs is best)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=int, default=5)
    args = ap.parse_args()
    args.load = loadavg()
    if not os.path.exists(NUBO):
        raise SystemExit("build nubo first (make build): %s missing" % NUBO)
    if args.scenario in ("health", "all"):
        scenario_health(args)
    if args.scenario in ("storage", "all"):
        scenario_storage(args)


if __name__ == "__main__":
    main()
