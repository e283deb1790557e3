"""wrk (the HTTP load generator) with the harness's Lua scripts, which print one
RESULT line the scenarios parse."""
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT_LUA = os.path.join(HERE, "wrk_report.lua")  # GET, latency percentiles
DAV_LUA = os.path.join(HERE, "wrk_dav.lua")        # any method, headers and body from the environment


def wrk(url, duration, connections=64, threads=2):
    """Keep-alive GETs of url: requests, errors, p50/p95/p99 (ms), rps."""
    out = subprocess.run(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % duration,
                          "-s", REPORT_LUA, url], capture_output=True, text=True).stdout
    m = re.search(r"^RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)$", out, re.M)
    if not m:
        raise RuntimeError("wrk printed no RESULT line:\n" + out)
    return {"requests": int(m.group(1)), "errors": int(m.group(2)), "p50": float(m.group(3)),
            "p95": float(m.group(4)), "p99": float(m.group(5)), "rps": float(m.group(6))}


def wrk_dav(port, method, path, headers, body, duration, connections=64, threads=2):
    """One request repeated on keep-alive connections; also counts non-2xx answers and closes."""
    env = dict(os.environ, WRK_METHOD=method, WRK_BODY=body.decode() if body else "",
               WRK_HEADERS="\n".join("%s: %s" % kv for kv in headers.items()))
    out = subprocess.run(["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % duration, "--timeout", "10s",
                          "-s", DAV_LUA, "http://127.0.0.1:%d%s" % (port, path)], capture_output=True, text=True,
                         env=env).stdout
    m = re.search(r"^RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+) (\d+) (\d+)$", out, re.M)
    if not m:
        raise RuntimeError("wrk printed no RESULT line: " + out[-300:])
    return {"requests": int(m.group(1)), "errors": int(m.group(2)), "p50_ms": float(m.group(3)),
            "p95_ms": float(m.group(4)), "p99_ms": float(m.group(5)), "rps": float(m.group(6)),
            "status_errors": int(m.group(7)), "closes": int(m.group(8))}
