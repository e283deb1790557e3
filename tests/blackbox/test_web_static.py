"""The web UI's files: hashed assets cached immutably, index.html always
revalidated, deep links answered with the app, API and WebDAV paths never
swallowed by the fallback, hidden files and traversal refused, a strict
Content-Security-Policy on every UI response."""
import os
import tempfile
import unittest

from harness import Server, exchange


class WebStaticTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dist = tempfile.TemporaryDirectory(prefix="nubo-web-")
        d = cls.dist.name
        os.makedirs(os.path.join(d, "assets"))
        with open(os.path.join(d, "index.html"), "w") as f:
            f.write("<!doctype html><title>nubo test app</title>")
        with open(os.path.join(d, "assets", "app-3f9a.js"), "w") as f:
            f.write("console.log('app')")
        with open(os.path.join(d, ".secret"), "w") as f:
            f.write("hidden")
        cls.srv = Server(env={"NUBO_WEB_DIR": d})

    @classmethod
    def tearDownClass(cls):
        cls.srv.terminate()
        cls.srv.close()
        cls.dist.cleanup()

    def test_index_and_deep_links(self):
        for path in ("/", "/files/01abc", "/trash", "/settings/profile"):
            status, h, body = exchange(self.srv, "GET", path)
            self.assertEqual(status, 200, path)
            self.assertIn(b"nubo test app", body)
            self.assertEqual(h["cache-control"], "no-cache")
            self.assertTrue(h["content-type"].startswith("text/html"))
            self.assertIn("script-src 'self'", h["content-security-policy"])
            self.assertIn("frame-ancestors 'none'", h["content-security-policy"])
            # No inline styles or scripts anywhere: the UI sets run-time
            # styles through the CSSOM, which the policy does not cover.
            self.assertIn("style-src 'self';", h["content-security-policy"])
            self.assertNotIn("unsafe-inline", h["content-security-policy"])
            self.assertNotIn("unsafe-eval", h["content-security-policy"])

    def test_assets_are_immutable(self):
        status, h, body = exchange(self.srv, "GET", "/assets/app-3f9a.js")
        self.assertEqual((status, body), (200, b"console.log('app')"))
        self.assertIn("immutable", h["cache-control"])
        self.assertIn("javascript", h["content-type"])
        status, h, _ = exchange(self.srv, "HEAD", "/assets/app-3f9a.js")
        self.assertEqual((status, h["content-length"]), (200, "18"))
        # A missing hashed asset is a 404, not the app (a stale page must notice).
        self.assertEqual(exchange(self.srv, "GET", "/assets/app-old.js")[0], 404)

    def test_api_and_dav_are_not_swallowed(self):
        status, h, body = exchange(self.srv, "GET", "/api/v1/no-such-endpoint")
        self.assertEqual(status, 404)
        self.assertIn(b'"not_found"', body)
        self.assertEqual(exchange(self.srv, "GET", "/dav/")[0], 401)

    def test_without_a_build_unknown_paths_are_404(self):
        with tempfile.TemporaryDirectory(prefix="nubo-noweb-") as empty:
            srv = Server(env={"NUBO_WEB_DIR": empty})
            try:
                status, _, body = exchange(srv, "GET", "/")
                self.assertEqual(status, 200)
                self.assertIn(b"not built", body)
                status, h, body = exchange(srv, "GET", "/files/deep/link")
                self.assertEqual((status, h["content-type"]), (404, "application/json"))
            finally:
                srv.terminate()
                srv.close()

    def test_hidden_files_and_traversal(self):
        for path in ("/.secret", "/assets/../.secret", "/%2e%2e/%2e%2e/etc/passwd", "/assets/%2e%2e/.secret",
                     "/..%2f..%2fetc%2fpasswd"):
            status, _, body = exchange(self.srv, "GET", path)
            self.assertNotIn(b"hidden", body, path)
            self.assertNotIn(b"root:", body, path)
