-- Prints one machine-readable line after a wrk run:
-- RESULT requests errors p50_ms p95_ms p99_ms req_per_s non2xx
local non2xx = 0
response = function(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %.3f %.3f %.3f %.1f\n", summary.requests,
    e.connect + e.read + e.write + e.timeout + e.status,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    summary.requests / (summary.duration / 1e6)))
end
