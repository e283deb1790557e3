"""Scenario places-ab: the photo map (GET /api/v1/photos/places), BEFORE/AFTER.

Both builds serve one data directory (AbPair: BEFORE seeds it with its job
queue on, AFTER starts on it): --places small JPEGs, each with an EXIF date
and a GPS position in a 1-degree cell of its own (a grid of places, as a
library of travels has), read by the job queue. Then the map of every
place at 1 degree, alternating between the builds request by request,
--list-reps each. Printed: p50 and p95 in ms per build and AFTER/BEFORE.
With --postgres both serve one fresh database of a durable PostgreSQL 15
started here instead of SQLite.
Gate: every answer 200 and the same places with the same covers from both
builds (compared as sets: places of equal count come in no particular
order), one place per photo, each with a cover.
"""
import json
import os
import shutil
import subprocess
import tempfile

from lib.ab import AbPair, ab_env, print_ab_table, wait_queue_empty

CELL = 1.0


def tiny_jpeg(path):
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=1",
                    "-frames:v", "1", "-y", path], check=True)


def dms(value):
    a = abs(value)
    d = int(a)
    m = int((a - d) * 60)
    s = round(((a - d) * 60 - m) * 60 * 1000)
    return "%d/1 %d/1 %d/1000" % (d, m, s)


def seeder(photos):
    def seed(api, root):
        tmp = tempfile.mkdtemp(prefix="nubo-places-")
        try:
            src = os.path.join(tmp, "tiny.jpg")
            tiny_jpeg(src)
            folder = api.call("POST", "/nodes/%s/folders" % root, {"name": "Travels"}, expect=201)["id"]
            for i in range(photos):
                # Cell centres on a grid of 1-degree cells, 60 a row.
                lat, lon = -59.5 + (i // 60) % 118, -179.5 + i % 60 * 6
                path = os.path.join(tmp, "p.jpg")
                shutil.copyfile(src, path)
                cmds = ["set Exif.Photo.DateTimeOriginal Ascii 2020:01:%02d 12:00:00" % (1 + i % 28)]
                for axis, v, refs in (("Latitude", lat, "NS"), ("Longitude", lon, "EW")):
                    cmds.append("set Exif.GPSInfo.GPS%s Rational %s" % (axis, dms(v)))
                    cmds.append("set Exif.GPSInfo.GPS%sRef Ascii %s" % (axis, refs[0] if v >= 0 else refs[1]))
                args = ["exiv2"]
                for c in cmds:
                    args += ["-M", c]
                subprocess.run(args + [path], check=True)
                with open(path, "rb") as f:
                    st, _ = api.raw("PUT", "/nodes/%s/files/p%05d.jpg" % (folder, i), f.read())
                if st != 201:
                    raise SystemExit("upload of photo %d answered %d" % (i, st))
            wait_queue_empty(api)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return folder
    return seed


def same_places(a, b):
    """The same places with the same covers. Places of equal count come in
    no particular order (PostgreSQL's plan may order such ties differently
    from one execution to the next), so they are compared as sets."""
    def key(body):
        return sorted(json.dumps(p, sort_keys=True) for p in json.loads(body)["places"])
    return key(a) == key(b)


def run(args):
    photos = args.places
    env = ab_env(args.postgres)
    pair = AbPair(args, seeder(photos), seed_env=dict(env, NUBO_JOBS_WORKERS="1"), env=env)
    path = "/api/v1/photos/places?cell=%g" % CELL
    try:
        reps = args.list_reps
        before, after = pair.alternate(reps, "GET", path, what="GET " + path, same=same_places)
        r = pair.apis[0].conn.request("GET", path, {"Authorization": pair.apis[0].auth})
        places = json.loads(r.body)["places"]
        if len(places) != photos or any(not p.get("cover", {}).get("name") for p in places):
            raise SystemExit("gate failed: %d places (expected %d), every one with a cover" % (len(places), photos))
    finally:
        pair.close()
    print("\nscenario places-ab: the map of %d photos in %d cells, BEFORE (%s) and AFTER (%s) on one data dir "
          "and %s, alternating" % (photos, photos, pair.before_bin, pair.after_bin,
                                   "PostgreSQL" if args.postgres else "SQLite"))
    print_ab_table([("GET " + path, reps, before, after)])
    print("gate: every answer 200 and the same places and covers from both builds, %d places each with a cover: "
          "passed"
          % photos)
