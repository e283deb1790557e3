#include "util/process.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nubo {
namespace {

TEST(ProcessTest, OnlyAProcessOfThisMachineThatIsGoneIsGone) {
  EXPECT_FALSE(HostName().empty());
  EXPECT_FALSE(ProcessGone(HostName(), ::getpid()));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // reaped: the pid is free
  EXPECT_TRUE(ProcessGone(HostName(), child));
  EXPECT_FALSE(ProcessGone("another-machine", child));
  EXPECT_FALSE(ProcessGone(HostName(), 0));
}

}  // namespace
}  // namespace nubo
