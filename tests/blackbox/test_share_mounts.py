"""Received shares inside the recipient's own WebDAV tree (/dav/ and the
Nextcloud clients' /remote.php/dav/files/USER/), the way Nextcloud mounts
them: listed among the recipient's files, read and written through the
grant's role, renamed and moved by the recipient without touching the
owner's tree, colliding names numbered, gone with the grant, and the
recipient's folder ETags changing with what changes inside a share (a sync
client polls only the root). Ends with a real sync client (nextcloudcmd)
receiving a share and a change made in it by its owner."""
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

from harness import exchange
from test_files import fake_id, start_with_users, stop_and_fsck

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
PF_BODY = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" '
           b'xmlns:nc="http://nextcloud.org/ns"><d:prop><d:getetag/><d:displayname/><oc:fileid/>'
           b'<oc:permissions/><nc:mount-type/><oc:owner-id/></d:prop></d:propfind>')
RESPONSE = re.compile(rb"<d:response>(.*?)</d:response>", re.S)


def field(xml, name):
    tag = name.encode()
    m = re.search(rb"<%s>(.*?)</%s>|<%s/>" % (tag, tag, tag), xml, re.S)
    if m and m.group(1) is None:
        return ""
    return m.group(1).decode() if m else None


class ShareMountTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv, cls.admin, cls.users = start_with_users(("alice", "bob", "carol", "dave"), FAST)

    @classmethod
    def tearDownClass(cls):
        stop_and_fsck(cls.srv)

    def dav(self, who, method, path, body=b"", headers=None):
        h = dict(headers or {}, Authorization=who.auth)
        return exchange(self.srv, method, path, h, body)

    def listing(self, who, path, depth="1"):
        """{href: response xml} of a PROPFIND."""
        status, _, body = self.dav(who, "PROPFIND", path, PF_BODY, {"Depth": depth})
        self.assertEqual(status, 207, body)
        out = {}
        for r in RESPONSE.findall(body):
            out[urllib.parse.unquote(field(r, "d:href"))] = r
        return out

    def etag(self, who, path="/dav/"):
        return field(self.listing(who, path, "0")[urllib.parse.unquote(path)], "d:getetag")

    def grant(self, owner, node, **body):
        status, _, g = owner.call("POST", "/nodes/%s/grants" % node, body)
        self.assertEqual(status, 201, g)
        return g

    def test_a_share_is_used_through_the_recipients_own_tree(self):
        u = self.users
        alice, bob, carol, dave = u["alice"], u["bob"], u["carol"], u["dave"]
        top = alice.mkdir(alice.root, "Project One")
        f = alice.put(top["id"], "plan.txt", b"the plan")
        self.grant(alice, top["id"], user="bob", role="editor")
        g_carol = self.grant(alice, top["id"], user="carol", role="viewer")

        root = self.listing(bob, "/dav/")
        self.assertIn("/dav/Project One/", root)
        entry = root["/dav/Project One/"]
        # The owner's node itself: its file id, which never changes.
        self.assertEqual(field(entry, "oc:fileid"), field(self.listing(alice, "/dav/")["/dav/Project One/"], "oc:fileid"))
        self.assertEqual(field(entry, "nc:mount-type"), "shared")
        perms = field(entry, "oc:permissions")
        self.assertTrue(perms.startswith("SM"), perms)
        self.assertTrue(perms.endswith("DNV"), perms)  # renamed, moved, deleted: the own view only
        self.assertIn("C", perms)  # an editor creates inside
        self.assertIn("SM", field(self.listing(carol, "/dav/")["/dav/Project One/"], "oc:permissions"))
        self.assertNotIn("C", field(self.listing(carol, "/dav/")["/dav/Project One/"], "oc:permissions"))
        # The share's members, under the mount point, in both trees of the account.
        inside = self.listing(bob, "/dav/Project%20One/")
        self.assertIn("/dav/Project One/plan.txt", inside)
        self.assertEqual(field(inside["/dav/Project One/plan.txt"], "oc:permissions")[0], "S")
        self.assertEqual(self.dav(bob, "GET", "/dav/Project%20One/plan.txt")[2], b"the plan")
        self.assertEqual(self.dav(bob, "GET", "/remote.php/dav/files/bob/Project%20One/plan.txt")[2],
                         b"the plan")
        # Writes go where the role allows, into the owner's tree.
        self.assertEqual(self.dav(bob, "PUT", "/dav/Project%20One/from-bob.txt", b"bob was here")[0], 201)
        self.assertIn("from-bob.txt", [n["name"] for n in alice.list_all(top["id"])])
        self.assertEqual(self.dav(carol, "PUT", "/dav/Project%20One/from-carol.txt", b"x")[0], 403)
        self.assertEqual(self.dav(carol, "GET", "/dav/Project%20One/from-bob.txt")[2], b"bob was here")
        # A MOVE inside the share moves the owner's file.
        st = self.dav(bob, "MOVE", "/dav/Project%20One/from-bob.txt",
                      headers={"Destination": "/dav/Project%20One/renamed.txt"})[0]
        self.assertEqual(st, 201)
        self.assertIn("renamed.txt", [n["name"] for n in alice.list_all(top["id"])])
        # Deleting the mount point removes the share from Bob's tree only
        # (test_removed_from_the_tree_and_shown_again); the owner's folder stays.
        self.assertEqual(self.dav(bob, "DELETE", "/dav/Project%20One/")[0], 204)
        self.assertNotIn("/dav/Project One/", self.listing(bob, "/dav/"))
        self.assertEqual(alice.call("GET", "/nodes/%s" % top["id"])[0], 200)
        self.assertEqual([n["name"] for n in alice.list_all(top["id"])], ["plan.txt", "renamed.txt"])
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": False})[0], 204)
        self.assertIn("/dav/Project One/", self.listing(bob, "/dav/"))
        # Someone the folder is not shared with: nothing there, as for any unknown name.
        a = self.dav(dave, "PROPFIND", "/dav/Project%20One/", PF_BODY, {"Depth": "0"})
        b = self.dav(dave, "PROPFIND", "/dav/No%20Such%20Thing/", PF_BODY, {"Depth": "0"})
        self.assertEqual((a[0], a[2]), (b[0], b[2]))
        self.assertEqual(a[0], 404)
        self.assertNotIn("/dav/Project One/", self.listing(dave, "/dav/"))
        # The owner's own tree shows its folder as its own.
        mine = self.listing(alice, "/dav/")["/dav/Project One/"]
        self.assertEqual(field(mine, "nc:mount-type"), "")
        self.assertEqual(field(mine, "oc:owner-id"), "alice")
        # Revoked: gone from Carol's tree at once.
        alice.call("DELETE", "/grants/%s" % g_carol["id"])
        self.assertNotIn("/dav/Project One/", self.listing(carol, "/dav/"))
        self.assertEqual(self.dav(carol, "GET", "/dav/Project%20One/plan.txt")[0], 404)
        self.assertEqual(alice.read(f["id"]), b"the plan")

    def test_the_recipients_etags_follow_changes_inside_a_share(self):
        u = self.users
        alice, bob = u["alice"], u["bob"]
        bob.mkdir(bob.root, "Etag Inbox")
        before_share = self.etag(bob)
        inbox_before = self.etag(bob, "/dav/Etag%20Inbox/")
        top = alice.mkdir(alice.root, "Etag Share")
        self.grant(alice, top["id"], user="bob", role="viewer")
        e1 = self.etag(bob)
        self.assertNotEqual(e1, before_share, "a new share must change the root's ETag")
        self.assertEqual(self.etag(bob), e1, "nothing changed: the same ETag")
        alice.put(top["id"], "news.txt", b"news")
        e2 = self.etag(bob)
        self.assertNotEqual(e2, e1, "a change inside a share must change the root's ETag")
        # Moved into an own folder: that folder's ETag follows the share too.
        st = self.dav(bob, "MOVE", "/dav/Etag%20Share/", headers={"Destination": "/dav/Etag%20Inbox/Etag%20Share/"})[0]
        self.assertEqual(st, 201)
        inbox1 = self.etag(bob, "/dav/Etag%20Inbox/")
        self.assertNotEqual(inbox1, inbox_before)
        alice.put(top["id"], "more.txt", b"more")
        self.assertNotEqual(self.etag(bob, "/dav/Etag%20Inbox/"), inbox1)
        # The owner's ETags carry no digest (no received share below them).
        self.assertNotIn("-", self.etag(alice, "/dav/Etag%20Share/"))

    def test_the_recipient_renames_and_moves_its_view_only(self):
        u = self.users
        alice, bob, carol = u["alice"], u["bob"], u["carol"]
        top = alice.mkdir(alice.root, "Move Me")
        alice.put(top["id"], "a.txt", b"a")
        self.grant(alice, top["id"], user="bob", role="viewer")
        other = carol.mkdir(carol.root, "Carol Share")
        self.grant(carol, other["id"], user="bob", role="editor")
        # Rename.
        st = self.dav(bob, "MOVE", "/dav/Move%20Me/", headers={"Destination": "/dav/From%20Alice/"})[0]
        self.assertEqual(st, 201)
        self.assertEqual(self.dav(bob, "GET", "/dav/From%20Alice/a.txt")[2], b"a")
        self.assertEqual(self.dav(bob, "GET", "/dav/Move%20Me/a.txt")[0], 404)
        self.assertEqual(alice.call("GET", "/nodes/%s" % top["id"])[2]["name"], "Move Me")
        # Move into an own folder, then back out under another name.
        self.assertEqual(self.dav(bob, "MKCOL", "/dav/Received/")[0], 201)
        st = self.dav(bob, "MOVE", "/dav/From%20Alice/", headers={"Destination": "/dav/Received/FA/"})[0]
        self.assertEqual(st, 201)
        self.assertIn("/dav/Received/FA/", self.listing(bob, "/dav/Received/"))
        self.assertNotIn("/dav/From Alice/", self.listing(bob, "/dav/"))
        self.assertEqual(self.dav(bob, "GET", "/remote.php/dav/files/bob/Received/FA/a.txt")[2], b"a")
        # Onto a taken name (own or another share) is refused; into a share too.
        self.assertEqual(self.dav(bob, "MKCOL", "/dav/Taken/")[0], 201)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/Received/FA/", headers={"Destination": "/dav/Taken/"})[0], 412)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/Received/FA/",
                                  headers={"Destination": "/dav/Carol%20Share/"})[0], 412)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/Received/FA/",
                                  headers={"Destination": "/dav/Carol%20Share/FA/"})[0], 409)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/Received/FA/",
                                  headers={"Destination": "/dav/Nowhere/FA/"})[0], 409)
        # The owner's tree is as it was.
        self.assertEqual([n["name"] for n in alice.list_all(top["id"])], ["a.txt"])
        self.assertEqual(alice.call("GET", "/nodes/%s" % top["id"])[2]["name"], "Move Me")
        self.assertEqual(carol.list_all(other["id"]), [])
        # The own folder holding it goes to the trash: the share returns to the top level.
        received = [n for n in bob.list_all(bob.root) if n["name"] == "Received"][0]
        bob.delete(received["id"])
        self.assertIn("/dav/Move Me/", self.listing(bob, "/dav/"))

    def test_colliding_names_are_numbered_and_own_items_win(self):
        u = self.users
        alice, bob, carol, dave = u["alice"], u["bob"], u["carol"], u["dave"]
        dave.mkdir(dave.root, "Docs")
        own = dave.mkdir(dave.root, "Docs Same")
        dave.put(own["id"], "mine.txt", b"mine")
        first = alice.mkdir(alice.root, "Docs Same")
        alice.put(first["id"], "alice.txt", b"alice")
        second = carol.mkdir(carol.root, "docs same")  # the same name, case aside
        carol.put(second["id"], "carol.txt", b"carol")
        rep = alice.put(alice.root, "report.pdf", b"%PDF-1.4 alice")
        dave.put(dave.root, "report.pdf", b"%PDF-1.4 dave")
        self.grant(alice, first["id"], user="dave", role="viewer")
        self.grant(carol, second["id"], user="dave", role="viewer")
        self.grant(alice, rep["id"], user="dave", role="viewer")
        root = self.listing(dave, "/dav/")
        self.assertIn("/dav/Docs Same/", root)
        self.assertIn("/dav/Docs Same (2)/", root)
        self.assertIn("/dav/docs same (3)/", root)
        self.assertIn("/dav/report (2).pdf", root)
        self.assertEqual(field(root["/dav/Docs Same (2)/"], "d:displayname"), "Docs Same (2)")
        self.assertEqual(self.dav(dave, "GET", "/dav/Docs%20Same/mine.txt")[2], b"mine")
        self.assertEqual(self.dav(dave, "GET", "/dav/Docs%20Same%20(2)/alice.txt")[2], b"alice")
        self.assertEqual(self.dav(dave, "GET", "/dav/docs%20same%20(3)/carol.txt")[2], b"carol")
        self.assertEqual(self.dav(dave, "GET", "/dav/report%20(2).pdf")[2], b"%PDF-1.4 alice")
        self.assertEqual(self.dav(dave, "GET", "/dav/report.pdf")[2], b"%PDF-1.4 dave")
        # The Nextcloud apps' share list points at the same places.
        status, _, body = self.dav(dave, "GET", "/ocs/v2.php/apps/files_sharing/api/v1/shares"
                                   "?shared_with_me=true&format=json", headers={"OCS-APIRequest": "true"})
        self.assertEqual(status, 200, body)
        targets = sorted((x["file_target"], x["uid_owner"]) for x in json.loads(body)["ocs"]["data"])
        self.assertEqual(targets, [("/Docs Same (2)", "alice"), ("/docs same (3)", "carol"),
                                   ("/report (2).pdf", "alice")])
        # Each share's owner, two of them from one owner (looked up once).
        items = dave.call("GET", "/shared-with-me")[2]["items"]
        self.assertEqual(sorted((i["node"]["name"], i["owner"]["username"]) for i in items),
                         [("Docs Same", "alice"), ("docs same", "carol"), ("report.pdf", "alice")])

    def test_moving_and_copying_between_drives(self):
        u = self.users
        alice, bob, carol = u["alice"], u["bob"], u["carol"]
        top = alice.mkdir(alice.root, "Cross Drive")
        doc = alice.put(top["id"], "doc.txt", b"document bytes")
        sub = alice.mkdir(top["id"], "sub")
        alice.put(sub["id"], "deep.txt", b"deep bytes")
        self.grant(alice, top["id"], user="bob", role="editor")
        self.grant(alice, top["id"], user="carol", role="viewer")
        self.assertEqual(self.dav(bob, "MKCOL", "/dav/Mine%20Now/")[0], 201)
        # An editor moves a file out of the share into its own folder: the
        # bytes arrive, the owner's file goes to the owner's trash.
        status, headers, _ = self.dav(bob, "MOVE", "/dav/Cross%20Drive/doc.txt",
                                      headers={"Destination": "/dav/Mine%20Now/doc.txt"})
        self.assertEqual(status, 201)
        self.assertEqual(self.dav(bob, "GET", "/dav/Mine%20Now/doc.txt")[2], b"document bytes")
        self.assertNotIn("doc.txt", [n["name"] for n in alice.list_all(top["id"])])
        trashed = [n for n in alice.trash() if n["name"] == "doc.txt"]
        self.assertEqual(len(trashed), 1)
        self.assertEqual(alice.call("POST", "/nodes/%s/restore" % trashed[0]["id"])[0], 200)
        # A folder with its members, over REST, into the recipient's root.
        bob_root = bob.root
        status, _, moved = bob.call("PATCH", "/nodes/%s" % sub["id"], {"parent_id": bob_root})
        self.assertEqual(status, 200, moved)
        self.assertEqual(self.dav(bob, "GET", "/dav/sub/deep.txt")[2], b"deep bytes")
        self.assertEqual(alice.call("GET", "/nodes/%s" % sub["id"])[0], 404)  # trashed
        # A viewer may copy out (read) but not move out (delete).
        self.assertEqual(self.dav(carol, "MOVE", "/dav/Cross%20Drive/doc.txt",
                                  headers={"Destination": "/dav/doc.txt"})[0], 403)
        self.assertEqual(self.dav(carol, "COPY", "/dav/Cross%20Drive/doc.txt",
                                  headers={"Destination": "/dav/doc-copy.txt"})[0], 201)
        self.assertEqual(self.dav(carol, "GET", "/dav/doc-copy.txt")[2], b"document bytes")
        self.assertEqual(alice.read(doc["id"]), b"document bytes")
        # Into the share from one's own files: the owner's quota pays, and a
        # quota that cannot hold it refuses the whole move (nothing changes).
        self.assertEqual(self.dav(bob, "PUT", "/dav/mine.bin", b"m" * 5000)[0], 201)
        st = self.admin.call("PATCH", "/admin/users/alice", {"quota_bytes": 4000})
        self.assertEqual(st[0], 200, st)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/mine.bin", headers={"Destination": "/dav/Cross%20Drive/mine.bin"})[0],
                         507)
        self.assertEqual(self.dav(bob, "GET", "/dav/mine.bin")[2], b"m" * 5000)
        self.assertEqual(self.dav(bob, "GET", "/dav/Cross%20Drive/mine.bin")[0], 404)
        self.assertEqual(self.admin.call("PATCH", "/admin/users/alice", {"unlimited": True})[0], 200)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/mine.bin", headers={"Destination": "/dav/Cross%20Drive/mine.bin"})[0],
                         201)
        self.assertEqual(alice.read([n for n in alice.list_all(top["id"]) if n["name"] == "mine.bin"][0]["id"]),
                         b"m" * 5000)
        self.assertIn("mine.bin", [n["name"] for n in bob.trash()])

    def test_a_recipient_locks_and_writes_with_its_own_token(self):
        u = self.users
        alice, bob = u["alice"], u["bob"]
        top = alice.mkdir(alice.root, "Lock Share")
        alice.put(top["id"], "edit.txt", b"v1")
        alice.put(top["id"], "hers.txt", b"hers")
        self.grant(alice, top["id"], user="bob", role="editor")
        lockinfo = (b'<?xml version="1.0"?><d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope>'
                    b'<d:locktype><d:write/></d:locktype><d:owner>bob</d:owner></d:lockinfo>')
        status, headers, body = self.dav(bob, "LOCK", "/dav/Lock%20Share/edit.txt", lockinfo,
                                         {"Depth": "0", "Timeout": "Second-600"})
        self.assertEqual(status, 200, body)
        token = headers["lock-token"].strip("<>")
        # Its own lock is seen and honoured through the share (If header true).
        st = self.dav(bob, "PUT", "/dav/Lock%20Share/edit.txt", b"v2", {"If": "(<%s>)" % token})[0]
        self.assertIn(st, (200, 204))
        self.assertEqual(self.dav(bob, "PUT", "/dav/Lock%20Share/edit.txt", b"v3")[0], 423)
        prop = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:lockdiscovery/></d:prop>'
                b'</d:propfind>')
        body = self.dav(bob, "PROPFIND", "/dav/Lock%20Share/edit.txt", prop, {"Depth": "0"})[2]
        self.assertIn(token.encode(), body)
        # The owner's lock binds the recipient but is not shown to it (its
        # root and owner name belong to the owner's tree).
        status, headers, _ = self.dav(alice, "LOCK", "/dav/Lock%20Share/hers.txt", lockinfo.replace(b"bob", b"alice"),
                                      {"Depth": "0"})
        self.assertEqual(status, 200)
        hers = headers["lock-token"].strip("<>")
        body = self.dav(bob, "PROPFIND", "/dav/Lock%20Share/hers.txt", prop, {"Depth": "0"})[2]
        self.assertNotIn(hers.encode(), body)
        self.assertEqual(self.dav(bob, "PUT", "/dav/Lock%20Share/hers.txt", b"x")[0], 423)
        self.assertIn(self.dav(bob, "PUT", "/dav/Lock%20Share/hers.txt", b"x", {"If": "(<%s>)" % hers})[0],
                      (412, 423))
        self.assertEqual(self.dav(alice, "GET", "/dav/Lock%20Share/hers.txt")[2], b"hers")
        self.assertEqual(self.dav(alice, "GET", "/dav/Lock%20Share/edit.txt")[2], b"v2")
        # A mount point moving into (or out of) a folder the recipient locked
        # needs that lock's token, as any new member does (RFC 4918 §7.4).
        self.assertEqual(self.dav(bob, "MKCOL", "/dav/Locked%20Inbox/")[0], 201)
        status, headers, body = self.dav(bob, "LOCK", "/dav/Locked%20Inbox/", lockinfo,
                                         {"Depth": "infinity", "Timeout": "Second-600"})
        self.assertEqual(status, 200, body)
        inbox = headers["lock-token"].strip("<>")
        into = {"Destination": "/dav/Locked%20Inbox/LS/"}
        status, _, body = self.dav(bob, "MOVE", "/dav/Lock%20Share/", headers=into)
        self.assertEqual(status, 423, body)
        self.assertIn(b"lock-token-submitted", body)
        self.assertIn("/dav/Lock Share/", self.listing(bob, "/dav/"))
        # (The token is the destination's: a tagged list, RFC 4918 §10.4.2.)
        tagged = "</dav/Locked%%20Inbox/> (<%s>)" % inbox
        st = self.dav(bob, "MOVE", "/dav/Lock%20Share/", headers=dict(into, If=tagged))[0]
        self.assertEqual(st, 201)
        out = {"Destination": "/dav/Lock%20Share/"}
        self.assertEqual(self.dav(bob, "MOVE", "/dav/Locked%20Inbox/LS/", headers=out)[0], 423)
        st = self.dav(bob, "MOVE", "/dav/Locked%20Inbox/LS/", headers=dict(out, If=tagged))[0]
        self.assertEqual(st, 201)
        self.assertEqual(self.dav(bob, "GET", "/dav/Lock%20Share/edit.txt")[2], b"v2")

    def test_group_shares_follow_membership(self):
        u = self.users
        alice, carol = u["alice"], u["carol"]
        group = self.admin.call("POST", "/groups", {"name": "Mount Group"})[2]
        self.assertEqual(self.admin.call("POST", "/groups/%s/members" % group["id"], {"user": "carol"})[0], 204)
        # One shares with one's own groups; one's own folder is no share to oneself.
        self.assertEqual(self.admin.call("POST", "/groups/%s/members" % group["id"], {"user": "alice"})[0], 204)
        top = alice.mkdir(alice.root, "For The Group")
        alice.put(top["id"], "g.txt", b"group")
        self.grant(alice, top["id"], group=group["id"], role="viewer")
        self.assertEqual(self.dav(carol, "GET", "/dav/For%20The%20Group/g.txt")[2], b"group")
        self.admin.call("DELETE", "/groups/%s/members/users/carol" % group["id"])
        self.assertEqual(self.dav(carol, "GET", "/dav/For%20The%20Group/g.txt")[0], 404)
        self.assertNotIn("/dav/For The Group/", self.listing(carol, "/dav/"))


    def test_share_types_and_owner_for_the_sync_clients(self):
        u = self.users
        alice, bob, dave = u["alice"], u["bob"], u["dave"]
        body = (b'<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:prop>'
                b'<oc:share-types/><oc:owner-id/><oc:owner-display-name/></d:prop></d:propfind>')

        def props(who, path, depth="1"):
            status, _, data = self.dav(who, "PROPFIND", path, body, {"Depth": depth})
            self.assertEqual(status, 207, data)
            out = {}
            for r in RESPONSE.findall(data):
                href = urllib.parse.unquote(field(r, "d:href"))
                kinds = sorted(int(k) for k in re.findall(rb"<oc:share-type>(\d+)</oc:share-type>", r))
                out[href] = (kinds, field(r, "oc:owner-id"), field(r, "oc:owner-display-name"))
            return out

        top = alice.mkdir(alice.root, "Badges")
        plain = alice.mkdir(alice.root, "Badges Not Shared")
        shared_file = alice.put(top["id"], "f.txt", b"f")
        group = self.admin.call("POST", "/groups", {"name": "Badge Group"})[2]
        self.admin.call("POST", "/groups/%s/members" % group["id"], {"user": "alice"})
        self.grant(alice, top["id"], user="bob", role="manager", may_reshare=True)
        self.grant(alice, top["id"], group=group["id"], role="viewer")
        self.assertEqual(alice.call("POST", "/nodes/%s/links" % shared_file["id"], {"role": "view"})[0], 201)
        # A grant counts until it expires.
        self.grant(alice, plain["id"], user="dave", role="viewer", expires_at=int(time.time() * 1000) + 800)
        self.assertEqual(props(alice, "/dav/")["/dav/Badges Not Shared/"][0], [0])
        time.sleep(1)
        mine = props(alice, "/dav/")
        name = mine["/dav/Badges/"][2]
        self.assertTrue(name)
        self.assertEqual(mine["/dav/Badges/"], ([0, 1], "alice", name))
        self.assertEqual(mine["/dav/Badges Not Shared/"][0], [])
        self.assertEqual(props(alice, "/dav/Badges/f.txt", "0")["/dav/Badges/f.txt"][0], [3])
        # The listing page and the single node agree.
        self.assertEqual(props(alice, "/dav/Badges/")["/dav/Badges/f.txt"][0], [3])
        # Bob sees who shared it, and only the shares he made himself.
        self.assertEqual(props(bob, "/dav/")["/dav/Badges/"], ([], "alice", name))
        self.assertEqual(props(bob, "/dav/Badges/")["/dav/Badges/f.txt"], ([], "alice", name))
        self.assertEqual(props(bob, "/dav/Badges/", "0")["/dav/Badges/"], ([], "alice", name))
        self.grant(bob, top["id"], user="dave", role="viewer")
        self.assertEqual(props(bob, "/dav/")["/dav/Badges/"][0], [0])
        # Alice, owning the drive, sees Bob's reshare too (one more user share).
        self.assertEqual(props(alice, "/dav/")["/dav/Badges/"][0], [0, 1])
        self.assertEqual(props(dave, "/dav/")["/dav/Badges/"][1:], ("alice", name))
        # In one's own tree one is the owner.
        self.assertEqual(props(bob, "/dav/", "0")["/dav/"][1], "bob")


    def test_a_listing_reads_fewer_columns_without_changing_a_property(self):
        """A Depth 1 listing that does not ask for DAV:sync-token reads only
        the members' basic columns (meta::ListColumns::kBasic; the drive is
        the folder's) and finds the rest by node id. Every property of every
        member must equal the one a listing that reads all columns gives
        (DAV:sync-token asked too): in one's own folder with a lock, a dead
        property, a favourite, a share and a checksum in it, in one's root
        with a received share mounted in it, and inside that share."""
        u = self.users
        alice, bob = u["alice"], u["bob"]
        names = ["resourcetype", "getcontentlength", "getcontenttype", "getetag", "getlastmodified",
                 "creationdate", "displayname", "supportedlock", "lockdiscovery", "supported-report-set",
                 "quota-used-bytes", "quota-available-bytes"]
        oc = ["fileid", "id", "permissions", "size", "favorite", "owner-id", "owner-display-name", "checksums",
              "share-types", "data-fingerprint"]
        nc = ["has-preview", "mount-type", "is-encrypted"]
        prop = ("".join("<d:%s/>" % n for n in names) + "".join("<oc:%s/>" % n for n in oc) +
                "".join("<nc:%s/>" % n for n in nc) + "<x:colour/>")

        def listing(who, path, body_props, allprop=False):
            inner = ("<d:allprop/>%s" % ("<d:include><d:sync-token/></d:include>" if "sync-token" in body_props
                                         else "") if allprop else "<d:prop>%s</d:prop>" % body_props)
            body = ('<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" '
                    'xmlns:nc="http://nextcloud.org/ns" xmlns:x="urn:x">%s</d:propfind>' % inner).encode()
            status, _, data = self.dav(who, "PROPFIND", path, body, {"Depth": "1"})
            self.assertEqual(status, 207, data)
            out = {}
            for r in RESPONSE.findall(data):
                href = urllib.parse.unquote(field(r, "d:href"))
                r = re.sub(rb"<d:sync-token>.*?</d:sync-token>|<d:sync-token/>", b"", r)
                out[href] = r
            return out

        def same(who, path):
            for allprop in (False, True):
                basic = listing(who, path, prop, allprop)
                full = listing(who, path, prop + "<d:sync-token/>", allprop)
                self.assertEqual(sorted(basic), sorted(full), path)
                for href in full:
                    self.assertEqual(basic[href], full[href], (path, href, allprop))
            return listing(who, path, prop)

        top = alice.mkdir(alice.root, "Columns")
        alice.mkdir(top["id"], "sub")
        for name, data in (("a.txt", b"alpha"), ("b.jpg", b"\xff\xd8x" * 9)):
            status = self.dav(alice, "PUT", "/dav/Columns/" + name, data,
                              {"X-OC-MTime": "1200000000", "OC-Checksum": "SHA1:" + hashlib.sha1(data).hexdigest()})[0]
            self.assertEqual(status, 201, name)
        lockinfo = (b'<?xml version="1.0"?><d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope>'
                    b'<d:locktype><d:write/></d:locktype><d:owner>alice</d:owner></d:lockinfo>')
        self.assertEqual(self.dav(alice, "LOCK", "/dav/Columns/a.txt", lockinfo, {"Depth": "0"})[0], 200)
        patch = (b'<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" '
                 b'xmlns:x="urn:x"><d:set><d:prop><x:colour>green</x:colour><oc:favorite>1</oc:favorite></d:prop>'
                 b'</d:set></d:propertyupdate>')
        self.assertEqual(self.dav(alice, "PROPPATCH", "/dav/Columns/b.jpg", patch)[0], 207)
        self.grant(alice, top["id"], user="bob", role="editor")
        # Two shares in Bob's root with dead properties of their own: his
        # listing reads both shares' properties at once and gives each its own.
        rows = alice.mkdir(alice.root, "Rows")
        self.grant(alice, rows["id"], user="bob", role="viewer")
        for path, colour in (("/dav/Columns/", b"blue"), ("/dav/Rows/", b"red")):
            body = (b'<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:x="urn:x"><d:set><d:prop>'
                    b'<x:colour>' + colour + b'</x:colour></d:prop></d:set></d:propertyupdate>')
            self.assertEqual(self.dav(alice, "PROPPATCH", path, body)[0], 207, path)

        mine = same(alice, "/dav/Columns/")
        # The cases the comparison must reach: a lock, a checksum, a dead
        # property and a favourite, a share and the owner's permissions.
        a, b = mine["/dav/Columns/a.txt"], mine["/dav/Columns/b.jpg"]
        self.assertIn(b"<d:activelock>", a)
        self.assertIn(b"SHA1:", a)
        self.assertRegex(b, rb'colour xmlns:\w+="urn:x">green<')
        self.assertEqual(field(b, "oc:favorite"), "1")
        self.assertIn(b"<oc:share-type>0</oc:share-type>", mine["/dav/Columns/"])
        self.assertEqual(field(a, "oc:permissions"), "RGDNVW")
        self.assertEqual(field(a, "nc:mount-type"), "")
        theirs = same(bob, "/dav/")
        mount = theirs["/dav/Columns/"]
        self.assertEqual(field(mount, "nc:mount-type"), "shared")
        self.assertRegex(mount, rb'colour xmlns:\w+="urn:x">blue<')
        self.assertRegex(theirs["/dav/Rows/"], rb'colour xmlns:\w+="urn:x">red<')
        self.assertEqual(field(mount, "oc:owner-id"), "alice")
        self.assertTrue(field(mount, "oc:permissions").startswith("SM"), mount)
        inside = same(bob, "/dav/Columns/")
        self.assertEqual(field(inside["/dav/Columns/a.txt"], "oc:permissions"), "SGDNVW")
        self.assertEqual(field(inside["/dav/Columns/sub/"], "oc:owner-id"), "alice")

    def test_removed_from_the_tree_and_shown_again(self):
        u = self.users
        alice, bob, carol = u["alice"], u["bob"], u["carol"]
        top = alice.mkdir(alice.root, "Leave Me")
        alice.put(top["id"], "x.txt", b"x")
        placed = carol.mkdir(carol.root, "Carol Placed")
        self.grant(alice, top["id"], user="bob", role="editor")
        self.grant(carol, placed["id"], user="bob", role="viewer")

        def shared_with_bob():
            items = bob.call("GET", "/shared-with-me")[2]["items"]
            return {i["node"]["id"]: i["hidden"] for i in items}

        self.assertFalse(shared_with_bob()[top["id"]])
        before = self.etag(bob)
        # A lock on the folder holding it asks for its token.
        lockinfo = (b'<?xml version="1.0"?><d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope>'
                    b'<d:locktype><d:write/></d:locktype><d:owner>bob</d:owner></d:lockinfo>')
        self.assertEqual(self.dav(bob, "MKCOL", "/dav/Kept/")[0], 201)
        self.assertEqual(self.dav(bob, "MOVE", "/dav/Carol%20Placed/", headers={"Destination": "/dav/Kept/CP/"})[0],
                         201)
        status, headers, _ = self.dav(bob, "LOCK", "/dav/Kept/", lockinfo, {"Depth": "infinity"})
        self.assertEqual(status, 200)
        token = headers["lock-token"].strip("<>")
        self.assertEqual(self.dav(bob, "DELETE", "/dav/Kept/CP/")[0], 423)
        self.assertEqual(self.dav(bob, "DELETE", "/dav/Kept/CP/", headers={"If": "</dav/Kept/> (<%s>)" % token})[0],
                         204)
        self.assertEqual(self.dav(bob, "UNLOCK", "/dav/Kept/", headers={"Lock-Token": "<%s>" % token})[0], 204)
        # Removed: gone from the tree (and the root's ETag changed), still shared.
        self.assertEqual(self.dav(bob, "DELETE", "/dav/Leave%20Me/")[0], 204)
        self.assertNotIn("/dav/Leave Me/", self.listing(bob, "/dav/"))
        self.assertNotIn("/dav/Kept/CP/", self.listing(bob, "/dav/Kept/"))
        self.assertNotEqual(self.etag(bob), before)
        self.assertEqual(self.dav(bob, "GET", "/dav/Leave%20Me/x.txt")[0], 404)
        self.assertEqual(shared_with_bob()[top["id"]], True)
        self.assertEqual(bob.call("GET", "/nodes/%s/children" % top["id"])[0], 200)  # the grant holds
        self.assertEqual(alice.read(alice.list_all(top["id"])[0]["id"]), b"x")
        # Its name is free for Bob's own things meanwhile.
        self.assertEqual(self.dav(bob, "MKCOL", "/dav/Leave%20Me/")[0], 201)
        # Shown again: the placed one where Bob had put it, the other numbered.
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": False})[0], 204)
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % placed["id"], {"hidden": False})[0], 204)
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % placed["id"], {"hidden": False})[0], 204)
        self.assertIn("/dav/Leave Me (2)/", self.listing(bob, "/dav/"))
        self.assertEqual(self.dav(bob, "GET", "/dav/Leave%20Me%20(2)/x.txt")[2], b"x")
        self.assertIn("/dav/Kept/CP/", self.listing(bob, "/dav/Kept/"))
        self.assertFalse(shared_with_bob()[top["id"]])
        # Removing twice is no error; what is not shared with the caller is not there.
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": True})[0], 204)
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": True})[0], 204)
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": "yes"})[0], 400)
        self.assertEqual(carol.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": False})[0], 404)
        self.assertEqual(alice.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": True})[0], 404)
        self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % fake_id(), {"hidden": True})[0], 404)


