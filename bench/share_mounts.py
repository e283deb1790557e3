"""Scenario share-mounts: what received shares in a recipient's own WebDAV
tree cost a sync client's poll (PROPFIND Depth:0 of /dav/), BEFORE (the
binary given with --before, which has no mounts) / AFTER (this build),
from one run.

Seeding, once, with BEFORE: an administrator, "carol" (nothing shared with
her), "bob" (his own folder plus --shares folders of alice's shared with him,
a viewer grant each, one file in each) and "dana" (one folder of alice's
shared with her through a group). The data directory is then copied, and
BEFORE and AFTER run side by side, each on its own copy. For each user the
two servers take turns (wrk -t2 -c64, --duration s, --rounds rounds, the
order flipping every round); the median req/s counts.

Gates: carol's PROPFIND Depth:1 of /dav/ is byte-identical on both (nothing
is shared with her: nothing may change); AFTER lists every one of bob's
shares at the top level under its own name, and bob's own entries exactly
as BEFORE does; AFTER's root ETag for bob is BEFORE's with a digest added.
"""
import os
import re
import shutil
import tempfile

from lib.api import ADMIN, Api, FAST_ARGON2
from lib.servers import NUBO, start_nubo
from lib.wrk import wrk_dav

USERS = {"alice": "alice password 1", "bob": "bob password 1", "carol": "carol password 1",
         "dana": "dana password 1"}
HREF = re.compile(rb"<d:href>([^<]*)</d:href>")
RESPONSE = re.compile(rb"<d:response>.*?</d:response>", re.S)


def poll(port, user, duration):
    r = wrk_dav(port, "PROPFIND", "/dav/", {"Depth": "0", "Authorization": Api(port, user, USERS[user]).auth},
                None, duration)
    if r["errors"]:
        raise SystemExit("wrk saw errors: %r" % r)
    return r["rps"]


def propfind(port, user, depth):
    api = Api(port, user, USERS[user])
    r = api.conn.request("PROPFIND", "/dav/", {"Authorization": api.auth, "Depth": depth})
    api.close()
    if r.status != 207:
        raise SystemExit("PROPFIND as %s: %d" % (user, r.status))
    return r.body


def seed(port, shares):
    admin = Api(port, *ADMIN)
    admin.setup()
    for name, password in USERS.items():
        admin.call("POST", "/admin/users", {"username": name, "password": password}, expect=201)
    alice = Api(port, "alice", USERS["alice"])
    root = alice.root_id()
    for i in range(shares):
        f = alice.call("POST", "/nodes/%s/folders" % root, {"name": "shared %03d" % i}, expect=201)["id"]
        alice.call("PUT", "/nodes/%s/files/notes.txt" % f, b"notes %d" % i, expect=201)
        alice.call("POST", "/nodes/%s/grants" % f, {"user": "bob", "role": "viewer"}, expect=201)
    team = admin.call("POST", "/groups", {"name": "team"}, expect=201)["id"]
    # A user shares with her own groups only (the default sharee rule): alice joins too.
    for member in ("dana", "alice"):
        admin.call("POST", "/groups/%s/members" % team, {"user": member}, expect=204)
    f = alice.call("POST", "/nodes/%s/folders" % root, {"name": "for the team"}, expect=201)["id"]
    alice.call("POST", "/nodes/%s/grants" % f, {"group": team, "role": "viewer"}, expect=201)
    bob = Api(port, "bob", USERS["bob"])
    broot = bob.root_id()
    bob.call("POST", "/nodes/%s/folders" % broot, {"name": "own folder"}, expect=201)


def run(args):
    if not args.before:
        raise SystemExit("share-mounts needs --before BINARY (a build without mounts)")
    shares = args.shares
    tmp = tempfile.mkdtemp(prefix="nubo-share-mounts-", dir=args.tmpdir)
    servers = []
    try:
        os.makedirs(os.path.join(tmp, "seed"))
        seeder = start_nubo(os.path.join(tmp, "seed"), FAST_ARGON2, binary=args.before)
        servers.append(seeder)  # stopped below; again (a no-op) in finally
        seed(seeder.port, shares)
        seeder.stop()
        for which in ("before", "after"):
            shutil.copytree(os.path.join(tmp, "seed"), os.path.join(tmp, which))
        before = start_nubo(os.path.join(tmp, "before"), FAST_ARGON2, binary=args.before)
        servers.append(before)
        after = start_nubo(os.path.join(tmp, "after"), FAST_ARGON2)
        servers.append(after)

        # Gates.
        if propfind(before.port, "carol", "1") != propfind(after.port, "carol", "1"):
            raise SystemExit("equivalence gate failed: carol's listing differs")
        b_bob, a_bob = propfind(before.port, "bob", "1"), propfind(after.port, "bob", "1")
        b_hrefs = set(HREF.findall(b_bob))
        a_hrefs = set(HREF.findall(a_bob))
        mounted = {("/dav/shared%%20%03d/" % i).encode() for i in range(shares)}
        if a_hrefs != b_hrefs | mounted:
            raise SystemExit("equivalence gate failed: bob's AFTER listing is not BEFORE's plus his shares: %r"
                             % sorted(a_hrefs ^ (b_hrefs | mounted))[:10])
        own = [r for r in RESPONSE.findall(b_bob) if b"/dav/own%20folder/" in r]
        if not own or own[0] not in a_bob:
            raise SystemExit("equivalence gate failed: bob's own folder is listed differently")
        # The quotes are part of the ETag; a build may escape them or not.
        etag = lambda body: re.search(rb'<d:getetag>(?:&quot;|")([^&"]*)(?:&quot;|")', body).group(1)  # noqa: E731
        b_tag, a_tag = etag(propfind(before.port, "bob", "0")), etag(propfind(after.port, "bob", "0"))
        if not re.fullmatch(re.escape(b_tag) + rb"-[0-9a-f]{16}", a_tag):
            raise SystemExit("equivalence gate failed: root ETags %r / %r" % (b_tag, a_tag))

        rows = []
        for user, label in (("carol", "nothing shared with her"), ("dana", "one share through a group"),
                            ("bob", "%d shares, viewer grants" % shares)):
            got = {"before": [], "after": []}
            for rnd in range(args.rounds):
                order = (("before", before), ("after", after))
                for name, srv in (order if rnd % 2 == 0 else order[::-1]):
                    got[name].append(poll(srv.port, user, args.duration))
            med = {k: sorted(v)[len(v) // 2] for k, v in got.items()}
            rows.append((label, med["before"], med["after"]))
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nscenario share-mounts: BEFORE %s, AFTER %s; %d rounds x %d s, wrk -t2 -c64; load before: %s"
          % (args.before, NUBO, args.rounds, args.duration, args.load))
    print("| PROPFIND Depth:0 of /dav/ as | BEFORE req/s | AFTER req/s | AFTER/BEFORE |")
    print("|---|---|---|---|")
    for label, b, a in rows:
        print("| %s | %.0f | %.0f | %.2f |" % (label, b, a, a / b))
    print("gates: carol's Depth:1 listing byte-identical; bob's AFTER listing = BEFORE's + his %d shares, his own "
          "folder's response identical; bob's AFTER root ETag = BEFORE's + a digest" % shares)
