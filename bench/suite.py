"""The peer suite (issue #8): nubo against WebDAV peers from Debian's packages,
same data, same load, alternating rounds, medians, ratios nubo/peer from the
same run, a JSON result file and deltas against the newest committed baseline.

Scenarios (bench/README.md has the details):
  s1  PROPFIND Depth:1 on folders of 1,000 and 10,000 files (sequential; p50/p95/p99, first byte)
  s2  sync poll: PROPFIND Depth:0 on the unchanged root, 64 connections (wrk)
  s3  small-file ingest: 4 KiB PUTs, 16 connections
  s4  large file: one PUT and one GET of 1 GiB, single stream; b3sum and cat as references
  s5  REST listing of a 20,000-entry folder, page 1 vs page 100 (nubo only)
  s6  Basic-auth herd (16 cold requests, Argon2 runs) and warm request overhead
  s7  mixed workload (cdperf's size mix): upload, list, download, rename, delete at 16 users
  s8  idle RSS after start and after s7; cold start time to the first successful response
"""
import contextlib
import datetime
import io
import glob
import hashlib
import json
import multiprocessing
import os
import platform
import random
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import bench as core
import httpc
import peers
from peers import AUTH, PROPFIND0

BENCH = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(BENCH, "results")
WRK_DAV = os.path.join(BENCH, "wrk_dav.lua")
SUITE = ["s1", "s2", "s3", "s4", "s5", "s7", "s6", "s8"]
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


def med(values):
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


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

def busy_processes():
    mine = set()
    pid = os.getpid()
    while pid > 1:
        mine.add(pid)
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
    pat = re.compile(r"(^|[/ ])(ninja|ctest|cc1plus)( |$)")
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in mine:
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if pat.search(cmd):
            out.append("%s %s" % (d, cmd[:80]))
    return out


