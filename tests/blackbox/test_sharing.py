"""Sharing over REST: nested groups, role grants, inheritance and its end
(move out, revoke, expiry, group deletion), reshare limits, quota and trash
following the owner, and answers that do not tell "not yours" from "does
not exist". Ends with an fsck of the data directory."""
import os
import subprocess
import tempfile
import time
import unittest

from harness import NUBO_BIN, Server, exchange
from test_dav import clean_env, require_tool, run, tail
from test_files import Client, fake_id, start_with_users, stop_and_fsck

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}


class SharingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, cls.users = start_with_users(("alice", "bob", "carol", "dave", "erin"), FAST)

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def u(self, name):
        return self.users[name]

    def grant(self, owner, node, expect=201, **body):
        status, _, g = owner.call("POST", "/nodes/%s/grants" % node, body)
        self.assertEqual(status, expect, g)
        return g

    def same_as_unknown(self, who, method, path_fmt, real_id, body=None):
        """`who` gets for `real_id` exactly what it gets for an id that
        exists nowhere: status, content type and body."""
        a = who.raw(method, path_fmt % real_id, body)
        b = who.raw(method, path_fmt % fake_id(), body)
        self.assertEqual((a[0], a[1].get("content-type"), a[2]), (b[0], b[1].get("content-type"), b[2]),
                         "%s %s" % (method, path_fmt))
        return a[0]

    def test_groups_one_may_share_with(self):
        """With the directory closed (sharee search "groups", the default) a
        user shares with, and adds to a drive, only groups it belongs to
        (nested ones too); another group answers exactly like none, so its
        name does not come back in the grant. Administrators may use any."""
        admin, alice, bob = self.admin, self.u("alice"), self.u("bob")
        top = alice.mkdir(alice.root, "For a group")["id"]
        theirs = admin.call("POST", "/groups", {"name": "Board of secrets"})[2]
        outer = admin.call("POST", "/groups", {"name": "Outer circle"})[2]
        inner = admin.call("POST", "/groups", {"name": "Inner circle"})[2]
        admin.call("POST", "/groups/%s/members" % theirs["id"], {"user": "bob"})
        admin.call("POST", "/groups/%s/members" % outer["id"], {"group": inner["id"]})
        admin.call("POST", "/groups/%s/members" % inner["id"], {"user": "alice"})
        body = {"group": theirs["id"], "role": "viewer"}
        a = alice.raw("POST", "/nodes/%s/grants" % top, body)
        b = alice.raw("POST", "/nodes/%s/grants" % top, dict(body, group=fake_id()))
        self.assertEqual((a[0], a[1].get("content-type"), a[2]), (b[0], b[1].get("content-type"), b[2]))
        self.assertEqual(a[0], 404)
        self.assertNotIn(b"secrets", a[2])
        self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s", top), 404)
        # Her own group through nesting: allowed, and its members get in.
        g = self.grant(alice, top, group=outer["id"], role="viewer")
        self.assertEqual(g["grantee"]["name"], "Outer circle")
        self.assertNotIn(top, [i["node"]["id"] for i in alice.call("GET", "/shared-with-me")[2]["items"]])
        # A shared drive she manages: the same rule for its members.
        d = admin.call("POST", "/drives", {"name": "Circle drive"})
        self.assertEqual(d[0], 201, d[2])
        did = d[2]["id"]
        self.assertEqual(admin.call("POST", "/drives/%s/members" % did, {"user": "alice", "role": "manager"})[0], 204)
        self.assertEqual(alice.call("POST", "/drives/%s/members" % did, dict(body, role="viewer"))[0], 404)
        self.assertEqual(alice.call("POST", "/drives/%s/members" % did,
                                    {"group": inner["id"], "role": "viewer"})[0], 204)
        # Once a member (an administrator added it), its role is hers to change.
        self.assertEqual(admin.call("POST", "/drives/%s/members" % did, dict(body, role="viewer"))[0], 204)
        self.assertEqual(alice.call("POST", "/drives/%s/members" % did, dict(body, role="editor"))[0], 204)
        roles = {m["name"]: m["role"] for m in alice.call("GET", "/drives/%s/members" % did)[2]["items"]}
        self.assertEqual(roles.get("Board of secrets"), "editor", roles)
        # Removing a member that is not one answers alike whether the group
        # (or user) exists or not: a manager cannot probe ids this way.
        outsider = admin.call("POST", "/groups", {"name": "Not on the drive"})[2]
        for kind, real, made_up in (("groups", outsider["id"], fake_id()), ("users", "bob", "nobody-at-all")):
            a = alice.raw("DELETE", "/drives/%s/members/%s/%s" % (did, kind, real))
            b = alice.raw("DELETE", "/drives/%s/members/%s/%s" % (did, kind, made_up))
            self.assertEqual((a[0], a[1].get("content-type"), a[2]), (b[0], b[1].get("content-type"), b[2]), kind)
            self.assertEqual(a[0], 404)
        # An administrator shares with any group.
        admin_root = admin.call("GET", "/drives")[2]["drives"][0]["root_id"]
        own = admin.mkdir(admin_root, "Admin's for the board")["id"]
        board = self.grant(admin, own, group=theirs["id"], role="viewer")
        self.assertEqual(bob.call("GET", "/nodes/%s" % own)[0], 200)
        # Leave the others' "shared with me" as it was.
        self.assertEqual(admin.call("DELETE", "/grants/%s" % board["id"])[0], 204)
        self.assertEqual(alice.call("DELETE", "/grants/%s" % g["id"])[0], 204)

    def test_groups_nest_and_refuse_cycles(self):
        admin, carol = self.admin, self.u("carol")
        team = admin.call("POST", "/groups", {"name": "Nest Team"})[2]
        core = admin.call("POST", "/groups", {"name": "Nest Core"})[2]
        self.assertEqual(admin.call("POST", "/groups", {"name": "nest team"})[0], 409)
        self.assertEqual(admin.call("POST", "/groups", {"name": "a/b"})[0], 400)
        self.assertEqual(admin.call("POST", "/groups/%s/members" % core["id"], {"user": "carol"})[0], 204)
        self.assertEqual(admin.call("POST", "/groups/%s/members" % team["id"], {"group": core["id"]})[0], 204)
        self.assertEqual(admin.call("POST", "/groups/%s/members" % team["id"], {"group": core["id"]})[0], 409)
        # Team ⊃ Core: Core may not contain Team, nor Team itself.
        status, _, body = admin.call("POST", "/groups/%s/members" % core["id"], {"group": team["id"]})
        self.assertEqual(status, 409, body)
        self.assertIn("cycle", body["message"])
        self.assertEqual(admin.call("POST", "/groups/%s/members" % team["id"], {"group": team["id"]})[0], 409)
        self.assertEqual(admin.call("POST", "/groups/%s/members" % team["id"], {"user": "nobody-here"})[0], 404)
        # Carol belongs to both (Team through Core) and may read them.
        mine = {g["name"] for g in carol.call("GET", "/groups")[2]["items"]}
        self.assertTrue({"Nest Team", "Nest Core"} <= mine, mine)
        members = carol.call("GET", "/groups/%s" % team["id"])[2]["members"]
        self.assertEqual([(m["type"], m["name"]) for m in members], [("group", "Nest Core")])
        # Bob belongs to neither: the group is as absent as one that never was.
        bob = self.u("bob")
        self.assertEqual(self.same_as_unknown(bob, "GET", "/groups/%s", team["id"]), 404)
        self.assertNotIn("Nest Team", {g["name"] for g in bob.call("GET", "/groups")[2]["items"]})
        # Only administrators manage groups.
        self.assertEqual(carol.call("POST", "/groups", {"name": "mine"})[0], 403)
        self.assertEqual(carol.call("DELETE", "/groups/%s" % team["id"])[0], 403)
        self.assertEqual(carol.call("POST", "/groups/%s/members" % team["id"], {"user": "bob"})[0], 403)
        # Renames keep the id; removing Core from Team ends Carol's membership of Team.
        self.assertEqual(admin.call("PATCH", "/groups/%s" % team["id"], {"name": "Nest Team 2"})[2]["id"], team["id"])
        self.assertEqual(admin.call("DELETE", "/groups/%s/members/groups/%s" % (team["id"], core["id"]))[0], 204)
        self.assertEqual(admin.call("DELETE", "/groups/%s/members/groups/%s" % (team["id"], core["id"]))[0], 404)
        self.assertEqual(carol.call("GET", "/groups/%s" % team["id"])[0], 404)
        self.assertEqual(admin.call("DELETE", "/groups/%s/members/users/carol" % core["id"])[0], 204)
        self.assertEqual(carol.call("GET", "/groups/%s" % core["id"])[0], 404)

    def test_roles_inheritance_and_their_end(self):
        alice, bob, carol, dave = self.u("alice"), self.u("bob"), self.u("carol"), self.u("dave")
        admin = self.admin
        project = alice.mkdir(alice.root, "Project")["id"]
        spec = alice.put(project, "spec.txt", b"the spec")
        sub = alice.mkdir(project, "Sub")["id"]
        deep = alice.put(sub, "deep.txt", b"deep bytes")
        private = alice.mkdir(alice.root, "Private")["id"]
        secret = alice.put(private, "secret.txt", b"secret")

        # Nobody else sees any of it yet.
        for nid in (project, spec["id"], private):
            self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s", nid), 404)

        # Bob: viewer on Project. Carol: editor on Sub through a nested group.
        g_bob = self.grant(alice, project, user="bob", role="viewer")
        self.assertEqual((g_bob["role"], g_bob["grantee"]["name"], g_bob["may_reshare"]), ("viewer", "bob", False))
        outer = admin.call("POST", "/groups", {"name": "Writers"})[2]
        inner = admin.call("POST", "/groups", {"name": "Writers inner"})[2]
        admin.call("POST", "/groups/%s/members" % outer["id"], {"group": inner["id"]})
        admin.call("POST", "/groups/%s/members" % inner["id"], {"user": "carol"})
        # One shares with one's own groups (sharee search "groups", the default).
        admin.call("POST", "/groups/%s/members" % outer["id"], {"user": "alice"})
        self.grant(alice, sub, group=outer["id"], role="editor")
        self.grant(alice, project, user="bob", role="editor", expect=409)  # one grant per grantee and node
        self.grant(alice, project, user="alice", role="viewer", expect=400)
        self.grant(alice, alice.root, user="bob", role="viewer", expect=409)
        self.grant(alice, project, user="bob", role="owner", expect=400)

        # Bob reads what Alice reads, byte for byte, with the same ETag.
        self.assertEqual(bob.read(spec["id"]), b"the spec")
        self.assertEqual(bob.node(spec["id"])["etag"], alice.node(spec["id"])["etag"])
        self.assertEqual(sorted(n["name"] for n in bob.list_all(project)), ["Sub", "spec.txt"])
        self.assertEqual(bob.read(deep["id"]), b"deep bytes")
        # The path Bob sees starts at what was shared with him.
        self.assertEqual([p["name"] for p in bob.node(deep["id"])["path"]], ["Project", "Sub"])
        # A viewer may not change anything: 403, the node is visible.
        self.assertEqual(bob.upload(project, "new.txt", b"x")[0], 403)
        self.assertEqual(bob.call("PATCH", "/nodes/%s" % spec["id"], {"name": "renamed.txt"})[0], 403)
        self.assertEqual(bob.delete(spec["id"]), 403)
        self.assertEqual(bob.call("POST", "/nodes/%s/folders" % project, {"name": "x"})[0], 403)
        # Private stays absent for Bob, and sharing it is not his to do.
        self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s", secret["id"]), 404)
        self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s/grants", private), 404)
        self.assertEqual(self.same_as_unknown(bob, "POST", "/nodes/%s/grants", private,
                                              {"user": "dave", "role": "viewer"}), 404)
        self.assertEqual(bob.call("GET", "/nodes/%s/grants" % project)[0], 403)
        self.grant(bob, project, user="dave", role="viewer", expect=403)
        # Favorites of a shared file are the recipient's own and listed with it.
        self.assertEqual(bob.call("PUT", "/favorites/%s" % spec["id"])[0], 204)
        self.assertIn(spec["id"], [n["id"] for n in bob.paged("/favorites")])

        # Shared with me: Bob's Project, Carol's Sub; each with its role.
        swm = bob.call("GET", "/shared-with-me")[2]["items"]
        self.assertEqual([(i["node"]["id"], i["role"], i["owner"]["username"]) for i in swm],
                         [(project, "viewer", "alice")])
        self.assertEqual(swm[0]["permissions"], ["read", "list"])
        swm = carol.call("GET", "/shared-with-me")[2]["items"]
        self.assertEqual([(i["node"]["id"], i["role"]) for i in swm], [(sub, "editor")])
        self.assertIn("create", swm[0]["permissions"])
        self.assertNotIn("delete", swm[0]["permissions"])
        sbm = alice.call("GET", "/shared-by-me")[2]["items"]
        self.assertEqual(sorted((g["node"]["name"], g["grantee"]["name"]) for g in sbm),
                         [("Project", "bob"), ("Sub", "Writers")])

        # Carol edits inside Sub: bytes count against Alice's quota, and
        # what she trashes lands in Alice's trash.
        before_alice, before_carol = alice.usage()["used_bytes"], carol.usage()["used_bytes"]
        added = carol.put(sub, "carol.txt", b"carol wrote this")
        self.assertEqual(alice.usage()["used_bytes"], before_alice + len(b"carol wrote this"))
        self.assertEqual(carol.usage()["used_bytes"], before_carol)
        self.assertEqual(alice.read(added["id"]), b"carol wrote this")
        self.assertEqual(carol.call("PATCH", "/nodes/%s" % added["id"], {"name": "carol 2.txt"})[0], 200)
        self.assertEqual(carol.delete(deep["id"]), 204)
        self.assertIn(deep["id"], [n["id"] for n in alice.trash()])
        self.assertNotIn(deep["id"], [n["id"] for n in carol.trash()])
        self.assertEqual(carol.call("POST", "/nodes/%s/restore" % deep["id"])[0], 200)
        # Carol may not remove or rename the shared folder itself, nor see above it.
        self.assertEqual(carol.delete(sub), 403)
        self.assertEqual(carol.call("PATCH", "/nodes/%s" % sub, {"name": "Mine now"})[0], 403)
        self.assertEqual(self.same_as_unknown(carol, "GET", "/nodes/%s", project), 404)
        # Alice limits the quota: writes through the grant hit Alice's.
        status, _, _ = admin.call("PATCH", "/admin/users/alice", {"quota_bytes": alice.usage()["used_bytes"] + 4})
        self.assertEqual(status, 200)
        self.assertEqual(carol.upload(sub, "big.txt", b"more than four bytes")[0], 507)
        admin.call("PATCH", "/admin/users/alice", {"quota_bytes": 0})
        admin.call("PATCH", "/admin/users/alice", {"quota_bytes": 10 ** 12})

        # Reshare: with may_reshare Bob may share, but never above viewer.
        upd = alice.call("PATCH", "/grants/%s" % g_bob["id"], {"may_reshare": True})[2]
        self.assertTrue(upd["may_reshare"])
        self.grant(bob, project, user="dave", role="editor", expect=403)
        g_dave = self.grant(bob, project, user="dave", role="viewer")
        self.assertEqual(dave.read(spec["id"]), b"the spec")
        self.assertEqual(len(bob.call("GET", "/nodes/%s/grants" % project)[2]["items"]), 2)
        # Carol (no relation to Project) cannot tell Bob's grant from none.
        for method, body in (("PATCH", {"role": "viewer"}), ("DELETE", None)):
            self.assertEqual(self.same_as_unknown(carol, method, "/grants/%s", g_dave["id"], body), 404)
        # Dave may leave the share made to him, but not change it.
        self.assertEqual(dave.call("PATCH", "/grants/%s" % g_dave["id"], {"role": "viewer"})[0], 403)

        # Moving a file out of the shared folder ends inherited access at once.
        self.assertEqual(alice.call("PATCH", "/nodes/%s" % spec["id"], {"parent_id": private})[0], 200)
        self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s", spec["id"]), 404)
        self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s/content", spec["id"]), 404)
        self.assertNotIn(spec["id"], [n["id"] for n in bob.paged("/favorites")])
        alice.call("PATCH", "/nodes/%s" % spec["id"], {"parent_id": project})

        # Revoking Bob's grant ends his access and the reshare he made.
        self.assertEqual(alice.call("DELETE", "/grants/%s" % g_bob["id"])[0], 204)
        self.assertEqual(self.same_as_unknown(bob, "GET", "/nodes/%s", project), 404)
        self.assertEqual(bob.call("GET", "/shared-with-me")[2]["items"], [])
        self.assertEqual(self.same_as_unknown(dave, "GET", "/nodes/%s", project), 404)
        remaining = alice.call("GET", "/nodes/%s/grants" % project)[2]["items"]
        self.assertEqual(remaining, [])

        # An expiring grant ends by itself.
        exp = int(time.time() * 1000) + 1500
        self.grant(alice, private, user="erin", role="viewer", expires_at=exp)
        erin = self.u("erin")
        self.assertEqual(erin.status_of(private), 200)
        self.grant(alice, private, user="dave", role="viewer", expires_at=int(time.time() * 1000) - 1, expect=400)
        time.sleep(max(0.0, exp / 1000.0 - time.time()) + 0.2)
        self.assertEqual(self.same_as_unknown(erin, "GET", "/nodes/%s", private), 404)
        self.assertEqual(erin.call("GET", "/shared-with-me")[2]["items"], [])

        # Deleting the group ends Carol's access through it.
        self.assertEqual(admin.call("DELETE", "/groups/%s" % outer["id"])[0], 204)
        self.assertEqual(self.same_as_unknown(carol, "GET", "/nodes/%s", sub), 404)

        # Deleting the node for good takes its grants with it.
        g = self.grant(alice, private, user="bob", role="manager")
        self.assertEqual(bob.status_of(secret["id"]), 200)
        self.assertEqual(alice.delete(private, permanent=True), 204)
        self.assertEqual(alice.call("DELETE", "/grants/%s" % g["id"])[0], 404)

    def test_reshares_last_as_long_as_their_makers_right(self):
        alice, bob, carol, dave, erin = (self.u(n) for n in ("alice", "bob", "carol", "dave", "erin"))
        admin = self.admin
        top = alice.mkdir(alice.root, "Chain")["id"]
        f = alice.put(top, "c.txt", b"chain bytes")
        # Bob's grant expires: the grant he made and his link end with it.
        exp = int(time.time() * 1000) + 2500
        self.grant(alice, top, user="bob", role="manager", expires_at=exp)
        self.grant(bob, top, user="dave", role="editor")
        token = bob.call("POST", "/nodes/%s/links" % top, {"role": "edit"})[2]["token"]
        self.assertEqual(dave.read(f["id"]), b"chain bytes")
        pub = Client(self.srv, "x", "x")
        self.assertEqual(pub.call("GET", "/api/v1/public/%s" % token, auth=False)[0], 200)
        self.assertEqual(pub.call("PUT", "/api/v1/public/%s/nodes/%s/files/l.txt" % (token, top), b"l",
                                  auth=False)[0], 201)
        time.sleep(max(0.0, exp / 1000.0 - time.time()) + 0.2)
        self.assertEqual(self.same_as_unknown(dave, "GET", "/nodes/%s", f["id"]), 404)
        self.assertEqual(pub.call("GET", "/api/v1/public/%s" % token, auth=False)[0], 404)
        self.assertEqual(pub.call("GET", "/api/v1/public/%s/nodes/%s/content" % (token, f["id"]), auth=False)[0],
                         404)
        # A reshare gives no more than its maker holds now: Bob back as a
        # viewer who may reshare, Dave's editor grant reads but cannot write,
        # and Bob's edit link only lets visitors look.
        g_bob = self.grant(alice, top, user="bob", role="viewer", may_reshare=True)
        self.assertEqual(dave.read(f["id"]), b"chain bytes")
        self.assertEqual(dave.upload(top, "d.txt", b"d")[0], 403)
        self.assertEqual(pub.call("GET", "/api/v1/public/%s/nodes/%s/content" % (token, f["id"]), auth=False)[0],
                         200)
        self.assertEqual(pub.call("PUT", "/api/v1/public/%s/nodes/%s/files/m.txt" % (token, top), b"m",
                                  auth=False)[0], 403)
        alice.call("DELETE", "/grants/%s" % g_bob["id"])
        # Through a group: Carol's reshare ends when she leaves the group.
        crew = admin.call("POST", "/groups", {"name": "Chain crew"})[2]
        admin.call("POST", "/groups/%s/members" % crew["id"], {"user": "carol"})
        admin.call("POST", "/groups/%s/members" % crew["id"], {"user": "alice"})
        self.grant(alice, top, group=crew["id"], role="editor", may_reshare=True)
        self.grant(carol, top, user="erin", role="viewer")
        self.assertEqual(erin.read(f["id"]), b"chain bytes")
        admin.call("DELETE", "/groups/%s/members/users/carol" % crew["id"])
        self.assertEqual(self.same_as_unknown(erin, "GET", "/nodes/%s", f["id"]), 404)
        admin.call("DELETE", "/groups/%s" % crew["id"])
        # The other tests start without these shares.
        self.assertEqual(alice.delete(top, permanent=True), 204)

    def test_search_covers_what_was_shared_and_nothing_else(self):
        alice, bob, admin = self.u("alice"), self.u("bob"), self.admin
        pub = alice.mkdir(alice.root, "Searchable")["id"]
        priv = alice.mkdir(alice.root, "Hidden place")["id"]
        names = ["zebra %02d.txt" % i for i in range(5)]
        for n in names:
            alice.put(pub, n, b"z")
        alice.put(priv, "zebra secret.txt", b"s")
        bob.put(bob.root, "zebra mine.txt", b"m")
        team = admin.call("POST", "/drives", {"name": "Zoo"})[2]
        admin.call("POST", "/drives/%s/members" % team["id"], {"user": "bob", "role": "viewer"})
        admin.put(team["root_id"], "zebra team.txt", b"t")
        g = self.grant(alice, pub, user="bob", role="viewer")

        def search(who, limit):
            found, cursor = [], None
            for _ in range(50):
                q = "/search?q=zebra&limit=%d%s" % (limit, "&cursor=" + cursor if cursor else "")
                status, _, body = who.call("GET", q)
                self.assertEqual(status, 200, body)
                found += [i["name"] for i in body["items"]]
                cursor = body["next_cursor"]
                if not cursor:
                    return found
            self.fail("search did not end")

        want = sorted(names + ["zebra mine.txt", "zebra team.txt"])
        for limit in (1, 2, 3, 100):  # pages across the three drives
            self.assertEqual(search(bob, limit), want, limit)
        self.assertNotIn("zebra secret.txt", search(bob, 100))
        alice.call("DELETE", "/grants/%s" % g["id"])
        self.assertEqual(search(bob, 2), ["zebra mine.txt", "zebra team.txt"])
        self.assertEqual(search(alice, 100), sorted(names + ["zebra secret.txt"]))
        admin.call("DELETE", "/drives/%s" % team["id"])
        alice.delete(pub, permanent=True)
        alice.delete(priv, permanent=True)

    def test_webdav_reaches_what_was_shared(self):
        alice, bob, carol, dave = self.u("alice"), self.u("bob"), self.u("carol"), self.u("dave")
        top = alice.mkdir(alice.root, "Over dav")["id"]
        f = alice.put(top, "doc.txt", b"dav bytes")
        self.grant(alice, top, user="bob", role="viewer")
        g_carol = self.grant(alice, top, user="carol", role="editor")
        pf = {"Depth": "1"}

        def dav(who, method, path, body=b"", headers=None):
            h = dict(headers or {}, Authorization=who.auth)
            return exchange(self.srv, method, path, h, body)

        base = "/dav-shares/%s/" % top
        status, _, body = dav(bob, "PROPFIND", base, headers=pf)
        self.assertEqual(status, 207, body)
        self.assertIn(b"<d:href>/dav-shares/%s/doc.txt</d:href>" % top.encode(), body)
        self.assertEqual(dav(bob, "GET", base + "doc.txt")[2], b"dav bytes")
        self.assertEqual(dav(bob, "PUT", base + "new.txt", b"x")[0], 403)
        self.assertEqual(dav(carol, "PUT", base + "new.txt", b"from carol")[0], 201)
        self.assertEqual(dav(carol, "DELETE", base)[0], 403)  # not the shared folder itself
        self.assertIn("new.txt", [n["name"] for n in alice.list_all(top)])
        # Not shared with Dave: the same answer as a node that does not exist.
        a = dav(dave, "PROPFIND", base, headers=pf)
        b = dav(dave, "PROPFIND", "/dav-shares/%s/" % fake_id(), headers=pf)
        self.assertEqual((a[0], a[2]), (b[0], b[2]))
        self.assertEqual(a[0], 404)
        # The tree ends where the grant does.
        alice.call("DELETE", "/grants/%s" % g_carol["id"])
        self.assertEqual(dav(carol, "GET", base + "doc.txt")[0], 404)
        self.assertEqual(dav(bob, "MOVE", base + "doc.txt", headers={"Destination": "/dav/doc.txt"})[0], 502)
        self.assertEqual(alice.read(f["id"]), b"dav bytes")
        alice.delete(top, permanent=True)

    def test_rclone_as_an_editor(self):
        require_tool("rclone")
        alice, erin = self.u("alice"), self.u("erin")
        top = alice.mkdir(alice.root, "Rclone share")["id"]
        alice.put(top, "from-alice.txt", b"alice wrote this\n")
        self.grant(alice, top, user="erin", role="editor")
        with tempfile.TemporaryDirectory(prefix="nubo-rclone-share-") as tmp:
            env = clean_env(RCLONE_CONFIG=os.path.join(tmp, "rclone.conf"), HOME=tmp)
            pw = run(["rclone", "obscure", "erin password 1"], timeout=60, env=env, text=True).stdout.strip()
            remote = ":webdav,url='http://127.0.0.1:%d/dav-shares/%s',vendor=other,user=erin,pass=%s:" % (
                self.srv.port, top, pw)

            def rclone(*args):
                p = run(["rclone", *args, "--retries", "1", "--low-level-retries", "1"], timeout=300, env=env,
                        text=True, errors="replace")
                self.assertEqual(p.returncode, 0, "rclone %s:\n%s" % (" ".join(args), tail(p.stdout + p.stderr, 40)))
                return p.stdout

            self.assertEqual(rclone("lsf", remote).split(), ["from-alice.txt"])
            up = os.path.join(tmp, "up")
            os.makedirs(os.path.join(up, "sub"))
            with open(os.path.join(up, "sub", "from-erin.txt"), "wb") as fh:
                fh.write(b"erin wrote this\n")
            rclone("copy", up, remote)
            rclone("check", up, remote, "--one-way")
            out = os.path.join(tmp, "out")
            rclone("copy", remote, out)
            with open(os.path.join(out, "from-alice.txt"), "rb") as fh:
                self.assertEqual(fh.read(), b"alice wrote this\n")
        sub = [n for n in alice.list_all(top) if n["name"] == "sub"][0]
        self.assertEqual([n["name"] for n in alice.list_all(sub["id"])], ["from-erin.txt"])
        alice.delete(top, permanent=True)

    def test_managers_share_below_and_within_their_role(self):
        alice, bob, dave = self.u("alice"), self.u("bob"), self.u("dave")
        team = alice.mkdir(alice.root, "Managed")["id"]
        inner = alice.mkdir(team, "Inner")["id"]
        f = alice.put(inner, "f.txt", b"f")
        g_bob = self.grant(alice, team, user="bob", role="manager")
        # A manager shares and manages below the granted folder...
        g_dave = self.grant(bob, inner, user="dave", role="manager")
        self.assertEqual(bob.call("PATCH", "/grants/%s" % g_dave["id"], {"role": "viewer"})[2]["role"], "viewer")
        self.assertEqual(dave.call("PATCH", "/nodes/%s" % f["id"], {"name": "g.txt"})[0], 403)
        # ...and may even change the grant that made him manager, but not
        # delete or rename the shared folder itself.
        self.assertEqual(bob.delete(team), 403)
        self.assertEqual(bob.call("PATCH", "/nodes/%s" % team, {"name": "Bob's"})[0], 403)
        self.assertEqual(bob.delete(inner), 204)
        self.assertEqual(bob.call("POST", "/nodes/%s/restore" % inner)[0], 200)
        # Weakening Bob to viewer removes the grant he may no longer make.
        self.assertEqual(alice.call("PATCH", "/grants/%s" % g_bob["id"], {"role": "viewer"})[0], 200)
        self.assertEqual(dave.status_of(inner), 404)
        self.assertEqual(alice.call("GET", "/nodes/%s/grants" % inner)[2]["items"], [])
        # Grants answer 400 for bad input, never 500.
        for body in ({"user": "dave"}, {"role": "viewer"}, {"user": "dave", "group": "x", "role": "viewer"},
                     {"user": "dave", "role": "viewer", "expires_at": -5}, {"user": 5, "role": "viewer"}):
            self.assertEqual(alice.call("POST", "/nodes/%s/grants" % inner, body)[0], 400, body)
        self.assertEqual(alice.call("GET", "/shared-with-me?cursor=zz")[0], 400)
        # The grantee may leave; the other tests start without this share.
        self.assertEqual(bob.call("DELETE", "/grants/%s" % g_bob["id"])[0], 204)
        self.assertEqual(bob.status_of(team), 404)


