"""s2-writing: S2's poll (PROPFIND Depth:0 on the drive root, wrk at 64
connections) while another connection PUTs 4 KiB files into a folder as fast
as the server takes them, so that the database changes under the polls all
the time: a poll path that is faster only while nothing is written shows
here. With --before BIN that build runs too, the builds alternating rounds
(each on its own data, background jobs off). Gate: no wrk error, every PUT
201 or 204, and after the writes stop the poll's answer is the same bytes
as one read afresh (a precondition that holds bypasses any kept answer) and
names the root's current ETag.

  bash bench/run.sh s2-writing [--before BIN] [--rounds 3] [--duration 5] [--tmpdir /tmp]
"""
import re
import shutil
import statistics
import tempfile
import threading

from lib import httpc
from lib.api import AB_ENV, ADMIN, Api
from lib.proc import proc_cpu_s
from lib.servers import NUBO, PROPFIND_BODY, Nubo
from lib.suite import pf_headers
from lib.wrk import wrk_dav


def writer(port, auth, stop, counts):
    c = httpc.Conn(port, timeout=60)
    body = b"w" * 4096
    i = 0
    while not stop.is_set():
        r = c.request("PUT", "/dav/written/f%03d.txt" % (i % 100), {"Authorization": auth}, body=body)
        if r.status not in (201, 204):
            counts["bad"] += 1
        counts["puts"] += 1
        i += 1


def gate(s, api):
    head = pf_headers(0)
    kept = httpc.Conn(s.port).request("PROPFIND", "/dav/", head, body=PROPFIND_BODY)
    fresh = httpc.Conn(s.port).request("PROPFIND", "/dav/", dict(head, **{"If-None-Match": '"no-such-etag"'}),
                                       body=PROPFIND_BODY)
    assert kept.status == 207 and (kept.status, kept.body) == (fresh.status, fresh.body), \
        "%s: the poll's answer differs from one read afresh" % s.name
    etag = re.search(rb"<d:getetag>([^<]*)</d:getetag>", kept.body, re.I)
    node = api.call("GET", "/nodes/%s" % api.root_id())
    assert etag and etag.group(1).decode().replace("&quot;", '"') == node["etag"], \
        "%s: the poll names ETag %r, the root has %r" % (s.name, etag and etag.group(1), node["etag"])


def run(args):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-s2w-", dir=args.tmpdir)
    builds = [("nubo", NUBO)] + ([("nubo-before", args.before)] if args.before else [])
    servers, apis = [], []
    try:
        for name, binary in builds:
            s = Nubo(tmp, binary=binary, name=name, env=dict(AB_ENV))
            s.start()
            api = Api(s.port, *ADMIN)
            api.setup()
            assert httpc.Conn(s.port).request("MKCOL", "/dav/written/", {"Authorization": api.auth}).status == 201
            wrk_dav(s.port, "PROPFIND", "/dav/", pf_headers(0), PROPFIND_BODY, 1)  # warm-up
            servers.append(s)
            apis.append(api)
        rows = {s.name: [] for s in servers}
        print("scenario s2-writing: %s; %d rounds of %d s, builds alternating"
              % (", ".join(s.name for s in servers), args.rounds, args.duration))
        for rnd in range(args.rounds):
            for k in (range(len(servers)) if rnd % 2 == 0 else reversed(range(len(servers)))):
                s, api = servers[k], apis[k]
                stop, counts = threading.Event(), {"puts": 0, "bad": 0}
                t = threading.Thread(target=writer, args=(s.port, api.auth, stop, counts))
                pids = s.pids()
                c0 = proc_cpu_s(pids)
                t.start()
                try:
                    res = wrk_dav(s.port, "PROPFIND", "/dav/", pf_headers(0), PROPFIND_BODY, args.duration)
                finally:
                    stop.set()
                    t.join()
                cpu = proc_cpu_s(pids) - c0
                assert res["errors"] == 0, "%s: %d wrk errors" % (s.name, res["errors"])
                assert counts["bad"] == 0, "%s: %d PUTs failed" % (s.name, counts["bad"])
                gate(s, api)
                rows[s.name].append((res["rps"], counts["puts"] / args.duration, res["p50_ms"],
                                     cpu * 1e6 / max(1, res["requests"] + counts["puts"])))
        print("| server | polls/s | PUTs/s | poll p50 ms | server CPU µs/request | polls/s vs before |")
        print("|---|---|---|---|---|---|")
        med = {n: [statistics.median(x[i] for x in r) for i in range(4)] for n, r in rows.items()}
        for n, m in med.items():
            ratio = "%.2f" % (med["nubo"][0] / m[0]) if n != "nubo" else "–"
            print("| %s | %.0f | %.0f | %.2f | %.0f | %s |" % (n, m[0], m[1], m[2], m[3], ratio))
        print("rounds (polls/s): " + "; ".join("%s %s" % (n, [round(x[0]) for x in r]) for n, r in rows.items()))
        print("gate: no wrk errors, every PUT 201/204; after each round the poll's answer equals one read afresh "
              "and names the root's current ETag (REST)")
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
