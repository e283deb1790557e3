"""Media and search (docs/media-and-search.md) against the real binary and
its real helper: thumbnails of images, PDFs and video made from files built
here with ffmpeg, exiv2 and by hand; full-text search in text, Markdown,
HTML, PDF and office documents; hostile files (a decompression bomb, a
truncated JPEG, a video that stalls its decoder) bounded without harming
the server; the Nextcloud preview endpoint; jobs that survive kill -9."""
import io
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import unittest
import zipfile
import zlib

from harness import NUBO_BIN, exchange
from test_files import Client, eventually, qs, run_fsck, start_with_users, stop_and_fsck  # noqa: F401

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}


def tool(name):
    path = shutil.which(name)
    assert path, "%s is required (scripts/deps.sh test installs it)" % name
    return path


def run(args):
    subprocess.run(args, check=True, capture_output=True, timeout=120)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def ffmpeg_image(path, size, extra=()):
    run([tool("ffmpeg"), "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
         "testsrc=size=%s:rate=1" % size, "-frames:v", "1", *extra, "-y", path])


def webp_size(data):
    """(width, height) of a WebP (VP8, VP8L or VP8X) from its header."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP", data[:16]
    kind = data[12:16]
    if kind == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if kind == b"VP8L":
        b = int.from_bytes(data[21:25], "little")
        return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
    if kind == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    raise AssertionError("unknown WebP chunk %r" % kind)


def pdf_file(objs, prev_is_self=False):
    """A PDF of `objs` (object 1 the catalog) with a correct cross-reference
    table; with `prev_is_self` the trailer's /Prev points at that same table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, o in enumerate(objs, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + o + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    prev = b" /Prev %d" % xref if prev_is_self else b""
    out.write(b"trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, prev, xref))
    return out.getvalue()


def pdf_with_text(text):
    """A one-page PDF whose page shows `text` (Helvetica), with a correct
    cross-reference table."""
    stream = b"BT /F1 24 Tf 72 700 Td (" + text.encode("latin-1") + b") Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return pdf_file(objs)


def looping_pdf(depth=26):
    """A PDF whose rendering never ends in practice: the page draws form 1,
    and form k draws form k + 1 twice, down to `depth` (2^depth draws; no
    cycle for a reader's loop detection to find). Its page tree also lists
    itself among its own kids, and its cross-reference section's /Prev
    points back at itself."""
    first_form = 6
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /X %d 0 R >> >> >>" % first_form,
    ]
    page = b"BT /F1 24 Tf 72 700 Td (loopingword) Tj ET /X Do"
    objs.append(b"<< /Length %d >>\nstream\n" % len(page) + page + b"\nendstream")
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for k in range(depth):
        if k + 1 < depth:
            body = b"/X Do /X Do"
            res = b"/Resources << /XObject << /X %d 0 R >> >> " % (first_form + k + 1)
        else:
            body = b"BT /F1 1 Tf (w) Tj ET 0 0 1 1 re f"
            res = b"/Resources << /Font << /F1 5 0 R >> >> "
        objs.append(b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] " + res +
                    b"/Length %d >>\nstream\n" % len(body) + body + b"\nendstream")
    return pdf_file(objs, prev_is_self=True)


def docx_with_text(text):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>")
        z.writestr("word/document.xml",
                   "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">"
                   "<w:body><w:p><w:r><w:t>%s</w:t></w:r></w:p></w:body></w:document>" % text)
    return buf.getvalue()


