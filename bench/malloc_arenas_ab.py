"""malloc-arenas-ab: BEFORE/AFTER of the server's malloc arena limit, from one
run: a 10,000-file folder is listed with PROPFIND Depth:1 (15 times) by a
server with glibc's default arena count (MALLOC_ARENA_MAX=16, BEFORE: 8 per
core on this 2-core machine) and by the build's own limit (one arena per I/O
thread plus one: 3 here, AFTER), alternating --rounds times; with --before
BIN, that build with its own limit runs too (row "before-build"). Prints
resident memory before/after the listings and p50 latency, and the
AFTER/BEFORE ratios. Gate: every multistatus holds all 10,001 responses.

  bash bench/run.sh malloc-arenas-ab [--rounds 3] [--before BIN] [--tmpdir /tmp]
"""
import os
import shutil
import statistics
import tempfile
import time

from lib.api import ADMIN, FAST_ARGON2, Api
from lib.proc import proc_status_kib
from lib.servers import PROPFIND_BODY, start_nubo

N = 10000


def listing(args, extra, binary=None):
    """(RSS MiB before, RSS MiB after, p50 ms) of one fresh server."""
    n = N
    tmp = tempfile.mkdtemp(prefix="nubo-bench-arenas-", dir=args.tmpdir)
    srv = start_nubo(tmp, env=dict(FAST_ARGON2, NUBO_ACCESS_LOG="false", **extra), binary=binary)
    try:
        api = Api(srv.port, *ADMIN)
        api.setup()
        r = api.conn.request("MKCOL", "/dav/big", {"Authorization": api.auth})
        assert r.status == 201, r.status
        root = api.root_id()
        folder = api.call("GET", "/nodes/%s/children" % root)["items"][0]["id"]
        for i in range(0, n, 1000):
            body = b"".join(b'--bb\r\nContent-Disposition: form-data; name="f"; filename="file-%05d.txt"\r\n\r\n%d\r\n'
                            % (j, j) for j in range(i, min(n, i + 1000))) + b"--bb--\r\n"
            api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": "multipart/form-data; boundary=bb"})
        before = proc_status_kib([srv.proc.pid], "VmRSS") / 1024
        times = []
        for _ in range(15):
            t = time.perf_counter()
            r = api.conn.request("PROPFIND", "/dav/big/", {"Authorization": api.auth, "Depth": "1"}, PROPFIND_BODY)
            times.append(time.perf_counter() - t)
            got = r.body.count(b"<d:response>")
            if r.status != 207 or got != n + 1:
                raise SystemExit("gate failed: PROPFIND answered %d with %d responses" % (r.status, got))
        api.close()
        return before, proc_status_kib([srv.proc.pid], "VmRSS") / 1024, statistics.median(times) * 1000
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def run(args):
    os.environ.pop("MALLOC_ARENA_MAX", None)  # AFTER is the server's own default, not the caller's
    res = {"BEFORE": [], "AFTER": []}
    if args.before:
        res["before-build"] = []
    for _ in range(args.rounds):
        res["BEFORE"].append(listing(args, {"MALLOC_ARENA_MAX": "16"}))
        res["AFTER"].append(listing(args, {}))
        if args.before:
            res["before-build"].append(listing(args, {}, args.before))
    print("malloc-arenas-ab: %d files, PROPFIND Depth:1 x15 per server, %d rounds alternating, medians"
          % (N, args.rounds))
    print("| build | RSS before MiB | RSS after MiB | p50 ms |")
    print("|---|---|---|---|")
    med = {}
    for k, rows in res.items():
        med[k] = [statistics.median(r[i] for r in rows) for i in range(3)]
        print("| %s | %.1f | %.1f | %.1f |" % (k, *med[k]))
    print("AFTER/BEFORE: RSS after %.2f, p50 %.2f" % (med["AFTER"][1] / med["BEFORE"][1],
                                                      med["AFTER"][2] / med["BEFORE"][2]))
    if args.before:
        print("AFTER/before-build: RSS after %.2f, p50 %.2f" % (med["AFTER"][1] / med["before-build"][1],
                                                              med["AFTER"][2] / med["before-build"][2]))
    print("gate: every PROPFIND listed all %d entries" % (N + 1))
