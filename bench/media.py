"""Scenario media: thumbnails and search (docs/media-and-search.md), from
one run of one build.

  1. Thumbnails of 12-megapixel JPEGs (--thumb-files, 4000x3000, made by
     ffmpeg with film grain so they compress like photos): nubo's small
     thumbnails (first request, two in flight: the machine's cores) vs
     `vipsthumbnail -s 256` of the same files in two processes, each on
     half of them (the physical proxy: the same library on both cores with
     nothing around it), alternating, median
     of --rounds; images/s and the ratio (target >= 0.9).
     Gate: every thumbnail is a WebP whose larger side is 256, with the
     same size as vipsthumbnail's.
  2. Full-text search over --docs text documents (words drawn from a
     Zipf-like vocabulary; every document also holds one unique word):
     indexing throughput (documents/s from the last upload until the job
     queue is empty), then p50/p95 of content queries (a unique word, two
     mid-frequency words, a common word, a common and a mid-frequency word;
     target p50 <= 10 ms at 100,000 documents) and of name searches through
     the trigram index. With --before BINARY the content queries are timed
     on both builds serving the same data in turn (--rounds, alternating
     which goes first) with a BEFORE column and the ratio.
     Gate: each unique word finds exactly its document; a two-word query
     finds exactly the documents a scan of the sources finds (up to the
     page limit); with --before, both builds answer every query with the
     same ids in the same order.
  3. REST listing of a 1,000-entry folder, p50 idle vs while the queue
     indexes the documents of step 2 (target: within 1.5x).
  4. Photos: --photos small JPEGs with EXIF dates spread over twenty years
     are uploaded and read by the job queue (photos/s), then timeline pages
     of 100 from random keyset positions (target p50 <= 1.0 ms at 50,000).
     Gates: the months count every photo; one walk of the timeline is
     newest first and holds every photo once.
"""
import concurrent.futures
import hashlib
import itertools
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse

from lib import httpc
from lib.ab import wait_queue_empty
from lib.api import ADMIN, Api, FAST_ARGON2
from lib.servers import NUBO, start_nubo
from lib.stats import pct

USER = ("mia", "mia bench password")


def setup(srv):
    api = Api(srv.port, *ADMIN)
    api.setup()
    api.call("POST", "/admin/users", {"username": USER[0], "password": USER[1]}, expect=201)
    return Api(srv.port, *USER)


def webp_size(data):
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise SystemExit("gate: not a WebP")
    kind = data[12:16]
    if kind == b"VP8 ":
        return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    if kind == b"VP8L":
        b = int.from_bytes(data[21:25], "little")
        return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
    return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1


def make_jpegs(folder, n):
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i in range(n):
        p = os.path.join(folder, "photo%03d.jpg" % i)
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                        "testsrc2=size=4000x3000:rate=1", "-vf", "noise=alls=15:allf=t:all_seed=%d" % (i + 1),
                        "-frames:v", "1", "-q:v", "3", "-y", p], check=True)
        paths.append(p)
    # Distinct contents: nubo keys thumbnails by content, so copies would be
    # made once and measure nothing.
    digests = set()
    for p in paths:
        with open(p, "rb") as f:
            digests.add(hashlib.sha256(f.read()).hexdigest())
    if len(digests) != len(paths):
        raise SystemExit("gate: the generated JPEGs are not all different")
    return paths


