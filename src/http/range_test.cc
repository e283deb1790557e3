#include "http/range.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

using Kind = RangeSpec::Kind;

TEST(Range, SingleForms) {
  auto r = ParseRange("bytes=0-99", 1000);
  ASSERT_EQ(r.kind, Kind::kPartial);
  EXPECT_EQ(r.ranges[0].first, 0u);
  EXPECT_EQ(r.ranges[0].last, 99u);

  r = ParseRange("bytes=900-", 1000);  // open end
  ASSERT_EQ(r.kind, Kind::kPartial);
  EXPECT_EQ(r.ranges[0].first, 900u);
  EXPECT_EQ(r.ranges[0].last, 999u);

  r = ParseRange("bytes=-100", 1000);  // suffix
  ASSERT_EQ(r.kind, Kind::kPartial);
  EXPECT_EQ(r.ranges[0].first, 900u);
  EXPECT_EQ(r.ranges[0].length(), 100u);

  r = ParseRange("bytes=-5000", 1000);  // suffix longer than the file: whole file
  EXPECT_EQ(r.ranges[0].first, 0u);
  EXPECT_EQ(r.ranges[0].last, 999u);

  r = ParseRange("bytes=990-2000", 1000);  // last clamped
  EXPECT_EQ(r.ranges[0].last, 999u);
}

TEST(Range, MultipleAndCaseInsensitiveUnit) {
  auto r = ParseRange("Bytes=0-0, 5-9 ,", 10);
  ASSERT_EQ(r.kind, Kind::kPartial);
  ASSERT_EQ(r.ranges.size(), 2u);
  EXPECT_EQ(r.ranges[1].first, 5u);
}

TEST(Range, Unsatisfiable) {
  EXPECT_EQ(ParseRange("bytes=1000-", 1000).kind, Kind::kUnsatisfiable);
  EXPECT_EQ(ParseRange("bytes=0-", 0).kind, Kind::kUnsatisfiable);
  EXPECT_EQ(ParseRange("bytes=-0", 10).kind, Kind::kUnsatisfiable);
}

TEST(Range, InvalidIsIgnored) {
  EXPECT_EQ(ParseRange("bytes=5-1", 10).kind, Kind::kFull);
  EXPECT_EQ(ParseRange("items=0-1", 10).kind, Kind::kFull);
  EXPECT_EQ(ParseRange("bytes=a-b", 10).kind, Kind::kFull);
  EXPECT_EQ(ParseRange("bytes=", 10).kind, Kind::kFull);
  EXPECT_EQ(ParseRange("bytes 0-1", 10).kind, Kind::kFull);
  EXPECT_EQ(ParseRange("bytes=--1", 10).kind, Kind::kFull);
}

TEST(Range, TooManyRangesAreIgnored) {
  std::string h = "bytes=";
  for (int i = 0; i < 17; ++i) h += std::to_string(i) + "-" + std::to_string(i) + ",";
  EXPECT_EQ(ParseRange(h, 100).kind, Kind::kFull);
  EXPECT_EQ(ParseRange(h, 100, 32).kind, Kind::kPartial);
}

}  // namespace
}  // namespace nubo::http
