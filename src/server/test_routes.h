// Test-only endpoints, registered only with server.test_routes=true (the
// black-box tests set it). They exercise the transport without any domain
// code:
//   PUT  /_test/sink?verify=SEED     streams the body through a sink that
//        counts it and, with verify, checks it against the pattern below;
//        answers {"bytes":N,"mismatch_at":-1|offset}
//   GET  /_test/source?bytes=N&seed=S[&chunked=1]  streams N pattern bytes
//   POST /_test/echo                 buffered body (JSON limit); echoes size
//   GET  /_test/sleep?ms=N           answers after N ms (blocking pool)
//   PUT  /_test/clock?offset_ms=N    moves the server's wall clock (retention,
//        expiry); answers {"now":ms}
#pragma once

#include <cstddef>
#include <cstdint>

namespace nubo::http {
class Router;
}
namespace nubo::blob {
class FaultPlan;
}

namespace nubo::server {

// Fault plans the test routes may arm (null: not wrapped).
struct TestHooks {
  blob::FaultPlan* chunk_faults = nullptr;
  blob::FaultPlan* meta_faults = nullptr;
};

// /_test/ routes: body sinks and sources for the transport tests,
// GET /_test/routes (the route table, for the authorization matrix), and
// /_test/faults (arm/disarm/read the fault plans).
void RegisterTestRoutes(http::Router& router, TestHooks hooks = {});

// The test pattern: 8-byte little-endian words, word k = SplitMix64(seed + k),
// so every byte depends on its offset and a lost, duplicated or reordered
// piece is detected. Writes `len` bytes starting at `offset`.
void FillPattern(uint64_t seed, uint64_t offset, char* out, size_t len);

}  // namespace nubo::server
