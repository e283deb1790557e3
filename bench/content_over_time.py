"""Scenario content-over-time: resumable uploads, delta sync and versions,
measured from one run of one build (docs/versions-and-uploads.md).

  1. tus vs plain PUT of the same big file (--files-bytes, default 1 GiB):
     the whole file in one PATCH, as tus clients send it, alternating with
     PUT three times (the order flips); median MB/s, AFTER/BEFORE = tus/PUT.
     Gate: every upload's stored hash is the source's.
  2. Peak RSS of a fresh server during one tus upload of --tus-rss-bytes
     (default 10 GiB; pseudo-random bytes generated on the fly).
     Gate: the stored size and the client's BLAKE2 of what it sent match a
     download.
  3. A 1-byte insertion in the middle of the big file: bytes on the wire
     for the delta upload (the plan's JSON plus the chunk bodies, as the
     server counts them) vs a plain re-upload; and for the download side
     (the manifest's JSON plus the ranges of missing chunks).
     Gate: the file downloads as the edited source, hash for hash.
  4. Ten 1-byte edits (one byte replaced at a random place) of a 100 MiB
     file through plain overwrites: bytes the chunk store grew by, and what
     the versions are charged. Gate: every version downloads as written.
"""
import base64
import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile
import time

from lib import httpc
from lib.api import ADMIN, API, Api, FAST_ARGON2, MiB, ServerError
from lib.data import write_random
from lib.proc import peak_rss_kib
from lib.servers import NUBO, start_nubo

TUS_H = {"Tus-Resumable": "1.0.0"}


def auth_header():
    return httpc.basic(*ADMIN)


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


def stream_request(port, method, path, headers, pieces, length):
    """Sends `pieces` (an iterator of bytes) as the body on a new connection:
    (status, headers, body, seconds)."""
    conn = httpc.Conn(port, timeout=3600)
    t = time.perf_counter()
    try:
        r = conn.request(method, path, headers, body_pieces=(pieces, length))
    finally:
        conn.close()
    return r.status, r.headers, r.body, time.perf_counter() - t


def file_pieces(path):
    buf = bytearray(MiB)
    view = memoryview(buf)
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                return
            yield view[:n]


def tus_create(port, name, length):
    md = "filename " + base64.b64encode(name.encode()).decode()
    conn = httpc.Conn(port, timeout=600)
    r = conn.request("POST", API + "/uploads/tus/", dict(TUS_H, **{
        "Authorization": auth_header(), "Upload-Length": str(length), "Upload-Metadata": md}))
    conn.close()
    if r.status != 201:
        raise ServerError("tus create: %d" % r.status)
    return r.header("Location")


def tus_upload(port, name, pieces, length):
    url = tus_create(port, name, length)
    status, hdrs, data, dt = stream_request(port, "PATCH", url, dict(TUS_H, **{
        "Authorization": auth_header(), "Upload-Offset": "0",
        "Content-Type": "application/offset+octet-stream"}), pieces, length)
    if status != 204:
        raise ServerError("tus PATCH: %d %r" % (status, data[:300]))
    return hdrs["x-nubo-node-id"], dt


def blake3_of_node(api, node_id):
    return api.call("GET", "/nodes/%s" % node_id)["hash"]


