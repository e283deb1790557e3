"""Authorization matrix (ARCHITECTURE.md §4.7).

Every route of the server's own table (GET /_test/routes) has a VALID
example request here, built from fresh resources of its owner (Alice; an
administrator for admin routes). For every route and example:

  * anonymous                        -> 401;
  * role "none": Bob (another plain user) with Alice's ids wherever they
    appear (path, query, body, headers; WebDAV: a path that exists only in
    Alice's drive) -> the same status, headers and body as Bob with ids
    that exist nowhere (a 4xx; admin routes: 403), never Alice's data;
    where a route takes a second id in the body, query or a header, Bob
    also sends his OWN resource in the path with Alice's id in that place,
    which must again answer like an unknown id; a listing scoped to the
    caller (the photos timeline, the music library) answers Bob like a user
    with nothing to list, Alice's fixture nowhere in it; Alice's data (her
    fixture, listings, trash, favorites, credentials) is unchanged
    afterwards;
  * sharing roles (viewer, editor, manager, a member of a nested group
    granted editor, an expired and a revoked grant), each a recipient of a
    grant on Alice's work folder that holds every fixture: with a fresh
    fixture, the request succeeds when the role holds what the route NEEDS,
    answers 403 when the role sees the resource but lacks it, and answers
    exactly like an unknown id when the role reaches nothing (expired,
    revoked, and WebDAV paths, which name the caller's own drive; but the
    Nextcloud versions tree names a file by its id, so there a recipient
    reaches Alice's file's versions through its own tree as its role
    allows); roles that may not write leave Alice's data unchanged;
  * role "owner": Alice with the same request -> success, which proves the
    example reaches the authorization check instead of dying in input
    validation;
  * credentials: a fresh session works wherever the account password does;
    an app password works on every "user" route and gets 403 on every
    "account" and "admin" route. A route that works with one credential by
    design (Nextcloud's getapppassword converts the account password, its
    logout deletes the app password used) refuses the others, which change
    nothing.

A route without an example fails the test (new routes are covered or
noticed), and so does an example for a route that no longer exists.
"""
import base64
import json
import os
import random
import re
import string
import struct
import sys
import tempfile
import time
import unittest
import urllib.parse
import zlib
from collections import namedtuple

import subprocess

from harness import NUBO_BIN, Server, exchange

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
SECRET = "alice-Geheimnis-名前"
ALICE_BYTES = b"alice's bytes"
COMMON = b"content that alice and bob both store"
UA = "nubo-matrix %s-ua"

LOCKINFO = (b'<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/>'
            b'</D:lockscope><D:locktype><D:write/></D:locktype><D:owner>matrix</D:owner></D:lockinfo>')
ALLPROP = b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>'
PROPSET = (b'<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:matrix">'
           b'<D:set><D:prop><Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>')
XML = {"Content-Type": "application/xml; charset=utf-8"}

# One request: the credential is added by whoever sends it.
R = namedtuple("R", "method path headers body")


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def J(method, path, obj=None):
    """A JSON request (Content-Type: application/json when it has a body)."""
    if obj is None:
        return R(method, path, {}, b"")
    return R(method, path, {"Content-Type": "application/json"}, json.dumps(obj).encode())


def with_headers(r, headers):
    return r._replace(headers=dict(r.headers, **headers))


def q(s):
    return urllib.parse.quote(s, safe="")


def dav_url(mount, path):
    return "%s/%s" % (mount, urllib.parse.quote(path, safe="/"))


def multipart(name, data):
    b = "matrixboundary7MA4YWxk"
    body = (("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"%s\"\r\n"
             "Content-Type: application/octet-stream\r\n\r\n" % (b, name)).encode() + data +
            ("\r\n--%s--\r\n" % b).encode())
    return {"Content-Type": "multipart/form-data; boundary=" + b}, body


class Actor:
    def __init__(self, name, password, prefix):
        self.name, self.password, self.prefix = name, password, prefix
        self.auth = basic(name, password)
        self.ua = UA % name
        self.bytes = (name + "'s bytes").encode()


# ---- Expectations ----------------------------------------------------------


def is_2xx(status, body):
    return 200 <= status < 300


def is_207(status, body):
    return status == 207


def proppatch_ok(status, body):
    return status == 207 and b"200 OK" in body


def is_4xx(status, body):
    return 400 <= status < 500


def any_status(status, body):
    return True


def batch_refused(status, body):
    """Batch answers per item: 200 overall, every item a 4xx (except the
    caller's own items where he adds someone else's id to his own; whether
    those may be acted on is settled by comparing with an unknown id)."""
    if status != 200:
        return False
    results = json.loads(body)["results"]
    return bool(results) and all(400 <= r["status"] < 500 for r in results if "<own" not in r["id"])


def batch_ok(status, body):
    return status == 200 and all(200 <= r["status"] < 300 for r in json.loads(body)["results"])


def upload_ok(status, body):
    return status == 200 and all(200 <= r["status"] < 300 for r in json.loads(body)["items"])


def bulk_ok(status, body):
    """A Nextcloud bulk upload answers per file, keyed by its path."""
    if status != 200:
        return False
    answers = json.loads(body)
    return bool(answers) and all(a["error"] is False for a in answers.values())


def bulk_refused(status, body):
    if status != 200:
        return False
    answers = json.loads(body)
    return bool(answers) and all(a["error"] is True and 400 <= a["status"] < 500 for a in answers.values())


def search_empty(status, body):
    return status == 200 and json.loads(body)["items"] == []


def ocs_meta(body):
    try:
        return json.loads(body)["ocs"]["meta"]
    except (ValueError, KeyError, TypeError):
        return None


def ocs_ok(status, body):
    meta = ocs_meta(body)
    return status == 200 and meta is not None and meta["status"] == "ok" and meta["statuscode"] in (100, 200)


def ocs_refused(status, body):
    """An OCS failure: v2 answers with the HTTP status (4xx), v1 answers 200
    with a failure code in the envelope (Nextcloud's convention)."""
    meta = ocs_meta(body)
    if meta is None or meta["status"] != "failure":
        return False
    return (400 <= status < 500 and meta["statuscode"] == status) or (status == 200 and meta["statuscode"] in (
        997, 998, 999))


def ocs_forbidden(status, body):
    meta = ocs_meta(body)
    return meta is not None and meta["status"] == "failure" and (status, meta["statuscode"]) in (
        (403, 403), (200, 997))


def is_svg(status, body):
    return status == 200 and body.startswith(b"<svg")


def is_webp(status, body):
    """A thumbnail (the route's Content-Type is image/webp)."""
    return status == 200 and body[:4] == b"RIFF" and body[8:12] == b"WEBP"


def content_found(status, body):
    """A full-text search that finds the fixture's one file, the word marked."""
    if status != 200:
        return False
    items = json.loads(body)["items"]
    return len(items) == 1 and any(s["match"] for s in items[0]["snippet"])


def photos_listed(key, found=True):
    """A photos answer (the timeline, months, places) whose list `key` holds
    something (found: the owner's, her fixture among them) or nothing (the
    answer of a user without photos). The music library (artists, albums,
    tracks) answers the same way in "items"."""
    def check(status, body):
        return status == 200 and bool(json.loads(body)[key]) == found
    return check


def m3u8_lists(status, body):
    """A playlist exported as M3U8 that names at least one file."""
    lines = body.decode("utf-8", "replace").splitlines()
    return status == 200 and lines[:1] == ["#EXTM3U"] and any(l and not l.startswith("#") for l in lines)


def imported(status, body):
    """An imported playlist (see the example of POST /api/v1/playlists/import):
    its two lines are the caller's own file, found, and the path of Alice's
    sentinel file, found by Alice alone (counted in "missing" for anyone
    else)."""
    if status != 201:
        return False
    pl = json.loads(body)
    return len(pl["tracks"]) >= 1 and len(pl["tracks"]) + pl["missing"] == 2


class Case:
    """One example request of a route.

    fixture(t, who) -> dict: fresh resources of `who`. Keys are the
    resource "ids" the request carries (swapped for Alice's or unknown
    ones); keys starting with "_" are bookkeeping and never swapped. A
    listing scoped to the caller (the photos timeline, the music library)
    carries none, or only its filters: its fixture's "id" is the resource
    its answers may show to the owner alone (an answer to anyone else is
    checked with that id marked, see normalize).
    build(v, who) -> R: the request for values `v`, sent by `who`.
    cross: keys of secondary ids (body, query, header) Bob also tries with
    his own resource everywhere else.
    none: what Bob must get with Alice's ids (default 4xx).
    ok: what the owner must get (default 2xx).
    session: the request needs a session credential (logout).
    only: the one credential the route works with by design ("password":
    the account password, which Nextcloud's getapppassword converts;
    "app-password": the app password a client's logout deletes); every
    other credential of the owner gets `refused` and changes nothing.
    needs: what a share's recipient must hold for the request to succeed
    (see NEEDS; default: the route's row there)."""

    def __init__(self, build, fixture=None, label="", cross=(), none=is_4xx, ok=is_2xx, session=False,
                 needs=None, only=None, refused=None):
        self.build, self.fixture, self.label = build, fixture or (lambda t, who: {}), label
        self.cross, self.none, self.ok, self.session = tuple(cross), none, ok, session
        self.needs, self.only, self.refused = needs, only, refused


# ---- Fixtures (t: the test case; who: the owner) ---------------------------


def fx_none(t, who):
    return {}


def fx_folder(t, who):
    return {"id": t.box(who)}


def fx_file(t, who):
    node = t.put(who, t.box(who), who.prefix + ".txt", who.bytes)
    return {"id": node["id"], "_etag": node["etag"]}


def fx_folder_with_file(t, who):
    box = t.box(who)
    t.put(who, box, who.prefix + ".txt", who.bytes)
    return {"id": box}


def fx_file_and_dest(t, who):
    box = t.box(who)
    return {"id": t.put(who, box, who.prefix + ".txt", who.bytes)["id"], "parent": t.box(who)}


def fx_versioned(t, who):
    """A file overwritten once: one earlier version."""
    f = fx_file(t, who)
    parent = t.api(who, "GET", "/api/v1/nodes/%s" % f["id"])["parent_id"]
    t.api(who, "PUT", "/api/v1/nodes/%s/files/%s?conflict=overwrite" % (parent, q(who.prefix + ".txt")),
          raw=who.bytes + b" v2", expect=200)
    versions = t.api(who, "GET", "/api/v1/nodes/%s/versions" % f["id"])["items"]
    t.probe(who, "GET", "/api/v1/nodes/%s/versions" % f["id"])
    t.probe(who, "GET", "/api/v1/nodes/%s/versions/%s/content" % (f["id"], versions[0]["id"]))
    return {"id": f["id"], "vid": versions[0]["id"]}


TUS = "/api/v1/uploads/tus"
TUS_V = {"Tus-Resumable": "1.0.0"}


def tus_meta(**kv):
    return ",".join("%s %s" % (k, base64.b64encode(str(v).encode()).decode()) for k, v in kv.items())


def fx_tus(t, who):
    """An upload of 6 bytes in progress (3 received) into a fresh folder."""
    box = t.box(who)
    h = dict(TUS_V, **{"Upload-Length": "6", "Upload-Metadata": tus_meta(filename="tus.txt", parent_id=box)})
    status, hdrs, data = t.send(who.auth, R("POST", TUS, h, b""))
    t.assertEqual(status, 201, data)
    url = dict((k.lower(), v) for k, v in dict(hdrs).items())["location"]
    upload = url.rsplit("/", 1)[1]
    status, _, data = t.send(who.auth, R("PATCH", url, dict(TUS_V, **{
        "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream"}), b"abc"))
    t.assertEqual(status, 204, data)
    t.probe(who, "HEAD", url, TUS_V)
    return {"id": upload}


EMPTY_BLAKE3 = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"


def fx_delta(t, who):
    """A delta upload in progress: one fresh chunk still needed."""
    box = t.box(who)
    data = ("%s delta %d %s" % (who.name, t.n(), random.random())).encode()
    plan = json.loads(subprocess.run([NUBO_BIN, "chunk", "-"], input=data, capture_output=True,
                                     check=True).stdout)
    state = t.api(who, "POST", "/api/v1/uploads/delta", dict(plan, name="delta.bin", parent_id=box),
                  expect=201)
    t.assertEqual(state["needed"], [0])
    t.probe(who, "GET", "/api/v1/uploads/delta/" + state["id"])
    return {"id": state["id"], "chunk": plan["chunks"][0].split(":")[0], "_data": data.decode()}


def fx_delta_ready(t, who):
    """A delta upload whose chunks all arrived."""
    v = fx_delta(t, who)
    t.api(who, "PUT", "/api/v1/uploads/delta/%s/chunks/%s" % (v["id"], v["chunk"]), raw=v["_data"].encode(),
          expect=204)
    return v


def fx_trashed(t, who):
    f = fx_file(t, who)
    t.trash(who, f["id"])
    return f


def fx_trashed_internal(t, who):
    # Something in the trash that the request does not name (DELETE /trash).
    return {"_" + k: v for k, v in fx_trashed(t, who).items()}


def fx_favorite(t, who):
    f = fx_file(t, who)
    t.api(who, "PUT", "/api/v1/favorites/%s" % f["id"], expect=204)
    return f


def fx_two_files(t, who):
    box = t.box(who)
    return {"a": t.put(who, box, "a.txt", who.bytes)["id"], "b": t.put(who, box, "b.txt", who.bytes)["id"]}


def fx_two_trashed(t, who):
    v = fx_two_files(t, who)
    t.trash(who, v["a"])
    t.trash(who, v["b"])
    return v


def fx_file_folder_dest(t, who):
    v = fx_two_files(t, who)
    return {"a": v["a"], "b": v["b"], "parent": t.box(who)}


def fx_zip(t, who):
    box = t.box(who)
    inner = t.box(who, box)
    t.put(who, inner, "inner.txt", who.bytes)
    return {"a": t.put(who, box, who.prefix + ".txt", who.bytes)["id"], "b": inner}


def fx_search(t, who):
    word = "w" + "".join(random.choice(string.ascii_lowercase) for _ in range(11))
    t.put(who, t.box(who), "%s %s.txt" % (who.prefix, word), who.bytes)
    return {"q": word}


def fx_content_search(t, who):
    """A text file with a word found nowhere else in its content (not its
    name). The full-text index is filled by a background job: wait until
    its owner finds it, so that every role's answer is settled."""
    word = "w" + "".join(random.choice(string.ascii_lowercase) for _ in range(11))
    t.put(who, t.box(who), who.prefix + ".txt", ("%s wrote %s in this file\n" % (who.name, word)).encode())
    url = "/api/v1/search/content?q=%s&limit=20" % q(word)
    deadline = time.time() + 15
    while True:
        status, _, data = t.send(who.auth, J("GET", url))
        if content_found(status, data):
            break
        t.assertLess(time.time(), deadline, "the owner does not find %r: %d %r" % (word, status, data[:300]))
        time.sleep(0.1)
    return {"q": word}


def png(seed):
    """A valid 8x8 RGB PNG, its pixels (and so its content) drawn from `seed`."""
    rnd = random.Random(seed)
    rows = b"".join(b"\0" + bytes(rnd.randrange(256) for _ in range(8 * 3)) for _ in range(8))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def fx_image(t, who):
    """A fresh image file (content of its own: no thumbnail made before)."""
    node = t.put(who, t.box(who), who.prefix + ".png", png("%s %d %s" % (who.name, t.n(), random.random())))
    return {"id": node["id"]}


PHOTO_BASE = []


