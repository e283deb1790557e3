"""propfind-ab: BEFORE/AFTER of a WebDAV change from one run (lib.ab):
PROPFIND Depth:1 of 1,000 and 10,000 files (the suite's S1 body, a Nextcloud
client's properties and allprop),
the same while another connection writes, Depth:0 on the root, and the sync
poll under wrk (the suite's S2)."""
import os
import statistics
import threading

from lib import httpc
from lib.ab import AbPair, seed_folder
from lib.api import ServerError
from lib.data import listing_specs
from lib.servers import NEXTCLOUD_LISTING_BODY, PROPFIND_BODY
from lib.stats import pct
from lib.suite import parse_multistatus
from lib.wrk import wrk_dav


def run(args):
    """BEFORE/AFTER of a WebDAV change from one run (AbPair): PROPFIND Depth:1
    with the peer suite's body (s1), a Nextcloud client's properties and
    allprop on folders of 1,000 and 10,000 files, then Depth:0 on the drive
    root."""
    sizes = (1000, 10000)

    # --separate: each build seeds its own data directory (a change of the
    # schema or of what is stored, which the other build cannot read); the
    # answers then differ in ids, times and ETags, and the gate compares the
    # names and sizes each lists.
    pair = AbPair(args, lambda api, root: [seed_folder(api, root, "p%d" % n, listing_specs(n, 1000 + n))
                                           for n in sizes], separate=args.separate)
    same = None
    if args.separate:
        def same(a, b):
            if a.startswith(b"<?xml") and b"multistatus" in a[:300]:
                return parse_multistatus(a, "/dav/") == parse_multistatus(b, "/dav/")
            return len(a) == len(b)
    rows = []
    try:
        cases = []
        for n in sizes:
            reps = max(10, args.list_reps * 1000 // n)
            cases.append(("%d files, s1 props" % n, "/dav/p%d/" % n, PROPFIND_BODY, "1", reps))
            cases.append(("%d files, nextcloud props" % n, "/dav/p%d/" % n, NEXTCLOUD_LISTING_BODY, "1", reps))
            cases.append(("%d files, allprop" % n, "/dav/p%d/" % n, None, "1", reps))
        cases.append(("root, Depth 0", "/dav/", PROPFIND_BODY, "0", args.list_reps * 3))
        for label, path, body, depth, reps in cases:
            h = {"Depth": depth}
            if body:
                h["Content-Type"] = "application/xml"
            before, after = pair.alternate(reps, "PROPFIND", path, body=body, headers=h, expect=207, what=label,
                                           same=same)
            rows.append((label, reps, pct(before, 50), pct(after, 50), pct(before, 95), pct(after, 95)))
        # The same listing while another connection keeps writing small
        # files elsewhere in the drive (each commit changes the database
        # under the readers): a read path that only pays off at rest shows
        # here (a mapping of the database file did: 5.0x slower in this row).
        stop, written, failed = threading.Event(), [0], []

        def writer():  # its own connections (an Api holds one, used by alternate())
            conns = [httpc.Conn(srv.port, timeout=600) for srv in pair.servers]
            i = 0
            try:
                while not stop.is_set():
                    which = i % 2
                    r = conns[which].request("PUT", "/dav/ab-writes/w%06d.bin" % i,
                                             {"Authorization": pair.apis[which].auth}, os.urandom(4096))
                    if r.status not in (201, 204):
                        failed.append("answered %d" % r.status)
                        return
                    written[0] += 1
                    i += 1
            except (OSError, httpc.HttpError) as e:  # the row would otherwise be timed without writes
                failed.append("%s: %s" % (type(e).__name__, e))
            finally:
                for c in conns:
                    c.close()

        for which in (0, 1) if args.separate else (0,):  # (one data directory: one MKCOL)
            c = httpc.Conn(pair.servers[which].port)
            r = c.request("MKCOL", "/dav/ab-writes/", {"Authorization": pair.apis[which].auth})
            c.close()
            if r.status != 201:
                raise ServerError("MKCOL /dav/ab-writes/: %d" % r.status)
        n = sizes[-1]
        label = "%d files, s1 props, while writing" % n
        reps = max(10, args.list_reps * 1000 // n)
        t = threading.Thread(target=writer)
        t.start()
        try:
            before, after = pair.alternate(reps, "PROPFIND", "/dav/p%d/" % n, body=PROPFIND_BODY,
                                           headers={"Depth": "1", "Content-Type": "application/xml"},
                                           expect=207, what=label, same=same)
        finally:
            stop.set()
            t.join()
        if failed:
            raise ServerError("PUT while listing: %s" % failed[0])
        rows.append(("%s (%d PUTs of 4 KiB)" % (label, written[0]), reps, pct(before, 50), pct(after, 50),
                     pct(before, 95), pct(after, 95)))
        # The sync poll under load (the suite's s2): wrk, 64 connections,
        # alternating servers for 4 rounds of args.duration seconds.
        h = {"Authorization": pair.apis[0].auth, "Depth": "0", "Content-Type": "application/xml"}
        rps = ([], [])
        for rnd in range(4):
            for which in ((0, 1) if rnd % 2 else (1, 0)):
                r = wrk_dav(pair.servers[which].port, "PROPFIND", "/dav/", h, PROPFIND_BODY, args.duration)
                if r["errors"] or r["requests"] == 0:
                    raise ServerError("wrk Depth 0: %r" % r)
                rps[which].append(r["rps"])
        wrk_row = (statistics.median(rps[1]), statistics.median(rps[0]))
    finally:
        pair.close()
    print("\nscenario propfind-ab: alternating BEFORE (%s) and AFTER (%s) on %s, one keep-alive connection "
          "each; load before: %s" % (pair.before_bin, pair.after_bin,
                                     "a data dir each" if args.separate else "one data dir", args.load))
    print("| case | reps | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE p50 | BEFORE p95 ms | AFTER p95 ms |")
    print("|---|---|---|---|---|---|---|")
    for label, reps, b50, a50, b95, a95 in rows:
        print("| %s | %d | %.3f | %.3f | %.2f | %.3f | %.3f |" % (label, reps, b50, a50, a50 / b50, b95, a95))
    print("gate: %s" % ("each build's own data (--separate): every listing the same names and sizes"
                        if args.separate else "every response body byte-identical between BEFORE and AFTER"))
    print("\n| root, Depth 0, wrk 64 connections (median of 4 × %d s) | BEFORE req/s | AFTER req/s | AFTER/BEFORE |"
          % args.duration)
    print("|---|---|---|---|")
    print("| | %.0f | %.0f | %.2f |" % (wrk_row[0], wrk_row[1], wrk_row[1] / wrk_row[0]))
    print("gate: no wrk errors, every status 207")
