#!/usr/bin/env python3
"""Folder listings (S1) on PostgreSQL, BEFORE and AFTER a change, from one run.

Each build serves its own fresh database (of one durable PostgreSQL 15
started here) and data directory and receives the same uploads: a folder
of --small and a folder of --files files of 4 KiB (16 connections, in
halves: BEFORE, AFTER, AFTER, BEFORE), then VACUUM ANALYZE. Then
PROPFIND Depth:1 of each folder (the engine benchmark's S1 body: length,
ETag, modification time, resource type) alternates between the two
servers, the order flipping every round, over one kept-alive connection
each; the PostgreSQL transactions a listing costs are counted too.

With --engines there is one build (NUBO_BENCH_BIN) and the two servers
are that build on SQLite and on PostgreSQL: the engine benchmark's S1
ratio (PostgreSQL p50 / SQLite p50) with both servers measured in the
same minutes, request by request, instead of one setup after the other.

Gate: both servers list the same names with the same sizes in each
folder, and every upload and listing succeeds.

  NUBO_BENCH_BIN=AFTER python3 bench/pg_listing_ab.py --before BEFORE [--files 10000] [--small 1000]
                                                       [--reps 40] [--sqlite] [--body nextcloud]
  NUBO_BENCH_BIN=BUILD python3 bench/pg_listing_ab.py --engines [--reps 40]
"""
import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines  # noqa: E402  (starts nothing on import)
import pg_cluster  # noqa: E402
from lib.servers import NEXTCLOUD_LISTING_BODY  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before")
    ap.add_argument("--engines", action="store_true", help="one build on SQLite (first column) and on "
                    "PostgreSQL (second column)")
    ap.add_argument("--files", type=int, default=10000)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--body", choices=("s1", "nextcloud"), default="s1", help="the listing's properties: "
                    "the engine benchmark's S1 body, or a Nextcloud client's (lib.servers)")
    ap.add_argument("--sqlite", action="store_true", help="both builds on SQLite instead (the change's "
                    "other engine: it must not lose there)")
    args = ap.parse_args()
    if not args.engines and not args.before:
        ap.error("--before BUILD, or --engines")
    after_bin = engines.NUBO
    body = engines.PROPFIND if args.body == "s1" else NEXTCLOUD_LISTING_BODY
    sizes = (args.small, args.files)
    folders = ["/dav/s1-%d/" % s for s in sizes]
    pool = random.Random(1).randbytes(4096 + sum(sizes))
    tmp = tempfile.mkdtemp(prefix="nubo-listing-ab-", dir="/var/tmp")
    nodes, rows, gate = [], [], []
    try:
        if args.engines:
            nodes = [engines.ab_serve(after_bin, tmp, "sqlite", True, folders),
                     engines.ab_serve(after_bin, tmp, "pg", False, folders)]
        else:
            nodes = [engines.ab_serve(args.before, tmp, "before", args.sqlite, folders),
                     engines.ab_serve(after_bin, tmp, "after", args.sqlite, folders)]
        jobs, i = [], 0
        for f, s in zip(folders, sizes):
            for k in range(s):
                jobs.append((i, "%sf%05d.bin" % (f, k)))
                i += 1
        halves = (jobs[:len(jobs) // 2], jobs[len(jobs) // 2:])
        for k, half in ((0, 0), (1, 0), (1, 1), (0, 1)):
            engines.ab_upload(nodes[k], halves[half], pool)
        engines.settle([n.port for n in nodes])
        for n in nodes:
            if n.db:
                pg_cluster.cluster().psql(n.db.rsplit("/", 1)[1], "VACUUM ANALYZE")
        for f, s in zip(folders, sizes):
            got = [engines.listing(n.port, f) for n in nodes]
            if got[0] is None or got[0] != got[1] or len(got[0]) != s:
                gate.append("%s: BEFORE %s entries, AFTER %s" %
                            (f, *(None if g is None else len(g) for g in got)))
        conns = [engines.httpc.Conn(n.port) for n in nodes]
        for f, s in zip(folders, sizes):
            lat, xacts = ([], []), [0, 0]
            for k, c in enumerate(conns):  # warm
                c.request("PROPFIND", f, dict(engines.DAVH, Depth="1"), body=body)
            for k, n in enumerate(nodes):
                if n.db:
                    engines.stat_delay()
                    xacts[k] = -engines.pg_xacts(n.db)
            for r in range(args.reps):
                for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                    resp = conns[k].request("PROPFIND", f, dict(engines.DAVH, Depth="1"), body=body)
                    if resp.status != 207:
                        gate.append("%s PROPFIND answered %d" % (f, resp.status))
                    lat[k].append(resp.total * 1000)
            for k, n in enumerate(nodes):
                if n.db:
                    engines.stat_delay()
                    xacts[k] = (xacts[k] + engines.pg_xacts(n.db)) / args.reps
            rows.append((s, statistics.median(lat[0]), statistics.median(lat[1]), xacts))
        for c in conns:
            c.close()
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.engines:
        print("\nPROPFIND Depth:1 (%s body), %d listings of each folder on each engine, alternating"
              % (args.body, args.reps))
        print("build %s" % after_bin)
        print("| folder | SQLite p50 ms | PostgreSQL p50 ms | PostgreSQL/SQLite | transactions per listing S/P |")
    else:
        print("\nPROPFIND Depth:1 (%s body) on %s, %d listings of each folder by each build"
              % (args.body, "SQLite" if args.sqlite else "PostgreSQL", args.reps))
        print("BEFORE %s\nAFTER  %s" % (args.before, after_bin))
        print("| folder | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE | transactions per listing B/A |")
    print("|---|---|---|---|---|")
    for s, b, a, x in rows:
        print("| %d files | %.2f | %.2f | %.2f | %.1f / %.1f |" % (s, b, a, a / b, x[0], x[1]))
    print("gate: the same names and sizes from both servers in each folder: %s"
          % ("passed" if not gate else gate))
    if gate:
        sys.exit(1)


if __name__ == "__main__":
    main()