def photo_jpeg(seed):
    """A 64x48 JPEG with EXIF GPS (ffmpeg and exiv2, which scripts/deps.sh
    test installs, make it once), its content its own: a comment segment
    drawn from `seed` after the APPn segments."""
    if not PHOTO_BASE:
        with tempfile.TemporaryDirectory(prefix="nubo-matrix-") as tmp:
            path = os.path.join(tmp, "photo.jpg")
            subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                            "testsrc=size=64x48:rate=1", "-frames:v", "1", "-y", path], check=True, timeout=120)
            subprocess.run(["exiv2", "-M", "set Exif.GPSInfo.GPSLatitude Rational 48/1 51/1 30000/1000",
                            "-M", "set Exif.GPSInfo.GPSLatitudeRef Ascii N",
                            "-M", "set Exif.GPSInfo.GPSLongitude Rational 2/1 17/1 40000/1000",
                            "-M", "set Exif.GPSInfo.GPSLongitudeRef Ascii E", path], check=True, timeout=120)
            with open(path, "rb") as f:
                PHOTO_BASE.append(f.read())
    base = PHOTO_BASE[0]
    i = 2
    while base[i] == 0xFF and 0xE0 <= base[i + 1] <= 0xEF:
        i += 2 + struct.unpack(">H", base[i + 2:i + 4])[0]
    comment = ("matrix %s" % seed).encode()
    return base[:i] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + base[i:]


def fx_photo(t, who):
    """A fresh photo (EXIF GPS) in the work folder. The photos table is
    filled by a background job: wait until its owner's timeline shows it,
    so that every role's answer is settled. The request carries no id:
    "id" marks the photo wherever an answer would show it (see Case)."""
    node = t.put(who, t.box(who), who.prefix + ".jpg", photo_jpeg("%s %d %s" % (who.name, t.n(), random.random())))
    deadline = time.time() + 15
    while True:
        status, _, data = t.send(who.auth, J("GET", "/api/v1/photos?limit=50"))
        if status == 200 and node["id"] in [i["node"]["id"] for i in json.loads(data)["items"]]:
            break
        t.assertLess(time.time(), deadline, "the owner's timeline lacks %s: %d %r" % (node["id"], status, data[:300]))
        time.sleep(0.1)
    return {"id": node["id"]}


def fx_music(t, who):
    """A fresh audio file (MP3, tags of its own: its content differs from
    every other's) in the work folder. The music library is filled by a
    background job that reads the tags: wait until its owner's tracks show
    it, so that every role's answer is settled. "id" marks the track
    wherever an answer would show it (see Case); "artist" and "album" are
    its keys, which the albums and tracks filters carry."""
    n = t.n()
    with tempfile.TemporaryDirectory(prefix="nubo-matrix-") as tmp:
        path = os.path.join(tmp, "song.mp3")
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                        "sine=frequency=440:duration=1", "-metadata", "title=%s song %d %s" % (
                            who.prefix, n, random.random()), "-metadata", "artist=%s artist %d" % (who.prefix, n),
                        "-metadata", "album=%s album %d" % (who.prefix, n), "-y", path], check=True, timeout=120)
        with open(path, "rb") as f:
            data = f.read()
    node = t.put(who, t.box(who), who.prefix + ".mp3", data)
    deadline = time.time() + 15
    while True:
        status, _, data = t.send(who.auth, J("GET", "/api/v1/music/tracks?limit=500"))
        tracks = [i for i in json.loads(data)["items"] if i["node"]["id"] == node["id"]] if status == 200 else []
        if tracks:
            break
        t.assertLess(time.time(), deadline, "the owner's tracks lack %s: %d %r" % (node["id"], status, data[:300]))
        time.sleep(0.1)
    return {"id": node["id"], "artist": tracks[0]["artist_key"], "album": tracks[0]["album_key"]}


def fx_playlist(t, who):
    """A fresh playlist of its own holding a file of its own; Alice's
    playlists as she sees them, before and after the others' requests."""
    f = fx_file(t, who)
    pl = t.api(who, "POST", "/api/v1/playlists", {"name": "%s list %d" % (who.prefix, t.n())}, expect=201)
    t.api(who, "PUT", "/api/v1/playlists/%s/items" % pl["id"], {"items": [f["id"]]})
    t.probe(who, "GET", "/api/v1/playlists")
    t.probe(who, "GET", "/api/v1/playlists/%s" % pl["id"])
    t.probe(who, "GET", "/api/v1/playlists/%s/m3u8" % pl["id"])
    return {"id": pl["id"], "_node": f["id"]}


def fx_playlist_and_file(t, who):
    """A playlist of its own (fx_playlist) and another file of its own to put in it."""
    v = fx_playlist(t, who)
    v["node"] = fx_file(t, who)["id"]
    return v


def fx_playlist_import(t, who):
    """A file of its own, named by its path below its own root (as an M3U8
    names it); its playlists as it sees them."""
    name = "%s-%d" % (who.prefix, t.n())
    t.put(who, t.box(who, None, name), who.prefix + ".txt", who.bytes)
    t.probe(who, "GET", "/api/v1/playlists")
    return {"_path": "%s-work/%s/%s.txt" % (who.prefix, name, who.prefix)}


def fx_instant_own(t, who):
    box = t.box(who)
    node = t.put(who, box, "unique.bin", who.bytes + (" %d" % t.n()).encode())
    return {"id": box, "hash": node["hash"]}


def fx_app_password(t, who):
    app = t.api(who, "POST", "/api/v1/me/app-passwords", {"label": who.prefix + " app"}, expect=201)
    return {"id": str(app["id"])}


def fx_session(t, who):
    return {"id": t.login(who)[1]}


def fx_new_username(t, who):
    return {"_new": "made%d" % t.n()}


def fx_target(t, who):
    target = t.new_user()
    t.login(target)
    t.probe(who, "GET", "/api/v1/admin/users?q=%s" % target.name)
    t.probe(who, "GET", "/api/v1/admin/users/%s/app-passwords" % target.name)
    t.probe(target, "GET", "/api/v1/me")
    t.probe(target, "GET", "/api/v1/me/sessions")
    return {"name": target.name}


def fx_target_app(t, who):
    v = fx_target(t, who)
    target = t.users[v["name"]]
    app = t.api(target, "POST", "/api/v1/me/app-passwords", {"label": "target app"}, expect=201)
    v["id"] = str(app["id"])
    return v


def fx_registration_open(t, who):
    # The example closes registration: open it first, so the request changes something.
    t.api(t.admin, "PATCH", "/api/v1/admin/settings", {"registration": True})
    return {}


def dav_fixtures(tree):
    """The WebDAV fixtures for one tree: "personal" (/dav/, /webdav/) or
    "drive" (/dav-drives/<id>/, a shared drive its actor manages)."""
    class F:
        pass

    def area(t, who):
        return {"personal": t.dav_area, "drive": t.drive_area, "share": t.share_area,
                "mount": t.mount_area}[tree][who.name]

    def mount_of(v):
        if "drive" in v:
            return "/dav-drives/" + v["drive"]
        if "share" in v:
            return "/dav-shares/" + v["share"]
        return "/dav"

    def dav(t, who):
        top, parent, root = area(t, who)
        name = "%s-%d" % (who.prefix, t.n())
        box = t.box(who, parent, name)
        file = t.put(who, box, who.prefix + ".txt", who.bytes)
        t.put(who, box, "other.txt", who.bytes + b" other")
        d = "%s/%s" % (top, name) if top else name
        v = {"dir": d, "path": "%s/%s.txt" % (d, who.prefix), "_file": file["id"]}
        if root:
            v["share" if tree == "share" else "drive"] = root
        t.probe(who, "PROPFIND", dav_url(mount_of(v), d) + "/", dict(XML, Depth="1"), ALLPROP)
        return v

    def locked(t, who):
        v = dav(t, who)
        v["token"] = t.dav_lock(who, v["path"], mount_of(v))
        return v

    def new_dest(t, who):
        v = dav(t, who)
        v["dest"] = v["dir"] + "/copy.txt"
        return v

    def existing_dest(t, who):
        v = dav(t, who)
        v["dest"] = v["dir"] + "/other.txt"
        return v

    def root(t, who):
        return {("share" if tree == "share" else "drive"): area(t, who)[2]}

    def favorite(t, who):
        """The fixture's file is one of its owner's favorites."""
        v = dav(t, who)
        t.api(who, "PUT", "/api/v1/favorites/%s" % v["_file"], expect=204)
        return v

    F.dav, F.locked, F.new_dest, F.existing_dest, F.root = dav, locked, new_dest, existing_dest, root
    F.favorite = favorite
    return F


def fx_group_with(t, who):
    """A fresh group (made by the administrator) with `who` as a member."""
    g = t.api(t.admin, "POST", "/api/v1/groups", {"name": "group %d" % t.n()}, expect=201)
    if who is not t.admin:
        t.api(t.admin, "POST", "/api/v1/groups/%s/members" % g["id"], {"user": who.name}, expect=204)
    t.probe(who, "GET", "/api/v1/groups/%s" % g["id"])
    return {"id": g["id"]}


def fx_group_target(t, who):
    v = fx_group_with(t, who)
    v["name"] = fx_target(t, who)["name"]
    return v


def fx_group_member_user(t, who):
    v = fx_group_target(t, who)
    t.api(t.admin, "POST", "/api/v1/groups/%s/members" % v["id"], {"user": v["name"]}, expect=204)
    return v


def fx_group_member_group(t, who):
    v = fx_group_with(t, who)
    inner = t.api(t.admin, "POST", "/api/v1/groups", {"name": "inner %d" % t.n()}, expect=201)
    t.api(t.admin, "POST", "/api/v1/groups/%s/members" % v["id"], {"group": inner["id"]}, expect=204)
    v["member"] = inner["id"]
    return v


def fx_file_grantee(t, who):
    v = fx_file(t, who)
    v["_grantee"] = t.grantee.name
    return v


def fx_drive(t, who):
    """A fresh shared drive `who` manages (users may create drives here)."""
    d = t.api(who, "POST", "/api/v1/drives", {"name": "drive %d" % t.n()}, expect=201)
    t.probe(who, "GET", "/api/v1/drives/%s/members" % d["id"])
    t.probe(who, "GET", "/api/v1/nodes/%s/children" % d["root_id"])
    return {"id": d["id"]}


def fx_drive_target(t, who):
    v = fx_drive(t, who)
    v["name"] = fx_target(t, who)["name"]
    return v


def fx_drive_member_user(t, who):
    v = fx_drive_target(t, who)
    t.api(who, "POST", "/api/v1/drives/%s/members" % v["id"], {"user": v["name"], "role": "viewer"}, expect=204)
    return v


def fx_drive_member_group(t, who):
    v = fx_drive(t, who)
    g = t.api(t.admin, "POST", "/api/v1/groups", {"name": "drive group %d" % t.n()}, expect=201)
    if who is not t.admin:  # one adds one's own groups (sharee search "groups")
        t.api(t.admin, "POST", "/api/v1/groups/%s/members" % g["id"], {"user": who.name}, expect=204)
    t.api(who, "POST", "/api/v1/drives/%s/members" % v["id"], {"group": g["id"], "role": "viewer"}, expect=204)
    v["member"] = g["id"]
    return v


def fx_link(t, who):
    f = fx_folder(t, who)
    l = t.api(who, "POST", "/api/v1/nodes/%s/links" % f["id"], {"role": "view"}, expect=201)
    t.probe(who, "GET", "/api/v1/nodes/%s/links" % f["id"])
    return {"id": l["id"]}


def fx_grant(t, who):
    f = fx_file(t, who)
    g = t.api(who, "POST", "/api/v1/nodes/%s/grants" % f["id"], {"user": t.grantee.name, "role": "viewer"},
              expect=201)
    t.probe(who, "GET", "/api/v1/nodes/%s/grants" % f["id"])
    t.probe(who, "GET", "/api/v1/shared-by-me?limit=500")
    return {"id": g["id"]}


# The Nextcloud client API (src/nc/).
NC_UPLOADS = "/remote.php/dav/uploads/%s/%s"
NC_TRASH = "/remote.php/dav/trashbin/%s/"
NC_HOST = "http://127.0.0.1"  # the harness's Host header: absolute Destination URLs as clients send them


def fx_nc_upload_name(t, who):
    """A name for a chunked upload (Nextcloud's v2) that `who` has not made."""
    name = "upload-%d-%s" % (t.n(), rand("0123456789abcdef", 12))
    t.probe(who, "PROPFIND", NC_UPLOADS % (who.name, name) + "/", {"Depth": "1"})
    return {"user": who.name, "upload": name}


def fx_nc_upload(t, who):
    """A chunked upload of its own with chunk 1 received, and a folder of
    its own (its WebDAV area) for the assembled file."""
    v = fx_nc_upload_name(t, who)
    url = NC_UPLOADS % (who.name, v["upload"])
    status, _, data = t.send(who.auth, R("MKCOL", url, {}, b""))
    t.assertEqual(status, 201, data)
    status, _, data = t.send(who.auth, R("PUT", url + "/1", {}, who.bytes))
    t.assertEqual(status, 201, data)
    top, parent, _ = t.dav_area[who.name]
    name = "%s-%d" % (who.prefix, t.n())
    t.box(who, parent, name)
    v["dest"] = "%s/%s/assembled.bin" % (top, name)
    return v


def fx_nc_trashbin(t, who):
    """The name of one's trash bin, with something in it."""
    v = fx_trashed_internal(t, who)
    v["user"] = who.name
    return v


def fx_nc_trashed(t, who):
    """A trashed file of its own (a trash bin item is named by its node id)."""
    v = fx_trashed(t, who)
    v["user"] = who.name
    t.probe(who, "PROPFIND", NC_TRASH % who.name + "trash/" + v["id"], {"Depth": "0"})
    return v


NC_VERSIONS = "/remote.php/dav/versions/%s/"
FILEID = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><oc:fileid xmlns:oc="http://owncloud.org/ns"/>'
          b'</d:prop></d:propfind>')


def fx_nc_versioned(t, who):
    """A file of its own in its work folder (Alice's is where the sharing
    roles reach), written twice through WebDAV as a client does: one
    version, of the first content. The versions tree names the file by its
    numeric oc:fileid (learnt from a PROPFIND, the REST API does not show
    it) and the version by its id; "user" is one's name there."""
    name = "%s-%d" % (who.prefix, t.n())
    box = t.box(who, None, name)
    node = t.put(who, box, who.prefix + ".txt", who.bytes)
    url = dav_url("/remote.php/dav/files/" + who.name, "%s-work/%s/%s.txt" % (who.prefix, name, who.prefix))
    status, _, data = t.send(who.auth, R("PUT", url, {}, who.bytes + b" v2"))
    t.assertIn(status, (200, 201, 204), data)
    status, _, data = t.send(who.auth, R("PROPFIND", url, dict(XML, Depth="0"), FILEID))
    t.assertEqual(status, 207, data)
    file = re.search(rb"<oc:fileid>(\d+)</oc:fileid>", data).group(1).decode()
    versions = NC_VERSIONS % who.name + "versions/%s/" % file
    status, _, data = t.send(who.auth, R("PROPFIND", versions, {"Depth": "1"}, b""))
    t.assertEqual(status, 207, data)
    hrefs = [urllib.parse.unquote(h.decode()) for h in re.findall(rb"<d:href>([^<]*)</d:href>", data)]
    vids = [h[len(versions):] for h in hrefs if h.startswith(versions) and h != versions]
    rest = t.api(who, "GET", "/api/v1/nodes/%s/versions" % node["id"])["items"]
    t.assertEqual(len(vids), 1, data)
    t.assertEqual(vids, [i["id"] for i in rest])
    # Alice's versions as she sees them, before and after the others' requests.
    t.probe(who, "PROPFIND", versions, {"Depth": "1"})
    t.probe(who, "GET", versions + vids[0])
    t.probe(who, "GET", "/api/v1/nodes/%s/versions" % node["id"])
    return {"user": who.name, "file": file, "vid": vids[0]}


OCS_H = {"OCS-APIRequest": "true"}
OCS_SHARES = "/apps/files_sharing/api/v1/shares"
OCS_SHAREES = "/apps/files_sharing/api/v1/sharees"


