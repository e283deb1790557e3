"""Scenario auth-storm: a password-guessing storm must not starve file I/O.

One server with production Argon2id parameters (t=3, 64 MiB) and
http.trusted_proxies = 127.0.0.1, so X-Forwarded-For gives the storm 50
client addresses. A reader downloads a 256 MiB file (quick: 64 MiB) with
an app password, first quietly (9 times), then while the storm runs: 1,000 Basic-auth
requests with wrong passwords for another account, 20 from each of 50
addresses, about 100 a second from 16 client threads. Printed: download MB/s quiet and during
the storm (median of the downloads that ran entirely inside the storm), the
ratio, the storm's answers by status, and the Argon2id runs the server
counted. With --before, the same for the older build, each on its own data
directory, so the tables compare the two. A last row repeats AFTER with
Argon2id made nearly free: the floor, what the storm's requests and the
client threads on these same 2 cores cost the download by themselves. Gate: every download returns the
file's full length with the right SHA-256; every storm answer is 401, 429
or 503.
"""
import concurrent.futures
import hashlib
import os
import re
import shutil
import statistics
import tempfile
import threading
import time

from lib import httpc
from lib.api import ADMIN, Api, MiB, ServerError
from lib.data import FreshFs
from lib.servers import NUBO, start_nubo

ADDRESSES = 50
PER_ADDRESS = 20
THREADS = 16
RATE = 100  # wrong passwords per second
EXTRA_ENV = dict(kv.split("=", 1) for kv in os.environ.get("NUBO_STORM_ENV", "").split() if kv)


