#!/usr/bin/env python3
"""nubo's benchmark harness: starts nubo and its peers on loopback, drives
them with the same load in alternating rounds, and prints one table per
scenario with the ratio nubo/peer (or AFTER/BEFORE) measured in the same run.

Usage: bench.py SCENARIO [--quick] [--rounds N] [--duration SECONDS] ...
One file per scenario beside this one (SCENARIOS below; the peer suite S1–S8
in s1.py … s8.py); what they share is in lib/ (bench/README.md, "Layout").
"""
import argparse
import faulthandler
import importlib
import os
import re
import signal
import sys

from lib.proc import loadavg
from lib.servers import NUBO

# Scenario name -> module (a file beside this one with run(args)).
SCENARIOS = {
    "health": "health", "storage": "storage", "files": "files", "listing-ab": "listing_ab",
    "listing-order-ab": "listing_order_ab", "propfind-ab": "propfind_ab", "auth-storm": "auth_storm",
    "zip-ab": "zip_ab", "authz-cost": "authz_cost", "sharing-cost": "sharing_cost", "share-mounts": "share_mounts",
    "content-over-time": "content_over_time", "groupware": "groupware", "nextcloud": "nextcloud",
    "media": "media", "idle-rss-ab": "idle_rss_ab", "malloc-arenas-ab": "malloc_arenas_ab",
    "s1-interleaved": "s1_interleaved", "s2-writing": "s2_writing", "s4-get-ab": "s4_get_ab",
    "favorites-ab": "favorites_ab", "places-ab": "places_ab",
    "playlist-ab": "playlist_ab",
}


def main():
    ap = argparse.ArgumentParser(description="nubo benchmarks; see bench/README.md")
    ap.add_argument("scenario", choices=["all", "peers", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8"] +
                    list(SCENARIOS),
                    help="all = health + the peer suite s1..s8; peers = s1..s8; the rest run alone")
    ap.add_argument("--quick", action="store_true", help="suite: smaller sizes, one round (under 5 minutes)")
    ap.add_argument("--peers", default=None,
                    help="suite: comma-separated peers (default apache,nginx,lighttpd,rclone,sabre); "
                         "groupware: none leaves out Radicale and Xandikos")
    ap.add_argument("--out", default=None, help="suite: JSON result path (default bench/results/DATE-SCENARIO.json)")
    ap.add_argument("--md", default=None, help="suite: also write the printed tables to this file")
    ap.add_argument("--baseline", default=None, help="suite: compare with this JSON (default: the newest of the "
                                                     "same mode in bench/results/)")
    ap.add_argument("--no-compare", action="store_true", help="suite: no baseline deltas")
    ap.add_argument("--no-wait", action="store_true",
                    help="suite: do not wait for running builds/tests (ninja, ctest, cc1plus) to finish, "
                         "nor for nubo's background jobs (the seeded files' text extraction, thumbnails) "
                         "before and between the timings")
    ap.add_argument("--max-busy", type=float, default=0.5,
                    help="suite: wait while other processes keep more than this many cores busy")
    ap.add_argument("--keep", action="store_true", help="suite: keep the temp folder (servers' data and logs)")
    ap.add_argument("--skip-health", action="store_true", help="all: skip the health scenario")
    ap.add_argument("--s3-files", type=int, default=None, help="s3: PUTs per round")
    ap.add_argument("--s4-bytes", type=int, default=None, help="s4, s4-get-ab: size of the large file")
    ap.add_argument("--before", default=None, help="listing-ab, listing-order-ab, propfind-ab, favorites-ab, places-ab, playlist-ab, s1-interleaved, s2-writing, s4-get-ab, zip-ab, idle-rss-ab, auth-storm: the binary to compare against; the suite (all, peers, s1-s8): also run "
                         "it, as the peer nubo-before; groupware: also run it, with an AFTER/BEFORE column; media: time the content queries on it too; malloc-arenas-ab: also run it with its own arena limit")
    ap.add_argument("--separate", action="store_true", help="propfind-ab, listing-ab: each build seeds and serves its own "
                    "data directory (a change of the schema); the gate compares names and sizes")
    ap.add_argument("--storage-bytes", type=int, default=1 << 30)
    ap.add_argument("--tmpdir", default=None,
                    help="where the data goes (default: a fresh ext4 loop device as root)")
    ap.add_argument("--list-entries", type=int, default=20000, help="files: entries in the listed folder")
    ap.add_argument("--list-reps", type=int, default=300, help="files: timed requests per page and sort; "
                    "propfind-ab, s1-interleaved: requests per server on 1,000 files; favorites-ab: REPORTs per build")
    ap.add_argument("--files-bytes", type=int, default=1 << 30, help="files: size of the big file")
    ap.add_argument("--tus-rss-bytes", type=int, default=10 << 30,
                    help="content-over-time: size of the tus upload whose peak RSS is measured")
    ap.add_argument("--seed", type=int, default=5, help="files: seed of the listing's names and sizes")
    ap.add_argument("--no-download-hash", action="store_true",
                    help="files: do not sha256 the download on the fly (the gate then rests on the node hash)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per scenario (default 3; --quick: 1); s4-get-ab: GETs per build (default 15)")
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--shares", type=int, default=20, help="share-mounts: folders shared with the recipient")
    ap.add_argument("--thumb-files", type=int, default=30, help="media: 12-megapixel JPEGs to thumbnail")
    ap.add_argument("--docs", type=int, default=20000, help="media: text documents to index and search")
    ap.add_argument("--photos", type=int, default=5000, help="media: photos in the timeline")
    ap.add_argument("--places", type=int, default=600, help="places-ab: photos, each in a place of its own")
    ap.add_argument("--tracks", type=int, default=500, help="playlist-ab: tracks in the playlist")
    ap.add_argument("--postgres", action="store_true", help="places-ab, playlist-ab: both builds on PostgreSQL")
    ap.add_argument("--names", type=int, default=100000,
                    help="media: nodes for the name search at scale (part names; the target is at 1,000,000)")
    ap.add_argument("--part", default="all", choices=["all", "thumbs", "search", "photos", "names"],
                    help="media: which part")
    args = ap.parse_args()
    # A stopped run (kill, Ctrl-C) still stops its servers and removes its loop file systems: the
    # scenarios clean up in `finally`, which SIGTERM's default action would skip.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    # `kill -USR1` prints every thread's Python stack to stderr — of the harness or of one of its
    # forked load processes (they inherit it) — to see where a run that makes no progress waits.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    args.rounds_given = args.rounds is not None
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    args.load = loadavg()
    if not os.path.exists(NUBO):
        raise SystemExit("build nubo first (make build): %s missing" % NUBO)
    if args.scenario in ("all", "peers") or re.fullmatch(r"s\d", args.scenario):
        from lib import suite
        suite.run(args, args.scenario)
        return
    importlib.import_module(SCENARIOS[args.scenario]).run(args)


if __name__ == "__main__":
    main()
