"""The peer suite's machinery: nubo against WebDAV peers from Debian's
packages, same data, same load, alternating rounds, medians, ratios nubo/peer
from the same run, a JSON result file and deltas against the newest committed
baseline. The scenarios themselves are files beside bench.py:

  s1_propfind      PROPFIND Depth:1 on folders of 1,000 and 10,000 files (sequential; p50/p95/p99, first byte)
  s2_sync_poll     sync poll: PROPFIND Depth:0 on the unchanged root, 64 connections (wrk)
  s3_small_files   small-file ingest: 4 KiB PUTs, 16 connections
  s4_large_file    large file: one PUT and one GET of 1 GiB, single stream; b3sum and cat as references
  s5_rest_listing  REST listing of a 20,000-entry folder, page 1 vs page 100 (nubo only)
  s6_auth_herd     Basic-auth herd (16 cold requests, Argon2 runs) and warm request overhead
  s7_mixed         mixed workload (cdperf's size mix): upload, list, download, rename, delete at 16 users
  s8_idle_rss      idle RSS after start and after s7; cold start time to the first successful response

Each has run(ctx); bench/README.md has the details.
"""
import contextlib
import datetime
import glob
import importlib
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import health as health_scenario
from lib import httpc
from lib.api import Api, ServerError, multipart_body
from lib.data import FreshFs, listing_specs
from lib.proc import busy_processes, cpu_busy_cores, loadavg, pool_map, proc_status_kib
from lib.servers import AUTH, NUBO, PASSWORD, PEERS, ROOT, USER, Nubo, chown_www, have
from lib.stats import med


BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(BENCH, "results")
SUITE = ["s1", "s2", "s3", "s4", "s5", "s7", "s6", "s8"]
# Scenario -> its file beside bench.py (run(ctx)).
MODULES = {"s1": "s1_propfind", "s2": "s2_sync_poll", "s3": "s3_small_files", "s4": "s4_large_file",
           "s5": "s5_rest_listing", "s6": "s6_auth_herd", "s7": "s7_mixed", "s8": "s8_idle_rss"}
MiB = 1 << 20
XML_CT = 'application/xml; charset="utf-8"'
DAVH = {"Authorization": AUTH}


def pf_headers(depth):
    return {"Authorization": AUTH, "Depth": str(depth), "Content-Type": XML_CT}


# ----------------------------------------------------------------------------
# Parameters: full and --quick.

def params(args):
    q = args.quick
    p = {
        "rounds": args.rounds if args.rounds_given else (1 if q else 3),
        "s1_sizes": [1000, 10000],
        "s1_budget": {1000: 0.8 if q else 2.5, 10000: 1.5 if q else 5.0},
        "s2_duration": 3 if q else 5,
        "s3_files": 1000 if q else 10000,
        "s4_bytes": (256 << 20) if q else (1 << 30),
        "s5_entries": 2000 if q else 20000,
        "s5_reps": 60 if q else 300,
        "s6_herd": 16,
        "s6_reps": 100 if q else 300,
        "s7_duration": 6 if q else 15,
        "s7_scale": 10 if q else 1,   # sizes divided by this
    }
    if args.s3_files:
        p["s3_files"] = args.s3_files
    if args.s4_bytes:
        p["s4_bytes"] = args.s4_bytes
    return p


# ----------------------------------------------------------------------------
# Output: tables to stdout (and the .md), numbers to the JSON.

LOWER_BETTER = re.compile(r"(_ms|_us|_mib|_s|errors|argon2_runs)$")
HIGHER_BETTER = re.compile(r"(rps|mbps|files_per_s|ops_per_s)$")


def better(metric):
    if HIGHER_BETTER.search(metric):
        return "higher"
    if LOWER_BETTER.search(metric):
        return "lower"
    return None