def nc_image(t, who):
    """An image file of its own in its work folder (Alice's is where the
    sharing roles reach): its path in its own files tree and its numeric
    oc:fileid (learnt from a PROPFIND, the REST API does not show it)."""
    name = "%s-%d" % (who.prefix, t.n())
    box = t.box(who, None, name)
    t.put(who, box, who.prefix + ".png", png("%s %d %s" % (who.name, t.n(), random.random())))
    path = "%s-work/%s/%s.png" % (who.prefix, name, who.prefix)
    status, _, data = t.send(who.auth, R("PROPFIND", dav_url("/remote.php/dav/files/" + who.name, path),
                                         dict(XML, Depth="0"), FILEID))
    t.assertEqual(status, 207, data)
    return {"path": path, "file": re.search(rb"<oc:fileid>(\d+)</oc:fileid>", data).group(1).decode()}


def fx_nc_image_id(t, who):
    v = nc_image(t, who)
    return {"file": v["file"], "_path": v["path"]}


def fx_nc_image_path(t, who):
    v = nc_image(t, who)
    return {"path": v["path"], "_file": v["file"]}


def ocs_req(method, url, fields=None):
    """An OCS request in JSON, with a form body as the apps send it."""
    url += ("&" if "?" in url else "?") + "format=json"
    if fields is None:
        return R(method, url, OCS_H, b"")
    return R(method, url, dict(OCS_H, **{"Content-Type": "application/x-www-form-urlencoded"}),
             urllib.parse.urlencode(fields).encode())


def internal(fixture):
    """The fixture's resources, none of them named by the request."""
    return lambda t, who: {"_" + k: x for k, x in fixture(t, who).items()}


def fx_ocs_item(t, who):
    """A folder of its own in its work folder (Alice's is where the sharing
    roles reach), named as the OCS sharing API names items: by its path in
    the caller's own files tree ("path", without the leading slash so that
    an unknown one has the same shape). Alice's grants and links on it as
    she sees them, before and after the others' requests."""
    name = "%s-%d" % (who.prefix, t.n())
    node = t.box(who, None, name)
    t.probe(who, "GET", "/api/v1/nodes/%s/grants" % node)
    t.probe(who, "GET", "/api/v1/nodes/%s/links" % node)
    t.probe(who, "GET", "/api/v1/shared-by-me?limit=500")
    return {"path": "%s-work/%s" % (who.prefix, name), "_node": node, "_grantee": t.grantee.name}


def fx_ocs_shared(t, who):
    """An item of its own (fx_ocs_item) with a grant and a link on it."""
    v = fx_ocs_item(t, who)
    t.api(who, "POST", "/api/v1/nodes/%s/grants" % v["_node"], {"user": t.grantee.name, "role": "viewer"},
          expect=201)
    t.api(who, "POST", "/api/v1/nodes/%s/links" % v["_node"], {"role": "view", "label": "matrix"}, expect=201)
    return v


def fx_ocs_group(t, who):
    """An item of its own and a group (the administrator's) to share it with;
    the owner and the recipients belong to it (one shares with one's own
    groups), so what refuses a recipient is its role, not the group."""
    v = fx_ocs_item(t, who)
    v["_group"] = t.api(t.admin, "POST", "/api/v1/groups", {"name": "ocs group %d" % t.n()}, expect=201)["id"]
    for member in [who] + list(t.recipients.values()):
        if member is not t.admin:
            t.api(t.admin, "POST", "/api/v1/groups/%s/members" % v["_group"], {"user": member.name}, expect=204)
    return v


def fx_grant_to_her(t, who):
    """A grant the grantee made to `who` on a folder of the grantee's: a
    share made to her, which she may leave (revoke) but not change."""
    giver = t.grantee
    root = t.api(giver, "GET", "/api/v1/drives")["drives"][0]["root_id"]
    node = t.box(giver, root)
    g = t.api(giver, "POST", "/api/v1/nodes/%s/grants" % node, {"user": who.name, "role": "viewer"}, expect=201)
    t.probe(giver, "GET", "/api/v1/nodes/%s/grants" % node)
    t.probe(who, "GET", "/api/v1/shared-with-me?limit=500")
    return {"id": g["id"]}


def fx_share_to_her(t, who):
    """A folder of the grantee's shared with `who`: an item of her "shared
    with me", which she may remove from her own tree and show again."""
    giver = t.grantee
    root = t.api(giver, "GET", "/api/v1/drives")["drives"][0]["root_id"]
    node = t.box(giver, root)
    t.api(giver, "POST", "/api/v1/nodes/%s/grants" % node, {"user": who.name, "role": "viewer"}, expect=201)
    t.probe(who, "GET", "/api/v1/shared-with-me?limit=500")
    t.probe(who, "PROPFIND", "/dav/", dict(XML, Depth="1"), ALLPROP)
    return {"id": node}


def fx_login_flow(t, who):
    """A Login Flow v2 waiting for its grant, started by a client (no
    account). It belongs to nobody until someone grants it: its login token
    is the bearer capability the client hands to the browser, whoever signs
    in there grants it to their own account (Nextcloud's protocol). So it
    names nothing of Alice's ("_"): Bob grants a flow of his own."""
    status, _, data = t.send(None, R("POST", "/index.php/login/v2", {"User-Agent": "matrix client %d" % t.n()}, b""))
    t.assertEqual(status, 200, data)
    started = json.loads(data)
    return {"_token": started["login"].rsplit("/", 1)[1], "_poll": started["poll"]["token"]}


# ---- The examples ----------------------------------------------------------


def batch(op, keys, parent=False):
    def build(v, who):
        body = {"op": op, "ids": [v[k] for k in keys]}
        if parent:
            body["parent_id"] = v["parent"]
        return J("POST", "/api/v1/batch", body)
    return build


# Paths whose first segments name the caller's own tree (a recipient of a
# grant reaches nothing there: it answers like an unknown path).
DAV_TREES = ("/dav/", "/webdav/", "/dav-drives/", "/dav-shares/", "/remote.php/")
GW = "/remote.php/dav"
CALQ = (b'<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>'
        b'<C:calendar-data/></d:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">'
        b'<C:time-range start="20260101T000000Z" end="20270101T000000Z"/></C:comp-filter></C:comp-filter>'
        b'</C:filter></C:calendar-query>')
OC_SHARE = (b'<o:share xmlns:d="DAV:" xmlns:o="http://owncloud.org/ns"><o:set><d:href>'
            b'principal:principals/users/grantee</d:href></o:set></o:share>')
SYNC = (b'<d:sync-collection xmlns:d="DAV:"><d:sync-token/><d:sync-level>1</d:sync-level>'
        b'<d:prop><d:getetag/></d:prop></d:sync-collection>')
CARDQ = (b'<CR:addressbook-query xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/>'
         b'<CR:address-data/></d:prop></CR:addressbook-query>')
FREEBUSY = (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//matrix//EN\r\nMETHOD:REQUEST\r\nBEGIN:VFREEBUSY\r\n"
            b"UID:fb\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260301T000000Z\r\nDTEND:20260302T000000Z\r\n"
            b"ORGANIZER:/remote.php/dav/principals/users/alice/\r\nATTENDEE:/remote.php/dav/principals/users/alice/"
            b"\r\nEND:VFREEBUSY\r\nEND:VCALENDAR\r\n")
FAVORITES = (b'<?xml version="1.0"?><oc:filter-files xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">'
             b'<oc:filter-rules><oc:favorite>1</oc:favorite></oc:filter-rules><d:prop><d:getetag/><oc:fileid/>'
             b'</d:prop></oc:filter-files>')
CAL_PROPSET = (b'<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>renamed</d:displayname>'
               b'</d:prop></d:set></d:propertyupdate>')


def ics(uid, summary):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//matrix//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\n"
            "DTSTAMP:20260101T000000Z\r\nDTSTART:20260301T100000Z\r\nDTEND:20260301T110000Z\r\n"
            "SUMMARY:%s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n" % (uid, summary)).encode()


def fx_calendar(t, who):
    """A calendar of its own with one event, and one address book with one card."""
    n = t.n()
    cal, book = "cal-%d" % n, "book-%d" % n
    base = "%s/calendars/%s/%s/" % (GW, who.name, cal)
    status, _, data = t.send(who.auth, R("MKCALENDAR", base, {}, b""))
    assert status == 201, data
    status, _, data = t.send(who.auth, R("PUT", base + "e.ics", {"Content-Type": "text/calendar"},
                                         ics("uid-%d" % n, who.prefix)))
    assert status == 201, data
    books = "%s/addressbooks/users/%s/%s/" % (GW, who.name, book)
    status, _, data = t.send(who.auth, R("MKCOL", books, {}, b""))
    assert status == 201, data
    card = ("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:card-%d\r\nFN:%s\r\nEND:VCARD\r\n" % (n, who.prefix)).encode()
    status, _, data = t.send(who.auth, R("PUT", books + "c.vcf", {"Content-Type": "text/vcard"}, card))
    assert status == 201, data
    for url in (base, books):
        t.probe(who, "PROPFIND", url, dict(XML, Depth="1"), ALLPROP)
    return {"cal": cal, "book": book, "_n": str(n), "fresh": "new-%d" % n}


def groupdav_cases():
    """Every method of the groupware trees' dispatch table, on Alice's
    calendars and address books (her name in the path: Bob addresses her
    home directly and must get what a home that does not exist answers)."""
    cal = lambda v: "%s/calendars/alice/%s/" % (GW, v["cal"])  # noqa: E731
    book = lambda v: "%s/addressbooks/users/alice/%s/" % (GW, v["book"])  # noqa: E731
    F = fx_calendar
    return {
        "OPTIONS": [Case(lambda v, w: R("OPTIONS", cal(v), {}, b""), F, none=any_status)],
        "PROPFIND": [
            Case(lambda v, w: R("PROPFIND", cal(v), dict(XML, Depth="0"), ALLPROP), F, "calendar", ok=is_207),
            Case(lambda v, w: R("PROPFIND", cal(v), dict(XML, Depth="1"), ALLPROP), F, "events", ok=is_207),
            Case(lambda v, w: R("PROPFIND", book(v) + "c.vcf", dict(XML, Depth="0"), ALLPROP), F, "card",
                 ok=is_207)],
        "PROPPATCH": [Case(lambda v, w: R("PROPPATCH", cal(v), XML, CAL_PROPSET), F, ok=proppatch_ok)],
        "MKCOL": [Case(lambda v, w: R("MKCOL", "%s/addressbooks/users/alice/%s/" % (GW, v["fresh"]), {}, b""), F)],
        "MKCALENDAR": [Case(lambda v, w: R("MKCALENDAR", "%s/calendars/alice/%s/" % (GW, v["fresh"]), {}, b""), F)],
        "GET": [
            Case(lambda v, w: R("GET", cal(v) + "e.ics", {}, b""), F, "event"),
            Case(lambda v, w: R("GET", book(v) + "c.vcf", {}, b""), F, "card"),
            Case(lambda v, w: R("GET", cal(v), {}, b""), F, "export"),
            Case(lambda v, w: R("HEAD", cal(v) + "e.ics", {}, b""), F, "HEAD")],
        "PUT": [
            Case(lambda v, w: R("PUT", cal(v) + "e.ics", {"Content-Type": "text/calendar"},
                                ics("uid-" + v["_n"], "overwritten")), F, "overwrite"),
            Case(lambda v, w: R("PUT", cal(v) + "new.ics", {"Content-Type": "text/calendar"},
                                ics("new-" + v["_n"], "new")), F, "create")],
        "DELETE": [
            Case(lambda v, w: R("DELETE", cal(v) + "e.ics", {}, b""), F, "event"),
            Case(lambda v, w: R("DELETE", book(v), {}, b""), F, "address book")],
        "POST": [Case(lambda v, w: R("POST", "%s/calendars/alice/outbox/" % GW, {"Content-Type": "text/calendar"},
                                     FREEBUSY), F, "free-busy through the outbox"),
                 # Nextcloud's oc:share: only the owner shares her calendar.
                 Case(lambda v, w: R("POST", cal(v), XML, OC_SHARE), F, "oc:share a calendar")],
        "REPORT": [
            Case(lambda v, w: R("REPORT", cal(v), dict(XML, Depth="1"), CALQ), F, "calendar-query", ok=is_207),
            Case(lambda v, w: R("REPORT", cal(v), dict(XML, Depth="0"), SYNC), F, "sync-collection", ok=is_207),
            Case(lambda v, w: R("REPORT", book(v), dict(XML, Depth="1"), CARDQ), F, "addressbook-query",
                 ok=is_207)],
    }


def dav_cases(m, tree="personal"):
    """Every method of the WebDAV dispatch table, on mount `m` (for the
    "drive" tree, /dav-drives/<the fixture's drive>)."""
    F = dav_fixtures(tree)
    mount = {"personal": lambda v, w: m.replace("{user}", w.name), "mount": lambda v, w: m,
             "drive": lambda v, w: "/dav-drives/" + v["drive"],
             "share": lambda v, w: "/dav-shares/" + v["share"]}[tree]
    u = lambda v, w, p: dav_url(mount(v, w), p)  # noqa: E731
    cases = {
        "OPTIONS": [Case(lambda v, w: R("OPTIONS", u(v, w, v["path"]), {}, b""), F.dav, none=any_status)],
        "PROPFIND": [
            # Personal: nothing of Alice's named, Bob lists his own drive.
            # Drive: the root of Alice's shared drive.
            Case(lambda v, w: R("PROPFIND", mount(v, w) + "/", dict(XML, Depth="1"), ALLPROP),
                 None if tree == "personal" else F.root, "drive root", ok=is_207,
                 needs="own" if tree == "personal" else None),
            Case(lambda v, w: R("PROPFIND", u(v, w, v["path"]), dict(XML, Depth="0"), ALLPROP), F.dav, "depth 0",
                 ok=is_207),
            Case(lambda v, w: R("PROPFIND", u(v, w, v["dir"]) + "/", dict(XML, Depth="1"), ALLPROP), F.dav,
                 "collection, depth 1", ok=is_207)],
        "PROPPATCH": [Case(lambda v, w: R("PROPPATCH", u(v, w, v["path"]), XML, PROPSET), F.dav, ok=proppatch_ok)],
        "MKCOL": [Case(lambda v, w: R("MKCOL", u(v, w, v["dir"] + "/newcol"), {}, b""), F.dav)],
        "GET": [
            Case(lambda v, w: R("GET", u(v, w, v["path"]), {}, b""), F.dav, "GET"),
            Case(lambda v, w: R("HEAD", u(v, w, v["path"]), {}, b""), F.dav, "HEAD")],
        "PUT": [
            Case(lambda v, w: R("PUT", u(v, w, v["path"]), {}, b"overwritten"), F.dav, "overwrite"),
            Case(lambda v, w: R("PUT", u(v, w, v["dir"] + "/new.txt"), {}, b"new"), F.dav, "create"),
            Case(lambda v, w: R("PUT", u(v, w, v["path"]), {"If": "(<%s>)" % v["token"]}, b"locked write"),
                 F.locked, "with the lock token in If", cross=("token",))],
        "PATCH": [Case(lambda v, w: R("PATCH", u(v, w, v["path"]), {
            "Content-Type": "application/x-sabredav-partialupdate", "X-Update-Range": "bytes=0-3"}, b"ABCD"),
            F.dav)],
        "DELETE": [Case(lambda v, w: R("DELETE", u(v, w, v["path"]), {}, b""), F.dav)],
        "COPY": [
            Case(lambda v, w: R("COPY", u(v, w, v["path"]), {"Destination": u(v, w, v["dest"]), "Overwrite": "F"}, b""),
                 F.new_dest, "to a new name", cross=("dest",)),
            Case(lambda v, w: R("COPY", u(v, w, v["path"]), {"Destination": u(v, w, v["dest"]), "Overwrite": "T"}, b""),
                 F.existing_dest, "over an existing file", cross=("dest",))],
        "MOVE": [
            Case(lambda v, w: R("MOVE", u(v, w, v["path"]), {"Destination": u(v, w, v["dest"]), "Overwrite": "F"}, b""),
                 F.new_dest, "to a new name", cross=("dest",)),
            Case(lambda v, w: R("MOVE", u(v, w, v["path"]), {"Destination": u(v, w, v["dest"]), "Overwrite": "T"}, b""),
                 F.existing_dest, "over an existing file", cross=("dest",))],
        "LOCK": [
            Case(lambda v, w: R("LOCK", u(v, w, v["path"]), dict(XML, Depth="0", Timeout="Second-600"), LOCKINFO),
                 F.dav, "existing file"),
            Case(lambda v, w: R("LOCK", u(v, w, v["dir"] + "/locknull.txt"), dict(XML, Depth="0"), LOCKINFO),
                 F.dav, "unmapped name")],
        "UNLOCK": [Case(lambda v, w: R("UNLOCK", u(v, w, v["path"]), {"Lock-Token": "<%s>" % v["token"]}, b""),
                        F.locked, cross=("token",))],
        # oc:filter-files: the caller's favorites in the tree (Alice's
        # fixture file is one of hers).
        "REPORT": [
            Case(lambda v, w: R("REPORT", mount(v, w) + "/", XML, FAVORITES),
                 None if tree == "personal" else F.root, "favorites, drive root", ok=is_207,
                 needs="own" if tree == "personal" else None),
            Case(lambda v, w: R("REPORT", u(v, w, v["dir"]) + "/", XML, FAVORITES), F.favorite,
                 "favorites, collection", ok=is_207),
            # RFC 6578 on a folder: its members and their ETags.
            Case(lambda v, w: R("REPORT", u(v, w, v["dir"]) + "/", dict(XML, Depth="0"), SYNC), F.favorite,
                 "sync-collection, collection", ok=is_207)],
    }
    if tree == "mount":
        # Alice's work folder, which the sharing roles hold a grant on, as
        # it appears in each recipient's own /dav/ tree (a received share's
        # mount point has the shared folder's name): the same path works for
        # Alice and for them, and each example needs what the REST route
        # doing the same thing needs.
        for method in cases:
            # The tree's root is the caller's own: the personal rows have it.
            cases[method] = [c for c in cases[method] if "drive root" not in c.label]
            for case in cases[method]:
                need = MOUNT_NEEDS.get((method, case.label))
                assert need, "no MOUNT_NEEDS row for %s %s" % (method, case.label)
                case.needs = need
    return cases


