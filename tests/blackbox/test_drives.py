"""Shared drives (team spaces): drives with members (users and groups) and
roles, their own quota and trash, reached over REST by id and over WebDAV
at /dav-drives/<id>/ (a prefix no user's folder name can take). Ends with an
fsck of the data directory."""
import time
import unittest

from harness import Server, exchange
from test_files import Client, fake_id, start_with_users, stop_and_fsck

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}


class DrivesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, cls.users = start_with_users(("bob", "carol", "dave"), FAST)

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def drives(self, who):
        status, _, body = who.call("GET", "/drives")
        self.assertEqual(status, 200, body)
        return {d["name"]: d for d in body["drives"]}

    def same(self, who, method, fmt, real, body=None):
        a = who.raw(method, fmt % real, body)
        b = who.raw(method, fmt % fake_id(), body)
        self.assertEqual((a[0], a[1].get("content-type"), a[2]), (b[0], b[1].get("content-type"), b[2]), fmt)
        return a[0]

    def test_team_drive(self):
        admin, bob, carol, dave = self.admin, self.users["bob"], self.users["carol"], self.users["dave"]
        status, _, team = admin.call("POST", "/drives", {"name": "Team", "quota_bytes": 64 * 1024})
        self.assertEqual(status, 201, team)
        self.assertEqual((team["kind"], team["role"], team["quota_bytes"], team["used_bytes"]),
                         ("shared", "manager", 65536, 0))
        self.assertEqual(bob.call("POST", "/drives", {"name": "Mine"})[0], 403)  # admins only by default
        grp = admin.call("POST", "/groups", {"name": "Readers"})[2]
        admin.call("POST", "/groups/%s/members" % grp["id"], {"user": "carol"})
        d = team["id"]
        self.assertEqual(admin.call("POST", "/drives/%s/members" % d, {"user": "bob", "role": "editor"})[0], 204)
        self.assertEqual(admin.call("POST", "/drives/%s/members" % d, {"group": grp["id"], "role": "viewer"})[0], 204)
        members = admin.call("GET", "/drives/%s/members" % d)[2]["items"]
        self.assertEqual(sorted((m["type"], m["name"], m["role"]) for m in members),
                         [("group", "Readers", "viewer"), ("user", "admin", "manager"), ("user", "bob", "editor")])
        # Members find it beside their own drive, with their role.
        self.assertEqual(self.drives(bob)["Team"]["role"], "editor")
        self.assertEqual(self.drives(carol)["Team"]["role"], "viewer")
        self.assertNotIn("Team", self.drives(dave))
        root = team["root_id"]
        f = bob.put(root, "plan.txt", b"the team plan")
        self.assertEqual(carol.read(f["id"]), b"the team plan")
        self.assertEqual(carol.upload(root, "no.txt", b"x")[0], 403)
        self.assertEqual(carol.call("POST", "/drives/%s/members" % d, {"user": "dave", "role": "viewer"})[0], 403)
        self.assertEqual(bob.call("POST", "/drives/%s/members" % d, {"user": "dave", "role": "viewer"})[0], 403)
        # A stranger cannot tell the drive, its nodes or its members from nothing.
        for fmt in ("/nodes/%s", "/nodes/%s/children"):
            self.assertEqual(self.same(dave, "GET", fmt, f["id"] if fmt == "/nodes/%s" else root), 404)
        for method, fmt, body in (("GET", "/drives/%s/members", None), ("PATCH", "/drives/%s", {"name": "x"}),
                                  ("POST", "/drives/%s/members", {"user": "dave", "role": "viewer"}),
                                  ("GET", "/trash?drive=%s", None)):
            self.same(dave, method, fmt, d, body)
        # The drive's own quota, not its members'.
        bob_before = bob.call("GET", "/me/usage")[2]["used_bytes"]
        self.assertEqual(bob.upload(root, "big.bin", b"x" * (80 * 1024))[0], 507)
        self.assertEqual(bob.call("GET", "/me/usage")[2]["used_bytes"], bob_before)
        self.assertEqual(self.drives(bob)["Team"]["used_bytes"], len(b"the team plan"))
        # The drive's own trash.
        self.assertEqual(bob.delete(f["id"]), 204)
        trash = bob.call("GET", "/trash?drive=%s" % d)[2]["items"]
        self.assertEqual([i["id"] for i in trash], [f["id"]])
        self.assertNotIn(f["id"], [i["id"] for i in bob.trash()])
        self.assertEqual(carol.call("GET", "/trash?drive=%s" % d)[0], 403)
        self.assertEqual(bob.call("POST", "/nodes/%s/restore" % f["id"])[0], 200)
        # Only administrators change quotas; managers rename.
        self.assertEqual(bob.call("PATCH", "/drives/%s" % d, {"name": "Bob's"})[0], 403)
        admin.call("POST", "/drives/%s/members" % d, {"user": "bob", "role": "manager"})
        self.assertEqual(bob.call("PATCH", "/drives/%s" % d, {"name": "Team A"})[2]["name"], "Team A")
        self.assertEqual(bob.call("PATCH", "/drives/%s" % d, {"quota_bytes": 10 ** 9})[0], 403)
        self.assertEqual(admin.call("PATCH", "/drives/%s" % d, {"quota_bytes": 10 ** 9})[2]["quota_bytes"], 10 ** 9)
        # Group membership is the door: leaving the group closes it.
        admin.call("DELETE", "/groups/%s/members/users/carol" % grp["id"])
        self.assertEqual(self.same(carol, "GET", "/nodes/%s", f["id"]), 404)
        self.assertNotIn("Team A", self.drives(carol))
        # A drive keeps a manager: the last one can neither leave nor step down.
        admin.call("POST", "/drives/%s/members" % d, {"user": "bob", "role": "editor"})
        self.assertEqual(admin.call("DELETE", "/drives/%s/members/users/admin" % d)[0], 409)
        self.assertEqual(admin.call("POST", "/drives/%s/members" % d, {"user": "admin", "role": "viewer"})[0], 409)
        self.assertEqual(self.drives(admin)["Team A"]["role"], "manager")
        # Removing a member.
        self.assertEqual(admin.call("DELETE", "/drives/%s/members/users/bob" % d)[0], 204)
        self.assertEqual(bob.status_of(f["id"]), 404)
        # WebDAV at /dav-drives/<id>/, for members only.
        admin_auth = {"Authorization": admin.auth}
        status, _, body = exchange(self.srv, "PROPFIND", "/dav-drives/%s/" % d, dict(admin_auth, Depth="1"))
        self.assertEqual(status, 207, body)
        self.assertIn(b"/dav-drives/%s/plan.txt" % d.encode(), body)
        status, _, _ = exchange(self.srv, "PUT", "/dav-drives/%s/dav.txt" % d, admin_auth, b"over dav")
        self.assertEqual(status, 201)
        dave_auth = {"Authorization": dave.auth}
        a = exchange(self.srv, "PROPFIND", "/dav-drives/%s/" % d, dict(dave_auth, Depth="1"))
        b = exchange(self.srv, "PROPFIND", "/dav-drives/%s/" % fake_id(), dict(dave_auth, Depth="1"))
        self.assertEqual((a[0], a[2]), (b[0], b[2]))
        self.assertEqual(a[0], 404)
        # Deleting the drive deletes its content for good.
        self.assertEqual(bob.call("DELETE", "/drives/%s" % d)[0], 404)
        self.assertEqual(admin.call("DELETE", "/drives/%s" % d)[0], 204)
        self.assertEqual(admin.status_of(f["id"]), 404)
        self.assertNotIn("Team A", self.drives(admin))

    def test_users_may_create_when_allowed(self):
        srv = Server(env=dict(FAST, NUBO_USERS_CREATE_DRIVES="true"))
        try:
            admin = Client(srv, "admin", "admin password 1")
            admin.call("POST", "/api/v1/setup", {"username": "admin", "password": "admin password 1"}, auth=False)
            admin.call("POST", "/admin/users", {"username": "eve", "password": "eve password 1"})
            eve = Client(srv, "eve", "eve password 1")
            status, _, d = eve.call("POST", "/drives", {"name": "Eve's club"})
            self.assertEqual((status, d["role"]), (201, "manager"))
            # A user may not give a drive a quota, nor make one with a name
            # that is not a valid name.
            self.assertEqual(eve.call("POST", "/drives", {"name": "Big", "quota_bytes": 5})[0], 403)
            self.assertEqual(eve.call("POST", "/drives", {"name": "a/b"})[0], 400)
            self.assertEqual(eve.call("POST", "/drives", {})[0], 400)
            # quota_bytes 0 means no quota, as in PATCH.
            status, _, z = admin.call("POST", "/drives", {"name": "Open", "quota_bytes": 0})
            self.assertEqual((status, z["quota_bytes"]), (201, None))
        finally:
            srv.terminate()
            srv.close()


if __name__ == "__main__":
    unittest.main()
