"""A small HTTP/1.1 keep-alive client on raw sockets for the benchmark drivers.

http.client spends most of a small request's time parsing headers with the
email package; this client parses just enough (status, headers, Content-Length
or chunked bodies, Connection: close) and reports the time to the first byte
and to the last one. It reconnects when the server closed an idle or spent
keep-alive connection (Apache closes after 100 requests, php -S after each).
"""
import base64
import socket
import time

CRLF2 = b"\r\n\r\n"


def basic(user, password):
    return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()


class HttpError(Exception):
    pass


class Resp:
    __slots__ = ("status", "headers", "body", "nbytes", "ttfb", "total")

    def header(self, name, default=None):
        return self.headers.get(name.lower(), default)


class Conn:
    def __init__(self, port, host="127.0.0.1", timeout=300):
        self.addr = (host, port)
        self.host = "%s:%d" % (host, port)
        self.timeout = timeout
        self.sock = None
        self.buf = bytearray()
        self.reconnects = 0

    def connect(self):
        self.close()
        self.sock = socket.create_connection(self.addr, timeout=self.timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()

    def close(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
            self.sock = None

    # -- reading -----------------------------------------------------------
    def _fill(self):
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ConnectionResetError("server closed the connection")
        self.buf += chunk

    def _read_until(self, sep):
        start = 0
        while True:
            i = self.buf.find(sep, start)
            if i >= 0:
                out = bytes(self.buf[:i])
                del self.buf[:i + len(sep)]
                return out
            start = max(0, len(self.buf) - len(sep) + 1)
            self._fill()

    def _read_exact(self, n, sink, keep):
        """Reads n body bytes: into the returned bytes when keep, and to sink(memoryview) if given."""
        parts = [] if keep else None
        if self.buf:
            take = bytes(self.buf[:n])
            del self.buf[:len(take)]
            n -= len(take)
            if keep:
                parts.append(take)
            if sink:
                sink(memoryview(take))
        if n and not keep:
            mv = memoryview(bytearray(min(n, 1 << 20)))
            while n:
                got = self.sock.recv_into(mv, min(n, len(mv)))
                if not got:
                    raise ConnectionResetError("server closed the connection mid-body")
                if sink:
                    sink(mv[:got])
                n -= got
        while n:
            chunk = self.sock.recv(min(n, 1 << 20))
            if not chunk:
                raise ConnectionResetError("server closed the connection mid-body")
            n -= len(chunk)
            parts.append(chunk)
            if sink:
                sink(memoryview(chunk))
        return b"".join(parts) if keep else None

    # -- one exchange ------------------------------------------------------
    def request(self, method, path, headers=None, body=None, body_file=None, keep_body=True, sink=None,
                body_pieces=None):
        """body: bytes-like; body_file: (open file, size[, offset]) sent with sendfile;
        body_pieces: (iterable of bytes-like, total size), each piece sent as it comes (a
        generated body, or one read in the client's own pieces). Returns Resp (body None
        unless keep_body). Retries once on a connection the server had closed before
        answering anything — not with body_pieces, which cannot be replayed."""
        for attempt in (0, 1):
            if self.sock is None:
                self.connect()
            try:
                return self._exchange(method, path, headers, body, body_file, keep_body, sink, body_pieces)
            except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError) as e:
                self.close()
                if attempt or getattr(e, "partial", False) or body_pieces is not None:
                    raise
                self.reconnects += 1
        raise AssertionError("unreachable")

    def _exchange(self, method, path, headers, body, body_file, keep_body, sink, body_pieces):
        lines = ["%s %s HTTP/1.1" % (method, path), "Host: " + self.host]
        for k, v in (headers or {}).items():
            lines.append("%s: %s" % (k, v))
        if body is not None:
            lines.append("Content-Length: %d" % len(body))
        elif body_file is not None:
            lines.append("Content-Length: %d" % body_file[1])
        elif body_pieces is not None:
            lines.append("Content-Length: %d" % body_pieces[1])
        elif method in ("PUT", "POST", "PROPFIND", "PROPPATCH", "LOCK"):
            lines.append("Content-Length: 0")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")
        t0 = time.perf_counter()
        if body is not None and len(body) <= 65536:
            self.sock.sendall(head + bytes(body))
        else:
            self.sock.sendall(head)
            if body is not None:
                self.sock.sendall(body)
            elif body_file is not None:
                f, size, offset = (tuple(body_file) + (0,))[:3]
                sent = self.sock.sendfile(f, offset, size)
                if sent != size:
                    raise HttpError("sendfile sent %d of %d bytes" % (sent, size))
            elif body_pieces is not None:
                sent = 0
                for piece in body_pieces[0]:
                    self.sock.sendall(piece)
                    sent += len(piece)
                if sent != body_pieces[1]:
                    raise HttpError("the body's pieces held %d of %d bytes" % (sent, body_pieces[1]))
        # Status line and headers.
        if not self.buf:
            self._fill()
        ttfb = time.perf_counter() - t0
        try:
            raw = self._read_until(CRLF2)
        except ConnectionResetError as e:
            e.partial = True
            raise
        while raw.startswith(b"HTTP/1.1 100") or raw.startswith(b"HTTP/1.0 100"):
            raw = self._read_until(CRLF2)
        lines = raw.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        r = Resp()
        r.status = int(parts[1])
        r.headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            r.headers[k.strip().lower()] = v.strip()
        r.ttfb = ttfb
        close = r.headers.get("connection", "").lower() == "close" or parts[0] == "HTTP/1.0"
        nbytes = 0
        out = None
        try:
            if method == "HEAD" or r.status in (204, 304) or 100 <= r.status < 200:
                out = b""
            elif "chunked" in r.headers.get("transfer-encoding", "").lower():
                pieces = []
                while True:
                    size_line = self._read_until(b"\r\n")
                    size = int(size_line.split(b";")[0], 16)
                    if size == 0:
                        while self._read_until(b"\r\n"):
                            pass  # trailers
                        break
                    piece = self._read_exact(size, sink, True)
                    nbytes += size
                    if keep_body:
                        pieces.append(piece)
                    self._read_until(b"\r\n")
                out = b"".join(pieces) if keep_body else None
            elif "content-length" in r.headers:
                n = int(r.headers["content-length"])
                out = self._read_exact(n, sink, keep_body)
                nbytes = n
            else:  # body until the server closes
                pieces = [bytes(self.buf)]
                self.buf = bytearray()
                while True:
                    chunk = self.sock.recv(1 << 20)
                    if not chunk:
                        break
                    pieces.append(chunk)
                out = b"".join(pieces)
                nbytes = len(out)
                close = True
        except ConnectionResetError as e:
            e.partial = True
            raise
        r.total = time.perf_counter() - t0
        if out is not None and not nbytes:
            nbytes = len(out)
        r.nbytes = nbytes
        r.body = out if keep_body else None
        if close:
            self.close()
        return r


def wait_ready(port, method, path, headers=None, timeout=30, ok=lambda s: 200 <= s < 300):
    """Polls until a request succeeds; returns seconds waited."""
    t0 = time.perf_counter()
    deadline = t0 + timeout
    last = None
    while time.perf_counter() < deadline:
        c = Conn(port, timeout=5)
        try:
            r = c.request(method, path, headers)
            last = r.status
            if ok(r.status):
                return time.perf_counter() - t0
        except OSError as e:
            last = e
        finally:
            c.close()
        time.sleep(0.005)
    raise HttpError("no successful %s %s on port %d within %ds (last: %r)" % (method, path, port, timeout, last))


def fetch(port, path, headers=None):
    """One GET on a new connection: (status, body)."""
    c = Conn(port, timeout=30)
    try:
        r = c.request("GET", path, headers)
        return r.status, r.body
    finally:
        c.close()