def png_bomb(width, height):
    """A small PNG that claims width × height grey pixels (all zero)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    comp = zlib.compressobj(9)
    row = b"\0" * (width + 1)
    idat = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


class MediaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-media-")
        env = dict(FAST, NUBO_MEDIA_MAX_PIXELS="20000000", NUBO_MEDIA_TIMEOUT="5s")
        cls.srv, cls.admin, users = start_with_users(["alice", "bob"], env=env)
        cls.alice, cls.bob = users["alice"], users["bob"]

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)
        cls.tmp.cleanup()

    def file(self, name):
        return os.path.join(self.tmp.name, name)

    def thumb(self, client, node_id, **params):
        return client.raw("GET", "/nodes/%s/thumbnail?%s" % (node_id, qs(**params)))

    def found(self, client, q):
        status, _, body = client.call("GET", "/search/content?" + qs(q=q))
        self.assertEqual(status, 200, body)
        return body

    def wait_found(self, client, q, name, timeout=30):
        body = eventually(lambda: [i for i in self.found(client, q)["items"] if i["node"]["name"] == name],
                          timeout)
        self.assertTrue(body, "%r never found %r" % (q, name))
        return body[0]

    # ---- thumbnails

    def test_jpeg_thumbnails_fit_their_box_and_follow_exif_orientation(self):
        path = self.file("wide.jpg")
        ffmpeg_image(path, "1200x800")
        # EXIF orientation 6: the camera was turned; shown upright it is tall.
        run([tool("exiv2"), "-M", "set Exif.Image.Orientation Short 6", path])
        node = self.alice.put(self.alice.root, "wide.jpg", read(path))
        status, h, data = self.thumb(self.alice, node["id"])
        self.assertEqual(status, 200, data[:200])
        self.assertEqual(h["content-type"], "image/webp")
        w, hgt = webp_size(data)
        self.assertEqual(max(w, hgt), 256)
        self.assertLess(w, hgt, "orientation 6 makes a tall thumbnail")
        status, _, large = self.thumb(self.alice, node["id"], size="large")
        self.assertEqual(status, 200)
        self.assertEqual(max(webp_size(large)), 1024)
        # Revalidation, and caching for good when the URL names the content.
        self.assertEqual(h["cache-control"], "private, no-cache")
        status, _, _ = self.alice.raw("GET", "/nodes/%s/thumbnail" % node["id"], headers={"If-None-Match": h["etag"]})
        self.assertEqual(status, 304)
        v = node["etag"].strip('"')
        status, h2, _ = self.thumb(self.alice, node["id"], v=v)
        self.assertIn("immutable", h2["cache-control"])
        self.assertEqual(self.thumb(self.alice, node["id"], size="huge")[0], 400)

    def test_audio_files_show_their_embedded_cover(self):
        cover = self.file("cover.png")
        ffmpeg_image(cover, "300x200")
        made = {}
        for name, codec in (("cover.mp3", []), ("cover.flac", []), ("cover.m4a", ["-c:a", "aac"])):
            path = self.file(name)
            run([tool("ffmpeg"), "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
                 "sine=frequency=440:duration=1", "-i", cover, "-map", "0:a", "-map", "1:v", *codec,
                 "-c:v", "copy", "-disposition:v", "attached_pic", "-y", path])
            made[name] = self.alice.put(self.alice.root, name, read(path))
        for name, node in made.items():
            self.assertEqual(self.alice.node(node["id"])["name"], name)
            status, h, data = self.thumb(self.alice, node["id"])
            self.assertEqual(status, 200, (name, data[:200]))
            self.assertEqual(h["content-type"], "image/webp")
            self.assertEqual(webp_size(data), (256, 171), name)  # the 300x200 picture, fitted
        # No picture in its tags: no thumbnail (404, as for any file without one).
        plain = self.file("plain.mp3")
        run([tool("ffmpeg"), "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
             "sine=frequency=440:duration=1", "-y", plain])
        node = self.alice.put(self.alice.root, "plain.mp3", read(plain))
        self.assertEqual(self.thumb(self.alice, node["id"])[0], 404)
        # Another user cannot see the cover of a file that is not theirs.
        self.assertEqual(self.thumb(self.bob, made["cover.mp3"]["id"])[0], 404)

    def test_public_links_show_thumbnails_only_where_they_may_read(self):
        path = self.file("shared.png")
        ffmpeg_image(path, "300x300")
        a = self.alice
        album = a.mkdir(a.root, "Album")
        img = a.put(album["id"], "shared.png", read(path))
        private = a.put(a.root, "private-too.png", read(path) + b"\0")
        anon = Client(self.srv, "nobody", "x")

        def pub(token, node_id):
            return anon.raw("GET", "/api/v1/public/%s/nodes/%s/thumbnail" % (token, node_id), auth=False)
        status, _, view = a.call("POST", "/nodes/%s/links" % album["id"], {"role": "view"})
        self.assertEqual(status, 201, view)
        status, h, data = pub(view["token"], img["id"])
        self.assertEqual(status, 200)
        self.assertEqual(max(webp_size(data)), 256)
        # Outside the linked folder: the same answer as a node that does not exist.
        s1, _, b1 = pub(view["token"], private["id"])
        s2, _, b2 = pub(view["token"], "n" + "0" * 20)
        self.assertEqual((s1, b1), (s2, b2))
        self.assertEqual(s1, 404)
        # A file drop reads nothing, thumbnails included.
        status, _, drop = a.call("POST", "/nodes/%s/links" % album["id"], {"role": "drop"})
        self.assertEqual(status, 201, drop)
        self.assertEqual(pub(drop["token"], img["id"])[:3:2], pub(drop["token"], "n" + "0" * 20)[:3:2])
        self.assertEqual(pub(drop["token"], img["id"])[0], 404)
        # A revoked link: like an unknown token.
        self.assertEqual(a.call("DELETE", "/links/%s" % view["id"])[0], 204)
        self.assertEqual(pub(view["token"], img["id"])[0], pub(os.urandom(20).hex(), img["id"])[0])

    def test_another_user_gets_the_same_404_as_for_nothing(self):
        path = self.file("private.png")
        ffmpeg_image(path, "320x240")
        node = self.alice.put(self.alice.root, "private.png", read(path))
        self.assertEqual(self.thumb(self.alice, node["id"])[0], 200)
        s1, _, b1 = self.thumb(self.bob, node["id"])
        s2, _, b2 = self.thumb(self.bob, "n" + "0" * 20)
        self.assertEqual((s1, b1), (s2, b2))
        self.assertEqual(s1, 404)

    def test_copies_share_one_thumbnail_and_new_content_gets_a_new_one(self):
        a, b = self.file("c1.png"), self.file("c2.png")
        ffmpeg_image(a, "300x200")
        ffmpeg_image(b, "200x300")
        node = self.alice.put(self.alice.root, "c.png", read(a))
        _, h1, d1 = self.thumb(self.alice, node["id"])
        copy = self.alice.put(self.alice.root, "c copy.png", read(a))
        _, h2, d2 = self.thumb(self.alice, copy["id"])
        self.assertEqual((h1["etag"], d1), (h2["etag"], d2))
        self.alice.put(self.alice.root, "c.png", read(b), conflict="overwrite", expect=200)
        status, h3, d3 = self.thumb(self.alice, node["id"])
        self.assertEqual(status, 200)
        self.assertNotEqual(h3["etag"], h1["etag"])
        w, hgt = webp_size(d3)
        self.assertLess(w, hgt)

    def test_pdf_and_video_thumbnails(self):
        node = self.alice.put(self.alice.root, "page.pdf", pdf_with_text("Thumbnail of a page"))
        status, _, data = self.thumb(self.alice, node["id"])
        self.assertEqual(status, 200, data[:300])
        w, h = webp_size(data)
        self.assertEqual(h, 256)  # a portrait letter page
        self.assertLess(w, h)
        path = self.file("clip.mp4")
        run([tool("ffmpeg"), "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
             "testsrc=size=640x360:rate=10", "-t", "2", "-pix_fmt", "yuv420p", "-y", path])
        node = self.alice.put(self.alice.root, "clip.mp4", read(path))
        status, _, data = self.thumb(self.alice, node["id"])
        self.assertEqual(status, 200, data[:300])
        self.assertEqual(webp_size(data), (256, 144))

    def test_a_pdf_that_never_ends_is_bounded_and_the_queue_goes_on(self):
        node = self.alice.put(self.alice.root, "loops.pdf", looping_pdf())
        t0 = time.time()
        status, _, _ = self.thumb(self.alice, node["id"])
        self.assertEqual(status, 404)  # rendering it takes minutes: stopped at the 5 s deadline
        self.assertLess(time.time() - t0, 15)
        t0 = time.time()
        self.assertEqual(self.alice.call("GET", "/me/usage")[0], 200)
        self.assertLess(time.time() - t0, 2)
        # Its text job ends too (killed at the deadline), and the queue goes on.
        self.alice.put(self.alice.root, "after-loops.pdf", pdf_with_text("Afterloops arrives"))
        self.wait_found(self.alice, "afterloops", "after-loops.pdf", timeout=60)
        idle = eventually(lambda: self.admin.call("GET", "/admin/jobs")[2]["running"] == 0, 30)
        self.assertTrue(idle, "a job still runs")
        # The same construction, shallow enough to finish, is read: the
        # file is a valid PDF, not one the reader refuses at once.
        node = self.alice.put(self.alice.root, "shallow-loops.pdf", looping_pdf(depth=10))
        self.assertEqual(self.thumb(self.alice, node["id"])[0], 200)

    def test_not_an_image(self):
        node = self.alice.put(self.alice.root, "notes.txt", b"just words")
        self.assertEqual(self.thumb(self.alice, node["id"])[0], 404)
        # Claims to be a JPEG, is not one: 404 now and later (recorded once).
        node = self.alice.put(self.alice.root, "fake.jpg", b"this is not a jpeg at all")
        for _ in range(2):
            status, _, body = self.thumb(self.alice, node["id"])
            self.assertEqual(status, 404, body)

    def test_hostile_files_are_bounded_and_the_server_unharmed(self):
        # 25 megapixels claimed in a few kilobytes, over the 20 MP limit set here.
        bomb = png_bomb(5000, 5000)
        self.assertLess(len(bomb), 200_000)
        node = self.alice.put(self.alice.root, "bomb.png", bomb)
        t0 = time.time()
        self.assertEqual(self.thumb(self.alice, node["id"])[0], 404)
        self.assertLess(time.time() - t0, 10)
        # A truncated JPEG: a thumbnail of what is there, or 404; never a 5xx.
        path = self.file("whole.jpg")
        ffmpeg_image(path, "800x600")
        data = read(path)
        node = self.alice.put(self.alice.root, "truncated.jpg", data[: len(data) // 2])
        status, _, _ = self.thumb(self.alice, node["id"])
        self.assertIn(status, (200, 404))
        # The server still answers at once.
        t0 = time.time()
        self.assertEqual(self.alice.call("GET", "/me/usage")[0], 200)
        self.assertLess(time.time() - t0, 2)

    # ---- full-text search

    def test_words_inside_every_document_type_are_found(self):
        docs = {
            "plan.md": b"# Plan\nThe **aardvark** migration starts in spring.",
            "page.html": b"<html><body><p>An <i>okapi</i> at the zoo</p><script>var quokka=1</script></body></html>",
            "report.pdf": pdf_with_text("Annual pangolin census"),
            "letter.docx": docx_with_text("Dear narwhal committee"),
            "code.py": b"def axolotl():\n    return 42\n",
        }
        for name, data in docs.items():
            self.alice.put(self.alice.root, name, data)
        for word, name in [("aardvark", "plan.md"), ("okapi", "page.html"), ("pangolin", "report.pdf"),
                           ("narwhal", "letter.docx"), ("axolotl", "code.py")]:
            hit = self.wait_found(self.alice, word, name)
            marked = [s["text"].lower() for s in hit["snippet"] if s["match"]]
            self.assertIn(word, marked, hit["snippet"])
        self.assertEqual(self.found(self.alice, "quokka")["items"], [])  # script is not text
        # Bob never finds Alice's words.
        self.assertEqual(self.found(self.bob, "pangolin")["items"], [])
        self.assertEqual(self.found(self.bob, "narwhal")["items"], [])

    def test_a_file_renamed_into_a_readable_type_is_read_then(self):
        # Stored as a partial download: nothing for the derive job (its job
        # is dropped at the upload); the rename into a text file queues it.
        node = self.alice.put(self.alice.root, "draft.txt.part", b"the word is capybara")
        status, _, body = self.alice.call("PATCH", "/nodes/" + node["id"], {"name": "draft.txt"})
        self.assertEqual(status, 200, body)
        self.wait_found(self.alice, "capybara", "draft.txt")

    def test_trash_hides_and_restore_brings_back(self):
        node = self.alice.put(self.alice.root, "gone.txt", b"the word is wolverine")
        self.wait_found(self.alice, "wolverine", "gone.txt")
        self.alice.delete(node["id"])
        self.assertEqual(self.found(self.alice, "wolverine")["items"], [])
        status, _, _ = self.alice.call("POST", "/nodes/%s/restore" % node["id"], {})
        self.assertEqual(status, 200)
        self.assertEqual(len(self.found(self.alice, "wolverine")["items"]), 1)

    def test_bad_queries_are_4xx(self):
        self.assertEqual(self.alice.call("GET", "/search/content?q=")[0], 400)
        self.assertEqual(self.alice.call("GET", "/search/content?" + qs(q="x", cursor="zz"))[0], 400)
        self.assertEqual(self.alice.call("GET", "/search/content?" + qs(q="x", limit="0"))[0], 400)
        for q in ['"', "NEAR(", "a OR", "body:x", "*"]:
            self.assertEqual(self.alice.call("GET", "/search/content?" + qs(q=q))[0], 200, q)

    def test_admin_sees_the_queue_and_metrics_count_it(self):
        status, _, body = self.admin.call("GET", "/admin/jobs")
        self.assertEqual(status, 200, body)
        for k in ("due", "running", "retrying", "done", "failed", "failing"):
            self.assertIn(k, body)
        self.assertEqual(self.alice.call("GET", "/admin/jobs")[0], 403)
        status, _, metrics = exchange(self.srv, "GET", "/metrics")
        self.assertEqual(status, 200)
        self.assertIn(b"# TYPE nubo_jobs_due gauge", metrics)
        self.assertIn(b"nubo_jobs_done_total", metrics)

    # ---- the Nextcloud preview endpoint

    def test_nextcloud_preview_by_file_id_and_path(self):
        path = self.file("nc.png")
        ffmpeg_image(path, "1600x1200")
        self.alice.put(self.alice.root, "nc.png", read(path))
        status, _, data = self.alice.raw("PROPFIND", "/remote.php/dav/files/alice/nc.png",
                                         b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" '
                                         b'xmlns:nc="http://nextcloud.org/ns"><d:prop><oc:fileid/><nc:has-preview/>'
                                         b'</d:prop></d:propfind>', {"Depth": "0"})
        self.assertEqual(status, 207, data)
        self.assertIn(b"<nc:has-preview>true</nc:has-preview>", data)
        fid = data.split(b"<oc:fileid>")[1].split(b"<")[0].decode()
        self.alice.api_prefix = False
        self.bob.api_prefix = False
        try:
            status, h, img = self.alice.raw("GET", "/index.php/core/preview?" + qs(fileId=fid, x=64, y=64))
            self.assertEqual(status, 200)
            self.assertEqual(max(webp_size(img)), 256)
            status, _, img = self.alice.raw("GET", "/index.php/core/preview.png?" + qs(file="/nc.png", x=1024, y=1024))
            self.assertEqual(status, 200)
            self.assertEqual(max(webp_size(img)), 1024)
            s1, _, b1 = self.bob.raw("GET", "/index.php/core/preview?" + qs(fileId=fid, x=64, y=64))
            s2, _, b2 = self.bob.raw("GET", "/index.php/core/preview?" + qs(fileId="999999999", x=64, y=64))
            self.assertEqual((s1, b1), (s2, b2))
            self.assertEqual(s1, 404)
        finally:
            self.alice.api_prefix = True
            self.bob.api_prefix = True


def photo(path, size, taken=None, gps=None, orientation=None, make=None):
    """A JPEG with the EXIF a camera writes (exiv2 sets it)."""
    ffmpeg_image(path, size)
    cmds = []
    if taken:
        cmds.append("set Exif.Photo.DateTimeOriginal Ascii %s" % taken)
    if make:
        cmds += ["set Exif.Image.Make Ascii %s" % make[0], "set Exif.Image.Model Ascii %s" % make[1]]
    if orientation:
        cmds.append("set Exif.Image.Orientation Short %d" % orientation)
    if gps:
        for axis, value, refs in (("Latitude", gps[0], "NS"), ("Longitude", gps[1], "EW")):
            a = abs(value)
            d = int(a)
            m = int((a - d) * 60)
            sec = round(((a - d) * 60 - m) * 60 * 1000)
            cmds.append("set Exif.GPSInfo.GPS%s Rational %d/1 %d/1 %d/1000" % (axis, d, m, sec))
            cmds.append("set Exif.GPSInfo.GPS%sRef Ascii %s" % (axis, refs[0] if value >= 0 else refs[1]))
    args = [tool("exiv2")]
    for c in cmds:
        args += ["-M", c]
    if cmds:
        run(args + [path])
    return read(path)


class PhotosTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-photos-")
        cls.srv, cls.admin, users = start_with_users(["erin", "finn"], env=FAST)
        cls.erin, cls.finn = users["erin"], users["finn"]

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)
        cls.tmp.cleanup()

    def timeline(self, client, **params):
        items, cursor = [], None
        while True:
            q = dict(params, **({"cursor": cursor} if cursor else {}))
            status, _, body = client.call("GET", "/photos?" + qs(**q))
            self.assertEqual(status, 200, body)
            items += body["items"]
            cursor = body["next_cursor"]
            if not cursor:
                return items

    def copies(self):
        """nubo_derive_copies_total once the job queue is idle."""
        def idle():
            body = self.admin.call("GET", "/admin/jobs")[2]
            return body["due"] == 0 and body["running"] == 0
        self.assertTrue(eventually(idle, 30), "the job queue never went idle")
        metrics = exchange(self.srv, "GET", "/metrics")[2].decode()
        return int([ln for ln in metrics.splitlines() if ln.startswith("nubo_derive_copies_total ")][0].split()[1])

    def test_one_copy_of_the_content_per_job(self):
        """A job reads a photo's facts and makes its thumbnail, or an audio
        file's tags and its cover's thumbnail, from one temp copy of the
        content, not one per helper."""
        f = self.admin  # erin's and finn's timelines are another test's
        before = self.copies()
        shot = f.put(f.root, "one-copy.jpg", photo(os.path.join(self.tmp.name, "one-copy.jpg"), "320x240",
                                                   "2021:05:06 07:08:09"))
        cover = os.path.join(self.tmp.name, "one-copy-cover.png")
        ffmpeg_image(cover, "120x80")
        song = os.path.join(self.tmp.name, "one-copy.mp3")
        run([tool("ffmpeg"), "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i",
             "sine=frequency=440:duration=1", "-i", cover, "-map", "0:a", "-map", "1:v",
             "-c:v", "copy", "-disposition:v", "attached_pic", "-metadata", "title=Once", "-y", song])
        track = f.put(f.root, "one-copy.mp3", read(song))
        self.assertTrue(eventually(lambda: [i for i in self.timeline(f) if i["node"]["id"] == shot["id"]], 30))
        self.assertTrue(eventually(lambda: [t for t in f.call("GET", "/music/tracks")[2]["items"]
                                            if t["title"] == "Once"], 30))
        self.assertEqual(self.copies() - before, 2)
        # Both thumbnails were made by the jobs from those copies.
        for node in (shot, track):
            self.assertEqual(f.raw("GET", "/nodes/%s/thumbnail" % node["id"])[0], 200)
        self.assertEqual(self.copies() - before, 2)

    def test_timeline_months_and_places(self):
        e = self.erin
        folder = e.mkdir(e.root, "Camera")
        shots = [
            ("paris.jpg", "2023:07:14 21:30:00", (48.8584, 2.2945), None, ("Canon", "Canon EOS R6")),
            ("eiffel.jpg", "2023:07:14 21:31:10", (48.8585, 2.2946), 6, None),
            ("sydney.jpg", "2022:12:31 23:59:59", (-33.8568, 151.2153), None, ("Apple", "iPhone 12")),
            ("noexif.jpg", None, None, None, None),
        ]
        for name, taken, gps, orient, make in shots:
            e.put(folder["id"], name, photo(os.path.join(self.tmp.name, name), "640x480", taken, gps, orient, make))
        e.put(e.root, "notes.txt", b"not a photo")
        items = eventually(lambda: (lambda t: t if len(t) == 4 else None)(self.timeline(e)), 30)
        self.assertTrue(items, "the timeline never held the four photos")
        names = [i["node"]["name"] for i in items]
        # No camera date: the upload time, which is the newest.
        self.assertEqual(names, ["noexif.jpg", "eiffel.jpg", "paris.jpg", "sydney.jpg"])
        by = {i["node"]["name"]: i for i in items}
        self.assertFalse(by["noexif.jpg"]["taken_exact"])
        self.assertTrue(by["paris.jpg"]["taken_exact"])
        self.assertEqual(by["paris.jpg"]["camera"], "Canon EOS R6")  # the model already names the make
        self.assertEqual(by["sydney.jpg"]["camera"], "Apple iPhone 12")
        self.assertAlmostEqual(by["sydney.jpg"]["lat"], -33.8568, places=3)
        self.assertAlmostEqual(by["sydney.jpg"]["lon"], 151.2153, places=3)
        self.assertEqual((by["paris.jpg"]["width"], by["paris.jpg"]["height"]), (640, 480))
        self.assertEqual((by["eiffel.jpg"]["width"], by["eiffel.jpg"]["height"]), (480, 640))  # turned
        self.assertIsNone(by["noexif.jpg"]["lat"])
        # Keyset pages of one agree with the whole.
        self.assertEqual([i["node"]["name"] for i in self.timeline(e, limit=1)], names)
        status, _, body = e.call("GET", "/photos/months")
        self.assertEqual(status, 200)
        months = {m["month"]: m["count"] for m in body["months"]}
        self.assertEqual(months["2023-07"], 2)
        self.assertEqual(months["2022-12"], 1)  # the camera's clock, not UTC's
        status, _, body = e.call("GET", "/photos/places?cell=1")
        self.assertEqual(status, 200)
        places = sorted((p["count"], round(p["lat"]), p["cover"]["name"]) for p in body["places"])
        self.assertEqual([(c, lat) for c, lat, _ in places], [(1, -34), (2, 49)])
        # Each cell's cover is one of its own photos.
        self.assertEqual(places[0][2], "sydney.jpg")
        self.assertIn(places[1][2], ("paris.jpg", "eiffel.jpg"))
        self.assertEqual(e.call("GET", "/photos/places?cell=0")[0], 400)
        self.assertEqual(e.call("GET", "/photos?cursor=zz")[0], 400)
        # Another user sees none of it.
        self.assertEqual(self.timeline(self.finn), [])
        self.assertEqual(self.finn.call("GET", "/photos/places")[2]["places"], [])
        # Trash hides a photo; new content replaces its facts.
        e.delete(by["sydney.jpg"]["node"]["id"])
        self.assertNotIn("sydney.jpg", [i["node"]["name"] for i in self.timeline(e)])
        e.put(folder["id"], "paris.jpg", photo(os.path.join(self.tmp.name, "p2.jpg"), "320x240", "2020:01:02 03:04:05"),
              conflict="overwrite", expect=200)
        got = eventually(lambda: [i for i in self.timeline(e) if i["node"]["name"] == "paris.jpg"
                                  and i["taken_at"] < 1600000000000], 30)
        self.assertTrue(got)
        self.assertIsNone(got[0]["lat"])
        self.assertEqual(got[0]["width"], 320)


def audio(path, **tags):
    """A short tone with tags, encoded by ffmpeg (MP3 or FLAC by extension)."""
    args = [tool("ffmpeg"), "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=2"]
    for k, v in tags.items():
        args += ["-metadata", "%s=%s" % (k, v)]
    run(args + ["-y", path])
    return read(path)


class MusicTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-music-")
        cls.srv, cls.admin, users = start_with_users(["gina", "hal"], env=FAST)
        cls.gina, cls.hal = users["gina"], users["hal"]
        g = cls.gina
        cls.folder = g.mkdir(g.root, "Music")
        songs = [
            ("b.mp3", dict(title="Second", artist="The Band", album_artist="The Band", album="First Album",
                           track="2/3", date="2001")),
            ("a.flac", dict(title="Opener", artist="The Band", album_artist="the band", album="FIRST ALBUM",
                            track="1/3", date="2001")),
            ("c.mp3", dict(title="Solo", artist="Singer", album="Alone", track="1")),
            ("untagged.mp3", {}),
        ]
        cls.ids = {}
        for name, tags in songs:
            node = g.put(cls.folder["id"], name, audio(os.path.join(cls.tmp.name, name), **tags))
            cls.ids[name] = node["id"]

        def all_in():
            status, _, body = g.call("GET", "/music/tracks")
            return status == 200 and len(body["items"]) == 4
        assert eventually(all_in, 30), "the library never held the four tracks"

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)
        cls.tmp.cleanup()

    def test_album_cover_from_a_picture_beside_the_tracks(self):
        g = self.gina
        albums = g.call("GET", "/music/albums")[2]["items"]
        self.assertEqual([a["cover"] for a in albums], [None] * len(albums))
        path = os.path.join(self.tmp.name, "folder.png")
        ffmpeg_image(path, "200x200")
        pic = g.put(self.folder["id"], "Folder.PNG", read(path))  # names compare case-folded
        albums = g.call("GET", "/music/albums")[2]["items"]
        self.assertGreater(len(albums), 1)
        self.assertEqual({a["cover"]["id"] for a in albums}, {pic["id"]})
        self.assertEqual(g.raw("GET", "/nodes/%s/thumbnail" % pic["id"])[0], 200)
        # Trashed, it is no cover any more.
        self.assertEqual(g.delete(pic["id"]), 204)
        albums = g.call("GET", "/music/albums")[2]["items"]
        self.assertEqual([a["cover"] for a in albums], [None] * len(albums))

    def test_library_groups_and_orders(self):
        g = self.gina
        tracks = g.call("GET", "/music/tracks")[2]["items"]
        titles = [t["title"] for t in tracks]
        # Artists by folded key ("" for untagged first), then album, disc, track.
        self.assertEqual(titles, ["untagged", "Solo", "Opener", "Second"])
        opener = tracks[2]
        self.assertEqual((opener["track"], opener["year"]), (1, 2001))
        self.assertGreater(opener["duration_ms"], 1500)
        self.assertEqual(opener["node"]["name"], "a.flac")
        artists = g.call("GET", "/music/artists")[2]["items"]
        band = [a for a in artists if a["key"] == opener["artist_key"]]
        self.assertEqual(len(band), 1)  # "The Band" and "the band" are one artist
        self.assertEqual((band[0]["albums"], band[0]["tracks"]), (1, 2))
        albums = g.call("GET", "/music/albums?" + qs(artist=opener["artist_key"]))[2]["items"]
        self.assertEqual(len(albums), 1)
        self.assertEqual(albums[0]["tracks"], 2)
        self.assertEqual(albums[0]["first_track"]["name"], "a.flac")
        only = g.call("GET", "/music/tracks?" + qs(artist=opener["artist_key"], album=opener["album_key"]))[2]
        self.assertEqual([t["title"] for t in only["items"]], ["Opener", "Second"])
        # Keyset pages of one agree with the whole.
        paged, cursor = [], None
        while True:
            body = g.call("GET", "/music/tracks?" + qs(limit=1, **({"cursor": cursor} if cursor else {})))[2]
            paged += [t["title"] for t in body["items"]]
            cursor = body["next_cursor"]
            if not cursor:
                break
        self.assertEqual(paged, titles)
        self.assertEqual(g.call("GET", "/music/tracks?cursor=zz")[0], 400)
        # Another user's library is empty.
        self.assertEqual(self.hal.call("GET", "/music/tracks")[2]["items"], [])
        self.assertEqual(self.hal.call("GET", "/music/artists")[2]["items"], [])

    def test_playlists(self):
        g, h = self.gina, self.hal
        status, _, pl = g.call("POST", "/playlists", {"name": "Road trip"})
        self.assertEqual(status, 201, pl)
        order = [self.ids["c.mp3"], self.ids["a.flac"], self.ids["b.mp3"]]
        status, _, body = g.call("PUT", "/playlists/%s/items" % pl["id"], {"items": order})
        self.assertEqual(status, 200, body)
        self.assertEqual([t["node"]["id"] for t in body["tracks"]], order)
        self.assertEqual(body["tracks"][0]["title"], "Solo")
        # Reorder.
        status, _, body = g.call("PUT", "/playlists/%s/items" % pl["id"], {"items": order[::-1]})
        self.assertEqual([t["node"]["id"] for t in body["tracks"]], order[::-1])
        # Each item with its own track's facts, as the library lists them.
        library = {t["node"]["id"]: (t["title"], t["duration_ms"]) for t in g.call("GET", "/music/tracks")[2]["items"]}
        got = g.call("GET", "/playlists/%s" % pl["id"])[2]["tracks"]
        self.assertEqual([(t["title"], t["duration_ms"]) for t in got], [library[i] for i in order[::-1]])
        self.assertEqual(g.call("GET", "/playlists")[2]["playlists"][0]["items"], 3)
        # Export: paths below the owner's root, in order.
        status, h_, m3u = g.raw("GET", "/playlists/%s/m3u8" % pl["id"])
        self.assertEqual(status, 200)
        self.assertIn("mpegurl", h_["content-type"])
        self.assertIn("Road trip.m3u8", h_["content-disposition"])
        lines = [l for l in m3u.decode().splitlines() if l and not l.startswith("#")]
        self.assertEqual(lines, ["Music/b.mp3", "Music/a.flac", "Music/c.mp3"])
        # Import: what names nothing is counted, the rest kept in order.
        status, _, imp = g.call("POST", "/playlists/import?" + qs(name="Imported"),
                                b"#EXTM3U\n#EXTINF:2,x\nMusic/c.mp3\nMusic/nothing.mp3\n/Music/a.flac\r\n",
                                {"Content-Type": "audio/x-mpegurl"})
        self.assertEqual(status, 201, imp)
        self.assertEqual(imp["missing"], 1)
        self.assertEqual([t["node"]["name"] for t in imp["tracks"]], ["c.mp3", "a.flac"])
        # Another user: the same 404 as for no playlist, and nothing changes.
        for method, path, body in [("GET", "/playlists/%s", None), ("PATCH", "/playlists/%s", {"name": "x"}),
                                   ("PUT", "/playlists/%s/items", {"items": []}), ("GET", "/playlists/%s/m3u8", None),
                                   ("DELETE", "/playlists/%s", None)]:
            s1, _, b1 = h.call(method, path % pl["id"], body)
            s2, _, b2 = h.call(method, path % "0196a0c0-0000-7000-8000-000000000000", body)
            self.assertEqual((s1, b1), (s2, b2), method + path)
            self.assertEqual(s1, 404)
        self.assertEqual(g.call("GET", "/playlists/%s" % pl["id"])[2]["name"], "Road trip")
        # Nor can he put her file in his own list.
        status, _, his = h.call("POST", "/playlists", {"name": "Mine"})
        s1, _, b1 = h.call("PUT", "/playlists/%s/items" % his["id"], {"items": [self.ids["a.flac"]]})
        s2, _, b2 = h.call("PUT", "/playlists/%s/items" % his["id"], {"items": ["n" + "0" * 20]})
        self.assertEqual((s1, b1), (s2, b2))
        self.assertEqual(s1, 404)
        self.assertEqual(g.call("POST", "/playlists", {"name": ""})[0], 400)
        self.assertEqual(g.call("PUT", "/playlists/%s/items" % pl["id"], {"items": [self.folder["id"]]})[0], 400)
        # A trashed file leaves the list when it is read; delete removes the list.
        g.delete(self.ids["b.mp3"])
        self.assertNotIn(self.ids["b.mp3"], [t["node"]["id"] for t in g.call("GET", "/playlists/%s" % pl["id"])[2]["tracks"]])
        status, _, _ = g.call("POST", "/nodes/%s/restore" % self.ids["b.mp3"], {})
        self.assertEqual(g.call("DELETE", "/playlists/%s" % pl["id"])[0], 204)
        self.assertEqual(g.call("GET", "/playlists/%s" % pl["id"])[0], 404)


class DerivedFsckTest(unittest.TestCase):
    def test_fsck_finds_a_lost_thumbnail_and_repair_lets_it_be_made_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "x.png")
            ffmpeg_image(path, "300x200")
            srv, _, users = start_with_users(["ivy"], env=FAST)
            try:
                c = users["ivy"]
                node = c.put(c.root, "x.png", read(path))
                status, _, _ = c.raw("GET", "/nodes/%s/thumbnail?size=large" % node["id"])
                self.assertEqual(status, 200)
                self.assertEqual(srv.terminate(), 0)
                p = run_fsck(srv)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                self.assertRegex(p.stdout, r"fsck: [1-9]\d* derived rows, [1-9]\d* thumbnail files")
                files = [os.path.join(d, f) for d, _, fs in os.walk(os.path.join(srv.data, "derived")) for f in fs
                         if f.endswith("-2.webp")]
                self.assertEqual(len(files), 1)
                os.unlink(files[0])
                p = run_fsck(srv)
                self.assertEqual(p.returncode, 1, p.stdout)
                self.assertIn("PROBLEM derived", p.stdout)
                p = subprocess.run([NUBO_BIN, "--data", srv.data, "fsck", "--repair"], capture_output=True,
                                   text=True, timeout=600, env=srv.tool_env())
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                srv._start()
                c.srv = srv
                status, _, data = c.raw("GET", "/nodes/%s/thumbnail?size=large" % node["id"])
                self.assertEqual(status, 200)
                self.assertEqual(webp_size(data), (300, 200))
            finally:
                stop_and_fsck(srv)


class MissingHelperTest(unittest.TestCase):
    def test_a_missing_helper_is_reported_at_start_and_in_metrics(self):
        """Without its media helper the server still serves files, but says
        at start that no thumbnail will be made, and /metrics shows it for
        as long as it lasts (a helper put in place later turns it to 1)."""
        with tempfile.TemporaryDirectory() as tmp:
            helper = os.path.join(tmp, "nubo-derive")
            srv, _, users = start_with_users(["mo"], env=dict(FAST, NUBO_MEDIA_HELPER=helper))
            try:
                self.assertIn("media helper %s cannot be run" % helper, srv.log())
                metrics = exchange(srv, "GET", "/metrics")[2].decode()
                self.assertIn("nubo_media_helper_available 0", metrics)
                c = users["mo"]
                node = c.put(c.root, "a.txt", b"still a file server")
                self.assertEqual(c.raw("GET", "/nodes/%s/content" % node["id"])[2], b"still a file server")
                shutil.copy(os.path.join(os.path.dirname(NUBO_BIN), "nubo-derive"), helper)
                metrics = exchange(srv, "GET", "/metrics")[2].decode()
                self.assertIn("nubo_media_helper_available 1", metrics)
            finally:
                stop_and_fsck(srv)
        # Beside the binary, as installed: no warning.
        srv, _, _ = start_with_users(["nm"], env=FAST)
        try:
            self.assertNotIn("media helper", srv.log())
            self.assertIn("nubo_media_helper_available 1", exchange(srv, "GET", "/metrics")[2].decode())
        finally:
            stop_and_fsck(srv)


class HostileVideoTest(unittest.TestCase):
    def test_a_stalled_decoder_is_killed_at_the_deadline(self):
        with tempfile.TemporaryDirectory() as tmp:
            stall = os.path.join(tmp, "ffmpeg")
            with open(stall, "w") as f:
                f.write("#!/bin/sh\nexec sleep 600\n")
            os.chmod(stall, 0o755)
            srv, _, users = start_with_users(["carol"], env=dict(FAST, NUBO_MEDIA_FFMPEG=stall,
                                                                   NUBO_MEDIA_TIMEOUT="2s", NUBO_JOBS_WORKERS="0"))
            try:
                c = users["carol"]
                node = c.put(c.root, "stall.mp4", b"\0\0\0\x18ftypmp42" + b"\0" * 4000)
                t0 = time.time()
                status, _, _ = c.raw("GET", "/nodes/%s/thumbnail" % node["id"])
                self.assertEqual(status, 404)
                self.assertLess(time.time() - t0, 8)
                self.assertEqual(c.call("GET", "/me/usage")[0], 200)
                out = subprocess.run(["pgrep", "-f", stall], capture_output=True, text=True)
                self.assertEqual(out.stdout.strip(), "", "the stalled decoder was left running")
            finally:
                stop_and_fsck(srv)


class JobsSurviveKillTest(unittest.TestCase):
    def test_kill_9_loses_no_job(self):
        # A short lease, so the job the killed process held is taken again
        # within the test (jobs.lease; the helper timeout bounds it below).
        srv, _, users = start_with_users(["dave"], env=dict(FAST, NUBO_JOBS_LEASE="2s",
                                                             NUBO_MEDIA_TIMEOUT="1s"))
        try:
            d = users["dave"]
            words = ["kiwi%04d" % i for i in range(60)]
            for w in words:
                d.put(d.root, w + ".txt", ("the word is " + w).encode())
            srv.proc.kill()  # kill -9: jobs in the database, some leased, none done twice
            srv.proc.wait()
            srv._log.close()
            srv._start()
            d.srv = srv

            def counts():
                return [len(d.call("GET", "/search/content?" + qs(q=w))[2]["items"]) for w in words]
            # Every word found exactly once: no job lost, none with a double effect.
            eventually(lambda: counts() == [1] * len(words), 60)
            self.assertEqual(counts(), [1] * len(words))
        finally:
            stop_and_fsck(srv)


if __name__ == "__main__":
    unittest.main()
