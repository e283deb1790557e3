"""Two-way sync of a calendar and an address book with vdirsyncer, then
khal and khard reading what arrived (Debian's packages; missing ones fail
the test, they do not skip it).

Create, modify and delete on both sides, then a conflict that the pair's
"a wins" rule resolves; after every sync both sides must hold exactly the
same objects.
"""
import os
import shutil
import subprocess
import tempfile
import unittest

from test_caldav import event, vcard
from test_files import FAST, start_with_users, stop_and_fsck

ROOT = "/remote.php/dav"


class VdirsyncerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("vdirsyncer", "khal", "khard"):
            if not shutil.which(tool):
                raise AssertionError(tool + " is required (scripts/deps.sh test installs it)")
        cls.srv, cls.admin, users = start_with_users(["alice"], env=FAST)
        cls.alice = users["alice"]
        cls.tmp = tempfile.mkdtemp(prefix="nubo-vdir-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
        stop_and_fsck(cls.srv)

    def run_tool(self, *args, stdin=""):
        env = dict(os.environ, HOME=self.tmp, XDG_CONFIG_HOME=os.path.join(self.tmp, "xdg"),
                   XDG_DATA_HOME=os.path.join(self.tmp, "xdg-data"), LC_ALL="C.UTF-8", TZ="UTC")
        p = subprocess.run(list(args), input=stdin, capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(p.returncode, 0, "%s\n%s\n%s" % (args, p.stdout, p.stderr))
        return p.stdout

    def write_config(self):
        base = self.srv.url(ROOT + "/")
        cfg = os.path.join(self.tmp, "vdirsyncer.conf")
        with open(cfg, "w") as f:
            f.write("""[general]
status_path = "{t}/status/"

[pair cal]
a = "cal_local"
b = "cal_remote"
collections = ["from b"]
conflict_resolution = "a wins"

[storage cal_local]
type = "filesystem"
path = "{t}/cal/"
fileext = ".ics"

[storage cal_remote]
type = "caldav"
url = "{url}"
username = "alice"
password = "alice password 1"

[pair card]
a = "card_local"
b = "card_remote"
collections = ["from b"]
conflict_resolution = "a wins"

[storage card_local]
type = "filesystem"
path = "{t}/card/"
fileext = ".vcf"

[storage card_remote]
type = "carddav"
url = "{url}"
username = "alice"
password = "alice password 1"
""".format(t=self.tmp, url=base))
        return cfg

    def remote_names(self, coll):
        status, _, data = self.alice.raw("PROPFIND", coll, headers={"Depth": "1"})
        self.assertEqual(status, 207)
        import re
        return sorted(h.rsplit("/", 1)[1] for h in re.findall(r"<d:href>([^<]+)</d:href>", data.decode())
                      if not h.endswith("/"))

    @staticmethod
    def read(path):
        with open(path) as f:
            return f.read()

    def local_files(self, d):
        return sorted(os.listdir(d))

    def test_two_way_sync_then_khal_and_khard(self):
        cal = ROOT + "/calendars/alice/personal/"
        book = ROOT + "/addressbooks/users/alice/contacts/"
        put = lambda path, text, ctype: self.alice.raw("PUT", path, body=text.encode(), headers={"Content-Type": ctype})
        self.assertEqual(put(cal + "e1.ics", event("e1", "20260105T100000Z", "20260105T110000Z", "Remote one"),
                             "text/calendar")[0], 201)
        self.assertEqual(put(book + "c1.vcf", vcard("c1", "Carla Remote", "carla@example.org"), "text/vcard")[0], 201)
        cfg = self.write_config()
        vs = lambda *a, stdin="": self.run_tool("vdirsyncer", "-c", cfg, *a, stdin=stdin)
        vs("discover", stdin="y\n" * 10)
        vs("sync")
        ldir, cdir = os.path.join(self.tmp, "cal", "personal"), os.path.join(self.tmp, "card", "contacts")
        self.assertEqual(len(self.local_files(ldir)), 1)
        self.assertEqual(len(self.local_files(cdir)), 1)
        # Both sides change.
        with open(os.path.join(ldir, "local-2.ics"), "w") as f:
            f.write(event("e2", "20260106T100000Z", "20260106T110000Z", "Local two"))
        (card_file,) = self.local_files(cdir)
        with open(os.path.join(cdir, card_file), "w") as f:
            f.write(vcard("c1", "Carla Edited", "carla@example.org"))
        self.assertEqual(put(cal + "e3.ics", event("e3", "20260107T100000Z", "20260107T110000Z", "Remote three"),
                             "text/calendar")[0], 201)
        self.assertEqual(self.alice.raw("DELETE", cal + "e1.ics")[0], 204)
        vs("sync")
        remote = self.remote_names(cal)
        self.assertEqual(len(remote), 2, remote)
        self.assertNotIn("e1.ics", remote)
        self.assertEqual(len(self.local_files(ldir)), 2)
        texts = [self.read(os.path.join(ldir, n)) for n in self.local_files(ldir)]
        self.assertTrue(any("Remote three" in t for t in texts))
        self.assertFalse(any("Remote one" in t for t in texts))
        status, _, data = self.alice.raw("GET", book + "c1.vcf")
        self.assertIn(b"Carla Edited", data)
        # A conflict: both sides edit e3; "a wins" keeps the local text.
        (e3_local,) = [n for n in self.local_files(ldir) if "Remote three" in self.read(os.path.join(ldir, n))]
        with open(os.path.join(ldir, e3_local), "w") as f:
            f.write(event("e3", "20260107T100000Z", "20260107T120000Z", "Local wins"))
        put(cal + "e3.ics", event("e3", "20260107T100000Z", "20260107T130000Z", "Remote loses"), "text/calendar")
        vs("sync")
        status, _, data = self.alice.raw("GET", cal + "e3.ics")
        self.assertIn(b"Local wins", data)
        vs("sync")  # idempotent: nothing left to do
        # khal and khard read the synced data.
        khal_cfg = os.path.join(self.tmp, "khal.conf")
        with open(khal_cfg, "w") as f:
            f.write("""[calendars]
[[personal]]
path = {d}
type = calendar
[locale]
timeformat = %H:%M
dateformat = %Y-%m-%d
longdateformat = %Y-%m-%d
datetimeformat = %Y-%m-%d %H:%M
longdatetimeformat = %Y-%m-%d %H:%M
local_timezone = UTC
default_timezone = UTC
""".format(d=ldir))
        out = self.run_tool("khal", "-c", khal_cfg, "list", "2026-01-01", "2026-01-31")
        self.assertIn("Local two", out)
        self.assertIn("Local wins", out)
        self.assertNotIn("Remote one", out)
        khard_cfg = os.path.join(self.tmp, "khard.conf")
        with open(khard_cfg, "w") as f:
            f.write("[addressbooks]\n[[contacts]]\npath = %s\n[general]\ndefault_action = list\n" % cdir)
        out = self.run_tool("khard", "-c", khard_cfg, "list")
        self.assertIn("Carla Edited", out)


if __name__ == "__main__":
    unittest.main()
