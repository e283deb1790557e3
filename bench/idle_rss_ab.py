"""Scenario idle-rss-ab: what a start costs, BEFORE/AFTER.

Each build sets up its own data directory (a build that keys stored state
by its libraries' versions must not share a database with another build),
then restarts on it --rounds times, the two builds alternating and the
order flipping every round. Per start: VmRSS 1.5 s after the server answers
(idle, nothing asked), then the first and the second bearer-token request
(GET /api/v1/me: what a library opened on first use costs the request that
opens it). Printed: medians per build and AFTER/BEFORE.
Gate: every /api/v1/me answers 200 with the same account on both builds.
"""
import json
import os
import shutil
import statistics
import tempfile
import time

from lib import httpc
from lib.api import AB_ENV, ADMIN, Api
from lib.servers import NUBO, start_nubo


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for %d" % pid)


def me(port, token):
    """(ms, status, account) of one GET /api/v1/me on a new connection."""
    c = httpc.Conn(port, timeout=60)
    t0 = time.perf_counter()
    r = c.request("GET", "/api/v1/me", {"Authorization": "Bearer " + token})
    ms = (time.perf_counter() - t0) * 1000
    c.close()
    return ms, r.status, json.loads(r.body).get("username") if r.status == 200 else r.body[:200]


def run(args):
    if not args.before or not os.path.exists(args.before):
        raise SystemExit("idle-rss-ab needs --before BINARY (the build to compare against)")
    # --rounds (default 3, --quick 1) counts pairs of rounds here: one start
    # per build each way round, plus one, so the default is 7 starts each.
    rounds = 2 * args.rounds + 1
    builds = [("AFTER", NUBO), ("BEFORE", args.before)]
    tmp = tempfile.mkdtemp(prefix="nubo-bench-rss-", dir=args.tmpdir)
    try:
        tokens = {}
        for name, binary in builds:
            d = os.path.join(tmp, name)
            os.makedirs(d)
            srv = start_nubo(d, env=AB_ENV, binary=binary)
            try:
                api = Api(srv.port, *ADMIN)
                api.setup()
                login = api.call("POST", "/auth/login", {"username": ADMIN[0], "password": ADMIN[1]},
                                 auth=False)
                tokens[name] = login["access_token"]
                api.close()
            finally:
                srv.stop()
        res = {name: {"rss": [], "first": [], "second": []} for name, _ in builds}
        for r in range(rounds):
            order = builds if r % 2 == 0 else builds[::-1]
            for name, binary in order:
                srv = start_nubo(os.path.join(tmp, name), env=AB_ENV, binary=binary)
                try:
                    time.sleep(1.5)
                    res[name]["rss"].append(vm_rss_kib(srv.proc.pid))
                    for key in ("first", "second"):
                        ms, status, who = me(srv.port, tokens[name])
                        if status != 200 or who != ADMIN[0]:
                            raise SystemExit("gate: %s GET /api/v1/me answered %s %r" % (name, status, who))
                        res[name][key].append(ms)
                finally:
                    srv.stop()
        med = {n: {k: statistics.median(v) for k, v in d.items()} for n, d in res.items()}
        print("idle-rss-ab: %d starts per build, alternating; gate: every GET /api/v1/me 200 as %s on both"
              % (rounds, ADMIN[0]))
        print("| build | idle RSS KiB (median) | all starts | first bearer request ms | second ms |")
        print("|---|---|---|---|---|")
        for name, _ in builds:
            print("| %s | %d | %s | %.2f | %.2f |" % (name, med[name]["rss"], " ".join(map(str, res[name]["rss"])),
                                                     med[name]["first"], med[name]["second"]))
        a, b = med["AFTER"], med["BEFORE"]
        print("AFTER/BEFORE: idle RSS %.2f, first bearer request %.2f, second %.2f"
              % (a["rss"] / b["rss"], a["first"] / b["first"], a["second"] / b["second"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
