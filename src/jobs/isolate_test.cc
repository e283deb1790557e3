#include "jobs/isolate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>

#include "jobs/raised_file_limit_for_test.h"

namespace nubo::jobs {
namespace {

int64_t Elapsed(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               t0)
      .count();
}

TEST(RunIsolated, ReportsTheExitStatusAndStderr) {
  auto r = RunIsolated({"/bin/sh", "-c", "echo broken input >&2; exit 3"}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->stderr_tail, "broken input\n");
}

TEST(RunIsolated, LooksUpBareNamesInPath) {
  auto r = RunIsolated({"true"}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_FALSE(RunIsolated({"/nonexistent/helper"}, {}).ok());
}

TEST(RunIsolated, KillsTheWholeGroupAtTheDeadline) {
  // The child leaves a grandchild holding stderr: the deadline still ends
  // both, promptly.
  IsolateLimits l;
  l.wall_ms = 300;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunIsolated({"/bin/sh", "-c", "sleep 30 & sleep 30"}, l);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(Elapsed(t0), 5000);
}

TEST(RunIsolated, CpuTimeIsBounded) {
  IsolateLimits l;
  l.cpu_seconds = 1;
  l.wall_ms = 20'000;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunIsolated({"/bin/sh", "-c", "while :; do :; done"}, l);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->timed_out);
  EXPECT_TRUE(r->signal == SIGXCPU || r->signal == SIGKILL) << r->signal;
  EXPECT_LT(Elapsed(t0), 10'000);
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(RunIsolated, AddressSpaceIsBounded) {
  IsolateLimits l;
  l.address_space_bytes = 256ULL << 20;
  auto r = RunIsolated({"/usr/bin/python3", "-c", "x = bytearray(1 << 30)"}, l);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->exit_code, 0);  // MemoryError, not a machine out of memory
  EXPECT_NE(r->stderr_tail.find("MemoryError"), std::string::npos) << r->stderr_tail;
}
#endif

TEST(RunIsolated, InheritsNoDescriptors) {
  // fd 3 and above are closed in the child (the server's sockets and
  // database stay the server's).
  auto r = RunIsolated({"/bin/sh", "-c", "ls /proc/self/fd | wc -l >&2"}, {});
  ASSERT_TRUE(r.ok());
  // 0, 1, 2 and the descriptor ls itself opens on /proc/self/fd.
  EXPECT_EQ(r->stderr_tail, "4\n");
}

TEST(RunIsolated, GetsTheUsualOpenFileLimitBack) {
  // The server raises its soft limit on open files to the hard one for its
  // connections; a helper must not inherit that (programs that select() or
  // walk every possible descriptor).
  RaisedFileLimitForTest raised;
  ASSERT_TRUE(raised.ok());
  auto r = RunIsolated({"/bin/sh", "-c", "ulimit -Sn >&2"}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stderr_tail, raised.HelperSees() + "\n");
}

}  // namespace
}  // namespace nubo::jobs
