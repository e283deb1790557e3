"""Scenario playlist-ab: reading a long playlist (GET /api/v1/playlists/{id}), BEFORE/AFTER.

Both builds serve one data directory (AbPair: BEFORE seeds it with its job
queue on, AFTER starts on it): --tracks short MP3s, each with its own
title, read into the music library by the job queue, all in one playlist.
Then the playlist with every track's facts, alternating between the builds
request by request, --list-reps each. Printed: p50 and p95 in ms per build
and AFTER/BEFORE. With --postgres both serve one fresh database of a
durable PostgreSQL 15 started here instead of SQLite.
Gate: every answer 200 and byte-identical between the builds (AbPair), and
it lists every track in the playlist's order with its own title.
"""
import json
import os
import shutil
import subprocess
import tempfile

from lib.ab import AbPair, ab_env, print_ab_table, wait_queue_empty


def seeder(tracks):
    def seed(api, root):
        tmp = tempfile.mkdtemp(prefix="nubo-playlist-")
        try:
            folder = api.call("POST", "/nodes/%s/folders" % root, {"name": "Music"}, expect=201)["id"]
            ids = []
            for i in range(tracks):
                path = os.path.join(tmp, "t.mp3")
                subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                                "sine=frequency=%d:duration=0.2" % (200 + i), "-metadata", "title=Track %05d" % i,
                                "-metadata", "artist=Artist %d" % (i % 20), "-metadata", "album=Album %d" % (i % 50),
                                "-y", path], check=True)
                with open(path, "rb") as f:
                    st, body = api.raw("PUT", "/nodes/%s/files/t%05d.mp3" % (folder, i), f.read())
                if st != 201:
                    raise SystemExit("upload of track %d answered %d" % (i, st))
                ids.append(json.loads(body)["id"])
            wait_queue_empty(api)
            pl = api.call("POST", "/playlists", {"name": "Everything"}, expect=201)
            api.call("PUT", "/playlists/%s/items" % pl["id"], {"items": ids[::-1]})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return pl["id"]
    return seed


def run(args):
    tracks = args.tracks
    env = ab_env(args.postgres)
    pair = AbPair(args, seeder(tracks), seed_env=dict(env, NUBO_JOBS_WORKERS="1"), env=env)
    path = "/api/v1/playlists/%s" % pair.seeded
    try:
        reps = args.list_reps
        before, after = pair.alternate(reps, "GET", path, what="GET " + path)
        r = pair.apis[0].conn.request("GET", path, {"Authorization": pair.apis[0].auth})
        titles = [t["title"] for t in json.loads(r.body)["tracks"]]
        want = ["Track %05d" % i for i in range(tracks)][::-1]
        if titles != want:
            raise SystemExit("gate failed: the playlist lists %d tracks, not the %d in order with their titles"
                             % (len(titles), tracks))
    finally:
        pair.close()
    print("\nscenario playlist-ab: a playlist of %d tracks, BEFORE (%s) and AFTER (%s) on one data dir and %s, "
          "alternating" % (tracks, pair.before_bin, pair.after_bin, "PostgreSQL" if args.postgres else "SQLite"))
    print_ab_table([("GET /api/v1/playlists/{id}", reps, before, after)])
    print("gate: every answer 200 and byte-identical between the builds, %d tracks in order with their titles: passed"
          % tracks)
