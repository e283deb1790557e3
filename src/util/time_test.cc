#include "util/time.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace nubo {
namespace {

constexpr std::time_t k1994 = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT

TEST(HttpDate, FormatsImfFixdate) {
  EXPECT_EQ(FormatHttpDate(k1994), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(FormatHttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
}

// The formatters compute civil time themselves; gmtime_r + strftime are
// the reference, over a spread of instants including leap days, the ends
// of years and times before 1970.
TEST(HttpDate, FormattersAgreeWithGmtime) {
  std::vector<std::time_t> ts = {0,         -1,         -86400,       -2208988800LL, 951782400,
                                 951868799, 1709164800, 4102444799LL, 253402300799LL};
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 2000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    ts.push_back(static_cast<std::time_t>(x % 20000000000ull) - 2000000000);
  }
  for (std::time_t t : ts) {
    std::tm tm{};
    ASSERT_NE(gmtime_r(&t, &tm), nullptr);
    char want[64];
    std::strftime(want, sizeof want, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    EXPECT_EQ(FormatHttpDate(t), want) << t;
    std::strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::string got;
    AppendRfc3339(got, t);
    EXPECT_EQ(got, want) << t;
  }
}

TEST(HttpDate, AppendsWithoutTouchingWhatIsThere) {
  std::string out = "x:";
  AppendHttpDate(out, k1994);
  EXPECT_EQ(out, "x:Sun, 06 Nov 1994 08:49:37 GMT");
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
