"""WebDAV (/dav/, alias /webdav/) against the real binary, driven by real
clients: the litmus compliance suites (basic, copymove, props, locks, http),
rclone (a 1,000-file tree copied, checked, synced and read back byte for
byte), cadaver (an interactive client fed a script), and direct protocol
checks with http.client for behaviour litmus does not cover (finite PROPFIND
depth, streamed multistatus, hostile XML, ETags shared with the REST API,
ranges, isolation between users, authentication).

/dav/ is always the caller's personal drive; DELETE moves to the trash.
The external clients are installed by `scripts/deps.sh test`; each class
fails (never skips) when its client is missing."""
import base64
import http.client
import os
import random
import re
import shutil
import stat
import subprocess
import tempfile
import time
import unicodedata
import unittest
import urllib.parse
import xml.etree.ElementTree as ET

from harness import Server
from test_files import Client, FsckMixin, add_user, parse_byteranges

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
ADMIN = ("admin", "admin-password-1")  # no spaces: .netrc and command lines
D = "{DAV:}"
KiB, MiB = 1 << 10, 1 << 20


# ----------------------------------------------------------------------------
# Helpers


def start_server(**env):
    """A fresh server and its first admin ("admin"), as a REST Client."""
    srv = Server(env=dict(FAST, **env), test_routes=False)
    try:
        admin = Client(srv, *ADMIN)
        status, _, body = admin.call("POST", "/api/v1/setup", {"username": ADMIN[0], "password": ADMIN[1]},
                                     auth=False)
        assert status == 201, (status, body)
    except BaseException:
        srv.close()
        raise
    return srv, admin


def require_tool(name):
    """Fails, never skips, when an external client the suite needs is missing."""
    if not shutil.which(name):
        raise AssertionError("%s is not installed (not on PATH); `bash scripts/deps.sh test` installs it" % name)


def dav_path(*segments, collection=False, prefix="/dav"):
    """/dav/seg1/seg2 with every segment percent-encoded (UTF-8)."""
    p = prefix + "/" + "/".join(urllib.parse.quote(s, safe="") for s in segments)
    if collection and not p.endswith("/"):
        p += "/"
    return p


def href_path(href):
    """An href (absolute URI or absolute path) as a decoded path without a
    trailing slash."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(href.strip()).path)
    return path.rstrip("/") if path != "/" else path


def basic_auth(user, password):
    return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()


class Dav:
    """One account's WebDAV view; a fresh connection per request unless a
    persistent HTTPConnection is passed in."""

    def __init__(self, srv, user, password):
        self.srv = srv
        self.user = user
        self.password = password
        self.auth = basic_auth(user, password)

    def raw(self, method, path, body=None, headers=None, auth=True, conn=None, timeout=120):
        """(status, lower-case headers, body bytes)."""
        h = {"Authorization": self.auth} if auth else {}
        h.update(headers or {})
        own = conn is None
        if own:
            conn = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=h)
            resp = conn.getresponse()
            data = resp.read() if method != "HEAD" else b""
            hdrs = {}
            for k, v in resp.getheaders():
                k = k.lower()
                hdrs[k] = hdrs[k] + "\n" + v if k in hdrs else v
            return resp.status, hdrs, data
        finally:
            if own:
                conn.close()

    def propfind(self, path, depth="1", props=None, **kw):
        """PROPFIND with allprop (props None) or the given {DAV:}names."""
        body = b""
        if props is not None:
            body = ('<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>%s'
                    '</D:prop></D:propfind>' % "".join("<D:%s/>" % p for p in props)).encode()
        headers = {"Content-Type": "application/xml; charset=utf-8"}
        if depth is not None:
            headers["Depth"] = depth
        return self.raw("PROPFIND", path, body, headers, **kw)

    def put(self, path, data, **kw):
        return self.raw("PUT", path, data, {"Content-Type": "application/octet-stream"}, **kw)

    def mkcol(self, path, **kw):
        return self.raw("MKCOL", path, **kw)

    def listing(self, path, depth="1", props=None):
        """{decoded href path: {prop tag: (status code, element)}} of a 207."""
        status, hdrs, body = self.propfind(path, depth, props)
        assert status == 207, (status, body[:2000])
        return multistatus(body)


def multistatus(body):
    root = ET.fromstring(body)
    assert root.tag == D + "multistatus", root.tag
    out = {}
    for r in root.findall(D + "response"):
        href = href_path(r.findtext(D + "href"))
        props = {}
        for ps in r.findall(D + "propstat"):
            code = int(ps.findtext(D + "status").split()[1])
            for p in ps.find(D + "prop"):
                props[p.tag] = (code, p)
        out[href] = props
    return out


def clean_env(**extra):
    """The environment for an external client: no NUBO_*/RCLONE_* leaking in,
    no AWS_CA_BUNDLE (rclone reads it for every HTTP client)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUBO_", "RCLONE_")) and k != "AWS_CA_BUNDLE"}
    env.update(extra)
    return env


def run(cmd, timeout, **kw):
    """subprocess.run that turns a timeout into a CompletedProcess with rc
    None and whatever output there was, so the assertion can show it."""
    try:
        return subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        def as_text(v):
            return v.decode("utf-8", "replace") if isinstance(v, bytes) else (v or "")
        out, err = as_text(e.stdout), as_text(e.stderr) + "\n[timed out after %ss]" % timeout
        if not kw.get("text"):
            out, err = out.encode(), err.encode()
        return subprocess.CompletedProcess(cmd, None, out, err)


def tail(text, n):
    return "\n".join(text.splitlines()[-n:])


# ----------------------------------------------------------------------------
# litmus


LITMUS_SUMMARY = re.compile(
    r"<- summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed\. ([\d.]+)%")
LITMUS_TEST = re.compile(r"(?:^|\s)(\d+)\.\s([A-Za-z_][A-Za-z0-9_]*)\b", re.M)
LITMUS_END_OF_REASON = re.compile(r"\n(?=\s*(?:\d+\.\s|<- |-> |\.{5,}))")


def litmus_failures(output):
    """[(test, reason)] for every FAIL in litmus output. Progress lines are
    rewritten with CR, warnings split a test's line in two, and neon error
    reasons may span lines, so each FAIL is attributed to the last test
    header before it and its reason runs up to the next header."""
    text = output.replace("\r", "\n")
    headers = [(m.start(), "%s. %s" % m.groups()) for m in LITMUS_TEST.finditer(text)]
    out = []
    for m in re.finditer(r"\bFAIL\b", text):
        name = "?"
        for pos, h in headers:
            if pos > m.start():
                break
            name = h
        rest = text[m.end():]
        end = LITMUS_END_OF_REASON.search(rest)
        reason = (rest[:end.start()] if end else rest).strip()
        if reason.startswith("(") and reason.endswith(")"):
            reason = reason[1:-1].strip()
        out.append((name, reason))
    return out


def litmus_readable(output):
    """litmus output without the progress copies of each test line (litmus
    prints "N. name....", then rewrites it after a CR with the result)."""
    lines = [l for l in output.replace("\r", "\n").split("\n") if l.strip()]
    return "\n".join(l for i, l in enumerate(lines)
                     if not (i + 1 < len(lines) and lines[i + 1].startswith(l) and len(lines[i + 1]) > len(l)))


def debug_sections(debug_log, names, head=15, tail_lines=70):
    """The debug.log trace of each named test (litmus marks them with
    "******* Running test N: name ********"): its first and last lines (the
    failing exchange is usually the last)."""
    parts = re.split(r"(?m)^(\*{7} Running test \d+: \w+ \*{8})$", debug_log)
    out = []
    for i in range(1, len(parts) - 1, 2):
        m = re.match(r"\*+ Running test (\d+): (\w+)", parts[i])
        if "%s. %s" % m.groups() in names:
            lines = parts[i + 1].strip("\n").splitlines()
            if len(lines) > head + tail_lines:
                lines = lines[:head] + ["[... %d lines ...]" % (len(lines) - head - tail_lines)] + lines[-tail_lines:]
            out.append(parts[i] + "\n" + "\n".join(lines))
    return "\n".join(out)


