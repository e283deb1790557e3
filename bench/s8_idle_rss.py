"""S8: idle RSS after start and after S7, and the cold start time to the first
successful response, per server."""
from lib.stats import med
from lib.suite import ARGON_NOTE, restart, server_failed, table


def run(ctx):
    for s in ctx.alive():
        if s.name not in ctx.restarts:
            try:
                restart(ctx, s)
            except Exception as e:
                ctx.failed[s.name] = "restart: " + server_failed(ctx, s, e)
    rows = []
    for s in ctx.servers:
        row = {"server": s.name}
        rs = ctx.restarts.get(s.name)
        if not rs:
            row["failed"] = ctx.failed.get(s.name, "not restarted")
        else:
            row["cold_start_ms"] = med([c for c, _ in rs]) * 1000
            row["idle_rss_mib"] = med([i for _, i in rs]) / 1024
            row.update(ctx.after_s7.get(s.name, {}))
        rows.append(row)
    table(ctx, "s8", "memory and cold start: time from exec to the first successful response (nubo and peers with a "
          "/health: GET /health; rclone: authenticated PROPFIND), RSS 1 s after start (idle), RSS after S7 and peak "
          "during S7; medians over restarts",
          [("cold_start_ms", "cold start ms", "%.0f"), ("idle_rss_mib", "idle RSS MiB", "%.1f"),
           ("rss_after_mib", "RSS after S7 MiB", "%.1f"), ("peak_s7_mib", "peak RSS in S7 MiB", "%.1f")],
          rows, [("idle_rss_mib", "idle RSS"), ("cold_start_ms", "cold start")],
          ["RSS sums every process of a server (nginx and Apache master + workers, php -S master + 4 workers).", ARGON_NOTE])
