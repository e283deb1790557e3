#!/usr/bin/env python3
"""Name search on PostgreSQL, BEFORE and AFTER a change, from one run.

Each build serves its own fresh database (of one durable PostgreSQL 15
started here) and data directory, and receives the same --files uploads
(4 KiB each, 16 connections, in halves: BEFORE, AFTER, AFTER, BEFORE;
their rate is reported too, since a name index costs every new name),
then VACUUM ANALYZE (what autovacuum leaves). Names are "dNNNNN-WORD.txt" with WORD one of
400 ("w000".."w399"); one name in a thousand also carries "-needle".
Then name searches (GET /api/v1/search, first page of 50) alternate
between the two servers, the order flipping every round:

  rare      "needle"  one name in a thousand
  common    "w12"     w120..w129, one name in forty
  every     ".txt"    every name (the index cannot narrow it)
  short     "w1"      two characters: no trigram, a scan on both builds

Gate: both builds answer every query with the same names, every page of
it followed to the end, and every upload answered 201.

  NUBO_BENCH_BIN=AFTER python3 bench/pg_name_search_ab.py --before BEFORE [--files 10000] [--reps 60]
                                                           [--sqlite]
"""
import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines  # noqa: E402  (starts nothing on import)
import pg_cluster  # noqa: E402

QUERIES = (("rare", "needle"), ("common", "w12"), ("every", ".txt"), ("short", "w1"))


def names(n):
    rng = random.Random(29)
    return ["d%05d-w%03d%s.txt" % (i, rng.randrange(400), "-needle" if i % 1000 == 7 else "") for i in range(n)]


def search(port, q, cursor="", limit=50):
    """(names of one page, next cursor, seconds)."""
    c = engines.httpc.Conn(port)
    url = "/api/v1/search?q=%s&limit=%d" % (urllib.parse.quote(q), limit)
    if cursor:
        url += "&cursor=" + urllib.parse.quote(cursor)
    t = time.monotonic()
    r = c.request("GET", url, engines.DAVH)
    dt = time.monotonic() - t
    c.close()
    if r.status != 200:
        raise SystemExit("search %r answered %d: %s" % (q, r.status, r.body[:200]))
    body = json.loads(r.body)
    return [i["name"] for i in body["items"]], body.get("next_cursor") or "", dt


def search_all(port, q):
    out, cursor = [], ""
    while True:
        page, cursor, _ = search(port, q, cursor, 200)
        out += page
        if not cursor:
            return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True)
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--sqlite", action="store_true", help="both builds on SQLite instead (the change's "
                    "other engine: it must not lose there)")
    args = ap.parse_args()
    after_bin = engines.NUBO
    pool = random.Random(1).randbytes(4096 + args.files)
    tmp = tempfile.mkdtemp(prefix="nubo-name-ab-", dir="/var/tmp")
    nodes, rates = [], []
    try:
        nodes = [engines.ab_serve(args.before, tmp, "before", args.sqlite, ["/dav/n/"]),
                 engines.ab_serve(after_bin, tmp, "after", args.sqlite, ["/dav/n/"])]
        # Uploads in halves, ABBA, so that neither build has the database
        # server to itself while it is cold or after the other filled it.
        jobs = [(i, "/dav/n/" + nm) for i, nm in enumerate(names(args.files))]
        halves = (jobs[:len(jobs) // 2], jobs[len(jobs) // 2:])
        secs = [0.0, 0.0]
        for k, half in ((0, 0), (1, 0), (1, 1), (0, 1)):
            secs[k] += engines.ab_upload(nodes[k], halves[half], pool)
        rates = [args.files / s for s in secs]
        engines.settle([n.port for n in nodes])
        # Both databases as autovacuum leaves them, whenever it passed.
        for n in nodes:
            if n.db:
                pg_cluster.cluster().psql(n.db.rsplit("/", 1)[1], "VACUUM ANALYZE")
        gate = []
        for _, q in QUERIES:
            found = [search_all(n.port, q) for n in nodes]
            if found[0] != found[1] or not found[0]:
                gate.append("%s: BEFORE found %d, AFTER %d" % (q, len(found[0]), len(found[1])))
        rows = []
        for label, q in QUERIES:
            lat = ([], [])
            for r in range(args.reps):
                for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                    lat[k].append(search(nodes[k].port, q)[2] * 1000)
            rows.append((label, q, statistics.median(lat[0]), statistics.median(lat[1])))
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nname search on %s, %d files in one folder, first page (50), %d searches each"
          % ("SQLite" if args.sqlite else "PostgreSQL", args.files, args.reps))
    print("BEFORE %s\nAFTER  %s" % (args.before, after_bin))
    print("| query | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|")
    for label, q, b, a in rows:
        print("| %s (%s) | %.2f | %.2f | %.2f |" % (label, q, b, a, a / b))
    print("| uploads, files/s (16 connections) | %.0f | %.0f | %.2f |" % (rates[0], rates[1], rates[1] / rates[0]))
    print("gate: the same names from both builds for every query, all pages: %s"
          % ("passed" if not gate else gate))
    if gate:
        sys.exit(1)


if __name__ == "__main__":
    main()
