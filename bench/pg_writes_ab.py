#!/usr/bin/env python3
"""Small-file writes on PostgreSQL, BEFORE and AFTER a change, from one run.

Each build serves its own fresh database (of one durable PostgreSQL 15
started here: fsync and synchronous_commit on, its files on the same file
system as nubo's) and data directory. Rounds alternate between the builds,
the order flipping every round (AB, BA, AB, ...): each round PUTs --files
new 4 KiB files (distinct contents) into a fresh folder over 16
connections (2 processes x 8 threads), the suite's S3 shape; with
--nodes 2 each build runs two `nubo serve` on its database and data
directory, and each client process's threads alternate between them (what
a balancer does). Between
phases the server's background jobs (derived data of the files just
stored) are left to finish, so that each phase measures its own uploads.

Per build, over its rounds: files/s (median round, and min..max), the
database's WAL flushes per file (pg_stat_wal.wal_sync: the durable
commits the database made), transactions per file (pg_stat_database of
the build's database), nubo's metadata writes per durable commit (its
/metrics, summed over the build's nodes), CPU per file of nubo and of
every PostgreSQL process, the updates of `nodes` rows per file with the
share of them PostgreSQL made heap-only (HOT: no new index entries), the
WAL written per file (the server's, over the build's phases) and the size
of the indexes of `nodes` when the last round is done.

Gate: every PUT answered 201, and each round's folder lists --files
files of 4,096 bytes on its build.

  NUBO_BENCH_BIN=AFTER python3 bench/pg_writes_ab.py --before BEFORE [--files 3000] [--rounds 6]
                                                     [--nodes 1|2]

With --nodes-ab there is one build (NUBO_BENCH_BIN) and the two sides are
its setups: BEFORE one node, AFTER two nodes on their own database and
data directory, alternating the same way — the scale-out ratio from one
run, with the machine's swings shared by both sides.

  NUBO_BENCH_BIN=BIN python3 bench/pg_writes_ab.py --nodes-ab [--files 3000] [--rounds 6]
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines  # noqa: E402  (starts nothing on import)
import pg_cluster  # noqa: E402
from lib.proc import proc_cpu_s  # noqa: E402


def postgres_pids():
    out = subprocess.run(["pgrep", "-x", "postgres"], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def wal_syncs():
    return int(pg_cluster.cluster().psql("postgres", "SELECT wal_sync FROM pg_stat_wal")[0][0])


def wal_bytes():
    return int(pg_cluster.cluster().psql("postgres", "SELECT wal_bytes FROM pg_stat_wal")[0][0])


def index_mib(db_url):
    """Size of every index of nodes in the build's database, MiB."""
    name = db_url.rsplit("/", 1)[1]
    return int(pg_cluster.cluster().psql(name, "SELECT pg_indexes_size('nodes')")[0][0]) / 2**20


