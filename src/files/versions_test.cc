#include "files/versions.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace nubo::files {
namespace {

constexpr int64_t kHour = 3600'000;
constexpr int64_t kDay = 24 * kHour;

// The schedule with an injected clock: versions made every 10 minutes
// for 90 days, thinned at "now".
TEST(VersionsToThin, KeepsAllOfADayThenHourlyDailyWeekly) {
  const int64_t now = 1000 * kDay + 5 * 60'000;
  std::vector<int64_t> created;
  for (int64_t t = now - 60'000; t > now - 90 * kDay; t -= 10 * 60'000) created.push_back(t);
  auto drop = VersionsToThin(created, now);
  std::vector<bool> gone(created.size());
  for (size_t i : drop) gone[i] = true;
  std::vector<int64_t> kept;
  for (size_t i = 0; i < created.size(); ++i) {
    if (!gone[i]) kept.push_back(created[i]);
  }
  auto count = [&](int64_t from_age, int64_t to_age) {
    return std::count_if(kept.begin(), kept.end(),
                         [&](int64_t t) { return now - t >= from_age && now - t < to_age; });
  };
  EXPECT_EQ(count(0, kDay), 144);                           // every one of the last day
  EXPECT_NEAR(count(kDay, 2 * kDay), 24, 1);                // one per hour of the day before
  EXPECT_NEAR(count(2 * kDay, 30 * kDay), 28, 1);           // one per day
  EXPECT_NEAR(count(30 * kDay, 90 * kDay), 60 / 7 + 1, 1);  // one per week
  // The newest of each period is the one kept.
  for (size_t i : drop) {
    ASSERT_GT(i, 0u);
  }
  // Thinning again changes nothing.
  EXPECT_TRUE(VersionsToThin(kept, now).empty());
}

TEST(VersionsToThin, YoungVersionsAreNeverThinned) {
  const int64_t now = 50 * kDay;
  std::vector<int64_t> created = {now - 1, now - 2, now - 3, now - kDay + 1};
  EXPECT_TRUE(VersionsToThin(created, now).empty());
}

}  // namespace
}  // namespace nubo::files
