"""S4: one large file, one PUT and one GET in a single stream, nubo vs every
peer, with dd (one fsync), cat and b3sum as the physical references."""
import os
import subprocess
import time

from lib import httpc
from lib.data import BlockCheck, sampled_blocks, write_seeded
from lib.proc import proc_cpu_s, proc_status_kib, reset_hwm
from lib.stats import med
from lib.suite import ARGON_NOTE, DAVH, server_failed, server_rows, table


def run(ctx):
    P = ctx.p
    size = P["s4_bytes"]
    src = os.path.join(ctx.tmp, "s4-input.bin")
    per = {s.name: [] for s in ctx.alive()}
    refs = {"b3sum": [], "cat": [], "dd": []}
    bad = {}
    for rnd in range(P["rounds"]):
        write_seeded(src, size, 400 + rnd)  # fresh each round: no dedup against the last
        t = time.perf_counter()
        want_b3 = subprocess.run(["b3sum", "--no-names", src], capture_output=True, text=True, check=True).stdout.strip()
        refs["b3sum"].append(size / 1e6 / (time.perf_counter() - t))
        t = time.perf_counter()
        subprocess.run(["cat", src], stdout=subprocess.DEVNULL, check=True)
        refs["cat"].append(size / 1e6 / (time.perf_counter() - t))
        # The durable write ceiling: the same bytes into one file on a file system like the servers' (a fresh
        # ext4 of its own when the servers have one each), one fsync.
        out = os.path.join(ctx.dd_dir, "s4-dd.out")
        t = time.perf_counter()
        subprocess.run(["dd", "if=" + src, "of=" + out, "bs=1M", "conv=fsync"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        refs["dd"].append(size / 1e6 / (time.perf_counter() - t))
        os.unlink(out)
        samples = sampled_blocks(src, size)  # the download must match them
        for s in ctx.order(rnd):
            if s.name in bad:
                continue
            name = "/dav/big-r%d.bin" % rnd
            try:
                c = httpc.Conn(s.port, timeout=600)
                reset_hwm(s.pids())
                cpu0 = proc_cpu_s(s.pids())
                with open(src, "rb") as f:
                    r = c.request("PUT", name, dict(DAVH, **{"Content-Type": "application/octet-stream"}),
                                  body_file=(f, size))
                if r.status not in (201, 204):
                    raise httpc.HttpError("PUT answered %d: %r" % (r.status, (r.body or b"")[:200]))
                put_s = r.total
                cpu1 = proc_cpu_s(s.pids())
                check = BlockCheck(samples)
                r = c.request("GET", name, DAVH, keep_body=False, sink=check)
                mismatch = check.bad
                get_s = r.total
                cpu2 = proc_cpu_s(s.pids())
                hwm = proc_status_kib(s.pids(), "VmHWM")
                gate = None
                if r.status != 200 or r.nbytes != size or mismatch:
                    gate = "GET answered %d with %d bytes (want %d), %d sampled blocks differ" % (
                        r.status, r.nbytes, size, len(set(mismatch)))
                # The stored bytes hash as the input: on disk (peers) or nubo's ETag (BLAKE3, first 128 bits).
                if s.fs_root:
                    got_b3 = subprocess.run(["b3sum", "--no-names", os.path.join(s.fs_root, name[5:])],
                                            capture_output=True, text=True).stdout.strip()
                    if got_b3 != want_b3:
                        gate = gate or "stored file's b3sum %s differs from the input's" % got_b3[:16]
                else:
                    etag = r.header("etag", "").strip('W/"')
                    if etag != want_b3[:32]:
                        gate = gate or "ETag %r is not the input's BLAKE3 prefix %s" % (etag, want_b3[:32])
                d = c.request("DELETE", name, DAVH)
                c.close()
                per[s.name].append({"put_mbps": size / 1e6 / put_s, "get_mbps": size / 1e6 / get_s,
                                    "put_s": put_s, "get_s": get_s, "put_cpu_s": cpu1 - cpu0,
                                    "get_cpu_s": cpu2 - cpu1, "peak_rss_mib": hwm / 1024, "gate": gate,
                                    "delete": d.status})
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
    os.unlink(src)
    def extra(row, rounds):
        gates = [d["gate"] for d in rounds if d["gate"]]
        if gates:
            row["failed"] = gates[0]

    rows = server_rows(ctx, per, bad, extra)
    for k, label in (("dd", "reference: dd bs=1M conv=fsync (a file system like the servers')"),
                     ("b3sum", "reference: b3sum (all cores)"), ("cat", "reference: cat file > /dev/null")):
        rows.append({"server": label, "put_mbps": med(refs[k]) if k in ("b3sum", "dd") else None,
                     "get_mbps": med(refs[k]) if k == "cat" else None, "reference": True})
    table(ctx, "s4", "large file: %d MiB of random bytes (fresh each round), one streamed PUT (sendfile from the page "
          "cache) then one GET, single keep-alive connection, %d rounds, median" % (size >> 20, P["rounds"]),
          [("put_mbps", "PUT MB/s", "%.0f"), ("get_mbps", "GET MB/s", "%.0f"), ("put_s", "PUT s", "%.2f"),
           ("get_s", "GET s", "%.2f"), ("put_cpu_s", "server CPU s in PUT", "%.2f"),
           ("get_cpu_s", "server CPU s in GET", "%.2f"), ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("put_mbps", "PUT"), ("get_mbps", "GET")],
          ["gate: PUT 201/204; GET 200 with the full length and 16 sampled 64 KiB blocks equal to the input; the "
           "stored file's b3sum (peers) or nubo's ETag (BLAKE3 prefix) equals the input's. nginx serves the GET with "
           "sendfile. nubo's PUT is chunked, hashed and fsync'd; the peers write without fsync.", ARGON_NOTE])
