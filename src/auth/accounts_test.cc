#include "auth/accounts.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "auth/authenticator.h"
#include "auth/password_pool.h"
#include "auth/test_support.h"
#include "meta/sqlite/sqlite_store.h"
#include "util/ids.h"

namespace nubo::auth {
namespace {

PasswordParams Cheap() { return testing::CheapParams(); }

class AccountsTest : public ::testing::Test {
 protected:
  meta::UserRow Add(const std::string& name, bool admin = false) {
    auto u = CreateUser(*meta_, {name, "password-" + name, admin, std::nullopt, ""}, Cheap());
    EXPECT_TRUE(u.ok()) << u.status().ToString();
    return u.ok() ? *u : meta::UserRow{};
  }
  testing::TempMeta db_;
  meta::MetaStore* meta_ = db_.store.get();
};

TEST(Username, Rules) {
  EXPECT_TRUE(ValidateUsername("alice").ok());
  EXPECT_TRUE(ValidateUsername("a.b_c-9").ok());
  EXPECT_FALSE(ValidateUsername("a").ok());
  EXPECT_FALSE(ValidateUsername(std::string(65, 'a')).ok());
  EXPECT_FALSE(ValidateUsername("al@ce").ok());
  EXPECT_FALSE(ValidateUsername("al ice").ok());
  EXPECT_FALSE(ValidateUsername(".alice").ok());
  EXPECT_FALSE(ValidateUsername("al/ice").ok());
}

TEST_F(AccountsTest, NamesAreUniqueCaseInsensitively) {
  Add("Alice", true);
  auto dup = CreateUser(*meta_, {"alice", "another password", false, std::nullopt, ""}, Cheap());
  EXPECT_EQ(dup.status().code(), Code::kAlreadyExists);
  ASSERT_TRUE(meta_->Read([](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto u, t.GetUserByName("ALICE"));
    EXPECT_TRUE(u.has_value());
    EXPECT_EQ(u->username, "Alice");  // the original spelling is kept
    EXPECT_EQ(u->role, "admin");
    return Status::Ok();
  }).ok());
  EXPECT_EQ(CreateUser(*meta_, {"bob", "short", false, std::nullopt, ""}, Cheap()).status().code(),
            Code::kInvalidArgument);
}

TEST_F(AccountsTest, TheLastActiveAdminStays) {
  Add("root", true);
  Add("bob");
  EXPECT_EQ(SetRole(*meta_, "root", false).code(), Code::kConflict);
  EXPECT_EQ(SetActive(*meta_, "root", false).code(), Code::kConflict);
  ASSERT_TRUE(SetRole(*meta_, "bob", true).ok());
  EXPECT_TRUE(SetRole(*meta_, "root", false).ok());  // bob is an admin now
  EXPECT_EQ(SetActive(*meta_, "bob", false).code(), Code::kConflict);
  EXPECT_EQ(SetRole(*meta_, "nobody", true).code(), Code::kNotFound);
}

constexpr const char* kHere = "198.51.100.7";
constexpr const char* kStranger = "203.0.113.9";

TEST_F(AccountsTest, BasicAuthWithAccountAndAppPasswords) {
  meta::UserRow alice = Add("alice");
  Add("bob");
  FailureLimiter limiter;
  Authenticator auth(*meta_, Cheap(), limiter, {});
  auto ok = auth.VerifyBasic("alice", "password-alice", kHere);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->user_id, alice.id);
  EXPECT_EQ((*ok)->credential, Credential::kAccountPassword);
  EXPECT_TRUE((*ok)->Has(kScopeFiles | kScopeAccount));
  EXPECT_FALSE((*ok)->Has(kScopeAdmin));  // not an admin
  EXPECT_EQ(auth.VerifyBasic("alice", "password-bob", kHere).status().code(),
            Code::kUnauthenticated);
  EXPECT_EQ(auth.VerifyBasic("carol", "password-carol", kHere).status().message(),
            auth.VerifyBasic("alice", "wrong-password", kHere).status().message());  // no enumeration

  auto app = CreateAppPassword(*meta_, "alice", "phone");
  ASSERT_TRUE(app.ok());
  auto via_app = auth.VerifyBasic("alice", app->secret, kHere);
  ASSERT_TRUE(via_app.ok());
  EXPECT_EQ((*via_app)->credential, Credential::kAppPassword);
  // An app password reaches files, never the account or administration.
  EXPECT_TRUE((*via_app)->Has(kScopeFiles));
  EXPECT_FALSE((*via_app)->Has(kScopeAccount));
  EXPECT_FALSE((*via_app)->Has(kScopeAdmin));
  // Another user's name with alice's app password is refused.
  EXPECT_FALSE(auth.VerifyBasic("bob", app->secret, kHere).ok());
  // Revocation takes effect at once (in-process: InvalidateUser).
  ASSERT_TRUE(RevokeAppPassword(*meta_, "alice", app->row.id).ok());
  auth.InvalidateUser(alice.id);
  EXPECT_FALSE(auth.VerifyBasic("alice", app->secret, kHere).ok());

