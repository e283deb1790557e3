#include "server/sweep_schedule.h"

#include <gtest/gtest.h>

namespace nubo::server {
namespace {

TEST(SweepScheduleTest, AsksEveryCheckWhileAnotherProcessSweeps) {
  SweepSchedule s(/*interval_ms=*/60'000, /*check_ms=*/5'000, /*start_ms=*/1'000);
  EXPECT_FALSE(s.Due(999));
  EXPECT_TRUE(s.Due(1'000));
  s.Asked(1'000);  // the lease was another process's
  EXPECT_FALSE(s.Due(5'999));
  EXPECT_TRUE(s.Due(6'000));
}

TEST(SweepScheduleTest, ShortIntervalsAskAtTheirOwnPace) {
  SweepSchedule s(/*interval_ms=*/1'000, /*check_ms=*/5'000, /*start_ms=*/0);
  s.Asked(0);
  EXPECT_TRUE(s.Due(1'000));
}

// A sweep whose lease release failed leaves this process the lease's
// holder, and a holder may renew: the next sweep still waits a whole
// interval after the last one ended, not one check.
TEST(SweepScheduleTest, NoSweepUntilAnIntervalAfterTheLastEnded) {
  SweepSchedule s(/*interval_ms=*/60'000, /*check_ms=*/5'000, /*start_ms=*/0);
  s.Asked(0);
  s.Swept(/*ended_ms=*/12'000);  // a sweep of 12 s
  EXPECT_FALSE(s.Due(17'000));
  EXPECT_FALSE(s.Due(71'999));
  EXPECT_TRUE(s.Due(72'000));
  EXPECT_EQ(s.next_ms(), 72'000);
}

}  // namespace
}  // namespace nubo::server
