"""Scenario sharing-cost: what reaching a folder through sharing costs,
BEFORE (the owner in its own folder) / AFTER (the same folder reached
through sharing), from one run of one build on one data directory.

Seeding: the owner's folder share/a/b/c/d/e holds 1,000 files (the s1
names and sizes) and a 1 GiB file; a viewer grant on share/ (five levels
above the listed folder) gives it to a second user, who also belongs to 10
of 1,000 groups (nested), while 10,000 other grants (100 folders x 100
groups) sit in the database; a view link opens share/.

Cases, alternating owner / recipient request by request (the order flips
every repetition) on two keep-alive connections:
  * REST listing, first page of 200 (the owner's vs the grantee's request);
  * PROPFIND Depth:1 of the 1,000-file folder: the owner's /dav/ vs the
    grantee's /dav-shares/<share>/ (the same grant five levels up), and vs
    the view link's /public.php/webdav/;
  * GET of the 1 GiB file: the owner vs the view link's bearer (MB/s).
Gates: listing bodies byte-identical; PROPFIND answers identical once the
mount prefix of the hrefs is removed; the two downloads hash alike and
match the file's stored hash.
"""
import hashlib
import os
import re
import tempfile
import time

from lib import httpc
from lib.api import ADMIN, API, Api, FAST_ARGON2, MiB, ServerError, multipart_body
from lib.data import listing_specs, write_random
from lib.servers import NUBO, PROPFIND_BODY, start_nubo
from lib.stats import pct

OTHER = ("bob", "bob password 1")


def seed(api, bob_api, tmp, big_bytes):
    root = api.root_id()
    api.call("POST", "/admin/users", {"username": OTHER[0], "password": OTHER[1]}, expect=201)
    share = api.call("POST", "/nodes/%s/folders" % root, {"name": "share"}, expect=201)["id"]
    folder = share
    for name in "abcde":
        folder = api.call("POST", "/nodes/%s/folders" % folder, {"name": name}, expect=201)["id"]
    specs = listing_specs(1000, 1001)
    ctype, body = multipart_body(specs)
    api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})
    src = os.path.join(tmp, "big.bin")
    write_random(src, big_bytes)
    status, data = api.put_file("/nodes/%s/files/big.bin" % share, src, big_bytes)
    if status != 201:
        raise ServerError("big upload: %d %r" % (status, data[:200]))
    import json
    big = json.loads(data)
    os.unlink(src)
    # 1,000 groups; bob is in g0000, which nine others contain (nested).
    groups = [api.call("POST", "/groups", {"name": "g%04d" % i}, expect=201)["id"] for i in range(1000)]
    api.call("POST", "/groups/%s/members" % groups[0], {"user": OTHER[0]}, expect=204)
    for i in range(1, 10):
        api.call("POST", "/groups/%s/members" % groups[i], {"group": groups[i - 1]}, expect=204)
    # 10,000 other grants: 100 folders x 100 groups (bob's groups excluded).
    others = api.call("POST", "/nodes/%s/folders" % root, {"name": "others"}, expect=201)["id"]
    for f in range(100):
        node = api.call("POST", "/nodes/%s/folders" % others, {"name": "o%03d" % f}, expect=201)["id"]
        for g in groups[100 + f * 9 % 800:][:100]:
            api.call("POST", "/nodes/%s/grants" % node, {"group": g, "role": "viewer"}, expect=201)
    api.call("POST", "/nodes/%s/grants" % share, {"user": OTHER[0], "role": "viewer"}, expect=201)
    token = api.call("POST", "/nodes/%s/links" % share, {"role": "view"}, expect=201)["token"]
    return folder, big, token, share


def timed(conn, method, path, headers, body=None):
    t = time.perf_counter()
    r = conn.request(method, path, headers, body)
    return (time.perf_counter() - t) * 1000, r.status, r.body


def download(port, path, headers):
    conn = httpc.Conn(port, timeout=600)
    h = hashlib.blake2b(digest_size=16)
    t = time.perf_counter()
    r = conn.request("GET", path, headers, keep_body=False, sink=h.update)
    dt = time.perf_counter() - t
    conn.close()
    if r.status != 200:
        raise ServerError("download %s: %d" % (path, r.status))
    return r.nbytes / dt / 1e6, r.nbytes, h.hexdigest()