class ShareFolderTest(unittest.TestCase):
    """sharing.share_folder: shares appear in that folder once it exists."""

    def test_shares_appear_in_the_share_folder(self):
        srv, _, users = start_with_users(("alice", "bob"), dict(FAST, NUBO_SHARE_FOLDER="Shared/With Me"))
        try:
            alice, bob = users["alice"], users["bob"]
            top = alice.mkdir(alice.root, "Handout")
            alice.put(top["id"], "h.txt", b"handout")
            self.assertEqual(alice.call("POST", "/nodes/%s/grants" % top["id"], {"user": "bob", "role": "viewer"})[0],
                             201)

            def get(path):
                return exchange(srv, "GET", path, {"Authorization": bob.auth}, b"")

            # The folder does not exist yet: the top level.
            self.assertEqual(get("/dav/Handout/h.txt")[2], b"handout")
            shared = bob.mkdir(bob.root, "Shared")
            bob.mkdir(shared["id"], "With Me")
            self.assertEqual(get("/dav/Handout/h.txt")[0], 404)
            self.assertEqual(get("/dav/Shared/With%20Me/Handout/h.txt")[2], b"handout")
        finally:
            stop_and_fsck(srv)


class ShareMountSyncClientTest(unittest.TestCase):
    """nextcloudcmd as the recipient: the share arrives with the first sync,
    the owner's change with the next one (found through the root's ETag)."""

    def test_a_sync_client_receives_a_share_and_its_changes(self):
        tool = shutil.which("nextcloudcmd")
        if not tool:
            raise AssertionError("nextcloudcmd is missing: scripts/deps.sh test installs it")
        srv, _, users = start_with_users(("alice", "bob"), FAST)
        tmp = tempfile.TemporaryDirectory(prefix="nubo-mount-sync-")
        try:
            alice, bob = users["alice"], users["bob"]
            top = alice.mkdir(alice.root, "Team Notes")
            f = alice.put(top["id"], "notes.txt", b"first notes")
            self.assertEqual(alice.call("POST", "/nodes/%s/grants" % top["id"], {"user": "bob", "role": "editor"})[0],
                             201)
            local = os.path.join(tmp.name, "bob")
            os.makedirs(local)
            # (Bob has a file of his own: a sync that would delete everything
            # makes the client stop and ask.)
            with open(os.path.join(local, "own.txt"), "wb") as fh:
                fh.write(b"bob's own")

            def sync():
                p = subprocess.run([tool, "--non-interactive", "-u", "bob", "-p", "bob password 1", local,
                                    srv.url("")], capture_output=True, text=True, timeout=600,
                                   env=dict(os.environ, HOME=tmp.name))
                self.assertEqual(p.returncode, 0, p.stdout[-3000:] + p.stderr[-3000:])

            sync()
            with open(os.path.join(local, "Team Notes", "notes.txt"), "rb") as fh:
                self.assertEqual(fh.read(), b"first notes")
            # The owner changes the file and adds one; the recipient's next sync gets both.
            alice.put(top["id"], "notes.txt", b"second notes, longer", expect=200, conflict="overwrite")
            alice.put(top["id"], "added.txt", b"added")
            sync()
            with open(os.path.join(local, "Team Notes", "notes.txt"), "rb") as fh:
                self.assertEqual(fh.read(), b"second notes, longer")
            with open(os.path.join(local, "Team Notes", "added.txt"), "rb") as fh:
                self.assertEqual(fh.read(), b"added")
            # The recipient's new file lands in the owner's folder.
            with open(os.path.join(local, "Team Notes", "from-bob.txt"), "wb") as fh:
                fh.write(b"bob's file")
            sync()
            names = {n["name"]: n for n in alice.list_all(top["id"])}
            self.assertIn("from-bob.txt", names)
            self.assertEqual(alice.read(names["from-bob.txt"]["id"]), b"bob's file")
            self.assertEqual(alice.read(f["id"]), b"second notes, longer")
            # The recipient deletes the shared folder on its desktop: the share
            # leaves its tree (and stays away), the owner's folder stays whole.
            shutil.rmtree(os.path.join(local, "Team Notes"))
            sync()
            sync()
            self.assertFalse(os.path.exists(os.path.join(local, "Team Notes")))
            self.assertEqual(sorted(n["name"] for n in alice.list_all(top["id"])),
                             ["added.txt", "from-bob.txt", "notes.txt"])
            items = bob.call("GET", "/shared-with-me")[2]["items"]
            self.assertEqual([(i["node"]["id"], i["hidden"]) for i in items], [(top["id"], True)])
            # Shown again, it comes back with the next sync.
            self.assertEqual(bob.call("PUT", "/shared-with-me/%s" % top["id"], {"hidden": False})[0], 204)
            sync()
            with open(os.path.join(local, "Team Notes", "notes.txt"), "rb") as fh:
                self.assertEqual(fh.read(), b"second notes, longer")
        finally:
            tmp.cleanup()
            stop_and_fsck(srv)


if __name__ == "__main__":
    unittest.main()
