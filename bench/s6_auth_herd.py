"""S6: a Basic-auth herd (16 cold requests at once: how many password hashes
run) and the warm request's overhead; its restarts feed S8."""
import threading
import time

from lib import httpc
from lib.proc import proc_cpu_s
from lib.servers import HEALTH_BODY, Nubo, PROPFIND_BODY
from lib.stats import pct
from lib.suite import DAVH, merge_rounds, nubo_metric, pf_headers, restart, server_failed, table


def herd(s, k):
    """k new connections send their first authenticated PROPFIND at once: (wall s, server CPU s, statuses)."""
    conns = [httpc.Conn(s.port) for _ in range(k)]
    for c in conns:
        c.connect()
    bar = threading.Barrier(k + 1)
    statuses = [None] * k

    def go(i):
        bar.wait()
        try:
            statuses[i] = conns[i].request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND_BODY).status
        except OSError as e:
            statuses[i] = repr(e)

    ts = [threading.Thread(target=go, args=(i,)) for i in range(k)]
    for t in ts:
        t.start()
    cpu0 = proc_cpu_s(s.pids())
    t0 = time.perf_counter()
    bar.wait()
    for t in ts:
        t.join()
    wall = time.perf_counter() - t0
    time.sleep(0.05)
    cpu = proc_cpu_s(s.pids()) - cpu0
    for c in conns:
        c.close()
    return wall, cpu, statuses


def run(ctx):
    P = ctx.p
    k = P["s6_herd"]
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for rnd, s in ctx.rotations(bad):
        try:
            d = {}
            if isinstance(s, Nubo):
                # Calibration: one cold request (one Argon2) and the CPU of a warm one.
                restart(ctx, s)
                one_wall, one_cpu, st = herd(s, 1)
                c = httpc.Conn(s.port)
                cpu0 = proc_cpu_s(s.pids())
                for _ in range(200):
                    c.request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND_BODY, keep_body=False)
                warm_cpu = (proc_cpu_s(s.pids()) - cpu0) / 200
                c.close()
                d.update(one_cold_ms=one_wall * 1000, one_cold_cpu_ms=one_cpu * 1000)
            cold, idle = restart(ctx, s)
            wall, cpu, statuses = herd(s, k)
            if any(x != 207 for x in statuses):
                raise httpc.HttpError("herd statuses %r" % sorted(set(map(str, statuses))))
            d.update(herd_wall_ms=wall * 1000, herd_cpu_ms=cpu * 1000)
            if isinstance(s, Nubo):
                # Exact from /metrics (the counter restarted with the
                # server); older builds lack it: estimate from CPU time.
                exact = nubo_metric(s.port, "nubo_auth_argon2_verifications_total")
                unit = max(one_cpu - warm_cpu, 1e-3)
                d["argon2_runs"] = exact if exact is not None else max(0.0, (cpu - k * warm_cpu) / unit)
            # Warm: GET /health (no auth) and GET /dav/small.txt (Basic auth), interleaved.
            c = httpc.Conn(s.port)
            th, ta = [], []
            for _ in range(P["s6_reps"]):
                if s.has_health:
                    r = c.request("GET", "/health")
                    if r.status != 200 or r.body != HEALTH_BODY:
                        raise httpc.HttpError("GET /health answered %d %r" % (r.status, r.body[:40]))
                    th.append(r.total * 1000)
                r = c.request("GET", "/dav/small.txt", DAVH)
                if r.status != 200 or r.body != b"0123456789abcdef":
                    raise httpc.HttpError("GET /dav/small.txt answered %d %r" % (r.status, r.body[:40]))
                ta.append(r.total * 1000)
            c.close()
            d["auth_p50_ms"] = pct(ta, 50)
            d["auth_p99_ms"] = pct(ta, 99)
            if th:
                d["health_p50_ms"] = pct(th, 50)
                d["overhead_ms"] = d["auth_p50_ms"] - d["health_p50_ms"]
            per[s.name].append(d)
        except Exception as e:
            bad[s.name] = server_failed(ctx, s, e)
            if s.proc is None or s.proc.poll() is not None:
                ctx.failed[s.name] = "after restart: " + bad[s.name]
    rows = []
    for s in ctx.servers:
        row = {"server": s.name}
        if s.name in bad or (s.name in ctx.failed and not per.get(s.name)):
            row["failed"] = bad.get(s.name) or ctx.failed[s.name]
        else:
            row.update(merge_rounds(per[s.name]))
        rows.append(row)
    table(ctx, "s6", "Basic-auth herd: %d new connections send their first PROPFIND Depth:0 at once, right after a "
          "restart (cold credential cache); warm: GET /health vs GET /dav/small.txt (16 bytes, Basic auth), %d each "
          "interleaved on one connection; %d rounds, median" % (k, P["s6_reps"], P["rounds"]),
          [("herd_wall_ms", "herd wall ms", "%.1f"), ("herd_cpu_ms", "herd server CPU ms", "%.0f"),
           ("argon2_runs", "Argon2 runs", "%.1f"), ("health_p50_ms", "GET /health p50 ms", "%.3f"),
           ("auth_p50_ms", "auth'd GET p50 ms", "%.3f"), ("auth_p99_ms", "auth'd GET p99 ms", "%.3f"),
           ("overhead_ms", "auth overhead ms", "%.3f")],
          rows, [("herd_wall_ms", "herd wall"), ("auth_p50_ms", "auth'd GET")],
          ["Argon2 runs (nubo): read from its /metrics (nubo_auth_argon2_verifications_total) after the herd; for a "
           "build without that counter, estimated from the server's CPU time "
           "(/proc utime+stime): (herd CPU − %d × a warm request's CPU) / (one cold request's CPU − a warm one's), "
           "calibrated on a separate restart each round. Peers verify a {SHA} htpasswd entry, one SHA-1 "
           "(Apache, nginx, lighttpd) or compare the password in plain text (rclone, sabre) on every request; nubo runs Argon2id (t=3, 64 MiB) "
           "once and caches the result for 30 s. auth overhead = auth'd GET p50 − GET /health p50 (rclone has no "
           "unauthenticated path)." % k])