class ShareeSearchTest(unittest.TestCase):
    """sharing.sharee_search decides whom the share dialog suggests."""

    def names(self, client, q):
        status, _, body = client.call("GET", "/sharees?q=%s" % q)
        self.assertEqual(status, 200, body)
        return [(x["type"], x["name"]) for x in body["items"]]

    def run_mode(self, mode):
        srv = Server(env=dict(FAST, NUBO_SHAREE_SEARCH=mode))
        try:
            admin = Client(srv, "admin", "admin password 1")
            admin.call("POST", "/api/v1/setup", {"username": "admin", "password": "admin password 1"}, auth=False)
            for name in ("sam", "sally", "sue", "zed"):
                admin.call("POST", "/admin/users", {"username": name, "password": name + " password 1"})
            team = admin.call("POST", "/groups", {"name": "Sailors"})[2]
            secret = admin.call("POST", "/groups", {"name": "Secret society"})[2]
            for name in ("sam", "sally"):
                admin.call("POST", "/groups/%s/members" % team["id"], {"user": name})
            admin.call("PATCH", "/admin/users/sue", {"active": False})
            sam = Client(srv, "sam", "sam password 1")
            # Administrators list every account anyway: the whole directory.
            self.assertEqual(self.names(admin, "sa"), [("user", "sally"), ("user", "sam"), ("group", "Sailors")])
            # Sharing with a group follows the same door: any group where
            # the directory is open, else only one's own.
            sam_root = sam.call("GET", "/drives")[2]["drives"][0]["root_id"]
            box = sam.mkdir(sam_root, "box")["id"]
            own = sam.call("POST", "/nodes/%s/grants" % box, {"group": team["id"], "role": "viewer"})
            self.assertEqual(own[0], 201, own[2])
            other = sam.call("POST", "/nodes/%s/grants" % box, {"group": secret["id"], "role": "viewer"})
            self.assertEqual(other[0], 201 if mode == "all" else 404, other[2])
            return self.names(sam, "s"), self.names(sam, "zed"), self.names(sam, "Sailors"), self.names(sam, "")
        finally:
            srv.terminate()
            srv.close()

    def test_modes(self):
        # Every user and group (never oneself or a deactivated account).
        s, zed, _, empty = self.run_mode("all")
        self.assertEqual(s, [("user", "sally"), ("group", "Sailors"), ("group", "Secret society")])
        self.assertEqual((zed, empty), ([("user", "zed")], []))
        # The caller's groups and their members; an exact name still works.
        s, zed, _, _ = self.run_mode("groups")
        self.assertEqual(s, [("user", "sally"), ("group", "Sailors")])
        self.assertEqual(zed, [("user", "zed")])
        # Exact names only.
        s, zed, sailors, _ = self.run_mode("exact")
        self.assertEqual((s, zed, sailors), ([], [("user", "zed")], [("group", "Sailors")]))


