"""Scenario nextcloud: the Nextcloud client API (docs/nextcloud.md),
measured from one run of one build.

  1. nextcloudcmd (Debian's nextcloud-desktop-cmd) initial sync of 5,000
     small files in 50 folders with nc.bulk_upload off (BEFORE: a PUT per
     file) and on (AFTER: 100 files to a POST), each into a fresh server
     from a fresh client journal; then the no-op resync: wall time and the
     server's CPU seconds (utime + stime from /proc) for each, and the
     requests the resync made. The resync runs against the same data
     twice: with http.quickack off (BEFORE) and on (AFTER), alternating,
     median of --rounds each.
     Gate: after each initial sync, a PROPFIND of every folder lists 100
     files, both servers hold the same paths and sizes and the same bytes
     in a sample, and the resync transfers nothing (no PUT, no GET of a
     file).
  2. PROPFIND Depth 1 of a folder of 1,000 files: the property set
     nextcloudcmd asks on /remote.php/dav/files/<user>/ vs a plain
     <allprop/> PROPFIND on /dav/ of the same folder, one keep-alive
     connection each, median of 200 requests (target: NC/plain <= 1.3).
     Gate: both list the same 1,001 hrefs below their mount.
  3. 1 GiB (--files-bytes) uploaded with chunked upload v2 (MKCOL, chunk
     PUTs on one keep-alive connection, MOVE .file) vs one plain WebDAV
     PUT, in rounds of rotating order, median of --rounds (at least 3)
     rounds (target: chunked/PUT >= 0.9). Chunks of two sizes: 10 MiB
     each (a client that never grows its chunks, or a slow link), and
     as nextcloudcmd 3.7 sizes them (10 MB first, then what the last
     chunk's rate moves in 60 s, at most 1,000 MB). Twice: with the same bytes in
     every upload (after the first, every chunk is already stored: the
     server hashes and deduplicates, it writes nothing) and with fresh
     random bytes for every upload (every chunk is written and synced).
     Gate: every upload downloads with its source's SHA-256.
  4. Not by default (NUBO_BENCH_NC_PARTS=upload-ab, with --before BIN): the
     same upload of fresh bytes, one PUT and client-sized chunks, on two
     builds in alternating rounds (scenario_upload_ab).
  5. Not by default (NUBO_BENCH_NC_PARTS=assemble-ab, with --before BIN):
     the MOVE of .file alone (the join of the chunks into the file) after
     --files-bytes of fresh bytes in 10 MiB chunks, on two builds in
     alternating rounds, on SQLite and on PostgreSQL (scenario_assemble_ab).
"""
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.parse

from lib import httpc
from lib.api import ADMIN, Api, FAST_ARGON2, MiB
from lib.data import write_random
from lib.proc import proc_cpu_s
from lib.servers import NUBO, start_nubo

USER = ("carol", "carol bench password")
PROPS_NC = (b'<?xml version="1.0" encoding="utf-8"?>\n<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/>'
            b'<d:getlastmodified/><d:getcontentlength/><d:getetag/><oc:size xmlns:oc="http://owncloud.org/ns"/>'
            b'<oc:id xmlns:oc="http://owncloud.org/ns"/><oc:fileid xmlns:oc="http://owncloud.org/ns"/>'
            b'<oc:downloadURL xmlns:oc="http://owncloud.org/ns"/><oc:dDC xmlns:oc="http://owncloud.org/ns"/>'
            b'<oc:permissions xmlns:oc="http://owncloud.org/ns"/><oc:checksums xmlns:oc="http://owncloud.org/ns"/>'
            b'<nc:is-encrypted xmlns:nc="http://nextcloud.org/ns"/>'
            b'<nc:lock xmlns:nc="http://nextcloud.org/ns"/><oc:share-types xmlns:oc="http://owncloud.org/ns"/>'
            b'<oc:favorite xmlns:oc="http://owncloud.org/ns"/></d:prop></d:propfind>')
ALLPROP = b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>'
LINE = re.compile(r'"(\S+) (\S+)" (\d{3}) in=(\d+) out=(\d+) ([0-9.]+)ms')


class Conn:
    """One keep-alive connection with the user's Basic credentials (lib.httpc)."""

    def __init__(self, port, auth):
        self.port, self.auth, self.c = port, auth, httpc.Conn(port, timeout=3600)

    def req(self, method, path, body=b"", headers=None):
        h = {"Authorization": self.auth}
        h.update(headers or {})
        r = self.c.request(method, path, h, body)
        return r.status, r.headers, r.body

    def close(self):
        self.c.close()


