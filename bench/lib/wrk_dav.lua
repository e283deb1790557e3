-- wrk script for one fixed request of any method (bench/lib/wrk.py: the suite's S2, the A/B scenarios).
-- WRK_METHOD, WRK_BODY and WRK_HEADERS (lines "Name: value") come from the
-- environment. No response() callback: it would make wrk parse every body in Lua.
-- Prints one machine-readable line:
-- RESULT requests errors p50_ms p95_ms p99_ms req_per_s status_errors read_errors
-- (errors = connect + write + timeout + status >= 400; read errors come apart from them: wrk counts one
-- whenever a server closes a connection after a response, as php -S and Apache's MaxKeepAliveRequests do)
wrk.method = os.getenv("WRK_METHOD") or "GET"
local body = os.getenv("WRK_BODY")
if body and #body > 0 then wrk.body = body end
for line in string.gmatch(os.getenv("WRK_HEADERS") or "", "[^\n]+") do
  local k, v = line:match("^([^:]+):%s*(.*)$")
  if k then wrk.headers[k] = v end
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %.3f %.3f %.3f %.1f %d %d\n", summary.requests,
    e.connect + e.write + e.timeout + e.status,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    summary.requests / (summary.duration / 1e6), e.status, e.read))
end
