// Verifies HTTP Basic credentials (app passwords, and account passwords
// unless turned off) with a bounded cache and single-flight misses.
//
// Cache: key = BLAKE3(username NUL password), so no password is kept;
// entries expire after `ttl_ms`, the whole cache stays under `max_bytes`
// (least recently used go first), and InvalidateUser drops a user's entries
// at once (password change, revocation, deactivation in this process;
// changes made by another process reach the cache within the TTL).
// Single-flight: concurrent misses for the same key run one verification
// (one Argon2) and share its result. Failures are never cached.
// Thread-safe; verification blocks (Argon2): call from the blocking pool.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/password.h"
#include "util/blake3_hash.h"
#include "meta/meta_store.h"

namespace nubo::auth {

struct Principal {
  int64_t user_id = 0;
  std::string username;
  std::string role;
  bool via_app_password = false;
  int64_t app_password_id = 0;
};

struct AuthenticatorOptions {
  bool allow_account_passwords = true;  // admins may restrict Basic auth to app passwords
  int64_t ttl_ms = 30'000;
  size_t max_bytes = 4 << 20;
};

class Authenticator {
 public:
  Authenticator(meta::MetaStore& meta, PasswordParams params, AuthenticatorOptions options);

  // Unauthenticated("invalid credentials") for every failure: unknown user,
  // wrong password, inactive account, revoked app password. An unknown user
  // costs the same Argon2 run as a wrong password, so timing tells nothing.
  Result<Principal> VerifyBasic(std::string_view username, std::string_view password);

  void InvalidateUser(int64_t user_id);

  // Argon2 verifications run so far (benchmarks and tests count them).
  uint64_t argon2_runs() const { return argon2_runs_.load(); }
  uint64_t cache_hits() const { return hits_.load(); }

 private:
  using Key = Blake3Digest;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  struct Entry {
    Principal principal;
    int64_t expires_ms;
    std::list<Key>::iterator lru;
    size_t bytes;
  };
  struct Flight {
    bool done = false;
    Result<Principal> result = Status::Unavailable("pending");
  };

  Result<Principal> Verify(std::string_view username, std::string_view password);
  void Insert(const Key& key, const Principal& p, int64_t now_ms);

  meta::MetaStore& meta_;
  PasswordParams params_;
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

  std::atomic<uint64_t> argon2_runs_{0};
  std::atomic<uint64_t> hits_{0};
};

}  // namespace nubo::auth