# What a recipient must hold for each WebDAV example through a received
# share's mount point in its own tree (dav_cases with tree "mount").
MOUNT_NEEDS = {
    ("OPTIONS", ""): "read",
    ("PROPFIND", "depth 0"): "read",
    ("PROPFIND", "collection, depth 1"): "list",
    ("PROPPATCH", ""): "modify",
    ("MKCOL", ""): "create",
    ("GET", "GET"): "read",
    ("GET", "HEAD"): "read",
    ("PUT", "overwrite"): "modify",
    ("PUT", "create"): "create",
    # Alice's lock: only she may use its token (a recipient sees a lock
    # it may not use as a false If header or as someone else's lock).
    ("PUT", "with the lock token in If"): "refused",
    ("PATCH", ""): "modify",
    ("DELETE", ""): "delete",
    ("COPY", "to a new name"): "copy",
    ("COPY", "over an existing file"): "copy",
    ("MOVE", "to a new name"): "move",
    ("MOVE", "over an existing file"): "move",
    ("LOCK", "existing file"): "modify",
    ("LOCK", "unmapped name"): "create",
    ("UNLOCK", ""): "refused",
    ("REPORT", "favorites, collection"): "list",
    ("REPORT", "sync-collection, collection"): "list",
}


def nc_upload_cases():
    """Every method of the chunked-upload tree (Nextcloud's v2,
    /remote.php/dav/uploads/<user>/<upload>/<chunk>). The name in the path
    is an id like the upload's: Bob addresses Alice's uploads home (and his
    own upload there), and his own home with her upload's name; an upload
    belongs to its account alone."""
    up = lambda v, w: NC_UPLOADS % (v["user"], v["upload"])  # noqa: E731
    F = fx_nc_upload
    both = ("user", "upload")
    return {
        "OPTIONS": [Case(lambda v, w: R("OPTIONS", up(v, w) + "/", {}, b""), F, none=any_status)],
        "MKCOL": [Case(lambda v, w: R("MKCOL", up(v, w), {}, b""), fx_nc_upload_name, "a new upload",
                       cross=("user",))],
        "PUT": [Case(lambda v, w: R("PUT", up(v, w) + "/2", {}, b"the second chunk"), F, "a chunk", cross=both)],
        "PROPFIND": [
            Case(lambda v, w: R("PROPFIND", NC_UPLOADS % (v["user"], ""), {"Depth": "1"}, b""),
                 lambda t, who: {"user": who.name}, "the uploads home", ok=is_207),
            Case(lambda v, w: R("PROPFIND", up(v, w) + "/", {"Depth": "1"}, b""), F, "the chunks, depth 1",
                 cross=both, ok=is_207)],
        "MOVE": [Case(lambda v, w: R("MOVE", up(v, w) + "/.file", {
            "Destination": NC_HOST + dav_url("/remote.php/dav/files/" + v["user"], v["dest"])}, b""), F,
            "assemble .file", cross=both + ("dest",))],
        "DELETE": [Case(lambda v, w: R("DELETE", up(v, w), {}, b""), F, "abort", cross=both)],
    }


NC_BULK_BOUNDARY = "matrix_bulk.oOo.boundary"


def bulk_body(path, data):
    """A bulk upload (multipart/related) of one file at `path`, from the
    caller's files root, as the desktop client frames it."""
    head = "--%s\r\nContent-Length: %d\r\nX-File-Mtime: 1700000000\r\nX-File-Path: /%s\r\n\r\n" % (
        NC_BULK_BOUNDARY, len(data), path)
    return head.encode() + data + ("\r\n--%s--\r\n" % NC_BULK_BOUNDARY).encode()


def nc_bulk_cases():
    """Nextcloud's bulk upload: paths in the caller's own files tree, so a
    path of Alice's names nothing in Bob's; a share's recipient reaches
    Alice's work folder through its mount point (the "mount" tree)."""
    F = dav_fixtures("mount")
    H = {"Content-Type": 'multipart/related; boundary="%s"' % NC_BULK_BOUNDARY}
    return [
        Case(lambda v, w: R("POST", "/remote.php/dav/bulk", H, bulk_body(v["path"], b"bulk overwritten")), F.dav,
             "overwrite", none=bulk_refused, ok=bulk_ok, needs="modify"),
        Case(lambda v, w: R("POST", "/remote.php/dav/bulk", H, bulk_body(v["dir"] + "/bulk-new.txt", b"bulk new")),
             F.dav, "create", none=bulk_refused, ok=bulk_ok, needs="create")]


def nc_trash_cases():
    """Every method of the trash tree (/remote.php/dav/trashbin/<user>/),
    whose items are named by the trashed node's id. "Her trash bin": Alice's
    name in the path is an id like the item's (Bob also names his own item
    there). "One's own trash bin": the caller's name with Alice's item, an
    id not in the caller's trash, which answers like one that does not
    exist; for the sharing roles too (her work folder's trashed files are
    not in their trash)."""
    her = lambda v, w: NC_TRASH % v["user"]  # noqa: E731
    own = lambda v, w: NC_TRASH % w.name  # noqa: E731
    item_her = lambda v, w: her(v, w) + "trash/" + v["id"]  # noqa: E731
    item_own = lambda v, w: own(v, w) + "trash/" + v["id"]  # noqa: E731
    d0, d1 = {"Depth": "0"}, {"Depth": "1"}
    return {
        "OPTIONS": [Case(lambda v, w: R("OPTIONS", her(v, w) + "trash/", {}, b""), fx_nc_trashbin, none=any_status)],
        "PROPFIND": [
            Case(lambda v, w: R("PROPFIND", her(v, w), d1, b""), fx_nc_trashbin, "her trash bin", ok=is_207),
            Case(lambda v, w: R("PROPFIND", her(v, w) + "trash/", d1, b""), fx_nc_trashbin,
                 "her trash, depth 1", ok=is_207),
            Case(lambda v, w: R("PROPFIND", own(v, w) + "trash/", d1, b""), fx_trashed_internal,
                 "one's own trash, depth 1", ok=is_207, needs="own"),
            Case(lambda v, w: R("PROPFIND", item_her(v, w), d0, b""), fx_nc_trashed, "an item of her trash bin",
                 cross=("user",), ok=is_207),
            Case(lambda v, w: R("PROPFIND", item_own(v, w), d0, b""), fx_trashed,
                 "her item in one's own trash bin", ok=is_207)],
        "DELETE": [
            Case(lambda v, w: R("DELETE", item_her(v, w), {}, b""), fx_nc_trashed, "an item of her trash bin",
                 cross=("user",)),
            Case(lambda v, w: R("DELETE", item_own(v, w), {}, b""), fx_trashed, "her item in one's own trash bin"),
            # Empties the owner's trash: the route runs before the trashed
            # sentinel is made (see test_matrix).
            Case(lambda v, w: R("DELETE", her(v, w) + "trash/", {}, b""), fx_nc_trashbin, "empty her trash")],
        "MOVE": [
            Case(lambda v, w: R("MOVE", item_her(v, w), {"Destination": NC_HOST + her(v, w) + "restore/restored.txt"},
                                b""), fx_nc_trashed, "restore an item of her trash bin", cross=("user",)),
            Case(lambda v, w: R("MOVE", item_own(v, w), {"Destination": NC_HOST + own(v, w) + "restore/restored.txt"},
                                b""), fx_trashed, "restore her item from one's own trash bin")],
    }


def nc_versions_cases():
    """Every method of the versions tree (/remote.php/dav/versions/<user>/
    versions/<file id>/<version id>). The file id and the version's id are
    ids; so is the name in the path, which must be the caller's own. "One's
    own tree": the caller's name with Alice's file id (and version): Bob
    gets what unknown ids get, and also tries his own file with her version
    and her file with his version; a recipient of a grant reaches her
    file's versions as its role allows (versions are authorized like their
    file: read lists and downloads them, modify restores and deletes them).
    "Her tree": Alice's name in the path answers like a name that does not
    exist (Bob also names his own file there), for the recipients too."""
    her = lambda v, w: NC_VERSIONS % v["user"]  # noqa: E731
    own = lambda v, w: NC_VERSIONS % w.name  # noqa: E731
    vs_her = lambda v, w: her(v, w) + "versions/%s/" % v["file"]  # noqa: E731
    vs_own = lambda v, w: own(v, w) + "versions/%s/" % v["file"]  # noqa: E731
    F = fx_nc_versioned
    ids = ("file", "vid")
    d0, d1 = {"Depth": "0"}, {"Depth": "1"}
    return {
        "OPTIONS": [Case(lambda v, w: R("OPTIONS", vs_her(v, w), {}, b""), F, none=any_status)],
        "PROPFIND": [
            Case(lambda v, w: R("PROPFIND", own(v, w), d1, b""), None, "one's own tree", ok=is_207, needs="own"),
            Case(lambda v, w: R("PROPFIND", her(v, w), d1, b""), lambda t, who: {"user": who.name}, "her tree",
                 ok=is_207),
            Case(lambda v, w: R("PROPFIND", vs_own(v, w), d1, b""), F, "her file's versions in one's own tree",
                 ok=is_207, needs="read"),
            Case(lambda v, w: R("PROPFIND", vs_own(v, w) + v["vid"], d0, b""), F,
                 "her version in one's own tree", cross=ids, ok=is_207, needs="read"),
            Case(lambda v, w: R("PROPFIND", vs_her(v, w), d1, b""), F, "her file's versions in her tree",
                 cross=("user",), ok=is_207)],
        "GET": [
            Case(lambda v, w: R("GET", vs_own(v, w) + v["vid"], {}, b""), F, "her version in one's own tree",
                 cross=ids, needs="read"),
            Case(lambda v, w: R("HEAD", vs_own(v, w) + v["vid"], {}, b""), F, "HEAD, one's own tree", cross=ids,
                 needs="read"),
            Case(lambda v, w: R("GET", vs_her(v, w) + v["vid"], {}, b""), F, "her version in her tree",
                 cross=("user",))],
        "MOVE": [
            Case(lambda v, w: R("MOVE", vs_own(v, w) + v["vid"], {
                "Destination": NC_HOST + own(v, w) + "restore/target"}, b""), F,
                "restore her version in one's own tree", cross=ids, needs="modify"),
            Case(lambda v, w: R("MOVE", vs_her(v, w) + v["vid"], {
                "Destination": NC_HOST + her(v, w) + "restore/target"}, b""), F,
                "restore her version in her tree", cross=("user",))],
        "DELETE": [
            Case(lambda v, w: R("DELETE", vs_own(v, w) + v["vid"], {}, b""), F, "her version in one's own tree",
                 cross=ids, needs="modify"),
            Case(lambda v, w: R("DELETE", vs_her(v, w) + v["vid"], {}, b""), F, "her version in her tree",
                 cross=("user",))],
    }