def metric(port, name):
    status, body = httpc.fetch(port, "/metrics")
    if status != 200:
        raise ServerError("GET /metrics answered %d" % status)
    text = body.decode()
    m = re.search(r"^%s (\d+)" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else 0


def download(api, node_id, want_sha):
    """One streamed GET on `api`'s connection: (MB/s, start, end); the
    body's SHA-256 must match."""
    h = hashlib.sha256()
    t = time.perf_counter()
    _, total = api.get_content(node_id, h)
    dt = time.perf_counter() - t
    if h.hexdigest() != want_sha:
        raise ServerError("download differs from the upload")
    return total / 1e6 / dt, t, t + dt


def storm(port, rate):
    """1,000 wrong passwords for "victim", sent at about `rate` per second
    (the attacker's CPU is ours here: an unpaced storm of 16 Python threads
    would measure the client's CPU, not the server's): (statuses, wall s)."""
    statuses = {}
    lock = threading.Lock()
    local = threading.local()  # one keep-alive connection per client thread
    t0 = time.perf_counter()

    def one(i):
        due = t0 + i / rate
        now = time.perf_counter()
        if due > now:
            time.sleep(due - now)
        addr = "198.18.%d.%d" % (i % ADDRESSES // 250, i % ADDRESSES % 250 + 1)
        auth = httpc.basic("victim", "guess %d" % i)
        conn = getattr(local, "conn", None)
        if conn is None:
            conn = local.conn = httpc.Conn(port, timeout=120)
        r = conn.request("GET", "/api/v1/me", {"Authorization": auth, "X-Forwarded-For": addr})
        with lock:
            statuses[r.status] = statuses.get(r.status, 0) + 1

    with concurrent.futures.ThreadPoolExecutor(THREADS) as ex:
        list(ex.map(one, range(ADDRESSES * PER_ADDRESS)))
    return statuses, time.perf_counter() - t0


def measure(binary, where, size, quiet_reps, rate, env):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-storm-", dir=where)
    srv = start_nubo(tmp, env=dict({"NUBO_TRUSTED_PROXIES": "127.0.0.1", "NUBO_ACCESS_LOG": "false"}, **env),
               binary=binary)
    try:
        api = Api(srv.port, *ADMIN)
        api.setup()
        for name in ("victim", "reader"):
            api.call("POST", "/admin/users", {"username": name, "password": name + " password!"}, expect=201)
        reader = Api(srv.port, "reader", "reader password!")
        app = reader.call("POST", "/me/app-passwords", {"label": "sync"}, expect=201)["password"]
        reader = Api(srv.port, "reader", app)
        root = reader.root_id()
        src = os.path.join(tmp, "big.bin")
        with open(src, "wb") as f:
            f.write(os.urandom(size))
        with open(src, "rb") as f:
            want = hashlib.sha256(f.read()).hexdigest()
        status, body = reader.put_file("/nodes/%s/files/big.bin" % root, src, size)
        if status != 201:
            raise ServerError("upload answered %d: %r" % (status, body[:200]))
        node = __import__("json").loads(body)["id"]
        download(reader, node, want)  # warm the page cache and the credential
        quiet = [download(reader, node, want)[0] for _ in range(quiet_reps)]
        runs_before = metric(srv.port, "nubo_auth_argon2_verifications_total")
        result = {}
        done = threading.Event()

        def run_storm():
            result["statuses"], result["wall"] = storm(srv.port, rate)
            result["end"] = time.perf_counter()
            done.set()

        start = time.perf_counter()
        th = threading.Thread(target=run_storm)
        th.start()
        during = []
        while not done.is_set():
            mbps, t0, t1 = download(reader, node, want)
            if not done.is_set() and t0 >= start:
                during.append(mbps)
        th.join()
        bad = {s: n for s, n in result["statuses"].items() if s not in (401, 429, 503)}
        if bad:
            raise ServerError("storm answers other than 401/429/503: %r" % bad)
        runs = metric(srv.port, "nubo_auth_argon2_verifications_total") - runs_before
        return {"quiet": statistics.median(quiet), "during": statistics.median(during) if during else 0.0,
                "downloads_during": len(during), "statuses": result["statuses"], "wall": result["wall"],
                "argon2": runs}
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def run(args):
    size = (64 if args.quick else 256) * MiB
    fresh = None
    where = args.tmpdir
    if where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4"):
        fresh = FreshFs(4 * size + (2 << 30))
        where = fresh.mnt
    # The last row is the floor: the same storm against AFTER with Argon2id
    # made nearly free, i.e. what the storm's requests and this machine's
    # client threads cost the download by themselves.
    builds = [("AFTER", NUBO, EXTRA_ENV),
              ("AFTER, Argon2id t=1 8 MiB (floor)", NUBO,
               dict(EXTRA_ENV, NUBO_ARGON2_OPS="1", NUBO_ARGON2_MEM="8MiB"))]
    if args.before:
        builds.insert(0, ("BEFORE", args.before, EXTRA_ENV))
    rows = []
    try:
        for label, binary, env in builds:
            rows.append((label, binary, measure(binary, where, size, 3 if args.quick else 9, RATE, env)))
    finally:
        if fresh:
            fresh.close()
    print("\nscenario auth-storm: %d MiB download with an app password, quiet vs during %d wrong passwords "
          "(%d addresses x %d, ~%d/s from %d client threads), production Argon2id; load before: %s"
          % (size >> 20, ADDRESSES * PER_ADDRESS, ADDRESSES, PER_ADDRESS, RATE, THREADS, args.load))
    print("| build | quiet MB/s | during storm MB/s | during/quiet | downloads in storm | storm s | "
          "storm answers | Argon2id runs |")
    print("|---|---|---|---|---|---|---|---|")
    for label, binary, r in rows:
        answers = ", ".join("%d×%d" % (n, s) for s, n in sorted(r["statuses"].items()))
        print("| %s (%s) | %.0f | %.0f | %.2f | %d | %.1f | %s | %d |"
              % (label, binary, r["quiet"], r["during"], r["during"] / r["quiet"] if r["quiet"] else 0,
                 r["downloads_during"], r["wall"], answers, r["argon2"]))
    print("gate: every download returned the full file with its SHA-256; storm answers only 401/429/503")
