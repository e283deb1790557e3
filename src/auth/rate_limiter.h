// Brute-force protection without external services: counts consecutive
// authentication failures per key and locks the key for `lockout_ms` after
// `max_failures` of them. Bounded: at most `max_keys` keys are tracked (the
// oldest are forgotten first). Thread-safe.
//
// Sign-ins count per (account, client address) and per address, never per
// account alone: a stranger's wrong guesses must not lock the owner out
// (a correct credential from an address that did not fail is never
// refused). The per-address limit is `address_factor` times higher, so an
// office behind one NAT address is not locked by one person's typos, yet
// one address cannot guess across many accounts.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace nubo::auth {

struct LimiterOptions {
  int max_failures = 10;
  int64_t lockout_ms = 5 * 60 * 1000;
  size_t max_keys = 100'000;
  int address_factor = 5;
};

class FailureLimiter {
 public:
  explicit FailureLimiter(LimiterOptions o = {}) : opt_(o) {}

  // Seconds until `key` may try again, or nullopt when it may now.
  std::optional<int64_t> RetryAfter(const std::string& key, int64_t now_ms);
  // `max_failures` 0: the configured one.
  void RecordFailure(const std::string& key, int64_t now_ms, int max_failures = 0);
  void RecordSuccess(const std::string& key);

  // A sign-in attempt counts against its (account, address) pair and its
  // address; these apply the three calls above to both keys.
  std::optional<int64_t> SignInRetryAfter(std::string_view ip, std::string_view username, int64_t now_ms);
  void SignInFailed(std::string_view ip, std::string_view username, int64_t now_ms);
  void SignInSucceeded(std::string_view ip, std::string_view username);

 private:
  struct Slot {
    int failures = 0;
    int64_t locked_until_ms = 0;
    std::list<std::string>::iterator age;
  };
  LimiterOptions opt_;
  std::mutex mu_;
  std::unordered_map<std::string, Slot> slots_;
  std::list<std::string> order_;  // front: newest
};

}  // namespace nubo::auth
