#include "auth/password.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "auth/password_pool.h"

namespace nubo::auth {
namespace {

PasswordParams Cheap() {
  PasswordParams p;
  p.ops_limit = 1;
  p.mem_limit = 8 << 20;
  return p;
}

TEST(Password, HashVerifyAndSaltIsRandom) {
  auto a = HashPassword("correct horse battery", Cheap());
  auto b = HashPassword("correct horse battery", Cheap());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rfind("$argon2id$", 0), 0u) << *a;
  EXPECT_NE(*a, *b);  // salted
  EXPECT_TRUE(*VerifyPassword("correct horse battery", *a));
  EXPECT_FALSE(*VerifyPassword("correct horse batterY", *a));
  EXPECT_FALSE(*VerifyPassword("", *a));
  EXPECT_FALSE(*VerifyPassword("correct horse battery", ""));
  EXPECT_FALSE(*VerifyPassword("correct horse battery", "$argon2id$garbage"));
}

TEST(Password, RehashWhenParametersChange) {
  auto h = HashPassword("correct horse battery", Cheap());
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(NeedsRehash(*h, Cheap()));
  PasswordParams stronger = Cheap();
  stronger.ops_limit = 2;
  EXPECT_TRUE(NeedsRehash(*h, stronger));
}

TEST(Password, Policy) {
  PasswordParams p;
  EXPECT_EQ(CheckPasswordPolicy("short", p).code(), Code::kInvalidArgument);
  EXPECT_NE(CheckPasswordPolicy("short", p).message().find("at least 10"), std::string::npos);
  EXPECT_TRUE(CheckPasswordPolicy("long enough pw", p).ok());
  EXPECT_FALSE(CheckPasswordPolicy(std::string(2000, 'x'), p).ok());
  EXPECT_FALSE(CheckPasswordPolicy(std::string("abcdefghij\0k", 12), p).ok());
}

// The pool runs Argon2 off the caller's pool and refuses at once, never
// queueing without bound, when its queue is full.
TEST(PasswordPool, RunsOnItsThreadsAndRefusesWhenFull) {
  PasswordPool pool({.threads = 1, .max_queue = 1, .nice = 0});
  std::mutex mu;
  std::condition_variable cv;
  bool release = false, started = false;
  ASSERT_TRUE(pool.Post([&] {
    std::unique_lock lock(mu);
    started = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  }));
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return started; });  // the thread is busy
  }
  ASSERT_TRUE(pool.Post([] {}));  // fills the queue
  EXPECT_EQ(pool.Run([] {}).code(), Code::kUnavailable);
  EXPECT_EQ(pool.refused(), 1u);
  // Hashing through the installed pool reports the same.
  PasswordPool::Install(&pool);
  EXPECT_EQ(HashPassword("correct horse battery", Cheap()).status().code(), Code::kUnavailable);
  EXPECT_EQ(VerifyPassword("x", "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA").status().code(),
            Code::kUnavailable);
  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  // Once drained, work runs on the pool's thread, not the caller's.
  std::thread::id ran_on;
  for (int i = 0; i < 100 && !pool.Run([&] { ran_on = std::this_thread::get_id(); }).ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(ran_on, std::this_thread::get_id());
  auto h = HashPassword("correct horse battery", Cheap());
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(*VerifyPassword("correct horse battery", *h));
  PasswordPool::Install(nullptr);
}

}  // namespace
}  // namespace nubo::auth