  // Account passwords can be turned off for Basic auth.
  Authenticator apps_only(*meta_, Cheap(), limiter, {.allow_account_passwords = false});
  EXPECT_FALSE(apps_only.VerifyBasic("alice", "password-alice", kHere).ok());
  auto app2 = CreateAppPassword(*meta_, "alice", "laptop");
  EXPECT_TRUE(apps_only.VerifyBasic("alice", app2->secret, kHere).ok());

  // Deactivation and password change.
  ASSERT_TRUE(SetPassword(*meta_, "alice", "a new password!", Cheap()).ok());
  auth.InvalidateUser(alice.id);
  EXPECT_FALSE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
  EXPECT_TRUE(auth.VerifyBasic("alice", "a new password!", kHere).ok());
  ASSERT_TRUE(SetActive(*meta_, "alice", false).ok());
  auth.InvalidateUser(alice.id);
  EXPECT_FALSE(auth.VerifyBasic("alice", "a new password!", kHere).ok());
  EXPECT_FALSE(auth.VerifyBasic("alice", app2->secret, kHere).ok());
}

// App passwords carry scopes within files + groupware; anything wider is
// refused when they are made.
TEST_F(AccountsTest, AppPasswordScopes) {
  Add("alice");
  EXPECT_EQ(CreateAppPassword(*meta_, "alice", "x", kScopeAccount).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(CreateAppPassword(*meta_, "alice", "x", kScopeFiles | kScopeAdmin).status().code(),
            Code::kInvalidArgument);
  auto files_only = CreateAppPassword(*meta_, "alice", "sync", kScopeFiles);
  ASSERT_TRUE(files_only.ok());
  FailureLimiter limiter;
  Authenticator auth(*meta_, Cheap(), limiter, {});
  auto p = auth.VerifyBasic("alice", files_only->secret, kHere);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->scopes, kScopeFiles);
}

// Regression: a cached credential was checked against nothing but its
// TTL, so a revocation or password change made by another process (or
// racing with the verification that cached it) kept working for 30 s. Now
// every hit compares the account's credentials_version, read at most
// state_ttl_ms ago.
TEST_F(AccountsTest, CachedCredentialsDieWithTheirVersion) {
  meta::UserRow alice = Add("alice");
  FailureLimiter limiter;
  Authenticator auth(*meta_, Cheap(), limiter, {.state_ttl_ms = 0});
  auto app = CreateAppPassword(*meta_, "alice", "phone");
  ASSERT_TRUE(auth.VerifyBasic("alice", app->secret, kHere).ok());
  ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
  const uint64_t hits = auth.cache_hits();
  ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
  EXPECT_EQ(auth.cache_hits(), hits + 1);
  // As another process would: change the database, never tell this one.
  ASSERT_TRUE(RevokeAppPassword(*meta_, "alice", app->row.id).ok());
  EXPECT_FALSE(auth.VerifyBasic("alice", app->secret, kHere).ok());
  ASSERT_TRUE(SetPassword(*meta_, "alice", "a new password!", Cheap()).ok());
  EXPECT_FALSE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
  // A role change reaches the cached principal too.
  ASSERT_TRUE(auth.VerifyBasic("alice", "a new password!", kHere).ok());
  Add("root", true);
  ASSERT_TRUE(SetRole(*meta_, "alice", true).ok());
  auto promoted = auth.VerifyBasic("alice", "a new password!", kHere);
  ASSERT_TRUE(promoted.ok());
  EXPECT_TRUE((*promoted)->admin);
  (void)alice;
}