def start(tmp, quickack=True, bulk=True, binary=None):
    os.makedirs(tmp, exist_ok=True)
    env = dict(FAST_ARGON2, NUBO_ACCESS_LOG="true", NUBO_HTTP_QUICKACK="true" if quickack else "false",
               NUBO_NC_BULK_UPLOAD="true" if bulk else "false")
    return start_nubo(tmp, env=env, binary=binary)


def setup(srv):
    api = Api(srv.port, *ADMIN)
    api.setup()
    api.call("POST", "/admin/users", {"username": USER[0], "password": USER[1]}, expect=201)


def nextcloudcmd(port, local, home):
    t = time.perf_counter()
    p = subprocess.run(["nextcloudcmd", "--non-interactive", "-u", USER[0], "-p", USER[1], local,
                        "http://127.0.0.1:%d" % port], capture_output=True, text=True, timeout=3600,
                       env=dict(os.environ, HOME=home))
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit("nextcloudcmd failed:\n" + p.stderr[-3000:])
    return dt


def log_lines(srv):
    time.sleep(1.3)  # the server flushes its log every second
    with open(srv.log_path, "rb") as f:
        return f.read().decode("utf-8", "replace").splitlines()


def requests_between(lines, a, b):
    out = []
    for line in lines[a:b]:
        m = LINE.search(line)
        if m:
            out.append((m.group(1), urllib.parse.unquote(m.group(2)), int(m.group(3)), int(m.group(4)),
                        int(m.group(5)), float(m.group(6))))
    return out


def listing(srv):
    """{path: size} of every file the account holds, after the gate that
    each folder lists its 100 files."""
    c = Conn(srv.port, httpc.basic(*USER))
    out = {}
    try:
        for d in range(50):
            folder = "/remote.php/dav/files/%s/folder%%20%02d/" % (USER[0], d)
            st, _, body = c.req("PROPFIND", folder, b"", {"Depth": "1"})
            if st != 207 or body.count(b"<d:response>") != 101:
                raise SystemExit("gate: folder %02d does not list 100 files after the initial sync" % d)
            for resp in body.split(b"<d:response>")[2:]:  # the folder's own comes first
                href = re.search(rb"<d:href>([^<]+)</d:href>", resp).group(1)
                size = re.search(rb"<d:getcontentlength>(\d+)<", resp)
                out[urllib.parse.unquote(href.decode())] = int(size.group(1)) if size else None
        # A sample of the bytes, against the local files.
        for d, i in ((0, 0), (17, 42), (49, 99)):
            st, _, got = c.req("GET", "/remote.php/dav/files/%s/folder%%20%02d/file%%20%03d.txt" % (USER[0], d, i))
            out["sha256 %d/%d" % (d, i)] = hashlib.sha256(got).hexdigest() if st == 200 else st
    finally:
        c.close()
    return out


