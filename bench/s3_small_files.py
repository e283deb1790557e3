"""S3: small-file ingest — 4 KiB PUTs of distinct contents at 16 connections
(2 processes × 8 threads): files/s, latency, server CPU, nubo vs every peer."""
import random

from lib import httpc
from lib.proc import ctx_switches, proc_cpu_s, proc_status_kib, reset_hwm
from lib.servers import PROPFIND_BODY
from lib.stats import pct
from lib.suite import ARGON_NOTE, DAVH, POOL, parse_multistatus, pf_headers, run_pool, server_failed, server_rows, table


def put_one(c, job, state):
    i, path = job
    body = POOL["s3"][i:i + 4096]
    r = c.request("PUT", path, DAVH, body=body)
    err = None if r.status in (201, 204) else "status %d" % r.status
    return [("put", r.total, err)]


def run(ctx):
    P = ctx.p
    n = P["s3_files"]
    POOL["s3"] = random.Random(3).randbytes(n + 4096)
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for rnd, s in ctx.rotations(bad):
        try:
            folder = "/dav/s3-r%d/" % rnd
            c = httpc.Conn(s.port)
            r = c.request("MKCOL", folder, DAVH)
            if r.status != 201:
                raise httpc.HttpError("MKCOL answered %d" % r.status)
            jobs = [(i, "%sf%05d.bin" % (folder, i)) for i in range(n)]
            pids = s.pids()
            reset_hwm(pids)
            cpu0 = proc_cpu_s(pids)
            csw0 = ctx_switches(pids)
            wall, lat, errs = run_pool(s.port, put_one, jobs, 16, {})
            cpu = proc_cpu_s(s.pids()) - cpu0
            csw = ctx_switches(pids) - csw0  # the server's thread set is fixed while it serves
            hwm = proc_status_kib(s.pids(), "VmHWM")
            # Gate: every file listed with 4096 bytes; 20 sampled files read back.
            r = c.request("PROPFIND", folder, pf_headers(1), body=PROPFIND_BODY)
            got = parse_multistatus(r.body, folder) if r.status == 207 else {}
            got.pop("", None)
            gate = None
            if len(got) != n or any(v != 4096 for v in got.values()):
                gate = "listing has %d entries (want %d), %d of wrong size" % (
                    len(got), n, sum(1 for v in got.values() if v != 4096))
            for i in random.Random(rnd).sample(range(n), min(20, n)):
                g = c.request("GET", "%sf%05d.bin" % (folder, i), DAVH)
                if g.status != 200 or g.body != POOL["s3"][i:i + 4096]:
                    gate = gate or "f%05d.bin read back %d, %d bytes, content %s" % (
                        i, g.status, g.nbytes, "differs" if g.status == 200 else "-")
            c.close()
            ms = [dt * 1000 for _, dt in lat]
            per[s.name].append({"cpu_ms_per_file": cpu * 1000 / n, "cpu_util": cpu / wall, "csw_per_file": csw / n,
                                "files_per_s": n / wall, "p50_ms": pct(ms, 50), "p95_ms": pct(ms, 95),
                                "p99_ms": pct(ms, 99), "errors": len(errs), "peak_rss_mib": hwm / 1024,
                                "gate": gate, "err_sample": errs[:2]})
        except Exception as e:
            bad[s.name] = server_failed(ctx, s, e)
    def extra(row, rounds):
        row["errors"] = sum(d["errors"] for d in rounds)
        row["rounds_files_per_s"] = [round(d["files_per_s"]) for d in rounds]
        gates = [d["gate"] for d in rounds if d["gate"]]
        if gates or row["errors"]:
            row["failed"] = (gates[0] if gates else "%d errors, e.g. %r" % (
                row["errors"], [d["err_sample"] for d in rounds if d["err_sample"]][0]))

    rows = server_rows(ctx, per, bad, extra)
    table(ctx, "s3", "small-file ingest: %d PUTs of 4 KiB (distinct contents) into a new folder per round, "
          "16 connections (2 processes × 8 threads), %d rounds, median" % (n, P["rounds"]),
          [("files_per_s", "files/s", "%.0f"), ("p50_ms", "p50 ms", "%.2f"), ("p95_ms", "p95 ms", "%.2f"),
           ("p99_ms", "p99 ms", "%.2f"), ("errors", "errors", "%d"), ("cpu_ms_per_file", "server CPU ms/file", "%.3f"),
           ("cpu_util", "server cores busy", "%.2f"), ("csw_per_file", "server context switches/file", "%.1f"),
           ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("files_per_s", "files/s")],
          ["gate: every PUT 201/204, PROPFIND lists all %d files with 4096 bytes, 20 sampled files read back "
           "byte-identical. nubo fsyncs every upload; the peers do not." % n, ARGON_NOTE])
