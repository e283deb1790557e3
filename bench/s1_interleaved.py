"""s1-interleaved: S1's PROPFIND Depth:1 (1,000 and 10,000 files, S1's body)
on nubo, nginx and lighttpd with their requests interleaved one by one (the
order reversed every round), so that every server meets the same machine
state; with --before BIN, that build runs too and the table gains its
AFTER/BEFORE. nubo runs without background jobs (its seeded files would
otherwise be indexed during the measurement); each server's folder is on the
same file system (--tmpdir). The suite's S1 runs one server at a time, each
with the CPU caches to itself; here they share them, so the absolute times
are higher and the ratios are the point. Gate: every server lists every
seeded name once with its size (XML parsed); the two nubo builds (each with
its own data) answer with as many bytes.

  bash bench/run.sh s1-interleaved [--before BIN] [--list-reps 300] [--tmpdir /tmp]
"""
import os
import shutil
import statistics
import tempfile

from lib import httpc
from lib.ab import seed_folder
from lib.api import AB_ENV, ADMIN, Api
from lib.proc import proc_cpu_s
from lib.servers import NUBO, PROPFIND_BODY, Lighttpd, Nginx, Nubo
from lib.suite import parse_multistatus, pf_headers, s1_specs, seed_peer_s1

SIZES = (1000, 10000)


def run(args):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-s1i-", dir=args.tmpdir)
    os.chmod(tmp, 0o755)  # the peers run as www-data
    servers, heads = [], []
    try:
        builds = [("nubo", NUBO)] + ([("nubo-before", args.before)] if args.before else [])
        for name, binary in builds:
            s = Nubo(tmp, binary=binary, name=name, env=dict(AB_ENV))
            s.start()
            api = Api(s.port, *ADMIN)
            api.setup()
            for n in SIZES:
                seed_folder(api, api.root_id(), "p%d" % n, s1_specs(n))
            servers.append(s)
            heads.append({"Authorization": api.auth, "Depth": "1", "Content-Type": "application/xml"})
        for cls in (Nginx, Lighttpd):
            p = cls(tmp)
            seed_peer_s1(p, SIZES)
            p.start()
            servers.append(p)
            heads.append(pf_headers(1))
        conns = [httpc.Conn(s.port, timeout=600) for s in servers]
        print("scenario s1-interleaved: %s; requests interleaved, order reversed every round" %
              ", ".join(s.name for s in servers))
        print("| case | server | p50 ms | p95 ms | server CPU ms/req | nubo/this p50 |")
        print("|---|---|---|---|---|---|")
        for n in SIZES:
            path = "/dav/p%d/" % n
            want = {fname: len(data) for fname, data in s1_specs(n)}
            bodies = {}
            for s, c, h in zip(servers, conns, heads):  # gate and warm-up
                r = c.request("PROPFIND", path, h, PROPFIND_BODY)
                assert r.status == 207, "%s answered %d" % (s.name, r.status)
                got = parse_multistatus(r.body, path)
                got.pop("", None)
                assert got == want, "%s: the listing differs from the seeded files" % s.name
                bodies[s.name] = r.body
            if "nubo-before" in bodies:  # their own data: same names, sizes and ETags, other dates and ids
                assert len(bodies["nubo"]) == len(bodies["nubo-before"]), "the nubo builds' answers differ in length"
            reps = max(20, args.list_reps * 1000 // n)
            times = [[] for _ in servers]
            cpu = [0.0] * len(servers)
            order = list(range(len(servers)))
            for i in range(reps):
                for k in (order if i % 2 == 0 else order[::-1]):
                    pids = servers[k].pids()
                    c0 = proc_cpu_s(pids)
                    r = conns[k].request("PROPFIND", path, heads[k], PROPFIND_BODY, keep_body=False)
                    assert r.status == 207, "%s answered %d" % (servers[k].name, r.status)
                    times[k].append(r.total * 1000)
                    cpu[k] += proc_cpu_s(pids) - c0
            p50 = [statistics.median(t) for t in times]
            for k, s in enumerate(servers):
                t = sorted(times[k])
                print("| %d files | %s | %.2f | %.2f | %.2f | %.2f |" % (
                    n, s.name, p50[k], t[int(len(t) * 0.95)], cpu[k] * 1000 / reps, p50[0] / p50[k]))
        print("gate: every server listed every seeded name once with its size; the nubo builds: as many bytes")
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
