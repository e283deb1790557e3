"""The real Nextcloud desktop sync engine (Debian's nextcloud-desktop-cmd,
nextcloudcmd) and ownCloud's (owncloudcmd) against the real binary: an
initial sync of a tree with Unicode names and a file large enough to go
through chunked upload v2, a no-op resync that transfers nothing, changes
on both sides, a conflict, deletes into the trash, renames and moves that
keep the file id. What the server saw is read from its access log."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import xml.etree.ElementTree as ET

from test_files import start_with_users, stop_and_fsck

ENV = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB", "NUBO_ACCESS_LOG": "true"}
D = "{DAV:}"
OC = "{http://owncloud.org/ns}"
NC = "{http://nextcloud.org/ns}"
LINE = re.compile(r'"(\S+) (\S+)" (\d{3}) in=(\d+) out=(\d+)')
BIG = 200 * 1000 * 1000


def need(tool):
    path = shutil.which(tool)
    if not path:
        raise AssertionError("%s is missing: scripts/deps.sh test installs it" % tool)
    return path


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class SyncClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.nextcloudcmd = need("nextcloudcmd")
        cls.srv, cls.admin, users = start_with_users(["alice"], env=ENV)
        cls.alice = users["alice"]
        cls.alice.api_prefix = False
        cls.tmp = tempfile.TemporaryDirectory(prefix="nubo-nccmd-")
        cls.local = os.path.join(cls.tmp.name, "alice")
        os.makedirs(cls.local)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()
        stop_and_fsck(cls.srv)

    def log_mark(self):
        time.sleep(1.3)  # what came before is flushed (every second)
        return len(self.srv.log().splitlines())

    def requests_since(self, mark):
        """(method, unquoted path, status, bytes in, bytes out) since `mark`."""
        time.sleep(1.3)  # the server flushes its log every second
        out = []
        for line in self.srv.log().splitlines()[mark:]:
            m = LINE.search(line)
            if m:
                out.append((m.group(1), urllib.parse.unquote(m.group(2)), int(m.group(3)), int(m.group(4)),
                            int(m.group(5))))
        return out

    def sync(self, tool=None, local=None, user="alice", password="alice password 1"):
        tool = tool or self.nextcloudcmd
        p = subprocess.run([tool, "--non-interactive", "-u", user, "-p", password, local or self.local,
                            self.srv.url("")], capture_output=True, text=True, timeout=900,
                           env=dict(os.environ, HOME=self.tmp.name))
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        return p

    def propfind(self, path, depth="0"):
        body = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">'
                b'<d:prop><d:getetag/><oc:fileid/><d:getcontentlength/></d:prop></d:propfind>')
        status, _, data = self.alice.raw("PROPFIND", "/remote.php/dav/files/alice/" + urllib.parse.quote(path), body,
                                         {"Depth": depth})
        self.assertEqual(status, 207, data)
        out = {}
        for r in ET.fromstring(data).findall(D + "response"):
            href = urllib.parse.unquote(r.find(D + "href").text)
            out[href] = {p.tag: p.text for p in r.find(D + "propstat/" + D + "prop")}
        return out

    def fileid(self, path):
        return self.propfind(path)["/remote.php/dav/files/alice/" + path][OC + "fileid"]

    def test_a_initial_sync_resync_and_changes(self):
        # 1,000 files in 10 folders, Unicode names (NFC), and a 200 MB file.
        for d in range(10):
            folder = os.path.join(self.local, "dïr %d ✓" % d)
            os.makedirs(folder)
            for i in range(100):
                with open(os.path.join(folder, "fïle ü %03d — 日本.txt" % i), "w") as f:
                    f.write("content %d/%d\n" % (d, i))
        big = os.path.join(self.local, "big video.bin")
        with open(big, "wb") as f:
            for _ in range(BIG // (4 << 20)):
                f.write(os.urandom(4 << 20))
            f.write(os.urandom(BIG % (4 << 20)))
        mark = self.log_mark()
        self.sync()
        seen = self.requests_since(mark)
        # The small files went as bulk uploads (the capability is on): the
        # client sends them 100 to a request; every one arrived.
        puts = [r for r in seen if r[0] == "PUT" and r[1].startswith("/remote.php/dav/files/")]
        self.assertEqual(puts, [])
        bulks = [r for r in seen if r[0] == "POST" and r[1] == "/remote.php/dav/bulk"]
        self.assertEqual([r[2] for r in bulks], [200] * 10, bulks)
        for d in range(10):
            listing = self.propfind("dïr %d ✓/" % d, "1")
            self.assertEqual(len(listing), 101)
            for i in (0, 57, 99):
                status, _, got = self.alice.raw(
                    "GET", "/remote.php/dav/files/alice/" + urllib.parse.quote("dïr %d ✓/fïle ü %03d — 日本.txt" % (d, i)))
                self.assertEqual(got, ("content %d/%d\n" % (d, i)).encode())
        # The big file went through chunking v2: a MKCOL, several chunk
        # PUTs into /uploads/, one MOVE of .file onto the destination.
        chunks = [r for r in seen if r[0] == "PUT" and r[1].startswith("/remote.php/dav/uploads/alice/")]
        self.assertGreaterEqual(len(chunks), 2)
        self.assertEqual(sum(r[3] for r in chunks), BIG)
        self.assertEqual(len([r for r in seen if r[0] == "MKCOL" and "/uploads/" in r[1]]), 1)
        moves = [r for r in seen if r[0] == "MOVE" and r[1].endswith("/.file")]
        self.assertEqual([r[2] for r in moves], [201])
        status, _, got = self.alice.raw("GET", "/remote.php/dav/files/alice/big%20video.bin")
        self.assertEqual(hashlib.sha256(got).hexdigest(), sha(big))
        del got
        # A second sync may re-list folders whose ETag changed during the
        # first; the third transfers nothing and lists only the root.
        self.sync()
        mark = self.log_mark()
        self.sync()
        seen = self.requests_since(mark)
        self.assertEqual({r[0] for r in seen} - {"GET", "PROPFIND"}, set(), seen)
        self.assertEqual([r for r in seen if r[0] == "GET" and r[1].startswith("/remote.php/")], [])
        self.assertEqual([r[1] for r in seen if r[0] == "PROPFIND"], ["/remote.php/dav/files/alice/"])
        self.assertLess(sum(r[3] for r in seen), 10000)

        # Changes on both sides: a server-side upload deep in a folder (its
        # ETag changes up the tree) comes down; a local one goes up.
        status, _, _ = self.alice.raw("PUT", "/remote.php/dav/files/alice/" + urllib.parse.quote("dïr 3 ✓/from server.txt"),
                                      b"made on the server")
        self.assertEqual(status, 201)
        with open(os.path.join(self.local, "dïr 5 ✓", "from client.txt"), "w") as f:
            f.write("made on the client")
        mark = self.log_mark()
        self.sync()
        seen = self.requests_since(mark)
        with open(os.path.join(self.local, "dïr 3 ✓", "from server.txt")) as f:
            self.assertEqual(f.read(), "made on the server")
        self.assertEqual(self.alice.raw("GET", "/remote.php/dav/files/alice/" +
                                        urllib.parse.quote("dïr 5 ✓/from client.txt"))[2], b"made on the client")
        self.assertEqual([r[1] for r in seen if r[0] == "GET" and r[1].startswith("/remote.php/")],
                         ["/remote.php/dav/files/alice/dïr 3 ✓/from server.txt"])

        # Rename and move locally: the server sees MOVEs and the ids stay.
        before_rename = self.fileid("dïr 1 ✓/fïle ü 001 — 日本.txt")
        before_move = self.fileid("dïr 2 ✓/fïle ü 002 — 日本.txt")
        os.rename(os.path.join(self.local, "dïr 1 ✓", "fïle ü 001 — 日本.txt"),
                  os.path.join(self.local, "dïr 1 ✓", "renamed ✓.txt"))
        os.rename(os.path.join(self.local, "dïr 2 ✓", "fïle ü 002 — 日本.txt"),
                  os.path.join(self.local, "dïr 4 ✓", "moved ✓.txt"))
        mark = self.log_mark()
        self.sync()
        seen = self.requests_since(mark)
        self.assertEqual(len([r for r in seen if r[0] == "MOVE"]), 2, seen)
        self.assertEqual([r for r in seen if r[0] == "PUT"], [])
        self.assertEqual(self.fileid("dïr 1 ✓/renamed ✓.txt"), before_rename)
        self.assertEqual(self.fileid("dïr 4 ✓/moved ✓.txt"), before_move)

        # A local delete goes to the server's trash, restorable.
        os.remove(os.path.join(self.local, "dïr 6 ✓", "fïle ü 006 — 日本.txt"))
        self.sync()
        self.assertEqual(self.alice.raw("GET", "/remote.php/dav/files/alice/" +
                                        urllib.parse.quote("dïr 6 ✓/fïle ü 006 — 日本.txt"))[0], 404)
        status, _, data = self.alice.raw("PROPFIND", "/remote.php/dav/trashbin/alice/trash/", None, {"Depth": "1"})
        self.assertIn("fïle ü 006 — 日本.txt".encode(), data)

        # A server-side delete removes the local copy.
        self.alice.raw("DELETE", "/remote.php/dav/files/alice/" + urllib.parse.quote("dïr 7 ✓/fïle ü 007 — 日本.txt"))
        self.sync()
        self.assertFalse(os.path.exists(os.path.join(self.local, "dïr 7 ✓", "fïle ü 007 — 日本.txt")))

    def test_b_conflict_keeps_both(self):
        path = os.path.join(self.local, "conflict.txt")
        with open(path, "w") as f:
            f.write("original")
        self.sync()
        time.sleep(1.1)  # a distinct modification time
        # (Sizes differ here; the next test has equal sizes and times.)
        with open(path, "w") as f:
            f.write("changed on the client, longer")
        status, _, _ = self.alice.raw("PUT", "/remote.php/dav/files/alice/conflict.txt", b"changed on the server")
        self.assertEqual(status, 204)
        self.sync()
        names = os.listdir(self.local)
        copies = [n for n in names if n.startswith("conflict") and "conflict" in n[8:].lower()]
        self.assertEqual(len(copies), 1, names)
        with open(path) as f:
            self.assertEqual(f.read(), "changed on the server")
        with open(os.path.join(self.local, copies[0])) as f:
            self.assertEqual(f.read(), "changed on the client, longer")

    def test_b_same_size_and_time_is_a_conflict_when_the_server_has_a_checksum(self):
        # Both sides change a file to the same size at the same second. The
        # client takes that as "unchanged" unless the server names a checksum
        # (oc:checksums, kept from the OC-Checksum the change was uploaded
        # with): then it compares and keeps both.
        path = os.path.join(self.local, "twins.txt")
        with open(path, "w") as f:
            f.write("version zero")
        self.sync()
        mtime = int(time.time()) + 5
        server = b"server side!"
        client = "client side!"
        self.assertEqual(len(server), len(client))
        with open(path, "w") as f:
            f.write(client)
        os.utime(path, (mtime, mtime))
        status, _, _ = self.alice.raw("PUT", "/remote.php/dav/files/alice/twins.txt", server,
                                      {"X-OC-MTime": str(mtime),
                                       "OC-Checksum": "SHA1:" + hashlib.sha1(server).hexdigest()})
        self.assertEqual(status, 204)
        self.sync()
        names = os.listdir(self.local)
        copies = [n for n in names if n.startswith("twins") and "conflict" in n.lower()]
        self.assertEqual(len(copies), 1, names)
        with open(path) as f:
            self.assertEqual(f.read(), server.decode())
        with open(os.path.join(self.local, copies[0])) as f:
            self.assertEqual(f.read(), client)

    def test_d_login_flow_app_password_syncs(self):
        """Login Flow v2 as the client runs it (start, the user grants in the
        browser — here through the page's API with a session —, poll),
        then nextcloudcmd syncs with the app password it got."""
        a = self.alice
        status, _, body = a.raw("POST", "/index.php/login/v2", b"", {"User-Agent": "nextcloudcmd test"}, auth=False)
        self.assertEqual(status, 200)
        flow = json.loads(body)
        login_token = flow["login"].rsplit("/", 1)[1]
        _, _, t = a.call("POST", "/api/v1/auth/login", {"username": "alice", "password": "alice password 1"},
                         auth=False)
        status, _, _ = a.call("POST", "/api/v1/login-flows/%s/grant" % login_token,
                              headers={"Authorization": "Bearer " + t["access_token"]}, auth=False)
        self.assertEqual(status, 204)
        status, _, body = a.raw("POST", "/index.php/login/v2/poll", ("token=" + flow["poll"]["token"]).encode(),
                                {"Content-Type": "application/x-www-form-urlencoded"}, auth=False)
        self.assertEqual(status, 200)
        creds = json.loads(body)
        other = os.path.join(self.tmp.name, "with-app-password")
        os.makedirs(other)
        self.sync(local=other, user=creds["loginName"], password=creds["appPassword"])
        self.assertEqual(sha(os.path.join(other, "big video.bin")), sha(os.path.join(self.local, "big video.bin")))

    def test_c_owncloudcmd_initial_sync(self):
        tool = need("owncloudcmd")
        other = os.path.join(self.tmp.name, "owncloud")
        os.makedirs(other)
        # owncloudcmd insists on an exclude list (Debian ships none for it).
        exclude = os.path.join(self.tmp.name, "exclude.lst")
        with open(exclude, "w") as f:
            f.write(".sync_*.db*\n")
        p = subprocess.run([tool, "--non-interactive", "--exclude", exclude, "-u", "alice", "-p",
                            "alice password 1", other, self.srv.url("")], capture_output=True, text=True, timeout=900,
                           env=dict(os.environ, HOME=self.tmp.name))
        self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])
        self.assertEqual(sha(os.path.join(other, "big video.bin")), sha(os.path.join(self.local, "big video.bin")))
        for d in range(10):
            self.assertEqual(sorted(os.listdir(os.path.join(other, "dïr %d ✓" % d))),
                             sorted(n for n in os.listdir(os.path.join(self.local, "dïr %d ✓" % d))
                                    if not n.startswith(".")))


if __name__ == "__main__":
    unittest.main()
