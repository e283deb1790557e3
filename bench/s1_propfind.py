"""S1: PROPFIND Depth:1 on folders of 1,000 and 10,000 files, sequential on one
connection: p50/p95/p99 and time to the first byte, nubo vs every peer."""
import time

from lib import httpc
from lib.proc import proc_cpu_s, proc_status_kib, reset_hwm
from lib.servers import PROPFIND_BODY
from lib.stats import pct
from lib.suite import ARGON_NOTE, parse_multistatus, pf_headers, s1_specs, server_failed, server_rows, table


def run(ctx):
    P = ctx.p
    rows = []
    for n in P["s1_sizes"]:
        path = "/dav/p%d/" % n
        want = {name: len(data) for name, data in s1_specs(n)}
        per = {s.name: [] for s in ctx.alive()}
        bad = {}
        for s in ctx.alive():  # gate: every name once, with its size
            try:
                r = httpc.Conn(s.port).request("PROPFIND", path, pf_headers(1), body=PROPFIND_BODY)
                if r.status != 207:
                    raise httpc.HttpError("PROPFIND answered %d" % r.status)
                got = parse_multistatus(r.body, path)
                got.pop("", None)
                if got != want:
                    missing = set(want) - set(got)
                    extra = set(got) - set(want)
                    wrong = [k for k in want if k in got and got[k] != want[k]]
                    raise httpc.HttpError("gate: %d missing, %d extra, %d wrong sizes (e.g. %r)" % (
                        len(missing), len(extra), len(wrong), (list(missing) + list(extra) + wrong)[:2]))
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
        for rnd, s in ctx.rotations(bad):
            try:
                pids = s.pids()
                rss0 = proc_status_kib(pids, "VmRSS")
                reset_hwm(pids)
                c = httpc.Conn(s.port)
                c.request("PROPFIND", path, pf_headers(1), body=PROPFIND_BODY, keep_body=False)  # warm-up
                tot, fb, nb = [], [], 0
                cpu0 = proc_cpu_s(pids)
                t_end = time.perf_counter() + P["s1_budget"][n]
                while (len(tot) < 5 or time.perf_counter() < t_end) and len(tot) < 400:
                    r = c.request("PROPFIND", path, pf_headers(1), body=PROPFIND_BODY, keep_body=False)
                    if r.status != 207:
                        raise httpc.HttpError("PROPFIND answered %d" % r.status)
                    tot.append(r.total * 1000)
                    fb.append(r.ttfb * 1000)
                    nb = r.nbytes
                cpu = proc_cpu_s(pids) - cpu0
                c.close()
                hwm = proc_status_kib(s.pids(), "VmHWM")
                per[s.name].append({"cpu_ms_per_req": cpu * 1000 / len(tot), "p50_ms": pct(tot, 50), "p95_ms": pct(tot, 95),
                                    "p99_ms": pct(tot, 99), "ttfb_p50_ms": pct(fb, 50),
                                    "reqs": len(tot), "bytes": nb, "peak_rss_mib": hwm / 1024,
                                    "growth_mib": (hwm - rss0) / 1024})
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
        rows += server_rows(ctx, per, bad, case="%d files" % n, extra=lambda row, rounds: row.update(
            rounds_p50_ms=[round(d["p50_ms"], 3) for d in rounds]))
    table(ctx, "s1", "PROPFIND Depth:1 (resourcetype, getcontentlength, getlastmodified, getetag), one keep-alive "
          "connection, sequential; median of %d rounds" % P["rounds"],
          [("p50_ms", "p50 ms", "%.2f"), ("p95_ms", "p95 ms", "%.2f"), ("p99_ms", "p99 ms", "%.2f"),
           ("ttfb_p50_ms", "first byte p50 ms", "%.2f"), ("bytes", "response bytes", "%d"), ("reqs", "reqs/round", "%d"),
           ("cpu_ms_per_req", "server CPU ms/req", "%.2f"),
           ("peak_rss_mib", "peak RSS MiB", "%.1f"), ("growth_mib", "RSS growth MiB", "%.1f")],
          rows, [("p50_ms", "p50"), ("ttfb_p50_ms", "first byte")],
          ["gate: each server's multistatus lists every seeded name once with its size (XML parsed); "
           "ratio < 1 means nubo is faster. RSS growth = peak during the case − RSS before it.", ARGON_NOTE])
