"""S5: nubo's REST listing of a 20,000-entry folder, page 1 vs page 100 (nubo
only: the peers have no such API)."""
from lib.api import Api, ServerError
from lib.listing import files_listing
from lib.servers import PASSWORD, USER
from lib.stats import pct
from lib.suite import table, wait_jobs, wait_quiet


def run(ctx):
    P = ctx.p
    if "nubo" in ctx.failed:
        table(ctx, "s5", "REST listing", [], [{"server": "nubo", "failed": ctx.failed["nubo"]}], [])
        return
    a = ctx.args
    a.list_entries, a.list_reps = P["s5_entries"], P["s5_reps"]
    api = Api(ctx.nubo.port, USER, PASSWORD)
    rows = []
    try:
        # New files start background jobs (content index, media); the
        # listings are timed once they are done, as on a server at rest.
        settle = None if a.no_wait else (lambda: (wait_jobs(ctx, "the listing's files"), wait_quiet(ctx)))
        create_s, far, listing = files_listing(api, ctx.nubo_root, a, settle)
        for label, (t1, tf) in listing.items():
            for page, ts in ((1, t1), (far, tf)):
                rows.append({"server": "nubo", "case": "%s, page %d" % (label, page), "p50_ms": pct(ts, 50),
                             "p95_ms": pct(ts, 95), "p99_ms": pct(ts, 99),
                             "far_over_first": pct(tf, 50) / pct(t1, 50) if page == far else None})
    except (ServerError, OSError, SystemExit) as e:
        rows.append({"server": "nubo", "failed": "%s: %s" % (type(e).__name__, str(e)[:200])})
        create_s, far = 0, 100
    finally:
        api.close()
    table(ctx, "s5", "REST GET /nodes/{id}/children?limit=200 in a folder of %d files (created by multipart in "
          "%.1f s), page 1 vs page %d (cursor reused), %d reps each interleaved, one keep-alive connection"
          % (P["s5_entries"], create_s, far, P["s5_reps"]),
          [("p50_ms", "p50 ms", "%.3f"), ("p95_ms", "p95 ms", "%.3f"), ("p99_ms", "p99 ms", "%.3f"),
           ("far_over_first", "p50 page %d / page 1" % far, "%.2f")], rows, [],
          ["gate: a walk over all pages per sort returns every name once, in the promised order. Targets: "
           "page %d / page 1 within 0.80–1.20, p50 ≤ 2 ms. No peer has this API." % far])