class Ctx:
    def __init__(self, args):
        self.args = args
        self.p = params(args)
        self.lines = []
        self.results = {"date": datetime.date.today().isoformat(),
                        "started": datetime.datetime.now().isoformat(timespec="seconds"),
                        "mode": "quick" if args.quick else "full", "scenarios": {}}
        self.servers = []
        self.failed = {}   # server name -> why it could not start
        self.nubo = None
        self.nubo_root = None
        self.after_s7 = {}
        self.restarts = {}  # server -> [(cold start s, idle rss KiB)]

    def say(self, text=""):
        print(text, flush=True)
        self.lines.append(text)

    def alive(self):
        return [s for s in self.servers if s.name not in self.failed]

    def order(self, rnd):
        live = self.alive()
        k = rnd % len(live) if live else 0
        return live[k:] + live[:k]

    def rotations(self, bad):
        """(round, server) for every round, the servers in a new order each round (order()),
        skipping those in `bad` (a scenario's failures so far) as it goes. Before each, the
        background jobs nubo queued for the last server's files (thumbnails, text) are left to
        finish: they run on the same cores and would slow whichever server is measured next."""
        for rnd in range(self.p["rounds"]):
            for s in self.order(rnd):
                if s.name not in bad:
                    self.settle_jobs()
                    yield rnd, s

    def settle_jobs(self, timeout=300):
        if self.args.no_wait:
            return
        ports = [s.port for s in self.alive() if s.name.startswith("nubo")]
        deadline = time.time() + timeout
        while ports and time.time() < deadline:
            try:
                busy = sum((nubo_metric(p, "nubo_jobs_due") or 0) + (nubo_metric(p, "nubo_jobs_running") or 0)
                           for p in ports)
            except OSError:  # a server between a stop and its restart (S8)
                return
            if busy == 0:
                return
            time.sleep(0.5)


def fmt(v, f):
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    return f % v


def table(ctx, sid, title, cols, rows, ratios, notes=()):
    """cols: [(key, header, fmt)]; rows: dicts with server, case (optional), metrics or failed;
    ratios: [(key, label)]: columns 'nubo/peer' of that metric, nubo's row of the same case."""
    ctx.say("")
    ctx.say("### %s — %s" % (sid.upper(), title))
    ctx.say("")
    has_case = any(r.get("case") for r in rows)
    head = (["case"] if has_case else []) + ["server"] + [c[1] for c in cols] + \
        ["nubo/peer %s" % lab for _, lab in ratios] + ["status"]
    ctx.say("| " + " | ".join(head) + " |")
    ctx.say("|" + "---|" * len(head))
    nubo_of = {r.get("case"): r for r in rows if r["server"] == "nubo" and not r.get("failed")}
    for r in rows:
        cells = ([r.get("case", "")] if has_case else []) + [r["server"]]
        for key, _, f in cols:
            cells.append(fmt(r.get(key), f))
        n = nubo_of.get(r.get("case"))
        for key, _ in ratios:
            v = None
            if r["server"] != "nubo" and n and not r.get("failed") and r.get(key) and n.get(key) is not None:
                v = n[key] / r[key]
                r.setdefault("ratio", {})[key] = round(v, 4)
            cells.append(fmt(v, "%.2f"))
        cells.append("FAILED: " + r["failed"] if r.get("failed") else "reference" if r.get("reference") else "ok")
        ctx.say("| " + " | ".join(cells) + " |")
    for n in notes:
        ctx.say(n)
    sc = ctx.results["scenarios"].setdefault(sid, {"title": title, "rows": []})
    sc["rows"] += rows
    sc.setdefault("notes", []).extend(notes)


def merge_rounds(per_round):
    """[{metric: value}] -> {metric: median}, plus the rounds themselves."""
    out = {}
    keys = {k for d in per_round for k, v in d.items() if isinstance(v, (int, float))}
    for k in keys:
        out[k] = med([d.get(k) for d in per_round])
    return out


def server_rows(ctx, per, bad, extra=None, **fixed):
    """One table row per server: the medians of its rounds, or why it failed.
    `extra(row, rounds)` adds the scenario's own fields (and may set
    row["failed"]); `fixed` goes into every row (e.g. case=...)."""
    rows = []
    for s in ctx.servers:
        row = dict(server=s.name, **fixed)
        if s.name in ctx.failed or s.name in bad:
            row["failed"] = ctx.failed.get(s.name) or bad[s.name]
        else:
            row.update(merge_rounds(per[s.name]))
            if extra:
                extra(row, per[s.name])
        rows.append(row)
    return rows


def server_failed(ctx, s, e):
    tail = s.log_tail(600).strip().replace("\n", " / ")[-300:]
    dead = s.proc is not None and s.proc.poll() is not None
    msg = "%s: %s%s" % (type(e).__name__, str(e)[:200], (" (server exited %s; log: %s)" % (s.proc.returncode, tail))
                        if dead else "")
    return msg.replace("|", "/")


# ----------------------------------------------------------------------------
# Machine etiquette: wait for the other engineer's builds and tests to finish.

