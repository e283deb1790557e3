#include "auth/sessions.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "auth/accounts.h"
#include "auth/test_support.h"
#include "meta/sqlite/sqlite_store.h"
#include "util/ids.h"

namespace nubo::auth {
namespace {

PasswordParams Cheap() { return testing::CheapParams(); }

class SessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(CreateUser(*meta_, {"root", "root password", true, std::nullopt, ""}, Cheap()).ok());
    ASSERT_TRUE(CreateUser(*meta_, {"bob", "bob password", false, std::nullopt, ""}, Cheap()).ok());
    sessions_ = std::move(Sessions::Open(*meta_, Cheap(), {.check_cache_ms = 0})).value();
  }
  testing::TempMeta db_;
  meta::MetaStore* meta_ = db_.store.get();
  std::unique_ptr<Sessions> sessions_;
};

TEST_F(SessionsTest, LoginRefreshLogout) {
  auto t = sessions_->Login("ROOT", "root password", "test", "127.0.0.1");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto c = sessions_->Authenticate(t->access_token);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE((*c)->admin);
  EXPECT_EQ((*c)->credential, Credential::kSession);
  EXPECT_TRUE((*c)->Has(kScopeAccount | kScopeAdmin | kScopeFiles));
  EXPECT_EQ(sessions_->Login("root", "wrong password", "", "").status().message(),
            sessions_->Login("nobody", "wrong password", "", "").status().message());
  auto t2 = sessions_->Refresh(t->refresh_token);
  ASSERT_TRUE(t2.ok()) << t2.status().ToString();
  EXPECT_NE(t2->refresh_token, t->refresh_token);
  EXPECT_TRUE(sessions_->Authenticate(t2->access_token).ok());
  ASSERT_TRUE(sessions_->Logout(t2->session_id).ok());
  EXPECT_FALSE(sessions_->Authenticate(t2->access_token).ok());
  EXPECT_FALSE(sessions_->Refresh(t2->refresh_token).ok());
}

TEST_F(SessionsTest, RefreshReuseRevokesTheFamily) {
  // Without a grace window, any reuse of a rotated token is theft.
  sessions_ = std::move(Sessions::Open(*meta_, Cheap(), {.check_cache_ms = 0, .refresh_grace_ms = 0}))
                  .value();
  auto t = *sessions_->Login("bob", "bob password", "", "");
  auto t2 = *sessions_->Refresh(t.refresh_token);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  auto reuse = sessions_->Refresh(t.refresh_token);  // the rotated one again
  ASSERT_FALSE(reuse.ok());
  EXPECT_NE(reuse.status().message().find("reused"), std::string::npos);
  // The legitimate successor dies with the family.
  EXPECT_FALSE(sessions_->Authenticate(t2.access_token).ok());
  EXPECT_FALSE(sessions_->Refresh(t2.refresh_token).ok());
  // Another sign-in is unaffected.
  auto other = *sessions_->Login("bob", "bob password", "", "");
  EXPECT_TRUE(sessions_->Authenticate(other.access_token).ok());
}

// Two tabs refreshing with the same token at once: both go on (within the
// grace window), neither is signed out; the same token presented after the
// window is a stolen one and ends the whole sign-in. A token revoked by
// logout never gets a grace.
TEST_F(SessionsTest, ConcurrentRefreshesWithinTheGraceWindowBothSucceed) {
  sessions_ = std::move(Sessions::Open(*meta_, Cheap(), {.check_cache_ms = 0, .refresh_grace_ms = 300}))
                  .value();
  auto t = *sessions_->Login("bob", "bob password", "", "");
  auto tab1 = sessions_->Refresh(t.refresh_token);
  auto tab2 = sessions_->Refresh(t.refresh_token);
  ASSERT_TRUE(tab1.ok()) << tab1.status().ToString();
  ASSERT_TRUE(tab2.ok()) << tab2.status().ToString();
  EXPECT_TRUE(sessions_->Authenticate(tab1->access_token).ok());
  EXPECT_TRUE(sessions_->Authenticate(tab2->access_token).ok());
  EXPECT_TRUE(sessions_->Refresh(tab1->refresh_token).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  auto late = sessions_->Refresh(t.refresh_token);
  ASSERT_FALSE(late.ok());
  EXPECT_FALSE(sessions_->Authenticate(tab2->access_token).ok());
  // Logout: the token is revoked, not rotated; no grace even at once.
  auto u = *sessions_->Login("bob", "bob password", "", "");
  ASSERT_TRUE(sessions_->Logout(u.session_id).ok());
  EXPECT_FALSE(sessions_->Refresh(u.refresh_token).ok());
}

TEST_F(SessionsTest, PasswordChangeDeactivationAndDemotionBiteOnTheNextRequest) {
  auto bob = *sessions_->Login("bob", "bob password", "", "");
  ASSERT_TRUE(SetPassword(*meta_, "bob", "bob's new password", Cheap()).ok());
  EXPECT_FALSE(sessions_->Authenticate(bob.access_token).ok());
  auto bob2 = *sessions_->Login("bob", "bob's new password", "", "");
  ASSERT_TRUE(SetActive(*meta_, "bob", false).ok());
  EXPECT_FALSE(sessions_->Authenticate(bob2.access_token).ok());
  EXPECT_FALSE(sessions_->Login("bob", "bob's new password", "", "").ok());
  // Demotion: the token still verifies, but the live role decides.
  ASSERT_TRUE(SetActive(*meta_, "bob", true).ok());
  ASSERT_TRUE(SetRole(*meta_, "bob", true).ok());
  auto admin_bob = *sessions_->Login("bob", "bob's new password", "", "");
  EXPECT_TRUE((*sessions_->Authenticate(admin_bob.access_token))->admin);
  ASSERT_TRUE(SetRole(*meta_, "bob", false).ok());
  auto after = sessions_->Authenticate(admin_bob.access_token);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE((*after)->admin);
}

TEST_F(SessionsTest, LoginUpgradesAnOutdatedHash) {
  PasswordParams stronger = Cheap();
  stronger.ops_limit = 2;
  auto upgraded = std::move(Sessions::Open(*meta_, stronger, {})).value();
  ASSERT_TRUE(upgraded->Login("bob", "bob password", "", "").ok());
  ASSERT_TRUE(meta_->Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto u, t.GetUserByName("bob"));
    EXPECT_FALSE(NeedsRehash(u->password_hash, stronger));
    EXPECT_TRUE(VerifyPasswordNow("bob password", u->password_hash));
    return Status::Ok();
  }).ok());
}

}  // namespace
}  // namespace nubo::auth
