// Micro-benchmarks of the Basic-auth verifier (bench/README.md, scenario auth):
//   warm hit: the per-request cache work once a credential is verified;
//   herd: 8 concurrent cold requests with the same password, counting Argon2 runs.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "auth/accounts.h"
#include "auth/authenticator.h"
#include "meta/sqlite/sqlite_store.h"
#include "util/ids.h"

namespace {

namespace fs = std::filesystem;
using namespace nubo;

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("nubo-authbench-" + RandomHex(6));
  std::unique_ptr<meta::MetaStore> meta;
  auth::PasswordParams params;  // the shipped defaults
  Fixture() {
    fs::create_directories(dir);
    meta = std::move(meta::OpenSqlite((dir / "m.db").string())).value();
    auto u = auth::CreateUser(*meta, {"bench", "bench password 1", false, std::nullopt, ""}, params);
    if (!u.ok()) std::abort();
  }
  // Wrong passwords are timed here, not throttled.
  auth::FailureLimiter limiter{{.max_failures = 1 << 30}};
  ~Fixture() {
    meta.reset();
    fs::remove_all(dir);
  }
};

void BM_WarmHit(benchmark::State& state) {
  static Fixture f;
  static auth::Authenticator a(*f.meta, f.params, f.limiter, {});
  if (!a.VerifyBasic("bench", "bench password 1", "127.0.0.1").ok()) std::abort();
  for (auto _ : state) {
    auto r = a.VerifyBasic("bench", "bench password 1", "127.0.0.1");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_WarmHit);

void BM_Argon2Verify(benchmark::State& state) {
  static Fixture f;
  auth::Authenticator a(*f.meta, f.params, f.limiter, {.max_bytes = 1});  // nothing cached
  for (auto _ : state) {
    auto r = a.VerifyBasic("bench", "bench password 1", "127.0.0.1");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Argon2Verify)->Unit(benchmark::kMillisecond)->Iterations(5);

// A wrong password for a real account and any password for an unknown one
// must cost the same (no user enumeration by timing).
void BM_WrongPassword(benchmark::State& state) {
  static Fixture f;
  auth::Authenticator a(*f.meta, f.params, f.limiter, {});
  for (auto _ : state) {
    auto r = a.VerifyBasic("bench", "not the password", "127.0.0.1");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_WrongPassword)->Unit(benchmark::kMillisecond)->Iterations(8);

void BM_UnknownUser(benchmark::State& state) {
  static Fixture f;
  auth::Authenticator a(*f.meta, f.params, f.limiter, {});
  (void)a.VerifyBasic("warmup-unknown", "x", "127.0.0.1");  // the equalizer hash is made on first need
  for (auto _ : state) {
    auto r = a.VerifyBasic("nobody-here", "not the password", "127.0.0.1");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_UnknownUser)->Unit(benchmark::kMillisecond)->Iterations(8);

// Not a timing loop: one herd, reported as counters.
void BM_Herd8(benchmark::State& state) {
  static Fixture f;
  for (auto _ : state) {
    auth::Authenticator a(*f.meta, f.params, f.limiter, {});
    std::vector<std::thread> ts;
    std::atomic<int> ok{0};
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 8; ++i) ts.emplace_back([&] { ok += a.VerifyBasic("bench", "bench password 1", "127.0.0.1").ok(); });
    for (auto& t : ts) t.join();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    state.counters["argon2_runs"] = static_cast<double>(a.argon2_runs());
    state.counters["ok"] = ok.load();
    state.counters["wall_ms"] = ms;
  }
}
BENCHMARK(BM_Herd8)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