def wait_quiet(ctx, max_wait=900, poll=20):
    """Waits while a build or test runs (ninja, ctest, cc1plus) or anything else keeps more than
    ctx.args.max_busy cores busy, polling every 20 s for up to 15 minutes."""
    t0 = time.time()
    while True:
        busy = busy_processes()
        if not busy:
            cores = cpu_busy_cores()
            if cores > ctx.args.max_busy:
                busy = ["%.1f cores busy" % cores]
        if not busy:
            if time.time() - t0 > 1:
                ctx.say("machine quiet after %.0f s of waiting" % (time.time() - t0))
            return True
        if time.time() - t0 > max_wait:
            ctx.say("WARNING: still busy after %d s (%s); running anyway, numbers may be noisy" % (max_wait, busy[0]))
            return False
        print("waiting for a quiet machine: %s" % busy[0], file=sys.stderr, flush=True)
        time.sleep(poll)


def wait_jobs(ctx, what, max_wait=1800):
    """Waits until every nubo server's background jobs are done: none due or running and no job
    finished since the previous poll, three polls 2 s apart in a row (a worker releases a job
    between helper runs, so an empty queue for one poll is not the end). New files' text
    extraction runs one helper process per file, for minutes after a seeding, and would otherwise
    compete with the timing. Servers without the job gauges count as done."""
    t0 = time.time()
    for s in ctx.alive():
        if not isinstance(s, Nubo):
            continue
        quiet, last = 0, None
        while quiet < 3 and time.time() - t0 < max_wait:
            try:
                busy = sum(nubo_metric(s.port, m) or 0 for m in ("nubo_jobs_due", "nubo_jobs_running"))
                done = nubo_metric(s.port, "nubo_jobs_done_total")
            except (OSError, httpc.HttpError):
                break
            quiet = quiet + 1 if busy == 0 and done == last else 0
            last = done
            time.sleep(2)
        if quiet < 3:
            ctx.say("WARNING: %s still had background jobs after %d s; running anyway" % (s.name, max_wait))
    ctx.say("background jobs of %s done after %.0f s" % (what, time.time() - t0))


# ----------------------------------------------------------------------------
# Data: deterministic seeded sets, written straight into the peers' folders and
# uploaded to nubo through its API.

def s1_specs(n):
    return listing_specs(n, 1000 + n)


def seed_peer_s1(peer, sizes):
    """Writes S1's folders p<n> straight into a peer's served folder."""
    for n in sizes:
        d = os.path.join(peer.fs_root, "p%d" % n)
        os.makedirs(d, exist_ok=True)
        for name, data in s1_specs(n):
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    if peer.runs_as_www:
        chown_www(peer.fs_root)


def seed(ctx):
    sizes = ctx.p["s1_sizes"] if "s1" in ctx.todo else []
    t0 = time.perf_counter()
    small = b"0123456789abcdef"
    for s in ctx.alive():
        try:
            c = httpc.Conn(s.port)
            if isinstance(s, Nubo):
                api = Api(s.port, USER, PASSWORD)
                for n in sizes:
                    folder = api.call("POST", "/nodes/%s/folders" % s.root_id, {"name": "p%d" % n}, expect=201)["id"]
                    specs = s1_specs(n)
                    for i in range(0, n, 1000):
                        ctype, body = multipart_body(specs[i:i + 1000])
                        items = api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})["items"]
                        if any(it.get("status") != 201 for it in items):
                            raise ServerError("multipart upload: %r" % [it for it in items if it.get("status") != 201][:2])
                api.close()
            else:
                seed_peer_s1(s, sizes)
            r = c.request("PUT", "/dav/small.txt", DAVH, body=small)
            if r.status not in (201, 204):
                raise httpc.HttpError("PUT /dav/small.txt answered %d" % r.status)
            c.close()
        except Exception as e:
            ctx.failed[s.name] = "seeding: " + server_failed(ctx, s, e)
    ctx.say("seeded %s in %.1f s (nubo through POST /nodes/{id}/upload, 1000 files per request; peers on disk)"
            % (", ".join("p%d" % n for n in sizes) or "small.txt", time.perf_counter() - t0))


