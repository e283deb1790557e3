#include "auth/accounts.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "auth/authenticator.h"
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

TEST_F(AccountsTest, BasicAuthWithAccountAndAppPasswords) {
  meta::UserRow alice = Add("alice");
  Add("bob");
  Authenticator auth(*meta_, Cheap(), {});
  auto ok = auth.VerifyBasic("alice", "password-alice");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->user_id, alice.id);
  EXPECT_FALSE(ok->via_app_password);
  EXPECT_EQ(auth.VerifyBasic("alice", "password-bob").status().code(), Code::kUnauthenticated);
  EXPECT_EQ(auth.VerifyBasic("carol", "password-carol").status().message(),
            auth.VerifyBasic("alice", "wrong-password").status().message());  // no enumeration

  auto app = CreateAppPassword(*meta_, "alice", "phone");
  ASSERT_TRUE(app.ok());
  auto via_app = auth.VerifyBasic("alice", app->secret);
  ASSERT_TRUE(via_app.ok());
  EXPECT_TRUE(via_app->via_app_password);
  // Another user's name with alice's app password is refused.
  EXPECT_FALSE(auth.VerifyBasic("bob", app->secret).ok());
  // Revocation takes effect at once once the cache entry is dropped.
  ASSERT_TRUE(RevokeAppPassword(*meta_, "alice", app->row.id).ok());
  auth.InvalidateUser(alice.id);
  EXPECT_FALSE(auth.VerifyBasic("alice", app->secret).ok());

  // Account passwords can be turned off for Basic auth.
  Authenticator apps_only(*meta_, Cheap(), {.allow_account_passwords = false});
  EXPECT_FALSE(apps_only.VerifyBasic("alice", "password-alice").ok());
  auto app2 = CreateAppPassword(*meta_, "alice", "laptop");
  EXPECT_TRUE(apps_only.VerifyBasic("alice", app2->secret).ok());

  // Deactivation and password change.
  ASSERT_TRUE(SetPassword(*meta_, "alice", "a new password!", Cheap()).ok());
  auth.InvalidateUser(alice.id);
  EXPECT_FALSE(auth.VerifyBasic("alice", "password-alice").ok());
  EXPECT_TRUE(auth.VerifyBasic("alice", "a new password!").ok());
  ASSERT_TRUE(SetActive(*meta_, "alice", false).ok());
  auth.InvalidateUser(alice.id);
  EXPECT_FALSE(auth.VerifyBasic("alice", "a new password!").ok());
  EXPECT_FALSE(auth.VerifyBasic("alice", app2->secret).ok());
}

TEST_F(AccountsTest, ConcurrentColdMissesRunArgonOnce) {
  Add("herd");
  PasswordParams slow = Cheap();
  Authenticator auth(*meta_, slow, {});
  const uint64_t before = auth.argon2_runs();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] { ok += auth.VerifyBasic("herd", "password-herd").ok(); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_EQ(auth.argon2_runs() - before, 1u);
  // Warm: no more Argon2.
  EXPECT_TRUE(auth.VerifyBasic("herd", "password-herd").ok());
  EXPECT_EQ(auth.argon2_runs() - before, 1u);
  EXPECT_GE(auth.cache_hits(), 1u);
  // Failures are not cached: each wrong attempt costs a verification.
  EXPECT_FALSE(auth.VerifyBasic("herd", "wrong-password").ok());
  EXPECT_FALSE(auth.VerifyBasic("herd", "wrong-password").ok());
  EXPECT_EQ(auth.argon2_runs() - before, 3u);
}

TEST_F(AccountsTest, CacheStaysWithinItsByteBudget) {
  Add("small");
  Authenticator auth(*meta_, Cheap(), {.max_bytes = 1});  // room for nothing
  EXPECT_TRUE(auth.VerifyBasic("small", "password-small").ok());
  const uint64_t runs = auth.argon2_runs();
  EXPECT_TRUE(auth.VerifyBasic("small", "password-small").ok());
  EXPECT_EQ(auth.argon2_runs(), runs + 1);  // evicted, so verified again
}

}  // namespace
}  // namespace nubo::auth