def scenario_thumbs(args, tmp, rows):
    paths = make_jpegs(os.path.join(tmp, "jpegs"), args.thumb_files)
    sizes_mb = sum(os.path.getsize(p) for p in paths) / len(paths) / 1e6
    vips_rates, nubo_rates = [], []
    vips_dims = {}
    for rnd in range(args.rounds):
        for which in (("vips", "nubo") if rnd % 2 == 0 else ("nubo", "vips")):
            if which == "vips":
                out = os.path.join(tmp, "vips-out-%d" % rnd)
                os.makedirs(out)
                # Two processes, each on half of the files: both cores, like
                # nubo's two requests in flight.
                t = time.perf_counter()
                procs = [subprocess.Popen(["vipsthumbnail", "-s", "256", "-o",
                                           os.path.join(out, "%s.webp[Q=80,strip]"), *paths[k::2]])
                         for k in range(2)]
                if any(p.wait() != 0 for p in procs):
                    raise SystemExit("vipsthumbnail failed")
                vips_rates.append(len(paths) / (time.perf_counter() - t))
                for p in paths:
                    with open(os.path.join(out, os.path.basename(p)[:-4] + ".webp"), "rb") as f:
                        vips_dims[os.path.basename(p)] = webp_size(f.read())
                shutil.rmtree(out)
            else:
                data = os.path.join(tmp, "nubo-thumbs-%d" % rnd)
                os.makedirs(data)
                srv = start_nubo(data, env=dict(FAST_ARGON2, NUBO_JOBS_WORKERS="0", NUBO_ACCESS_LOG="false"))
                try:
                    api = setup(srv)
                    root = api.root_id()
                    ids = {}
                    for p in paths:
                        with open(p, "rb") as f:
                            st, body = api.raw("PUT", "/nodes/%s/files/%s" % (root, os.path.basename(p)), f.read())
                        assert st == 201, (st, body)
                        ids[os.path.basename(p)] = json.loads(body)["id"]
                    dims = {}

                    def one(name):
                        c = httpc.Conn(srv.port, timeout=600)
                        r = c.request("GET", "/api/v1/nodes/%s/thumbnail" % ids[name], {"Authorization": api.auth})
                        body = r.body
                        c.close()
                        if r.status != 200:
                            raise SystemExit("gate: thumbnail of %s answered %d %r" % (name, r.status, body[:200]))
                        dims[name] = webp_size(body)
                    t = time.perf_counter()
                    with concurrent.futures.ThreadPoolExecutor(2) as ex:
                        list(ex.map(one, ids))
                    nubo_rates.append(len(paths) / (time.perf_counter() - t))
                finally:
                    srv.stop()
                    shutil.rmtree(data, ignore_errors=True)
    for name, d in dims.items():
        if max(d) != 256 or d != vips_dims[name]:
            raise SystemExit("gate: %s: nubo %s vs vipsthumbnail %s" % (name, d, vips_dims[name]))
    v, n = statistics.median(vips_rates), statistics.median(nubo_rates)
    rows.append(("thumbnails of %d 12-MP JPEGs (%.1f MB each): images/s (vipsthumbnail vs nubo)"
                 % (len(paths), sizes_mb), "%.1f" % v, "%.1f" % n, "%.2f (target >= 0.9)" % (n / v)))


def vocabulary(rng, n):
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))))
    return sorted(words)


