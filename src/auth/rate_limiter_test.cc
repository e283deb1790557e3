#include "auth/rate_limiter.h"

#include <gtest/gtest.h>

namespace nubo::auth {
namespace {

TEST(FailureLimiter, LocksAfterNFailuresAndRecovers) {
  FailureLimiter l({.max_failures = 3, .lockout_ms = 10'000, .max_keys = 100});
  int64_t t = 1'000'000;
  l.RecordFailure("user:a", t);
  l.RecordFailure("user:a", t);
  EXPECT_EQ(l.RetryAfter("user:a", t), std::nullopt);
  l.RecordFailure("user:a", t);
  EXPECT_EQ(l.RetryAfter("user:a", t), 10);
  EXPECT_EQ(l.RetryAfter("user:a", t + 9'500), 1);
  EXPECT_EQ(l.RetryAfter("user:b", t), std::nullopt);  // other keys unaffected
  EXPECT_EQ(l.RetryAfter("user:a", t + 10'000), std::nullopt);  // window over
  // After the window the count starts again.
  l.RecordFailure("user:a", t + 10'001);
  EXPECT_EQ(l.RetryAfter("user:a", t + 10'001), std::nullopt);
}

TEST(FailureLimiter, SuccessClearsTheCount) {
  FailureLimiter l({.max_failures = 2, .lockout_ms = 1000, .max_keys = 100});
  l.RecordFailure("k", 0);
  l.RecordSuccess("k");
  l.RecordFailure("k", 0);
  EXPECT_EQ(l.RetryAfter("k", 0), std::nullopt);
}

TEST(FailureLimiter, BoundedKeys) {
  FailureLimiter l({.max_failures = 1, .lockout_ms = 1000, .max_keys = 2});
  l.RecordFailure("a", 0);
  l.RecordFailure("b", 0);
  l.RecordFailure("c", 0);  // forgets "a"
  EXPECT_EQ(l.RetryAfter("a", 0), std::nullopt);
  EXPECT_TRUE(l.RetryAfter("c", 0).has_value());
}

// A stranger's failures never lock the account for an address that did not
// fail; the stranger's address is locked for that account, and for every
// account after address_factor times as many failures.
TEST(FailureLimiter, SignInsCountPerAccountAndAddressNeverPerAccountAlone) {
  FailureLimiter l({.max_failures = 3, .lockout_ms = 60'000, .max_keys = 100, .address_factor = 2});
  for (int i = 0; i < 3; ++i) l.SignInFailed("203.0.113.9", "alice", 0);
  EXPECT_TRUE(l.SignInRetryAfter("203.0.113.9", "alice", 0).has_value());
  EXPECT_EQ(l.SignInRetryAfter("198.51.100.7", "alice", 0), std::nullopt);  // the owner's address
  EXPECT_EQ(l.SignInRetryAfter("203.0.113.9", "bob", 0), std::nullopt);     // 3 < 3 * 2
  for (int i = 0; i < 3; ++i) l.SignInFailed("203.0.113.9", "carol", 0);
  EXPECT_TRUE(l.SignInRetryAfter("203.0.113.9", "bob", 0).has_value());  // the address: 6 failures
  EXPECT_EQ(l.SignInRetryAfter("198.51.100.7", "bob", 0), std::nullopt);
  // A success from an address clears that pair only.
  l.SignInFailed("198.51.100.7", "alice", 0);
  l.SignInSucceeded("198.51.100.7", "alice");
  l.SignInFailed("198.51.100.7", "alice", 0);
  l.SignInFailed("198.51.100.7", "alice", 0);
  EXPECT_EQ(l.SignInRetryAfter("198.51.100.7", "alice", 0), std::nullopt);
}

// Addresses that failed share a small budget of password checks; a clean
// address is never held back by them.
TEST(FailureLimiter, SuspectAddressesShareABudgetOfPasswordChecks) {
  FailureLimiter l({.max_failures = 100, .lockout_ms = 60'000, .max_keys = 1000, .address_factor = 5,
                    .suspect_rate = 1, .suspect_burst = 2, .suspect_failures = 2,
                    .attack_failures = 0});
  using A = Admission;
  int64_t wait = 0;
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.1", "alice", 0, &wait), A::kRun);  // nothing failed yet
  l.SignInFailed("203.0.113.1", "alice", 0);
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.1", "alice", 0, &wait), A::kRun);  // one typo: no suspect
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.1", "alice", 0, &wait), A::kRun);
  for (int i = 0; i < 5; ++i) {
    for (int k = 0; k < 2; ++k) l.SignInFailed("203.0.113." + std::to_string(i), "alice", 0);
  }
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.2", "bob", 0, &wait), A::kRun);  // not a suspect for bob
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.1", "alice", 0, &wait), A::kRun);  // the burst: 2
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.3", "alice", 0, &wait), A::kRun);
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.4", "alice", 0, &wait), A::kThrottled);  // burst spent
  EXPECT_GE(wait, 1);
  EXPECT_EQ(l.AdmitPasswordCheck("198.51.100.7", "alice", 0, &wait), A::kRun);  // the owner's address
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.3", "alice", 1000, &wait), A::kRun);  // refilled one
  EXPECT_EQ(l.AdmitPasswordCheck("203.0.113.4", "alice", 1000, &wait), A::kThrottled);
}

// Under attack (many failures server-wide within a minute) clean addresses
// draw from the budget too, and are told the server is busy, not locked.
TEST(FailureLimiter, UnderAttackEveryUncachedCheckSharesTheBudget) {
  FailureLimiter l({.max_failures = 100, .lockout_ms = 60'000, .max_keys = 1000, .address_factor = 5,
                    .suspect_rate = 1, .suspect_burst = 1, .suspect_failures = 3,
                    .attack_failures = 10});
  using A = Admission;
  int64_t wait = 0;
  for (int i = 0; i < 9; ++i) l.SignInFailed("203.0.113." + std::to_string(i), "x", 0);
  EXPECT_EQ(l.AdmitPasswordCheck("198.51.100.7", "alice", 0, &wait), A::kRun);  // not yet an attack
  l.SignInFailed("203.0.113.9", "x", 0);
  EXPECT_EQ(l.AdmitPasswordCheck("198.51.100.7", "alice", 0, &wait), A::kRun);  // the one token
  EXPECT_EQ(l.AdmitPasswordCheck("198.51.100.8", "bob", 0, &wait), A::kBusy);
  // A minute or two later the attack has decayed: clean addresses run at once.
  EXPECT_EQ(l.AdmitPasswordCheck("198.51.100.8", "bob", 180'000, &wait), A::kRun);
  EXPECT_EQ(l.AdmitPasswordCheck("198.51.100.9", "carol", 180'000, &wait), A::kRun);
}

}  // namespace
}  // namespace nubo::auth
