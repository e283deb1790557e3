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

#include <atomic>
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
  // Password checks for addresses that failed repeatedly share this budget
  // (per second, and the burst): a storm from many addresses costs a few
  // Argon2id runs, not one per guess. 0: no budget.
  double suspect_rate = 0.5;
  double suspect_burst = 2;
  // An address is a suspect after this many recent failures (for one
  // account, or address_factor times as many across accounts): one typo
  // costs nothing.
  int suspect_failures = 3;
  // Under attack — this many failed sign-ins (or checks refused because
  // the password pool was full) server-wide within about a minute — every
  // uncached password check draws from that budget, clean addresses too
  // (they get 503 + Retry-After, a capacity answer, not a lockout): a
  // storm from thousands of fresh addresses still costs a few Argon2id
  // runs a second. 0: never.
  double attack_failures = 10;
};

// What AdmitPasswordCheck decides.
enum class Admission {
  kRun,        // check the password now
  kThrottled,  // this address failed recently and the shared budget is spent: 429
  kBusy,       // the server is under attack and the budget is spent: 503
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
  // A password check was refused because the password pool was full: a
  // storm signal as strong as a failure.
  void CheckRefused(int64_t now_ms);

  // Whether a password check (Argon2id) may run now for this attempt: an
  // address with no recent failure runs at once unless the server is
  // under attack; one that failed (for this account or any), and any
  // attempt under attack, only while the shared budget lasts.
  // `retry_after_s`: when to come back if not kRun.
  Admission AdmitPasswordCheck(std::string_view ip, std::string_view username, int64_t now_ms,
                               int64_t* retry_after_s);

  // Sharing with the other processes of one store (auth/lockout_sync.h).
  // What happened to each key here since the last call, coalesced:
  // `cleared` (a success forgot its failures) first, then `failures` new
  // ones counted against `max_failures`, the last at `last_ms` (the time
  // the store locks from, so a lock ends at the same instant everywhere).
  struct Change {
    bool cleared = false;
    int failures = 0;
    int max_failures = 0;
    int64_t last_ms = 0;
  };
  std::unordered_map<std::string, Change> TakeChanges();
  // A key as the store knows it (every process's failures): the count and
  // the lock here become at least that. Not a change of its own.
  void Absorb(const std::string& key, int failures, int64_t locked_until_ms);
  const LimiterOptions& options() const { return opt_; }

 private:
  struct Slot {
    int failures = 0;
    int64_t locked_until_ms = 0;
    std::list<std::string>::iterator age;
  };
  LimiterOptions opt_;
  // Keys tracked: zero in the steady state, when a check needs no lock and
  // no key strings (every cached sign-in asks).
  std::atomic<size_t> tracked_{0};
  std::mutex mu_;
  std::unordered_map<std::string, Slot> slots_;
  double suspect_tokens_ = -1;  // < 0: not started (full)
  int64_t suspect_at_ms_ = 0;
  std::atomic<bool> recent_any_{false};  // recent_failures_ worth looking at
  double recent_failures_ = 0;  // server-wide, decaying with a one-minute time constant
  int64_t recent_at_ms_ = 0;
  double RecentFailures(int64_t now_ms);  // mu_ held
  std::list<std::string> order_;  // front: newest
  std::unordered_map<std::string, Change> changes_;  // at most max_keys
  // Finds or adds the slot of `key` (newest), forgetting the oldest ones
  // beyond max_keys. mu_ held.
  Slot& Touch(const std::string& key);
};

}  // namespace nubo::auth