def scenario_search(args, tmp, rows):
    rng = random.Random(args.seed)
    vocab = vocabulary(rng, 20000)
    cum = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(vocab))))  # Zipf-like
    data = os.path.join(tmp, "nubo-search")
    os.makedirs(data)
    # With --before the corpus is built by BEFORE (an older build cannot
    # open a database a newer one migrated); AFTER gets a copy and
    # migrates it. The indexing, listing and name rows are then BEFORE's.
    srv = start_nubo(data, env=dict(FAST_ARGON2, NUBO_ACCESS_LOG="false"), binary=args.before)
    built_by = " (built by BEFORE)" if args.before else ""
    try:
        api = setup(srv)
        admin = Api(srv.port, *ADMIN)
        root = api.root_id()
        listed = api.call("POST", "/nodes/%s/folders" % root, {"name": "listed"}, expect=201)["id"]
        for i in range(1000):
            st, _ = api.raw("PUT", "/nodes/%s/files/entry%04d.bin" % (listed, i), b"")
            assert st == 201
        while admin.call("GET", "/admin/jobs")["due"] > 0:
            time.sleep(0.2)

        def listing_p50(reps, stop=None):
            c = Api(srv.port, *USER)
            times = []
            for _ in range(reps):
                if stop is not None and stop.is_set():
                    break
                t = time.perf_counter()
                st, _ = c.raw("GET", "/nodes/%s/children?limit=100" % listed)
                times.append(time.perf_counter() - t)
                assert st == 200
            return times
        idle = listing_p50(300)
        folders = [api.call("POST", "/nodes/%s/folders" % root, {"name": "docs%02d" % k}, expect=201)["id"]
                   for k in range(args.docs // 1000 + 1)]
        texts = {}
        t_up = time.perf_counter()

        def upload(k):
            c = Api(srv.port, *USER)
            for i in range(k, args.docs, 2):
                words = rng_local[k].choices(vocab, cum_weights=cum, k=rng_local[k].randint(150, 500))
                unique = "uniq%07d" % i
                body = " ".join(words[:50] + [unique] + words[50:])
                texts[i] = (body, unique)
                st, _ = c.raw("PUT", "/nodes/%s/files/doc%06d.txt" % (folders[i // 1000], i), body.encode())
                assert st == 201, st
        rng_local = [random.Random(args.seed + 1), random.Random(args.seed + 2)]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            list(ex.map(upload, range(2)))
        uploaded = time.perf_counter()
        pending = admin.call("GET", "/admin/jobs")
        pending = pending["due"] + pending["running"]
        # Listing while the queue indexes.
        stop = threading.Event()
        busy = []
        lister = threading.Thread(target=lambda: busy.extend(listing_p50(10 ** 9, stop)))
        lister.start()
        wait_queue_empty(admin, poll=0.1)
        indexed = time.perf_counter()
        stop.set()
        lister.join()
        rate = args.docs / (indexed - t_up)
        rows.append(("indexing%s: %d text documents uploaded and indexed, documents/s from the first upload to an "
                     "empty queue (uploads took %.0f s; %d still queued then, indexed in %.1f s)"
                     % (built_by, args.docs, uploaded - t_up, pending, indexed - uploaded), "", "%.0f" % rate, ""))
        ib, bb = statistics.median(idle) * 1000, statistics.median(busy or idle) * 1000
        rows.append(("REST listing of 1,000 entries p50 ms%s: idle vs while indexing" % built_by, "%.2f" % ib,
                     "%.2f" % bb,
                     "%.2f (target <= 1.5)" % (bb / ib)))
        # Gates.
        c = Api(srv.port, *USER)
        for i in rng.sample(range(args.docs), 50):
            body = c.call("GET", "/search/content?q=%s" % texts[i][1])
            names = [it["node"]["name"] for it in body["items"]]
            if names != ["doc%06d.txt" % i]:
                raise SystemExit("gate: uniq word of doc %d found %r" % (i, names))
        mids = vocab[2000:2050]
        for w1, w2 in zip(mids[::2], mids[1::2]):
            want = {"doc%06d.txt" % i for i, (b, _) in texts.items()
                    if re.search(r"\b%s\b" % w1, b) and re.search(r"\b%s\b" % w2, b)}
            got = set()
            cursor = None
            while True:
                body = c.call("GET", "/search/content?limit=100&q=%s%s" % (
                    urllib.parse.quote("%s %s" % (w1, w2)), ("&cursor=" + cursor) if cursor else ""))
                got |= {it["node"]["name"] for it in body["items"]}
                cursor = body["next_cursor"]
                if not cursor:
                    break
            # The last word is also a prefix: documents with a longer word
            # starting with it match too.
            if not want <= got:
                raise SystemExit("gate: '%s %s' missed %d documents" % (w1, w2, len(want - got)))
        # Query latency.
        queries = {
            "a unique word": [texts[i][1] for i in rng.sample(range(args.docs), 200)],
            "two mid-frequency words": ["%s %s" % tuple(rng.sample(vocab[500:3000], 2)) for _ in range(200)],
            "a common word (limit 20)": [rng.choice(vocab[:20]) for _ in range(200)],
            "a common and a mid-frequency word": ["%s %s" % (rng.choice(vocab[:20]), rng.choice(vocab[500:3000]))
                                                  for _ in range(200)],
        }

        def measure(port):
            """{label: [seconds]} and {query: [(id, rank cursor)]} from one pass."""
            c = Api(port, *USER)
            times, seen = {}, {}
            for label, qs_ in queries.items():
                times[label] = []
                for q in qs_:
                    t = time.perf_counter()
                    st, body = c.raw("GET", "/search/content?q=" + urllib.parse.quote(q))
                    times[label].append(time.perf_counter() - t)
                    assert st == 200
                    seen[q] = [it["node"]["id"] for it in json.loads(body)["items"]]
            c.close()
            return times, seen

        if not args.before:
            after_times, _ = measure(srv.port)
            for label, times in after_times.items():
                rows.append(("content search over %d documents, %s: p50 / p95 ms" % (args.docs, label), "",
                             "%.2f / %.2f" % (statistics.median(times) * 1000, pct(times, 95) * 1000),
                             "target p50 <= 10"))
        times = []
        nodes = args.docs + 1000 + len(folders)
        for _ in range(200):
            q = "%06d" % rng.randrange(args.docs)
            t = time.perf_counter()
            st, body = c.raw("GET", "/search?q=" + q[:4])
            times.append(time.perf_counter() - t)
            assert st == 200
        rows.append(("name search (4-character substring, trigram index) over %d nodes%s: p50 / p95 ms"
                     % (nodes, built_by), "",
                     "%.2f / %.2f" % (statistics.median(times) * 1000, pct(times, 95) * 1000),
                     "target p50 <= 20 at 1,000,000"))
        if args.before:
            # BEFORE and AFTER serve the same data in turn, alternating
            # which goes first each round; gate: the same ids in the same
            # order for every query.
            srv.stop()
            srv = None
            t_copy = time.perf_counter()
            shutil.copytree(data, data + "-after")
            copied = time.perf_counter() - t_copy
            runs = {"BEFORE": {}, "AFTER": {}}
            migrated = None
            answers = {}
            for r in range(args.rounds):
                for name in (("AFTER", "BEFORE") if r % 2 == 0 else ("BEFORE", "AFTER")):
                    t_start = time.perf_counter()
                    s = start_nubo(data if name == "BEFORE" else data + "-after",
                                   env=dict(FAST_ARGON2, NUBO_ACCESS_LOG="false"),
                                   binary=args.before if name == "BEFORE" else NUBO)
                    if name == "AFTER" and migrated is None:
                        migrated = time.perf_counter() - t_start
                        # Its first maintenance sweep (at start) merges the
                        # full-text index's segments: measure after it, as a
                        # server that has run for a sweep answers.
                        deadline = time.time() + 120
                        while time.time() < deadline:
                            with open(s.log_path, "rb") as f:
                                if b"search index:" in f.read():
                                    break
                            time.sleep(0.2)
                    try:
                        measure(s.port)  # warm: caches and the page cache
                        times, seen = measure(s.port)
                    finally:
                        s.stop()
                    for label, ts in times.items():
                        runs[name].setdefault(label, []).extend(ts)
                    for q, ids in seen.items():
                        if answers.setdefault(q, ids) != ids:
                            raise SystemExit("gate: %s answered %r with %r, the other build with %r"
                                             % (name, q, ids, answers[q]))
            rows.append(("AFTER's first start on BEFORE's data (migrations included), s (the copy took %.1f s)"
                         % copied, "", "%.2f" % migrated, ""))
            for label in queries:
                b, a = runs["BEFORE"][label], runs["AFTER"][label]
                rows.append(("content search over %d documents, %s: p50 / p95 ms" % (args.docs, label),
                             "%.2f / %.2f" % (statistics.median(b) * 1000, pct(b, 95) * 1000),
                             "%.2f / %.2f" % (statistics.median(a) * 1000, pct(a, 95) * 1000),
                             "%.2f (target p50 <= 10)" % (statistics.median(a) / statistics.median(b))))
    finally:
        if srv:
            srv.stop()


def scenario_photos(args, tmp, rows):
    """Timeline pages over --photos small JPEGs whose EXIF dates spread over
    years (one source image, a different date each: the content differs)."""
    src = os.path.join(tmp, "tiny.jpg")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=1",
                    "-frames:v", "1", "-y", src], check=True)
    subprocess.run(["exiv2", "-M", "set Exif.Photo.DateTimeOriginal Ascii 2000:01:01 00:00:00", src], check=True)
    with open(src, "rb") as f:
        base = f.read()
    marker = b"2000:01:01 00:00:00"
    at = base.index(marker)
    data = os.path.join(tmp, "nubo-photos")
    os.makedirs(data)
    srv = start_nubo(data, env=dict(FAST_ARGON2, NUBO_ACCESS_LOG="false"))
    rng = random.Random(args.seed)
    try:
        api = setup(srv)
        admin = Api(srv.port, *ADMIN)
        root = api.root_id()
        folder = api.call("POST", "/nodes/%s/folders" % root, {"name": "Camera"}, expect=201)["id"]
        t0 = time.perf_counter()

        def upload(k):
            c = Api(srv.port, *USER)
            for i in range(k, args.photos, 2):
                d = time.gmtime(946684800 + rng_local[k].randrange(20 * 365 * 86400))
                stamp = time.strftime("%Y:%m:%d %H:%M:%S", d).encode()
                body = base[:at] + stamp + base[at + len(marker):]
                st, _ = c.raw("PUT", "/nodes/%s/files/img%06d.jpg" % (folder, i), body)
                assert st == 201, st
        rng_local = [random.Random(args.seed + 11), random.Random(args.seed + 12)]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            list(ex.map(upload, range(2)))
        wait_queue_empty(admin)
        ready = time.perf_counter() - t0
        months = api.call("GET", "/photos/months")["months"]
        total = sum(m["count"] for m in months)
        if total != args.photos:
            raise SystemExit("gate: the timeline holds %d photos, not %d" % (total, args.photos))
        # Walk the whole timeline once (gate: newest first, no photo twice),
        # remembering cursors to time random pages.
        cursors, seen, last = [None], set(), None
        while True:
            c = cursors[-1]
            body = api.call("GET", "/photos?limit=100" + ("&cursor=" + c if c else ""))
            for it in body["items"]:
                key = (it["taken_at"], it["node"]["id"])
                if last is not None and key[0] > last:
                    raise SystemExit("gate: the timeline is not newest first")
                last = key[0]
                seen.add(key[1])
            if not body["next_cursor"]:
                break
            cursors.append(body["next_cursor"])
        if len(seen) != args.photos:
            raise SystemExit("gate: walked %d photos, not %d" % (len(seen), args.photos))
        times = []
        for _ in range(300):
            c = rng.choice(cursors)
            t = time.perf_counter()
            st, _ = api.raw("GET", "/photos?limit=100" + ("&cursor=" + c if c else ""))
            times.append(time.perf_counter() - t)
            assert st == 200
        rows.append(("photos: %d uploaded and read (EXIF + thumbnail) in %.0f s" % (args.photos, ready), "",
                     "%.0f photos/s" % (args.photos / ready), ""))
        rows.append(("photos timeline page (100 photos) over %d photos: p50 / p95 ms" % args.photos, "",
                     "%.2f / %.2f" % (statistics.median(times) * 1000, pct(times, 95) * 1000),
                     "target p50 <= 1.0 at 50,000"))
    finally:
        srv.stop()


def scenario_names(args, tmp, rows):
    """Name search over --names nodes: a folder of 1,000 files with
    distinct random names, copied (server-side) until the tree holds
    --names files, so the same names recur in every copy as photo and
    document names do across real folders. Each 4-character needle is cut
    from one of the names, so it matches at least one file in every copy.
    With --before BINARY the tree is seeded by BEFORE and both builds serve
    it in turn (--rounds, alternating which goes first).
    Gate: every answer holds only names containing the needle, never
    nothing, and a full page (100) once every needle matches 100 files;
    with --before, both builds give the same answer to every needle."""
    data = os.path.join(tmp, "nubo-names")
    os.makedirs(data)
    env = dict(FAST_ARGON2, NUBO_ACCESS_LOG="false")
    srv = start_nubo(data, env=env, binary=args.before)
    rng = random.Random(args.seed + 21)
    letters = "abcdefghijklmnopqrstuvwxyz"
    try:
        api = setup(srv)
        admin = Api(srv.port, *ADMIN)
        root = api.root_id()
        base = api.call("POST", "/nodes/%s/folders" % root, {"name": "n00000"}, expect=201)["id"]
        names = []
        t0 = time.perf_counter()
        for i in range(1000):
            name = "%s %s-%04d.txt" % ("".join(rng.choice(letters) for _ in range(rng.randint(4, 9))),
                                       "".join(rng.choice(letters) for _ in range(rng.randint(3, 7))), i)
            names.append(name)
            st, _ = api.raw("PUT", "/nodes/%s/files/%s" % (base, urllib.parse.quote(name)), b"")
            assert st == 201, st
        copies = max(0, args.names // 1000 - 1)
        for k in range(1, copies + 1):
            api.call("POST", "/nodes/%s/copy" % base, {"parent_id": root, "name": "n%05d" % k}, expect=201)
        wait_queue_empty(admin, poll=0.5)
        seeded = time.perf_counter() - t0
    finally:
        srv.stop()
    nodes = (copies + 1) * 1001
    needles = []
    for _ in range(300):
        name = rng.choice(names).split(" ")[0]  # the first word: 4-9 letters
        at = rng.randrange(len(name) - 3)
        needles.append(name[at:at + 4])
    answers = {}

    def measure(name, binary):
        s = start_nubo(data, env=env, binary=binary)
        try:
            c = Api(s.port, *USER)
            times = []
            for i, needle in enumerate(needles):
                t = time.perf_counter()
                st, body = c.raw("GET", "/search?q=" + urllib.parse.quote(needle))
                elapsed = time.perf_counter() - t
                assert st == 200, st
                if i >= 100:  # the first hundred warm the caches
                    times.append(elapsed)
                items = json.loads(body)["items"]
                got = [it["id"] for it in items]
                if not items or any(needle not in it["name"].lower() for it in items):
                    raise SystemExit("gate: name search for %r answered %r" % (needle, [it["name"] for it in items][:5]))
                if copies >= 100 and len(items) < 100:
                    raise SystemExit("gate: name search for %r answered %d items, a page is 100" % (needle, len(items)))
                if answers.setdefault(needle, got) != got:
                    raise SystemExit("gate: %s answered %r differently from the other build" % (name, needle))
            return times
        finally:
            s.stop()

    rows.append(("name search tree: %d nodes (1,000 names in %d folders, copied server-side), seeded and "
                 "the job queue empty in %.0f s" % (nodes, copies + 1, seeded), "", "", ""))
    label = "name search (4-character substring of a name, trigram index, first page of 100) over %d nodes: p50 / p95 ms" % nodes
    if not args.before:
        times = measure("AFTER", None)
        rows.append((label, "", "%.2f / %.2f" % (statistics.median(times) * 1000, pct(times, 95) * 1000),
                     "target p50 <= 20 at 1,000,000"))
        return
    runs = {"BEFORE": [], "AFTER": []}
    for r in range(args.rounds):
        for name in (("AFTER", "BEFORE") if r % 2 == 0 else ("BEFORE", "AFTER")):
            runs[name].extend(measure(name, args.before if name == "BEFORE" else None))
    b, a = runs["BEFORE"], runs["AFTER"]
    rows.append((label, "%.2f / %.2f" % (statistics.median(b) * 1000, pct(b, 95) * 1000),
                 "%.2f / %.2f" % (statistics.median(a) * 1000, pct(a, 95) * 1000),
                 "%.2f (target p50 <= 20 at 1,000,000)" % (statistics.median(a) / statistics.median(b))))


def run(args):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-media-", dir=args.tmpdir)
    rows = []
    try:
        if args.part in ("all", "thumbs"):
            scenario_thumbs(args, tmp, rows)
        if args.part in ("all", "search"):
            scenario_search(args, tmp, rows)
        if args.part in ("all", "photos"):
            scenario_photos(args, tmp, rows)
        if args.part in ("all", "names"):
            scenario_names(args, tmp, rows)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("| media (nubo %s) | peer / BEFORE | nubo | ratio |" % os.path.basename(NUBO))
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
