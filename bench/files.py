"""files: nubo's REST API alone — a 20,000-file folder's listing pages (page 1
vs page 100, three sorts) and a streamed 1 GiB PUT and GET against b3sum and
cat."""
import hashlib
import json
import os
import shutil
import statistics
import tempfile
import time

from lib.api import ADMIN, FAST_ARGON2, MiB, Api, ServerError
from lib.data import FreshFs, write_random
from lib.httpc import HttpError
from lib.listing import PAGE_LIMIT, files_listing
from lib.proc import peak_rss_kib, reset_hwm, rss_breakdown_kib, timed
from lib.servers import start_nubo
from lib.stats import pct


def files_big(api, root, nubo, tmp, args):
    size = args.files_bytes
    src = os.path.join(tmp, "input.bin")
    m = {"upload": [], "download": [], "b3sum": [], "cat": []}
    rss, parts = [], []
    hwm_reset = True
    for rnd in range(args.rounds):
        want_sha = write_random(src, size)
        dt, _, out = timed(["b3sum", "--no-names", src], stdout=None)
        want_b3 = out.split()[0]
        m["b3sum"].append(dt)
        dt, _, _ = timed(["cat", src])
        m["cat"].append(dt)
        hwm_reset = reset_hwm([nubo.proc.pid]) and hwm_reset
        t = time.perf_counter()
        status, body = api.put_file("/nodes/%s/files/big-%d.bin" % (root, rnd), src, size)
        m["upload"].append(time.perf_counter() - t)
        if status != 201:
            raise ServerError("PUT big-%d.bin answered %d: %r" % (rnd, status, body[:500]))
        node = json.loads(body)
        if node.get("size") != size or node.get("hash") != want_b3:
            raise SystemExit("equivalence gate failed: node size %r hash %r vs %d bytes, b3sum %s" % (
                node.get("size"), node.get("hash"), size, want_b3))
        digest = None if args.no_download_hash else hashlib.sha256()
        t = time.perf_counter()
        _, got = api.get_content(node["id"], digest)
        m["download"].append(time.perf_counter() - t)
        if got != size or (digest is not None and digest.hexdigest() != want_sha):
            raise SystemExit("equivalence gate failed: downloaded %d bytes, sha256 %s vs %d bytes, %s" % (
                got, digest.hexdigest() if digest else "-", size, want_sha))
        rss.append(peak_rss_kib([nubo.proc.pid]))
        parts.append(rss_breakdown_kib(nubo.proc.pid))
    return m, rss, parts, hwm_reset


def client_sha256_mbps():
    """The harness's own hashing speed: the ceiling the hashed download sees."""
    b = os.urandom(MiB)
    h = hashlib.sha256()
    t = time.perf_counter()
    for _ in range(256):
        h.update(b)
    return 256 * MiB / 1e6 / (time.perf_counter() - t)