class LitmusTest(unittest.TestCase):
    """Each suite against its own fresh parent collection; litmus creates
    (and at the end deletes) `litmus/` below it."""

    @classmethod
    def setUpClass(cls):
        require_tool("litmus")
        cls.srv, cls.admin = start_server()
        cls.dav = Dav(cls.srv, *ADMIN)

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def run_suite(self, suite):
        self.assertIsNone(self.srv.proc.poll(), "server is down:\n" + tail(self.srv.log(), 60))
        parent = dav_path("litmus-" + suite, collection=True)
        status, _, body = self.dav.mkcol(parent)
        self.assertEqual(status, 201, body)
        with tempfile.TemporaryDirectory(prefix="nubo-litmus-") as cwd:  # litmus writes debug.log here
            p = run(["litmus", "-k", self.srv.url(parent), ADMIN[0], ADMIN[1]], timeout=300, cwd=cwd,
                    env=clean_env(TESTS=suite), text=True, errors="replace")
            try:
                with open(os.path.join(cwd, "debug.log"), encoding="utf-8", errors="replace") as f:
                    debug = f.read()
            except OSError:
                debug = ""
        output = p.stdout + p.stderr
        summary = [m for m in LITMUS_SUMMARY.finditer(output) if m.group(1) == suite]
        failures = litmus_failures(output)
        ok = (p.returncode is not None and len(summary) == 1 and summary[0].group(5) == "100.0"
              and summary[0].group(4) == "0" and not failures)
        if suite == "locks":
            # litmus skips every lock test, silently, unless OPTIONS says class 2.
            ok = ok and "does not claim Class 2" not in output
        if not ok:
            lines = ["litmus %s: %s" % (suite, summary[0].group(0) if summary else
                                        "no summary line (exit %s)" % p.returncode)]
            lines += ["FAIL %s: %s" % f for f in failures]
            skipped = set(re.findall(r"(\d+\.\s\w+)\.*\s*SKIPPED", output.replace("\r", "\n")))
            if skipped:
                lines.append("skipped: " + ", ".join(sorted(skipped, key=lambda t: int(t.split(".")[0]))))
            lines += ["", "---- litmus output (tail) ----", tail(litmus_readable(output), 150)]
            trace = debug_sections(debug, {f[0] for f in failures})
            if trace:
                lines += ["", "---- debug.log of the failing tests ----", trace]
            log = [l for l in self.srv.log().splitlines() if " I config " not in l]
            lines += ["", "---- server log (tail, without config lines) ----", "\n".join(log[-40:])]
            self.fail("\n".join(lines))
        self.assertIsNone(self.srv.proc.poll(), "server died:\n" + tail(self.srv.log(), 60))

    def test_basic(self):
        self.run_suite("basic")

    def test_copymove(self):
        self.run_suite("copymove")

    def test_props(self):
        self.run_suite("props")

    def test_locks(self):
        self.run_suite("locks")

    def test_http(self):
        self.run_suite("http")


# ----------------------------------------------------------------------------
# rclone


TREE_DIRS = [""]
for _top in ("alpha", "Ordner Ä", "beta gamma", "日本語"):
    TREE_DIRS.append(_top)
    for _mid in ("one", "zwei ü", "three & co"):
        TREE_DIRS.append(_top + "/" + _mid)
        for _low in ("deep", "tief ß"):
            TREE_DIRS.append(_top + "/" + _mid + "/" + _low)
NAME_PATTERNS = [
    "Ünïcödé ✓ %04d.txt",
    "file with spaces %04d.txt",
    "emoji 😀 %04d.bin",
    "%04d-ümlaut-ß.dat",
    "sym #%% &+ ;=@! (%04d) [x] ~'.txt",
    "f%04d.bin",
    "f%04d.bin",
    ".hidden %04d",
    "Ελληνικά %04d.txt",
    "f%04d.bin",
]
BIG = {7, 123, 456, 789, 998}


