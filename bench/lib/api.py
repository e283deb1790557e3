"""nubo's REST API (/api/v1) for the scenarios: one keep-alive connection per
Api object (lib.httpc), Basic auth, JSON in and out, streamed file bodies."""
import json
import os

from lib import httpc

API = "/api/v1"
ADMIN = ("root", "bench password!")
MiB = 1 << 20
FAST_ARGON2 = {"NUBO_ARGON2_OPS": "1", "NUBO_ARGON2_MEM": "8MiB"}  # setup and the first Basic auth stay cheap
# An A/B pair times a request path: no background jobs (text extraction of
# the seeded files, one helper process per file for minutes) compete with it
# on both servers at once.
AB_ENV = dict(FAST_ARGON2, NUBO_JOBS_WORKERS="0")


class ServerError(Exception):
    """The server answered something the contract does not allow."""


class Api:
    """One keep-alive HTTP/1.1 connection to nubo's REST API with Basic auth."""

    def __init__(self, port, user, password):
        self.port = port
        self.user, self.password = user, password
        self.auth = httpc.basic(user, password)
        self.conn = httpc.Conn(port, timeout=600)

    def setup(self):
        """Creates this Api's account as the first administrator (POST /setup on a new server)."""
        self.call("POST", "/setup", {"username": self.user, "password": self.password}, expect=201, auth=False)

    def root_id(self):
        """The id of the root folder of the account's first drive."""
        return self.call("GET", "/drives")["drives"][0]["root_id"]

    def close(self):
        self.conn.close()

    def raw(self, method, path, body=None, headers=None, auth=True):
        """(status, body bytes); `path` is below /api/v1. A keep-alive connection the server
        closed as the request went out is retried once on a new one (lib.httpc)."""
        h = {"Authorization": self.auth} if auth else {}
        h.update(headers or {})
        r = self.conn.request(method, API + path, h, body)
        return r.status, r.body

    def call(self, method, path, body=None, headers=None, expect=200, auth=True):
        """JSON in, JSON out; a status other than `expect` is a ServerError."""
        h = dict(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        status, data = self.raw(method, path, body, h, auth=auth)
        if status != expect:
            raise ServerError("%s %s answered %d (expected %d): %r" % (method, API + path, status, expect, data[:500]))
        return json.loads(data) if data else None

    def put_file(self, path, src, size):
        """Streamed PUT of the file `src` (Content-Length, sendfile): (status, body)."""
        with open(src, "rb") as f:
            r = self.conn.request("PUT", API + path, {"Authorization": self.auth,
                                                      "Content-Type": "application/octet-stream"},
                                  body_file=(f, size))
        return r.status, r.body

    def get_content(self, node_id, digest=None):
        """Streamed GET of a file's bytes, fed to `digest` (a hashlib object) on the fly when
        given: (status, bytes received)."""
        sink = digest.update if digest is not None else None
        r = self.conn.request("GET", API + "/nodes/%s/content" % node_id, {"Authorization": self.auth},
                              keep_body=False, sink=sink)
        if r.status != 200:
            raise ServerError("GET content answered %d" % r.status)
        return r.status, r.nbytes


def multipart_body(parts):
    """parts: [(filename, bytes)] → (content type, body)."""
    boundary = "nubo-bench-" + os.urandom(12).hex()
    b = boundary.encode()
    out = []
    for filename, data in parts:
        out.append(b"--" + b + b'\r\nContent-Disposition: form-data; name="file"; filename="' +
                   filename.encode() + b'"\r\nContent-Type: application/octet-stream\r\n\r\n' + data + b"\r\n")
    out.append(b"--" + b + b"--\r\n")
    return "multipart/form-data; boundary=" + boundary, b"".join(out)
