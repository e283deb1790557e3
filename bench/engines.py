#!/usr/bin/env python3
"""nubo on its two metadata engines, and on two nodes, in one run.

Three setups of the same binary, each on a fresh data directory (and a
fresh database of one durable PostgreSQL 15 server started here: fsync and
synchronous_commit on, its files on the same file system as nubo's):

  sqlite   one `nubo serve`, metadata in SQLite (the default)
  pg       one `nubo serve`, metadata in PostgreSQL
  pg2      two `nubo serve` on one database and one data directory; the
           client spreads its connections over both (what a balancer does)

Workloads (the bench suite's S1, S3 and S7, smaller):
  S1  PROPFIND Depth:1 of a folder of 1,000 and of 10,000 files, one
      keep-alive connection per node, p50 and p95 of --listings requests
  S3  --files PUTs of 4 KiB (distinct contents), 16 connections
      (2 processes x 8 threads), files/s
  S7  the suite's mixed load (16 users, upload/download/list/rename/
      delete, cdperf sizes divided by --s7-scale) for --s7-seconds, ops/s
  CS  content search: --docs text files of 200 words, indexed, then
      --searches GET /api/v1/search/content for one word, p50 and p95
  copy (SQLite only) `nubo db copy` of the finished installation into a
      fresh PostgreSQL database: seconds, rows/s, peak RSS of the copy

and, on PostgreSQL, database transactions per request (pg_stat_database:
commits + rollbacks over the phase / requests), the count that bounds how
many nodes one database serves.

Gate: each setup's S1 listings name the same files with the same sizes as
SQLite's, every PUT answers 201, the S3 folder lists every file with 4096
bytes, S7's operations all pass their checks (the suite's gate), content
search finds the same documents on every setup, and the copy exits 0 (it
compares every table and runs fsck itself); a setup that fails the gate is
reported, not ranked.

  python3 bench/engines.py [--files 3000] [--listings 200] [--s7-seconds 30] [--docs 2000]
                           [--out results.json]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "blackbox"))
os.environ["NUBO_PG_DURABLE"] = "1"
import pg_cluster  # noqa: E402
import s7_mixed  # noqa: E402
from lib import httpc  # noqa: E402
from lib.api import Api  # noqa: E402
from lib.proc import pool_map  # noqa: E402
from lib.servers import NUBO, PASSWORD, USER, Nubo  # noqa: E402  (the suite's S7 speaks as this account)
from lib.stats import pct  # noqa: E402
from lib.suite import DAVH, POOL, nubo_metric, parse_multistatus, run_pool  # noqa: E402

PROPFIND = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:getcontentlength/>'
            b'<D:getetag/><D:getlastmodified/><D:resourcetype/></D:prop></D:propfind>')


def Node(data, database, tmp, name, binary=None):
    """One `nubo serve` on `data` and `database` (None: SQLite in data), its log in tmp/name/."""
    env = {"NUBO_LOG_LEVEL": "info"}
    if database:
        env["NUBO_DATABASE"] = database
    node = Nubo(tmp, binary, name=name, env=env, data=data, access_log=True)
    node.start()
    return node

def setup_account(port):
    api = Api(port, USER, PASSWORD)
    api.setup()
    api.close()


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


def ab_serve(binary, tmp, name, sqlite, folders):
    """One build of an A/B benchmark: `binary` serving a fresh data
    directory under tmp/name and a fresh PostgreSQL database (or SQLite),
    with the account set up and `folders` created. `.db`: the database URL
    or None."""
    data = os.path.join(tmp, name, "data")
    os.makedirs(data)
    db = None if sqlite else pg_cluster.fresh_database()
    node = Node(data, db, os.path.join(tmp, name), "node", binary)
    setup_account(node.port)
    c = httpc.Conn(node.port)
    for f in folders:
        c.request("MKCOL", f, DAVH)
    c.close()
    node.db = db
    return node


def ab_upload(node, jobs, pool):
    """Seconds to PUT `jobs` ((pool offset, path) pairs, 4 KiB each) over
    16 connections from two processes; fails the run on any error."""
    tasks = [([node.port], jobs[p::2], 8, pool) for p in range(2)]
    outs = pool_map(_put_worker, tasks, 2)
    errs = [e for o in outs for e in o[3]]
    if errs:
        raise SystemExit("uploads failed: %s" % errs[:2])
    return max(o[1] for o in outs) - min(o[0] for o in outs)


def put_many(ports, folder, n, pool, procs=2, threads=8):
    jobs = [(i, "%sf%05d.bin" % (folder, i)) for i in range(n)]
    tasks = []
    for p in range(procs):
        # Each process's threads start on a different node (p + k).
        rotated = ports[p % len(ports):] + ports[:p % len(ports)]
        tasks.append((rotated, jobs[p::procs], threads, pool))
    outs = pool_map(_put_worker, tasks, procs)
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
    # An idle backend flushes its pg_stat counters once at least 1 s has
    # passed since its last flush (PostgreSQL 15); wait that out.
    time.sleep(1.5)


WORDS = ["w%03d" % i for i in range(400)]


def doc_text(i):
    """Document i: 200 words from a vocabulary of 400, so each word is in
    about two documents in five (a common word: the ranking's hard case);
    "needle" in every tenth."""
    rng = random.Random(i)
    words = [rng.choice(WORDS) for _ in range(200)]
    if i % 10 == 0:
        words[rng.randrange(200)] = "needle"
    return (" ".join(words) + "\n").encode()


def _doc_worker(args):
    ports, jobs = args
    errs = []
    c = httpc.Conn(ports[0])
    for k, (i, path) in enumerate(jobs):
        if k % 50 == 0 and len(ports) > 1:
            c.close()
            c = httpc.Conn(ports[(k // 50) % len(ports)])
        r = c.request("PUT", path, DAVH, body=doc_text(i))
        if r.status not in (201, 204):
            errs.append("%s: %d" % (path, r.status))
    c.close()
    return errs


def search(port, q, want_all=True, headers=DAVH):
    """Names of every document found for q (all pages), and the first
    page's latency; as the bench's account unless `headers` say another."""
    c = httpc.Conn(port)
    names, cursor, first = [], None, None
    while True:
        path = "/api/v1/search/content?q=%s&limit=100%s" % (q, "&cursor=" + cursor if cursor else "")
        r = c.request("GET", path, headers)
        if r.status != 200:
            c.close()
            raise RuntimeError("search answered %d: %r" % (r.status, r.body[:200]))
        if first is None:
            first = r.total
        body = json.loads(r.body)
        names += [i["node"]["name"] for i in body["items"]]
        cursor = body.get("next_cursor")
        if not cursor or not want_all:
            c.close()
            return sorted(names), first


def run_copy(data, out, gate):
    """`nubo db copy` of a stopped SQLite installation into a fresh
    PostgreSQL database: its time, rows and peak RSS (wait4's rusage of
    that one process)."""
    db = pg_cluster.fresh_database()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    t0 = time.monotonic()
    p = subprocess.Popen([NUBO, "--data", data, "db", "copy", "--from", "sqlite:" + data + "/nubo.db", "--to", db],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = p.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(p.pid, 0)
    secs = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    m = re.search(r"db copy: (\d+) tables, (\d+) rows", text)
    if p.returncode != 0 or not m:
        gate.append("db copy exited %d: %s" % (p.returncode, text[-400:]))
        return
    out["copy_rows"] = int(m.group(2))
    out["copy_s"] = secs
    out["copy_rows_per_s"] = int(m.group(2)) / secs
    out["copy_peak_rss_mib"] = usage.ru_maxrss / 1024


def run_setup(name, nodes_n, args, pool, tmp):
    data = os.path.join(tmp, name, "data")
    os.makedirs(data)
    db = pg_cluster.fresh_database() if name != "sqlite" else None
    nodes = [Node(data, db, os.path.join(tmp, name), "node0")]
    setup_account(nodes[0].port)
    for i in range(1, nodes_n):
        nodes.append(Node(data, db, os.path.join(tmp, name), "node%d" % i))
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
        # S7: the suite's mixed load, its 16 users spread over the nodes.
        c = httpc.Conn(ports[0])
        for tid in range(16):
            if c.request("MKCOL", "/dav/mix-r0-u%02d/" % tid, DAVH).status != 201:
                gate.append("S7 MKCOL failed")
        c.close()
        settle(ports)
        x0 = pg_xacts(db) if db else 0
        wall, lat, errs = run_pool(ports, s7_mixed.user_op, None, 16, {"seed": 7, "round": 0, "scale": args.s7_scale},
                                         deadline_in=args.s7_seconds)
        if db:
            stat_delay()
            out["s7_xacts_per_op"] = (pg_xacts(db) - x0) / max(1, len(lat))
        out["s7_ops_per_s"] = len(lat) / wall
        out["s7_p50_ms"] = pct([x * 1000 for _, x in lat], 50)
        out["s7_p95_ms"] = pct([x * 1000 for _, x in lat], 95)
        if errs:
            gate.append("S7: %d errors, e.g. %s" % (len(errs), errs[:2]))
        # Content search over --docs text files, once all are indexed.
        c = httpc.Conn(ports[0])
        c.request("MKCOL", "/dav/docs/", DAVH)
        c.close()
        jobs = [(i, "/dav/docs/d%05d.txt" % i) for i in range(args.docs)]
        parts = pool_map(_doc_worker, [(ports, jobs[0::2]), (ports[::-1], jobs[1::2])], 2)
        errs = [e for part in parts for e in part]
        if errs:
            gate.append("CS uploads: %s" % errs[:2])
        settle(ports)
        found, _ = search(ports[-1], "needle")
        out["cs_found"] = found
        if len(found) != (args.docs + 9) // 10:
            gate.append("CS: needle found in %d documents, want %d" % (len(found), (args.docs + 9) // 10))
        for q, key in (("needle", "cs_rare"), ("w123", "cs_common")):
            lat = [search(ports[i % len(ports)], q, want_all=False)[1] * 1000 for i in range(args.searches)]
            out[key + "_p50_ms"] = pct(lat, 50)
            out[key + "_p95_ms"] = pct(lat, 95)
    finally:
        for n in reversed(nodes):
            n.stop()
    fsck = subprocess.run([NUBO, "--data", data, "fsck"], capture_output=True, text=True,
                          env=dict({k: v for k, v in os.environ.items() if not k.startswith("NUBO_")},
                                   **({"NUBO_DATABASE": db} if db else {})))
    if fsck.returncode != 0:
        gate.append("fsck: " + fsck.stdout[-300:])
    if name == "sqlite":
        run_copy(data, out, gate)
    out["gate"] = gate
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=3000)
    ap.add_argument("--listings", type=int, default=200)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--s7-seconds", type=float, default=30)
    ap.add_argument("--s7-scale", type=int, default=10)
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--searches", type=int, default=100)
    ap.add_argument("--out")
    args = ap.parse_args()
    if not os.access(NUBO, os.X_OK):
        sys.exit("no nubo binary at %s (make build, or set NUBO_BENCH_BIN)" % NUBO)
    pool = random.Random(3).randbytes(max(args.files, max(args.sizes)) + 4096)
    POOL["s7"] = random.Random(7).randbytes(100000000 // args.s7_scale + (1 << 20))
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
        if r.get("cs_found") != base.get("cs_found"):
            r["gate"].append("content search found other documents than SQLite's")
    cols = ["s1_%d_p50_ms" % s for s in args.sizes] + ["s1_%d_p95_ms" % s for s in args.sizes] + \
        ["s3_files_per_s", "s3_p50_ms", "s7_ops_per_s", "s7_p50_ms", "s7_p95_ms", "cs_rare_p50_ms", "cs_common_p50_ms"]
    print("\n%-8s %s" % ("setup", " ".join("%16s" % c for c in cols)))
    for r in results:
        print("%-8s %s%s" % (r["setup"], " ".join("%16.2f" % r.get(c, float("nan")) for c in cols),
                             "   GATE FAILED: %s" % r["gate"] if r["gate"] else ""))
    byname = {r["setup"]: r for r in results}
    print("\nratios (one run):")
    for s in args.sizes:
        print("  S1 %5d files p50: pg / sqlite = %.2f   (target <= 1.5)" %
              (s, byname["pg"]["s1_%d_p50_ms" % s] / byname["sqlite"]["s1_%d_p50_ms" % s]))
    print("  S3 files/s: pg / sqlite = %.2f;  pg2 / pg = %.2f   (target >= 1.0)" %
          (byname["pg"]["s3_files_per_s"] / byname["sqlite"]["s3_files_per_s"],
           byname["pg2"]["s3_files_per_s"] / byname["pg"]["s3_files_per_s"]))
    print("  S7 ops/s:   pg / sqlite = %.2f;  pg2 / pg = %.2f   (target >= 1.0)" %
          (byname["pg"]["s7_ops_per_s"] / byname["sqlite"]["s7_ops_per_s"],
           byname["pg2"]["s7_ops_per_s"] / byname["pg"]["s7_ops_per_s"]))
    for key, what in (("cs_rare", "rare word"), ("cs_common", "common word")):
        print("  content search p50, %s: pg / sqlite = %.2f" %
              (what, byname["pg"][key + "_p50_ms"] / byname["sqlite"][key + "_p50_ms"]))
    if "copy_s" in base:
        print("\nnubo db copy of the SQLite installation: %d rows in %.2f s (%.0f rows/s), peak RSS %.1f MiB" %
              (base["copy_rows"], base["copy_s"], base["copy_rows_per_s"], base["copy_peak_rss_mib"]))
    print("\ndatabase transactions per request (PostgreSQL):")
    for r in results[1:]:
        print("  %-4s S1 %s; S3 %.2f per PUT; S7 %.2f per operation" % (
            r["setup"], ", ".join("%d files %.2f" % (s, r["s1_%d_xacts_per_req" % s]) for s in args.sizes),
            r["s3_xacts_per_put"], r.get("s7_xacts_per_op", float("nan"))))
    if args.out:
        for r in results:
            r.pop("listing_names", None)
            r.pop("cs_found", None)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)
    if any(r["gate"] for r in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
