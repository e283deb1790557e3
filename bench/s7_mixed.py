"""S7: a mixed workload modelled on ownCloud's cdperf size mix — upload,
download, list, rename, delete at 16 users — ops/s and latency per operation."""
import hashlib
import os
import random
import shutil
import struct

from lib import httpc
from lib.api import MiB
from lib.proc import proc_cpu_s, proc_status_kib, reset_hwm
from lib.servers import PROPFIND_BODY
from lib.stats import pct
from lib.suite import ARGON_NOTE, DAVH, POOL, parse_multistatus, pf_headers, run_pool, server_failed, server_rows, table


OPS = (("upload", 30), ("download", 30), ("list", 20), ("rename", 10), ("delete", 10))


def s7_size(rng, scale):
    r = rng.random()
    if r < 0.84:
        lo, hi = 1 << 10, 1000000
    elif r < 0.965:
        lo, hi = 1000000, 10000000
    else:
        lo, hi = 10000000, 100000000
    return max(1, int(lo * (hi / lo) ** rng.random()) // scale)


def user_op(c, tid, state):
    """One operation of user tid; state per process keeps each user's files."""
    users = state.setdefault("users", {})
    u = users.get(tid)
    if u is None:
        u = users[tid] = {"rng": random.Random(state["seed"] * 1000 + tid), "files": {}, "n": 0,
                          "folder": "/dav/mix-r%d-u%02d/" % (state["round"], tid)}
    rng, files, folder = u["rng"], u["files"], u["folder"]
    pool = POOL["s7"]
    op = rng.choices([o for o, _ in OPS], [w for _, w in OPS])[0]
    if not files and op != "list":
        op = "upload"
    if op == "upload":
        size = s7_size(rng, state["scale"])
        off = rng.randrange(0, len(pool) - size)
        body = bytearray(pool[off:off + size])
        stamp = struct.pack("<HHI", state["round"], tid, u["n"])
        for j in range(0, size - 8, 4096):  # unique content: no dedup between files
            body[j:j + 8] = stamp
        u["n"] += 1
        name = "f%05d.bin" % u["n"]
        r = c.request("PUT", folder + name, DAVH, body=body)
        ok = r.status in (201, 204)
        if ok:
            files[name] = (size, hashlib.sha1(body).digest())
        return [("upload", r.total, None if ok else "PUT %d" % r.status)]
    if op == "list":
        r = c.request("PROPFIND", folder, pf_headers(1), body=PROPFIND_BODY)
        err = None
        if r.status != 207:
            err = "PROPFIND %d" % r.status
        else:
            got = parse_multistatus(r.body, folder)
            got.pop("", None)
            want = {k: v[0] for k, v in files.items()}
            if got != want:
                diff = sorted(set(got.items()) ^ set(want.items()))[:2]
                err = "PROPFIND lists %d entries, want %d; differing (name, size): %r" % (len(got), len(want), diff)
        return [("list", r.total, err)]
    name = rng.choice(sorted(files))
    if op == "download":
        h = hashlib.sha1()
        r = c.request("GET", folder + name, DAVH, keep_body=False, sink=h.update)
        size, digest = files[name]
        err = None if (r.status == 200 and r.nbytes == size and h.digest() == digest) else \
            "GET %d, %d bytes (want %d)%s" % (r.status, r.nbytes, size, ", content differs" if r.status == 200 else "")
        return [("download", r.total, err)]
    if op == "rename":
        u["n"] += 1
        new = "f%05d.bin" % u["n"]
        r = c.request("MOVE", folder + name, dict(DAVH, Destination="http://%s%s%s" % (c.host, folder, new),
                                                   Overwrite="F"))
        ok = r.status in (201, 204)
        if ok:
            files[new] = files.pop(name)
        return [("rename", r.total, None if ok else "MOVE %d" % r.status)]
    r = c.request("DELETE", folder + name, DAVH)
    ok = r.status in (200, 204)
    if ok:
        del files[name]
    return [("delete", r.total, None if ok else "DELETE %d" % r.status)]


def run(ctx):
    P = ctx.p
    scale = P["s7_scale"]
    POOL["s7"] = random.Random(7).randbytes(100000000 // scale + MiB)
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for rnd, s in ctx.rotations(bad):
        try:
            c = httpc.Conn(s.port)
            for tid in range(16):
                r = c.request("MKCOL", "/dav/mix-r%d-u%02d/" % (rnd, tid), DAVH)
                if r.status != 201:
                    raise httpc.HttpError("MKCOL answered %d" % r.status)
            c.close()
            reset_hwm(s.pids())
            cpu0 = proc_cpu_s(s.pids())
            wall, lat, errs = run_pool(s.port, user_op, None, 16, {"seed": 7 + rnd, "round": rnd,
                                                                      "scale": scale},
                                       deadline_in=P["s7_duration"])
            cpu = proc_cpu_s(s.pids()) - cpu0
            d = {"ops": len(lat), "ops_per_s": len(lat) / wall, "errors": len(errs),
                 "cpu_ms_per_op": cpu * 1000 / max(1, len(lat)), "cpu_util": cpu / wall,
                 "p50_ms": pct([x * 1000 for _, x in lat], 50),
                 "p95_ms": pct([x * 1000 for _, x in lat], 95),
                 "peak_rss_mib": proc_status_kib(s.pids(), "VmHWM") / 1024,
                 "err_sample": errs[:3]}
            for op, _ in OPS:
                xs = [x * 1000 for o, x in lat if o == op]
                d[op + "_p95_ms"] = pct(xs, 95) if xs else None
            per[s.name].append(d)
            if rnd == P["rounds"] - 1 or s.name not in ctx.after_s7:
                ctx.after_s7[s.name] = {"rss_after_mib": proc_status_kib(s.pids(), "VmRSS") / 1024,
                                        "peak_s7_mib": d["peak_rss_mib"]}
            # Untimed cleanup (disk space): peers' folders go; nubo's go to its trash.
            c = httpc.Conn(s.port)
            for tid in range(16):
                folder = "mix-r%d-u%02d" % (rnd, tid)
                if s.fs_root:
                    shutil.rmtree(os.path.join(s.fs_root, folder), ignore_errors=True)
                else:
                    c.request("DELETE", "/dav/%s/" % folder, DAVH)
            c.close()
            d["disk_free_gib"] = shutil.disk_usage(s.tmp).free / (1 << 30)
        except Exception as e:
            bad[s.name] = server_failed(ctx, s, e)
    def extra(row, rounds):
        row["errors"] = sum(d["errors"] for d in rounds)
        samples = [e for d in rounds for e in d["err_sample"]]
        if row["errors"]:
            row["failed"] = "%d errors, e.g. %s" % (row["errors"], "; ".join("%s: %s" % e for e in samples[:2]))

    rows = server_rows(ctx, per, bad, extra)
    table(ctx, "s7", "mixed workload (cdperf-like sizes: 84 %% < 1 MB, 12.5 %% 1–10 MB, 3.5 %% 10–100 MB%s), 16 users "
          "each in their own folder, ops upload 30 / download 30 / list 20 / rename 10 / delete 10, %d s × %d rounds, "
          "median" % (", sizes ÷ %d" % scale if scale > 1 else "", P["s7_duration"], P["rounds"]),
          [("ops_per_s", "ops/s", "%.0f"), ("p50_ms", "p50 ms", "%.1f"), ("p95_ms", "p95 ms", "%.1f"),
           ("upload_p95_ms", "upload p95", "%.1f"), ("download_p95_ms", "download p95", "%.1f"),
           ("list_p95_ms", "list p95", "%.1f"), ("rename_p95_ms", "rename p95", "%.1f"),
           ("delete_p95_ms", "delete p95", "%.1f"), ("errors", "errors", "%d"),
           ("cpu_ms_per_op", "server CPU ms/op", "%.2f"), ("cpu_util", "server cores busy", "%.2f"),
           ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("p95_ms", "p95"), ("ops_per_s", "ops/s")],
          ["gate per operation: PUT 201/204, GET 200 with the length and SHA-1 of what was uploaded, PROPFIND lists "
           "exactly the user's files with their sizes, MOVE 201/204, DELETE 200/204; any other answer is an error. "
           "Every upload's content is unique (a stamp every 4 KiB), so nubo cannot dedup.", ARGON_NOTE])
