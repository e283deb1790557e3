#!/usr/bin/env python3
"""The metadata side of a big upload, BEFORE and AFTER a change, from one run.

A file of --mib MiB of fresh random bytes has about four thousand chunks a
GiB; its commit counts a reference to each (and a permanent delete drops
them). On PostgreSQL every statement is a round trip made while the
database-wide writer lock is held. To see that part, each build's data
directory (the chunk files) is on /dev/shm, where writing and syncing the
bytes costs little; the metadata is on SQLite (in that directory: this
side shows what the change costs an installation without PostgreSQL) or
on a fresh database of one durable PostgreSQL 15 (tests/blackbox/
pg_cluster.py) per build.

Rounds alternate the builds, the order flipping every round. Each round,
on each build: PUT the file (timed), then DELETE it and empty the trash
(timed: the purge drops the references). Gate: the file downloads with
the SHA-256 of the bytes sent, and after the purge it is gone (404).

  NUBO_BENCH_BIN=AFTER python3 bench/big_commit_ab.py --before BEFORE [--mib 512] [--rounds 7]
"""
import argparse
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "blackbox"))
os.environ["NUBO_PG_DURABLE"] = "1"
import pg_cluster  # noqa: E402
from lib import httpc  # noqa: E402
from lib.api import ADMIN, Api, FAST_ARGON2, MiB  # noqa: E402
from lib.proc import free_port  # noqa: E402
from lib.servers import NUBO, Nubo  # noqa: E402


def start(binary, tmp, database):
    env = dict(FAST_ARGON2)
    if database:
        env["NUBO_DATABASE"] = database
    data = tempfile.mkdtemp(prefix="nubo-bigcommit-", dir="/dev/shm")
    s = Nubo(tmp, binary, env=env, data=data)
    s.port = free_port()
    s.log_file = "nubo-%d.log" % s.port
    s.start()
    api = Api(s.port, *ADMIN)
    api.setup()
    return s, data


def one_round(srv, body, want, name):
    auth = httpc.basic(*ADMIN)
    c = httpc.Conn(srv.port, timeout=3600)
    path = "/dav/%s" % name
    t = time.perf_counter()
    r = c.request("PUT", path, {"Authorization": auth}, body)
    put_ms = (time.perf_counter() - t) * 1000
    if r.status != 201:
        raise SystemExit("gate: PUT answered %d" % r.status)
    g = hashlib.sha256()
    r = c.request("GET", path, {"Authorization": auth}, keep_body=False, sink=g.update)
    if r.status != 200 or g.hexdigest() != want:
        raise SystemExit("gate: %s does not download as sent" % name)
    r = c.request("DELETE", path, {"Authorization": auth})
    if r.status not in (200, 204):
        raise SystemExit("gate: DELETE answered %d" % r.status)
    t = time.perf_counter()
    r = c.request("DELETE", "/api/v1/trash", {"Authorization": auth})
    purge_ms = (time.perf_counter() - t) * 1000
    if r.status not in (200, 204):
        raise SystemExit("gate: emptying the trash answered %d: %r" % (r.status, r.body[:200]))
    if c.request("GET", path, {"Authorization": auth}).status != 404:
        raise SystemExit("gate: %s still there after the purge" % name)
    c.close()
    return put_ms, purge_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--mib", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    builds = {"before": os.path.abspath(args.before), "after": NUBO}
    tmp = tempfile.mkdtemp(prefix="nubo-bench-bigcommit-")
    rows = []
    try:
        for engine in ("sqlite", "postgresql"):
            servers, datas = {}, []
            took = {(b, k): [] for b in builds for k in ("put", "purge")}
            try:
                for b, binary in builds.items():
                    db = pg_cluster.fresh_database() if engine == "postgresql" else None
                    servers[b], d = start(binary, os.path.join(tmp, engine + "-" + b), db)
                    datas.append(d)
                for rep in range(args.rounds):
                    body = os.urandom(args.mib * MiB)
                    want = hashlib.sha256(body).hexdigest()
                    for b in (("before", "after") if rep % 2 == 0 else ("after", "before")):
                        # Each build gets bytes of its own (no chunk of one is the other's).
                        mine = body if b == "before" else bytes(x ^ 0x5a for x in body[:64]) + body[64:]
                        h = want if b == "before" else hashlib.sha256(mine).hexdigest()
                        put, purge = one_round(servers[b], mine, h, "big-%d.bin" % rep)
                        took[(b, "put")].append(put)
                        took[(b, "purge")].append(purge)
            finally:
                for s in servers.values():
                    s.stop()
                for d in datas:
                    shutil.rmtree(d, ignore_errors=True)
            for kind, what in (("put", "PUT"), ("purge", "empty the trash holding it")):
                b, a = statistics.median(took[("before", kind)]), statistics.median(took[("after", kind)])
                rows.append(("%s, %d MiB of fresh bytes, %s: ms (median of %d)" % (what, args.mib, engine, args.rounds),
                             "%.0f" % b, "%.0f" % a, "%.2f" % (a / b)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("| big upload's metadata (chunks on /dev/shm) | BEFORE | AFTER | AFTER/BEFORE time |")
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)


if __name__ == "__main__":
    main()