def run(args):
    fresh = None
    where = args.tmpdir
    if where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4"):
        # input + every round's stored copy + chunk staging, plus the listing's tiny files and SQLite.
        fresh = FreshFs((args.rounds + 2) * args.files_bytes + args.list_entries * 16384 + (1 << 30))
        where = fresh.mnt
    tmp = tempfile.mkdtemp(prefix="nubo-bench-", dir=where)
    nubo = None
    try:
        nubo = start_nubo(tmp, env=FAST_ARGON2)
        api = Api(nubo.port, *ADMIN)
        api.setup()
        root = api.root_id()
        create_s, far, listing = files_listing(api, root, args)
        rss_listing = peak_rss_kib([nubo.proc.pid])
        big, rss, parts, hwm_reset = files_big(api, root, nubo, tmp, args)
        api.close()
        nubo.stop()
        if nubo.proc.returncode != 0:
            raise ServerError("nubo exited with %d on SIGTERM" % nubo.proc.returncode)
    except (ServerError, HttpError, OSError) as e:
        log = ""
        if nubo:
            if nubo.proc.poll() is None:
                nubo.stop()
            with open(nubo.log_path, "rb") as f:
                log = f.read()[-4000:].decode("utf-8", "replace")
        raise SystemExit("files scenario: the server misbehaved: %s: %s\nnubo exit code: %s\n--- nubo.log tail ---\n%s"
                         % (type(e).__name__, e, nubo.proc.returncode if nubo else None, log))
    finally:
        if nubo and nubo.proc.poll() is None:
            nubo.stop()
        shutil.rmtree(tmp, ignore_errors=True)
        if fresh:
            fresh.close()

    on = "a fresh ext4 loop device" if fresh else where or tempfile.gettempdir()
    print("\nscenario files, listing: one folder of %d files (multipart, 1000 per request: %.1f s, %.0f files/s), "
          "GET children?limit=%d on one keep-alive connection, page 1 vs page %d (cursor reused), %d reps "
          "interleaved; load before: %s; data dir on %s"
          % (args.list_entries, create_s, args.list_entries / create_s, PAGE_LIMIT, far, args.list_reps, args.load, on))
    print("| sort | page | p50 ms | p95 ms | p99 ms | p50 page %d / page 1 |" % far)
    print("|---|---|---|---|---|---|")
    ratios = {}
    for label, (t1, tf) in listing.items():
        ratios[label] = pct(tf, 50) / pct(t1, 50)
        print("| %s | 1 | %.3f | %.3f | %.3f | |" % (label, pct(t1, 50), pct(t1, 95), pct(t1, 99)))
        print("| %s | %d | %.3f | %.3f | %.3f | %.2f |" % (label, far, pct(tf, 50), pct(tf, 95), pct(tf, 99),
                                                         ratios[label]))
    worst = max(max(pct(t1, 50), pct(tf, 50)) for t1, tf in listing.values())
    ok = all(0.8 <= r <= 1.2 for r in ratios.values()) and worst <= 2.0
    print("targets: ratio within 0.80..1.20 and p50 <= 2 ms per page: %s (worst p50 %.3f ms)%s"
          % ("met" if ok else "NOT met", worst,
             "" if far == 100 else "; only %d pages here, so page %d stands in for page 100" % (far, far)))
    print("gate: each sort's walk returned every name once, in natural order (ICU root collator, numeric, "
          "secondary strength: bench/icu_order.py)")

    med = {k: statistics.median(v) for k, v in big.items()}
    mb = args.files_bytes / 1e6
    rate = {k: mb / v for k, v in med.items()}
    print("\nscenario files, large file: %d MiB random file (fresh each round), %d rounds, median; "
          "streamed PUT and GET on one keep-alive connection, 1 MiB pieces%s; load before: %s; data dir on %s"
          % (args.files_bytes >> 20, args.rounds,
             "" if args.no_download_hash else ", GET hashed with sha256 on the fly (client sha256: %.0f MB/s)"
             % client_sha256_mbps(), args.load, on))
    print("| operation | seconds | MB/s | peak RSS MiB |")
    print("|---|---|---|---|")
    print("| nubo PUT /nodes/{root}/files/big-N.bin | %.3f | %.0f | %.1f |" % (med["upload"], rate["upload"],
                                                                           max(rss) / 1024))
    print("| nubo GET /nodes/{id}/content | %.3f | %.0f | (same) |" % (med["download"], rate["download"]))
    print("| b3sum (all cores) | %.3f | %.0f | |" % (med["b3sum"], rate["b3sum"]))
    print("| cat file > /dev/null | %.3f | %.0f | |" % (med["cat"], rate["cat"]))
    print("ratio upload/b3sum: %.2f; download/cat: %.2f; server peak RSS during upload+download (VmHWM%s, max of "
          "rounds): %.1f MiB (target < 64; per round: %s; after the listing phase: %.1f MiB)"
          % (rate["upload"] / rate["b3sum"], rate["download"] / rate["cat"],
             " reset before each upload" if hwm_reset else " since start: clear_refs refused", max(rss) / 1024,
             ", ".join("%.1f" % (r / 1024) for r in rss), rss_listing / 1024))
    anon, file_, magic = (max(p[i] for p in parts) / 1024 for i in range(3))
    print("server RSS after the last transfer (max of rounds): anonymous %.1f MiB, file-backed %.1f MiB, of which "
          "/usr/lib/file/magic.mgc mappings %.1f MiB" % (anon, file_, magic))
    print("gate: each upload's node hash equals b3sum of the input%s"
          % ("" if args.no_download_hash else "; each download's sha256 equals the input's"))
