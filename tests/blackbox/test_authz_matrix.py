"""Authorization matrix (ARCHITECTURE.md §4.7): every route of the server's
own table is called as user B with user A's resource ids, as B with ids
that do not exist, and anonymously. Answers must be 401 (anonymous), 404
(byte-identical between "A's" and "nonexistent"), or 403 on admin-only
routes; never A's data or names. A route whose path parameters the matrix
does not know fails the test, so new routes are covered or noticed."""
import base64
import json
import unittest
import urllib.parse

from harness import Server, exchange

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}
SECRET = "alice-Geheimnis-名前"


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


class AuthzMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(env=FAST)

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()

    def call(self, method, path, auth=None, body=None, headers=None):
        h = dict(auth or {})
        h.update(headers or {})
        raw = b""
        if body is not None:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        return exchange(self.srv, method, path, h, raw)

    def json(self, method, path, auth, body=None, expect=200):
        status, _, data = self.call(method, path, auth, body)
        self.assertEqual(status, expect, data[:300])
        return json.loads(data) if data else None

    def test_matrix(self):
        admin = basic("admin", "admin password 1")
        self.json("POST", "/api/v1/setup", None, {"username": "admin", "password": "admin password 1"}, 201)
        for name in ("alice", "bob"):
            self.json("POST", "/api/v1/admin/users", admin, {"username": name, "password": name + " password 1"}, 201)
        a, b = basic("alice", "alice password 1"), basic("bob", "bob password 1")
        # Alice's resources: a folder with a file, a trashed file, a
        # favorite, an app password, a session, a lock.
        root = self.json("GET", "/api/v1/drives", a)["drives"][0]["root_id"]
        folder = self.json("POST", "/api/v1/nodes/%s/folders" % root, a, {"name": SECRET}, 201)
        status, _, data = self.call("PUT", "/api/v1/nodes/%s/files/%s.txt" % (folder["id"], urllib.parse.quote(SECRET)),
                                    a, b"alice's bytes")
        self.assertEqual(status, 201, data)
        file = json.loads(data)
        status, _, data = self.call("PUT", "/api/v1/nodes/%s/files/trashed.txt" % folder["id"], a, b"t")
        trashed = json.loads(data)
        self.assertEqual(self.call("DELETE", "/api/v1/nodes/%s" % trashed["id"], a)[0], 204)
        self.assertEqual(self.call("PUT", "/api/v1/favorites/%s" % file["id"], a)[0], 204)
        app = self.json("POST", "/api/v1/me/app-passwords", a, {"label": SECRET}, 201)
        login = self.json("POST", "/api/v1/auth/login", None, {"username": "alice", "password": "alice password 1"})
        routes = self.json("GET", "/_test/routes", None)["routes"]

        # What each path parameter stands for: (Alice's value, unknown value).
        ids = {
            "id": {"nodes": (file["id"], "01a22bb7-0000-7000-8000-000000000000"),
                   "favorites": (file["id"], "01a22bb7-0000-7000-8000-000000000000"),
                   "app-passwords": (str(app["id"]), "999999"),
                   "sessions": (login["session_id"], "01a22bb7-0000-7000-8000-000000000001")},
            "name": {"users": ("alice", "nobody-here"), "files": (SECRET + ".txt", "no-such.txt")},
            "path": {"dav": ("%s/%s.txt" % (SECRET, SECRET), "no-such/file.txt"),
                     "webdav": ("%s/%s.txt" % (SECRET, SECRET), "no-such/file.txt")},
        }
        checked = 0
        for r in routes:
            method, pattern, access = r["method"], r["pattern"], r["access"]
            if access == "public" or pattern.startswith("/_test"):
                continue
            segs = pattern.strip("/").split("/")
            mine, unknown = [], []
            for i, s in enumerate(segs):
                if s.startswith("{"):
                    key = s.strip("{}.")
                    context = segs[i - 1] if i else ""
                    if key == "path":
                        context = segs[0]
                    self.assertIn(key, ids, "route %s %s: the matrix has no value for {%s}" % (method, pattern, key))
                    table = ids[key]
                    if key == "id" and context not in table:
                        context = "nodes"  # node-id routes: /nodes/{id}/…
                    self.assertIn(context, table, "route %s %s: no value for {%s} after %s" %
                                  (method, pattern, key, context))
                    mine.append(urllib.parse.quote(table[context][0], safe="/"))
                    unknown.append(urllib.parse.quote(table[context][1], safe="/"))
                else:
                    mine.append(s)
                    unknown.append(s)
            path_a, path_x = "/" + "/".join(mine), "/" + "/".join(unknown)
            body = b"{}" if method in ("POST", "PATCH", "PUT") and "/files/" not in pattern else b"x"
            if method == "GET" and pattern == "/api/v1/search":
                path_a = path_x = "/api/v1/search?q=" + urllib.parse.quote(SECRET[:6])
            # Anonymous: 401, whatever the resource.
            status, _, data = self.call(method, path_a, None, body)
            self.assertEqual(status, 401, "%s %s anonymous: %d %r" % (method, path_a, status, data[:200]))
            # Bob with Alice's id vs Bob with an unknown id.
            sa, _, da = self.call(method, path_a, b, body)
            sx, _, dx = self.call(method, path_x, b, body)
            where = "%s %s as Bob: %d %r" % (method, path_a, sa, da[:200])
            self.assertNotIn(b"alice's bytes", da, where)
            dav = pattern.startswith(("/dav", "/webdav"))
            if not dav:
                # (A WebDAV path is the caller's own; Bob's request names
                # the folder itself, so an echo of it is no leak.)
                self.assertNotIn(SECRET.encode(), da, where)
            if access == "admin":
                self.assertEqual(sa, 403, where)
            elif "{" in pattern:
                # Alice's resource and no resource are indistinguishable.
                self.assertTrue(400 <= sa < 500, where)
                self.assertEqual(sa, sx, "%s %s: Alice's id %d, unknown id %d" % (method, pattern, sa, sx))
                if not dav:
                    self.assertEqual(da, dx, "%s %s: bodies differ" % (method, pattern))
            checked += 1
        self.assertGreater(checked, 40)
        # Nothing Bob did changed Alice's data.
        status, _, data = self.call("GET", "/api/v1/nodes/%s/content" % file["id"], a)
        self.assertEqual((status, data), (200, b"alice's bytes"))
        kids = self.json("GET", "/api/v1/nodes/%s/children" % folder["id"], a)["items"]
        self.assertEqual([k["name"] for k in kids], [SECRET + ".txt"])
        self.assertEqual(len(self.json("GET", "/api/v1/trash", a)["items"]), 1)
        self.assertEqual(len(self.json("GET", "/api/v1/favorites", a)["items"]), 1)