def run(args):
    big_bytes = args.files_bytes
    tmp = tempfile.mkdtemp(prefix="nubo-bench-share-", dir=args.tmpdir)
    srv = start_nubo(tmp, env=FAST_ARGON2)
    try:
        api = Api(srv.port, *ADMIN)
        api.setup()
        t0 = time.perf_counter()
        folder, big, token, share = seed(api, None, tmp, big_bytes)
        seed_s = time.perf_counter() - t0
        api.close()
        owner = {"Authorization": httpc.basic(*ADMIN)}
        bob = {"Authorization": httpc.basic(*OTHER)}
        link = {"Authorization": httpc.basic(token, "")}
        conns = [httpc.Conn(srv.port, timeout=600) for _ in range(2)]
        rows = []

        def alternate(label, reqs, reps, normalize=lambda b: b):
            times = ([], [])  # owner, recipient
            for rep in range(reps):
                bodies = [None, None]
                for which in ((0, 1) if rep % 2 else (1, 0)):
                    method, path, headers, body = reqs[which]
                    ms, status, data = timed(conns[which], method, path, headers, body)
                    if status not in (200, 207):
                        raise ServerError("%s: %d %r" % (label, status, data[:200]))
                    times[which].append(ms)
                    bodies[which] = normalize(data)
                if bodies[0] != bodies[1]:
                    raise SystemExit("equivalence gate failed: %s differs between owner and recipient" % label)
            rows.append((label, pct(times[0], 50), pct(times[1], 50)))

        listing = API + "/nodes/%s/children?limit=200" % folder
        for _ in range(5):  # warm both credentials and caches
            for which, h in ((0, owner), (1, bob)):
                timed(conns[which], "GET", listing, h)
        alternate("REST listing, first page of 200 (grant five levels up)",
                  [("GET", listing, owner, None), ("GET", listing, bob, None)], args.list_reps)
        pf = {"Depth": "1", "Content-Type": "application/xml"}
        strip = lambda b: re.sub(rb"<d:href>/(dav/share|dav-shares/[0-9a-f-]+|public\.php/webdav)/", b"<d:href>/",  # noqa: E731
                                 b)
        alternate("PROPFIND Depth:1, 1,000 files (owner /dav/ vs grantee /dav-shares/, grant five levels up)",
                  [("PROPFIND", "/dav/share/a/b/c/d/e/", dict(pf, **owner), PROPFIND_BODY),
                   ("PROPFIND", "/dav-shares/%s/a/b/c/d/e/" % share, dict(pf, **bob), PROPFIND_BODY)],
                  max(10, args.list_reps // 10), normalize=strip)
        alternate("PROPFIND Depth:1, 1,000 files (owner /dav/ vs view link /public.php/webdav/)",
                  [("PROPFIND", "/dav/share/a/b/c/d/e/", dict(pf, **owner), PROPFIND_BODY),
                   ("PROPFIND", "/public.php/webdav/a/b/c/d/e/", dict(pf, **link), PROPFIND_BODY)],
                  max(10, args.list_reps // 10), normalize=strip)
        for c in conns:
            c.close()
        speeds = ([], [])
        digests = set()
        for rep in range(3):
            for which in ((0, 1) if rep % 2 else (1, 0)):
                path, h = ((API + "/nodes/%s/content" % big["id"], owner) if which == 0 else
                           (API + "/public/%s/nodes/%s/content" % (token, big["id"]), {}))
                mbps, total, digest = download(srv.port, path, h)
                if total != big_bytes:
                    raise SystemExit("equivalence gate failed: %d bytes downloaded, %d stored" % (total, big_bytes))
                speeds[which].append(mbps)
                digests.add(digest)
        if len(digests) != 1:
            raise SystemExit("equivalence gate failed: the downloads differ")
    finally:
        srv.stop()
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nscenario sharing-cost: %s; 1,000 groups, 10,000 other grants, seeding %.1f s; load before: %s"
          % (NUBO, seed_s, args.load))
    print("| case | owner p50 ms (BEFORE) | through sharing p50 ms (AFTER) | AFTER/BEFORE |")
    print("|---|---|---|---|")
    for label, before, after in rows:
        print("| %s | %.3f | %.3f | %.2f |" % (label, before, after, after / before))
    b, a = sorted(speeds[0])[1], sorted(speeds[1])[1]
    print("| GET %d MiB (owner vs view link), median of 3, MB/s | %.0f | %.0f | %.2f (speed) |" % (
        big_bytes // MiB, b, a, a / b))
    print("gates: listing bodies byte-identical; PROPFIND identical but for the mount prefix; both downloads hash "
          "alike and hold every byte")