def nc_cases():
    """The Nextcloud client API beyond its WebDAV trees: OCS (v1 answers
    200 with the failure in the envelope, v2 the HTTP status), avatars and
    the Login Flow v2 consent endpoints of the web UI."""
    H = {"OCS-APIRequest": "true"}
    ex = {}
    for base in ("/ocs/v1.php", "/ocs/v2.php"):
        def ocs(path, method="GET", base=base):
            return lambda v, w: R(method, base + path(v) + "?format=json", H, b"")
        ex[("GET", base + "/cloud/user")] = [Case(ocs(lambda v: "/cloud/user"), ok=ocs_ok)]
        # Oneself (or an administrator): another user is not there.
        ex[("GET", base + "/cloud/users/{id}")] = [
            Case(ocs(lambda v: "/cloud/users/" + v["id"]), lambda t, who: {"id": who.name}, ok=ocs_ok,
                 none=ocs_refused)]
        ex[("GET", base + "/apps/notifications/api/v2/notifications")] = [
            Case(ocs(lambda v: "/apps/notifications/api/v2/notifications"), ok=ocs_ok)]
        ex[("GET", base + "/apps/activity/api/v2/activity")] = [
            Case(ocs(lambda v: "/apps/activity/api/v2/activity"), ok=ocs_ok)]
        ex[("GET", base + "/apps/activity/api/v2/activity/{filter}")] = [
            Case(ocs(lambda v: "/apps/activity/api/v2/activity/all"), ok=ocs_ok)]
        ex[("GET", base + "/core/getapppassword")] = [
            Case(ocs(lambda v: "/core/getapppassword"), ok=ocs_ok, only="password", refused=ocs_forbidden)]
        ex[("DELETE", base + "/core/apppassword")] = [
            Case(ocs(lambda v: "/core/apppassword", "DELETE"), ok=ocs_ok, only="app-password",
                 refused=ocs_forbidden)]
        # The sharing API. Items are named by their path in the caller's own
        # files tree (a path of Alice's names nothing in anyone else's),
        # shares by the public id of a grant or link (PUT and DELETE try a
        # grant, then a link: an id the caller may not see answers like an
        # unknown one, "no such link").
        sh = base + OCS_SHARES
        path = lambda v: "/" + v["path"]  # noqa: E731
        ex[("GET", sh)] = [
            Case(lambda v, w, sh=sh: ocs_req("GET", sh + "?path=" + q(path(v))), fx_ocs_shared,
                 "the grants and links on her item", ok=ocs_ok, none=ocs_refused, needs="share"),
            # Nothing named: Bob lists his own (a share made to him, a grant he made).
            Case(lambda v, w, sh=sh: ocs_req("GET", sh + "?shared_with_me=true"), internal(fx_grant_to_her),
                 "shared with oneself", ok=ocs_ok),
            Case(lambda v, w, sh=sh: ocs_req("GET", sh), internal(fx_grant), "one's own grants", ok=ocs_ok)]
        ex[("POST", sh)] = [
            Case(lambda v, w, sh=sh: ocs_req("POST", sh, [
                ("path", path(v)), ("shareType", "0"), ("shareWith", v["_grantee"]), ("permissions", "1")]),
                fx_ocs_item, "a user share", ok=ocs_ok, none=ocs_refused),
            Case(lambda v, w, sh=sh: ocs_req("POST", sh, [
                ("path", path(v)), ("shareType", "1"), ("shareWith", v["_group"]), ("permissions", "15"),
                ("expireDate", "2099-12-31")]), fx_ocs_group, "a group share", ok=ocs_ok, none=ocs_refused),
            Case(lambda v, w, sh=sh: ocs_req("POST", sh, [
                ("path", path(v)), ("shareType", "3"), ("permissions", "1"), ("password", "link password 1"),
                ("expireDate", "2099-12-31"), ("label", "matrix")]), fx_ocs_item, "a link", ok=ocs_ok,
                none=ocs_refused),
            Case(lambda v, w, sh=sh: ocs_req("POST", sh, [
                ("path", path(v)), ("shareType", "3"), ("publicUpload", "true")]), fx_ocs_item,
                "an upload link", ok=ocs_ok, none=ocs_refused)]
        ex[("PUT", sh + "/{id}")] = [
            Case(lambda v, w, sh=sh: ocs_req("PUT", sh + "/" + v["id"], [
                ("permissions", "15"), ("expireDate", "2099-12-31")]), fx_grant, "a grant", ok=ocs_ok,
                none=ocs_refused),
            Case(lambda v, w, sh=sh: ocs_req("PUT", sh + "/" + v["id"], [
                ("label", "changed"), ("password", "link password 2"), ("expireDate", "2099-12-31")]),
                fx_link, "a link", ok=ocs_ok, none=ocs_refused)]
        ex[("DELETE", sh + "/{id}")] = [
            Case(lambda v, w, sh=sh: ocs_req("DELETE", sh + "/" + v["id"]), fx_grant, "a grant", ok=ocs_ok,
                 none=ocs_refused),
            Case(lambda v, w, sh=sh: ocs_req("DELETE", sh + "/" + v["id"]), fx_link, "a link", ok=ocs_ok,
                 none=ocs_refused),
            # Its grantee leaves a share (Revoke allows the grantee): the
            # recipients have nothing to do with it.
            Case(lambda v, w, sh=sh: ocs_req("DELETE", sh + "/" + v["id"]), fx_grant_to_her,
                 "a share made to her (she leaves it)", ok=ocs_ok, none=ocs_refused, needs="hidden")]
        # An exact user name is found whoever asks (docs/sharing.md).
        ex[("GET", base + OCS_SHAREES)] = [
            Case(lambda v, w, base=base: ocs_req("GET", base + OCS_SHAREES + "?search=grantee"), ok=ocs_ok)]
    # An avatar is drawn from the name alone, the same whether or not such
    # an account exists: Alice's name names nothing stored.
    for pattern in ("/index.php/avatar/{user}/{size}", "/avatar/{user}/{size}"):
        ex[("GET", pattern)] = [
            Case(lambda v, w, p=pattern: R("GET", p.replace("{user}", "alice").replace("{size}", "64"), {}, b""),
                 label="alice's", ok=is_svg)]
    # Previews: by the file's numeric id (a recipient reaches Alice's file
    # as its role allows), or by a path below the caller's own root (which
    # names the caller's own drive, like WebDAV paths).
    ex[("GET", "/index.php/core/preview")] = [
        Case(lambda v, w: R("GET", "/index.php/core/preview?fileId=%s&x=64&y=64" % v["file"], {}, b""),
             fx_nc_image_id, "by file id", ok=is_webp)]
    ex[("GET", "/index.php/core/preview.png")] = [
        Case(lambda v, w: R("GET", "/index.php/core/preview.png?file=%s&x=64&y=64" % q("/" + v["path"]), {}, b""),
             fx_nc_image_path, "by path", ok=is_webp)]
    ex[("GET", "/api/v1/login-flows/{token}")] = [
        Case(lambda v, w: J("GET", "/api/v1/login-flows/" + v["_token"]), fx_login_flow)]
    ex[("POST", "/api/v1/login-flows/{token}/grant")] = [
        Case(lambda v, w: J("POST", "/api/v1/login-flows/%s/grant" % v["_token"]), fx_login_flow)]
    return ex


def examples():
    N = "/api/v1/nodes/%s"
    ex = {
        # --- files
        ("GET", "/api/v1/drives"): [Case(lambda v, w: J("GET", "/api/v1/drives"))],
        ("POST", "/api/v1/drives"): [
            Case(lambda v, w: J("POST", "/api/v1/drives", {"name": v["_new"]}), fx_new_username)],
        ("PATCH", "/api/v1/drives/{id}"): [
            Case(lambda v, w: J("PATCH", "/api/v1/drives/%s" % v["id"], {"name": "renamed %s" % v["id"][-6:]}),
                 fx_drive)],
        ("DELETE", "/api/v1/drives/{id}"): [Case(lambda v, w: J("DELETE", "/api/v1/drives/%s" % v["id"]), fx_drive)],
        ("GET", "/api/v1/drives/{id}/members"): [
            Case(lambda v, w: J("GET", "/api/v1/drives/%s/members" % v["id"]), fx_drive)],
        ("POST", "/api/v1/drives/{id}/members"): [
            Case(lambda v, w: J("POST", "/api/v1/drives/%s/members" % v["id"], {"user": v["name"], "role": "editor"}),
                 fx_drive_target)],
        ("DELETE", "/api/v1/drives/{id}/members/users/{name}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/drives/%s/members/users/%s" % (v["id"], v["name"])),
                 fx_drive_member_user)],
        ("DELETE", "/api/v1/drives/{id}/members/groups/{member}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/drives/%s/members/groups/%s" % (v["id"], v["member"])),
                 fx_drive_member_group)],
        ("GET", "/api/v1/me/usage"): [Case(lambda v, w: J("GET", "/api/v1/me/usage"))],
        # --- versions
        ("GET", "/api/v1/nodes/{id}/versions"): [
            Case(lambda v, w: J("GET", (N + "/versions") % v["id"]), fx_versioned)],
        ("GET", "/api/v1/nodes/{id}/versions/{vid}/content"): [
            Case(lambda v, w: J("GET", (N + "/versions/%s/content") % (v["id"], v["vid"])), fx_versioned,
                 cross=("vid",))],
        ("POST", "/api/v1/nodes/{id}/versions/{vid}/restore"): [
            Case(lambda v, w: J("POST", (N + "/versions/%s/restore") % (v["id"], v["vid"]), {}), fx_versioned,
                 cross=("vid",))],
        ("DELETE", "/api/v1/nodes/{id}/versions/{vid}"): [
            Case(lambda v, w: J("DELETE", (N + "/versions/%s") % (v["id"], v["vid"])), fx_versioned,
                 cross=("vid",))],
        # --- tus (an upload belongs to the account that created it)
        ("OPTIONS", "/api/v1/uploads/tus"): [Case(lambda v, w: R("OPTIONS", TUS, {}, b""))],
        ("POST", "/api/v1/uploads/tus"): [
            Case(lambda v, w: R("POST", TUS, dict(TUS_V, **{
                "Upload-Length": "3", "Upload-Metadata": tus_meta(filename="tus-new.txt", parent_id=v["id"])}), b""),
                fx_folder, "into a folder"),
            Case(lambda v, w: R("POST", TUS, dict(TUS_V, **{
                "Upload-Length": "3", "Content-Type": "application/offset+octet-stream",
                "Upload-Metadata": tus_meta(filename="tus-with.txt", parent_id=v["id"])}), b"xyz"),
                fx_folder, "with the bytes")],
        ("GET", "/api/v1/uploads/delta/params"): [Case(lambda v, w: J("GET", "/api/v1/uploads/delta/params"))],
        ("POST", "/api/v1/uploads/delta"): [
            Case(lambda v, w: J("POST", "/api/v1/uploads/delta", {
                "name": "empty.bin", "parent_id": v["id"], "size": 0, "hash": EMPTY_BLAKE3, "chunks": []}),
                fx_folder)],
        ("GET", "/api/v1/uploads/delta/{id}"): [
            Case(lambda v, w: J("GET", "/api/v1/uploads/delta/" + v["id"]), fx_delta)],
        ("PUT", "/api/v1/uploads/delta/{id}/chunks/{hash}"): [
            Case(lambda v, w: R("PUT", "/api/v1/uploads/delta/%s/chunks/%s" % (v["id"], v["chunk"]), {},
                                v["_data"].encode()), fx_delta)],
        ("POST", "/api/v1/uploads/delta/{id}/commit"): [
            Case(lambda v, w: J("POST", "/api/v1/uploads/delta/%s/commit" % v["id"], {}), fx_delta_ready)],
        ("DELETE", "/api/v1/uploads/delta/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/uploads/delta/" + v["id"]), fx_delta)],
        ("GET", "/api/v1/nodes/{id}/manifest"): [Case(lambda v, w: J("GET", (N + "/manifest") % v["id"]), fx_file)],
        ("HEAD", "/api/v1/uploads/tus/{id}"): [
            Case(lambda v, w: R("HEAD", TUS + "/" + v["id"], TUS_V, b""), fx_tus)],
        ("PATCH", "/api/v1/uploads/tus/{id}"): [
            Case(lambda v, w: R("PATCH", TUS + "/" + v["id"], dict(TUS_V, **{
                "Upload-Offset": "3", "Content-Type": "application/offset+octet-stream"}), b"def"), fx_tus)],
        ("DELETE", "/api/v1/uploads/tus/{id}"): [
            Case(lambda v, w: R("DELETE", TUS + "/" + v["id"], TUS_V, b""), fx_tus)],
        ("GET", "/api/v1/nodes/{id}"): [Case(lambda v, w: J("GET", N % v["id"]), fx_file)],
        ("PATCH", "/api/v1/nodes/{id}"): [
            Case(lambda v, w: J("PATCH", N % v["id"], {"name": "renamed.txt"}), fx_file, "rename"),
            Case(lambda v, w: with_headers(J("PATCH", N % v["id"], {"name": "renamed.txt"}), {"If-Match": v["_etag"]}),
                 fx_file, "rename if the ETag matches"),
            Case(lambda v, w: J("PATCH", N % v["id"], {"name": "moved.txt", "parent_id": v["parent"]}),
                 fx_file_and_dest, "move", cross=("parent",), needs="move")],
        ("DELETE", "/api/v1/nodes/{id}"): [
            Case(lambda v, w: J("DELETE", N % v["id"]), fx_file, "to the trash"),
            Case(lambda v, w: J("DELETE", (N + "?permanent=true") % v["id"]), fx_file, "permanently"),
            Case(lambda v, w: with_headers(J("DELETE", N % v["id"]), {"If-Match": v["_etag"]}), fx_file,
                 "if the ETag matches")],
        ("GET", "/api/v1/nodes/{id}/children"): [
            Case(lambda v, w: J("GET", (N + "/children?sort=name&order=asc&limit=10") % v["id"]),
                 fx_folder_with_file)],
        ("GET", "/api/v1/nodes/{id}/content"): [
            Case(lambda v, w: J("GET", (N + "/content") % v["id"]), fx_file, "GET"),
            Case(lambda v, w: J("HEAD", (N + "/content") % v["id"]), fx_file, "HEAD")],
        ("GET", "/api/v1/nodes/{id}/thumbnail"): [
            Case(lambda v, w: J("GET", (N + "/thumbnail?size=small") % v["id"]), fx_image, "small", ok=is_webp),
            Case(lambda v, w: J("GET", (N + "/thumbnail?size=large") % v["id"]), fx_image, "large", ok=is_webp)],
        ("POST", "/api/v1/nodes/{id}/copy"): [
            Case(lambda v, w: J("POST", (N + "/copy") % v["id"], {"parent_id": v["parent"], "name": "copy.txt"}),
                 fx_file_and_dest, cross=("parent",))],
        ("PUT", "/api/v1/nodes/{id}/files/{name}"): [
            Case(lambda v, w: R("PUT", (N + "/files/new.txt") % v["id"], {"Content-Type": "text/plain"},
                                b"new bytes"), fx_folder)],
        ("POST", "/api/v1/nodes/{id}/folders"): [
            Case(lambda v, w: J("POST", (N + "/folders") % v["id"], {"name": "sub"}), fx_folder)],
        ("POST", "/api/v1/nodes/{id}/instant"): [
            # Content both users store: only the folder is someone else's.
            Case(lambda v, w: J("POST", (N + "/instant") % v["id"],
                                {"name": "instant.txt", "hash": w.common_hash}), fx_folder, "content both store"),
            # Content only the owner stores: Bob must not learn it exists.
            Case(lambda v, w: J("POST", (N + "/instant") % v["id"], {"name": "instant.txt", "hash": v["hash"]}),
                 fx_instant_own, "content only the owner stores", cross=("hash",), needs="instant_owner_only")],
        ("POST", "/api/v1/nodes/{id}/restore"): [
            Case(lambda v, w: J("POST", (N + "/restore") % v["id"], {}), fx_trashed),
            Case(lambda v, w: with_headers(J("POST", (N + "/restore") % v["id"], {}), {"If-Match": "*"}), fx_trashed,
                 "with If-Match")],
        ("POST", "/api/v1/nodes/{id}/upload"): [
            Case(lambda v, w: R("POST", (N + "/upload") % v["id"], *multipart("up.txt", b"uploaded")),
                 fx_folder, ok=upload_ok)],
        ("GET", "/api/v1/nodes/{id}/zip"): [Case(lambda v, w: J("GET", (N + "/zip") % v["id"]), fx_folder_with_file)],
        ("GET", "/api/v1/trash"): [Case(lambda v, w: J("GET", "/api/v1/trash?limit=50"), fx_trashed_internal)],
        ("DELETE", "/api/v1/trash"): [Case(lambda v, w: J("DELETE", "/api/v1/trash"), fx_trashed_internal)],
        ("POST", "/api/v1/batch"): [
            Case(batch("move", ("a",), parent=True), fx_file_folder_dest, "move", cross=("parent",),
                 none=batch_refused, ok=batch_ok, needs="move"),
            Case(batch("copy", ("a", "b"), parent=True), fx_file_folder_dest, "copy", cross=("parent",),
                 none=batch_refused, ok=batch_ok, needs="copy"),
            Case(batch("trash", ("a", "b")), fx_two_files, "trash", cross=("b",), none=batch_refused, ok=batch_ok,
                 needs="delete"),
            Case(batch("restore", ("a", "b")), fx_two_trashed, "restore", none=batch_refused, ok=batch_ok,
                 needs="restore"),
            Case(batch("delete", ("a", "b")), fx_two_files, "delete", cross=("b",), none=batch_refused,
                 ok=batch_ok, needs="delete")],
        ("GET", "/api/v1/favorites"): [Case(lambda v, w: J("GET", "/api/v1/favorites?limit=50"))],
        ("PUT", "/api/v1/favorites/{id}"): [Case(lambda v, w: J("PUT", "/api/v1/favorites/%s" % v["id"]), fx_file)],
        ("DELETE", "/api/v1/favorites/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/favorites/%s" % v["id"]), fx_favorite)],
        ("GET", "/api/v1/recent"): [Case(lambda v, w: J("GET", "/api/v1/recent?limit=20"))],
        ("GET", "/api/v1/zip"): [
            Case(lambda v, w: J("GET", "/api/v1/zip?ids=%s,%s" % (v["a"], v["b"])), fx_zip, cross=("b",))],
        ("GET", "/api/v1/search"): [
            Case(lambda v, w: J("GET", "/api/v1/search?q=%s&limit=20" % q(v["q"])), fx_search, none=search_empty)],
        ("GET", "/api/v1/search/content"): [
            Case(lambda v, w: J("GET", "/api/v1/search/content?q=%s&limit=20" % q(v["q"])), fx_content_search,
                 none=search_empty, ok=content_found)],
        ("GET", "/api/v1/photos"): [
            Case(lambda v, w: J("GET", "/api/v1/photos?limit=50"), fx_photo, none=photos_listed("items", False),
                 ok=photos_listed("items"))],
        ("GET", "/api/v1/photos/months"): [
            Case(lambda v, w: J("GET", "/api/v1/photos/months"), fx_photo, none=photos_listed("months", False),
                 ok=photos_listed("months"))],
        ("GET", "/api/v1/photos/places"): [
            Case(lambda v, w: J("GET", "/api/v1/photos/places?cell=1"), fx_photo, none=photos_listed("places", False),
                 ok=photos_listed("places"))],
        ("GET", "/api/v1/music/artists"): [
            Case(lambda v, w: J("GET", "/api/v1/music/artists?limit=500"), fx_music,
                 none=photos_listed("items", False), ok=photos_listed("items"))],
        ("GET", "/api/v1/music/albums"): [
            Case(lambda v, w: J("GET", "/api/v1/music/albums?artist=%s" % q(v["artist"])), fx_music,
                 none=photos_listed("items", False), ok=photos_listed("items"))],
        ("GET", "/api/v1/music/tracks"): [
            Case(lambda v, w: J("GET", "/api/v1/music/tracks?artist=%s&album=%s" % (q(v["artist"]), q(v["album"]))),
                 fx_music, none=photos_listed("items", False), ok=photos_listed("items"))],
        # Playlists are their owner's alone: Bob lists and makes his own.
        ("GET", "/api/v1/playlists"): [Case(lambda v, w: J("GET", "/api/v1/playlists"), internal(fx_playlist))],
        ("POST", "/api/v1/playlists"): [
            Case(lambda v, w: J("POST", "/api/v1/playlists", {"name": w.prefix + " new list"}),
                 internal(fx_playlist))],
        ("GET", "/api/v1/playlists/{id}"): [
            Case(lambda v, w: J("GET", "/api/v1/playlists/%s" % v["id"]), fx_playlist)],
        ("PATCH", "/api/v1/playlists/{id}"): [
            Case(lambda v, w: J("PATCH", "/api/v1/playlists/%s" % v["id"], {"name": "renamed list"}), fx_playlist)],
        ("DELETE", "/api/v1/playlists/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/playlists/%s" % v["id"]), fx_playlist)],
        ("PUT", "/api/v1/playlists/{id}/items"): [
            Case(lambda v, w: J("PUT", "/api/v1/playlists/%s/items" % v["id"], {"items": [v["node"]]}),
                 fx_playlist_and_file, "her playlist", cross=("node",)),
            # One's own playlist (made in test_matrix) with her file: a
            # recipient puts a file it may read there.
            Case(lambda v, w: J("PUT", "/api/v1/playlists/%s/items" % w.playlist, {"items": [v["id"]]}), fx_file,
                 "her file into one's own playlist", needs="read")],
        ("GET", "/api/v1/playlists/{id}/m3u8"): [
            Case(lambda v, w: J("GET", "/api/v1/playlists/%s/m3u8" % v["id"]), fx_playlist, ok=m3u8_lists)],
        # Lines are paths below the caller's own root: the caller's own file,
        # and her sentinel file's path, which names something in Alice's
        # drive alone (anyone else's import counts it "missing").
        ("POST", "/api/v1/playlists/import"): [
            Case(lambda v, w: R("POST", "/api/v1/playlists/import?name=%s" % q(w.prefix + " imported"),
                                {"Content-Type": "audio/x-mpegurl"},
                                ("#EXTM3U\n#EXTINF:1,mine\n%s\n%s/%s.txt\n" % (v["_path"], SECRET, SECRET)).encode()),
                 fx_playlist_import, ok=imported)],
        # --- sharing
        ("GET", "/api/v1/groups"): [Case(lambda v, w: J("GET", "/api/v1/groups?limit=50"))],
        ("GET", "/api/v1/groups/{id}"): [Case(lambda v, w: J("GET", "/api/v1/groups/%s" % v["id"]), fx_group_with)],
        ("POST", "/api/v1/groups"): [
            Case(lambda v, w: J("POST", "/api/v1/groups", {"name": v["_new"]}), fx_new_username)],
        ("PATCH", "/api/v1/groups/{id}"): [
            Case(lambda v, w: J("PATCH", "/api/v1/groups/%s" % v["id"], {"name": "renamed %s" % v["id"][-8:]}),
                 fx_group_with)],
        ("DELETE", "/api/v1/groups/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/groups/%s" % v["id"]), fx_group_with)],
        ("POST", "/api/v1/groups/{id}/members"): [
            Case(lambda v, w: J("POST", "/api/v1/groups/%s/members" % v["id"], {"user": v["name"]}),
                 fx_group_target)],
        ("DELETE", "/api/v1/groups/{id}/members/users/{name}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/groups/%s/members/users/%s" % (v["id"], v["name"])),
                 fx_group_member_user)],
        ("DELETE", "/api/v1/groups/{id}/members/groups/{member}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/groups/%s/members/groups/%s" % (v["id"], v["member"])),
                 fx_group_member_group)],
        ("GET", "/api/v1/nodes/{id}/grants"): [Case(lambda v, w: J("GET", (N + "/grants") % v["id"]), fx_file)],
        ("POST", "/api/v1/nodes/{id}/grants"): [
            Case(lambda v, w: J("POST", (N + "/grants") % v["id"], {"user": v["_grantee"], "role": "editor"}),
                 fx_file_grantee)],
        ("PATCH", "/api/v1/grants/{id}"): [
            Case(lambda v, w: J("PATCH", "/api/v1/grants/%s" % v["id"], {"role": "editor"}), fx_grant)],
        ("DELETE", "/api/v1/grants/{id}"): [Case(lambda v, w: J("DELETE", "/api/v1/grants/%s" % v["id"]), fx_grant)],
        ("GET", "/api/v1/nodes/{id}/links"): [Case(lambda v, w: J("GET", (N + "/links") % v["id"]), fx_folder)],
        ("POST", "/api/v1/nodes/{id}/links"): [
            Case(lambda v, w: J("POST", (N + "/links") % v["id"], {"role": "view", "label": "matrix"}), fx_folder)],
        ("PATCH", "/api/v1/links/{id}"): [
            Case(lambda v, w: J("PATCH", "/api/v1/links/%s" % v["id"], {"label": "changed"}), fx_link)],
        ("DELETE", "/api/v1/links/{id}"): [Case(lambda v, w: J("DELETE", "/api/v1/links/%s" % v["id"]), fx_link)],
        ("GET", "/api/v1/sharees"): [Case(lambda v, w: J("GET", "/api/v1/sharees?q=a&limit=5"))],
        ("GET", "/api/v1/shared-with-me"): [Case(lambda v, w: J("GET", "/api/v1/shared-with-me?limit=50"))],
        ("PUT", "/api/v1/shared-with-me/{id}"): [
            Case(lambda v, w: J("PUT", "/api/v1/shared-with-me/%s" % v["id"], {"hidden": True}), fx_share_to_her,
                 "removed from her tree")],
        ("GET", "/api/v1/shared-by-me"): [Case(lambda v, w: J("GET", "/api/v1/shared-by-me?limit=50"))],
        # --- the account itself
        ("GET", "/api/v1/me"): [Case(lambda v, w: J("GET", "/api/v1/me"))],
        ("PATCH", "/api/v1/me"): [Case(lambda v, w: J("PATCH", "/api/v1/me", {"display_name": w.prefix + " name"}))],
        ("POST", "/api/v1/me/password"): [
            Case(lambda v, w: J("POST", "/api/v1/me/password",
                                {"current_password": w.password, "new_password": w.password}))],
        ("GET", "/api/v1/me/app-passwords"): [Case(lambda v, w: J("GET", "/api/v1/me/app-passwords"))],
        ("POST", "/api/v1/me/app-passwords"): [
            Case(lambda v, w: J("POST", "/api/v1/me/app-passwords", {"label": w.prefix + " phone",
                                                                      "scopes": ["files"]}))],
        ("DELETE", "/api/v1/me/app-passwords/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/me/app-passwords/%s" % v["id"]), fx_app_password)],
        ("GET", "/api/v1/me/sessions"): [Case(lambda v, w: J("GET", "/api/v1/me/sessions"))],
        ("DELETE", "/api/v1/me/sessions/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/me/sessions/%s" % v["id"]), fx_session)],
        ("POST", "/api/v1/auth/logout"): [Case(lambda v, w: J("POST", "/api/v1/auth/logout"), session=True)],
        # --- administration (the owner is an administrator; ids name a fresh user)
        ("GET", "/api/v1/admin/settings"): [Case(lambda v, w: J("GET", "/api/v1/admin/settings"))],
        ("PATCH", "/api/v1/admin/settings"): [
            Case(lambda v, w: J("PATCH", "/api/v1/admin/settings", {"registration": False}), fx_registration_open)],
        ("GET", "/api/v1/admin/users"): [Case(lambda v, w: J("GET", "/api/v1/admin/users?limit=10&q=a"))],
        ("POST", "/api/v1/admin/users"): [
            Case(lambda v, w: J("POST", "/api/v1/admin/users", {"username": v["_new"], "password": "made password 1",
                                                               "display_name": "Made"}), fx_new_username)],
        ("PATCH", "/api/v1/admin/users/{name}"): [
            Case(lambda v, w: J("PATCH", "/api/v1/admin/users/%s" % v["name"],
                                {"quota_bytes": 10000000, "active": True}), fx_target)],
        ("GET", "/api/v1/admin/users/{name}/app-passwords"): [
            Case(lambda v, w: J("GET", "/api/v1/admin/users/%s/app-passwords" % v["name"]), fx_target)],
        ("DELETE", "/api/v1/admin/users/{name}/app-passwords/{id}"): [
            Case(lambda v, w: J("DELETE", "/api/v1/admin/users/%s/app-passwords/%s" % (v["name"], v["id"])),
                 fx_target_app)],
        ("POST", "/api/v1/admin/users/{name}/password"): [
            Case(lambda v, w: J("POST", "/api/v1/admin/users/%s/password" % v["name"],
                                {"password": "reset password 1"}), fx_target)],
        ("DELETE", "/api/v1/admin/users/{name}/sessions"): [
            Case(lambda v, w: J("DELETE", "/api/v1/admin/users/%s/sessions" % v["name"]), fx_target)],
        ("GET", "/api/v1/admin/jobs"): [Case(lambda v, w: J("GET", "/api/v1/admin/jobs"))],
    }
    # The files tree of the Nextcloud layout: the caller's own name in the
    # path (another name answers like a path that does not exist).
    for mount, pattern in (("/dav", "/dav"), ("/webdav", "/webdav"), ("/remote.php/webdav", "/remote.php/webdav"),
                           ("/remote.php/dav/files/{user}", "/remote.php/dav/files/{user}")):
        for method, cases in dav_cases(mount).items():
            ex[(method, pattern + "/{path...}")] = cases
    for method, cases in groupdav_cases().items():
        ex[(method, "/remote.php/dav/{path...}")] = cases
    for method, cases in dav_cases("/dav-drives", tree="drive").items():
        ex[(method, "/dav-drives/{drive}/{path...}")] = cases
    for method, cases in dav_cases("/dav-shares", tree="share").items():
        ex[(method, "/dav-shares/{node}/{path...}")] = cases
    for method, cases in dav_cases("/dav", tree="mount").items():
        ex[(method, "/dav/{path...}")] = ex[(method, "/dav/{path...}")] + cases
    for method, cases in nc_upload_cases().items():
        ex[(method, "/remote.php/dav/uploads/{user}/{path...}")] = cases
    ex[("POST", "/remote.php/dav/bulk")] = nc_bulk_cases()
    for method, cases in nc_trash_cases().items():
        ex[(method, "/remote.php/dav/trashbin/{user}/{path...}")] = cases
    for method, cases in nc_versions_cases().items():
        ex[(method, "/remote.php/dav/versions/{user}/{path...}")] = cases
    ex.update(nc_cases())
    return ex


