"""Moving an installation from SQLite to PostgreSQL with `nubo db copy`
(docs/postgresql.md, "Moving from SQLite"). Always on PostgreSQL: the test
starts its own throwaway cluster (pg_cluster.py).

A home installation on SQLite gets files in folders (one moved into a
folder made after it), a big file in chunk files, a file in the trash, an
overwritten file with its version, a share, a public link, a favorite, an
app password, a calendar with an event and a file deleted for good; then
the server stops, its metadata is copied, and a server on PostgreSQL over
the same data directory must answer every one of them as before, byte for
byte, and go on: new files, users, links, grants and calendars (the id
sequences continue after the copied rows), node ids never reused.
"""
import os
import subprocess
import unittest

import pg_cluster
from harness import NUBO_BIN, Server
from test_caldav import ROOT, event
from test_files import FAST, Client, add_user, eventually, qs, run_fsck
from test_nextcloud import OC, files_url, propfind

ADMIN = ("admin", "admin password 1")


def db_copy(data, to, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    return subprocess.run([NUBO_BIN, "--data", data, "db", "copy", "--from", "sqlite:" + data + "/nubo.db",
                           "--to", to, *extra], capture_output=True, text=True, timeout=600, env=env)


def fileid(client, path):
    (props,) = propfind(client, files_url(client.user, path), "0").values()
    return int(props[OC + "fileid"].text)


class CopyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = Server(env=FAST, test_routes=False, database="")
        cls.dst = None
        try:
            cls._populate()
            cls.before = cls._observe()
            cls.url = pg_cluster.fresh_database()
            # Refused while a server runs on the source: its writes after the
            # copy would be lost.
            cls.while_running = db_copy(cls.src.data, cls.url)
            assert cls.src.terminate() == 0
            cls.copy = db_copy(cls.src.data, cls.url)
            assert cls.copy.returncode == 0, cls.copy.stdout + cls.copy.stderr
            cls.dst = Server(env=FAST, test_routes=False, database=cls.url, data=cls.src.data)
            cls.admin = Client(cls.dst, *ADMIN)
            cls.alice = Client(cls.dst, "alice", "alice password 1")
            cls.bob = Client(cls.dst, "bob", "bob password 1")
            cls.after = cls._observe()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.dst:
            cls.dst.close()
        cls.src.close()

    @classmethod
    def _populate(cls):
        admin = Client(cls.src, *ADMIN)
        status, _, body = admin.call("POST", "/api/v1/setup", {"username": ADMIN[0], "password": ADMIN[1]},
                                     auth=False)
        assert status == 201, (status, body)
        a = add_user(admin, "alice", "alice password 1")
        add_user(admin, "bob", "bob password 1")
        docs = a.mkdir(a.root, "Docs")["id"]
        early = a.put(docs, "early.txt", b"made before its folder")
        a.put(docs, "big.bin", os.urandom(3 << 20) + b"tail")
        a.put(docs, "notes.md", b"# one")
        a.put(docs, "notes.md", b"# two, the first is a version", expect=200, conflict="overwrite")
        later = a.mkdir(a.root, "Later")["id"]
        status, _, body = a.call("PATCH", "/nodes/" + early["id"], {"parent_id": later})
        assert status == 200, (status, body)
        binned = a.put(a.root, "binned.txt", b"in the trash")
        assert a.delete(binned["id"]) == 204
        status, _, body = a.call("POST", "/nodes/%s/grants" % docs, {"user": "bob", "role": "viewer"})
        assert status == 201, (status, body)
        status, _, link = a.call("POST", "/nodes/%s/links" % later, {})
        assert status == 201, (status, link)
        cls.link_token = link["token"]
        assert a.raw("PUT", "/api/v1/favorites/" + docs)[0] == 204
        status, _, app = a.call("POST", "/api/v1/me/app-passwords", {"label": "phone"})
        assert status == 201, (status, app)
        cls.app_password = app["password"]
        cal = "%s/calendars/alice/home/" % ROOT
        body = ('<C:mkcalendar xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>'
                '<d:displayname>Home</d:displayname></d:prop></d:set></C:mkcalendar>')
        assert a.raw("MKCALENDAR", cal, body.encode())[0] == 201
        status, _, _ = a.raw("PUT", cal + "e1.ics", event("u-1", "20260105T100000Z", "20260105T110000Z").encode(),
                             {"Content-Type": "text/calendar"})
        assert status == 201, status
        # Indexed before the copy: the text goes along and PostgreSQL indexes it.
        assert eventually(lambda: cls._found(a, "first vers"), timeout=30), "notes.md never indexed"
        # The newest node, deleted for good: its id must never come back.
        assert a.raw("PUT", files_url("alice", "gone.txt"), b"gone")[0] == 201
        cls.gone_id = fileid(a, "gone.txt")
        assert a.raw("DELETE", files_url("alice", "gone.txt"))[0] == 204
        assert a.raw("DELETE", "/remote.php/dav/trashbin/alice/trash/")[0] == 204

    @staticmethod
    def _found(client, q):
        status, _, body = client.call("GET", "/search/content?" + qs(q=q))
        assert status == 200, (status, body)
        return [(i["node"]["name"], i.get("snippet")) for i in body["items"]]

    @classmethod
    def _observe(cls):
        """What alice and bob see: listings (ids, ETags, sizes, times),
        contents, WebDAV properties as raw bytes, trash, versions, shares,
        the link and the calendar."""
        srv = cls.dst or cls.src
        a = Client(srv, "alice", "alice password 1")
        b = Client(srv, "bob", "bob password 1")
        seen = {"tree": a.walk(a.root)}
        for path, node in seen["tree"].items():
            if node["kind"] != "folder":
                seen["bytes:" + path] = a.read(node["id"])
        for path in ("", "Docs/"):
            seen["propfind:" + path] = a.raw("PROPFIND", files_url("alice", path), b"", {"Depth": "1"})[2]
        seen["trash"] = a.trash()
        notes = seen["tree"]["Docs/notes.md"]["id"]
        seen["versions"] = a.call("GET", "/nodes/%s/versions" % notes)[2]["items"]
        seen["version bytes"] = a.raw("GET", "/nodes/%s/versions/%s/content" % (notes, seen["versions"][0]["id"]))[2]
        seen["favorites"] = a.favorites()
        seen["bob shared"] = b.call("GET", "/nodes/%s" % seen["tree"]["Docs"]["id"])[2]
        seen["link"] = a.call("GET", "/links/" + cls.link_token, auth=False)[:3:2]
        status, hdrs, data = a.raw("GET", "%s/calendars/alice/home/e1.ics" % ROOT)
        seen["event"] = (status, hdrs.get("etag"), data)
        seen["found"] = [name for name, _ in cls._found(a, "first vers")]
        seen["calendar"] = a.raw("PROPFIND", "%s/calendars/alice/home/" % ROOT, b"", {"Depth": "1"})[2]
        return seen

    def test_the_copy_reports_every_table_and_a_clean_fsck(self):
        out = self.copy.stdout
        self.assertRegex(out, r"copied nodes +\d+ rows")
        self.assertRegex(out, r"read back: counts and values equal")
        self.assertRegex(out, r"fsck: .* 0 problems")
        self.assertRegex(out, r"left behind \(SQLite's search index.*\): .*node_names")

    def test_refused_while_a_server_runs_on_the_source(self):
        self.assertEqual(self.while_running.returncode, 2, self.while_running.stdout)
        self.assertIn("running on the source", self.while_running.stderr)

    def test_everything_reads_back_as_before(self):
        after = self.after
        self.assertEqual(sorted(after), sorted(self.before))
        for key in self.before:
            self.assertEqual(after[key], self.before[key], key)
        self.assertEqual(after["event"][0], 200)
        self.assertEqual(len(after["versions"]), 1)
        self.assertEqual(after["bob shared"]["name"], "Docs")
        self.assertEqual(after["found"], ["notes.md"])
        ((_, snippet),) = self._found(self.alice, "first vers")
        self.assertIn({"text": "first", "match": True}, snippet)

    def test_passwords_and_app_passwords_work(self):
        self.assertEqual(self.alice.call("GET", "/api/v1/me")[0], 200)
        app = Client(self.dst, "alice", self.app_password)
        self.assertEqual(app.raw("PROPFIND", files_url("alice"), b"", {"Depth": "0"})[0], 207)
        wrong = Client(self.dst, "alice", "not the password")
        self.assertEqual(wrong.call("GET", "/api/v1/me")[0], 401)

    def test_new_rows_follow_the_copied_ones(self):
        """Each id sequence continues after the copied rows: without that,
        every one of these collides with a copied row."""
        a = self.alice
        self.assertEqual(a.raw("PUT", files_url("alice", "Later/after.txt"), b"after the move")[0], 201)
        self.assertGreater(fileid(a, "Later/after.txt"), self.gone_id)
        carol = add_user(self.admin, "carol", "carol password 1")
        self.assertEqual(carol.call("GET", "/api/v1/me")[0], 200)
        later = a.walk(a.root)["Later"]["id"]
        status, _, body = a.call("POST", "/nodes/%s/links" % later, {})
        self.assertEqual(status, 201, body)
        status, _, body = a.call("POST", "/nodes/%s/grants" % later, {"user": "carol", "role": "editor"})
        self.assertEqual(status, 201, body)
        body = ('<C:mkcalendar xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>'
                '<d:displayname>Work</d:displayname></d:prop></d:set></C:mkcalendar>')
        self.assertEqual(a.raw("MKCALENDAR", "%s/calendars/alice/work/" % ROOT, body.encode())[0], 201)
        status, _, _ = a.raw("PUT", "%s/calendars/alice/work/e2.ics" % ROOT,
                             event("u-2", "20260106T100000Z", "20260106T110000Z").encode(),
                             {"Content-Type": "text/calendar"})
        self.assertEqual(status, 201)
        # A folder's count of children went along and stays right.
        self.assertEqual(sorted(n["name"] for n in a.list_all(later)), ["after.txt", "early.txt"])
        p = run_fsck(self.dst)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_a_second_copy_into_the_same_database_is_refused(self):
        p = db_copy(self.src.data, self.url)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("already holds an installation", p.stderr)
        self.assertEqual(self.alice.call("GET", "/api/v1/me")[0], 200)

    def test_bad_arguments(self):
        url = pg_cluster.fresh_database()
        p = db_copy(self.src.data + "/nowhere", url)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no SQLite database", p.stderr)
        self.assertFalse(os.path.exists(self.src.data + "/nowhere/nubo.db"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
        for args, message in ((["--from", self.src.data + "/nubo.db", "--to", url], "expected sqlite:PATH"),
                              (["--from", "sqlite:" + self.src.data + "/nubo.db", "--to", "mysql://x"],
                               "expected a postgres:// URL")):
            p = subprocess.run([NUBO_BIN, "db", "copy", *args], capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn(message, p.stderr)


if __name__ == "__main__":
    unittest.main()
