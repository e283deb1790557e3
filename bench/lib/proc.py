"""Processes and ports: free ports, readiness, a process tree's pids, its
memory and CPU from /proc, whether the machine is quiet enough to time, and
load from forked processes (pool_map)."""
import multiprocessing
import os
import re
import signal
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=10):
    """Until something accepts TCP connections on the port."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on %d" % port)


def tree_pids(pid):
    """pid and all its descendants."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def proc_status_kib(pids, field):
    """The sum of a /proc/PID/status field (VmRSS, VmHWM, ...) over the processes, in KiB."""
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith(field + ":"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def peak_rss_kib(pids):
    return proc_status_kib(pids, "VmHWM")


def proc_cpu_s(pids):
    """utime + stime of the processes, all their threads (10 ms ticks; this kernel's schedstat is off)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / tick


def ctx_switches(pids):
    """Voluntary + involuntary context switches of the processes, all their threads: how often the
    server's threads slept and were woken (a hand-off between threads costs two)."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                    for line in f:
                        if "ctxt_switches:" in line:
                            total += int(line.split()[1])
            except OSError:
                pass
    return total


def reset_hwm(pids):
    """Resets each process's VmHWM to its current RSS (clear_refs 5, Linux >= 4.0); False when one
    could not be reset."""
    ok = True
    for pid in pids:
        try:
            with open("/proc/%d/clear_refs" % pid, "w") as f:
                f.write("5")
        except OSError:
            ok = False
    return ok


def rss_breakdown_kib(pid):
    """Current (anonymous, file-backed, of which magic.mgc mappings) RSS in KiB:
    VmHWM counts shared clean file pages once per mapping."""
    anon = file_ = magic = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("RssAnon:"):
                anon = int(line.split()[1])
            elif line.startswith("RssFile:"):
                file_ = int(line.split()[1])
    cur = ""
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            parts = line.split()
            if not parts[0].endswith(":"):
                cur = parts[5] if len(parts) > 5 else ""
            elif parts[0] == "Rss:" and cur.endswith("/magic.mgc"):
                magic += int(parts[1])
    return anon, file_, magic


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def busy_processes():
    """Builds and tests running beside the harness (ninja, ctest, cc1plus), not its own ancestors."""
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


def timed(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd under /usr/bin/time; returns (seconds, peak RSS KiB, stdout text or None).
    (wait4's ru_maxrss would count the harness's own pages the child had before exec.)"""
    out = subprocess.PIPE if stdout is None else stdout
    fd, rss_path = tempfile.mkstemp(prefix="nubo-rss-")
    os.close(fd)
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%M", "-o", rss_path] + cmd, stdout=out,
                         env={k: v for k, v in os.environ.items() if not k.startswith("NUBO_")})
    text = p.stdout.read().decode() if out == subprocess.PIPE else None
    p.wait()
    dt = time.perf_counter() - t0
    with open(rss_path) as f:
        rss = int(f.read().split()[-1])
    os.unlink(rss_path)
    if p.returncode != 0:
        raise SystemExit("%s failed" % " ".join(cmd))
    return dt, rss, text


def _thread_states(pid):
    """Each thread of pid: its state and the kernel function it waits in."""
    out = []
    try:
        tids = sorted(os.listdir("/proc/%d/task" % pid))
    except OSError:
        return "gone"
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            with open("/proc/%d/task/%s/wchan" % (pid, tid)) as f:
                wchan = f.read().strip() or "-"
        except OSError:
            continue
        out.append("%s:%s/%s" % (tid, state, wchan))
    return " ".join(out)


def _default_sigterm():
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def pool_map(fn, tasks, procs, timeout=None):
    """fn over tasks in `procs` forked processes (fn: a module-level function;
    the children inherit the module state). A pool that has not answered
    within `timeout` seconds (None: 30 minutes — the slowest peer's share of
    a scenario takes minutes, a hung load process for ever) is killed and
    the run fails with what each child was doing."""
    timeout = 1800 if timeout is None else timeout
    ctx = multiprocessing.get_context("fork")
    # The children must die of SIGTERM, as Pool.terminate expects: with the
    # harness's own handler (bench.py: exit through Python, so that servers
    # are stopped) a child idle in the task queue's semaphore when the
    # signal came could miss it and block the harness's join for ever.
    pool = ctx.Pool(procs, initializer=_default_sigterm)
    try:
        out = pool.map_async(fn, tasks).get(timeout)
    except multiprocessing.TimeoutError:
        states = "; ".join("pid %d: %s" % (p.pid, _thread_states(p.pid)) for p in pool._pool)
        pool.terminate()
        raise RuntimeError("the load processes did not finish within %d s (%s)" % (timeout, states))
    except BaseException:
        pool.terminate()
        raise
    pool.close()  # the children leave when the queue is empty
    pool.join()
    return out