# ---- Comparing answers -----------------------------------------------------

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DAV_KEYS = ("path", "dir", "dest")
VOLATILE_HEADERS = {"date", "x-request-id", "content-length", "connection", "keep-alive"}


def rand(alphabet, n):
    return "".join(random.choice(alphabet) for _ in range(n))


def forge(v):
    """Values of the same shape as `v`'s that name nothing."""
    out, memo = {}, {}
    for k, x in v.items():
        if k.startswith("_"):
            out[k] = x
        elif UUID.fullmatch(x):
            out[k] = x[:-12] + rand("0123456789abcdef", 12)
        elif x.startswith("urn:uuid:") and UUID.fullmatch(x[9:]):
            out[k] = x[:-12] + rand("0123456789abcdef", 12)
        elif x.isdigit():
            out[k] = str(int(x) + 1000000)
        elif re.fullmatch(r"[0-9a-f]{64}", x):
            out[k] = rand("0123456789abcdef", 64)
        elif k in DAV_KEYS:
            segs = []
            for s in x.split("/"):
                if s not in memo:
                    ext = s[s.rfind("."):] if "." in s else ""
                    memo[s] = "nowhere-" + rand("0123456789abcdef", 8) + ext
                segs.append(memo[s])
            out[k] = "/".join(segs)
        else:
            out[k] = "zz" + rand(string.ascii_lowercase, max(len(x) - 2, 4))
    return out


def encodings(s):
    forms = {s, urllib.parse.quote(s, safe="/"), urllib.parse.quote(s, safe=""),
             json.dumps(s)[1:-1], json.dumps(s, ensure_ascii=False)[1:-1],
             s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")}
    for f in list(forms):
        forms.add(re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), f))
    return forms


def normalize(body, v):
    """Replaces the values the request carried (echoes of what the caller
    sent are no leak) by their key, in every encoding, longest first."""
    subs = []
    for k, x in v.items():
        if k.startswith("_") or len(x) < 8:
            continue
        for e in encodings(x):
            subs.append((e.encode(), ("<%s>" % k).encode()))
        if k in DAV_KEYS:
            for i, seg in enumerate(x.split("/")):
                if len(seg) >= 8:
                    for e in encodings(seg):
                        subs.append((e.encode(), ("<%s.%d>" % (k, i)).encode()))
    for old, new in sorted(subs, key=lambda p: -len(p[0])):
        body = body.replace(old, new)
    return body


def answer(resp, v):
    status, headers, body = resp
    names = tuple(sorted(h for h in headers if h not in VOLATILE_HEADERS))
    return status, headers.get("content-type", ""), names, normalize(body, v)


VOLATILE_FIELDS = [(re.compile(rb'"last_used_at":(null|\d+)'), b'"last_used_at":_'),
                   (re.compile(rb"Second-\d+"), b"Second-_")]


# ---- Roles and credentials -------------------------------------------------
#
# A role is what the actor is to Alice's resource; the matrix runs every role
# for every route, in this order (roles that must leave Alice's data alone
# first; the owner last, whose request may delete the fixture). The sharing
# roles follow NEEDS; public links will add "link" here.

Role = namedtuple("Role", "name check keeps_alices_data")


def role_none(t, key, access, case, v):
    t.expect_stranger(key, access, case, v)


def role_owner(t, key, access, case, v):
    t.expect_owner(key, access, case, v)


