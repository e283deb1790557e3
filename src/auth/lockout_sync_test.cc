#include "auth/lockout_sync.h"

#include <gtest/gtest.h>

#include "auth/test_support.h"

namespace nubo::auth {
namespace {

constexpr LimiterOptions kOpt{.max_failures = 3, .lockout_ms = 60'000, .max_keys = 100};

// Two processes on one store: each has its own limiter and sync.
struct TwoNodes {
  testing::TempMeta meta;
  FailureLimiter a{kOpt}, b{kOpt};
  LockoutSync sa{*meta.store, a}, sb{*meta.store, b};
  void RunBoth(int64_t now) {
    ASSERT_TRUE(sa.Run(now).ok());
    ASSERT_TRUE(sb.Run(now).ok());
  }
};

TEST(LockoutSync, ALockoutOnOneNodeHoldsOnTheOther) {
  TwoNodes n;
  const int64_t t = 10'000'000;
  for (int i = 0; i < 3; ++i) n.a.SignInFailed("198.51.100.1", "ann", t);
  ASSERT_TRUE(n.a.SignInRetryAfter("198.51.100.1", "ann", t).has_value());
  EXPECT_FALSE(n.b.SignInRetryAfter("198.51.100.1", "ann", t).has_value());
  n.RunBoth(t + 500);
  auto wait = n.b.SignInRetryAfter("198.51.100.1", "ann", t + 500);
  ASSERT_TRUE(wait.has_value());
  EXPECT_GT(*wait, 50);
  // The lock ends when it would have ended on the node that set it: the
  // sharing does not lengthen it (the store locks from the failure's time).
  EXPECT_FALSE(n.a.SignInRetryAfter("198.51.100.1", "ann", t + 60'000).has_value());
  EXPECT_FALSE(n.b.SignInRetryAfter("198.51.100.1", "ann", t + 60'000).has_value());
  // Another address and another account are not affected.
  EXPECT_FALSE(n.b.SignInRetryAfter("198.51.100.2", "ann", t + 500).has_value());
  EXPECT_FALSE(n.b.SignInRetryAfter("198.51.100.1", "bob", t + 500).has_value());
  // A success on the node that never failed (a cached credential) does not
  // lift the lock anywhere.
  n.b.SignInSucceeded("198.51.100.1", "ann");
  n.RunBoth(t + 1000);
  FailureLimiter c(kOpt);
  LockoutSync sc(*n.meta.store, c);
  ASSERT_TRUE(sc.Run(t + 1000).ok());  // a node (or a restart) joining later
  EXPECT_TRUE(c.SignInRetryAfter("198.51.100.1", "ann", t + 1000).has_value());
  // After the lock the rows stop locking.
  n.RunBoth(t + 61'000);
  EXPECT_FALSE(n.b.SignInRetryAfter("198.51.100.1", "ann", t + 61'000).has_value());
}

TEST(LockoutSync, FailuresSpreadOverNodesAddUp) {
  TwoNodes n;
  const int64_t t = 20'000'000;
  n.a.SignInFailed("203.0.113.5", "cy", t);
  n.a.SignInFailed("203.0.113.5", "cy", t);
  n.RunBoth(t + 500);
  // The third failure is on the other node: the address is locked there
  // at once (it knows of the first two) and on the first after a run.
  n.b.SignInFailed("203.0.113.5", "cy", t + 600);
  EXPECT_TRUE(n.b.SignInRetryAfter("203.0.113.5", "cy", t + 600).has_value());
  EXPECT_FALSE(n.a.SignInRetryAfter("203.0.113.5", "cy", t + 600).has_value());
  n.RunBoth(t + 1000);  // (a ran before b pushed)
  n.RunBoth(t + 1500);
  EXPECT_TRUE(n.a.SignInRetryAfter("203.0.113.5", "cy", t + 1500).has_value());
}

TEST(LockoutSync, ASuccessForgetsFailuresEverywhere) {
  TwoNodes n;
  const int64_t t = 30'000'000;
  n.a.SignInFailed("192.0.2.9", "dee", t);
  n.a.SignInFailed("192.0.2.9", "dee", t);
  n.RunBoth(t + 100);
  n.a.SignInSucceeded("192.0.2.9", "dee");
  n.RunBoth(t + 200);
  // One failure more on a node that joins now does not lock: the two
  // earlier ones were forgotten in the store.
  FailureLimiter c(kOpt);
  LockoutSync sc(*n.meta.store, c);
  ASSERT_TRUE(sc.Run(t + 300).ok());
  c.SignInFailed("192.0.2.9", "dee", t + 300);
  ASSERT_TRUE(sc.Run(t + 400).ok());
  EXPECT_FALSE(c.SignInRetryAfter("192.0.2.9", "dee", t + 400).has_value());
}

}  // namespace
}  // namespace nubo::auth
