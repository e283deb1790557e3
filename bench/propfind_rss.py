"""BEFORE/AFTER of the server's malloc arena limit, from one run: a
10,000-file folder is listed with PROPFIND Depth:1 (15 times) by a server
with glibc's default arena count (MALLOC_ARENA_MAX=16, BEFORE: 8 per core on
this 2-core machine) and by the default build (2 arenas, AFTER), alternating
ROUNDS times. Prints resident memory before/after the listings and p50
latency, and the AFTER/BEFORE ratios. Gate: every multistatus holds all
10,001 responses.

Usage: /usr/bin/python3 bench/propfind_rss.py [path/to/nubo] (default build/release/nubo)"""
import base64
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUBO = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/release/nubo")
N = int(os.environ.get("N", "10000"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
AUTH = {"Authorization": "Basic " + base64.b64encode(b"benchu:user password 1").decode()}
BODY = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/>'
        b'<d:getlastmodified/><d:getetag/></d:prop></d:propfind>')


def run(extra):
    tmp = tempfile.mkdtemp(prefix="nubo-rss-")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_") and k != "MALLOC_ARENA_MAX"}
    env.update({"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB", "NUBO_ACCESS_LOG": "false"})
    env.update(extra)
    log = open(tmp + "/log", "wb")
    p = subprocess.Popen([NUBO, "serve", "--listen", "127.0.0.1:0", "--data", tmp + "/d"], stdout=log,
                         stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(500):
            m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", open(tmp + "/log", "rb").read())
            if m:
                break
            time.sleep(0.02)
        port = int(m.group(1))

        def call(method, path, body=None, h=None):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            hh = dict(AUTH)
            hh.update(h or {})
            c.request(method, path, body=body, headers=hh)
            r = c.getresponse()
            d = r.read()
            c.close()
            return r.status, d

        call("POST", "/api/v1/setup", json.dumps({"username": "benchu", "password": "user password 1"}).encode(),
             {"Content-Type": "application/json"})
        call("MKCOL", "/dav/big")
        root = json.loads(call("GET", "/api/v1/drives")[1])["drives"][0]["root_id"]
        folder = json.loads(call("GET", "/api/v1/nodes/%s/children" % root)[1])["items"][0]["id"]
        for i in range(0, N, 1000):
            body = b"".join(b'--bb\r\nContent-Disposition: form-data; name="f"; filename="file-%05d.txt"\r\n\r\n%d\r\n'
                            % (j, j) for j in range(i, min(N, i + 1000))) + b"--bb--\r\n"
            call("POST", "/api/v1/nodes/%s/upload" % folder, body, {"Content-Type": "multipart/form-data; boundary=bb"})

        def rss():
            for line in open("/proc/%d/status" % p.pid):
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024

        before = rss()
        times = []
        for _ in range(15):
            t = time.perf_counter()
            st, d = call("PROPFIND", "/dav/big/", BODY, {"Depth": "1"})
            times.append(time.perf_counter() - t)
            if st != 207 or d.count(b"<d:response>") != N + 1:
                raise SystemExit("gate failed: PROPFIND answered %d with %d responses" % (st, d.count(b"<d:response>")))
        return before, rss(), statistics.median(times) * 1000
    finally:
        p.kill()
        p.wait()
        subprocess.run(["rm", "-rf", tmp])


def main():
    res = {"BEFORE": [], "AFTER": []}
    for _ in range(ROUNDS):
        res["BEFORE"].append(run({"MALLOC_ARENA_MAX": "16"}))
        res["AFTER"].append(run({}))
    print("propfind-rss: %d files, PROPFIND Depth:1 x15 per server, %d rounds alternating, medians" % (N, ROUNDS))
    print("| build | RSS before MiB | RSS after MiB | p50 ms |")
    print("|---|---|---|---|")
    med = {}
    for k, rows in res.items():
        med[k] = [statistics.median(r[i] for r in rows) for i in range(3)]
        print("| %s | %.1f | %.1f | %.1f |" % (k, *med[k]))
    print("AFTER/BEFORE: RSS after %.2f, p50 %.2f" % (med["AFTER"][1] / med["BEFORE"][1],
                                                      med["AFTER"][2] / med["BEFORE"][2]))
    print("gate: every PROPFIND listed all %d entries" % (N + 1))


if __name__ == "__main__":
    main()