# What a share's recipient must hold on Alice's resources for each route's
# example to succeed (a Case may say otherwise, e.g. a move). The fixtures
# lie below Alice's work folder, which the sharing roles are granted on.
#   an action set  -> every action needed (see NEED_ACTIONS)
#   "own"          -> the route names nothing of Alice's: covered by "none"
#   "admin"        -> an administrator's route: 403 for everyone else
#   "hidden"       -> recipients cannot reach it this way (WebDAV paths name
#                     the caller's own drive; groups they are not in; the
#                     photos timeline and the music library cover the
#                     caller's own drives, not grants; another's playlists):
#                     the answer of an unknown id
#   "search"       -> search covers what the caller may read: the fixture's
#                     file for a recipient who may read it, else nothing
#   "manage_or_hidden" -> manage on the grant's or link's node, else hidden
#   "instant_owner_only" -> create, then 404: only the caller's own content
#   "refused"      -> refused (4xx) to every recipient, Alice's data unchanged
# A route without a row fails the test.
NEED_ACTIONS = {
    "read": {"read"}, "list": {"list"}, "create": {"create"}, "delete": {"delete"}, "share": {"share"},
    "rename": {"modify", "delete"}, "move": {"delete", "create"}, "copy": {"read", "create"},
    "restore": {"delete", "create"}, "modify": {"modify"},
}
NEEDS = {
    ("GET", "/api/v1/nodes/{id}"): "read",
    ("PATCH", "/api/v1/nodes/{id}"): "rename",
    ("DELETE", "/api/v1/nodes/{id}"): "delete",
    ("GET", "/api/v1/nodes/{id}/children"): "list",
    ("GET", "/api/v1/nodes/{id}/content"): "read",
    ("GET", "/api/v1/nodes/{id}/thumbnail"): "read",
    ("POST", "/api/v1/nodes/{id}/copy"): "copy",
    ("PUT", "/api/v1/nodes/{id}/files/{name}"): "create",
    ("POST", "/api/v1/nodes/{id}/folders"): "create",
    ("POST", "/api/v1/nodes/{id}/instant"): "create",
    ("POST", "/api/v1/nodes/{id}/restore"): "restore",
    ("POST", "/api/v1/nodes/{id}/upload"): "create",
    ("GET", "/api/v1/nodes/{id}/zip"): "read",
    ("GET", "/api/v1/trash"): "own",
    ("DELETE", "/api/v1/trash"): "own",
    ("POST", "/api/v1/batch"): None,  # every example says
    ("GET", "/api/v1/favorites"): "own",
    ("PUT", "/api/v1/favorites/{id}"): "read",
    ("DELETE", "/api/v1/favorites/{id}"): "read",
    ("GET", "/api/v1/recent"): "own",
    ("GET", "/api/v1/zip"): "read",
    ("GET", "/api/v1/search"): "search",
    ("GET", "/api/v1/search/content"): "search",
    # The photos timeline covers the caller's own drive and the shared
    # drives it is a member of, never what a grant gives (by design): a
    # recipient finds nothing of Alice's there, like Bob.
    ("GET", "/api/v1/photos"): "hidden",
    ("GET", "/api/v1/photos/months"): "hidden",
    ("GET", "/api/v1/photos/places"): "hidden",
    # So does the music library.
    ("GET", "/api/v1/music/artists"): "hidden",
    ("GET", "/api/v1/music/albums"): "hidden",
    ("GET", "/api/v1/music/tracks"): "hidden",
    # Playlists are their owner's alone: another's answers like an unknown
    # id (one's own with her file: its example says).
    ("GET", "/api/v1/playlists"): "own",
    ("POST", "/api/v1/playlists"): "own",
    ("POST", "/api/v1/playlists/import"): "own",
    ("GET", "/api/v1/playlists/{id}"): "hidden",
    ("PATCH", "/api/v1/playlists/{id}"): "hidden",
    ("DELETE", "/api/v1/playlists/{id}"): "hidden",
    ("PUT", "/api/v1/playlists/{id}/items"): "hidden",
    ("GET", "/api/v1/playlists/{id}/m3u8"): "hidden",
    ("GET", "/api/v1/drives"): "own",
    ("POST", "/api/v1/drives"): "own",
    # A grant on a folder gives nothing in someone's shared drive.
    ("PATCH", "/api/v1/drives/{id}"): "hidden",
    ("DELETE", "/api/v1/drives/{id}"): "hidden",
    ("GET", "/api/v1/drives/{id}/members"): "hidden",
    ("POST", "/api/v1/drives/{id}/members"): "hidden",
    ("DELETE", "/api/v1/drives/{id}/members/users/{name}"): "hidden",
    ("DELETE", "/api/v1/drives/{id}/members/groups/{member}"): "hidden",
    ("GET", "/api/v1/me/usage"): "own",
    ("GET", "/api/v1/nodes/{id}/versions"): "read",
    ("GET", "/api/v1/nodes/{id}/versions/{vid}/content"): "read",
    ("POST", "/api/v1/nodes/{id}/versions/{vid}/restore"): "modify",
    ("DELETE", "/api/v1/nodes/{id}/versions/{vid}"): "modify",
    ("OPTIONS", "/api/v1/uploads/tus"): "own",
    ("GET", "/api/v1/uploads/delta/params"): "own",
    ("POST", "/api/v1/uploads/delta"): "create",
    ("GET", "/api/v1/uploads/delta/{id}"): "hidden",
    ("PUT", "/api/v1/uploads/delta/{id}/chunks/{hash}"): "hidden",
    ("POST", "/api/v1/uploads/delta/{id}/commit"): "hidden",
    ("DELETE", "/api/v1/uploads/delta/{id}"): "hidden",
    ("GET", "/api/v1/nodes/{id}/manifest"): "read",
    ("POST", "/api/v1/uploads/tus"): "create",
    # Uploads are the account's own: nobody else reaches them.
    ("HEAD", "/api/v1/uploads/tus/{id}"): "hidden",
    ("PATCH", "/api/v1/uploads/tus/{id}"): "hidden",
    ("DELETE", "/api/v1/uploads/tus/{id}"): "hidden",
    ("GET", "/api/v1/groups"): "own",
    ("GET", "/api/v1/groups/{id}"): "hidden",
    ("GET", "/api/v1/nodes/{id}/grants"): "share",
    ("POST", "/api/v1/nodes/{id}/grants"): "share",
    ("PATCH", "/api/v1/grants/{id}"): "manage_or_hidden",
    ("DELETE", "/api/v1/grants/{id}"): "manage_or_hidden",
    ("GET", "/api/v1/nodes/{id}/links"): "share",
    ("POST", "/api/v1/nodes/{id}/links"): "share",
    ("PATCH", "/api/v1/links/{id}"): "manage_or_hidden",
    ("DELETE", "/api/v1/links/{id}"): "manage_or_hidden",
    ("GET", "/api/v1/sharees"): "own",
    ("GET", "/api/v1/shared-with-me"): "own",
    # A share made to Alice alone: nobody else reaches it.
    ("PUT", "/api/v1/shared-with-me/{id}"): "hidden",
    ("GET", "/api/v1/shared-by-me"): "own",
    ("GET", "/api/v1/me"): "own",
    ("POST", "/api/v1/auth/logout"): "own",
    # The Nextcloud client API: the caller's own account (an avatar is
    # drawn from the name alone); another user is not there (hidden).
    ("GET", "/index.php/avatar/{user}/{size}"): "own",
    ("GET", "/avatar/{user}/{size}"): "own",
    # A preview by file id reaches Alice's file as the role allows (like
    # the versions tree); by path it names the caller's own tree, where a
    # received share appears under the shared folder's name (Alice's work
    # folder for the sharing roles).
    ("GET", "/index.php/core/preview"): "read",
    ("GET", "/index.php/core/preview.png"): "read",
}
for _v in ("/ocs/v1.php", "/ocs/v2.php"):
    NEEDS.update({
        ("GET", _v + "/cloud/user"): "own",
        ("GET", _v + "/cloud/users/{id}"): "hidden",
        ("GET", _v + "/apps/notifications/api/v2/notifications"): "own",
        ("GET", _v + "/apps/activity/api/v2/activity"): "own",
        ("GET", _v + "/apps/activity/api/v2/activity/{filter}"): "own",
        ("GET", _v + "/core/getapppassword"): "own",
        ("DELETE", _v + "/core/apppassword"): "own",
        # The sharing API: listings of one's own (the listing by path
        # says "share" in its example); POST names an item by its path in
        # the caller's own tree, where Alice's work folder is a received
        # share of the sharing roles: sharing it needs share; PUT and DELETE
        # name a grant or link like PATCH and DELETE /api/v1/grants|links/{id}.
        ("GET", _v + OCS_SHARES): "own",
        ("POST", _v + OCS_SHARES): "share",
        ("PUT", _v + OCS_SHARES + "/{id}"): "manage_or_hidden",
        ("DELETE", _v + OCS_SHARES + "/{id}"): "manage_or_hidden",
        ("GET", _v + OCS_SHAREES): "own",
    })
ALL = {"read", "list", "create", "modify", "delete", "share", "manage"}
EDITOR = {"read", "list", "create", "modify", "delete"}
# The sharing roles: who (set up in test_matrix) and what they hold on
# everything below Alice's work folder (None: nothing, the grant is gone).
SHARING_ROLES = {"viewer": {"read", "list"}, "editor": EDITOR, "manager": ALL,
                 "group-editor": EDITOR, "expired": None, "revoked": None}


def needs_of(key, access, case):
    if access == "admin":
        return "admin"
    if case.needs:
        return case.needs
    if key[1].startswith(DAV_TREES):
        return "hidden"
    if access == "account":
        return "own"
    need = case.needs or NEEDS.get(key)
    assert need, "%s %s %s: no row in NEEDS (what must a share's recipient hold?)" % (key[0], key[1], case.label)
    return need


def sharing_role(name):
    def check(t, key, access, case, v):
        t.expect_recipient(name, key, access, case)
    # Alice's data is compared around the recipient's own request (each
    # role gets a fresh fixture), see expect_recipient.
    return Role(name, check, False)


ROLES = ([Role("none", role_none, True)] + [sharing_role(n) for n in SHARING_ROLES] +
         [Role("owner", role_owner, False)])

# Credentials of the owner beyond the account password (Basic): a session
# (Bearer) and an app password.
CREDENTIALS = ("session", "app-password")


class AuthzMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Users may create shared drives here, so Alice (no administrator)
        # owns drive examples of her own.
        cls.srv = Server(env=dict(FAST, NUBO_USERS_CREATE_DRIVES="true"))

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()

    # ---- plumbing

    def send(self, auth, r):
        h = dict(r.headers)
        h.update(auth or {})
        self.requests += 1
        return exchange(self.srv, r.method, r.path, h, r.body)

    def api(self, who, method, path, obj=None, raw=None, expect=200, headers=None):
        r = J(method, path, obj) if raw is None else R(method, path, headers or {}, raw)
        status, _, data = self.send(who.auth, r)
        self.assertEqual(status, expect, "%s %s: %r" % (method, path, data[:300]))
        return json.loads(data) if data else None

    def n(self):
        self.counter += 1
        return self.counter

    def probe(self, who, method, path, headers=None, body=b""):
        self.probes.append((who, R(method, path, headers or {}, body)))

    def box(self, who, parent=None, name=None):
        parent = parent or self.work[who.name]
        node = self.api(who, "POST", "/api/v1/nodes/%s/folders" % parent,
                        {"name": name or "%s-%d" % (who.prefix, self.n())}, expect=201)
        self.probe(who, "GET", "/api/v1/nodes/%s" % node["id"])
        self.probe(who, "GET", "/api/v1/nodes/%s/children?limit=500" % node["id"])
        return node["id"]

    def put(self, who, parent, name, data):
        node = self.api(who, "PUT", "/api/v1/nodes/%s/files/%s" % (parent, q(name)), raw=data, expect=201)
        self.probe(who, "GET", "/api/v1/nodes/%s" % node["id"])
        self.probe(who, "GET", "/api/v1/nodes/%s/content" % node["id"])
        return node

    def trash(self, who, node_id):
        self.api(who, "DELETE", "/api/v1/nodes/%s" % node_id, expect=204)

    def login(self, who):
        status, _, data = self.send({"User-Agent": who.ua}, J("POST", "/api/v1/auth/login", {
            "username": who.name, "password": who.password}))
        self.assertEqual(status, 200, data)
        t = json.loads(data)
        return {"Authorization": "Bearer " + t["access_token"]}, t["session_id"]

    def app_password(self, who):
        app = self.api(who, "POST", "/api/v1/me/app-passwords", {"label": who.prefix + " sync"}, expect=201)
        return basic(who.name, app["password"])

    def new_user(self):
        u = Actor("target%d" % self.n(), "target password 1", "target")
        self.api(self.admin, "POST", "/api/v1/admin/users", {"username": u.name, "password": u.password},
                 expect=201)
        self.users[u.name] = u
        return u

    def dav_lock(self, who, path, mount="/dav"):
        status, hdrs, data = self.send(who.auth, R("LOCK", dav_url(mount, path),
                                                   dict(XML, Depth="0", Timeout="Second-600"), LOCKINFO))
        self.assertIn(status, (200, 201), data)
        return hdrs["lock-token"].strip("<>")

    def setup_recipients(self):
        """The sharing roles' actors, each granted (or once granted) on
        Alice's work folder; each stores COMMON in its own drive."""
        work = self.work["alice"]
        self.recipients = {}
        outer = self.api(self.admin, "POST", "/api/v1/groups", {"name": "matrix outer"}, expect=201)
        inner = self.api(self.admin, "POST", "/api/v1/groups", {"name": "matrix inner"}, expect=201)
        self.api(self.admin, "POST", "/api/v1/groups/%s/members" % outer["id"], {"group": inner["id"]}, expect=204)
        # Alice shares with her own group (sharee search "groups").
        self.api(self.admin, "POST", "/api/v1/groups/%s/members" % outer["id"], {"user": "alice"}, expect=204)
        for role in SHARING_ROLES:
            who = Actor("r-" + role, "recipient password 1", "r-" + role)
            self.api(self.admin, "POST", "/api/v1/admin/users", {"username": who.name, "password": who.password},
                     expect=201)
            root = self.api(who, "GET", "/api/v1/drives")["drives"][0]["root_id"]
            who.common_hash = self.api(who, "PUT", "/api/v1/nodes/%s/files/common.bin" % root, raw=COMMON,
                                       expect=201)["hash"]
            who.playlist = self.api(who, "POST", "/api/v1/playlists", {"name": who.prefix + " own list"},
                                    expect=201)["id"]
            self.recipients[role] = who
            grant = {"user": who.name}
            if role == "group-editor":
                self.api(self.admin, "POST", "/api/v1/groups/%s/members" % inner["id"], {"user": who.name},
                         expect=204)
                grant = {"group": outer["id"]}
            grant["role"] = {"viewer": "viewer", "manager": "manager"}.get(role, "editor")
            if role == "expired":
                grant["expires_at"] = int(time.time() * 1000) + 1000
            g = self.api(self.alice, "POST", "/api/v1/nodes/%s/grants" % work, grant, expect=201)
            if role == "revoked":
                self.api(self.alice, "DELETE", "/api/v1/grants/%s" % g["id"], expect=204)
        time.sleep(1.1)  # the "expired" grant has expired
        self.assertEqual(self.send(self.recipients["expired"].auth, J("GET", "/api/v1/nodes/%s" % work))[0], 404)
        self.assertEqual(self.send(self.recipients["viewer"].auth, J("GET", "/api/v1/nodes/%s" % work))[0], 200)

    def make(self, case, who):
        self.probes = []
        v = case.fixture(self, who)
        v["_probes"] = self.probes
        return v

    def snapshot(self, v):
        """Alice's data as she (or the admin, for admin fixtures) sees it."""
        probes = [(self.alice, J("GET", p)) for p in (
            "/api/v1/trash?limit=500", "/api/v1/favorites?limit=500", "/api/v1/me", "/api/v1/me/usage",
            "/api/v1/me/app-passwords", "/api/v1/me/sessions", "/api/v1/nodes/%s/children?limit=500" % self.root,
            "/api/v1/nodes/%s/children?limit=500" % self.sentinel["folder"],
            "/api/v1/nodes/%s/content" % self.sentinel["file"])]
        probes += [(self.admin, J("GET", "/api/v1/admin/settings"))]
        out = []
        for who, r in probes + v["_probes"]:
            status, _, body = self.send(who.auth, r)
            for rx, sub in VOLATILE_FIELDS:
                body = rx.sub(sub, body)
            out.append(("%s %s" % (r.method, r.path), status, body))
        return out

    def assert_same_data(self, where, before, after):
        for b, a in zip(before, after):
            self.assertEqual(b, a, "%s: Alice's data changed (%s)" % (where, b[0]))

    def assert_no_leak(self, where, resp, v):
        body = normalize(resp[2], v)
        for m in self.markers:
            self.assertNotIn(m, body, "%s: Bob's answer holds Alice's %r: %d %r" % (where, m, resp[0], resp[2][:300]))
        for name, value in resp[1].items():
            if name not in VOLATILE_HEADERS:
                hv = normalize(value.encode(), v)
                for m in self.markers:
                    self.assertNotIn(m, hv, "%s: header %s leaks %r" % (where, name, m))

    def credential(self, who, case):
        if case.session:
            return self.login(who)[0]
        if case.only == "app-password":
            return self.app_password(who)
        return who.auth

    # ---- expectations

    def expect_stranger(self, key, access, case, v):
        """Role "none": Bob, who has no relation to Alice's resources."""
        bob = self.bob
        where = "%s %s %s as Bob" % (key[0], key[1], case.label)
        keys = [k for k in v if not k.startswith("_")]
        if not keys:
            # Nothing of Alice's is named: Bob acts on his own account.
            own = self.make(case, bob)
            resp = self.send(self.credential(bob, case), case.build(own, bob))
            self.cases += 1
            if access == "admin":
                self.assertEqual(resp[0], 403, "%s: %d %r" % (where, resp[0], resp[2][:300]))
            else:
                self.assertTrue(case.ok(resp[0], resp[2]), "%s (his own): %d %r" % (where, resp[0], resp[2][:300]))
            self.assert_no_leak(where, resp, own)
            return
        fake = forge(v)
        ra = case.build(v, bob)
        rx = case.build(fake, bob)
        a = self.send(self.credential(bob, case), ra)
        x = self.send(self.credential(bob, case), rx)
        self.cases += 2
        detail = "%s: %s %s\n  with Alice's ids: %d %r\n  with unknown ids: %d %r" % (
            where, ra.method, ra.path, a[0], a[2][:300], x[0], x[2][:300])
        self.assert_no_leak(where, a, v)
        if access == "admin":
            self.assertEqual(a[0], 403, detail)
        else:
            self.assertTrue(case.none(a[0], normalize(a[2], v)), "unexpected answer " + detail)
        self.assertEqual(answer(a, v), answer(x, fake), "Alice's ids and unknown ids answer differently " + detail)
        # Bob's own resource everywhere, Alice's id in one secondary place.
        for k in case.cross:
            own_a, own_x = self.make(case, bob), self.make(case, bob)
            va, vx = dict(own_a, **{k: v[k]}), dict(own_x, **{k: fake[k]})
            # Bob's own values compare as equal placeholders.
            na = {("own." + kk if kk != k else kk): vv for kk, vv in va.items() if not kk.startswith("_")}
            nx = {("own." + kk if kk != k else kk): vv for kk, vv in vx.items() if not kk.startswith("_")}
            ra, rx = case.build(va, bob), case.build(vx, bob)
            a = self.send(self.credential(bob, case), ra)
            x = self.send(self.credential(bob, case), rx)
            self.cases += 2
            detail = ("%s, his own resource with Alice's %r: %s %s\n  with Alice's %s: %d %r\n"
                      "  with an unknown %s: %d %r" % (where, k, ra.method, ra.path, k, a[0], a[2][:300],
                                                       k, x[0], x[2][:300]))
            self.assert_no_leak(where, a, na)
            if access != "admin":
                self.assertTrue(case.none(a[0], normalize(a[2], na)), "unexpected answer " + detail)
            self.assertEqual(answer(a, na), answer(x, nx),
                             "Alice's id and an unknown id answer differently " + detail)

    def expect_recipient(self, role, key, access, case):
        """A sharing role: a recipient of a grant on Alice's work folder."""
        need = needs_of(key, access, case)
        if need == "own":
            return
        actor, perms = self.recipients[role], SHARING_ROLES[role]
        where = "%s %s %s as %s (%s)" % (key[0], key[1], case.label, role, need)
        owner = self.admin if access == "admin" else self.alice
        v = self.make(case, owner)
        # May change nothing of Alice's: "refused" examples are refused to
        # every recipient (e.g. a lock of Alice's that only she may use).
        keeps = perms is None or "create" not in perms or need == "refused"
        before = self.snapshot(v) if keeps else None
        r = case.build(v, actor)
        a = self.send(self.credential(actor, case), r)
        self.cases += 1
        detail = "%s: %s %s -> %d %r" % (where, r.method, r.path, a[0], a[2][:300])
        if keeps:
            self.assert_same_data(where, before, self.snapshot(v))
        if need == "admin":
            self.assertEqual(a[0], 403, detail)
            return
        if need == "manage_or_hidden":
            need = "ok-if-manage" if perms and "manage" in perms else "hidden"
        if need == "search":
            found = a[0] == 200 and len(json.loads(a[2])["items"]) == 1
            if perms and "read" in perms:
                self.assertTrue(found, "a recipient who may read does not find it: " + detail)
            else:
                self.assertTrue(search_empty(a[0], a[2]), detail)
            return
        if need == "hidden" or perms is None:
            fake = forge(v)
            x = self.send(self.credential(actor, case), case.build(fake, actor))
            self.cases += 1
            self.assertTrue(case.none(a[0], normalize(a[2], v)), "unexpected answer " + detail)
            self.assertEqual(answer(a, v), answer(x, fake),
                             "Alice's ids and unknown ids answer differently " + detail + " / %d %r" % (
                                 x[0], x[2][:300]))
            return
        if need == "refused":
            self.assertTrue(400 <= a[0] < 500, "must be refused: " + detail)
        elif need == "ok-if-manage":
            self.assertTrue(case.ok(a[0], a[2]), detail)
        elif need == "instant_owner_only":
            # Refused either way: the folder is not writable, or the content
            # is not the caller's.
            self.assertIn(a[0], (404,) if "create" in perms else (403, 404), detail)
        elif NEED_ACTIONS[need] <= perms:
            self.assertTrue(case.ok(a[0], a[2]), "a recipient holding %s is refused: %s" % (sorted(perms), detail))
        elif case.none is batch_refused:
            self.assertTrue(batch_refused(a[0], a[2]) and all(
                r["status"] == 403 for r in json.loads(a[2])["results"]), detail)
        elif case.ok is bulk_ok:
            # A bulk upload answers per file, with the status a PUT would have had.
            self.assertTrue(a[0] == 200 and all(x["error"] and x["status"] == 403
                                                for x in json.loads(a[2]).values()), detail)
        elif case.ok is upload_ok:
            # Multipart uploads answer per part.
            self.assertTrue(a[0] == 200 and all(i["status"] == 403 for i in json.loads(a[2])["items"]), detail)
        elif case.none is ocs_refused:
            # OCS answers a refusal in its envelope (v1: HTTP 200).
            self.assertTrue(ocs_refused(a[0], a[2]), "a recipient without %s must be refused: %s" % (need, detail))
        else:
            self.assertEqual(a[0], 403, "a recipient without %s must get 403: %s" % (need, detail))

    def expect_owner(self, key, access, case, v):
        owner = self.admin if access == "admin" else self.alice
        r = case.build(v, owner)
        status, _, data = self.send(self.credential(owner, case), r)
        self.cases += 1
        self.assertTrue(case.ok(status, data), "%s %s %s: example does not succeed for the owner: %s %s -> %d %r" % (
            key[0], key[1], case.label, r.method, r.path, status, data[:300]))

    def expect_credential(self, cred, key, access, case):
        owner = self.admin if access == "admin" else self.alice
        where = "%s %s %s with %s's %s" % (key[0], key[1], case.label, owner.name, cred)
        v = self.make(case, owner)
        r = case.build(v, owner)
        if case.only:
            # The route works with one credential by design: the others are
            # refused and change nothing.
            auth = {"password": owner.auth, "session": lambda: self.login(owner)[0],
                    "app-password": lambda: self.app_password(owner)}[cred]
            auth = auth if cred == "password" else auth()
            before = self.snapshot(v) if cred != case.only else None
            status, _, data = self.send(auth, r)
            self.cases += 1
            if cred == case.only:
                self.assertTrue(case.ok(status, data), "%s: %d %r" % (where, status, data[:300]))
            else:
                self.assertTrue(case.refused(status, data), "%s (only %s works): %d %r" % (
                    where, case.only, status, data[:300]))
                self.assert_same_data(where, before, self.snapshot(v))
            return
        if cred == "session":
            status, _, data = self.send(self.login(owner)[0], r)
            self.cases += 1
            self.assertTrue(case.ok(status, data), "%s: %d %r" % (where, status, data[:300]))
            return
        apps = [self.app_password(owner)]
        if access == "admin":
            apps.append(self.app_password(self.alice))
        for app in apps:
            before = self.snapshot(v) if access != "user" else None
            status, _, data = self.send(app, r)
            self.cases += 1
            if access == "user":
                if case.session:
                    # Needs a session, which an app password is not; still no 401/403.
                    self.assertNotIn(status, (401, 403), "%s: %d %r" % (where, status, data[:300]))
                else:
                    self.assertTrue(case.ok(status, data), "%s: %d %r" % (where, status, data[:300]))
            else:
                self.assertEqual(status, 403, "%s: %d %r" % (where, status, data[:300]))
                self.assertEqual(json.loads(data)["error"], "permission_denied", where)
                self.assert_same_data(where, before, self.snapshot(v))

    def run_case(self, key, access, case):
        owner = self.admin if access == "admin" else self.alice
        v = self.make(case, owner)
        before = self.snapshot(v)
        r = case.build(v, owner)
        resp = self.send(None, r)
        self.cases += 1
        self.assertEqual(resp[0], 401, "%s %s %s anonymous: %d %r" % (key[0], key[1], case.label, resp[0],
                                                                      resp[2][:200]))
        self.assert_no_leak("%s %s anonymous" % key, resp, v)
        for role in ROLES:
            role.check(self, key, access, case, v)
            if role.keeps_alices_data:
                self.assert_same_data("%s %s %s after role %s" % (key[0], key[1], case.label, role.name),
                                      before, self.snapshot(v))
        for cred in CREDENTIALS + (("password",) if case.only else ()):
            self.expect_credential(cred, key, access, case)

    # ---- the matrix

    def test_matrix(self):
        started = time.time()
        self.requests = self.cases = self.counter = 0
        self.users = {}
        setup = J("POST", "/api/v1/setup", {"username": "admin", "password": "admin password 1"})
        self.assertEqual(self.send(None, setup)[0], 201)
        self.admin = Actor("admin", "admin password 1", "admin-stuff")
        self.alice = Actor("alice", "alice password 1", SECRET)
        self.bob = Actor("bob", "bob password 1", "bob-stuff")
        for who in (self.alice, self.bob):
            self.api(self.admin, "POST", "/api/v1/admin/users", {"username": who.name, "password": who.password},
                     expect=201)
        self.work, self.dav_area, self.drive_area, self.share_area, self.probes = {}, {}, {}, {}, []
        self.mount_area = {}
        drives = {}
        for who in (self.admin, self.alice, self.bob):
            drives[who.name] = self.api(who, "GET", "/api/v1/drives")["drives"][0]
            root = drives[who.name]["root_id"]
            self.work[who.name] = self.box(who, root, who.prefix + "-work")
            dav = who.prefix + "-dav"
            self.dav_area[who.name] = (dav, self.box(who, root, dav), None)
            drive = self.api(who, "POST", "/api/v1/drives", {"name": who.prefix + " team"}, expect=201)
            self.drive_area[who.name] = (dav, self.box(who, drive["root_id"], dav), drive["id"])
            # A folder of its own drive as a shared node's tree (/dav-shares/<id>/):
            # outside the work folder, so the sharing roles reach nothing there.
            shared = self.box(who, root, who.prefix + "-shared")
            self.share_area[who.name] = ("", shared, shared)
            # Below the work folder, reached from the root of /dav/: Alice's
            # is shared with the recipients, who find it in their own trees.
            self.mount_area[who.name] = (who.prefix + "-work", self.work[who.name], None)
            who.common_hash = self.put(who, self.work[who.name], "common.bin", COMMON)["hash"]
            who.playlist = self.api(who, "POST", "/api/v1/playlists", {"name": who.prefix + " own list"},
                                    expect=201)["id"]
        self.root = drives["alice"]["root_id"]
        self.setup_recipients()
        # Someone Alice shares with in the grant examples (never Bob, the
        # stranger, whose answers must stay those of an unknown id).
        self.grantee = Actor("grantee", "grantee password 1", "grantee-stuff")
        self.api(self.admin, "POST", "/api/v1/admin/users",
                 {"username": self.grantee.name, "password": self.grantee.password}, expect=201)
        # Alice's sentinel data: a secret folder with her file, a favorite,
        # a session, an app password, a lock; Bob must never see or change it.
        folder = self.box(self.alice, self.root, SECRET)
        file = self.put(self.alice, folder, SECRET + ".txt", ALICE_BYTES)
        self.api(self.alice, "PUT", "/api/v1/favorites/%s" % file["id"], expect=204)
        self.login(self.alice)
        self.app_password(self.alice)
        self.dav_lock(self.alice, "%s/%s.txt" % (SECRET, SECRET))
        self.sentinel = {"folder": folder, "file": file["id"]}
        me = self.api(self.alice, "GET", "/api/v1/me")
        self.markers = [b"alice", SECRET.encode(), ALICE_BYTES, urllib.parse.quote(SECRET).encode(),
                        urllib.parse.quote(SECRET).lower().encode(), json.dumps(SECRET)[1:-1].encode(),
                        me["id"].encode(), self.root.encode(), drives["alice"]["id"].encode(),
                        folder.encode(), file["id"].encode()]

        routes = self.api(self.alice, "GET", "/_test/routes")["routes"]
        table = examples()
        # Public-link routes are authenticated by their link, not by an
        # account: tests/blackbox/test_links.py holds each of them to that.
        keys = {(r["method"], r["pattern"]): r["access"] for r in routes
                if r["access"] not in ("public", "link") and not r["pattern"].startswith("/_test/")}
        missing = sorted("%s %s (%s)" % (m, p, a) for (m, p), a in keys.items() if (m, p) not in table)
        self.assertEqual(missing, [], "routes without an example in the authorization matrix")
        no_needs = sorted("%s %s" % k for k, a in keys.items() if a == "user" and k in table and
                          not k[1].startswith(DAV_TREES) and
                          k not in NEEDS)
        self.assertEqual(no_needs, [], "routes without a row in NEEDS (what a share's recipient must hold)")
        stale = sorted("%s %s" % k for k in table if k not in keys)
        self.assertEqual(stale, [], "examples for routes the server does not have (or that are public now)")

        # Routes that empty Alice's trash when she runs them go first, and
        # the trashed sentinel is made after them.
        empties = {("DELETE", "/api/v1/trash"), ("DELETE", "/remote.php/dav/trashbin/{user}/{path...}")}
        order = sorted(keys, key=lambda k: k not in empties)
        trashed = None
        for i, key in enumerate(order):
            for case in table[key]:
                with self.subTest(route="%s %s" % key, example=case.label):
                    self.run_case(key, keys[key], case)
            if trashed is None and (i + 1 == len(order) or order[i + 1] not in empties):
                trashed = self.put(self.alice, folder, "trashed.txt", ALICE_BYTES + b" trashed")
                self.trash(self.alice, trashed["id"])

        # Nothing Bob did changed Alice's sentinel data.
        status, _, data = self.send(self.alice.auth, J("GET", "/api/v1/nodes/%s/content" % file["id"]))
        self.assertEqual((status, data), (200, ALICE_BYTES))
        kids = self.api(self.alice, "GET", "/api/v1/nodes/%s/children" % folder)["items"]
        self.assertEqual([k["name"] for k in kids], [SECRET + ".txt"])
        trash = self.api(self.alice, "GET", "/api/v1/trash?limit=500")["items"]
        self.assertIn(trashed["id"], [i["id"] for i in trash])
        favorites = self.api(self.alice, "GET", "/api/v1/favorites?limit=500")["items"]
        self.assertIn(file["id"], [i["id"] for i in favorites])
        variants = sum(len(table[k]) for k in keys)
        self.assertGreater(len(keys), 60)
        print("\nauthz matrix: %d routes, %d examples, %d checked requests, %d requests in all, %.1f s" % (
            len(keys), variants, self.cases, self.requests, time.time() - started), file=sys.stderr)
