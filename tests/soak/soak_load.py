"""Soak: a mixed REST + WebDAV load for SOAK_SECONDS (default 600) against a
release build, reporting errors (must be 0) and the server's RSS over time
(must stay flat), then `nubo fsck`. Not part of the test command:
`make soak-load` runs it.

Each of SOAK_CLIENTS threads loops: upload a file (sizes from the cdperf-like
mix, mostly small), PROPFIND its folder, download and compare, rename with
MOVE, list over REST, delete to the trash, sometimes empty the trash."""
import base64
import hashlib
import http.client
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NUBO = os.environ.get("NUBO_BIN") or os.path.join(ROOT, "build/release/nubo")
SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
CLIENTS = int(os.environ.get("SOAK_CLIENTS", "8"))
USER, PASSWORD = "soak", "soak password 1"
AUTH = {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode()}


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Client:
    def __init__(self, port):
        self.port = port
        self.conn = None

    def call(self, method, path, body=None, headers=None):
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            try:
                h = dict(AUTH)
                h.update(headers or {})
                self.conn.request(method, path, body=body, headers=h)
                resp = self.conn.getresponse()
                data = resp.read()
                if resp.will_close:
                    self.conn.close()
                    self.conn = None
                return resp.status, data
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


def size_from_mix(rng):
    r = rng.random()
    if r < 0.84:
        return rng.randint(0, 1 << 20)
    if r < 0.965:
        return rng.randint(1 << 20, 10 << 20)
    return rng.randint(10 << 20, 24 << 20)  # scaled down from 100 MB: the run must fit the disk


def worker(idx, port, stop, stats, lock):
    rng = random.Random(1000 + idx)
    c = Client(port)
    folder = "/dav/soak/w%d" % idx
    st, _ = c.call("MKCOL", folder)
    assert st == 201, st
    n = 0
    while not stop.is_set():
        n += 1
        errors = []
        name = "f%d.bin" % n
        data = rng.randbytes(size_from_mix(rng))
        t0 = time.perf_counter()
        st, _ = c.call("PUT", "%s/%s" % (folder, name), data)
        if st != 201:
            errors.append(("PUT", st))
        st, body = c.call("PROPFIND", folder + "/", headers={"Depth": "1"})
        if st != 207 or ("/%s</d:href>" % name).encode() not in body:
            errors.append(("PROPFIND", st))
        st, body = c.call("GET", "%s/%s" % (folder, name))
        if st != 200 or hashlib.sha256(body).digest() != hashlib.sha256(data).digest():
            errors.append(("GET", st, len(body)))
        st, _ = c.call("MOVE", "%s/%s" % (folder, name),
                       headers={"Destination": "%s/r-%s" % (folder, name), "Overwrite": "F"})
        if st != 201:
            errors.append(("MOVE", st))
        st, body = c.call("GET", "/api/v1/search?q=" + urllib.parse.quote("r-" + name))
        if st != 200:
            errors.append(("search", st))
        st, _ = c.call("DELETE", "%s/r-%s" % (folder, name))
        if st != 204:
            errors.append(("DELETE", st))
        if n % 25 == 0:
            st, _ = c.call("DELETE", "/api/v1/trash")
            if st != 200:
                errors.append(("empty trash", st))
        with lock:
            stats["flows"] += 1
            stats["bytes"] += len(data)
            stats["latency"].append(time.perf_counter() - t0)
            stats["errors"] += errors


def main():
    tmp = tempfile.mkdtemp(prefix="nubo-soak-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    env.update({"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB", "NUBO_ACCESS_LOG": "false"})
    log = open(os.path.join(tmp, "server.log"), "wb")
    srv = subprocess.Popen([NUBO, "serve", "--listen", "127.0.0.1:0", "--data", os.path.join(tmp, "data")],
                           stdout=log, stderr=subprocess.STDOUT, env=env)
    port = None
    for _ in range(500):
        m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", open(os.path.join(tmp, "server.log"), "rb").read())
        if m:
            port = int(m.group(1))
            break
        time.sleep(0.02)
    assert port, "server did not start"
    c = Client(port)
    st, _ = c.call("POST", "/api/v1/setup", json.dumps({"username": USER, "password": PASSWORD}).encode(),
                   {"Content-Type": "application/json"})
    assert st == 201, st
    assert c.call("MKCOL", "/dav/soak")[0] == 201
    stop = threading.Event()
    stats = {"flows": 0, "bytes": 0, "latency": [], "errors": []}
    lock = threading.Lock()
    threads = [threading.Thread(target=worker, args=(i, port, stop, stats, lock)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    samples = []
    t0 = time.time()
    while time.time() - t0 < SECONDS:
        time.sleep(min(10, SECONDS))
        samples.append((time.time() - t0, rss_kib(srv.pid), stats["flows"]))
        print("t=%4.0fs rss=%6.1f MiB flows=%d errors=%d" % (samples[-1][0], samples[-1][1] / 1024, samples[-1][2],
                                                            len(stats["errors"])), flush=True)
    stop.set()
    for t in threads:
        t.join()
    srv.send_signal(signal.SIGTERM)
    code = srv.wait(timeout=60)
    fsck = subprocess.run([NUBO, "--data", os.path.join(tmp, "data"), "fsck"], capture_output=True, text=True, env=env)
    lat = sorted(stats["latency"])
    third = max(1, len(samples) // 3)
    early = statistics.median(s[1] for s in samples[:third])
    late = statistics.median(s[1] for s in samples[-third:])
    print("\nsoak: %d s, %d clients, %d flows (upload+propfind+download+move+search+delete), %.1f GB moved"
          % (SECONDS, CLIENTS, stats["flows"], stats["bytes"] / 1e9))
    if lat:
        print("flow latency p50 %.3f s, p95 %.3f s, p99 %.3f s" % (
            lat[len(lat) // 2], lat[int(len(lat) * 0.95)], lat[min(len(lat) - 1, int(len(lat) * 0.99))]))
    print("RSS median first third %.1f MiB, last third %.1f MiB; errors %d; exit %d; fsck: %s"
          % (early / 1024, late / 1024, len(stats["errors"]), code, fsck.stdout.strip().splitlines()[-1:]))
    ok = not stats["errors"] and code == 0 and fsck.returncode == 0 and late <= early * 1.25 + 16 * 1024
    if stats["errors"]:
        print("first errors:", stats["errors"][:10])
    if ok:
        subprocess.run(["rm", "-rf", tmp])
    else:
        print("kept", tmp)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
