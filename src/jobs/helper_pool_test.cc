#include "jobs/helper_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "jobs/raised_file_limit_for_test.h"

namespace nubo::jobs {
namespace {

// A helper in shell that speaks the protocol: "echo WORD" answers 0 with
// the word and its process id, "fail" answers 3, "hang" never answers,
// "die" exits mid-request.
HelperPoolOptions Script(int64_t wall_ms = 2000) {
  HelperPoolOptions o;
  o.argv = {"/bin/sh", "-c",
            "while IFS='\t' read -r cmd arg; do case $cmd in "
            "echo) printf '0\\t%s %s\\n' \"$arg\" $$ ;; fail) printf '3\\tbad input\\n' ;; "
            "hang) sleep 600 ;; die) exit 9 ;; esac; done"};
  o.limits.wall_ms = wall_ms;
  o.max_processes = 2;
  o.requests_per_process = 3;
  return o;
}

std::string Pid(const IsolateResult& r) {
  return r.stderr_tail.substr(r.stderr_tail.find(' ') + 1);
}

TEST(HelperPool, ReusesAProcessForSeveralRequests) {
  HelperPool pool(Script());
  auto a = pool.Run({"echo", "one"});
  auto b = pool.Run({"echo", "two"});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->exit_code, 0);
  EXPECT_EQ(a->stderr_tail.substr(0, 3), "one");
  EXPECT_EQ(Pid(*a), Pid(*b));
  EXPECT_EQ(pool.started(), 1u);
  // The third request is the process's last; the fourth gets a new one.
  auto c = pool.Run({"echo", "three"});
  auto d = pool.Run({"echo", "four"});
  EXPECT_EQ(Pid(*c), Pid(*a));
  EXPECT_NE(Pid(*d), Pid(*a));
  EXPECT_EQ(pool.started(), 2u);
}

// The server raises its soft limit on open files for its connections
// (serve.cc); a pooled helper, like an isolated one, gets the usual 1,024
// back (programs that select() or walk every possible descriptor).
TEST(HelperPool, AHelperGetsTheUsualOpenFileLimitBack) {
  HelperPoolOptions o = Script();
  o.argv = {"/bin/sh", "-c",
            "while IFS='\t' read -r cmd arg; do printf '0\t%s\n' \"$(ulimit -Sn)\"; done"};
  RaisedFileLimitForTest raised;
  ASSERT_TRUE(raised.ok());
  HelperPool pool(o);
  auto r = pool.Run({"limit", ""});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->stderr_tail, raised.HelperSees());
}

TEST(HelperPool, AHungRequestIsKilledAtItsDeadlineAndReplaced) {
  HelperPool pool(Script(300));
  auto t0 = std::chrono::steady_clock::now();
  auto r = pool.Run({"hang", ""});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  auto next = pool.Run({"echo", "after"});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->exit_code, 0);
  EXPECT_EQ(pool.started(), 2u);
}

TEST(HelperPool, AProcessThatDiesOrFailsIsNotReused) {
  HelperPool pool(Script());
  auto died = pool.Run({"die", ""});
  ASSERT_TRUE(died.ok());
  EXPECT_FALSE(died->timed_out);
  EXPECT_EQ(died->exit_code, 9);
  auto failed = pool.Run({"fail", ""});
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->exit_code, 3);
  EXPECT_EQ(failed->stderr_tail, "bad input");
  auto ok = pool.Run({"echo", "x"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->exit_code, 0);
  EXPECT_EQ(pool.started(), 3u);  // one per failure, one for the good request
}

TEST(HelperPool, FieldsCannotBreakTheProtocol) {
  HelperPool pool(Script());
  EXPECT_FALSE(pool.Run({"echo", "two\nlines"}).ok());
  EXPECT_FALSE(pool.Run({"echo", "a\tb"}).ok());
  EXPECT_FALSE(HelperPool({.argv = {"/nonexistent/helper"}}).Run({"x"}).ok());
}

TEST(HelperPool, AtMostMaxProcessesRunAtOnce) {
  HelperPool pool(Script());
  std::vector<std::thread> ts;
  for (int i = 0; i < 6; ++i) {
    ts.emplace_back([&] { EXPECT_EQ(pool.Run({"echo", "p"})->exit_code, 0); });
  }
  for (auto& t : ts) t.join();
  EXPECT_LE(pool.started(), 4u);  // two at a time, three requests each
}

}  // namespace
}  // namespace nubo::jobs
