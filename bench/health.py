"""health: keep-alive GET /health at 64 connections (wrk), nubo vs nginx
serving the same 16 bytes as a static file; the floor of nubo's request path."""
import os
import shutil
import statistics
import tempfile

from lib.httpc import fetch
from lib.proc import peak_rss_kib
from lib.servers import Nginx, Nubo
from lib.wrk import wrk


def run(args):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-")
    os.chmod(tmp, 0o755)  # nginx workers run as www-data
    servers = []
    try:
        # Both as the peer suite configures them: no access log, nginx with Debian's defaults.
        nubo, nginx = Nubo(tmp), Nginx(tmp)
        servers = [nubo, nginx]
        for s in servers:
            s.start()
        status, body = fetch(nubo.port, "/health")
        assert status == 200, status
        # Equivalence gate: both answer 200 with the same bytes.
        status2, body2 = fetch(nginx.port, "/health")
        if (status2, body2) != (status, body):
            raise SystemExit("equivalence gate failed: nginx answered %r %r" % (status2, body2))
        results = {s.name: [] for s in servers}
        for s in servers:  # warm-up
            wrk("http://127.0.0.1:%d/health" % s.port, 2)
        for _ in range(args.rounds):
            for s in servers:
                results[s.name].append(wrk("http://127.0.0.1:%d/health" % s.port, args.duration))
        rss = {s.name: peak_rss_kib(s.pids()) for s in servers}
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nscenario health: keep-alive GET /health (%d bytes), wrk -t2 -c64, %d rounds x %ds, "
          "median of rounds; load before: %s" % (len(body), args.rounds, args.duration, args.load))
    print("| server | p50 ms | p95 ms | p99 ms | req/s | errors | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    med = {}
    for name, rs in results.items():
        med[name] = {k: statistics.median(r[k] for r in rs) for k in ("p50", "p95", "p99", "rps")}
        errors = sum(r["errors"] for r in rs)
        print("| %s | %.3f | %.3f | %.3f | %.0f | %d | %.1f |" % (
            name, med[name]["p50"], med[name]["p95"], med[name]["p99"], med[name]["rps"], errors,
            rss[name] / 1024))
        med[name] = {"p50_ms": med[name]["p50"], "p95_ms": med[name]["p95"], "p99_ms": med[name]["p99"],
                     "rps": med[name]["rps"], "errors": errors, "peak_rss_mib": rss[name] / 1024}
    ratio = med["nubo"]["rps"] / med["nginx"]["rps"]
    med["nginx"]["ratio"] = {"rps": round(ratio, 4)}
    print("ratio nubo/nginx req/s: %.2f (target >= 0.80)  per round: %s" % (
        ratio, ", ".join("%.2f" % (a["rps"] / b["rps"]) for a, b in zip(results["nubo"], results["nginx"]))))
    return med