def scenario_sync(args, tmp, rows):
    if not shutil.which("nextcloudcmd"):
        raise SystemExit("nextcloudcmd is missing: scripts/deps.sh bench installs it")
    local = os.path.join(tmp, "local")
    for d in range(50):
        folder = os.path.join(local, "folder %02d" % d)
        os.makedirs(folder)
        for i in range(100):
            with open(os.path.join(folder, "file %03d.txt" % i), "wb") as f:
                f.write(os.urandom(200 + (i * 37) % 1800))
    # The initial sync, without the bulk upload (one PUT per file, the
    # client's parallel jobs) and with it (100 files to a POST, one at a
    # time), each into a fresh server from a fresh client journal.
    initial, initial_cpu, seen = {}, {}, {}
    for kind, bulk in (("before", False), ("after", True)):
        for name in os.listdir(local):
            if name.startswith(".sync_"):
                os.remove(os.path.join(local, name))
        home = os.path.join(tmp, "home-" + kind)
        os.makedirs(home)
        data = os.path.join(tmp, "sync-data-" + kind)
        srv = start(data, quickack=True, bulk=bulk)
        try:
            setup(srv)
            c0 = proc_cpu_s([srv.proc.pid])
            initial[kind] = nextcloudcmd(srv.port, local, home)
            initial_cpu[kind] = proc_cpu_s([srv.proc.pid]) - c0
            seen[kind] = listing(srv)
            # Settle: a second sync re-lists the folders whose ETags the first changed.
            nextcloudcmd(srv.port, local, home)
        finally:
            srv.stop()
    # Equivalence: the same files, sizes and sampled bytes either way.
    if seen["before"] != seen["after"] or len(seen["after"]) != 5003:
        raise SystemExit("gate: the bulk upload stored something else than one PUT per file")
    b, a = initial["before"], initial["after"]
    rows.append(("nextcloudcmd initial sync, 5,000 files: wall s (PUT per file vs bulk upload)",
                 "%.1f" % b, "%.1f" % a, "%.2f (speed)" % (b / a)))
    rows.append(("nextcloudcmd initial sync, 5,000 files: server CPU s (PUT per file vs bulk upload)",
                 "%.1f" % initial_cpu["before"], "%.1f" % initial_cpu["after"],
                 "%.2f (time)" % (initial_cpu["after"] / initial_cpu["before"])))
    home = os.path.join(tmp, "home-after")
    data = os.path.join(tmp, "sync-data-after")
    results = {"before": [], "after": []}
    cpu = {"before": [], "after": []}
    served = {"before": [], "after": []}  # the requests' time at the server (access log)
    resync_requests = None
    for rep in range(args.rounds):
        for kind in (("before", "after") if rep % 2 == 0 else ("after", "before")):
            srv = start(data, quickack=(kind == "after"))
            try:
                setup_done = True  # the data folder holds the accounts already
                del setup_done
                nextcloudcmd(srv.port, local, home)  # warm: the credential cache, the page cache
                mark = len(log_lines(srv))
                c0 = proc_cpu_s([srv.proc.pid])
                dt = nextcloudcmd(srv.port, local, home)
                cpu[kind].append(proc_cpu_s([srv.proc.pid]) - c0)
                lines = log_lines(srv)
                seen = requests_between(lines, mark, len(lines))
                if any(r[0] in ("PUT", "MOVE", "DELETE", "MKCOL") for r in seen) or any(
                        r[0] == "GET" and r[1].startswith("/remote.php/") for r in seen):
                    raise SystemExit("gate: the no-op resync transferred something: %r" % seen)
                resync_requests = len(seen)
                results[kind].append(dt)
                served[kind].append(sum(r[5] for r in seen))
            finally:
                srv.stop()
    b, a = statistics.median(results["before"]), statistics.median(results["after"])
    rows.append(("nextcloudcmd no-op resync: wall ms (quickack off vs on; %d requests)" % resync_requests,
                 "%.0f" % (b * 1000), "%.0f" % (a * 1000), "%.2f (speed)" % (b / a)))
    sb, sa = statistics.median(served["before"]), statistics.median(served["after"])
    rows.append(("nextcloudcmd no-op resync: ms its requests took at the server (quickack off vs on)",
                 "%.1f" % sb, "%.1f" % sa, "%.2f (time)" % (sa / sb)))
    rows.append(("nextcloudcmd no-op resync: server CPU ms (quickack off vs on)",
                 "%.0f" % (statistics.median(cpu["before"]) * 1000),
                 "%.0f" % (statistics.median(cpu["after"]) * 1000), ""))


def scenario_propfind(args, tmp, rows):
    srv = start(os.path.join(tmp, "propfind-data"))
    try:
        setup(srv)
        c = Conn(srv.port, httpc.basic(*USER))
        st, _, _ = c.req("MKCOL", "/dav/big")
        assert st == 201, st
        for i in range(1000):
            st, _, _ = c.req("PUT", "/dav/big/file%04d.txt" % i, b"x" * (i % 100))
            assert st == 201, st
        nc_path = "/remote.php/dav/files/%s/big/" % USER[0]
        ok_nc = c.req("PROPFIND", nc_path, PROPS_NC, {"Depth": "1"})
        ok_dav = c.req("PROPFIND", "/dav/big/", ALLPROP, {"Depth": "1"})
        hrefs = lambda body, mount: sorted(h[len(mount):] for h in re.findall(r"<d:href>([^<]*)</d:href>",  # noqa
                                                                               body.decode()))
        if hrefs(ok_nc[2], "/remote.php/dav/files/%s" % USER[0]) != hrefs(ok_dav[2], "/dav") or \
                len(hrefs(ok_dav[2], "/dav")) != 1001:
            raise SystemExit("gate: the two PROPFINDs list different members")
        times = {"dav": [], "nc": []}
        for rep in range(200):
            for kind in (("dav", "nc") if rep % 2 == 0 else ("nc", "dav")):
                t = time.perf_counter()
                if kind == "nc":
                    st, _, body = c.req("PROPFIND", nc_path, PROPS_NC, {"Depth": "1"})
                else:
                    st, _, body = c.req("PROPFIND", "/dav/big/", ALLPROP, {"Depth": "1"})
                times[kind].append(time.perf_counter() - t)
                assert st == 207
        d, n = statistics.median(times["dav"]), statistics.median(times["nc"])
        rows.append(("PROPFIND Depth 1, 1,000 files: ms (/dav/ allprop vs NC client's props)",
                     "%.2f" % (d * 1000), "%.2f" % (n * 1000), "%.2f (time; target <= 1.3)" % (n / d)))
    finally:
        srv.stop()


