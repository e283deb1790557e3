"""The streaming HTTP/1.1 core, driven over real sockets against the binary."""
import json
import os
import re
import socket
import threading
import time
import unittest

from harness import Reader, Server, exchange, request


class HttpCoreTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(env={"NUBO_MAX_CONNECTIONS": "64"})

    @classmethod
    def tearDownClass(cls):
        code = cls.srv.terminate()
        cls.srv.close()
        assert code == 0, "server exit code %s" % code

    def test_health_ready_metrics(self):
        status, headers, body = exchange(self.srv, "GET", "/health")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body), {"status": "ok"})
        self.assertTrue(headers["x-request-id"])
        self.assertIn("date", headers)
        status, _, body = exchange(self.srv, "GET", "/ready")
        self.assertEqual(status, 200, body)
        status, headers, body = exchange(self.srv, "GET", "/metrics")
        self.assertEqual(status, 200)
        text = body.decode()
        self.assertRegex(text, r'nubo_http_requests_total\{route="/health",method="GET",status="200"\} [1-9]')
        self.assertRegex(text, r'nubo_http_request_duration_seconds_bucket\{route="/health",le="\+Inf"\} [1-9]')
        self.assertRegex(text, r"nubo_http_open_connections [1-9]")
        self.assertRegex(text, r"process_resident_memory_bytes [1-9]\d+")

    def test_keep_alive_reuses_the_connection(self):
        with self.srv.connect() as s:
            r = Reader(s)
            ids = set()
            for n in (10, 20000, 3):
                s.sendall(request("GET", "/_test/source?bytes=%d" % n))
                status, headers, body = r.response()
                self.assertEqual(status, 200)
                self.assertEqual(len(body), n)
                self.assertNotEqual(headers.get("connection", "").lower(), "close")
                ids.add(headers["x-request-id"])
            self.assertEqual(len(ids), 3)
            # Connection: close is honoured after the response.
            s.sendall(request("GET", "/health", {"Connection": "close"}))
            status, headers, _ = r.response()
            self.assertEqual(status, 200)
            self.assertEqual(headers.get("connection", "").lower(), "close")
            self.assertTrue(r.closed_by_peer())

    def test_pipelined_requests_answer_in_order(self):
        sizes = [5, 70000, 0, 1234]
        with self.srv.connect() as s:
            s.sendall(b"".join(request("GET", "/_test/source?bytes=%d&seed=9" % n) for n in sizes))
            r = Reader(s)
            for n in sizes:
                status, _, body = r.response()
                self.assertEqual(status, 200)
                self.assertEqual(len(body), n)

    def test_pipelined_request_after_a_body(self):
        with self.srv.connect() as s:
            payload = b'{"x": 1}'
            s.sendall(request("POST", "/_test/echo", {"Content-Type": "application/json"}, payload)
                      + request("GET", "/health"))
            r = Reader(s)
            status, _, body = r.response()
            self.assertEqual((status, json.loads(body)), (200, {"bytes": len(payload)}))
            self.assertEqual(r.response()[0], 200)

    def test_head_is_get_without_body(self):
        with self.srv.connect() as s:
            r = Reader(s)
            s.sendall(request("HEAD", "/_test/source?bytes=12345"))
            status, headers, _ = r.response(head=True)
            self.assertEqual(status, 200)
            self.assertEqual(headers["content-length"], "12345")
            # No body followed: the next response parses cleanly.
            s.sendall(request("GET", "/health"))
            status, _, body = r.response()
            self.assertEqual((status, json.loads(body)), (200, {"status": "ok"}))

    def test_unknown_size_source_is_chunked(self):
        status, headers, body = exchange(self.srv, "GET", "/_test/source?bytes=300000&chunked=1")
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("transfer-encoding"), "chunked")
        self.assertNotIn("content-length", headers)
        self.assertEqual(len(body), 300000)

    def test_oversized_headers_answer_431(self):
        status, _, body = exchange(self.srv, "GET", "/health", {"X-Big": "a" * (40 << 10)})
        self.assertEqual(status, 431)
        self.assertEqual(json.loads(body)["error"], "too_large")

    def test_oversized_json_body_answers_413_before_reading(self):
        with self.srv.connect() as s:
            s.sendall(request("POST", "/_test/echo",
                              {"Content-Length": str(2 << 20), "Expect": "100-continue"}))
            status, _, body = Reader(s).response()
            self.assertEqual(status, 413)  # not "100 Continue": the body is never wanted
            self.assertIn("exceeds the limit", json.loads(body)["message"])

    def test_oversized_chunked_json_body_answers_413(self):
        with self.srv.connect() as s:
            s.sendall(request("POST", "/_test/echo", {"Transfer-Encoding": "chunked"}))
            chunk = b"x" * 65536
            status = None
            try:
                for _ in range(40):  # 2.5 MiB > 1 MiB limit
                    s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                s.sendall(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            status, _, _ = Reader(s).response()
            self.assertEqual(status, 413)

    def test_body_within_limit_is_buffered(self):
        payload = b"[" + b"1," * 200000 + b"1]"
        status, _, body = exchange(self.srv, "POST", "/_test/echo", {}, payload)
        self.assertEqual((status, json.loads(body)), (200, {"bytes": len(payload)}))

    def test_body_on_a_bodyless_route_is_refused(self):
        status, _, _ = exchange(self.srv, "GET", "/health", {}, b"surprise")
        self.assertEqual(status, 413)

    def test_unknown_method_answers_501_with_allow(self):
        status, headers, body = exchange(self.srv, "FROBNICATE", "/health")
        self.assertEqual(status, 501)
        self.assertEqual(headers["allow"], "GET, HEAD, OPTIONS")
        self.assertEqual(json.loads(body)["error"], "unsupported")

    def test_invented_methods_do_not_grow_metric_series(self):
        for i in range(5):
            exchange(self.srv, "FROB%d" % i, "/health")
        # A request is counted once its response is written, which can be a
        # moment after the client has read it: poll briefly for the fifth.
        pattern = re.compile(r'method="other",status="501"\} ([5-9]|[1-9][0-9]+)\n')
        deadline = time.time() + 5
        while True:
            text = exchange(self.srv, "GET", "/metrics")[2].decode()
            if pattern.search(text) or time.time() > deadline:
                break
            time.sleep(0.02)
        self.assertNotIn('method="FROB', text)
        self.assertRegex(text, pattern)

    def test_known_but_unsupported_method_answers_405_with_allow(self):
        status, headers, _ = exchange(self.srv, "PROPFIND", "/health")
        self.assertEqual(status, 405)
        self.assertEqual(headers["allow"], "GET, HEAD, OPTIONS")
        status, headers, _ = exchange(self.srv, "OPTIONS", "/health")
        self.assertEqual(status, 204)
        self.assertEqual(headers["allow"], "GET, HEAD, OPTIONS")

    def test_missing_route_answers_json_404(self):
        status, headers, body = exchange(self.srv, "GET", "/no/such/thing")
        self.assertEqual(status, 404)
        self.assertEqual(headers["content-type"], "application/json")
        self.assertEqual(json.loads(body)["error"], "not_found")

    def test_dot_segments_are_refused(self):
        for path in ("/a/../health", "/%2e%2e/health", "/a%2fb"):
            status, _, body = exchange(self.srv, "GET", path)
            self.assertEqual(status, 400, path)
            self.assertEqual(json.loads(body)["error"], "invalid_argument")

    def test_malformed_request_answers_400(self):
        with self.srv.connect() as s:
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
            status, _, _ = Reader(s).response()
            self.assertEqual(status, 400)

    def test_request_id_is_echoed_or_generated(self):
        _, headers, _ = exchange(self.srv, "GET", "/health", {"X-Request-Id": "abc-123"})
        self.assertEqual(headers["x-request-id"], "abc-123")
        _, headers, _ = exchange(self.srv, "GET", "/health", {"X-Request-Id": "bad id\x01"})
        self.assertNotEqual(headers["x-request-id"], "bad id\x01")
        self.assertTrue(headers["x-request-id"])

    def test_expect_100_continue_for_an_accepted_upload(self):
        with self.srv.connect() as s:
            data = os.urandom(100000)
            s.sendall(request("PUT", "/_test/sink", {"Content-Length": str(len(data)),
                                                     "Expect": "100-continue"}))
            r = Reader(s)
            status, _, _ = r.response()
            self.assertEqual(status, 100)
            s.sendall(data)
            status, _, body = r.response()
            self.assertEqual(status, 200)
            self.assertEqual(json.loads(body)["bytes"], len(data))

    def test_sink_detects_corruption(self):
        # The verify sink must notice a wrong byte: otherwise the big-stream
        # test below could not fail.
        status, _, good = exchange(self.srv, "GET", "/_test/source?bytes=5000&seed=4")
        self.assertEqual(status, 200)
        bad = bytearray(good)
        bad[4321] ^= 1
        _, _, body = exchange(self.srv, "PUT", "/_test/sink?verify=4", {}, bytes(bad))
        self.assertEqual(json.loads(body), {"bytes": 5000, "mismatch_at": 4321})
        _, _, body = exchange(self.srv, "PUT", "/_test/sink?verify=4", {}, good)
        self.assertEqual(json.loads(body), {"bytes": 5000, "mismatch_at": -1})

    def test_chunked_upload_streams(self):
        with self.srv.connect() as s:
            s.sendall(request("PUT", "/_test/sink", {"Transfer-Encoding": "chunked"}))
            total = 0
            for n in (1, 1000, 300000, 7):
                s.sendall(b"%x\r\n%s\r\n" % (n, b"z" * n))
                total += n
            s.sendall(b"0\r\n\r\n")
            status, _, body = Reader(s).response()
            self.assertEqual((status, json.loads(body)["bytes"]), (200, total))


class BigStreamTest(unittest.TestCase):
    """4 GiB through the server in both directions with bounded memory."""

    SIZE = int(os.environ.get("NUBO_TEST_BIG_BYTES", str(4 << 30)))
    RSS_LIMIT_KB = 64 << 10

    def test_4gib_download_piped_into_4gib_upload(self):
        srv = Server()
        try:
            seed = 77
            down = srv.connect(timeout=60)
            up = srv.connect(timeout=60)
            down.sendall(request("GET", "/_test/source?bytes=%d&seed=%d" % (self.SIZE, seed)))
            # Read the download's headers, then relay its body verbatim.
            r = Reader(down)
            while b"\r\n\r\n" not in r.buf:
                r._fill()
            head, rest = r.buf.split(b"\r\n\r\n", 1)
            self.assertIn(b"Content-Length: %d" % self.SIZE, head)
            up.sendall(request("PUT", "/_test/sink?verify=%d" % seed,
                               {"Content-Length": str(self.SIZE)}))
            sent = 0
            if rest:
                up.sendall(rest)
                sent += len(rest)
            buf = bytearray(1 << 20)
            view = memoryview(buf)
            while sent < self.SIZE:
                n = down.recv_into(buf)
                self.assertGreater(n, 0, "download ended early at %d" % sent)
                up.sendall(view[:n])
                sent += n
            status, _, body = Reader(up).response()
            self.assertEqual(status, 200)
            self.assertEqual(json.loads(body), {"bytes": self.SIZE, "mismatch_at": -1})
            rss = srv.peak_rss_kb()
            print("peak RSS after %d bytes each way: %d KiB" % (self.SIZE, rss))
            if not os.environ.get("NUBO_TEST_SANITIZED"):  # ASan's shadow memory is not ours
                self.assertLess(rss, self.RSS_LIMIT_KB)
            down.close()
            up.close()
            self.assertEqual(srv.terminate(), 0)
        finally:
            srv.close()

    def test_chunked_relay(self):
        srv = Server()
        try:
            size = 64 << 20
            status, headers, body = exchange(srv, "GET", "/_test/source?bytes=%d&seed=5&chunked=1" % size)
            self.assertEqual(headers.get("transfer-encoding"), "chunked")
            with srv.connect() as s:
                s.sendall(request("PUT", "/_test/sink?verify=5", {"Transfer-Encoding": "chunked"}))
                for off in range(0, len(body), 1 << 20):
                    piece = body[off:off + (1 << 20)]
                    s.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
                s.sendall(b"0\r\n\r\n")
                status, _, reply = Reader(s).response()
            self.assertEqual(json.loads(reply), {"bytes": size, "mismatch_at": -1})
        finally:
            srv.close()


if __name__ == "__main__":
    unittest.main()