def node_updates(db_url):
    """(updates, heap-only updates) of the nodes table in the build's database."""
    name = db_url.rsplit("/", 1)[1]
    rows = pg_cluster.cluster().psql(name, "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                                           "WHERE relname = 'nodes'")
    return int(rows[0][0]), int(rows[0][1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before")
    ap.add_argument("--nodes-ab", action="store_true",
                    help="one build: one node (BEFORE) against two nodes (AFTER)")
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--nodes", type=int, default=1, choices=(1, 2))
    ap.add_argument("--pg-set", action="append", default=[], metavar="NAME=VALUE",
                    help="a PostgreSQL setting for the run (ALTER SYSTEM; repeatable)")
    args = ap.parse_args()
    after_bin = engines.NUBO
    if args.nodes_ab:
        args.before = after_bin
    elif not args.before:
        ap.error("--before is required (or --nodes-ab)")
    pool = random.Random(3).randbytes(4096 + args.files * args.rounds)
    folders = ["/dav/r%d/" % r for r in range(args.rounds)]
    tmp = tempfile.mkdtemp(prefix="nubo-pg-writes-ab-", dir="/var/tmp")
    for setting in args.pg_set:
        name, value = setting.split("=", 1)
        pg_cluster.cluster().psql("postgres", "ALTER SYSTEM SET %s = '%s'" % (name, value))
    if args.pg_set:
        pg_cluster.cluster().psql("postgres", "SELECT pg_reload_conf()")
    nodes = []
    keys = ("secs", "wal", "xacts", "writes", "commits", "nubo_cpu", "pg_cpu", "upd", "hot", "walb")
    got = [{k: [] for k in keys}, {k: [] for k in keys}]
    gate = []
    try:
        nodes = [engines.ab_serve(args.before, tmp, "before", False, folders),
                 engines.ab_serve(after_bin, tmp, "after", False, folders)]
        # A second node per build: same database, same data directory.
        builds = [[n] for n in nodes]
        for k, (binary, name) in enumerate(((args.before, "before"), (after_bin, "after"))):
            if args.nodes == 2 or (args.nodes_ab and k == 1):
                second = engines.Node(os.path.join(tmp, name, "data"), nodes[k].db, os.path.join(tmp, name),
                                      "node2", binary)
                nodes.append(second)
                builds[k].append(second)
        engines.settle([n.port for n in nodes])

        def metrics(build):
            return [sum(engines.nubo_metric(n.port, "nubo_meta_%s_total" % m) or 0 for n in build)
                    for m in ("writes", "commits")]

        for r in range(args.rounds):
            for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                build, node, g = builds[k], builds[k][0], got[k]
                base = r * args.files
                engines.stat_delay()
                w0, x0, b0 = wal_syncs(), engines.pg_xacts(node.db), wal_bytes()
                u0 = node_updates(node.db)
                m0 = metrics(build)
                pgp = postgres_pids()
                pids = [p for n in build for p in n.pids()]
                c0, p0 = proc_cpu_s(pids), proc_cpu_s(pgp)
                secs, _, errs = engines.put_many([n.port for n in build], folders[r], args.files, pool[base:])
                if errs:
                    raise SystemExit("uploads failed: %s" % errs[:2])
                c1, p1 = proc_cpu_s(pids), proc_cpu_s(pgp)
                m1 = metrics(build)
                engines.stat_delay()
                w1, x1, b1 = wal_syncs(), engines.pg_xacts(node.db), wal_bytes()
                g["walb"].append(b1 - b0)
                u1 = node_updates(node.db)
                g["upd"].append(u1[0] - u0[0])
                g["hot"].append(u1[1] - u0[1])
                g["secs"].append(secs)
                g["wal"].append(w1 - w0)
                g["xacts"].append(x1 - x0)
                g["writes"].append(m1[0] - m0[0])
                g["commits"].append(m1[1] - m0[1])
                g["nubo_cpu"].append(c1 - c0)
                g["pg_cpu"].append(p1 - p0)
                listed = engines.listing(node.port, folders[r]) or {}
                if len(listed) != args.files or any(v != 4096 for v in listed.values()):
                    gate.append("%s round %d: %d files listed" % ("BEFORE" if k == 0 else "AFTER", r, len(listed)))
                engines.settle([n.port for n in build])
        idx = [index_mib(builds[k][0].db) for k in (0, 1)]
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    n = args.files * args.rounds
    print("\n%d rounds of %d PUTs of 4 KiB (16 connections) per build of %s, alternating; durable "
          "PostgreSQL 15" % (args.rounds, args.files,
                             "1 node (BEFORE) and 2 nodes (AFTER)" if args.nodes_ab else "%d node(s)" % args.nodes))
    print("BEFORE %s\nAFTER  %s" % (args.before, after_bin))
    if args.pg_set:
        print("PostgreSQL settings: %s" % ", ".join(args.pg_set))
    rates = [[args.files / s for s in g["secs"]] for g in got]
    print("| build | files/s (median round) | min..max | WAL flushes / file | transactions / file |"
          " writes / commit | nubo CPU ms / file | PostgreSQL CPU ms / file | node row updates / file |"
          " of them heap-only | WAL KiB / file | indexes of nodes at the end, MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, g, rt, im in (("BEFORE", got[0], rates[0], idx[0]), ("AFTER", got[1], rates[1], idx[1])):
        commits = sum(g["commits"])
        upd = sum(g["upd"])
        print("| %s | %.0f | %.0f..%.0f | %.2f | %.2f | %s | %.3f | %.3f | %.2f | %s | %.2f | %.1f |" % (
            label, statistics.median(rt), min(rt), max(rt), sum(g["wal"]) / n, sum(g["xacts"]) / n,
            "%.2f" % (sum(g["writes"]) / commits) if commits else "-",
            sum(g["nubo_cpu"]) * 1000 / n, sum(g["pg_cpu"]) * 1000 / n, upd / n,
            "%.0f %%" % (100.0 * sum(g["hot"]) / upd) if upd else "-", sum(g["walb"]) / n / 1024, im))
    print("AFTER / BEFORE files/s (medians): %.2f" % (statistics.median(rates[1]) / statistics.median(rates[0])))
    print("gate: every PUT 201, every folder lists its %d files of 4,096 bytes: %s"
          % (args.files, "passed" if not gate else gate))
    if gate:
        sys.exit(1)


if __name__ == "__main__":
    main()
