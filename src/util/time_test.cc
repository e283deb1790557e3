#include "util/time.h"

#include <gtest/gtest.h>

namespace nubo {
namespace {

constexpr std::time_t k1994 = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT

TEST(HttpDate, FormatsImfFixdate) {
  EXPECT_EQ(FormatHttpDate(k1994), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(FormatHttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
}

TEST(HttpDate, ParsesAllThreeForms) {
  // RFC 9110 §5.6.7 examples.
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), k1994);
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), k1994);
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994"), k1994);
}

TEST(HttpDate, RejectsMalformed) {
  EXPECT_EQ(ParseHttpDate(""), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Foo 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 25:49:37 GMT"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 UTC"), std::nullopt);
  EXPECT_EQ(ParseHttpDate("yesterday"), std::nullopt);
}

TEST(HttpDate, RoundTrips) {
  for (std::time_t t : {std::time_t{0}, k1994, std::time_t{1700000000}, std::time_t{4102444800}}) {
    EXPECT_EQ(ParseHttpDate(FormatHttpDate(t)), t);
  }
}

}  // namespace
}  // namespace nubo
