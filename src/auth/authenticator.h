// Verifies HTTP Basic credentials (app passwords, and account passwords
// unless turned off) into a Principal, with a bounded credential cache,
// single-flight misses and the sign-in throttle.
//
// Order of a verification, cheapest and safest first:
//  1. The cache: key = BLAKE3(username NUL password), so no password is
//     kept. An entry is valid while the account's credentials_version is
//     the one it was verified at and the account is active; both are read
//     from a per-user state that is at most `state_ttl_ms` old and dropped
//     at once by InvalidateUser (so revocation is exact in this process
//     and reaches other processes within that bound). Entries live
//     `ttl_ms`; a hit on an entry older than `refresh_after_ms` re-verifies
//     it in the background (on the password pool), so a steady client
//     never waits for Argon2id.
//  2. App passwords: one indexed lookup of the secret's hash. High-entropy
//     secrets cannot be guessed, so they are never throttled: a stranger's
//     wrong guesses cannot lock out the account's sync clients.
//  3. The throttle (FailureLimiter): per (account, client address) and per
//     address. A correct credential from an address that did not fail is
//     never refused. A locked address is refused before the cache too for
//     account passwords (else the cache would answer guesses at full speed).
//  4. Argon2id on the password pool (auth/password_pool.h): Unavailable
//     (503) when its queue is full.
// Failures are never cached. Thread-safe; verification blocks: call from
// the blocking pool.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/password.h"
#include "auth/principal.h"
#include "auth/rate_limiter.h"
#include "meta/meta_store.h"
#include "util/blake3_hash.h"

namespace nubo::auth {

struct AuthenticatorOptions {
  bool allow_account_passwords = true;  // admins may restrict Basic auth to app passwords
  int64_t ttl_ms = 15 * 60'000;
  int64_t refresh_after_ms = 10 * 60'000;
  int64_t state_ttl_ms = 2'000;  // how stale an account's version and state may be
  size_t max_bytes = 4 << 20;
};

// Why a verification failed beyond "wrong": the caller answers 429 or 503
// with Retry-After.
struct BasicFailure {
  int64_t retry_after_s = 0;  // > 0: throttled (429) or busy (503)
};

class Authenticator {
 public:
  Authenticator(meta::MetaStore& meta, PasswordParams params, FailureLimiter& limiter,
                AuthenticatorOptions options);
  ~Authenticator();

  // The principal for Basic credentials from `client_ip`.
  // Unauthenticated("invalid credentials") for every wrong credential
  // (unknown user, wrong password, inactive account, revoked app password;
  // an unknown user costs the same Argon2 run as a wrong password, so
  // timing tells nothing); ResourceExhausted when the address is
  // throttled and Unavailable when the password pool is full, both with
  // `failure->retry_after_s` set.
  Result<PrincipalPtr> VerifyBasic(std::string_view username, std::string_view password,
                                   std::string_view client_ip, BasicFailure* failure = nullptr);

  // VerifyBasic's answer when the credential cache and the account state
  // cache give it without waiting (no password hash, no database read):
  // for a caller that must not block (a network thread). nullopt: call
  // VerifyBasic. Only a success is answered here; a refusal, a lockout or
  // anything unusual is left to VerifyBasic, which decides it as always.
  std::optional<PrincipalPtr> CachedBasic(std::string_view username, std::string_view password,
                                          std::string_view client_ip);

  // The user's credentials changed (password, app password revoked, role,
  // deactivation): cached entries and state go at once.
  void InvalidateUser(int64_t user_id);

  // Argon2 verifications run so far (benchmarks and tests count them).
  uint64_t argon2_runs() const { return argon2_runs_.load(); }
  uint64_t cache_hits() const { return hits_.load(); }
  uint64_t background_refreshes() const { return refreshes_.load(); }

 private:
  using Key = Blake3Digest;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Entry {
    int64_t user_id;
    int64_t version;           // credentials_version when verified
    int64_t app_password_id;   // 0: the account password
    uint32_t scopes;           // of the app password
    int64_t verified_ms;
    bool refreshing;
    std::list<Key>::iterator lru;
    size_t bytes;
    // Handed out again while the account's role is the one it was made
    // with (a hit then allocates nothing).
    PrincipalPtr principal;
  };
  // What a hit is checked against: the account as stored, at most
  // state_ttl_ms old.
  struct UserState {
    meta::UserRow user;
    int64_t fetched_ms;
  };
  struct Flight {
    bool done = false;
    Result<PrincipalPtr> result = Status::Unavailable("pending");
    BasicFailure failure;
  };

  Result<PrincipalPtr> Verify(std::string_view username, std::string_view password,
                              std::string_view client_ip, BasicFailure* failure,
                              Entry* verified);
  Result<UserState> State(int64_t user_id, int64_t now_ms);
  std::optional<Key> CacheKey(std::string_view username, std::string_view password) const;
  PrincipalPtr Make(const meta::UserRow& u, const Entry& e) const;
  void Insert(const Key& key, const Entry& e);
  void Refresh(const Key& key, std::string username, std::string password);

  meta::MetaStore& meta_;
  PasswordParams params_;
  FailureLimiter& limiter_;
  AuthenticatorOptions opt_;
  const std::string& DummyHash();
  std::once_flag dummy_once_;
  std::string dummy_hash_;  // verified against for unknown users (equal timing)

  std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<Key, Entry, KeyHash> cache_;
  std::list<Key> lru_;  // front: most recent
  size_t bytes_ = 0;
  std::unordered_map<Key, std::shared_ptr<Flight>, KeyHash> flights_;
  std::unordered_map<int64_t, UserState> states_;
  // Background refreshes in flight: the destructor waits for them.
  int refreshing_ = 0;
  std::condition_variable refresh_cv_;

  std::atomic<uint64_t> argon2_runs_{0};
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> refreshes_{0};
};

}  // namespace nubo::auth