def file_pieces(path, start=0, length=None, block=1 << 20):
    with open(path, "rb") as f:
        f.seek(start)
        left = length if length is not None else os.path.getsize(path) - start
        while left > 0:
            b = f.read(min(block, left))
            if not b:
                break
            left -= len(b)
            yield b


def send(c, method, path, pieces, length, headers):
    """A body read in the client's own 1 MiB pieces (as a sync client reads a file)."""
    h = {"Authorization": c.auth}
    h.update(headers)
    return c.c.request(method, path, h, body_pieces=(pieces, length)).status


def scenario_upload(args, tmp, rows):
    for fresh in (False, True):
        upload_pairs(args, tmp, rows, fresh)


# How nextcloudcmd 3.7 sizes its chunks (seen in the server's access log for
# a 1 GiB file on this machine: 10,000,000, 1,000,000,000, 63,741,824
# bytes): the first is its chunkSize, 10 MB; each later one is what the
# last chunk's rate moves in its targetChunkUploadDuration, 60 s, within
# its minChunkSize and maxChunkSize, 1 MB and 1,000 MB.
CLIENT_FIRST, CLIENT_MIN, CLIENT_MAX, CLIENT_TARGET_S = 10_000_000, 1_000_000, 1_000_000_000, 60


def upload_once(srv, c, kind, src, size, want, name):
    """Uploads SRC (SIZE bytes) as NAME in the user's root, one PUT ("put") or
    chunked v2 with 10 MiB chunks ("chunked") or chunks sized as the client
    sizes them ("client"); returns the seconds it took. Gate: the file
    downloads with SHA-256 WANT (then it is deleted)."""
    dest = "/remote.php/dav/files/%s/%s" % (USER[0], name)
    t = time.perf_counter()
    if kind == "put":
        st = send(c, "PUT", dest, file_pieces(src), size, {})
        assert st == 201, st
    else:
        up = "/remote.php/dav/uploads/%s/bench-%s" % (USER[0], name)
        st, _, _ = c.req("MKCOL", up, b"", {"Destination": "http://127.0.0.1:%d%s" % (srv.port, dest)})
        assert st == 201, st
        n, off = 0, 0
        ln = 10 * MiB if kind == "chunked" else CLIENT_FIRST
        while off < size:
            n += 1
            ln = min(ln, size - off)
            t0 = time.perf_counter()
            st = send(c, "PUT", "%s/%05d" % (up, n), file_pieces(src, off, ln), ln, {"OC-Total-Length": str(size)})
            assert st == 201, st
            off += ln
            if kind == "client":
                rate = ln / max(time.perf_counter() - t0, 1e-6)
                ln = int(min(max(rate * CLIENT_TARGET_S, CLIENT_MIN), CLIENT_MAX))
        st, _, body = c.req("MOVE", up + "/.file", b"", {
            "Destination": "http://127.0.0.1:%d%s" % (srv.port, dest), "OC-Total-Length": str(size)})
        assert st == 201, (st, body)
    took = time.perf_counter() - t
    g = hashlib.sha256()
    conn = httpc.Conn(srv.port, timeout=3600)
    r = conn.request("GET", dest, {"Authorization": c.auth}, keep_body=False, sink=g.update)
    conn.close()
    if r.status != 200 or g.hexdigest() != want:
        raise SystemExit("gate: %s does not download as its source" % name)
    c.req("DELETE", dest)
    return took