def run(args):
    size = args.files_bytes
    rss_bytes = args.tus_rss_bytes
    tmp = tempfile.mkdtemp(prefix="nubo-bench-cot-", dir=args.tmpdir)
    rows = []
    try:
        src = os.path.join(tmp, "big.bin")
        write_random(src, size)
        srv = start_nubo(tmp, env=FAST_ARGON2)
        try:
            api = Api(srv.port, *ADMIN)
            api.setup()
            root = api.root_id()
            # 1. tus vs PUT.
            speeds = {"put": [], "tus": []}
            hashes = set()
            for rep in range(3):
                for kind in (("put", "tus") if rep % 2 == 0 else ("tus", "put")):
                    name = "%s-%d.bin" % (kind, rep)
                    if kind == "put":
                        status, hdrs, data, dt = stream_request(
                            srv.port, "PUT", API + "/nodes/%s/files/%s" % (root, name),
                            {"Authorization": auth_header(), "Content-Type": "application/octet-stream"},
                            file_pieces(src), size)
                        if status != 201:
                            raise ServerError("PUT: %d %r" % (status, data[:200]))
                        node = json.loads(data)["id"]
                    else:
                        node, dt = tus_upload(srv.port, name, file_pieces(src), size)
                    speeds[kind].append(size / dt / 1e6)
                    hashes.add(blake3_of_node(api, node))
            if len(hashes) != 1:
                raise SystemExit("equivalence gate failed: the uploads stored different content")
            put_mbps, tus_mbps = sorted(speeds["put"])[1], sorted(speeds["tus"])[1]
            rows.append(("upload %d MiB, median of 3, MB/s (PUT vs tus)" % (size // MiB),
                         "%.0f" % put_mbps, "%.0f" % tus_mbps, "%.2f (speed; target >= 0.9)" % (tus_mbps / put_mbps)))

            # 3. Delta: 1-byte insertion in the middle.
            edited = os.path.join(tmp, "edited.bin")
            with open(src, "rb") as a, open(edited, "wb") as b:
                b.write(a.read(size // 2))
                b.write(b"!")
                shutil.copyfileobj(a, b, MiB)
            base = api.call("GET", "/nodes/%s/children?limit=10" % root)["items"]
            base = [n for n in base if n["name"] == "put-0.bin"][0]
            plan_json = subprocess.run([NUBO, "chunk", edited], capture_output=True, check=True).stdout
            plan = json.loads(plan_json)
            body = dict(plan, name="put-0.bin", parent_id=root, conflict="overwrite", if_match=base["etag"])
            body_bytes = json.dumps(body).encode()
            state = api.call("POST", "/uploads/delta", body_bytes, {"Content-Type": "application/json"}, expect=201)
            offsets, off = [], 0
            for e in plan["chunks"]:
                h, n = e.split(":")
                offsets.append((h, off, int(n)))
                off += int(n)
            with open(edited, "rb") as f:
                for i in state["needed"]:
                    h, o, n = offsets[i]
                    f.seek(o)
                    api.call("PUT", "/uploads/delta/%s/chunks/%s" % (state["id"], h), f.read(n),
                             {"Content-Type": "application/octet-stream"}, expect=204)
            done = api.call("POST", "/uploads/delta/%s/commit" % state["id"], {}, expect=200)
            up_wire = len(body_bytes) + done["received_bytes"]
            rows.append(("1-byte insertion in %d MiB: upload bytes on the wire (plain PUT vs delta: plan "
                         "%d B + chunks %d B)" % (size // MiB, len(body_bytes), done["received_bytes"]),
                         "%d" % (size + 1), "%d" % up_wire, "%.5f (target: <= 1.1 MB)" % (up_wire / (size + 1))))
            # Download side: the client holds the old content's chunks.
            _, manifest_raw = api.raw("GET", "/nodes/%s/manifest" % done["id"])
            manifest = json.loads(manifest_raw)
            old_plan = json.loads(subprocess.run([NUBO, "chunk", src], capture_output=True,
                                                 check=True).stdout)
            have = {e.split(":")[0] for e in old_plan["chunks"]}
            fetched = 0
            out = hashlib.sha256()
            with open(src, "rb") as old:
                local, o = {}, 0
                for e in old_plan["chunks"]:
                    h, n = e.split(":")
                    local[h] = (o, int(n))
                    o += int(n)
                for c in manifest["chunks"]:
                    if c["hash"] in have:
                        old.seek(local[c["hash"]][0])
                        out.update(old.read(c["size"]))
                    else:
                        _, piece = api.raw("GET", "/nodes/%s/content" % done["id"], headers={
                            "Range": "bytes=%d-%d" % (c["offset"], c["offset"] + c["size"] - 1)})
                        fetched += len(piece)
                        out.update(piece)
            want = hashlib.sha256()
            for p in file_pieces(edited):
                want.update(p)
            if out.hexdigest() != want.hexdigest():
                raise SystemExit("equivalence gate failed: the delta download differs from the edited file")
            down_wire = len(manifest_raw) + fetched
            rows.append(("1-byte insertion: download bytes on the wire (plain GET vs manifest %d B + ranges %d B)"
                         % (len(manifest_raw), fetched), "%d" % (size + 1), "%d" % down_wire,
                         "%.5f" % (down_wire / (size + 1))))

            # 4. Ten 1-byte edits of a 100 MiB file.
            vsize = min(100 * MiB, size)
            vsrc = os.path.join(tmp, "v.bin")
            write_random(vsrc, vsize)
            with open(vsrc, "rb") as f:
                content = bytearray(f.read())
            node = api.call("PUT", "/nodes/%s/files/v.bin" % root, bytes(content),
                            {"Content-Type": "application/octet-stream"}, expect=201)
            chunks_dir = os.path.join(tmp, "nubo-data", "chunks")
            before = du(chunks_dir)
            rnd = random.Random(7)
            written = [hashlib.sha256(content).hexdigest()]
            for i in range(10):
                pos = rnd.randrange(vsize)
                content[pos] = (content[pos] + 1) % 256
                api.call("PUT", "/nodes/%s/files/v.bin?conflict=overwrite" % root, bytes(content),
                         {"Content-Type": "application/octet-stream"}, expect=200)
                written.append(hashlib.sha256(content).hexdigest())
            grown = du(chunks_dir) - before
            versions = api.call("GET", "/nodes/%s/versions" % node["id"])["items"]
            charged = sum(v["charged_bytes"] for v in versions)
            for v, want_hash in zip(versions, reversed(written[:-1])):
                _, data = api.raw("GET", "/nodes/%s/versions/%s/content" % (node["id"], v["id"]))
                if hashlib.sha256(data).hexdigest() != want_hash:
                    raise SystemExit("equivalence gate failed: a version differs from what was written")
            rows.append(("10 versions of a %d MiB file, 1-byte edits: chunk store growth, bytes (full copies vs "
                         "nubo; charged %d)" % (vsize // MiB, charged), "%d" % (10 * vsize), "%d" % grown,
                         "%.4f (target: <= 15 MiB)" % (grown / (10 * vsize))))
            api.close()
        finally:
            srv.stop()

        # 2. Peak RSS during a huge tus upload, on a fresh server.
        shutil.rmtree(os.path.join(tmp, "nubo-data"), ignore_errors=True)
        os.unlink(src)
        srv = start_nubo(tmp, env=FAST_ARGON2)
        try:
            api = Api(srv.port, *ADMIN)
            api.setup()
            sent = hashlib.blake2b(digest_size=16)

            def generated():
                rnd = random.Random(11)
                left = rss_bytes
                while left:
                    n = min(left, 4 * MiB)
                    piece = rnd.randbytes(n)
                    sent.update(piece)
                    left -= n
                    yield piece
            rss_before = peak_rss_kib(srv.pids())
            node, dt = tus_upload(srv.port, "huge.bin", generated(), rss_bytes)
            rss = peak_rss_kib(srv.pids())
            got = hashlib.blake2b(digest_size=16)
            api.close()  # its keep-alive connection idled out during the upload
            status, total = api.get_content(node, got)
            if total != rss_bytes or got.hexdigest() != sent.hexdigest():
                raise SystemExit("equivalence gate failed: the huge upload does not read back as sent")
            rows.append(("tus upload of %d GiB in one PATCH: server peak RSS, MiB (after start vs after upload; "
                         "%.0f MB/s)" % (rss_bytes >> 30, rss_bytes / dt / 1e6), "%.1f" % (rss_before / 1024),
                         "%.1f" % (rss / 1024), "target: <= 64 MiB"))
            api.close()
        finally:
            srv.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if rows:
            print("rows so far: %r" % (rows,))
    print("\nscenario content-over-time: %s; load before: %s" % (NUBO, args.load))
    print("| case | BEFORE | AFTER | AFTER/BEFORE |")
    print("|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s |" % r)
    print("gates: all uploads store the source's hash; the delta upload and download rebuild the edited file; "
          "every version reads back as written; the huge upload reads back as sent")
