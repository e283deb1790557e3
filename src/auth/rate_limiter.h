// Brute-force protection without external services: counts consecutive
// authentication failures per key (an IP, an account) and locks the key
// for `lockout_ms` after `max_failures` of them. A success clears the
// account's count. Bounded: at most `max_keys` keys are tracked (the oldest
// are forgotten first). Thread-safe.
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
};

class FailureLimiter {
 public:
  explicit FailureLimiter(LimiterOptions o = {}) : opt_(o) {}

  // Seconds until `key` may try again, or nullopt when it may now.
  std::optional<int64_t> RetryAfter(const std::string& key, int64_t now_ms);
  void RecordFailure(const std::string& key, int64_t now_ms);
  void RecordSuccess(const std::string& key);

  // A sign-in attempt counts against both its client IP and its account
  // name; these apply the three calls above to both keys.
  std::optional<int64_t> SignInRetryAfter(std::string_view ip, std::string_view username, int64_t now_ms);
  void SignInFailed(std::string_view ip, std::string_view username, int64_t now_ms);
  void SignInSucceeded(std::string_view username);

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