def parse_multistatus(body, base):
    """{name relative to base ('' for the collection itself): getcontentlength or None}."""
    root = ET.fromstring(body)
    out = {}
    for resp in root.iter("{DAV:}response"):
        href = resp.find("{DAV:}href").text or ""
        path = urllib.parse.unquote(urllib.parse.urlsplit(href).path)
        if not path.startswith(base):
            raise ValueError("href %r outside %r" % (href, base))
        name = path[len(base):].strip("/")
        length = None
        for ps in resp.iter("{DAV:}propstat"):
            st = ps.find("{DAV:}status")
            if st is not None and " 200 " in (st.text or "") + " ":
                cl = ps.find("{DAV:}prop/{DAV:}getcontentlength")
                if cl is not None and cl.text:
                    length = int(cl.text)
        out[name] = length
    return out


# ----------------------------------------------------------------------------
# Load from several processes (S3, S7, engines.py): each process's threads hold one keep-alive
# connection, working through a job list (S3) or until a deadline (S7).

# Bodies the forked load processes share (filled before run_pool forks them).
POOL = {}


def _proc_main(port, fn, jobs, nthreads, deadline_in, state):
    lat, errs, extra = [], [], {}
    lock = threading.Lock()
    it = iter(jobs) if jobs is not None else None
    t_start = time.monotonic()

    def worker(tid):
        # A list of ports: the threads spread over them (several nodes).
        c = httpc.Conn(port if isinstance(port, int) else port[tid % len(port)])
        while True:
            if jobs is None:
                if time.monotonic() - t_start > deadline_in:
                    break
                job = tid
            else:
                with lock:
                    job = next(it, None)
                if job is None:
                    break
            try:
                out = fn(c, job, state)
            except Exception as e:
                c.close()
                out = [("error", 0.0, "%s: %s" % (type(e).__name__, str(e)[:150]))]
                if jobs is None:
                    time.sleep(0.01)
            with lock:
                for op, dt, err in out:
                    lat.append((op, dt))
                    if err:
                        errs.append((op, err))
        c.close()

    ts = [threading.Thread(target=worker, args=(state["tid0"] + i,)) for i in range(nthreads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return t_start, time.monotonic(), lat, errs, extra


def _proc_entry(args):
    return _proc_main(*args)


def run_pool(port, fn, jobs, conns, state, procs=2, deadline_in=None):
    """fn(conn, job, state): one job, a module-level function (the forked processes find it by
    name). jobs: a list split over procs (each proc's threads share its part), or None with
    deadline_in seconds."""
    per = conns // procs
    tasks = []
    for p in range(procs):
        st = dict(state, tid0=p * per)
        part = jobs[p::procs] if jobs is not None else None
        tasks.append((port, fn, part, per, deadline_in, st))
    outs = pool_map(_proc_entry, tasks, procs, None if deadline_in is None else deadline_in + 300)
    t0 = min(o[0] for o in outs)
    t1 = max(o[1] for o in outs)
    lat = [x for o in outs for x in o[2]]
    errs = [x for o in outs for x in o[3]]
    return t1 - t0, lat, errs


def restart(ctx, s):
    s.stop()
    s.port = None
    cold = s.start()
    time.sleep(1.0)
    idle = proc_status_kib(s.pids(), "VmRSS")
    ctx.restarts.setdefault(s.name, []).append((cold, idle))
    return cold, idle


def nubo_metric(port, name):
    """A counter from nubo's /metrics, or None when the build does not expose it."""
    r = httpc.Conn(port).request("GET", "/metrics")
    m = re.search(r"^%s (\d+(?:\.\d+)?)$" % re.escape(name), r.body.decode(errors="replace"), re.M)
    return float(m.group(1)) if m else None


ARGON_NOTE = ("nubo's peak RSS includes Argon2id's 64 MiB working memory whenever its 30-s credential cache entry "
              "expired during the measurement and the password was verified again (a cold request lifts VmHWM by "
              "~64 MiB; RSS returns to where it was, libsodium unmaps that memory).")


# ----------------------------------------------------------------------------
# Health (nubo vs nginx's static file), JSON, baseline deltas.

def health(ctx):
    a = ctx.args
    a.duration = 3 if a.quick else 5
    a.rounds = ctx.p["rounds"]
    a.load = loadavg()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        res = health_scenario.run(a)
    for line in buf.getvalue().splitlines():
        ctx.say(line)
    rows = [dict(server=k, **v) for k, v in res.items()]
    ctx.results["scenarios"]["health"] = {"title": "keep-alive GET /health, wrk -t2 -c64", "rows": rows}


def newest_baseline(ctx, out_path):
    cands = []
    for p in glob.glob(os.path.join(RESULTS, "*.json")):
        if os.path.abspath(p) == os.path.abspath(out_path):
            continue
        try:
            with open(p) as f:
                j = json.load(f)
        except (OSError, ValueError):
            continue
        if j.get("mode") == ctx.results["mode"]:
            cands.append((j.get("started", ""), p, j))
    return max(cands)[1:] if cands else (None, None)


def compare(ctx, out_path):
    path, base = (ctx.args.baseline, None) if ctx.args.baseline else newest_baseline(ctx, out_path)
    if path and base is None:
        with open(path) as f:
            base = json.load(f)
    if not base:
        ctx.say("\nno baseline in bench/results/ for mode %s: nothing to compare" % ctx.results["mode"])
        return
    ctx.say("")
    ctx.say("### Against the baseline %s (nubo's numbers and its ratios; regression = > 10 %% worse)"
            % os.path.relpath(path, ROOT))
    ctx.say("")
    ctx.say("| scenario | case | metric | baseline | now | delta | |")
    ctx.say("|---|---|---|---|---|---|---|")
    nreg = 0
    for sid, sc in ctx.results["scenarios"].items():
        old = {(r["server"], r.get("case")): r for r in base.get("scenarios", {}).get(sid, {}).get("rows", [])}
        for r in sc["rows"]:
            if r.get("failed") or r.get("reference"):
                continue
            o = old.get((r["server"], r.get("case")))
            if not o or o.get("failed"):
                continue
            items = []
            if r["server"] == "nubo":
                items = [(k, r[k], o.get(k)) for k in r if isinstance(r[k], (int, float)) and better(k)]
            else:
                items = [("nubo/%s %s" % (r["server"], k), v, o.get("ratio", {}).get(k))
                         for k, v in r.get("ratio", {}).items()]
            for k, now, was in items:
                if not isinstance(was, (int, float)) or not was:
                    continue
                metric = k.split(" ")[-1]
                dirn = better(metric)
                delta = (now - was) / abs(was)
                worse = (delta > 0.10 if dirn == "lower" else delta < -0.10) if dirn else False
                nreg += worse
                if r["server"] == "nubo" or worse:
                    ctx.say("| %s | %s | %s | %.4g | %.4g | %+.1f %% | %s |" % (
                        sid, r.get("case") or "", k, was, now, delta * 100, "REGRESSION" if worse else ""))
    ctx.say("%d regressions beyond 10 %% (noise on this machine is often 5–15 %%; rerun before believing one)" % nreg)


def machine_info():
    info = {"cores": os.cpu_count(), "kernel": platform.release(), "loadavg": loadavg()}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            info["cpu"] = m.group(1) if m else "?"
    except OSError:
        pass
    vers = {}
    for name, cmd in (("apache", ["/usr/sbin/apache2", "-v"]), ("nginx", ["/usr/sbin/nginx", "-v"]),
                      ("lighttpd", ["/usr/sbin/lighttpd", "-v"]), ("rclone", ["rclone", "version"]),
                      ("php", ["php", "-v"]), ("wrk", ["wrk", "-v"])):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
            vers[name] = (out.stdout + out.stderr).strip().splitlines()[0][:80]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            pass
    try:
        with open("/usr/share/php/Sabre/DAV/Version.php") as f:
            vers["sabre/dav"] = re.search(r"VERSION = '([^']+)'", f.read()).group(1)
    except (OSError, AttributeError):
        pass
    info["versions"] = vers
    return info


# ----------------------------------------------------------------------------

def run(args, scenario):
    ctx = Ctx(args)
    if scenario == "all":
        ctx.todo = SUITE
    elif scenario == "peers":
        ctx.todo = SUITE
    else:
        ctx.todo = [scenario]
    if "s8" in ctx.todo and "s7" not in ctx.todo:
        ctx.todo = ["s7"] + ctx.todo
    if not args.no_wait:
        wait_quiet(ctx)
    t_run = time.perf_counter()
    ctx.results["machine"] = machine_info()
    ctx.results["binary"] = NUBO
    ctx.results["params"] = {k: (v if not isinstance(v, dict) else {str(a): b for a, b in v.items()})
                             for k, v in ctx.p.items()}
    ctx.say("# nubo peer suite — %s, %s mode" % (ctx.results["started"], ctx.results["mode"]))
    ctx.say("")
    ctx.say("machine: %d cores, %s, kernel %s; load average before: %s; nubo binary: %s"
            % (ctx.results["machine"]["cores"], ctx.results["machine"].get("cpu", "?"),
               ctx.results["machine"]["kernel"], ctx.results["machine"]["loadavg"], NUBO))
    ctx.say("peers: " + "; ".join("%s: %s" % kv for kv in ctx.results["machine"]["versions"].items()))
    if scenario == "all" and not args.skip_health:
        health(ctx)

    fresh = []
    where = args.tmpdir
    own_fs = where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4")
    ctx.tmp = tempfile.mkdtemp(prefix="nubo-suite-", dir=where)
    os.chmod(ctx.tmp, 0o755)
    ctx.dd_dir = ctx.tmp  # S4's dd reference writes here
    # --before BIN: that build runs too, as the peer "nubo-before" (BEFORE/AFTER from one run).
    names = ["nubo"] + (["nubo-before"] if getattr(args, "before", None) else []) + \
        [p for p in (args.peers.split(",") if args.peers else list(PEERS)) if p]
    try:
        if own_fs:
            # Each server (and S4's dd) on its own fresh ext4: one server's writes and syncs do not
            # wait for another's. nubo keeps what S4 and S7 delete (trash; chunks collected after
            # storage.gc_grace, 1 h): S4's rounds plus S7's uploads at nubo's rate; peers' S7
            # folders are removed after each round. The images are sparse.
            need = (ctx.p["rounds"] + 1) * ctx.p["s4_bytes"] + ((6 << 30) if args.quick else (32 << 30))
            for name in names + ["dd"]:
                fresh.append(FreshFs(need, mnt=os.path.join(ctx.tmp, name)))
                os.chmod(fresh[-1].mnt, 0o755)
            ctx.dd_dir = os.path.join(ctx.tmp, "dd")
        ctx.say("data on %s" % ("a fresh ext4 per server (loop devices, direct I/O)" if own_fs
                                else where or tempfile.gettempdir()))
        for name in names:
            if name == "nubo":
                s = Nubo(ctx.tmp, NUBO)
            elif name == "nubo-before":
                s = Nubo(ctx.tmp, args.before, name="nubo-before")
            else:
                s = PEERS[name](ctx.tmp)
            ctx.servers.append(s)
            if not isinstance(s, Nubo) and not have(name):
                ctx.failed[name] = "not installed (bash scripts/deps.sh bench)"
                continue
            try:
                s.start()
                if isinstance(s, Nubo):
                    api = Api(s.port, USER, PASSWORD)
                    api.setup()
                    s.root_id = api.root_id()
                    api.close()
                if name == "nubo":
                    ctx.nubo = s
                    ctx.nubo_root = s.root_id
            except Exception as e:
                ctx.failed[name] = "start: " + server_failed(ctx, s, e)
        seed(ctx)
        if not args.no_wait:
            wait_jobs(ctx, "the seeded files")
        seen, stop = set(), threading.Event()

        def watch():  # builds or tests that start while a scenario runs make its numbers noisy
            while not stop.wait(5):
                seen.update(re.sub(r"^\d+ ", "", b)[:60] for b in busy_processes())

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        for sid in ctx.todo:
            if not args.no_wait and (busy_processes() or cpu_busy_cores(1.0) > args.max_busy):
                wait_quiet(ctx)
            seen.clear()
            t = time.perf_counter()
            importlib.import_module(MODULES[sid]).run(ctx)
            ctx.say("(%s took %.0f s; load average %s)" % (sid, time.perf_counter() - t, loadavg()))
            if seen:
                ctx.say("WARNING: also running during %s: %s — its numbers are noisier than usual"
                        % (sid, "; ".join(sorted(seen))))
                ctx.results["scenarios"].get(sid, {})["interference"] = sorted(seen)
        stop.set()
    finally:
        for s in ctx.servers:
            try:
                s.stop()
            except Exception:
                pass
        for f in fresh:
            f.close()
        if not args.keep:
            shutil.rmtree(ctx.tmp, ignore_errors=True)
    total = time.perf_counter() - t_run
    ctx.results["seconds"] = round(total, 1)
    ctx.say("")
    ctx.say("total %.0f s" % total)
    os.makedirs(RESULTS, exist_ok=True)
    stem = "%s-%s%s" % (ctx.results["date"], scenario, "-quick" if args.quick else "")
    out = args.out or os.path.join(RESULTS, stem + ".json")
    if not args.no_compare:
        compare(ctx, out)
    with open(out, "w") as f:
        json.dump(ctx.results, f, indent=1, sort_keys=True, default=str)
    ctx.say("results: %s" % os.path.relpath(out, ROOT))
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(ctx.lines) + "\n")
