"""Two nubo builds side by side for the A/B scenarios: BEFORE (--before BINARY)
and AFTER (the build under test), the same data, alternating requests, every
pair of answers gated."""
import os
import shutil
import sys
import tempfile
import time

from lib.api import ADMIN, AB_ENV, Api, ServerError, multipart_body
from lib.servers import NUBO, start_nubo
from lib.stats import pct


def wait_queue_empty(admin, poll=0.2):
    """Until the job queue has nothing due and nothing running (`admin`: an
    administrator's Api)."""
    while True:
        q = admin.call("GET", "/admin/jobs")
        if q["due"] + q["running"] == 0:
            return
        time.sleep(poll)


def print_ab_table(rows):
    """The A/B scenarios' table: rows of (request, requests per build,
    BEFORE ms list, AFTER ms list)."""
    print("| request | per build | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE | p95 B / A |")
    print("|---|---|---|---|---|---|")
    for label, reps, before, after in rows:
        b50, a50 = pct(before, 50), pct(after, 50)
        print("| %s | %d | %.3f | %.3f | %.2f | %.3f / %.3f |" % (label, reps, b50, a50, a50 / b50,
                                                              pct(before, 95), pct(after, 95)))


def ab_env(postgres):
    """AB_ENV, on one fresh database of a durable PostgreSQL 15 started
    here (tests/blackbox/pg_cluster.py, dropped at exit) when `postgres`."""
    env = dict(AB_ENV)
    if postgres:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                        "blackbox"))
        os.environ["NUBO_PG_DURABLE"] = "1"
        import pg_cluster
        env["NUBO_DATABASE"] = pg_cluster.fresh_database()
    return env


class AbPair:
    """Two builds serving one data directory at once: BEFORE (--before)
    creates and seeds it, then AFTER (the binary under test) starts on the
    same directory (applying any new migration). Requests then alternate
    between them (the order flips every repetition), so both see the same
    machine state; every pair of answers must be byte-identical (the
    equivalence gate)."""

    def __init__(self, args, seed, separate=False, seed_env=None, env=None):
        """separate: each build seeds and serves its own data directory
        (for changes to the stored order or format, where the builds cannot
        share one database nor answer byte for byte alike). seed_env: the
        seeding server's environment instead of AB_ENV (e.g. with its job
        queue on, for what the jobs derive from the seeded files). env:
        every server's environment instead of AB_ENV (seed_env still first
        for the seeding server)."""
        if separate:
            self._init_separate(args, seed)
            return
        if not args.before or not os.path.exists(args.before):
            raise SystemExit("%s needs --before BINARY (the build to compare against)" % args.scenario)
        self.after_bin, self.before_bin = NUBO, args.before
        self.tmp = tempfile.mkdtemp(prefix="nubo-bench-ab-", dir=args.tmpdir)
        self.servers = []
        try:
            env = env or AB_ENV
            before = start_nubo(self.tmp, env=seed_env or env, binary=self.before_bin)
            self.servers.append(before)
            api = Api(before.port, *ADMIN)
            api.setup()
            self.root = api.root_id()
            self.seeded = seed(api, self.root)
            api.close()
            # Seeding leaves BEFORE's process warm in ways a fresh one is
            # not (measured: the same binary on both sides read 1.3-1.7x
            # slower as the second-started server), so BEFORE restarts: both
            # serve from fresh processes. (BEFORE first: it would refuse a
            # database AFTER has migrated past it.)
            before.stop()
            self.servers = [start_nubo(self.tmp, env=env, binary=self.before_bin)]
            self.servers.insert(0, start_nubo(self.tmp, env=env, binary=self.after_bin))  # [AFTER, BEFORE]
            self.apis = [Api(srv.port, *ADMIN) for srv in self.servers]
        except BaseException:
            self.close()
            raise

    def _init_separate(self, args, seed):
        if not args.before or not os.path.exists(args.before):
            raise SystemExit("%s needs --before BINARY (the build to compare against)" % args.scenario)
        self.after_bin, self.before_bin = NUBO, args.before
        self.tmp = tempfile.mkdtemp(prefix="nubo-bench-ab-", dir=args.tmpdir)
        self.servers = []
        dirs = [os.path.join(self.tmp, "after"), os.path.join(self.tmp, "before")]
        self.seeded = [None, None]  # [AFTER, BEFORE]
        self.seed_s = [None, None]
        try:
            for which, binary in ((1, self.before_bin), (0, self.after_bin)):
                os.makedirs(dirs[which])
                srv = start_nubo(dirs[which], env=AB_ENV, binary=binary)
                try:
                    api = Api(srv.port, *ADMIN)
                    api.setup()
                    root = api.root_id()
                    t0 = time.perf_counter()
                    self.seeded[which] = seed(api, root)
                    self.seed_s[which] = time.perf_counter() - t0
                    api.close()
                finally:
                    srv.stop()
            # Both serve from fresh processes (see __init__).
            for which, binary in ((1, self.before_bin), (0, self.after_bin)):
                self.servers.append(start_nubo(dirs[which], env=AB_ENV, binary=binary))
            self.servers.reverse()  # [AFTER, BEFORE]
            self.apis = [Api(srv.port, *ADMIN) for srv in self.servers]
        except BaseException:
            self.close()
            raise

    def alternate(self, reps, method, path, body=None, headers=None, expect=200, what="", same=None):
        """Times `reps` requests on each build; returns (BEFORE ms list, AFTER
        ms list). `path` may be a pair (AFTER's, BEFORE's); `same(after_body,
        before_body)` replaces the byte-identity gate."""
        paths = path if isinstance(path, tuple) else (path, path)
        times = ([], [])
        conns = [a.conn for a in self.apis]
        for rep in range(reps):
            bodies = []
            for which in ((0, 1) if rep % 2 else (1, 0)):
                h = {"Authorization": self.apis[which].auth}
                h.update(headers or {})
                t = time.perf_counter()
                r = conns[which].request(method, paths[which], h, body)
                times[which].append((time.perf_counter() - t) * 1000)
                if r.status != expect:
                    raise ServerError("%s: %d %r" % (what or path, r.status, r.body[:200]))
                bodies.append(r.body)
            # bodies holds this repetition's answers in request order.
            after_body, before_body = (bodies[0], bodies[1]) if rep % 2 else (bodies[1], bodies[0])
            if not (same(after_body, before_body) if same else after_body == before_body):
                raise SystemExit("equivalence gate failed: %s differs between BEFORE and AFTER" % (what or path))
        return times[1], times[0]

    def close(self):
        for a in getattr(self, "apis", []):
            a.close()
        for srv in self.servers:
            if srv.proc.poll() is None:
                srv.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)


def seed_folder(api, parent, name, specs):
    folder = api.call("POST", "/nodes/%s/folders" % parent, {"name": name}, expect=201)["id"]
    for i in range(0, len(specs), 1000):
        ctype, body = multipart_body(specs[i:i + 1000])
        api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})
    return folder