class GroupCliTest(unittest.TestCase):
    """`nubo group` on the data directory; the server sees the result."""

    def test_cli(self):
        srv = Server(env=FAST)
        try:
            admin = Client(srv, "admin", "admin password 1")
            admin.call("POST", "/api/v1/setup", {"username": "admin", "password": "admin password 1"}, auth=False)
            admin.call("POST", "/admin/users", {"username": "ann", "password": "ann password 1"})
            self.assertEqual(srv.terminate(), 0)

            def nubo(*args, ok=True):
                p = subprocess.run([NUBO_BIN, "--data", srv.data, "group", *args], capture_output=True, text=True,
                                   timeout=60, env=srv.tool_env())
                self.assertEqual(p.returncode == 0, ok, "%s: %s%s" % (args, p.stdout, p.stderr))
                return p.stdout

            self.assertIn("created Crew", nubo("create", "Crew"))
            nubo("create", "Deck")
            nubo("create", "crew", ok=False)  # names are unique regardless of case
            nubo("add", "Crew", "--group", "Deck")
            nubo("add", "Deck", "--user", "ann")
            nubo("add", "Deck", "--group", "Crew", ok=False)  # a cycle
            nubo("add", "Deck", "--user", "nobody", ok=False)
            self.assertEqual(nubo("members", "Crew"), "group\tDeck\n")
            self.assertEqual([l.split("\t")[0] for l in nubo("list").splitlines()], ["Crew", "Deck"])
            nubo("rename", "Crew", "Whole crew")
            srv.restart()
            ann = Client(srv, "ann", "ann password 1")
            names = sorted(g["name"] for g in ann.call("GET", "/groups")[2]["items"])
            self.assertEqual(names, ["Deck", "Whole crew"])
            self.assertEqual(srv.terminate(), 0)
            nubo("remove", "Deck", "--user", "ann")
            nubo("delete", "Whole crew")
            self.assertEqual([l.split("\t")[0] for l in nubo("list").splitlines()], ["Deck"])
            srv.restart()
            self.assertEqual(ann.call("GET", "/groups")[2]["items"], [])
        finally:
            srv.terminate()
            srv.close()


if __name__ == "__main__":
    unittest.main()
