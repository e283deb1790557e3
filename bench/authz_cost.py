"""Scenario authz-cost: what authorization costs on the hot paths, counted
in CPU instructions (valgrind --tool=callgrind), BEFORE/AFTER from one run.

Wall-clock A/B tables (propfind-ab, listing-ab) on this 2-core VM move by
±10-20 % between runs of the same binary, more than the 5 % this scenario
must resolve; instruction counts are exact and repeatable for the same
binary, data and requests. BEFORE seeds a folder of 1,000 files (the s1
names and sizes); each build then serves its own copy of that data
directory under callgrind with one I/O thread and two blocking threads, is
warmed up, and for each case the counters are zeroed, the requests sent on
one keep-alive connection and the counters dumped: instructions per request
of the whole server process (transport, authentication, authorization,
storage, serialization). Gate: each case's response bodies are
byte-identical between the two builds.
"""
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time

from lib import httpc
from lib.ab import seed_folder
from lib.api import ADMIN, Api, FAST_ARGON2, ServerError
from lib.data import listing_specs
from lib.proc import wait_port
from lib.servers import NUBO, PROPFIND_BODY, start_nubo

REQUESTS = 20


def start(binary, data, out):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}
    env.update(FAST_ARGON2)
    env.update({"NUBO_ACCESS_LOG": "false", "NUBO_THREADS": "1", "NUBO_BLOCKING_THREADS": "2"})
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, binary, "serve",
                             "--listen", "127.0.0.1:%d" % port, "--data", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wait_port(port, timeout=120)
    return proc, port


def totals(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise ServerError("no totals in " + path)


def measure(binary, data, cases, tmp, tag):
    out = os.path.join(tmp, "cg-%s.out" % tag)
    proc, port = start(binary, data, out)
    auth = httpc.basic(*ADMIN)
    conn = httpc.Conn(port, timeout=600)

    def send(method, path, body, headers):
        h = {"Authorization": auth}
        h.update(headers)
        r = conn.request(method, path, h, body)
        return r.status, r.body

    result = {}
    try:
        for label, method, path, body, headers, expect in cases:
            for _ in range(3):  # warm: caches, credential, statements
                send(method, path, body, headers)
            subprocess.run(["callgrind_control", "-z", str(proc.pid)], capture_output=True, check=True)
            bodies = set()
            for _ in range(REQUESTS):
                status, data = send(method, path, body, headers)
                if status != expect:
                    raise ServerError("%s %s: %d %r" % (method, path, status, data[:200]))
                bodies.add(data)
            before = set(glob.glob(out + ".*"))
            subprocess.run(["callgrind_control", "-d", str(proc.pid)], capture_output=True, check=True)
            for _ in range(100):
                fresh = set(glob.glob(out + ".*")) - before
                if fresh:
                    break
                time.sleep(0.1)
            time.sleep(0.5)  # the dump is written whole before it is renamed? wait a moment anyway
            dump = max(fresh, key=os.path.getmtime)
            result[label] = (totals(dump) / REQUESTS, bodies)
    finally:
        conn.close()
        proc.terminate()
        proc.wait(timeout=120)
    return result


def run(args):
    if not args.before or not os.path.exists(args.before):
        raise SystemExit("authz-cost needs --before BINARY (the build to compare against)")
    if not shutil.which("valgrind") or not shutil.which("callgrind_control"):
        raise SystemExit("authz-cost needs valgrind (apt-get install valgrind)")
    tmp = tempfile.mkdtemp(prefix="nubo-bench-authz-", dir=args.tmpdir)
    try:
        seeder = start_nubo(tmp, env=FAST_ARGON2, binary=args.before)
        api = Api(seeder.port, *ADMIN)
        api.setup()
        root = api.root_id()
        folder = seed_folder(api, root, "p1000", listing_specs(1000, 2000))
        api.close()
        seeder.stop()
        src = os.path.join(tmp, "nubo-data")
        for tag in ("before", "after"):
            shutil.copytree(src, os.path.join(tmp, "data-" + tag))
        xml = {"Content-Type": "application/xml", "Depth": "1"}
        cases = [
            ("PROPFIND Depth:1, 1,000 files (s1 props)", "PROPFIND", "/dav/p1000/", PROPFIND_BODY, xml, 207),
            ("PROPFIND Depth:0 on the root (sync poll)", "PROPFIND", "/dav/", PROPFIND_BODY,
             dict(xml, Depth="0"), 207),
            ("REST listing page, 200 of 1,000", "GET", "/api/v1/nodes/%s/children?limit=200" % folder, None, {},
             200),
            ("GET /api/v1/me", "GET", "/api/v1/me", None, {}, 200),
        ]
        b = measure(args.before, os.path.join(tmp, "data-before"), cases, tmp, "before")
        a = measure(NUBO, os.path.join(tmp, "data-after"), cases, tmp, "after")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nscenario authz-cost: CPU instructions per request of the whole server (callgrind), %d requests per "
          "case, BEFORE (%s) and AFTER (%s) on copies of one data directory" % (REQUESTS, args.before, NUBO))
    print("| case | BEFORE instructions | AFTER instructions | AFTER/BEFORE |")
    print("|---|---|---|---|")
    for label, *_ in cases:
        if b[label][1] != a[label][1]:
            raise SystemExit("equivalence gate failed: %s answers differ" % label)
        print("| %s | %.0f | %.0f | %.3f |" % (label, b[label][0], a[label][0], a[label][0] / b[label][0]))
    print("gate: each case's responses byte-identical between BEFORE and AFTER (GET /me: same account)")
