"""Accounts over HTTP: first-run setup, Basic auth with account and app
passwords, app-password lifecycle, admin-only endpoints."""
import base64
import json
import subprocess
import time
import unittest

from harness import NUBO_BIN, Server, exchange, metric

FAST = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()}


def call(srv, method, path, auth=None, body=None):
    headers = dict(auth or {})
    raw = b""
    if body is not None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    status, hdrs, data = exchange(srv, method, path, headers, raw)
    return status, hdrs, (json.loads(data) if data else None)


class AccountsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(env=FAST, test_routes=False)

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()

    def test_flow(self):
        srv = self.srv
        # The OpenAPI document is public JSON.
        status, hdrs, doc = call(srv, "GET", "/api/openapi.json")
        self.assertEqual(status, 200)
        self.assertIn("/api/v1/me", doc["paths"])
        # Setup is open until the first account exists; asking changes nothing.
        self.assertEqual(call(srv, "GET", "/api/v1/setup")[2], {"open": True})
        # Before setup nobody can sign in.
        status, hdrs, body = call(srv, "GET", "/api/v1/me")
        self.assertEqual(status, 401)
        self.assertIn("Basic", hdrs["www-authenticate"])
        # Bad input to setup changes nothing.
        self.assertEqual(call(srv, "POST", "/api/v1/setup", body=b"{not json")[0], 400)
        self.assertEqual(call(srv, "POST", "/api/v1/setup", body={"username": "root"})[0], 400)
        status, _, body = call(srv, "POST", "/api/v1/setup", body={"username": "root", "password": "short"})
        self.assertEqual(status, 400)
        self.assertIn("at least 10", body["message"])
        status, _, body = call(srv, "POST", "/api/v1/setup", body={"username": "root", "password": 12345678901})
        self.assertEqual(status, 400)
        # Setup once.
        status, _, body = call(srv, "POST", "/api/v1/setup",
                               body={"username": "Root", "password": "root password!"})
        self.assertEqual(status, 201, body)
        self.assertEqual(body["role"], "admin")
        self.assertEqual(call(srv, "GET", "/api/v1/setup")[2], {"open": False})
        status, _, body = call(srv, "POST", "/api/v1/setup",
                               body={"username": "other", "password": "other password"})
        self.assertEqual(status, 409)
        # Basic auth with the account password (name is case-insensitive).
        status, _, me = call(srv, "GET", "/api/v1/me", basic("root", "root password!"))
        self.assertEqual(status, 200, me)
        self.assertEqual(me["username"], "Root")
        # /metrics counts Argon2 runs and credential-cache hits: a second
        # request with the same credentials is a hit, not another run.
        runs = metric(srv, "nubo_auth_argon2_verifications_total")
        hits = metric(srv, "nubo_auth_credential_cache_hits_total")
        self.assertGreaterEqual(runs, 1)
        self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", "root password!"))[0], 200)
        self.assertEqual(metric(srv, "nubo_auth_argon2_verifications_total"), runs)
        self.assertEqual(metric(srv, "nubo_auth_credential_cache_hits_total"), hits + 1)
        # Setup wrote to the database: writes counted, never fewer than commits.
        writes, commits = metric(srv, "nubo_meta_writes_total"), metric(srv, "nubo_meta_commits_total")
        self.assertGreaterEqual(writes, 1)
        self.assertTrue(1 <= commits <= writes, (commits, writes))
        # Wrong password and unknown user are indistinguishable.
        s1, _, b1 = call(srv, "GET", "/api/v1/me", basic("root", "wrong password"))
        s2, _, b2 = call(srv, "GET", "/api/v1/me", basic("nobody", "wrong password"))
        self.assertEqual((s1, b1), (s2, b2))
        self.assertEqual(s1, 401)
        # Malformed headers are 401 with a reason, never 500.
        for h in ("Basic !!!", "Basic " + base64.b64encode(b"nocolon").decode(), "Bearer abc", "Basic"):
            status, _, body = call(srv, "GET", "/api/v1/me", {"Authorization": h})
            self.assertEqual(status, 401, h)
        # App passwords: create (shown once), use, list, revoke.
        status, _, app = call(srv, "POST", "/api/v1/me/app-passwords", basic("root", "root password!"),
                              {"label": "phone"})
        self.assertEqual(status, 201, app)
        status, _, me2 = call(srv, "GET", "/api/v1/me", basic("root", app["password"]))
        self.assertEqual(status, 200)
        self.assertEqual(app["scopes"], ["files", "groupware"])
        # Regression: an app password minted app passwords (201) and reached
        # admin routes, so a leaked one could not be evicted by revoking it.
        # It reaches files, never the account's credentials nor admin.
        for method, path, body in (("POST", "/api/v1/me/app-passwords", {"label": "successor"}),
                                   ("GET", "/api/v1/me/app-passwords", None),
                                   ("DELETE", "/api/v1/me/app-passwords/%d" % app["id"], None),
                                   ("POST", "/api/v1/me/password",
                                    {"current_password": "root password!", "new_password": "taken over!!"}),
                                   ("GET", "/api/v1/me/sessions", None),
                                   ("GET", "/api/v1/admin/users", None),
                                   ("POST", "/api/v1/admin/users", {"username": "mole", "password": "mole password"})):
            status, _, body = call(srv, method, path, basic("root", app["password"]), body)
            self.assertEqual(status, 403, (method, path, body))
            self.assertEqual(body["error"], "permission_denied")
        status, _, listing = call(srv, "GET", "/api/v1/me/app-passwords", basic("root", "root password!"))
        self.assertEqual([a["label"] for a in listing["app_passwords"]], ["phone"])
        self.assertEqual(listing["app_passwords"][0]["scopes"], ["files", "groupware"])
        self.assertNotIn("password", listing["app_passwords"][0])
        self.assertIsNotNone(listing["app_passwords"][0]["last_used_at"])
        self.assertEqual(call(srv, "DELETE", "/api/v1/me/app-passwords/999999",
                              basic("root", "root password!"))[0], 404)
        status, _, _ = call(srv, "DELETE", "/api/v1/me/app-passwords/%d" % app["id"],
                            basic("root", "root password!"))
        self.assertEqual(status, 204)
        # Revoked: refused at once, even though it was just cached.
        self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", app["password"]))[0], 401)
        status, _, body = call(srv, "POST", "/api/v1/me/app-passwords", basic("root", "root password!"),
                               {"label": ""})
        self.assertEqual(status, 400)
        # Admin endpoint: the admin may, a plain user may not.
        status, _, users = call(srv, "GET", "/api/v1/admin/users?limit=10", basic("root", "root password!"))
        self.assertEqual(status, 200)
        self.assertEqual([u["username"] for u in users["users"]], ["Root"])
        self.assertEqual(call(srv, "GET", "/api/v1/admin/users?limit=0", basic("root", "root password!"))[0], 400)
        # A plain user (created from the shell, beside the running server) may not.
        env = srv.tool_env()
        env.update(FAST)
        p = subprocess.run([NUBO_BIN, "--data", srv.data, "user", "add", "bob", "--password-stdin"],
                           input="bob's password\n", capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(call(srv, "GET", "/api/v1/me", basic("bob", "bob's password"))[0], 200)
        status, _, body = call(srv, "GET", "/api/v1/admin/users", basic("bob", "bob's password"))
        self.assertEqual(status, 403)
        self.assertEqual(body["error"], "permission_denied")


class SessionTest(unittest.TestCase):
    def test_login_refresh_reuse_logout(self):
        # No grace window here: any reuse of a rotated token is theft.
        srv = Server(env=dict(FAST, NUBO_REFRESH_GRACE="0s"), test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            status, _, body = call(srv, "POST", "/api/v1/auth/login",
                                   body={"username": "root", "password": "nope nope nope"})
            self.assertEqual(status, 401)
            self.assertEqual(call(srv, "POST", "/api/v1/auth/login", body={"username": "root"})[0], 400)
            status, _, t = call(srv, "POST", "/api/v1/auth/login",
                                body={"username": "root", "password": "root password!"})
            self.assertEqual(status, 200, t)
            self.assertEqual(t["token_type"], "Bearer")
            bearer = {"Authorization": "Bearer " + t["access_token"]}
            status, _, me = call(srv, "GET", "/api/v1/me", bearer)
            self.assertEqual((status, me["username"]), (200, "root"))
            self.assertEqual(call(srv, "GET", "/api/v1/admin/users", bearer)[0], 200)
            status, _, sessions = call(srv, "GET", "/api/v1/me/sessions", bearer)
            self.assertEqual([x["current"] for x in sessions["sessions"]], [True])
            # Tampered and foreign tokens: 401 with a reason, never 500.
            bad = t["access_token"][:-3] + ("AAA" if not t["access_token"].endswith("AAA") else "BBB")
            self.assertEqual(call(srv, "GET", "/api/v1/me", {"Authorization": "Bearer " + bad})[0], 401)
            self.assertEqual(call(srv, "GET", "/api/v1/me", {"Authorization": "Bearer x.y.z"})[0], 401)
            # Rotation, then reuse of the rotated token revokes the family.
            status, _, t2 = call(srv, "POST", "/api/v1/auth/refresh", body={"refresh_token": t["refresh_token"]})
            self.assertEqual(status, 200, t2)
            time.sleep(0.01)
            bearer2 = {"Authorization": "Bearer " + t2["access_token"]}
            self.assertEqual(call(srv, "GET", "/api/v1/me", bearer2)[0], 200)
            status, _, body = call(srv, "POST", "/api/v1/auth/refresh", body={"refresh_token": t["refresh_token"]})
            self.assertEqual(status, 401)
            self.assertIn("reused", body["message"])
            self.assertEqual(call(srv, "GET", "/api/v1/me", bearer2)[0], 401)
            # A fresh sign-in, then logout ends it.
            _, _, t3 = call(srv, "POST", "/api/v1/auth/login",
                            body={"username": "root", "password": "root password!"})
            bearer3 = {"Authorization": "Bearer " + t3["access_token"]}
            self.assertEqual(call(srv, "POST", "/api/v1/auth/logout", bearer3)[0], 204)
            self.assertEqual(call(srv, "GET", "/api/v1/me", bearer3)[0], 401)
            self.assertEqual(call(srv, "POST", "/api/v1/auth/refresh",
                                  body={"refresh_token": t3["refresh_token"]})[0], 401)
        finally:
            srv.close()


def login(srv, user, password):
    status, _, t = call(srv, "POST", "/api/v1/auth/login", body={"username": user, "password": password})
    assert status == 200, (status, t)
    return {"Authorization": "Bearer " + t["access_token"]}, t["session_id"]


class AdminAndProfileTest(unittest.TestCase):
    def test_admin_and_profile_endpoints(self):
        srv = Server(env=FAST, test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            root, _ = login(srv, "root", "root password!")
            status, _, bob = call(srv, "POST", "/api/v1/admin/users", root,
                                  {"username": "bob", "password": "bob password!"})
            self.assertEqual((status, bob["role"]), (201, "user"))
            self.assertEqual(call(srv, "POST", "/api/v1/admin/users", root,
                                  {"username": "BOB", "password": "bob password!"})[0], 409)
            self.assertEqual(call(srv, "POST", "/api/v1/admin/users", root,
                                  {"username": "x", "password": "bob password!", "admin": "yes"})[0], 400)
            bob_a, bob_a_id = login(srv, "bob", "bob password!")
            self.assertEqual(call(srv, "POST", "/api/v1/admin/users", bob_a,
                                  {"username": "eve", "password": "eve password!"})[0], 403)
            # The last active admin stays.
            status, _, body = call(srv, "PATCH", "/api/v1/admin/users/root", root, {"active": False})
            self.assertEqual(status, 409, body)
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/users/nobody", root, {"role": "user"})[0], 404)
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/users/bob", root, {"role": "boss"})[0], 400)
            # Promote bob; his existing token gains admin at once; demote him; it loses it at once.
            status, _, body = call(srv, "PATCH", "/api/v1/admin/users/bob", root, {"role": "admin"})
            self.assertEqual((status, body["role"]), (200, "admin"))
            self.assertEqual(call(srv, "GET", "/api/v1/admin/users", bob_a)[0], 200)
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/users/bob", root, {"role": "user"})[0], 200)
            self.assertEqual(call(srv, "GET", "/api/v1/admin/users", bob_a)[0], 403)
            # Quotas.
            _, _, body = call(srv, "PATCH", "/api/v1/admin/users/bob", root, {"quota_bytes": 1000})
            self.assertEqual(body["quota_bytes"], 1000)
            _, _, body = call(srv, "PATCH", "/api/v1/admin/users/bob", root, {"unlimited": True})
            self.assertIsNone(body["quota_bytes"])
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/users/bob", root, {"quota_bytes": -5})[0], 400)
            # Profile.
            status, _, body = call(srv, "PATCH", "/api/v1/me", bob_a, {"display_name": "Bob B", "email": "b@example.org"})
            self.assertEqual((status, body["display_name"], body["email"]), (200, "Bob B", "b@example.org"))
            self.assertEqual(call(srv, "PATCH", "/api/v1/me", bob_a, {"email": "not-an-email"})[0], 400)
            self.assertEqual(call(srv, "PATCH", "/api/v1/me", root, {"email": "B@example.org"})[0], 409)
            # Password change keeps this session and ends the others.
            bob_b, bob_b_id = login(srv, "bob", "bob password!")
            status, _, body = call(srv, "POST", "/api/v1/me/password", bob_a,
                                   {"current_password": "wrong wrong", "new_password": "bob's new password"})
            self.assertEqual(status, 403)
            self.assertEqual(call(srv, "POST", "/api/v1/me/password", bob_a,
                                  {"current_password": "bob password!", "new_password": "bob's new password"})[0], 204)
            self.assertEqual(call(srv, "GET", "/api/v1/me", bob_a)[0], 200)
            self.assertEqual(call(srv, "GET", "/api/v1/me", bob_b)[0], 401)
            bob_c, bob_c_id = login(srv, "bob", "bob's new password")
            # Revoking a session: own yes, someone else's is a 404 like a missing one.
            _, root_id = login(srv, "root", "root password!")
            self.assertEqual(call(srv, "DELETE", "/api/v1/me/sessions/" + root_id, bob_a)[0], 404)
            self.assertEqual(call(srv, "DELETE", "/api/v1/me/sessions/" + bob_c_id, bob_a)[0], 204)
            self.assertEqual(call(srv, "GET", "/api/v1/me", bob_c)[0], 401)
            # An admin reset ends every session of the account.
            self.assertEqual(call(srv, "POST", "/api/v1/admin/users/bob/password", root,
                                  {"password": "reset password"})[0], 204)
            self.assertEqual(call(srv, "GET", "/api/v1/me", bob_a)[0], 401)
            login(srv, "bob", "reset password")
        finally:
            srv.close()


class RegistrationAndAdminExtrasTest(unittest.TestCase):
    def test_registration_switch_search_and_session_revocation(self):
        srv = Server(env=dict(FAST, NUBO_LOCKOUT_FAILURES="4", NUBO_LOCKOUT="60s"), test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            root, _ = login(srv, "root", "root password!")
            # Closed by default.
            status, _, body = call(srv, "POST", "/api/v1/register", body={"username": "amy", "password": "amy password"})
            self.assertEqual((status, body["message"]), (403, "registration is closed"))
            self.assertEqual(call(srv, "GET", "/api/v1/admin/settings", root)[2], {"registration": False})
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/settings", root, {"registration": "yes"})[0], 400)
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/settings", root, {"registration": True})[2],
                             {"registration": True})
            status, _, amy = call(srv, "POST", "/api/v1/register", body={"username": "amy", "password": "amy password"})
            self.assertEqual((status, amy["role"]), (201, "user"))
            amy_h, _ = login(srv, "amy", "amy password")
            self.assertEqual(call(srv, "PATCH", "/api/v1/admin/settings", amy_h, {"registration": False})[0], 403)
            # Registration attempts are throttled per IP (4 per window here; 2 used).
            self.assertEqual(call(srv, "POST", "/api/v1/register", body={"username": "ann", "password": "ann password"})[0], 201)
            self.assertEqual(call(srv, "POST", "/api/v1/register", body={"username": "amy", "password": "x password"})[0], 409)
            status, hdrs, _ = call(srv, "POST", "/api/v1/register", body={"username": "zed", "password": "zed password"})
            self.assertEqual(status, 429)
            self.assertIn("retry-after", hdrs)
            # Search by name prefix, case-insensitive.
            _, _, page = call(srv, "GET", "/api/v1/admin/users?q=A", root)
            self.assertEqual([u["username"] for u in page["users"]], ["amy", "ann"])
            # An admin ends every session of an account.
            self.assertEqual(call(srv, "GET", "/api/v1/me", amy_h)[0], 200)
            self.assertEqual(call(srv, "DELETE", "/api/v1/admin/users/amy/sessions", root)[0], 204)
            self.assertEqual(call(srv, "GET", "/api/v1/me", amy_h)[0], 401)
            self.assertEqual(call(srv, "DELETE", "/api/v1/admin/users/nobody/sessions", root)[0], 404)
        finally:
            srv.close()


class BrowserSessionTest(unittest.TestCase):
    def test_cookie_mode_with_csrf(self):
        srv = Server(env=FAST, test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            status, hdrs, body = call(srv, "POST", "/api/v1/auth/login",
                                      body={"username": "root", "password": "root password!", "mode": "cookie"})
            self.assertEqual(status, 200, body)
            self.assertNotIn("access_token", body)  # tokens stay out of reach of page scripts
            cookies = {}
            for line in hdrs["set-cookie"].split("\n"):
                name, _, rest = line.partition("=")
                cookies[name] = rest.split(";")[0]
                if name in ("nubo_access", "nubo_refresh"):
                    self.assertIn("HttpOnly", line)
                self.assertIn("SameSite=Strict", line)
            self.assertEqual(cookies["nubo_csrf"], body["csrf_token"])
            jar = {"Cookie": "; ".join("%s=%s" % kv for kv in cookies.items())}
            # Safe methods need only the cookie; no Basic challenge for browsers.
            status, hdrs, me = call(srv, "GET", "/api/v1/me", jar)
            self.assertEqual((status, me["username"]), (200, "root"))
            # Unsafe without or with a wrong CSRF header: 403 and nothing created.
            self.assertEqual(call(srv, "POST", "/api/v1/me/app-passwords", jar, {"label": "x"})[0], 403)
            wrong = dict(jar, **{"X-CSRF-Token": "0" * 64})
            self.assertEqual(call(srv, "POST", "/api/v1/me/app-passwords", wrong, {"label": "x"})[0], 403)
            _, _, listing = call(srv, "GET", "/api/v1/me/app-passwords", jar)
            self.assertEqual(listing["app_passwords"], [])
            good = dict(jar, **{"X-CSRF-Token": body["csrf_token"]})
            self.assertEqual(call(srv, "POST", "/api/v1/me/app-passwords", good, {"label": "x"})[0], 201)
            # Cookie refresh needs the double-submitted CSRF token too.
            self.assertEqual(call(srv, "POST", "/api/v1/auth/refresh", jar)[0], 403)
            status, hdrs, body2 = call(srv, "POST", "/api/v1/auth/refresh", good)
            self.assertEqual(status, 200, body2)
            self.assertNotEqual(body2["csrf_token"], body["csrf_token"])
            new = {}
            for line in hdrs["set-cookie"].split("\n"):
                name, _, rest = line.partition("=")
                new[name] = rest.split(";")[0]
            jar2 = {"Cookie": "; ".join("%s=%s" % kv for kv in new.items()),
                    "X-CSRF-Token": body2["csrf_token"]}
            self.assertEqual(call(srv, "GET", "/api/v1/me", jar2)[0], 200)
            # Logout clears the cookies and ends the session.
            status, hdrs, _ = call(srv, "POST", "/api/v1/auth/logout", jar2)
            self.assertEqual(status, 204)
            self.assertIn("nubo_access=; Path=/; Max-Age=0", hdrs["set-cookie"])
            status, hdrs, _ = call(srv, "GET", "/api/v1/me", jar2)
            self.assertEqual(status, 401)
            self.assertNotIn("www-authenticate", hdrs)
            # An expired access cookie has dropped out, the CSRF cookie is
            # still there: still a browser, still no Basic challenge.
            only_csrf = {"Cookie": "nubo_csrf=%s" % new["nubo_csrf"]}
            status, hdrs, _ = call(srv, "GET", "/api/v1/me", only_csrf)
            self.assertEqual(status, 401)
            self.assertNotIn("www-authenticate", hdrs)
            # A client with no cookies at all is challenged (WebDAV, curl).
            self.assertIn("Basic", call(srv, "GET", "/api/v1/me")[1]["www-authenticate"])
        finally:
            srv.close()


class LockoutTest(unittest.TestCase):
    def test_lockout_after_failures_and_recovery(self):
        srv = Server(env=dict(FAST, NUBO_LOCKOUT_FAILURES="3", NUBO_LOCKOUT="2s"), test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            for _ in range(3):
                self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", "guess guess"))[0], 401)
            # Locked: even the right password waits, and nothing is checked meanwhile.
            status, hdrs, body = call(srv, "GET", "/api/v1/me", basic("root", "root password!"))
            self.assertEqual(status, 429)
            self.assertIn(hdrs["retry-after"], ("1", "2"))
            self.assertIn("retry in", body["message"])
            time.sleep(2.1)
            self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", "root password!"))[0], 200)
        finally:
            srv.close()

    def test_a_lockout_survives_a_restart(self):
        # Failures are kept in the store (shared with other nodes), so a
        # restart is no way around a lockout.
        srv = Server(env=dict(FAST, NUBO_LOCKOUT_FAILURES="3", NUBO_LOCKOUT="60s"), test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            for _ in range(3):
                self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", "guess guess"))[0], 401)
            self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", "root password!"))[0], 429)
            # (Written twice a second, and at a clean exit.)
            self.assertEqual(srv.restart(), 0)
            status, hdrs, _ = call(srv, "GET", "/api/v1/me", basic("root", "root password!"))
            self.assertEqual(status, 429)
            self.assertGreater(int(hdrs["retry-after"]), 50)
        finally:
            srv.close()

    def test_forwarded_for_is_ignored_from_untrusted_peers(self):
        # Rotating X-Forwarded-For must not escape the per-IP count.
        srv = Server(env=dict(FAST, NUBO_LOCKOUT_FAILURES="3", NUBO_LOCKOUT="60s"), test_routes=False)
        try:
            # (The address as a whole is locked after five times the
            # per-account count, across any accounts.)
            # Either way the forged addresses count as this one address: it
            # is soon refused (429, or 503 once the failures add up to an
            # attack) however the header rotates.
            statuses = []
            for i in range(15):
                h = basic("user%d" % i, "guess guess")
                h["X-Forwarded-For"] = "203.0.113.%d" % i
                statuses.append(call(srv, "GET", "/api/v1/me", h)[0])
            self.assertLessEqual(set(statuses), {401, 429, 503})
            self.assertIn(statuses[-1], (429, 503))
            self.assertIn(call(srv, "GET", "/api/v1/me", basic("someone", "guess guess"))[0], (429, 503))
        finally:
            srv.close()


class StrangerLockoutTest(unittest.TestCase):
    def test_a_stranger_cannot_lock_the_owner_out(self):
        # Regression: eleven wrong guesses by a stranger made the account's
        # valid app password answer 429, so every sync client of the owner
        # stopped. Addresses come from X-Forwarded-For through a trusted
        # proxy (this test's loopback).
        srv = Server(env=dict(FAST, NUBO_LOCKOUT_FAILURES="10", NUBO_LOCKOUT="60s",
                              NUBO_TRUSTED_PROXIES="127.0.0.1"), test_routes=False)
        try:
            owner, stranger = {"X-Forwarded-For": "198.51.100.7"}, {"X-Forwarded-For": "203.0.113.9"}
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            status, _, app = call(srv, "POST", "/api/v1/me/app-passwords",
                                  dict(basic("root", "root password!"), **owner), {"label": "phone"})
            self.assertEqual(status, 201, app)
            statuses = [call(srv, "GET", "/api/v1/me", dict(basic("root", "guess %d" % i), **stranger))[0]
                        for i in range(11)]
            # (Refused ones are 429: the account's lockout for that address,
            # or the small budget of checks addresses that failed share.)
            self.assertEqual(statuses[0], 401)
            self.assertEqual(statuses[-1], 429)
            self.assertLessEqual(set(statuses), {401, 429})
            # The owner's sync client (app password) from its own address and
            # from the stranger's: never throttled.
            self.assertEqual(call(srv, "GET", "/api/v1/me", dict(basic("root", app["password"]), **owner))[0], 200)
            self.assertEqual(call(srv, "GET", "/api/v1/me", dict(basic("root", app["password"]), **stranger))[0], 200)
            # The owner's account password from an address that did not fail.
            self.assertEqual(call(srv, "GET", "/api/v1/me", dict(basic("root", "root password!"), **owner))[0], 200)
            status, _, _ = call(srv, "POST", "/api/v1/auth/login", owner,
                                {"username": "root", "password": "root password!"})
            self.assertEqual(status, 200)
            # The stranger's further guesses are refused without a check.
            self.assertEqual(call(srv, "GET", "/api/v1/me", dict(basic("root", "guess x"), **stranger))[0], 429)
        finally:
            srv.close()


class CsrfTest(unittest.TestCase):
    def test_cross_site_requests_are_refused_for_every_scheme(self):
        # Regression: a cross-site POST /api/v1/admin/users with
        # Content-Type text/plain and Basic credentials (a browser replays
        # them after a 401 challenge) created an admin account: only cookie
        # sessions were CSRF-checked and JSON was parsed whatever its type.
        srv = Server(env=FAST, test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            admin = basic("root", "root password!")
            attack = json.dumps({"username": "mole", "password": "mole password", "admin": True}).encode()
            cross = [{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
                     {"Origin": "https://evil.example"},
                     {"Sec-Fetch-Site": "cross-site"},
                     {"Sec-Fetch-Site": "same-site"},
                     {"Origin": "null"}]
            for extra in cross:
                for ctype in ("text/plain", "application/json"):
                    h = dict(admin, **extra)
                    h["Content-Type"] = ctype
                    status, _, body = exchange(srv, "POST", "/api/v1/admin/users", h, attack)
                    self.assertEqual(status, 403, (extra, ctype, body))
            # Not only admin routes, and not only Basic: sign-in (login CSRF),
            # WebDAV writes, file deletes.
            evil = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site",
                    "Content-Type": "application/json"}
            login = json.dumps({"username": "root", "password": "root password!"}).encode()
            self.assertEqual(exchange(srv, "POST", "/api/v1/auth/login", evil, login)[0], 403)
            self.assertEqual(exchange(srv, "PUT", "/dav/x.txt", dict(admin, **evil), b"x")[0], 403)
            self.assertEqual(exchange(srv, "MKCOL", "/dav/d", dict(admin, **evil))[0], 403)
            # Nothing was created.
            status, _, users = call(srv, "GET", "/api/v1/admin/users", admin)
            self.assertEqual([u["username"] for u in users["users"]], ["root"])
            self.assertEqual(exchange(srv, "GET", "/dav/x.txt", admin)[0], 404)
            # A JSON route refuses a body that does not say it is JSON, even
            # from a client that is not a browser (no Origin): 415.
            h = dict(admin)
            h["Content-Type"] = "text/plain"
            status, _, body = exchange(srv, "POST", "/api/v1/admin/users", h, attack)
            self.assertEqual(status, 415, body)
            # Same-origin browsers, reads and non-browser clients go through.
            same = dict(admin, Origin="http://127.0.0.1", **{"Sec-Fetch-Site": "same-origin"})
            same["Content-Type"] = "application/json"
            ok = json.dumps({"username": "friend", "password": "friend password"}).encode()
            self.assertEqual(exchange(srv, "POST", "/api/v1/admin/users", same, ok)[0], 201)
            self.assertEqual(exchange(srv, "GET", "/api/v1/me", dict(admin, **evil))[0], 200)
            self.assertEqual(exchange(srv, "PROPFIND", "/dav/", dict(admin, Depth="0", **evil))[0], 207)
            self.assertEqual(exchange(srv, "PUT", "/dav/y.txt", admin, b"y")[0], 201)
        finally:
            srv.close()


class AppPasswordOnlyTest(unittest.TestCase):
    def test_account_passwords_can_be_refused_for_basic(self):
        srv = Server(env=dict(FAST, NUBO_BASIC_ACCOUNT_PASSWORDS="false"), test_routes=False)
        try:
            self.assertEqual(call(srv, "POST", "/api/v1/setup",
                                  body={"username": "root", "password": "root password!"})[0], 201)
            self.assertEqual(call(srv, "GET", "/api/v1/me", basic("root", "root password!"))[0], 401)
        finally:
            srv.close()


if __name__ == "__main__":
    unittest.main()
