#!/usr/bin/env python3
"""nubo on its two metadata engines, and on two nodes, in one run.

Three setups of the same binary, each on a fresh data directory (and a
fresh database of one durable PostgreSQL 15 server started here: fsync and
synchronous_commit on, its files on the same file system as nubo's):

  sqlite   one `nubo serve`, metadata in SQLite (the default)
  pg       one `nubo serve`, metadata in PostgreSQL
  pg2      two `nubo serve` on one database and one data directory; the
           client spreads its connections over both (what a balancer does)

Workloads (the bench suite's S1 and S3, smaller):
  S1  PROPFIND Depth:1 of a folder of 1,000 and of 10,000 files, one
      keep-alive connection per node, p50 and p95 of --listings requests
  S3  --files PUTs of 4 KiB (distinct contents), 16 connections
      (2 processes x 8 threads), files/s

and, on PostgreSQL, database transactions per request (pg_stat_database:
commits + rollbacks over the phase / requests), the count that bounds how
many nodes one database serves.

Gate: each setup's S1 listings name the same files with the same sizes as
SQLite's, every PUT answers 201, and the S3 folder lists every file with
4096 bytes; a setup that fails the gate is reported, not ranked.

  python3 bench/engines.py [--files 3000] [--listings 200] [--out results.json]
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "blackbox"))
os.environ["NUBO_PG_DURABLE"] = "1"
import httpc  # noqa: E402
import pg_cluster  # noqa: E402
from suite import nubo_metric, parse_multistatus  # noqa: E402

NUBO = os.path.abspath(os.environ.get("NUBO_BENCH_BIN", os.path.join(HERE, "..", "build", "release", "nubo")))
USER, PASSWORD = "bench", "bench password 1"
AUTH = httpc.basic(USER, PASSWORD)
DAVH = {"Authorization": AUTH}
PROPFIND = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:getcontentlength/>'
            b'<D:getetag/><D:getlastmodified/><D:resourcetype/></D:prop></D:propfind>')


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p / 100))] if v else float("nan")


class Node:
    def __init__(self, data, database, log):
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
        env["NUBO_LOG_LEVEL"] = "info"
        if database:
            env["NUBO_DATABASE"] = database
        self.log = open(log, "wb")
        self.proc = subprocess.Popen([NUBO, "serve", "--listen", "127.0.0.1:0", "--data", data], env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.logpath = log
        self.port = None
        deadline = time.time() + 60
        while self.port is None:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(log, errors="replace").read())
            if m:
                self.port = int(m.group(1))
            elif self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("nubo did not start:\n" + open(log, errors="replace").read()[-2000:])
            else:
                time.sleep(0.05)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=60)
        self.log.close()


def setup_account(port):
    c = httpc.Conn(port)
    body = json.dumps({"username": USER, "password": PASSWORD}).encode()
    r = c.request("POST", "/api/v1/setup", {"Content-Type": "application/json"}, body=body)
    if r.status != 201:
        raise RuntimeError("setup answered %d" % r.status)
    c.close()


def _put_worker(args):
    ports, jobs, nthreads, pool = args
    lat, errs = [], []
    lock = threading.Lock()
    it = iter(jobs)

    def worker(k):
        c = httpc.Conn(ports[k % len(ports)])
        while True:
            with lock:
                job = next(it, None)
            if job is None:
                break
            i, path = job
            try:
                r = c.request("PUT", path, DAVH, body=pool[i:i + 4096])
                ok = r.status in (201, 204)
                with lock:
                    lat.append(r.total)
                    if not ok:
                        errs.append("%s: %d" % (path, r.status))
            except Exception as e:  # a broken connection is an error of the run
                c.close()
                with lock:
                    errs.append("%s: %s" % (path, e))
        c.close()

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(nthreads)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return t0, time.monotonic(), lat, errs


def put_many(ports, folder, n, pool, procs=2, threads=8):
    jobs = [(i, "%sf%05d.bin" % (folder, i)) for i in range(n)]
    tasks = []
    for p in range(procs):
        # Each process's threads start on a different node (p + k).
        rotated = ports[p % len(ports):] + ports[:p % len(ports)]
        tasks.append((rotated, jobs[p::procs], threads, pool))
    with multiprocessing.get_context("fork").Pool(procs) as mp:
        outs = mp.map(_put_worker, tasks)
    wall = max(o[1] for o in outs) - min(o[0] for o in outs)
    return wall, [x for o in outs for x in o[2]], [x for o in outs for x in o[3]]


def listing(port, folder):
    """{name: size} of a Depth:1 PROPFIND (the gate's view)."""
    c = httpc.Conn(port)
    r = c.request("PROPFIND", folder, dict(DAVH, Depth="1"), body=PROPFIND)
    c.close()
    if r.status != 207:
        return None
    out = parse_multistatus(r.body, folder)
    out.pop("", None)
    return out


def pg_xacts(db_url):
    name = db_url.rsplit("/", 1)[1]
    rows = pg_cluster.cluster().psql("postgres", "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                                                 "WHERE datname = '%s'" % name)
    return int(rows[0][0])


def settle(ports, timeout=600):
    """Waits until no background job (derived data of the files just
    uploaded) is due or running, so that measurements see the requests
    alone (on both engines alike); then a moment for upkeep to pass."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        busy = sum((nubo_metric(p, "nubo_jobs_due") or 0) + (nubo_metric(p, "nubo_jobs_running") or 0)
                   for p in ports)
        if busy == 0:
            break
        time.sleep(0.5)
    time.sleep(1)


def stat_delay():
    time.sleep(0.6)  # pg_stat counters are flushed by each backend at most every 500 ms


def run_setup(name, nodes_n, args, pool, tmp):
    data = os.path.join(tmp, name, "data")
    os.makedirs(data)
    db = pg_cluster.fresh_database() if name != "sqlite" else None
    nodes = [Node(data, db, os.path.join(tmp, name, "node%d.log" % i)) for i in range(1)]
    setup_account(nodes[0].port)
    for i in range(1, nodes_n):
        nodes.append(Node(data, db, os.path.join(tmp, name, "node%d.log" % i)))
    ports = [n.port for n in nodes]
    out = {"setup": name, "nodes": nodes_n}
    gate = []
    try:
        # Seed the S1 folders (through every node).
        for size in args.sizes:
            folder = "/dav/s1-%d/" % size
            c = httpc.Conn(ports[0])
            if c.request("MKCOL", folder, DAVH).status != 201:
                raise RuntimeError("MKCOL failed")
            c.close()
            _, _, errs = put_many(ports, folder, size, pool)
            if errs:
                gate.append("seed %s: %s" % (folder, errs[:2]))
        settle(ports)
        for size in args.sizes:
            folder = "/dav/s1-%d/" % size
            for k, p in enumerate(ports):
                got = listing(p, folder)
                if got is None or len(got) != size or any(v != 4096 for v in got.values()):
                    gate.append("S1 %d via node %d: %s entries" % (size, k + 1, None if got is None else len(got)))
            conns = [httpc.Conn(p) for p in ports]
            for c in conns:  # warm: credential cache, connections
                c.request("PROPFIND", folder, dict(DAVH, Depth="1"), body=PROPFIND)
            x0 = pg_xacts(db) if db else 0
            lat = []
            for i in range(args.listings):
                r = conns[i % len(conns)].request("PROPFIND", folder, dict(DAVH, Depth="1"), body=PROPFIND)
                if r.status != 207:
                    gate.append("S1 PROPFIND answered %d" % r.status)
                    break
                lat.append(r.total * 1000)
            for c in conns:
                c.close()
            if db:
                stat_delay()
                out["s1_%d_xacts_per_req" % size] = (pg_xacts(db) - x0) / args.listings
            out["s1_%d_p50_ms" % size] = pct(lat, 50)
            out["s1_%d_p95_ms" % size] = pct(lat, 95)
        # S3.
        folder = "/dav/s3/"
        c = httpc.Conn(ports[0])
        c.request("MKCOL", folder, DAVH)
        c.close()
        settle(ports)
        x0 = pg_xacts(db) if db else 0
        wall, lat, errs = put_many(ports, folder, args.files, pool)
        if db:
            stat_delay()
            out["s3_xacts_per_put"] = (pg_xacts(db) - x0) / args.files
        out["s3_files_per_s"] = args.files / wall
        out["s3_p50_ms"] = pct([x * 1000 for x in lat], 50)
        if errs:
            gate.append("S3: %d errors, e.g. %s" % (len(errs), errs[:2]))
        got = listing(ports[-1], folder)
        if got is None or len(got) != args.files or any(v != 4096 for v in got.values()):
            gate.append("S3 listing: %s entries" % (None if got is None else len(got)))
        out["listing_names"] = {s: sorted(listing(ports[0], "/dav/s1-%d/" % s) or {}) for s in args.sizes}
    finally:
        for n in reversed(nodes):
            n.stop()
    fsck = subprocess.run([NUBO, "--data", data, "fsck"], capture_output=True, text=True,
                          env=dict({k: v for k, v in os.environ.items() if not k.startswith("NUBO_")},
                                   **({"NUBO_DATABASE": db} if db else {})))
    if fsck.returncode != 0:
        gate.append("fsck: " + fsck.stdout[-300:])
    out["gate"] = gate
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--listings", type=int, default=200)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--out")
    args = ap.parse_args()
    if not os.access(NUBO, os.X_OK):
        sys.exit("no nubo binary at %s (make build, or set NUBO_BENCH_BIN)" % NUBO)
    pool = random.Random(3).randbytes(max(args.files, max(args.sizes)) + 4096)
    tmp = tempfile.mkdtemp(prefix="nubo-engines-", dir="/var/tmp")
    results = []
    try:
        for name, n in (("sqlite", 1), ("pg", 1), ("pg2", 2)):
            print("running %s ..." % name, flush=True)
            results.append(run_setup(name, n, args, pool, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = results[0]
    for r in results[1:]:
        if r["listing_names"] != base["listing_names"]:
            r["gate"].append("listings differ from SQLite's")
    cols = ["s1_%d_p50_ms" % s for s in args.sizes] + ["s1_%d_p95_ms" % s for s in args.sizes] + \
        ["s3_files_per_s", "s3_p50_ms"]
    print("\n%-8s %s" % ("setup", " ".join("%16s" % c for c in cols)))
    for r in results:
        print("%-8s %s%s" % (r["setup"], " ".join("%16.2f" % r[c] for c in cols),
                             "   GATE FAILED: %s" % r["gate"] if r["gate"] else ""))
    byname = {r["setup"]: r for r in results}
    print("\nratios (one run):")
    for s in args.sizes:
        print("  S1 %5d files p50: pg / sqlite = %.2f   (target <= 1.5)" %
              (s, byname["pg"]["s1_%d_p50_ms" % s] / byname["sqlite"]["s1_%d_p50_ms" % s]))
    print("  S3 files/s: pg / sqlite = %.2f;  pg2 / pg = %.2f   (target >= 1.0)" %
          (byname["pg"]["s3_files_per_s"] / byname["sqlite"]["s3_files_per_s"],
           byname["pg2"]["s3_files_per_s"] / byname["pg"]["s3_files_per_s"]))
    print("\ndatabase transactions per request (PostgreSQL):")
    for r in results[1:]:
        print("  %-4s S1 %s; S3 %.2f per PUT" % (
            r["setup"], ", ".join("%d files %.2f" % (s, r["s1_%d_xacts_per_req" % s]) for s in args.sizes),
            r["s3_xacts_per_put"]))
    if args.out:
        for r in results:
            r.pop("listing_names", None)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    if any(r["gate"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
