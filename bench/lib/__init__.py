"""What the benchmark scenarios share (bench/README.md, "Layout"):

- proc: free ports, process trees, RSS and CPU from /proc, a quiet machine;
- httpc: the HTTP/1.1 keep-alive client every driver speaks through (raw sockets);
- api: nubo's REST API over that client (accounts, files, JSON), the admin account;
- servers: one class per server (nubo and the WebDAV peers), configured in a temp folder;
- data: seeded names and sizes, random files, a fresh ext4;
- stats: percentiles and medians;
- wrk: wrk with the two Lua scripts beside it (wrk_report.lua, wrk_dav.lua);
- listing: the REST listing orders (icu_order: ICU's collator through ctypes) and timed listings;
- ab: two nubo builds side by side (BEFORE/AFTER) for the A/B scenarios;
- suite: the peer suite's context, tables, baseline comparison and runner (S1–S8).
"""
