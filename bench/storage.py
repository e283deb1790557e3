"""storage: 1 GiB through nubo's chunk store without HTTP (`nubo debug put`,
FastCDC + BLAKE3 + durable chunks + SQLite commit) and back, against b3sum,
dd with one fsync, and cat: the physical references."""
import os
import shutil
import statistics
import subprocess
import tempfile

from lib.data import FreshFs
from lib.proc import timed
from lib.servers import NUBO


def run(args):
    """1 GiB ingest (chunk + hash + durable write) vs b3sum, and read vs cat."""
    size = args.storage_bytes
    fresh = None
    where = args.tmpdir
    if where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4"):
        fresh = FreshFs(4 * size + (1 << 30))
        where = fresh.mnt
    tmp = tempfile.mkdtemp(prefix="nubo-bench-", dir=where)
    try:
        src = os.path.join(tmp, "input.bin")
        with open(src, "wb") as f, open("/dev/urandom", "rb") as r:
            left = size
            while left:
                n = min(left, 1 << 24)
                f.write(r.read(n))
                left -= n
        b3 = {"ingest": [], "ingest_per_chunk": [], "read": [], "b3sum": [], "b3sum1": [], "cat": [],
              "dd": []}
        rss = {"ingest": 0, "read": 0}
        want = subprocess.run(["b3sum", "--no-names", src], capture_output=True, text=True).stdout.strip()
        got_hash = None
        for rnd in range(args.rounds):
            data = os.path.join(tmp, "data%d" % rnd)
            dt, _, _ = timed(["b3sum", "--no-names", src])
            b3["b3sum"].append(dt)
            dt, _, _ = timed(["b3sum", "--no-names", "--num-threads", "1", src])
            b3["b3sum1"].append(dt)
            # Physical reference: copy the file and fsync it once.
            dt, _, _ = timed(["dd", "if=" + src, "of=" + os.path.join(tmp, "dd.out"), "bs=1M", "conv=fsync",
                              "status=none"])
            b3["dd"].append(dt)
            os.unlink(os.path.join(tmp, "dd.out"))
            # BEFORE: every chunk fsync'd on its own (file + directory).
            dt, _, out = timed([NUBO, "--data", data + "-pc", "debug", "put", src, "--pin", "bench",
                                "--per-chunk-sync"], stdout=None)
            b3["ingest_per_chunk"].append(dt)
            shutil.rmtree(data + "-pc", ignore_errors=True)
            # AFTER: chunks staged and made durable per 64 MiB batch.
            dt, peak, out = timed([NUBO, "--data", data, "debug", "put", src, "--pin", "bench"], stdout=None)
            got_hash = out.split()[0]
            b3["ingest"].append(dt)
            rss["ingest"] = max(rss["ingest"], peak)
            dt, _, _ = timed(["cat", src])
            b3["cat"].append(dt)
            timed([NUBO, "--data", data, "debug", "cat", got_hash])  # warm the page cache as for cat
            dt, peak, _ = timed([NUBO, "--data", data, "debug", "cat", got_hash])
            b3["read"].append(dt)
            rss["read"] = max(rss["read"], peak)
            shutil.rmtree(data, ignore_errors=True) if rnd + 1 < args.rounds else None
        # Equivalence gate: the manifest hash is b3sum's, and the bytes read back hash the same.
        if got_hash != want:
            raise SystemExit("equivalence gate failed: nubo %s vs b3sum %s" % (got_hash, want))
        cat = subprocess.Popen([NUBO, "--data", data, "debug", "cat", got_hash], stdout=subprocess.PIPE)
        back = subprocess.run(["b3sum", "--no-names"], stdin=cat.stdout, capture_output=True, text=True).stdout.strip()
        cat.wait()
        if back != want:
            raise SystemExit("equivalence gate failed: read-back hash %s vs %s" % (back, want))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if fresh:
            fresh.close()
    med = {k: statistics.median(v) for k, v in b3.items()}
    gb = size / 1e9
    print("\nscenario storage: %d MiB random file, %d rounds, median; load before: %s; data dir on %s"
          % (size >> 20, args.rounds, args.load, "a fresh ext4 loop device" if fresh else where or tempfile.gettempdir()))
    print("| operation | seconds | GB/s | peak RSS MiB |")
    print("|---|---|---|---|")
    print("| nubo ingest (FastCDC + BLAKE3 + fsync'd chunks + SQLite commit) | %.3f | %.2f | %.1f |"
          % (med["ingest"], gb / med["ingest"], rss["ingest"] / 1024))
    print("| nubo ingest, BEFORE: fsync per chunk | %.3f | %.2f | |"
          % (med["ingest_per_chunk"], gb / med["ingest_per_chunk"]))
    print("| dd write + one fsync (the disk's ceiling) | %.3f | %.2f | |" % (med["dd"], gb / med["dd"]))
    print("| b3sum (all cores) | %.3f | %.2f | |" % (med["b3sum"], gb / med["b3sum"]))
    print("| b3sum --num-threads 1 | %.3f | %.2f | |" % (med["b3sum1"], gb / med["b3sum1"]))
    print("| nubo read (manifest → chunks → stdout) | %.3f | %.2f | %.1f |"
          % (med["read"], gb / med["read"], rss["read"] / 1024))
    print("| cat file > /dev/null | %.3f | %.2f | |" % (med["cat"], gb / med["cat"]))
    print("ratio ingest batched/per-chunk (AFTER/BEFORE speed-up): %.2f" % (med["ingest_per_chunk"] / med["ingest"]))
    print("ratio ingest/dd: %.2f" % (med["dd"] / med["ingest"]))
    print("ratio ingest/b3sum: %.2f (target >= 0.5); ingest/b3sum-1-thread: %.2f; read/cat: %.2f (target >= 0.8)"
          % (med["b3sum"] / med["ingest"], med["b3sum1"] / med["ingest"], med["cat"] / med["read"]))
