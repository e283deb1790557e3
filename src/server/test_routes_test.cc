#include "server/test_routes.h"

#include <gtest/gtest.h>

#include <string>

namespace nubo::server {
namespace {

// The pattern must be a pure function of (seed, offset): pieces produced at
// any split point join into the same bytes, and different offsets differ.
TEST(TestPattern, PiecesJoinIntoTheWhole) {
  std::string whole(1000, '\0');
  FillPattern(7, 0, whole.data(), whole.size());
  std::string pieces(1000, '\0');
  size_t pos = 0;
  for (size_t step : {1, 3, 8, 13, 100, 875}) {
    FillPattern(7, pos, pieces.data() + pos, step);
    pos += step;
  }
  ASSERT_EQ(pos, 1000u);
  EXPECT_EQ(whole, pieces);
  std::string shifted(1000, '\0');
  FillPattern(7, 8, shifted.data(), shifted.size());
  EXPECT_NE(whole, shifted);
  std::string other_seed(1000, '\0');
  FillPattern(8, 0, other_seed.data(), other_seed.size());
  EXPECT_NE(whole, other_seed);
}

}  // namespace
}  // namespace nubo::server