def upload_pairs(args, tmp, rows, fresh):
    size = args.files_bytes
    src = os.path.join(tmp, "big.bin")
    want = write_random(src, size)
    srv = start(os.path.join(tmp, "upload-data-%s" % ("fresh" if fresh else "same")))
    kinds = ("put", "chunked", "client")
    speeds = {k: [] for k in kinds}
    try:
        setup(srv)
        c = Conn(srv.port, httpc.basic(*USER))
        # Rounds of one upload of each kind in rotating order; the ratios
        # are medians of each round's (a busy minute slows all of a round,
        # not one side of the medians).
        for rep in range(max(3, args.rounds)):
            for kind in kinds[rep % 3:] + kinds[:rep % 3]:
                if fresh and any(speeds.values()):
                    want = write_random(src, size)  # nothing to deduplicate against
                took = upload_once(srv, c, kind, src, size, want, "%s-%d.bin" % (kind, rep))
                speeds[kind].append(size / took / 1e6)
    finally:
        srv.stop()
    p = statistics.median(speeds["put"])
    for kind, how in (("chunked", "10 MiB chunks"),
                      ("client", "chunks sized as nextcloudcmd 3.7 sizes them: 10 MB, then up to 1,000 MB")):
        ch = statistics.median(speeds[kind])
        rounds = statistics.median(k / q for q, k in zip(speeds["put"], speeds[kind]))
        rows.append(("upload %d MiB of %s: MB/s (one PUT vs chunked v2, %s; %d rounds)"
                     % (size // MiB, "fresh bytes each time" if fresh else "the same bytes each time", how,
                        len(speeds["put"])), "%.0f" % p, "%.0f" % ch,
                     "%.2f (speed; target >= 0.9); median of the rounds' ratios %.2f" % (ch / p, rounds)))