def write_file(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def build_tree(root, rng, count=1000):
    """{relative path: bytes} of `count` files in 41 folders, 3 levels
    deep; names are unique across the tree (each carries its index)."""
    files = {"Ünïcödé ✓.txt": b"unicode name at the root\n"}
    for i in range(1, count):
        folder = TREE_DIRS[i] if i < len(TREE_DIRS) else rng.choice(TREE_DIRS)  # every folder gets files
        name = NAME_PATTERNS[i % len(NAME_PATTERNS)] % i
        if i in BIG:
            size = rng.randint(1 * MiB, 3 * MiB)
        elif i % 97 == 0:
            size = 0
        else:
            size = rng.randint(0, 64 * KiB)
        files[(folder + "/" if folder else "") + name] = rng.randbytes(size)
    for rel, data in files.items():
        assert unicodedata.is_normalized("NFC", rel), rel
        write_file(root, rel, data)
    return files


def read_tree(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            path = os.path.join(dirpath, n)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


class RcloneTest(unittest.TestCase):
    USER = ("carol", "carol-password-1")

    @classmethod
    def setUpClass(cls):
        require_tool("rclone")
        cls.srv, cls.admin = start_server()
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-rclone-")
        try:
            cls.user = add_user(cls.admin, *cls.USER)
            cls.conf = os.path.join(cls.tmp.name, "rclone.conf")
            p = run(["rclone", "obscure", cls.USER[1]], timeout=60, env=clean_env(RCLONE_CONFIG=cls.conf),
                    text=True)
            assert p.returncode == 0, p.stderr
            with open(cls.conf, "w") as f:
                f.write("[nubo]\ntype = webdav\nurl = http://127.0.0.1:%d/dav\nvendor = other\n"
                        "user = %s\npass = %s\n" % (cls.srv.port, cls.USER[0], p.stdout.strip()))
            os.chmod(cls.conf, 0o600)
        except BaseException:
            cls.tmp.cleanup()
            cls.srv.close()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()
        cls.srv.close()

    def rclone(self, *args, timeout=600):
        p = run(["rclone", *args, "--retries", "1", "--low-level-retries", "1", "--transfers", "4",
                 "--checkers", "8", "--stats", "0"], timeout=timeout,
                env=clean_env(RCLONE_CONFIG=self.conf, HOME=self.tmp.name), text=True, errors="replace")
        self.assertEqual(p.returncode, 0, "rclone %s failed (exit %s):\n%s\n---- server log ----\n%s" % (
            " ".join(args), p.returncode, tail(p.stdout + p.stderr, 80), tail(self.srv.log(), 40)))
        return p

    def assert_tree(self, expected, got_root, what):
        got = read_tree(got_root)
        self.assertEqual(sorted(got), sorted(expected), what + ": file names differ")
        bad = [rel for rel in expected if got[rel] != expected[rel]]
        self.assertEqual(bad, [], what + ": content differs")

    def test_copy_check_sync_roundtrip(self):
        rng = random.Random(20261130)
        local = os.path.join(self.tmp.name, "local")
        files = build_tree(local, rng)
        self.assertEqual(len(files), 1000)

        # Upload, check (sizes: vendor "other" has no hashes), read back.
        self.rclone("copy", local, "nubo:tree")
        self.rclone("check", local, "nubo:tree")
        self.rclone("copy", "nubo:tree", os.path.join(self.tmp.name, "back1"))
        self.assert_tree(files, os.path.join(self.tmp.name, "back1"), "after copy")

        # Change 20, delete 20, add 20 (one in a new folder). Without remote
        # modification times rclone compares sizes only, so every change
        # also changes the size.
        small = sorted(rel for rel, data in files.items() if len(data) <= 64 * KiB)
        picked = rng.sample(small, 40)
        changed, deleted = picked[:20], picked[20:]
        for rel in changed:
            data = files[rel]
            new = data[: len(data) // 2] + rng.randbytes(rng.randint(1, 4096)) + b"changed"
            files[rel] = new if len(new) != len(data) else new + b"!"
            write_file(local, rel, files[rel])
        for rel in deleted:
            os.unlink(os.path.join(local, rel))
            del files[rel]
        added = []
        for i in range(20):
            folder = "neu Ordner ✓/sub" if i < 3 else rng.choice(TREE_DIRS)
            rel = (folder + "/" if folder else "") + "added %02d ✓.txt" % i
            files[rel] = rng.randbytes(rng.randint(0, 32 * KiB))
            write_file(local, rel, files[rel])
            added.append(rel)

        self.rclone("sync", local, "nubo:tree")
        self.rclone("check", local, "nubo:tree")
        self.rclone("copy", "nubo:tree", os.path.join(self.tmp.name, "back2"))
        self.assert_tree(files, os.path.join(self.tmp.name, "back2"), "after sync")

        # The REST API sees the same tree; the deleted files are in the trash.
        tree = [n for n in self.user.list_all(self.user.root) if n["name"] == "tree"]
        self.assertEqual(len(tree), 1)
        nodes = self.user.walk(tree[0]["id"])
        remote_files = {rel: n["size"] for rel, n in nodes.items() if n["kind"] == "file"}
        self.assertEqual(remote_files, {rel: len(data) for rel, data in files.items()})
        for rel in deleted:
            self.assertNotIn(rel, nodes)
        trashed = [n["name"] for n in self.user.trash() if n["kind"] == "file"]
        missing = [rel for rel in deleted if rel.rsplit("/", 1)[-1] not in trashed]
        self.assertEqual(missing, [], "deleted over WebDAV but not in the trash")
        self.assertIsNone(self.srv.proc.poll(), tail(self.srv.log(), 60))


# ----------------------------------------------------------------------------
# cadaver


class CadaverTest(unittest.TestCase):
    USER = ("dave", "dave-password-1")  # .netrc tokens cannot hold spaces

    @classmethod
    def setUpClass(cls):
        require_tool("cadaver")
        cls.srv, cls.admin = start_server()
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-cadaver-")
        try:
            cls.user = add_user(cls.admin, *cls.USER)
            cls.home = os.path.join(cls.tmp.name, "home")
            os.mkdir(cls.home)
            netrc = os.path.join(cls.home, ".netrc")
            with open(netrc, "w") as f:
                f.write("machine 127.0.0.1 login %s password %s\n" % cls.USER)
            os.chmod(netrc, stat.S_IRUSR | stat.S_IWUSR)
        except BaseException:
            cls.tmp.cleanup()
            cls.srv.close()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()
        cls.srv.close()

    def cadaver(self, script):
        """Runs the script; returns [(command, output)] per prompt."""
        p = run(["cadaver", self.srv.url("/dav/")], timeout=120, input=script,
                env=clean_env(HOME=self.home), text=True, errors="replace", cwd=self.tmp.name)
        out = p.stdout + p.stderr
        self.assertEqual(p.returncode, 0, out)
        steps = []
        for part in re.split(r"(?m)^dav:[^\n>]*> ", out)[1:]:
            cmd, _, rest = part.partition("\n")
            steps.append((cmd.strip(), rest))
        return out, steps

    def test_script(self):
        rng = random.Random(4918)
        up1 = os.path.join(self.tmp.name, "up1.bin")
        up2 = os.path.join(self.tmp.name, "up2.bin")
        got = os.path.join(self.tmp.name, "got.bin")
        got2 = os.path.join(self.tmp.name, "got2.bin")
        data1, data2 = rng.randbytes(300 * KiB + 17), rng.randbytes(70 * KiB + 3)
        for path, data in ((up1, data1), (up2, data2)):
            with open(path, "wb") as f:
                f.write(data)
        script = "\n".join([
            "mkcol cad",
            "cd cad",
            "put %s up.bin" % up1,
            "get up.bin %s" % got,
            "copy up.bin copy.bin",
            "move copy.bin moved.bin",
            "mkcol sub",
            "copy up.bin sub/inner.bin",
            "lock up.bin",
            "put %s up.bin" % up2,  # as the lock owner: cadaver sends the token
            "unlock up.bin",
            "get up.bin %s" % got2,
            "propset up.bin color blue",
            "propget up.bin color",
            "propdel up.bin color",
            "propget up.bin color",
            "delete moved.bin",
            "ls",
            "quit",
            "",
        ])
        out, steps = self.cadaver(script)
        cmds = [c for c, _ in steps]
        self.assertEqual(cmds, script.strip().split("\n"), out)
        by = {}
        for cmd, text in steps:
            by.setdefault(cmd, []).append(text)

        def ok(cmd, *needles, index=0):
            text = by[cmd][index]
            self.assertIn("succeeded.", text, "%s:\n%s" % (cmd, out))
            self.assertNotIn("failed", text, "%s:\n%s" % (cmd, out))
            for n in needles:
                self.assertIn(n, text, "%s:\n%s" % (cmd, out))

        ok("mkcol cad", "Creating `cad'")
        ok("put %s up.bin" % up1, "`/dav/cad/up.bin'")
        ok("get up.bin %s" % got, "`/dav/cad/up.bin'")
        ok("copy up.bin copy.bin", "Copying `/dav/cad/up.bin' to `/dav/cad/copy.bin'")
        ok("move copy.bin moved.bin", "Moving `/dav/cad/copy.bin' to `/dav/cad/moved.bin'")
        ok("mkcol sub", "Creating `sub'")
        ok("copy up.bin sub/inner.bin", "`/dav/cad/sub/inner.bin'")
        ok("lock up.bin", "Locking `up.bin'")
        ok("put %s up.bin" % up2, "`/dav/cad/up.bin'")
        ok("unlock up.bin", "Unlocking `up.bin'")
        ok("get up.bin %s" % got2)
        ok("propset up.bin color blue", "Setting property on `up.bin'")
        self.assertIn("Value of color is: blue", by["propget up.bin color"][0], out)
        ok("propdel up.bin color", "Deleting property on `up.bin'")
        self.assertNotIn("Value of color", by["propget up.bin color"][1], out)
        self.assertIn("404", by["propget up.bin color"][1], out)
        ok("delete moved.bin", "Deleting `moved.bin'")
        ok("ls", "Listing collection `/dav/cad/'")
        listing = by["ls"][0]
        self.assertRegex(listing, r"(?m)^\s*Coll:\s+sub\b", out)
        self.assertRegex(listing, r"(?m)^\s+up\.bin\s+%d\s" % len(data2), out)
        self.assertNotIn("moved.bin", listing, out)
        self.assertNotIn("copy.bin", listing, out)

        with open(got, "rb") as f:
            self.assertEqual(f.read(), data1)
        with open(got2, "rb") as f:
            self.assertEqual(f.read(), data2)

        # The same state through the REST API.
        u = self.user
        cad = [n for n in u.list_all(u.root) if n["name"] == "cad"]
        self.assertEqual(len(cad), 1)
        nodes = u.walk(cad[0]["id"])
        self.assertEqual(sorted(nodes), ["sub", "sub/inner.bin", "up.bin"])
        self.assertEqual(u.read(nodes["up.bin"]["id"]), data2)
        self.assertEqual(u.read(nodes["sub/inner.bin"]["id"]), data1)
        self.assertIn("moved.bin", [n["name"] for n in u.trash()])


# ----------------------------------------------------------------------------
# Direct protocol checks


class DavProtocolTest(FsckMixin, unittest.TestCase):
    A = ("alice", "alice-password-1")
    B = ("bob", "bob-password-123")

    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin = start_server()
        try:
            cls.ra = add_user(cls.admin, *cls.A)
            cls.rb = add_user(cls.admin, *cls.B)
        except BaseException:
            cls.srv.close()
            raise
        cls.a = Dav(cls.srv, *cls.A)
        cls.b = Dav(cls.srv, *cls.B)

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def setUp(self):
        if self._testMethodName == "test_zz_fsck":
            return
        self.assertIsNone(self.srv.proc.poll(), "server is down:\n" + tail(self.srv.log(), 60))
        self.base = self._testMethodName
        status, _, body = self.a.mkcol(dav_path(self.base))
        self.assertEqual(status, 201, body)

    def p(self, *segments, **kw):
        return dav_path(self.base, *segments, **kw)

    def rest_node(self, client, *segments):
        """The REST node at a path below the caller's root."""
        node_id = client.root
        node = None
        for s in segments:
            node = [n for n in client.list_all(node_id) if n["name"] == s]
            assert len(node) == 1, (segments, s)
            node = node[0]
            node_id = node["id"]
        return node

    # --- discovery and authentication

    def test_options_advertises_class_1_and_2(self):
        for path in ("/dav/", "/webdav/", self.p(collection=True)):
            status, hdrs, body = self.a.raw("OPTIONS", path)
            self.assertIn(status, (200, 204), (path, body))
            classes = [c.strip() for c in hdrs.get("dav", "").split(",")]
            self.assertIn("1", classes, hdrs)
            self.assertIn("2", classes, hdrs)
            allow = {m.strip().upper() for m in hdrs.get("allow", "").split(",")}
            for m in ("PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "DELETE"):
                self.assertIn(m, allow, (path, hdrs))

    def test_authentication(self):
        for path in ("/dav/", "/webdav/"):
            status, hdrs, _ = self.a.propfind(path, "0", auth=False)
            self.assertEqual(status, 401)
            self.assertRegex(hdrs.get("www-authenticate", ""), r"(?i)^basic\b.*realm=", hdrs)
            wrong = {"Depth": "0", "Authorization": basic_auth(self.A[0], "wrong password")}
            self.assertEqual(self.a.raw("PROPFIND", path, b"", wrong, auth=False)[0], 401)
            self.assertEqual(self.a.propfind(path, "0")[0], 207)
        # An app password works as the Basic password.
        status, _, app = self.ra.call("POST", "/api/v1/me/app-passwords", {"label": "dav client"})
        self.assertEqual(status, 201, app)
        via_app = Dav(self.srv, self.A[0], app["password"])
        status, _, body = via_app.propfind("/dav/", "1")
        self.assertEqual(status, 207, body)
        self.assertIn("/dav/" + self.base, multistatus(body))

    def inline_count(self):
        status, _, body = Dav(self.srv, *ADMIN).raw("GET", "/metrics")
        self.assertEqual(status, 200)
        m = re.search(rb"^nubo_http_inline_requests_total (\d+)$", body, re.M)
        self.assertIsNotNone(m, "no inline counter in /metrics")
        return int(m.group(1))

    def test_depth0_poll_runs_inline_and_obeys_credentials(self):
        # A sync client's poll (PROPFIND Depth: 0) is answered on the network
        # thread once the caches know the caller, and is refused there exactly
        # as on the blocking path.
        user = ("carol", "carol-password-1")
        add_user(self.admin, *user)
        carol = Dav(self.srv, *user)
        with_pw = lambda pw: {"Depth": "0", "Authorization": basic_auth(user[0], pw)}
        for _ in range(3):
            self.assertEqual(carol.propfind("/dav/", "0")[0], 207)
        before = self.inline_count()
        for _ in range(3):
            status, _, body = carol.propfind("/dav/", "0")
            self.assertEqual(status, 207, body)
        self.assertGreaterEqual(self.inline_count() - before, 2)  # the state cache may refresh once
        # Depth 1 and other methods take the blocking path.
        before = self.inline_count()
        self.assertEqual(carol.propfind("/dav/", "1")[0], 207)
        self.assertEqual(carol.raw("OPTIONS", "/dav/")[0] // 100, 2)
        self.assertEqual(self.inline_count(), before)
        # A wrong password is never vouched for.
        self.assertEqual(carol.raw("PROPFIND", "/dav/", b"", with_pw("wrong password"), auth=False)[0], 401)
        self.assertEqual(self.inline_count(), before)
        # A reset password ends the cached one at once; the new one works.
        self.assertEqual(self.admin.call("POST", "/api/v1/admin/users/carol/password",
                                         {"password": "carol's new password"})[0], 204)
        self.assertEqual(carol.raw("PROPFIND", "/dav/", b"", with_pw(user[1]), auth=False)[0], 401)
        for _ in range(3):
            self.assertEqual(carol.raw("PROPFIND", "/dav/", b"", with_pw("carol's new password"),
                                       auth=False)[0], 207)
        # A deactivated account is refused at once.
        self.assertEqual(self.admin.call("PATCH", "/api/v1/admin/users/carol", {"active": False})[0], 200)
        self.assertEqual(carol.raw("PROPFIND", "/dav/", b"", with_pw("carol's new password"),
                                   auth=False)[0], 401)

    def test_webdav_alias_is_the_same_drive(self):
        self.assertIn(self.a.put(self.p("alias.txt"), b"via alias")[0], (200, 201, 204))
        status, _, data = self.a.raw("GET", dav_path(self.base, "alias.txt", prefix="/webdav"))
        self.assertEqual((status, data), (200, b"via alias"))
        listing = self.a.listing(dav_path(self.base, prefix="/webdav", collection=True))
        self.assertIn("alias.txt", {p.rsplit("/", 1)[-1] for p in listing})

    # --- PROPFIND

    def test_propfind_depth_infinity_is_refused(self):
        for depth in ("infinity", "Infinity", None):  # absent means infinity (RFC 4918 §9.1)
            status, hdrs, body = self.a.propfind("/dav/", depth)
            self.assertEqual(status, 403, (depth, body[:500]))
            self.assertIn(b"propfind-finite-depth", body)
            root = ET.fromstring(body)
            self.assertEqual(root.tag, D + "error")
            self.assertIsNotNone(root.find(D + "propfind-finite-depth"), body)
        self.assertEqual(self.a.propfind("/dav/", "2")[0], 400)

    def test_propfind_depth_1_on_2000_files_streams(self):
        # More members than a page of the listing on either engine (200 on
        # SQLite, 2,000 on PostgreSQL), the folders' end inside the first
        # page, a last page partly full: every member exactly once, in
        # order, with its own size.
        n, dirs = 2150, 30
        conn = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=60)
        try:
            for i in range(dirs):
                self.assertEqual(self.a.mkcol(self.p("dir %02d" % i), conn=conn)[0], 201)
            for i in range(n):
                path = self.p("file %04d ✓.txt" % i)
                for attempt in (0, 1):  # the server may close an idle keep-alive connection
                    try:
                        status, _, body = self.a.put(path, b"x" * (i % 7), conn=conn)
                        break
                    except (http.client.RemoteDisconnected, ConnectionError, BrokenPipeError):
                        conn.close()
                        if attempt:
                            raise
                self.assertEqual(status, 201, (i, body))
        finally:
            conn.close()
        for props in (None, ["getcontentlength", "getetag", "resourcetype", "displayname"]):
            status, hdrs, body = self.a.propfind(self.p(collection=True), "1", props)
            self.assertEqual(status, 207, body[:500])
            self.assertEqual(hdrs.get("transfer-encoding", "").lower(), "chunked", hdrs)
            self.assertNotIn("content-length", hdrs)
            root = ET.fromstring(body)
            folder = "/dav/" + self.base
            hrefs = [href_path(r.findtext(D + "href")) for r in root.findall(D + "response")]
            self.assertEqual(hrefs, [folder] + ["%s/dir %02d" % (folder, i) for i in range(dirs)] +
                             ["%s/file %04d ✓.txt" % (folder, i) for i in range(n)])
            listing = multistatus(body)
            self.assertIsNotNone(listing[folder][D + "resourcetype"][1].find(D + "collection"))
            self.assertIsNotNone(listing[folder + "/dir 29"][D + "resourcetype"][1].find(D + "collection"))
            for i in range(n):
                props_i = listing["%s/file %04d ✓.txt" % (folder, i)]
                self.assertEqual(props_i[D + "getcontentlength"][0], 200)
                self.assertEqual(props_i[D + "getcontentlength"][1].text, str(i % 7), i)
                self.assertIsNone(props_i[D + "resourcetype"][1].find(D + "collection"))

    def lock(self, path, depth, scope="exclusive"):
        body = ('<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:%s/>'
                '</D:lockscope><D:locktype><D:write/></D:locktype><D:owner>t</D:owner></D:lockinfo>' % scope)
        status, hdrs, resp = self.a.raw("LOCK", path, body.encode(),
                                        {"Depth": depth, "Timeout": "Second-600", "Content-Type": "application/xml"})
        self.assertIn(status, (200, 201), resp)
        return hdrs["lock-token"].strip("<>")

    def test_put_errors_are_dav_errors(self):
        # Errors met before a PUT's body is read are answered by WebDAV,
        # not in the REST API's JSON: a locked target names its lock root
        # in lock-token-submitted (RFC 4918 §9.7.1, §16).
        self.assertIn(self.a.put(self.p("locked.txt"), b"v1")[0], (200, 201, 204))
        token = self.lock(self.p("locked.txt"), "0")
        status, hdrs, body = self.a.put(self.p("locked.txt"), b"v2")
        self.assertEqual(status, 423, body)
        self.assertNotIn("json", hdrs.get("content-type", ""))
        root = ET.fromstring(body)
        self.assertEqual(root.tag, D + "error")
        href = root.find(D + "lock-token-submitted/" + D + "href")
        self.assertIsNotNone(href, body)
        self.assertEqual(href_path(href.text), "/dav/%s/locked.txt" % self.base)
        status, hdrs, body = self.a.raw("PUT", self.p("locked.txt"), b"v2", {"If": "(<%s"})
        self.assertEqual(status, 400, body)
        self.assertNotIn("json", hdrs.get("content-type", ""))
        self.assertFalse(body.lstrip().startswith(b"{"), body)
        status, _, body = self.a.raw("PUT", self.p("locked.txt"), b"v3", {"If": "(<%s>)" % token})
        self.assertIn(status, (200, 204), body)
        self.assertEqual(self.a.raw("GET", self.p("locked.txt"))[2], b"v3")
        self.assertEqual(self.a.raw("UNLOCK", self.p("locked.txt"), headers={"Lock-Token": "<%s>" % token})[0], 204)

    def test_listing_shows_each_members_locks_and_dead_properties(self):
        # A listing loads locks and dead properties once per page, not per
        # member: every member must still show exactly its own.
        self.assertEqual(self.a.mkcol(self.p("locked"))[0], 201)
        self.assertEqual(self.a.mkcol(self.p("shallow"))[0], 201)
        for rel in (("locked", "a.txt"), ("locked", "b.txt"), ("shallow", "c.txt"), ("plain.txt",)):
            self.assertIn(self.a.put(self.p(*rel), b"x")[0], (200, 201, 204))
        deep = self.lock(self.p("locked", collection=True), "infinity")
        shallow = self.lock(self.p("shallow", collection=True), "0")
        shared = {self.lock(self.p("plain.txt"), "0", "shared") for _ in range(2)}
        patch = (b'<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z">'
                 b'<D:set><D:prop><Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>')
        status, _, resp = self.a.raw("PROPPATCH", self.p("locked", "a.txt"), patch,
                                     {"Content-Type": "application/xml", "If": "(<%s>)" % deep})
        self.assertEqual(status, 207, resp)

        def tokens(props):
            code, el = props[D + "lockdiscovery"]
            self.assertEqual(code, 200)
            return {h.text for h in el.iter(D + "href") if h.text.startswith("urn:uuid:")}

        top = self.a.listing(self.p(collection=True))
        folder = "/dav/" + self.base
        self.assertEqual(tokens(top[folder]), set())
        self.assertEqual(tokens(top[folder + "/locked"]), {deep})
        self.assertEqual(tokens(top[folder + "/shallow"]), {shallow})
        self.assertEqual(tokens(top[folder + "/plain.txt"]), shared)
        inner = self.a.listing(self.p("locked", collection=True))
        self.assertEqual(tokens(inner[folder + "/locked"]), {deep})
        self.assertEqual(tokens(inner[folder + "/locked/a.txt"]), {deep})  # Depth infinity covers members
        self.assertEqual(tokens(inner[folder + "/locked/b.txt"]), {deep})
        self.assertEqual(inner[folder + "/locked/a.txt"]["{urn:z}color"][1].text, "red")
        self.assertNotIn("{urn:z}color", inner[folder + "/locked/b.txt"])
        alone = self.a.listing(self.p("locked", "a.txt"), depth="0")
        self.assertEqual(tokens(alone[folder + "/locked/a.txt"]), {deep})
        self.assertEqual(tokens(self.a.listing(self.p("plain.txt"), depth="0")[folder + "/plain.txt"]), shared)
        below_shallow = self.a.listing(self.p("shallow", collection=True))
        self.assertEqual(tokens(below_shallow[folder + "/shallow/c.txt"]), set())  # Depth 0 does not
        # Asked by name: found where set, 404 in its own propstat elsewhere.
        body = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:" xmlns:Z="urn:z"><D:prop>'
                b'<Z:color/><D:getcontentlength/></D:prop></D:propfind>')
        status, _, resp = self.a.raw("PROPFIND", self.p("locked", collection=True), body,
                                     {"Depth": "1", "Content-Type": "application/xml"})
        self.assertEqual(status, 207, resp)
        named = multistatus(resp)
        self.assertEqual(named[folder + "/locked/a.txt"]["{urn:z}color"][0], 200)
        code, length = named[folder + "/locked/a.txt"][D + "getcontentlength"]
        self.assertEqual((code, length.text), (200, "1"))
        self.assertEqual(named[folder + "/locked/b.txt"]["{urn:z}color"][0], 404)
        self.assertEqual(named[folder + "/locked"][D + "getcontentlength"][0], 404)
        for token, path in [(deep, self.p("locked", collection=True)), (shallow, self.p("shallow", collection=True))] + \
                [(t, self.p("plain.txt")) for t in shared]:
            self.assertEqual(self.a.raw("UNLOCK", path, headers={"Lock-Token": "<%s>" % token})[0], 204)

    def test_malformed_xml_is_400(self):
        self.assertIn(self.a.put(self.p("f.txt"), b"f")[0], (200, 201, 204))
        bodies = [
            b'<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop>',          # truncated
            b'<?xml version="1.0"?><D:propfind><D:prop/></D:propfind>',           # unbound prefix
            b'<?xml version="1.0"?><D:propfind xmlns:D="DAV:"></D:propfin>',      # mismatched tag
            b'not xml at all',
            b'<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop/></D:propfind><x/>',  # two roots
            b'\xff\xfe<bad encoding',
        ]
        for body in bodies:
            for method, path, headers in (("PROPFIND", self.p("f.txt"), {"Depth": "0"}),
                                          ("PROPPATCH", self.p("f.txt"), {}),
                                          ("LOCK", self.p("f.txt"), {})):
                h = dict(headers, **{"Content-Type": "application/xml"})
                status, _, resp = self.a.raw(method, path, body, h)
                self.assertEqual(status, 400, (method, body, resp[:300]))
        # Well-formed, but not a propfind.
        status, _, _ = self.a.raw("PROPFIND", self.p("f.txt"),
                                  b'<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"/>',
                                  {"Depth": "0", "Content-Type": "application/xml"})
        self.assertEqual(status, 400)
        # The file was not locked by any of it.
        self.assertIn(self.a.put(self.p("f.txt"), b"g")[0], (200, 204))

    def test_dtd_and_entities_are_400(self):
        self.assertIn(self.a.put(self.p("f.txt"), b"f")[0], (200, 201, 204))
        laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
                  + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                             for i in range(1, 10))
                  + b']><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x:a xmlns:x="urn:x">&lol9;</x:a>'
                    b'</D:prop></D:set></D:propertyupdate>')
        xxe = (b'<?xml version="1.0"?><!DOCTYPE p [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
               b'<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x:a xmlns:x="urn:x">&xxe;</x:a>'
               b'</D:prop></D:set></D:propertyupdate>')
        plain_dtd = (b'<?xml version="1.0"?><!DOCTYPE D:propfind SYSTEM "http://example.com/dav.dtd">'
                     b'<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>')
        internal = (b'<?xml version="1.0"?><!DOCTYPE D:propfind [<!ENTITY e "getetag">]>'
                    b'<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>')
        for body in (laughs, xxe):
            status, _, resp = self.a.raw("PROPPATCH", self.p("f.txt"), body, {"Content-Type": "application/xml"})
            self.assertEqual(status, 400, resp[:300])
            self.assertNotIn(b"root:", resp)
        for body in (plain_dtd, internal):
            status, _, resp = self.a.raw("PROPFIND", self.p("f.txt"), body,
                                         {"Depth": "0", "Content-Type": "application/xml"})
            self.assertEqual(status, 400, resp[:300])
        # Nothing was stored: the dead property does not exist.
        status, _, body = self.a.raw(
            "PROPFIND", self.p("f.txt"),
            b'<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><x:a xmlns:x="urn:x"/></D:prop></D:propfind>',
            {"Depth": "0", "Content-Type": "application/xml"})
        self.assertEqual(status, 207, body)
        props = multistatus(body)["/dav/%s/f.txt" % self.base]
        self.assertEqual(props["{urn:x}a"][0], 404)

    # --- ETags, content, ranges

    def test_getetag_matches_rest_etag(self):
        path = self.p("etag.txt")
        self.assertEqual(self.a.put(path, b"first version")[0], 201)
        seen = set()
        for data in (b"first version", b"second, longer version"):
            if data != b"first version":
                self.assertIn(self.a.put(path, data)[0], (200, 204))
            props = self.a.listing(path, "0", ["getetag", "getcontentlength"])["/dav/%s/etag.txt" % self.base]
            code, el = props[D + "getetag"]
            self.assertEqual(code, 200)
            node = self.rest_node(self.ra, self.base, "etag.txt")
            self.assertEqual(el.text, node["etag"])
            self.assertEqual(props[D + "getcontentlength"][1].text, str(len(data)))
            status, hdrs, body = self.a.raw("GET", path)
            self.assertEqual((status, body), (200, data))
            self.assertEqual(hdrs.get("etag"), node["etag"])
            # Conditional GET with that ETag.
            self.assertEqual(self.a.raw("GET", path, headers={"If-None-Match": node["etag"]})[0], 304)
            seen.add(node["etag"])
        self.assertEqual(len(seen), 2)

    def test_put_get_5mib_with_ranges(self):
        size = 5 * MiB
        data = random.Random(5).randbytes(size)
        path = self.p("big five.bin")
        status, _, body = self.a.put(path, data)
        self.assertEqual(status, 201, body)
        status, hdrs, got = self.a.raw("GET", path)
        self.assertEqual(status, 200)
        self.assertEqual(int(hdrs["content-length"]), size)
        self.assertTrue(got == data, "GET differs from PUT")
        status, hdrs, got = self.a.raw("HEAD", path)
        self.assertEqual((status, got), (200, b""))
        self.assertEqual(int(hdrs["content-length"]), size)
        self.assertIn("bytes", hdrs.get("accept-ranges", ""))
        for rng, first, last in (("bytes=0-0", 0, 0),
                                 ("bytes=1048576-2097151", 1 * MiB, 2 * MiB - 1),
                                 ("bytes=-1000", size - 1000, size - 1),
                                 ("bytes=5242000-", 5242000, size - 1),
                                 ("bytes=4194300-9999999", 4194300, size - 1)):
            status, hdrs, got = self.a.raw("GET", path, headers={"Range": rng})
            self.assertEqual(status, 206, rng)
            self.assertEqual(hdrs["content-range"], "bytes %d-%d/%d" % (first, last, size), rng)
            self.assertTrue(got == data[first:last + 1], rng)
        status, hdrs, _ = self.a.raw("GET", path, headers={"Range": "bytes=6000000-"})
        self.assertEqual(status, 416)
        self.assertEqual(hdrs.get("content-range"), "bytes */%d" % size)
        # Several ranges: multipart/byteranges (or, as RFC 7233 allows, the whole).
        status, hdrs, got = self.a.raw("GET", path, headers={"Range": "bytes=0-9,3000000-3000099"})
        if status == 206:
            parts = parse_byteranges(hdrs["content-type"], got)
            self.assertEqual([(p[0], p[1], p[4]) for p in parts],
                             [(0, 9, data[:10]), (3000000, 3000099, data[3000000:3000100])])
        else:
            self.assertEqual(status, 200)
            self.assertTrue(got == data)
        # Overwrite, and the new content is served.
        self.assertIn(self.a.put(path, data[:1000])[0], (200, 204))
        self.assertEqual(self.a.raw("GET", path)[2], data[:1000])

    # --- isolation and the trash

    def test_other_users_see_only_their_own_drive(self):
        secret = "alice-secret-%s.txt" % os.urandom(4).hex()
        self.assertEqual(self.a.put(self.p(secret), b"for alice only")[0], 201)
        self.assertEqual(self.b.put("/dav/bob-own.txt", b"bob's")[0], 201)
        status, _, body = self.b.propfind("/dav/", "1")
        self.assertEqual(status, 207, body)
        self.assertNotIn(secret.encode(), body)
        self.assertNotIn(self.base.encode(), body)
        self.assertIn("/dav/bob-own.txt", multistatus(body))
        # The same path names bob's own (absent) file, never alice's.
        self.assertEqual(self.b.raw("GET", self.p(secret))[0], 404)
        self.assertEqual(self.b.propfind(self.p(secret), "0")[0], 404)
        self.assertEqual(self.b.raw("DELETE", self.p(secret))[0], 404)
        self.assertEqual(self.a.raw("GET", self.p(secret))[2], b"for alice only")
        # Bob's COPY cannot reach into alice's drive either.
        status, _, _ = self.b.raw("COPY", "/dav/bob-own.txt",
                                  headers={"Destination": self.srv.url(self.p("from-bob.txt"))})
        self.assertIn(status, (201, 204, 409))
        self.assertEqual(self.a.raw("GET", self.p("from-bob.txt"))[0], 404)

    def test_delete_goes_to_the_trash(self):
        self.assertEqual(self.a.put(self.p("gone.txt"), b"bye")[0], 201)
        node = self.rest_node(self.ra, self.base, "gone.txt")
        status, _, body = self.a.raw("DELETE", self.p("gone.txt"))
        self.assertEqual(status, 204, body)
        self.assertEqual(self.a.raw("GET", self.p("gone.txt"))[0], 404)
        self.assertEqual(self.a.propfind(self.p("gone.txt"), "0")[0], 404)
        self.assertIn(node["id"], [n["id"] for n in self.ra.trash()])
        status, _, body = self.ra.call("POST", "/nodes/%s/restore" % node["id"])
        self.assertEqual(status, 200, body)
        self.assertEqual(self.a.raw("GET", self.p("gone.txt"))[2], b"bye")


    # --- partial updates (PATCH with X-Update-Range)

    def test_patch_update_range_reuses_chunks(self):
        a = self.a
        path = self.p("big.bin")
        rng = random.Random(7)
        data = bytearray(rng.randbytes(3 * 1024 * 1024))
        self.assertEqual(a.put(path, bytes(data))[0], 201)
        before = self.rest_node(self.ra, self.base, "big.bin")
        ptype = {"Content-Type": "application/x-sabredav-partialupdate"}

        def patch(rng_header, body, expect=204):
            status, hdrs, resp = a.raw("PATCH", path, body, dict(ptype, **{"X-Update-Range": rng_header}))
            self.assertEqual(status, expect, resp)
            return hdrs

        # Overwrite 5 bytes in the middle, replace the tail, append.
        patch("bytes=1500000-1500004", b"HELLO")
        data[1500000:1500005] = b"HELLO"
        patch("bytes=-3", b"END")
        data[-3:] = b"END"
        patch("append", b"+more")
        data += b"+more"
        status, hdrs, got = a.raw("GET", path)
        self.assertEqual((status, got), (200, bytes(data)))
        after = self.rest_node(self.ra, self.base, "big.bin")
        self.assertEqual(after["id"], before["id"])
        self.assertEqual(after["size"], len(data))
        self.assertNotEqual(after["etag"], before["etag"])
        self.assertEqual(hdrs["etag"], after["etag"])
        # Bad requests change nothing.
        patch("bytes=99999999-", b"x", expect=416)
        patch("bytes=0-9", b"short", expect=400)
        status, _, _ = a.raw("PATCH", path, b"x", {"X-Update-Range": "append"})
        self.assertEqual(status, 415)
        self.assertEqual(a.raw("GET", path)[2], bytes(data))


    def test_zz_fsck(self):
        # Runs last (names sort): every count and rollup the WebDAV
        # operations above touched must still be exact.
        self.assert_clean_shutdown_and_fsck(self.srv)


class PollCacheTest(unittest.TestCase):
    """A sync client's poll (PROPFIND Depth: 0 of named properties) may be
    answered from memory on SQLite while the database has not changed:
    every write of the server must show at once, another process's within
    a millisecond; each caller gets
    their own answer; what changes with the clock (a lock's expiry) is
    never kept. On PostgreSQL nothing is kept (another node's write leaves
    no trace in this process) and the same answers must come."""

    A = ("pollster", "pollster-password-1")
    B = ("bystander", "bystander-password-1")
    PROPS = b'<D:getetag/><D:getlastmodified/><D:resourcetype/><O:fileid/><O:favorite/><Z:color/>'

    @classmethod
    def setUpClass(cls):
        # No background jobs: their commits would end kept answers at
        # moments the test does not choose.
        cls.srv, cls.admin = start_server(NUBO_JOBS_WORKERS="0")
        try:
            cls.ra = add_user(cls.admin, *cls.A)
            add_user(cls.admin, *cls.B)
        except BaseException:
            cls.srv.close()
            raise
        cls.a = Dav(cls.srv, *cls.A)
        cls.b = Dav(cls.srv, *cls.B)
        cls.kept = cls.srv.database is None

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()

    def setUp(self):
        self.base = self._testMethodName
        self.assertEqual(self.a.mkcol(dav_path(self.base))[0], 201)

    def hits(self):
        """The poll cache's hits, None when it is off."""
        status, _, body = Dav(self.srv, *ADMIN).raw("GET", "/metrics")
        self.assertEqual(status, 200)
        m = re.search(rb"^nubo_dav_poll_cache_hits_total (\d+)$", body, re.M)
        return int(m.group(1)) if m else None

    def poll(self, dav, path, props=None, headers=None, expect=207):
        body = (b'<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:" '
                b'xmlns:O="http://owncloud.org/ns" xmlns:Z="urn:z"><D:prop>' + (props or self.PROPS) +
                b'</D:prop></D:propfind>')
        status, _, data = dav.raw("PROPFIND", path, body, dict({"Depth": "0"}, **(headers or {})))
        self.assertEqual(status, expect, data)
        return data

    def prop(self, data, tag):
        (href, props), = multistatus(data).items()
        code, el = props[tag]
        return code, el.text if el is not None else None

    def assert_kept(self, fill, repeat, least):
        """Runs fill() (polls that may read the database), then repeat(its
        result) (polls that must be answered from memory), and checks that
        at least `least` answers were kept; returns fill()'s result. The
        maintenance lease check commits every 5 s and every commit ends the
        kept answers, so one that lands between fill and repeat leaves fewer
        kept: the pair is tried again, three times at most (two commits in
        a few milliseconds cannot happen)."""
        for _ in range(3):
            got = fill()
            before = self.hits()
            repeat(got)
            after = self.hits()
            if not self.kept:
                self.assertIsNone(after, "a poll cache on PostgreSQL")
                return got
            if after - before >= least:
                return got
        self.fail("fewer than %d of the repeated polls were kept, three times over" % least)

    def test_a_repeated_poll_is_answered_as_read_until_a_write(self):
        folder = dav_path(self.base, collection=True)

        def repeat(first):
            for _ in range(3):
                self.assertEqual(self.poll(self.a, folder), first)

        first = self.assert_kept(lambda: self.poll(self.a, folder), repeat, 3)
        # A new member changes the folder's ETag: the next poll shows it.
        etag = self.prop(first, D + "getetag")[1]
        self.assertIn(self.a.put(dav_path(self.base, "new.txt"), b"new")[0], (200, 201, 204))
        fresh = self.poll(self.a, folder)
        self.assertNotEqual(self.prop(fresh, D + "getetag")[1], etag)
        self.assertEqual(self.poll(self.a, folder), fresh)
        # A dead property set and a favourite marked show at once too.
        self.assertEqual(self.prop(fresh, "{urn:z}color")[0], 404)
        patch = (b'<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z" '
                 b'xmlns:O="http://owncloud.org/ns"><D:set><D:prop><Z:color>red</Z:color>'
                 b'<O:favorite>1</O:favorite></D:prop></D:set></D:propertyupdate>')
        status, _, body = self.a.raw("PROPPATCH", folder, patch, {"Content-Type": "application/xml"})
        self.assertEqual(status, 207, body)
        patched = self.poll(self.a, folder)
        self.assertEqual(self.prop(patched, "{urn:z}color"), (200, "red"))
        self.assertEqual(self.prop(patched, "{http://owncloud.org/ns}favorite"), (200, "1"))
        # A file's own poll: its new content's length and ETag.
        path = dav_path(self.base, "new.txt")
        props = b"<D:getetag/><D:getcontentlength/>"
        old = self.poll(self.a, path, props)
        self.assertEqual(self.poll(self.a, path, props), old)
        self.assertIn(self.a.put(path, b"longer content")[0], (200, 201, 204))
        self.assertEqual(self.prop(self.poll(self.a, path, props), D + "getcontentlength"), (200, "14"))
        # Gone: 404, not a kept 207.
        self.assertEqual(self.a.raw("DELETE", path)[0], 204)
        self.poll(self.a, path, props, expect=404)

    def test_a_commit_by_another_process_shows_at_once(self):
        folder = dav_path(self.base, collection=True)
        first = self.poll(self.a, folder)
        self.assertEqual(self.poll(self.a, folder), first)
        # Another process moves the folder's modification time a day on,
        # straight in the database (as a second server or a tool would).
        sql = "UPDATE nodes SET mtime = mtime + 86400000 WHERE name = '%s'" % self.base
        if self.srv.database:
            import pg_cluster
            name = urllib.parse.urlsplit(self.srv.database).path.lstrip("/")
            pg_cluster.cluster().psql(name, sql)
        else:
            import sqlite3
            db = sqlite3.connect(os.path.join(self.srv.data, "nubo.db"), timeout=30)
            try:
                self.assertEqual(db.execute(sql).rowcount, 1)
                db.commit()
            finally:
                db.close()
        # Another process's commit shows within a millisecond (this one's at
        # once): a poll 20 ms later must see it.
        time.sleep(0.02)
        later = self.poll(self.a, folder)
        self.assertNotEqual(self.prop(later, D + "getlastmodified"), self.prop(first, D + "getlastmodified"))

    def test_each_caller_gets_their_own_answer(self):
        def repeat(answers):
            self.assertEqual(self.poll(self.a, "/dav/"), answers[0])
            self.assertEqual(self.poll(self.b, "/dav/"), answers[1])

        mine, theirs = self.assert_kept(lambda: (self.poll(self.a, "/dav/"), self.poll(self.b, "/dav/")), repeat, 2)
        self.assertNotEqual(self.prop(theirs, "{http://owncloud.org/ns}fileid"),
                            self.prop(mine, "{http://owncloud.org/ns}fileid"))
        # Credentials are checked before any kept answer: a wrong password
        # or a revoked app password gets 401.
        body = b'<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>'
        wrong = {"Depth": "0", "Authorization": basic_auth(self.A[0], "wrong password")}
        self.assertEqual(self.a.raw("PROPFIND", "/dav/", body, wrong, auth=False)[0], 401)
        status, _, app = self.ra.call("POST", "/api/v1/me/app-passwords", {"label": "poller"})
        self.assertEqual(status, 201, app)
        via_app = Dav(self.srv, self.A[0], app["password"])
        self.assertEqual(self.prop(self.poll(via_app, "/dav/"), "{http://owncloud.org/ns}fileid"),
                         self.prop(mine, "{http://owncloud.org/ns}fileid"))
        self.poll(via_app, "/dav/")
        self.assertEqual(self.ra.call("DELETE", "/api/v1/me/app-passwords/%s" % app["id"])[0], 204)
        self.assertEqual(via_app.raw("PROPFIND", "/dav/", body, {"Depth": "0"})[0], 401)

    def test_what_changes_with_the_clock_is_never_kept(self):
        folder = dav_path(self.base, collection=True)
        info = (b'<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/>'
                b'</D:lockscope><D:locktype><D:write/></D:locktype><D:owner>t</D:owner></D:lockinfo>')
        before = self.hits()
        status, hdrs, body = self.a.raw("LOCK", folder, info, {"Depth": "0", "Timeout": "Second-2",
                                                                  "Content-Type": "application/xml"})
        locked_at = time.monotonic()
        self.assertIn(status, (200, 201), body)
        token = hdrs["lock-token"].strip("<>")
        for _ in range(2):
            self.assertIn(b"activelock", self.poll(self.a, folder, b"<D:lockdiscovery/>"))
        # Conditions go through the locks every time.
        self.poll(self.a, folder, headers={"If": "(<%s>)" % token})
        self.poll(self.a, folder, headers={"If": "(<%s>)" % token})
        self.assertEqual(self.hits(), before)
        # The lock expires with the clock, with no write in between.
        time.sleep(max(0.0, locked_at + 2.5 - time.monotonic()))
        self.assertNotIn(b"activelock", self.poll(self.a, folder, b"<D:lockdiscovery/>"))
        status, _, _ = self.a.raw("PROPFIND", folder, b"", {"Depth": "0", "If": "(<%s>)" % token})
        self.assertEqual(status, 412)

    def test_a_share_that_expires_is_gone_from_the_next_poll(self):
        # A grant ends with the clock, not with a write: a kept answer must
        # not outlive it by more than the cache's one-second bound. (The
        # maintenance lease check commits every 5 s and ends kept answers
        # too, so this end-to-end check cannot catch a missing bound every
        # time; the unit test of the bound can.)
        status, _, drives = self.ra.call("GET", "/api/v1/drives")
        self.assertEqual(status, 200, drives)
        name = "Expiring " + self.base
        status, _, folder = self.ra.call("POST", "/api/v1/nodes/%s/folders" % drives["drives"][0]["root_id"],
                                         {"name": name})
        self.assertEqual(status, 201, folder)
        expires = int(time.time() * 1000) + 1500
        status, _, grant = self.ra.call("POST", "/api/v1/nodes/%s/grants" % folder["id"],
                                        {"user": self.B[0], "role": "viewer", "expires_at": expires})
        self.assertEqual(status, 201, grant)
        path = dav_path(name, collection=True)
        self.assert_kept(lambda: self.poll(self.b, path), lambda first: self.assertEqual(self.poll(self.b, path), first),
                         1)
        time.sleep(max(0.0, expires / 1000 - time.time()) + 1.2)
        self.poll(self.b, path, expect=404)


class ListingColumnsTest(unittest.TestCase):
    """A Depth 1 listing that does not ask for DAV:sync-token reads fewer
    columns of each member (meta::ListColumns::kBasic). Every value must be
    the one a listing that reads all columns gives (DAV:sync-token asked as
    well), for files and folders, with modification and creation times that
    differ."""

    BASIC = ["resourcetype", "getcontentlength", "getcontenttype", "getetag", "getlastmodified",
             "creationdate", "displayname"]

    def listing(self, dav, path, full):
        body = ('<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>%s%s</D:prop>'
                '</D:propfind>' % ("".join("<D:%s/>" % p for p in self.BASIC), "<D:sync-token/>" if full else "")
                ).encode()
        status, _, data = dav.raw("PROPFIND", path, body, {"Depth": "1", "Content-Type": "application/xml"})
        self.assertEqual(status, 207, data[:500])
        return {href: {tag: (code, ET.tostring(el)) for tag, (code, el) in props.items()}
                for href, props in multistatus(data).items()}

    def test_basic_properties_equal_those_of_a_full_read(self):
        srv, _ = start_server()
        try:
            dav = Dav(srv, *ADMIN)
            self.assertEqual(dav.mkcol(dav_path("cols"))[0], 201)
            self.assertEqual(dav.mkcol(dav_path("cols", "sub"))[0], 201)
            for name, data, mtime in (("a.txt", b"hello", "1000000000"), ("b.jpg", b"\xff\xd8x" * 9, "1200000000"),
                                      ("c.bin", b"", "1400000000")):
                status, _, _ = dav.raw("PUT", dav_path("cols", name), data, {"X-OC-MTime": mtime})
                self.assertEqual(status, 201, name)
            self.assertEqual(dav.put(dav_path("cols", "sub", "x"), b"x")[0], 201)
            basic = self.listing(dav, dav_path("cols", collection=True), False)
            full = self.listing(dav, dav_path("cols", collection=True), True)
            self.assertEqual(len(basic), 5, sorted(basic))  # the folder, sub and three files
            for href, props in full.items():
                got = basic.get(href)
                self.assertIsNotNone(got, href)
                for p in self.BASIC:
                    self.assertEqual(got.get(D + p), props.get(D + p), (href, p))
            # The times differ, so two swapped columns would show.
            a = full["/dav/cols/a.txt"]
            self.assertNotEqual(ET.fromstring(a[D + "getlastmodified"][1]).text[:16],
                                ET.fromstring(a[D + "creationdate"][1]).text[:16])
        finally:
            srv.close()


class ListingPagesTest(unittest.TestCase):
    """PROPFIND reads members a page (one read transaction) at a time
    (dav.listing_page). With pages of 7, each folder below spans several
    pages, pages end inside a run of subfolders and inside the files, and
    Depth infinity leaves a folder between two of its pages to list a
    subfolder. Every member must come exactly once, in name order per
    folder."""

    TREE = {"": 10, "d00": 9, "d01": 0, "d02": 15, "d02/x": 8}  # folder -> files in it
    SUBFOLDERS = {"": ["d%02d" % i for i in range(4)], "d02": ["x"]}

    def expected(self, base):
        out = {base}
        for folder, n in self.TREE.items():
            here = base + ("/" + folder if folder else "")
            out.add(here)
            out.update("%s/f%03d.txt" % (here, i) for i in range(n))
        for folder, subs in self.SUBFOLDERS.items():
            here = base + ("/" + folder if folder else "")
            out.update("%s/%s" % (here, s) for s in subs)
        return out

    def propfind(self, dav, path, depth, props):
        """(status, body) of a PROPFIND whose answer must end within 1 MiB
        (a listing that goes round in circles never ends)."""
        body = ('<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop>%s'
                '</D:prop></D:propfind>' % "".join("<D:%s/>" % p for p in props)).encode()
        conn = http.client.HTTPConnection("127.0.0.1", dav.srv.port, timeout=60)
        try:
            conn.request("PROPFIND", path, body=body,
                         headers={"Authorization": dav.auth, "Depth": depth,
                                  "Content-Type": "application/xml; charset=utf-8"})
            resp = conn.getresponse()
            data = resp.read(1 << 20)
            self.assertTrue(resp.isclosed() or resp.read(1) == b"", "the listing did not end within 1 MiB")
            return resp.status, data
        finally:
            conn.close()

    def test_members_once_across_pages(self):
        srv, admin = start_server(NUBO_DAV_LISTING_PAGE="7", NUBO_DAV_PROPFIND_INFINITY="true")
        try:
            dav = Dav(srv, *ADMIN)
            self.assertEqual(dav.mkcol(dav_path("t"))[0], 201)
            for folder, subs in sorted(self.SUBFOLDERS.items()):
                for s in subs:
                    path = dav_path("t", *(folder.split("/") if folder else []), s)
                    self.assertEqual(dav.mkcol(path)[0], 201, path)
            for folder, n in self.TREE.items():
                for i in range(n):
                    segs = (folder.split("/") if folder else []) + ["f%03d.txt" % i]
                    self.assertEqual(dav.put(dav_path("t", *segs), b"x" * i)[0], 201, segs)
            want = self.expected("/dav/t")
            # Depth infinity: every member once (a page read for the wrong
            # place would repeat or skip members: the counts tell).
            status, body = self.propfind(dav, dav_path("t", collection=True), "infinity",
                                         ["getcontentlength"])
            self.assertEqual(status, 207, body[:500])
            hrefs = [href_path(r.findtext(D + "href"))
                     for r in ET.fromstring(body).findall(D + "response")]
            self.assertEqual(len(hrefs), len(set(hrefs)), "a member answered twice")
            self.assertEqual(set(hrefs), want)
            # Depth 1 of each folder: its members once, folders first, then
            # files, each in name order, with their sizes.
            for folder, n in self.TREE.items():
                segs = folder.split("/") if folder else []
                status, body = self.propfind(dav, dav_path("t", *segs, collection=True), "1",
                                             ["getcontentlength", "resourcetype"])
                self.assertEqual(status, 207, body[:500])
                rows = ET.fromstring(body).findall(D + "response")[1:]
                names = [href_path(r.findtext(D + "href")).rsplit("/", 1)[1] for r in rows]
                self.assertEqual(names, self.SUBFOLDERS.get(folder, []) + ["f%03d.txt" % i for i in range(n)],
                                 folder)
                sizes = [r.findtext(".//" + D + "getcontentlength") for r in rows[len(self.SUBFOLDERS.get(folder, [])):]]
                self.assertEqual(sizes, [str(i) for i in range(n)], folder)
        finally:
            srv.close()


if __name__ == "__main__":
    unittest.main()