def cpu_busy_cores(seconds=2.0):
    """Cores kept busy (by anyone) over a short sample of /proc/stat."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]  # total, idle + iowait
    t0, i0 = snap()
    time.sleep(seconds)
    t1, i1 = snap()
    return (1 - (i1 - i0) / max(1, t1 - t0)) * (os.cpu_count() or 1)


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
        if not isinstance(s, peers.Nubo):
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
    return core.listing_specs(n, 1000 + n)


def seed(ctx):
    sizes = ctx.p["s1_sizes"] if "s1" in ctx.todo else []
    t0 = time.perf_counter()
    small = b"0123456789abcdef"
    for s in ctx.alive():
        try:
            c = httpc.Conn(s.port)
            if isinstance(s, peers.Nubo):
                api = core.Api(s.port, peers.USER, peers.PASSWORD)
                for n in sizes:
                    folder = api.call("POST", "/nodes/%s/folders" % s.root_id, {"name": "p%d" % n}, expect=201)["id"]
                    specs = s1_specs(n)
                    for i in range(0, n, 1000):
                        ctype, body = core.multipart_body(specs[i:i + 1000])
                        items = api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})["items"]
                        if any(it.get("status") != 201 for it in items):
                            raise core.ServerError("multipart upload: %r" % [it for it in items if it.get("status") != 201][:2])
                api.close()
            else:
                for n in sizes:
                    d = os.path.join(s.fs_root, "p%d" % n)
                    os.makedirs(d, exist_ok=True)
                    for name, data in s1_specs(n):
                        with open(os.path.join(d, name), "wb") as f:
                            f.write(data)
                if s.runs_as_www:
                    peers.chown_www(s.fs_root)
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
# S1: PROPFIND Depth:1 on 1,000 and 10,000 files.

def s1(ctx):
    P = ctx.p
    rows = []
    for n in P["s1_sizes"]:
        path = "/dav/p%d/" % n
        want = {name: len(data) for name, data in s1_specs(n)}
        per = {s.name: [] for s in ctx.alive()}
        bad = {}
        for s in ctx.alive():  # gate: every name once, with its size
            try:
                r = httpc.Conn(s.port).request("PROPFIND", path, pf_headers(1), body=PROPFIND0)
                if r.status != 207:
                    raise httpc.HttpError("PROPFIND answered %d" % r.status)
                got = parse_multistatus(r.body, path)
                got.pop("", None)
                if got != want:
                    missing = set(want) - set(got)
                    extra = set(got) - set(want)
                    wrong = [k for k in want if k in got and got[k] != want[k]]
                    raise httpc.HttpError("gate: %d missing, %d extra, %d wrong sizes (e.g. %r)" % (
                        len(missing), len(extra), len(wrong), (list(missing) + list(extra) + wrong)[:2]))
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
        for rnd in range(P["rounds"]):
            for s in ctx.order(rnd):
                if s.name in bad:
                    continue
                try:
                    pids = s.pids()
                    rss0 = peers.proc_status_kib(pids, "VmRSS")
                    peers.reset_hwm(pids)
                    c = httpc.Conn(s.port)
                    c.request("PROPFIND", path, pf_headers(1), body=PROPFIND0, keep_body=False)  # warm-up
                    tot, fb, nb = [], [], 0
                    cpu0 = peers.proc_cpu_s(pids)
                    t_end = time.perf_counter() + P["s1_budget"][n]
                    while (len(tot) < 5 or time.perf_counter() < t_end) and len(tot) < 400:
                        r = c.request("PROPFIND", path, pf_headers(1), body=PROPFIND0, keep_body=False)
                        if r.status != 207:
                            raise httpc.HttpError("PROPFIND answered %d" % r.status)
                        tot.append(r.total * 1000)
                        fb.append(r.ttfb * 1000)
                        nb = r.nbytes
                    cpu = peers.proc_cpu_s(pids) - cpu0
                    c.close()
                    hwm = peers.proc_status_kib(s.pids(), "VmHWM")
                    per[s.name].append({"cpu_ms_per_req": cpu * 1000 / len(tot), "p50_ms": core.pct(tot, 50), "p95_ms": core.pct(tot, 95),
                                        "p99_ms": core.pct(tot, 99), "ttfb_p50_ms": core.pct(fb, 50),
                                        "reqs": len(tot), "bytes": nb, "peak_rss_mib": hwm / 1024,
                                        "growth_mib": (hwm - rss0) / 1024})
                except Exception as e:
                    bad[s.name] = server_failed(ctx, s, e)
        rows += server_rows(ctx, per, bad, case="%d files" % n, extra=lambda row, rounds: row.update(
            rounds_p50_ms=[round(d["p50_ms"], 3) for d in rounds]))
    table(ctx, "s1", "PROPFIND Depth:1 (resourcetype, getcontentlength, getlastmodified, getetag), one keep-alive "
          "connection, sequential; median of %d rounds" % P["rounds"],
          [("p50_ms", "p50 ms", "%.2f"), ("p95_ms", "p95 ms", "%.2f"), ("p99_ms", "p99 ms", "%.2f"),
           ("ttfb_p50_ms", "first byte p50 ms", "%.2f"), ("bytes", "response bytes", "%d"), ("reqs", "reqs/round", "%d"),
           ("cpu_ms_per_req", "server CPU ms/req", "%.2f"),
           ("peak_rss_mib", "peak RSS MiB", "%.1f"), ("growth_mib", "RSS growth MiB", "%.1f")],
          rows, [("p50_ms", "p50"), ("ttfb_p50_ms", "first byte")],
          ["gate: each server's multistatus lists every seeded name once with its size (XML parsed); "
           "ratio < 1 means nubo is faster. RSS growth = peak during the case − RSS before it.", ARGON_NOTE])


# ----------------------------------------------------------------------------
# S2: sync poll, PROPFIND Depth:0 on the root, 64 connections.

def wrk_dav(port, method, path, headers, body, duration, connections=64, threads=2):
    env = dict(os.environ, WRK_METHOD=method, WRK_BODY=body.decode() if body else "",
               WRK_HEADERS="\n".join("%s: %s" % kv for kv in headers.items()))
    out = subprocess.run(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % duration, "--timeout", "10s",
                          "-s", WRK_DAV, "http://127.0.0.1:%d%s" % (port, path)], capture_output=True, text=True,
                         env=env).stdout
    m = re.search(r"^RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) (\d+) (\d+)$", out, re.M)
    if not m:
        raise RuntimeError("wrk printed no RESULT line: " + out[-300:])
    return {"requests": int(m.group(1)), "errors": int(m.group(2)), "p50_ms": float(m.group(3)),
            "p95_ms": float(m.group(4)), "p99_ms": float(m.group(5)), "rps": float(m.group(6)),
            "status_errors": int(m.group(7)), "closes": int(m.group(8))}


def s2(ctx):
    P = ctx.p
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for s in ctx.alive():
        try:
            r = httpc.Conn(s.port).request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND0)
            got = parse_multistatus(r.body, "/dav/") if r.status == 207 else None
            if got is None or list(got) != [""]:
                raise httpc.HttpError("gate: status %d, entries %r" % (r.status, got and list(got)[:3]))
            wrk_dav(s.port, "PROPFIND", "/dav/", pf_headers(0), PROPFIND0, 1)  # warm-up
        except Exception as e:
            bad[s.name] = server_failed(ctx, s, e)
    for rnd in range(P["rounds"]):
        for s in ctx.order(rnd):
            if s.name in bad:
                continue
            try:
                pids = s.pids()
                peers.reset_hwm(pids)
                cpu0 = peers.proc_cpu_s(pids)
                res = wrk_dav(s.port, "PROPFIND", "/dav/", pf_headers(0), PROPFIND0, P["s2_duration"])
                res["cpu_us_per_req"] = (peers.proc_cpu_s(s.pids()) - cpu0) * 1e6 / max(1, res["requests"])
                res["peak_rss_mib"] = peers.proc_status_kib(s.pids(), "VmHWM") / 1024
                per[s.name].append(res)
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
    def extra(row, rounds):
        row["errors"] = sum(d["errors"] for d in rounds)
        row["status_errors"] = sum(d["status_errors"] for d in rounds)
        row["closes"] = sum(d["closes"] for d in rounds)
        row["rounds_rps"] = [round(d["rps"]) for d in rounds]
        if row["errors"]:
            row["failed"] = "%d errors (%d of them statuses >= 400)" % (row["errors"], row["status_errors"])

    rows = server_rows(ctx, per, bad, extra)
    table(ctx, "s2", "sync poll: PROPFIND Depth:0 on the unchanged root, wrk -t2 -c64, %d s × %d rounds, median"
          % (P["s2_duration"], P["rounds"]),
          [("rps", "req/s", "%.0f"), ("p50_ms", "p50 ms", "%.2f"), ("p95_ms", "p95 ms", "%.2f"),
           ("p99_ms", "p99 ms", "%.2f"), ("errors", "errors", "%d"), ("closes", "server closes", "%d"),
           ("cpu_us_per_req", "server CPU µs/req", "%.0f"), ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("rps", "req/s")],
          ["gate: one PROPFIND answered 207 with exactly the root; errors = wrk's connect, write and timeout errors "
           "plus statuses >= 400 (any fails the server); server closes = wrk's read errors, one per connection the "
           "server closed after a response (php -S closes after every response, Apache after 100 per connection). "
           "Ratio > 1 means nubo is faster.", ARGON_NOTE])


# ----------------------------------------------------------------------------
# A pool of client processes × threads, each thread with its own keep-alive
# connection, working through a job list (S3) or until a deadline (S7).

_POOL = {}


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
    port, fn_name, jobs, nthreads, deadline_in, state = args
    return _proc_main(port, globals()[fn_name], jobs, nthreads, deadline_in, state)


def run_pool(port, fn_name, jobs, conns, state, procs=2, deadline_in=None):
    """jobs: a list split over procs (each proc's threads share its part), or None with deadline_in seconds."""
    per = conns // procs
    tasks = []
    for p in range(procs):
        st = dict(state, tid0=p * per)
        part = jobs[p::procs] if jobs is not None else None
        tasks.append((port, fn_name, part, per, deadline_in, st))
    ctxmp = multiprocessing.get_context("fork")
    with ctxmp.Pool(procs) as pool:
        outs = pool.map(_proc_entry, tasks)
    t0 = min(o[0] for o in outs)
    t1 = max(o[1] for o in outs)
    lat = [x for o in outs for x in o[2]]
    errs = [x for o in outs for x in o[3]]
    return t1 - t0, lat, errs


# ----------------------------------------------------------------------------
# S3: small-file ingest, 4 KiB PUTs at 16 connections.

def _s3_put(c, job, state):
    i, path = job
    body = _POOL["s3"][i:i + 4096]
    r = c.request("PUT", path, DAVH, body=body)
    err = None if r.status in (201, 204) else "status %d" % r.status
    return [("put", r.total, err)]


def s3(ctx):
    P = ctx.p
    n = P["s3_files"]
    _POOL["s3"] = random.Random(3).randbytes(n + 4096)
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for rnd in range(P["rounds"]):
        for s in ctx.order(rnd):
            if s.name in bad:
                continue
            try:
                folder = "/dav/s3-r%d/" % rnd
                c = httpc.Conn(s.port)
                r = c.request("MKCOL", folder, DAVH)
                if r.status != 201:
                    raise httpc.HttpError("MKCOL answered %d" % r.status)
                jobs = [(i, "%sf%05d.bin" % (folder, i)) for i in range(n)]
                pids = s.pids()
                peers.reset_hwm(pids)
                cpu0 = peers.proc_cpu_s(pids)
                wall, lat, errs = run_pool(s.port, "_s3_put", jobs, 16, {})
                cpu = peers.proc_cpu_s(s.pids()) - cpu0
                hwm = peers.proc_status_kib(s.pids(), "VmHWM")
                # Gate: every file listed with 4096 bytes; 20 sampled files read back.
                r = c.request("PROPFIND", folder, pf_headers(1), body=PROPFIND0)
                got = parse_multistatus(r.body, folder) if r.status == 207 else {}
                got.pop("", None)
                gate = None
                if len(got) != n or any(v != 4096 for v in got.values()):
                    gate = "listing has %d entries (want %d), %d of wrong size" % (
                        len(got), n, sum(1 for v in got.values() if v != 4096))
                for i in random.Random(rnd).sample(range(n), min(20, n)):
                    g = c.request("GET", "%sf%05d.bin" % (folder, i), DAVH)
                    if g.status != 200 or g.body != _POOL["s3"][i:i + 4096]:
                        gate = gate or "f%05d.bin read back %d, %d bytes, content %s" % (
                            i, g.status, g.nbytes, "differs" if g.status == 200 else "-")
                c.close()
                ms = [dt * 1000 for _, dt in lat]
                per[s.name].append({"cpu_ms_per_file": cpu * 1000 / n, "cpu_util": cpu / wall,
                                    "files_per_s": n / wall, "p50_ms": core.pct(ms, 50), "p95_ms": core.pct(ms, 95),
                                    "p99_ms": core.pct(ms, 99), "errors": len(errs), "peak_rss_mib": hwm / 1024,
                                    "gate": gate, "err_sample": errs[:2]})
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
    def extra(row, rounds):
        row["errors"] = sum(d["errors"] for d in rounds)
        row["rounds_files_per_s"] = [round(d["files_per_s"]) for d in rounds]
        gates = [d["gate"] for d in rounds if d["gate"]]
        if gates or row["errors"]:
            row["failed"] = (gates[0] if gates else "%d errors, e.g. %r" % (
                row["errors"], [d["err_sample"] for d in rounds if d["err_sample"]][0]))

    rows = server_rows(ctx, per, bad, extra)
    table(ctx, "s3", "small-file ingest: %d PUTs of 4 KiB (distinct contents) into a new folder per round, "
          "16 connections (2 processes × 8 threads), %d rounds, median" % (n, P["rounds"]),
          [("files_per_s", "files/s", "%.0f"), ("p50_ms", "p50 ms", "%.2f"), ("p95_ms", "p95 ms", "%.2f"),
           ("p99_ms", "p99 ms", "%.2f"), ("errors", "errors", "%d"), ("cpu_ms_per_file", "server CPU ms/file", "%.3f"),
           ("cpu_util", "server cores busy", "%.2f"), ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("files_per_s", "files/s")],
          ["gate: every PUT 201/204, PROPFIND lists all %d files with 4096 bytes, 20 sampled files read back "
           "byte-identical. nubo fsyncs every upload; the peers do not." % n, ARGON_NOTE])


# ----------------------------------------------------------------------------
# S4: one large file, PUT and GET, single stream.

def write_random_file(path, size, seed):
    # Synced like bench.write_random: the input's write-back must not
    # compete with the timed writes that follow (dd's and the servers').
    rng = random.Random(seed)
    with open(path, "wb") as f:
        left = size
        while left:
            k = min(left, 16 * MiB)
            f.write(rng.randbytes(k))
            left -= k
        f.flush()
        os.fsync(f.fileno())


def s4(ctx):
    P = ctx.p
    size = P["s4_bytes"]
    src = os.path.join(ctx.tmp, "s4-input.bin")
    per = {s.name: [] for s in ctx.alive()}
    refs = {"b3sum": [], "cat": [], "dd": []}
    bad = {}
    for rnd in range(P["rounds"]):
        write_random_file(src, size, 400 + rnd)  # fresh each round: no dedup against the last
        t = time.perf_counter()
        want_b3 = subprocess.run(["b3sum", "--no-names", src], capture_output=True, text=True, check=True).stdout.strip()
        refs["b3sum"].append(size / 1e6 / (time.perf_counter() - t))
        t = time.perf_counter()
        subprocess.run(["cat", src], stdout=subprocess.DEVNULL, check=True)
        refs["cat"].append(size / 1e6 / (time.perf_counter() - t))
        # The durable write ceiling: the same bytes into one file on the servers' file system, one fsync.
        out = os.path.join(ctx.tmp, "s4-dd.out")
        t = time.perf_counter()
        subprocess.run(["dd", "if=" + src, "of=" + out, "bs=1M", "conv=fsync"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        refs["dd"].append(size / 1e6 / (time.perf_counter() - t))
        os.unlink(out)
        # Sampled blocks the download must match (64 KiB at 16 spread offsets).
        samples = {}
        with open(src, "rb") as f:
            for k in range(16):
                off = (size // 16) * k + (k * 4099) % (size // 16 - 65536)
                f.seek(off)
                samples[off] = f.read(65536)
        for s in ctx.order(rnd):
            if s.name in bad:
                continue
            name = "/dav/big-r%d.bin" % rnd
            try:
                c = httpc.Conn(s.port, timeout=600)
                peers.reset_hwm(s.pids())
                cpu0 = peers.proc_cpu_s(s.pids())
                with open(src, "rb") as f:
                    r = c.request("PUT", name, dict(DAVH, **{"Content-Type": "application/octet-stream"}),
                                  body_file=(f, size))
                if r.status not in (201, 204):
                    raise httpc.HttpError("PUT answered %d: %r" % (r.status, (r.body or b"")[:200]))
                put_s = r.total
                cpu1 = peers.proc_cpu_s(s.pids())
                pos = [0]
                mismatch = []

                def sink(mv, pos=pos):
                    start, end = pos[0], pos[0] + len(mv)
                    for off, blk in samples.items():
                        if off < end and off + len(blk) > start:
                            a, b = max(off, start), min(off + len(blk), end)
                            if mv[a - start:b - start] != blk[a - off:b - off]:
                                mismatch.append(off)
                    pos[0] = end

                r = c.request("GET", name, DAVH, keep_body=False, sink=sink)
                get_s = r.total
                cpu2 = peers.proc_cpu_s(s.pids())
                hwm = peers.proc_status_kib(s.pids(), "VmHWM")
                gate = None
                if r.status != 200 or r.nbytes != size or mismatch:
                    gate = "GET answered %d with %d bytes (want %d), %d sampled blocks differ" % (
                        r.status, r.nbytes, size, len(set(mismatch)))
                # The stored bytes hash as the input: on disk (peers) or nubo's ETag (BLAKE3, first 128 bits).
                if s.fs_root:
                    got_b3 = subprocess.run(["b3sum", "--no-names", os.path.join(s.fs_root, name[5:])],
                                            capture_output=True, text=True).stdout.strip()
                    if got_b3 != want_b3:
                        gate = gate or "stored file's b3sum %s differs from the input's" % got_b3[:16]
                else:
                    etag = r.header("etag", "").strip('W/"')
                    if etag != want_b3[:32]:
                        gate = gate or "ETag %r is not the input's BLAKE3 prefix %s" % (etag, want_b3[:32])
                d = c.request("DELETE", name, DAVH)
                c.close()
                per[s.name].append({"put_mbps": size / 1e6 / put_s, "get_mbps": size / 1e6 / get_s,
                                    "put_s": put_s, "get_s": get_s, "put_cpu_s": cpu1 - cpu0,
                                    "get_cpu_s": cpu2 - cpu1, "peak_rss_mib": hwm / 1024, "gate": gate,
                                    "delete": d.status})
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
    os.unlink(src)
    def extra(row, rounds):
        gates = [d["gate"] for d in rounds if d["gate"]]
        if gates:
            row["failed"] = gates[0]

    rows = server_rows(ctx, per, bad, extra)
    for k, label in (("dd", "reference: dd bs=1M conv=fsync (same file system)"),
                     ("b3sum", "reference: b3sum (all cores)"), ("cat", "reference: cat file > /dev/null")):
        rows.append({"server": label, "put_mbps": med(refs[k]) if k in ("b3sum", "dd") else None,
                     "get_mbps": med(refs[k]) if k == "cat" else None, "reference": True})
    table(ctx, "s4", "large file: %d MiB of random bytes (fresh each round), one streamed PUT (sendfile from the page "
          "cache) then one GET, single keep-alive connection, %d rounds, median" % (size >> 20, P["rounds"]),
          [("put_mbps", "PUT MB/s", "%.0f"), ("get_mbps", "GET MB/s", "%.0f"), ("put_s", "PUT s", "%.2f"),
           ("get_s", "GET s", "%.2f"), ("put_cpu_s", "server CPU s in PUT", "%.2f"),
           ("get_cpu_s", "server CPU s in GET", "%.2f"), ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("put_mbps", "PUT"), ("get_mbps", "GET")],
          ["gate: PUT 201/204; GET 200 with the full length and 16 sampled 64 KiB blocks equal to the input; the "
           "stored file's b3sum (peers) or nubo's ETag (BLAKE3 prefix) equals the input's. nginx serves the GET with "
           "sendfile. nubo's PUT is chunked, hashed and fsync'd; the peers write without fsync.", ARGON_NOTE])


# ----------------------------------------------------------------------------
# S5: REST listing, page 1 vs page 100 (nubo only; the files scenario's code).

def s5(ctx):
    P = ctx.p
    if "nubo" in ctx.failed:
        table(ctx, "s5", "REST listing", [], [{"server": "nubo", "failed": ctx.failed["nubo"]}], [])
        return
    a = ctx.args
    a.list_entries, a.list_reps = P["s5_entries"], P["s5_reps"]
    api = core.Api(ctx.nubo.port, peers.USER, peers.PASSWORD)
    rows = []
    try:
        # New files start background jobs (content index, media); the
        # listings are timed once they are done, as on a server at rest.
        settle = None if a.no_wait else (lambda: (wait_jobs(ctx, "the listing's files"), wait_quiet(ctx)))
        create_s, far, listing = core.files_listing(api, ctx.nubo_root, a, settle)
        for label, (t1, tf) in listing.items():
            for page, ts in ((1, t1), (far, tf)):
                rows.append({"server": "nubo", "case": "%s, page %d" % (label, page), "p50_ms": core.pct(ts, 50),
                             "p95_ms": core.pct(ts, 95), "p99_ms": core.pct(ts, 99),
                             "far_over_first": core.pct(tf, 50) / core.pct(t1, 50) if page == far else None})
    except (core.ServerError, OSError, SystemExit) as e:
        rows.append({"server": "nubo", "failed": "%s: %s" % (type(e).__name__, str(e)[:200])})
        create_s, far = 0, 100
    finally:
        api.close()
    table(ctx, "s5", "REST GET /nodes/{id}/children?limit=200 in a folder of %d files (created by multipart in "
          "%.1f s), page 1 vs page %d (cursor reused), %d reps each interleaved, one keep-alive connection"
          % (P["s5_entries"], create_s, far, P["s5_reps"]),
          [("p50_ms", "p50 ms", "%.3f"), ("p95_ms", "p95 ms", "%.3f"), ("p99_ms", "p99 ms", "%.3f"),
           ("far_over_first", "p50 page %d / page 1" % far, "%.2f")], rows, [],
          ["gate: a walk over all pages per sort returns every name once, in the promised order. Targets: "
           "page %d / page 1 within 0.80–1.20, p50 ≤ 2 ms. No peer has this API." % far])


# ----------------------------------------------------------------------------
# S6: Basic-auth herd and warm overhead; restarts feed S8's cold start and idle RSS.

def restart(ctx, s):
    s.stop()
    s.port = None
    cold = s.start()
    time.sleep(1.0)
    idle = peers.proc_status_kib(s.pids(), "VmRSS")
    ctx.restarts.setdefault(s.name, []).append((cold, idle))
    return cold, idle


def nubo_metric(port, name):
    """A counter from nubo's /metrics, or None when the build does not expose it."""
    r = httpc.Conn(port).request("GET", "/metrics")
    m = re.search(r"^%s (\d+(?:\.\d+)?)$" % re.escape(name), r.body.decode(errors="replace"), re.M)
    return float(m.group(1)) if m else None


def herd(s, k):
    """k new connections send their first authenticated PROPFIND at once: (wall s, server CPU s, statuses)."""
    conns = [httpc.Conn(s.port) for _ in range(k)]
    for c in conns:
        c.connect()
    bar = threading.Barrier(k + 1)
    statuses = [None] * k

    def go(i):
        bar.wait()
        try:
            statuses[i] = conns[i].request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND0).status
        except OSError as e:
            statuses[i] = repr(e)

    ts = [threading.Thread(target=go, args=(i,)) for i in range(k)]
    for t in ts:
        t.start()
    cpu0 = peers.proc_cpu_s(s.pids())
    t0 = time.perf_counter()
    bar.wait()
    for t in ts:
        t.join()
    wall = time.perf_counter() - t0
    time.sleep(0.05)
    cpu = peers.proc_cpu_s(s.pids()) - cpu0
    for c in conns:
        c.close()
    return wall, cpu, statuses


def s6(ctx):
    P = ctx.p
    k = P["s6_herd"]
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for rnd in range(P["rounds"]):
        for s in ctx.order(rnd):
            if s.name in bad:
                continue
            try:
                d = {}
                if isinstance(s, peers.Nubo):
                    # Calibration: one cold request (one Argon2) and the CPU of a warm one.
                    restart(ctx, s)
                    one_wall, one_cpu, st = herd(s, 1)
                    c = httpc.Conn(s.port)
                    cpu0 = peers.proc_cpu_s(s.pids())
                    for _ in range(200):
                        c.request("PROPFIND", "/dav/", pf_headers(0), body=PROPFIND0, keep_body=False)
                    warm_cpu = (peers.proc_cpu_s(s.pids()) - cpu0) / 200
                    c.close()
                    d.update(one_cold_ms=one_wall * 1000, one_cold_cpu_ms=one_cpu * 1000)
                cold, idle = restart(ctx, s)
                wall, cpu, statuses = herd(s, k)
                if any(x != 207 for x in statuses):
                    raise httpc.HttpError("herd statuses %r" % sorted(set(map(str, statuses))))
                d.update(herd_wall_ms=wall * 1000, herd_cpu_ms=cpu * 1000)
                if isinstance(s, peers.Nubo):
                    # Exact from /metrics (the counter restarted with the
                    # server); older builds lack it: estimate from CPU time.
                    exact = nubo_metric(s.port, "nubo_auth_argon2_verifications_total")
                    unit = max(one_cpu - warm_cpu, 1e-3)
                    d["argon2_runs"] = exact if exact is not None else max(0.0, (cpu - k * warm_cpu) / unit)
                # Warm: GET /health (no auth) and GET /dav/small.txt (Basic auth), interleaved.
                c = httpc.Conn(s.port)
                th, ta = [], []
                for _ in range(P["s6_reps"]):
                    if s.has_health:
                        r = c.request("GET", "/health")
                        if r.status != 200 or r.body != peers.HEALTH_BODY:
                            raise httpc.HttpError("GET /health answered %d %r" % (r.status, r.body[:40]))
                        th.append(r.total * 1000)
                    r = c.request("GET", "/dav/small.txt", DAVH)
                    if r.status != 200 or r.body != b"0123456789abcdef":
                        raise httpc.HttpError("GET /dav/small.txt answered %d %r" % (r.status, r.body[:40]))
                    ta.append(r.total * 1000)
                c.close()
                d["auth_p50_ms"] = core.pct(ta, 50)
                d["auth_p99_ms"] = core.pct(ta, 99)
                if th:
                    d["health_p50_ms"] = core.pct(th, 50)
                    d["overhead_ms"] = d["auth_p50_ms"] - d["health_p50_ms"]
                per[s.name].append(d)
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
                if s.proc is None or s.proc.poll() is not None:
                    ctx.failed[s.name] = "after restart: " + bad[s.name]
    rows = []
    for s in ctx.servers:
        row = {"server": s.name}
        if s.name in bad or (s.name in ctx.failed and not per.get(s.name)):
            row["failed"] = bad.get(s.name) or ctx.failed[s.name]
        else:
            row.update(merge_rounds(per[s.name]))
        rows.append(row)
    table(ctx, "s6", "Basic-auth herd: %d new connections send their first PROPFIND Depth:0 at once, right after a "
          "restart (cold credential cache); warm: GET /health vs GET /dav/small.txt (16 bytes, Basic auth), %d each "
          "interleaved on one connection; %d rounds, median" % (k, P["s6_reps"], P["rounds"]),
          [("herd_wall_ms", "herd wall ms", "%.1f"), ("herd_cpu_ms", "herd server CPU ms", "%.0f"),
           ("argon2_runs", "Argon2 runs", "%.1f"), ("health_p50_ms", "GET /health p50 ms", "%.3f"),
           ("auth_p50_ms", "auth'd GET p50 ms", "%.3f"), ("auth_p99_ms", "auth'd GET p99 ms", "%.3f"),
           ("overhead_ms", "auth overhead ms", "%.3f")],
          rows, [("herd_wall_ms", "herd wall"), ("auth_p50_ms", "auth'd GET")],
          ["Argon2 runs (nubo): read from its /metrics (nubo_auth_argon2_verifications_total) after the herd; for a "
           "build without that counter, estimated from the server's CPU time "
           "(/proc utime+stime): (herd CPU − %d × a warm request's CPU) / (one cold request's CPU − a warm one's), "
           "calibrated on a separate restart each round. Peers verify htpasswd apr1-MD5 (Apache, nginx, lighttpd) "
           "or compare the password in plain text (rclone, sabre) on every request; nubo runs Argon2id (t=3, 64 MiB) "
           "once and caches the result for 30 s. auth overhead = auth'd GET p50 − GET /health p50 (rclone has no "
           "unauthenticated path)." % k])


# ----------------------------------------------------------------------------
# S7: mixed workload modeled on ownCloud's cdperf mix.

ARGON_NOTE = ("nubo's peak RSS includes Argon2id's 64 MiB working memory whenever its 30-s credential cache entry "
              "expired during the measurement and the password was verified again (a cold request lifts VmHWM by "
              "~64 MiB; RSS returns to where it was, libsodium unmaps that memory).")

OPS = (("upload", 30), ("download", 30), ("list", 20), ("rename", 10), ("delete", 10))


def s7_size(rng, scale):
    r = rng.random()
    if r < 0.84:
        lo, hi = 1 << 10, 1000000
    elif r < 0.965:
        lo, hi = 1000000, 10000000
    else:
        lo, hi = 10000000, 100000000
    return max(1, int(lo * (hi / lo) ** rng.random()) // scale)


def _s7_user(c, tid, state):
    """One operation of user tid; state per process keeps each user's files."""
    users = state.setdefault("users", {})
    u = users.get(tid)
    if u is None:
        u = users[tid] = {"rng": random.Random(state["seed"] * 1000 + tid), "files": {}, "n": 0,
                          "folder": "/dav/mix-r%d-u%02d/" % (state["round"], tid)}
    rng, files, folder = u["rng"], u["files"], u["folder"]
    pool = _POOL["s7"]
    op = rng.choices([o for o, _ in OPS], [w for _, w in OPS])[0]
    if not files and op != "list":
        op = "upload"
    if op == "upload":
        size = s7_size(rng, state["scale"])
        off = rng.randrange(0, len(pool) - size)
        body = bytearray(pool[off:off + size])
        stamp = struct.pack("<HHI", state["round"], tid, u["n"])
        for j in range(0, size - 8, 4096):  # unique content: no dedup between files
            body[j:j + 8] = stamp
        u["n"] += 1
        name = "f%05d.bin" % u["n"]
        r = c.request("PUT", folder + name, DAVH, body=body)
        ok = r.status in (201, 204)
        if ok:
            files[name] = (size, hashlib.sha1(body).digest())
        return [("upload", r.total, None if ok else "PUT %d" % r.status)]
    if op == "list":
        r = c.request("PROPFIND", folder, pf_headers(1), body=PROPFIND0)
        err = None
        if r.status != 207:
            err = "PROPFIND %d" % r.status
        else:
            got = parse_multistatus(r.body, folder)
            got.pop("", None)
            want = {k: v[0] for k, v in files.items()}
            if got != want:
                diff = sorted(set(got.items()) ^ set(want.items()))[:2]
                err = "PROPFIND lists %d entries, want %d; differing (name, size): %r" % (len(got), len(want), diff)
        return [("list", r.total, err)]
    name = rng.choice(sorted(files))
    if op == "download":
        h = hashlib.sha1()
        r = c.request("GET", folder + name, DAVH, keep_body=False, sink=h.update)
        size, digest = files[name]
        err = None if (r.status == 200 and r.nbytes == size and h.digest() == digest) else \
            "GET %d, %d bytes (want %d)%s" % (r.status, r.nbytes, size, ", content differs" if r.status == 200 else "")
        return [("download", r.total, err)]
    if op == "rename":
        u["n"] += 1
        new = "f%05d.bin" % u["n"]
        r = c.request("MOVE", folder + name, dict(DAVH, Destination="http://%s%s%s" % (c.host, folder, new),
                                                   Overwrite="F"))
        ok = r.status in (201, 204)
        if ok:
            files[new] = files.pop(name)
        return [("rename", r.total, None if ok else "MOVE %d" % r.status)]
    r = c.request("DELETE", folder + name, DAVH)
    ok = r.status in (200, 204)
    if ok:
        del files[name]
    return [("delete", r.total, None if ok else "DELETE %d" % r.status)]


def s7(ctx):
    P = ctx.p
    scale = P["s7_scale"]
    _POOL["s7"] = random.Random(7).randbytes(100000000 // scale + MiB)
    per = {s.name: [] for s in ctx.alive()}
    bad = {}
    for rnd in range(P["rounds"]):
        for s in ctx.order(rnd):
            if s.name in bad:
                continue
            try:
                c = httpc.Conn(s.port)
                for tid in range(16):
                    r = c.request("MKCOL", "/dav/mix-r%d-u%02d/" % (rnd, tid), DAVH)
                    if r.status != 201:
                        raise httpc.HttpError("MKCOL answered %d" % r.status)
                c.close()
                peers.reset_hwm(s.pids())
                cpu0 = peers.proc_cpu_s(s.pids())
                wall, lat, errs = run_pool(s.port, "_s7_user", None, 16, {"seed": 7 + rnd, "round": rnd,
                                                                          "scale": scale},
                                           deadline_in=P["s7_duration"])
                cpu = peers.proc_cpu_s(s.pids()) - cpu0
                d = {"ops": len(lat), "ops_per_s": len(lat) / wall, "errors": len(errs),
                     "cpu_ms_per_op": cpu * 1000 / max(1, len(lat)), "cpu_util": cpu / wall,
                     "p50_ms": core.pct([x * 1000 for _, x in lat], 50),
                     "p95_ms": core.pct([x * 1000 for _, x in lat], 95),
                     "peak_rss_mib": peers.proc_status_kib(s.pids(), "VmHWM") / 1024,
                     "err_sample": errs[:3]}
                for op, _ in OPS:
                    xs = [x * 1000 for o, x in lat if o == op]
                    d[op + "_p95_ms"] = core.pct(xs, 95) if xs else None
                per[s.name].append(d)
                if rnd == P["rounds"] - 1 or s.name not in ctx.after_s7:
                    ctx.after_s7[s.name] = {"rss_after_mib": peers.proc_status_kib(s.pids(), "VmRSS") / 1024,
                                            "peak_s7_mib": d["peak_rss_mib"]}
                # Untimed cleanup (disk space): peers' folders go; nubo's go to its trash.
                c = httpc.Conn(s.port)
                for tid in range(16):
                    folder = "mix-r%d-u%02d" % (rnd, tid)
                    if s.fs_root:
                        shutil.rmtree(os.path.join(s.fs_root, folder), ignore_errors=True)
                    else:
                        c.request("DELETE", "/dav/%s/" % folder, DAVH)
                c.close()
                d["disk_free_gib"] = shutil.disk_usage(ctx.tmp).free / (1 << 30)
            except Exception as e:
                bad[s.name] = server_failed(ctx, s, e)
    def extra(row, rounds):
        row["errors"] = sum(d["errors"] for d in rounds)
        samples = [e for d in rounds for e in d["err_sample"]]
        if row["errors"]:
            row["failed"] = "%d errors, e.g. %s" % (row["errors"], "; ".join("%s: %s" % e for e in samples[:2]))

    rows = server_rows(ctx, per, bad, extra)
    table(ctx, "s7", "mixed workload (cdperf-like sizes: 84 %% < 1 MB, 12.5 %% 1–10 MB, 3.5 %% 10–100 MB%s), 16 users "
          "each in their own folder, ops upload 30 / download 30 / list 20 / rename 10 / delete 10, %d s × %d rounds, "
          "median" % (", sizes ÷ %d" % scale if scale > 1 else "", P["s7_duration"], P["rounds"]),
          [("ops_per_s", "ops/s", "%.0f"), ("p50_ms", "p50 ms", "%.1f"), ("p95_ms", "p95 ms", "%.1f"),
           ("upload_p95_ms", "upload p95", "%.1f"), ("download_p95_ms", "download p95", "%.1f"),
           ("list_p95_ms", "list p95", "%.1f"), ("rename_p95_ms", "rename p95", "%.1f"),
           ("delete_p95_ms", "delete p95", "%.1f"), ("errors", "errors", "%d"),
           ("cpu_ms_per_op", "server CPU ms/op", "%.2f"), ("cpu_util", "server cores busy", "%.2f"),
           ("peak_rss_mib", "peak RSS MiB", "%.1f")],
          rows, [("p95_ms", "p95"), ("ops_per_s", "ops/s")],
          ["gate per operation: PUT 201/204, GET 200 with the length and SHA-1 of what was uploaded, PROPFIND lists "
           "exactly the user's files with their sizes, MOVE 201/204, DELETE 200/204; any other answer is an error. "
           "Every upload's content is unique (a stamp every 4 KiB), so nubo cannot dedup.", ARGON_NOTE])


# ----------------------------------------------------------------------------
# S8: memory and cold start.

def s8(ctx):
    for s in ctx.alive():
        if s.name not in ctx.restarts:
            try:
                restart(ctx, s)
            except Exception as e:
                ctx.failed[s.name] = "restart: " + server_failed(ctx, s, e)
    rows = []
    for s in ctx.servers:
        row = {"server": s.name}
        rs = ctx.restarts.get(s.name)
        if not rs:
            row["failed"] = ctx.failed.get(s.name, "not restarted")
        else:
            row["cold_start_ms"] = med([c for c, _ in rs]) * 1000
            row["idle_rss_mib"] = med([i for _, i in rs]) / 1024
            row.update(ctx.after_s7.get(s.name, {}))
        rows.append(row)
    table(ctx, "s8", "memory and cold start: time from exec to the first successful response (nubo and peers with a "
          "/health: GET /health; rclone: authenticated PROPFIND), RSS 1 s after start (idle), RSS after S7 and peak "
          "during S7; medians over restarts",
          [("cold_start_ms", "cold start ms", "%.0f"), ("idle_rss_mib", "idle RSS MiB", "%.1f"),
           ("rss_after_mib", "RSS after S7 MiB", "%.1f"), ("peak_s7_mib", "peak RSS in S7 MiB", "%.1f")],
          rows, [("idle_rss_mib", "idle RSS"), ("cold_start_ms", "cold start")],
          ["RSS sums every process of a server (nginx and Apache master + workers, php -S master + 4 workers).", ARGON_NOTE])


# ----------------------------------------------------------------------------
# Health (the older scenario), JSON, baseline deltas.

def health(ctx):
    a = ctx.args
    a.duration = 3 if a.quick else 5
    a.rounds = ctx.p["rounds"]
    a.load = core.loadavg()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        res = core.scenario_health(a)
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
            % os.path.relpath(path, core.ROOT))
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
    info = {"cores": os.cpu_count(), "kernel": platform.release(), "loadavg": core.loadavg()}
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
    ctx.results["binary"] = core.NUBO
    ctx.results["params"] = {k: (v if not isinstance(v, dict) else {str(a): b for a, b in v.items()})
                             for k, v in ctx.p.items()}
    ctx.say("# nubo peer suite — %s, %s mode" % (ctx.results["started"], ctx.results["mode"]))
    ctx.say("")
    ctx.say("machine: %d cores, %s, kernel %s; load average before: %s; nubo binary: %s"
            % (ctx.results["machine"]["cores"], ctx.results["machine"].get("cpu", "?"),
               ctx.results["machine"]["kernel"], ctx.results["machine"]["loadavg"], core.NUBO))
    ctx.say("peers: " + "; ".join("%s: %s" % kv for kv in ctx.results["machine"]["versions"].items()))
    if scenario == "all" and not args.skip_health:
        health(ctx)

    fresh = None
    where = args.tmpdir
    if where is None and os.geteuid() == 0 and shutil.which("mkfs.ext4"):
        # nubo keeps what S4 and S7 delete (trash; chunks collected after storage.gc_grace, 1 h): S4's
        # rounds plus S7's uploads at nubo's rate; peers' S7 folders are removed after each round.
        need = (ctx.p["rounds"] + 1) * ctx.p["s4_bytes"] + ((6 << 30) if args.quick else (32 << 30))
        fresh = core.FreshFs(need)
        where = fresh.mnt
    ctx.tmp = tempfile.mkdtemp(prefix="nubo-suite-", dir=where)
    os.chmod(ctx.tmp, 0o755)
    ctx.say("data on %s" % ("a fresh ext4 loop device" if fresh else where or tempfile.gettempdir()))
    try:
        # --before BIN: that build runs too, as the peer "nubo-before" (BEFORE/AFTER from one run).
        names = ["nubo"] + (["nubo-before"] if getattr(args, "before", None) else []) + \
            [p for p in (args.peers.split(",") if args.peers else list(peers.PEERS)) if p]
        for name in names:
            if name == "nubo":
                s = peers.Nubo(ctx.tmp, core.NUBO)
            elif name == "nubo-before":
                s = peers.Nubo(ctx.tmp, args.before, name="nubo-before")
            else:
                s = peers.PEERS[name](ctx.tmp)
            ctx.servers.append(s)
            if not isinstance(s, peers.Nubo) and not peers.have(name):
                ctx.failed[name] = "not installed (bash scripts/deps.sh bench)"
                continue
            try:
                s.start()
                if isinstance(s, peers.Nubo):
                    api = core.Api(s.port, peers.USER, peers.PASSWORD)
                    api.call("POST", "/setup", {"username": peers.USER, "password": peers.PASSWORD}, expect=201,
                             auth=False)
                    s.root_id = api.call("GET", "/drives")["drives"][0]["root_id"]
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
            globals()[sid](ctx)
            ctx.say("(%s took %.0f s; load average %s)" % (sid, time.perf_counter() - t, core.loadavg()))
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
        if not args.keep:
            shutil.rmtree(ctx.tmp, ignore_errors=True)
        if fresh:
            fresh.close()
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
    ctx.say("results: %s" % os.path.relpath(out, core.ROOT))
    if args.md:
        with open(args.md, "w") as f:
            f.write("\n".join(ctx.lines) + "\n")