// CachedBasic (the network thread's check) answers only what VerifyBasic
// would answer OK, from caches; everything else is left to VerifyBasic.
TEST_F(AccountsTest, CachedBasicOnlyVouchesForWhatTheCachesKnow) {
  const int64_t alice_id = Add("alice").id;
  FailureLimiter limiter({.max_failures = 3, .lockout_ms = 60'000});
  Authenticator auth(*meta_, Cheap(), limiter, {.state_ttl_ms = 60'000});
  EXPECT_FALSE(auth.CachedBasic("alice", "password-alice", kHere));  // never verified
  ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
  // The first hit on the blocking path caches the account's state too.
  ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
  auto hit = auth.CachedBasic("alice", "password-alice", kHere);
  ASSERT_TRUE(hit && *hit);
  EXPECT_EQ((*hit)->username, "alice");
  EXPECT_FALSE(auth.CachedBasic("alice", "password-alicE", kHere));  // another key
  EXPECT_FALSE(auth.CachedBasic("bob", "password-alice", kHere));
  // A locked-out address is not vouched for, even with the right password.
  for (int i = 0; i < 4; ++i) (void)auth.VerifyBasic("alice", "guess-" + std::to_string(i), kStranger);
  EXPECT_FALSE(auth.CachedBasic("alice", "password-alice", kStranger));
  EXPECT_TRUE(auth.CachedBasic("alice", "password-alice", kHere));
  // A password change ends the entry once this process learns of it
  // (another user's change does not).
  ASSERT_TRUE(SetPassword(*meta_, "alice", "a new password!", Cheap()).ok());
  auth.InvalidateUser(Add("carol").id);
  EXPECT_TRUE(auth.CachedBasic("alice", "password-alice", kHere));
  auth.InvalidateUser(alice_id);
  EXPECT_FALSE(auth.CachedBasic("alice", "password-alice", kHere));
  EXPECT_FALSE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
}

// Regression: eleven wrong guesses by a stranger made the account's valid
// app password answer 429, stopping every sync client. Now app passwords
// are never throttled, and the lockout is per (account, address).
TEST_F(AccountsTest, AStrangerCannotLockTheOwnerOut) {
  Add("alice");
  FailureLimiter limiter({.max_failures = 3, .lockout_ms = 60'000});
  Authenticator auth(*meta_, Cheap(), limiter, {});
  auto app = CreateAppPassword(*meta_, "alice", "phone");
  for (int i = 0; i < 11; ++i) (void)auth.VerifyBasic("alice", "guess-" + std::to_string(i), kStranger);
  BasicFailure why;
  auto throttled = auth.VerifyBasic("alice", "guess-x", kStranger, &why);
  EXPECT_EQ(throttled.status().code(), Code::kResourceExhausted);
  EXPECT_GT(why.retry_after_s, 0);
  // The owner's app password, from anywhere (even the stranger's address).
  EXPECT_TRUE(auth.VerifyBasic("alice", app->secret, kStranger).ok());
  EXPECT_TRUE(auth.VerifyBasic("alice", app->secret, kHere).ok());
  // The owner's account password from an address that did not fail.
  EXPECT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
}

// A steady client's cached account password is re-verified in the
// background before it expires, so its requests never wait for Argon2id.
TEST_F(AccountsTest, HitsNearExpiryRefreshInTheBackground) {
  Add("alice");
  PasswordPool pool({.threads = 1, .max_queue = 4, .nice = 0});
  PasswordPool::Install(&pool);
  {
    FailureLimiter limiter;
    Authenticator auth(*meta_, Cheap(), limiter, {.ttl_ms = 1500, .refresh_after_ms = 500});
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(700));
    ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());  // a hit; refreshes
    for (int i = 0; i < 200 && auth.background_refreshes() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(auth.background_refreshes(), 1u);
    // Past the first verification's lifetime: still a hit, no waiting.
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(1700));
    const uint64_t hits = auth.cache_hits();
    ASSERT_TRUE(auth.VerifyBasic("alice", "password-alice", kHere).ok());
    EXPECT_EQ(auth.cache_hits(), hits + 1);
  }
  PasswordPool::Install(nullptr);
}

TEST_F(AccountsTest, ConcurrentColdMissesRunArgonOnce) {
  const int64_t herd = Add("herd").id;
  PasswordParams slow = Cheap();
  FailureLimiter limiter;
  Authenticator auth(*meta_, slow, limiter, {});
  // Many cold rounds: a thread that missed the cache just before the
  // leader finished must not become a second leader (it once did, rarely).
  for (int round = 0; round < 40; ++round) {
    auth.InvalidateUser(herd);
    const uint64_t start = auth.argon2_runs();
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int i = 0; i < 8; ++i) {
      threads.emplace_back([&] { ok += auth.VerifyBasic("herd", "password-herd", kHere).ok(); });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(ok.load(), 8) << "round " << round;
    ASSERT_EQ(auth.argon2_runs() - start, 1u) << "round " << round;
  }
  const uint64_t before = auth.argon2_runs() - 1;
  // Warm: no more Argon2.
  EXPECT_TRUE(auth.VerifyBasic("herd", "password-herd", kHere).ok());
  EXPECT_EQ(auth.argon2_runs() - before, 1u);
  EXPECT_GE(auth.cache_hits(), 1u);
  // Failures are not cached: each wrong attempt costs a verification.
  EXPECT_FALSE(auth.VerifyBasic("herd", "wrong-password", kHere).ok());
  EXPECT_FALSE(auth.VerifyBasic("herd", "wrong-password", kHere).ok());
  EXPECT_EQ(auth.argon2_runs() - before, 3u);
}

TEST_F(AccountsTest, CacheStaysWithinItsByteBudget) {
  Add("small");
  FailureLimiter limiter;
  Authenticator auth(*meta_, Cheap(), limiter, {.max_bytes = 1});  // room for nothing
  EXPECT_TRUE(auth.VerifyBasic("small", "password-small", kHere).ok());
  const uint64_t runs = auth.argon2_runs();
  EXPECT_TRUE(auth.VerifyBasic("small", "password-small", kHere).ok());
  EXPECT_EQ(auth.argon2_runs(), runs + 1);  // evicted, so verified again
}

}  // namespace
}  // namespace nubo::auth