def scenario_upload_ab(args, tmp, rows):
    """BEFORE (--before) against AFTER (this build), each its own server, in
    rounds alternating the builds: one PUT and one upload in client-sized
    chunks each, fresh random bytes for every upload. Rows: each kind's
    MB/s per build (AFTER/BEFORE), and each build's chunked/PUT."""
    if not args.before or not os.path.exists(args.before):
        raise SystemExit("NUBO_BENCH_NC_PARTS=upload-ab needs --before BINARY")
    size = args.files_bytes
    src = os.path.join(tmp, "big.bin")
    builds = {"before": args.before, "after": NUBO}
    servers, conns = {}, {}
    speeds = {(b, k): [] for b in builds for k in ("put", "client")}
    try:
        for b, binary in builds.items():
            servers[b] = start(os.path.join(tmp, "upload-ab-%s" % b), binary=binary)
            setup(servers[b])
            conns[b] = Conn(servers[b].port, httpc.basic(*USER))
        for rep in range(max(3, args.rounds)):
            order = ("before", "after") if rep % 2 == 0 else ("after", "before")
            for kind in (("put", "client") if rep % 4 < 2 else ("client", "put")):
                for b in order:
                    want = write_random(src, size)
                    took = upload_once(servers[b], conns[b], kind, src, size, want, "%s-%s-%d.bin" % (b, kind, rep))
                    speeds[(b, kind)].append(size / took / 1e6)
    finally:
        for srv in servers.values():
            srv.stop()
    med = {key: statistics.median(v) for key, v in speeds.items()}
    for kind, how in (("put", "one PUT"), ("client", "chunked v2, chunks sized as nextcloudcmd 3.7 sizes them")):
        rows.append(("upload %d MiB of fresh bytes, %s: MB/s (%d rounds, builds alternating)"
                     % (size // MiB, how, len(speeds[("after", kind)])),
                     "%.0f" % med[("before", kind)], "%.0f" % med[("after", kind)],
                     "%.2f (AFTER/BEFORE speed)" % (med[("after", kind)] / med[("before", kind)])))
    rows.append(("chunked v2 (client-sized) / one PUT, each build's medians",
                 "%.2f" % (med[("before", "client")] / med[("before", "put")]),
                 "%.2f" % (med[("after", "client")] / med[("after", "put")]), "target >= 0.9"))
    per_round = {b: statistics.median(c / p for p, c in zip(speeds[(b, "put")], speeds[(b, "client")]))
                 for b in builds}
    rows.append(("chunked v2 (client-sized) / one PUT, median of each build's rounds' ratios",
                 "%.2f" % per_round["before"], "%.2f" % per_round["after"],
                 "%.2f (AFTER/BEFORE)" % (per_round["after"] / per_round["before"])))


def chunked_move_ms(srv, c, size, name):
    """Uploads SIZE fresh random bytes as NAME in 10 MiB chunks; returns the
    milliseconds of the MOVE of .file alone. Gate: the file downloads with
    the chunks' SHA-256."""
    dest = "/remote.php/dav/files/%s/%s" % (USER[0], name)
    up = "/remote.php/dav/uploads/%s/bench-%s" % (USER[0], name)
    st, _, _ = c.req("MKCOL", up, b"", {"Destination": "http://127.0.0.1:%d%s" % (srv.port, dest)})
    assert st == 201, st
    g = hashlib.sha256()
    n, off = 0, 0
    while off < size:
        n += 1
        body = os.urandom(min(10 * MiB, size - off))
        g.update(body)
        st, _, _ = c.req("PUT", "%s/%05d" % (up, n), body, {"OC-Total-Length": str(size)})
        assert st == 201, st
        off += len(body)
    t = time.perf_counter()
    st, _, body = c.req("MOVE", up + "/.file", b"", {
        "Destination": "http://127.0.0.1:%d%s" % (srv.port, dest), "OC-Total-Length": str(size)})
    took = (time.perf_counter() - t) * 1000
    assert st == 201, (st, body)
    got = hashlib.sha256()
    conn = httpc.Conn(srv.port, timeout=3600)
    r = conn.request("GET", dest, {"Authorization": c.auth}, keep_body=False, sink=got.update)
    conn.close()
    if r.status != 200 or got.hexdigest() != g.hexdigest():
        raise SystemExit("gate: %s does not download as its chunks" % name)
    c.req("DELETE", dest)
    return took


def scenario_assemble_ab(args, tmp, rows):
    """BEFORE (--before) against AFTER (this build): the MOVE of .file after
    an upload in 10 MiB chunks, each build its own server, builds
    alternating round by round; once with the metadata in SQLite and once in
    a fresh PostgreSQL database each (tests/blackbox/pg_cluster.py, durable)."""
    if not args.before or not os.path.exists(args.before):
        raise SystemExit("NUBO_BENCH_NC_PARTS=assemble-ab needs --before BINARY")
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "blackbox"))
    os.environ["NUBO_PG_DURABLE"] = "1"
    import pg_cluster
    size = args.files_bytes
    builds = {"before": args.before, "after": NUBO}
    for engine in ("sqlite", "postgresql"):
        servers, conns = {}, {}
        took = {b: [] for b in builds}
        try:
            for b, binary in builds.items():
                env = dict(FAST_ARGON2)
                if engine == "postgresql":
                    env["NUBO_DATABASE"] = pg_cluster.fresh_database()
                servers[b] = start_nubo(os.path.join(tmp, "assemble-%s-%s" % (engine, b)), env=env, binary=binary)
                setup(servers[b])
                conns[b] = Conn(servers[b].port, httpc.basic(*USER))
            for rep in range(max(3, args.rounds)):
                for b in (("before", "after") if rep % 2 == 0 else ("after", "before")):
                    took[b].append(chunked_move_ms(servers[b], conns[b], size, "%s-%d.bin" % (b, rep)))
        finally:
            for srv in servers.values():
                srv.stop()
        before, after = statistics.median(took["before"]), statistics.median(took["after"])
        rows.append(("MOVE .file after %d MiB in %d chunks of 10 MiB, %s: ms (median of %d, builds alternating)"
                     % (size // MiB, -(-size // (10 * MiB)), engine, len(took["after"])),
                     "%.1f" % before, "%.1f" % after, "%.2f (AFTER/BEFORE time)" % (after / before)))


def run(args):
    tmp = tempfile.mkdtemp(prefix="nubo-bench-nc-", dir=args.tmpdir)
    rows = []
    try:
        # NUBO_BENCH_NC_PARTS (e.g. "sync") runs some of the three.
        parts = os.environ.get("NUBO_BENCH_NC_PARTS", "propfind,upload,sync").split(",")
        if "propfind" in parts:
            scenario_propfind(args, tmp, rows)
        if "upload" in parts:
            scenario_upload(args, tmp, rows)
        if "upload-ab" in parts:
            scenario_upload_ab(args, tmp, rows)
        if "assemble-ab" in parts:
            scenario_assemble_ab(args, tmp, rows)
        if "sync" in parts:
            scenario_sync(args, tmp, rows)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print()
    print("| nextcloud (nubo %s) | BEFORE | AFTER | ratio |" % os.path.basename(NUBO))
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
