"""s4-get-ab: BEFORE/AFTER of a download-path change from one run (lib.ab):
one large file (S4's 1 GiB of seeded random bytes) stored once, then GETs of
it alternating between the two builds, each on its own keep-alive connection.
Both builds serve the same data directory, so they send the same chunk files
from the same page cache; what differs is the code between them and the
socket. Prints the median and the spread of each build's MB/s, their ratio,
and the server CPU per GET."""
import hashlib
import os
import statistics

from lib import httpc
from lib.ab import AbPair
from lib.api import ServerError
from lib.data import BlockCheck, sampled_blocks, write_seeded
from lib.proc import proc_cpu_s
from lib.suite import DAVH

PATH = "/dav/s4-get-ab.bin"


def run(args):
    size = args.s4_bytes or (1 << 30)
    reps = args.rounds if args.rounds_given else 15
    src_dir = args.tmpdir or "/tmp"
    src = os.path.join(src_dir, "s4-get-ab-input.bin")
    write_seeded(src, size, 400)  # S4's first round's bytes
    want = hashlib.sha256()
    with open(src, "rb") as f:
        for block in iter(lambda: f.read(16 << 20), b""):
            want.update(block)
    want = want.hexdigest()
    samples = sampled_blocks(src, size)  # every timed GET must match them (as S4's gate)

    def seed(api, root):
        c = httpc.Conn(api.port, timeout=600)
        try:
            with open(src, "rb") as f:
                r = c.request("PUT", PATH, {"Authorization": api.auth, "Content-Type": "application/octet-stream"},
                              body_file=(f, size))
            if r.status not in (201, 204):
                raise ServerError("PUT %s: %d" % (PATH, r.status))
        finally:
            c.close()

    try:
        pair = AbPair(args, seed)
    finally:
        os.unlink(src)
    mbps = ([], [])  # [AFTER, BEFORE]
    cpu = ([], [])
    try:
        conns = [httpc.Conn(srv.port, timeout=600) for srv in pair.servers]
        # Gate, untimed: each build's whole answer hashes as the input.
        for which in (0, 1):
            h = hashlib.sha256()
            r = conns[which].request("GET", PATH, dict(DAVH, Authorization=pair.apis[which].auth),
                                     keep_body=False, sink=h.update)
            if r.status != 200 or r.nbytes != size or h.hexdigest() != want:
                raise SystemExit("equivalence gate failed: %s answered %d with %d bytes, SHA-256 %s (want %s)" % (
                    ("AFTER", "BEFORE")[which], r.status, r.nbytes, h.hexdigest()[:16], want[:16]))
        for rep in range(reps):
            for which in ((0, 1) if rep % 2 else (1, 0)):
                check = BlockCheck(samples)
                pids = pair.servers[which].pids()
                c0 = proc_cpu_s(pids)
                r = conns[which].request("GET", PATH, dict(DAVH, Authorization=pair.apis[which].auth),
                                         keep_body=False, sink=check)
                bad = check.bad
                cpu[which].append(proc_cpu_s(pids) - c0)
                if r.status != 200 or r.nbytes != size or bad:
                    raise SystemExit("equivalence gate failed: %s answered %d with %d bytes, %d sampled blocks "
                                     "differ" % (("AFTER", "BEFORE")[which], r.status, r.nbytes, len(set(bad))))
                mbps[which].append(size / 1e6 / r.total)
        for c in conns:
            c.close()
    finally:
        pair.close()
    a, b = statistics.median(mbps[0]), statistics.median(mbps[1])
    print("\nscenario s4-get-ab: %d MiB, %d GETs per build alternating, BEFORE (%s) and AFTER (%s) on one data "
          "dir; load before: %s" % (size >> 20, reps, pair.before_bin, pair.after_bin, args.load))
    print("| build | median MB/s | min MB/s | max MB/s | median server CPU s per GET |")
    print("|---|---|---|---|---|")
    for label, which in (("BEFORE", 1), ("AFTER", 0)):
        print("| %s | %.0f | %.0f | %.0f | %.3f |" % (label, statistics.median(mbps[which]), min(mbps[which]),
                                                       max(mbps[which]), statistics.median(cpu[which])))
    print("| AFTER/BEFORE | %.2f | | | %.2f |" % (a / b, statistics.median(cpu[0]) / statistics.median(cpu[1])))
    print("gate: each build's whole answer hashes (SHA-256) as the input; every timed GET is 200 with the full "
          "length and 16 sampled 64 KiB blocks equal to the input")
