"""S2: a sync client's poll — PROPFIND Depth:0 on the unchanged root at 64
keep-alive connections (wrk): req/s and latency, nubo vs every peer."""
from lib import httpc
from lib.proc import proc_cpu_s, proc_status_kib, reset_hwm
from lib.servers import PROPFIND_BODY
from lib.suite import ARGON_NOTE, parse_multistatus, pf_headers, server_failed, server_rows, table
from lib.wrk import wrk_dav


def run(ctx):
    P = ctx.p
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for s in ctx.alive():
        try:
            r = httpc.Conn(s.port).request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND_BODY)
            got = parse_multistatus(r.body, "/dav/") if r.status == 207 else None
            if got is None or list(got) != [""]:
                raise httpc.HttpError("gate: status %d, entries %r" % (r.status, got and list(got)[:3]))
            wrk_dav(s.port, "PROPFIND", "/dav/", pf_headers(0), PROPFIND_BODY, 1)  # warm-up
            if s.name.startswith("nubo"):
                # nubo keeps poll answers while its database is unchanged; a
                # precondition that holds makes it read the answer afresh.
                # Both must be the same bytes.
                kept = httpc.Conn(s.port).request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND_BODY)
                fresh = httpc.Conn(s.port).request("PROPFIND", "/dav/", dict(pf_headers(0), **{
                    "If-None-Match": '"no-such-etag"'}), body=PROPFIND_BODY)
                if (kept.status, kept.body) != (fresh.status, fresh.body):
                    raise httpc.HttpError("gate: a kept answer differs from a fresh one: %r vs %r"
                                          % (kept.body[:300], fresh.body[:300]))
        except Exception as e:
            bad[s.name] = server_failed(ctx, s, e)
    for rnd, s in ctx.rotations(bad):
        try:
            pids = s.pids()
            reset_hwm(pids)
            cpu0 = proc_cpu_s(pids)
            res = wrk_dav(s.port, "PROPFIND", "/dav/", pf_headers(0), PROPFIND_BODY, P["s2_duration"])
            res["cpu_us_per_req"] = (proc_cpu_s(s.pids()) - cpu0) * 1e6 / max(1, res["requests"])
            res["peak_rss_mib"] = proc_status_kib(s.pids(), "VmHWM") / 1024
            per[s.name].append(res)
        except Exception as e:
            bad[s.name] = server_failed(ctx, s, e)
    def extra(row, rounds):
        row["errors"] = sum(d["errors"] for d in rounds)
        row["status_errors"] = sum(d["status_errors"] for d in rounds)
        row["closes"] = sum(d["closes"] for d in rounds)
        row["rounds_rps"] = [round(d["rps"]) for d in rounds]
        if row["errors"]:
            row["failed"] = "%d errors (%d of them statuses >= 400)" % (row["errors"], row["status_errors"])

    rows = server_rows(ctx, per, bad, extra)
    table(ctx, "s2", "sync poll: PROPFIND Depth:0 on the unchanged root, wrk -t2 -c64, %d s × %d rounds, median"
          % (P["s2_duration"], P["rounds"]),
          [("rps", "req/s", "%.0f"), ("p50_ms", "p50 ms", "%.2f"), ("p95_ms", "p95 ms", "%.2f"),
           ("p99_ms", "p99 ms", "%.2f"), ("errors", "errors", "%d"), ("closes", "server closes", "%d"),
           ("cpu_us_per_req", "server CPU µs/req", "%.0f"), ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("rps", "req/s")],
          ["gate: one PROPFIND answered 207 with exactly the root (nubo: the same bytes as one read afresh, "
           "past its poll cache); errors = wrk's connect, write and timeout errors "
           "plus statuses >= 400 (any fails the server); server closes = wrk's read errors, one per connection the "
           "server closed after a response (php -S closes after every response, Apache after 100 per connection). "
           "Ratio > 1 means nubo is faster.", ARGON_NOTE])
