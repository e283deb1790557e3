#!/usr/bin/env python3
"""A recipient's reads of shared folders on PostgreSQL, BEFORE and AFTER a
change, from one run.

Each build serves its own fresh database (of one durable PostgreSQL 15
started here) and data directory. On each, the administrator makes
--folders folders and shares every one with a second user (a viewer
grant each: a grants table of that many rows), then VACUUM ANALYZE. The
second user then reads one shared folder's metadata (GET
/api/v1/nodes/{id}: the authorization check walks the folder's ancestors
and looks for the grants on them), then polls their own tree (PROPFIND
Depth:0 of /dav/, whose ETag folds in every share received, at most
1,000), --reps times each per build, and lists that tree (PROPFIND
Depth:1 of /dav/ with DAV:allprop, which holds every share's dead
properties; every 100th folder has one) --reps / 10 times, alternating
between the two servers request by request, over one kept-alive connection
each. Then the share lists, --reps / 4 times each: the recipient's
(GET /api/v1/shared-with-me?limit=100, the Nextcloud apps' OCS list with
shared_with_me=true, 200 a page) and the administrator's (GET
/api/v1/shared-by-me?limit=100, the OCS list of what they shared, with each
share's path) — and the recipient's name search (GET /api/v1/search,
10 hits, over their own drive and every drive a share of theirs lies in). Per request kind and build: p50 and p95 in ms, and the sequential
scans of `grants` PostgreSQL made per request (pg_stat_user_tables).

Gate: every read answers 200 with the folder's name on both builds, every
poll 207 with the same ETag on both, every listing 207 with the same
responses on both (hrefs, ETags, dead properties), every share list and search a full
page of the same names (and OCS paths) on both, and the
administrator's own root, which is not shared, answers 404 to the second
user on both.

  NUBO_BENCH_BIN=AFTER python3 bench/pg_grants_ab.py --before BEFORE [--folders 2000] [--reps 400]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines  # noqa: E402  (starts nothing on import)
import pg_cluster  # noqa: E402
from lib.api import Api  # noqa: E402
from lib.servers import PASSWORD, USER  # noqa: E402
from lib.stats import pct  # noqa: E402

READER = ("reader", "reader-password-1")


def seq_scans(db_url, table):
    name = db_url.rsplit("/", 1)[1]
    engines.stat_delay()
    rows = pg_cluster.cluster().psql(name, "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = '%s'" % table)
    return int(rows[0][0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True)
    ap.add_argument("--folders", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=400)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="nubo-grants-ab-", dir="/var/tmp")
    nodes, gate, rows, targets, roots = [], [], [], [], []
    try:
        nodes = [engines.ab_serve(args.before, tmp, "before", False, []),
                 engines.ab_serve(engines.NUBO, tmp, "after", False, [])]
        for n in nodes:
            admin = Api(n.port, USER, PASSWORD)
            admin.call("POST", "/admin/users", {"username": READER[0], "password": READER[1]}, expect=201)
            root = admin.root_id()
            ids = []
            for i in range(args.folders):
                f = admin.call("POST", "/nodes/%s/folders" % root, {"name": "shared %05d" % i}, expect=201)
                admin.call("POST", "/nodes/%s/grants" % f["id"], {"user": READER[0], "role": "viewer"},
                           expect=201)
                ids.append(f["id"])
                if i % 100 == 0:
                    body = ('<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:x="urn:x"><d:set>'
                            '<d:prop><x:colour>c%d</x:colour></d:prop></d:set></d:propertyupdate>' % i).encode()
                    resp = admin.conn.request("PROPPATCH", "/dav/shared%%20%05d/" % i,
                                              {"Authorization": admin.auth}, body)
                    if resp.status != 207:
                        gate.append("PROPPATCH answered %d" % resp.status)
            admin.close()
            targets.append(ids[len(ids) // 2])
            roots.append(root)
        engines.settle([n.port for n in nodes])
        for n in nodes:
            pg_cluster.cluster().psql(n.db.rsplit("/", 1)[1], "VACUUM ANALYZE")
        readers = [Api(n.port, *READER) for n in nodes]
        admins = [Api(n.port, USER, PASSWORD) for n in nodes]
        for k in (0, 1):
            status, _ = readers[k].raw("GET", "/nodes/%s" % roots[k])
            if status != 404:
                gate.append("build %d: the unshared root answered %d" % (k, status))
            for _ in range(10):  # warm: the credential cache, the prepared statements' plans
                readers[k].raw("GET", "/nodes/%s" % targets[k])
        poll = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/>'
                b'</D:prop></D:propfind>')

        def read(k):
            resp = readers[k].conn.request("GET", "/api/v1/nodes/%s" % targets[k],
                                           {"Authorization": readers[k].auth})
            if resp.status != 200 or json.loads(resp.body).get("name") != "shared %05d" % (args.folders // 2):
                gate.append("build %d: read answered %d" % (k, resp.status))
            return resp

        etags = [set(), set()]
        listing_body = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/>'
                        b'</D:propfind>')
        listings = [set(), set()]

        def dav(k, depth, body, what):
            resp = readers[k].conn.request("PROPFIND", "/dav/", {"Authorization": readers[k].auth, "Depth": depth},
                                           body=body)
            if resp.status != 207:
                gate.append("build %d: %s answered %d" % (k, what, resp.status))
            return resp

        def propfind(k):
            resp = dav(k, "0", poll, "poll")
            if resp.status == 207:
                etags[k].add(re.search(rb"<d:getetag>([^<]*)<", resp.body, re.I).group(1))
            return resp

        def listing(k):
            resp = dav(k, "1", listing_body, "listing")
            if resp.status == 207:
                # What must agree: each response's href, ETag and dead properties.
                parts = re.findall(rb"<d:href>([^<]*)<.*?<d:getetag>([^<]*)<(.*?)</d:response>", resp.body, re.I | re.S)
                listings[k].add(tuple((h, e, tuple(re.findall(rb">(c\d+)</", rest))) for h, e, rest in parts))
            return resp

        seen = {}

        def share_list(who, path, names, count):
            # The names a share list gives (the same on both builds; a page's worth).
            def op(k):
                api = (readers if who == "reader" else admins)[k]
                resp = api.conn.request("GET", path, {"Authorization": api.auth, "OCS-APIRequest": "true"})
                got = None
                if resp.status == 200:
                    got = tuple(sorted(names(json.loads(resp.body))))
                if got is None or len(got) != min(args.folders, count):
                    gate.append("build %d: %s answered %d with %s items" % (k, path, resp.status,
                                                                         len(got) if got else 0))
                seen.setdefault(path, [set(), set()])[k].add(got)
                return resp
            return op

        def rest_names(body):
            return [i["node"]["name"] for i in body["items"]]

        def ocs_names(body):
            return [(i["path"], i["file_target"]) for i in body["ocs"]["data"]]

        def hit_names(body):
            return [i["name"] for i in body["items"]]

        ocs = "/ocs/v2.php/apps/files_sharing/api/v1/shares?format=json"
        for name, op, reps in (("GET /api/v1/nodes/{id}", read, args.reps),
                               ("PROPFIND Depth:0 /dav/", propfind, args.reps),
                               ("PROPFIND Depth:1 /dav/ allprop", listing, max(2, args.reps // 10)),
                               ("GET /api/v1/search?q=shared 0012 (10 hits)",
                                share_list("reader", "/api/v1/search?q=shared%200012", hit_names, 10),
                                max(2, args.reps // 4)),
                               ("GET /api/v1/shared-with-me?limit=100",
                                share_list("reader", "/api/v1/shared-with-me?limit=100", rest_names, 100),
                                max(2, args.reps // 4)),
                               ("GET OCS shares?shared_with_me=true (a page: 200)",
                                share_list("reader", ocs + "&shared_with_me=true", ocs_names, 200),
                                max(2, args.reps // 4)),
                               ("GET /api/v1/shared-by-me?limit=100 (the owner)",
                                share_list("admin", "/api/v1/shared-by-me?limit=100", rest_names, 100),
                                max(2, args.reps // 4)),
                               ("GET OCS shares (the owner's, a page: 200)", share_list("admin", ocs, ocs_names, 200),
                                max(2, args.reps // 4))):
            for k in (0, 1):
                for _ in range(5):
                    op(k)
            scans = [-seq_scans(n.db, "grants") for n in nodes]
            lat = ([], [])
            for r in range(reps):
                for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                    lat[k].append(op(k).total * 1000)
            scans = [(s + seq_scans(n.db, "grants")) / reps for s, n in zip(scans, nodes)]
            rows.append((name, [(statistics.median(lat[k]), pct(lat[k], 95), scans[k]) for k in (0, 1)]))
        if len(etags[0]) != 1 or etags[0] != etags[1]:
            gate.append("the polls' ETags differ: %r / %r" % (etags[0], etags[1]))
        props = [sum(len(p) for _, _, p in next(iter(x))) if len(x) == 1 else -1 for x in listings]
        want = (min(args.folders, 1000) + 99) // 100  # the shares the tree shows, every 100th with a property
        if len(listings[0]) != 1 or listings[0] != listings[1] or props[0] != want:
            gate.append("the listings differ or miss properties: %d / %d kinds, %r properties (want %d)"
                        % (len(listings[0]), len(listings[1]), props, want))
        for path, got in seen.items():
            if len(got[0]) != 1 or got[0] != got[1]:
                gate.append("%s: the builds' items differ" % path)
        for r in readers + admins:
            r.close()
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nThe recipient of %d shared folders, %d requests of each kind per build (listings: %d), alternating;"
          " durable PostgreSQL 15" % (args.folders, args.reps, max(2, args.reps // 10)))
    print("BEFORE %s\nAFTER  %s" % (args.before, engines.NUBO))
    print("| request | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE | p95 B / A | scans of grants per request B / A |")
    print("|---|---|---|---|---|---|")
    for name, ((b50, b95, bs), (a50, a95, as_)) in rows:
        print("| %s | %.3f | %.3f | %.2f | %.3f / %.3f | %.2f / %.2f |" % (name, b50, a50, a50 / b50, b95, a95, bs, as_))
    print("gate: every read 200 with the folder's name, every poll 207 with one ETag on both builds, every "
          "listing 207 with the same responses and dead properties on both, every share list a full page of "
          "the same items on both, the unshared root 404: %s"
          % ("passed" if not gate else gate[:5]))
    if gate:
        sys.exit(1)


if __name__ == "__main__":
    main()
