"""Scenario zip-ab: memory of a ZIP download of 100,000 files, BEFORE/AFTER.

Both builds serve one data directory (AbPair: BEFORE seeds it, AFTER
starts on it); a folder of 100,000 small files (quick: 20,000) in 100
subfolders is downloaded as one ZIP from each build in turn, three times.
Printed per build: the server's peak RSS during the download above its RSS
before it (VmHWM reset with clear_refs), the archive's size and the time.
Gate: both archives list the same entries with the same CRC-32 and sizes
(Python's zipfile reads each whole, checking every CRC).
"""
import os
import statistics
import tempfile
import time
import zipfile

from lib import httpc
from lib.ab import AbPair
from lib.api import ServerError, multipart_body
from lib.proc import peak_rss_kib, reset_hwm


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def seed(count):
    def do(api, root):
        top = api.call("POST", "/nodes/%s/folders" % root, {"name": "many"}, expect=201)["id"]
        per = count // 100
        for d in range(100):
            folder = api.call("POST", "/nodes/%s/folders" % top, {"name": "d%03d" % d}, expect=201)["id"]
            parts = [("file-%06d.txt" % (d * per + i), b"entry %d of a large archive\n" % (d * per + i))
                     for i in range(per)]
            for k in range(0, len(parts), 1000):
                ctype, body = multipart_body(parts[k:k + 1000])
                api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})
        return top
    return do


def fetch(port, auth, folder, path):
    conn = httpc.Conn(port, timeout=3600)
    t = time.perf_counter()
    with open(path, "wb") as out:
        r = conn.request("GET", "/api/v1/nodes/%s/zip" % folder, {"Authorization": auth}, keep_body=False,
                         sink=out.write)
    conn.close()
    if r.status != 200:
        raise ServerError("zip answered %d" % r.status)
    return r.nbytes, time.perf_counter() - t


def entries(path):
    with zipfile.ZipFile(path) as z:
        bad = z.testzip()
        if bad:
            raise ServerError("CRC mismatch in %s: %s" % (path, bad))
        return sorted((i.filename, i.CRC, i.file_size) for i in z.infolist())


def run(args):
    count = 20000 if args.quick else 100000
    pair = AbPair(args, seed(count))
    out = tempfile.mkdtemp(prefix="nubo-bench-zip-", dir=args.tmpdir)
    stats = {0: [], 1: []}  # index into pair.servers: 0 AFTER, 1 BEFORE
    try:
        folder = pair.seeded
        listed = {}
        for rnd in range(3):
            for which in ((0, 1) if rnd % 2 else (1, 0)):
                srv = pair.servers[which]
                pid = srv.proc.pid
                base = rss_kib(pid)
                reset_hwm([pid])
                path = os.path.join(out, "%d.zip" % which)
                size, dt = fetch(srv.port, pair.apis[which].auth, folder, path)
                peak = peak_rss_kib([pid])
                stats[which].append((max(0, peak - base) / 1024, size, dt))
                if rnd == 0:
                    listed[which] = entries(path)
        if listed[0] != listed[1]:
            raise SystemExit("equivalence gate failed: the archives list different entries")
        if len(listed[0]) != count + 101:
            raise SystemExit("equivalence gate failed: %d entries, expected %d" % (len(listed[0]), count + 101))
    finally:
        pair.close()
        for name in os.listdir(out):
            os.unlink(os.path.join(out, name))
        os.rmdir(out)
    print("\nscenario zip-ab: GET /nodes/{id}/zip of %d files in 100 folders, BEFORE (%s) and AFTER (%s) on one "
          "data dir, 3 alternating rounds, medians; load before: %s" % (count, pair.before_bin, pair.after_bin,
                                                                         args.load))
    print("| build | peak RSS above start MiB | archive MB | seconds |")
    print("|---|---|---|---|")
    for label, which in (("BEFORE", 1), ("AFTER", 0)):
        rows = stats[which]
        print("| %s | %.1f | %.1f | %.2f |" % (label, statistics.median(r[0] for r in rows),
                                              rows[0][1] / 1e6, statistics.median(r[2] for r in rows)))
    b = statistics.median(r[0] for r in stats[1])
    a = statistics.median(r[0] for r in stats[0])
    print("AFTER/BEFORE peak RSS growth: %.2f" % (a / b if b else float("nan")))
    print("gate: both archives list the same %d entries with the same CRC-32 and sizes (zipfile.testzip clean)"
          % (count + 101))
