#include "http/conditional.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

constexpr std::time_t kT = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT

Validators V() {
  Validators v;
  v.etag = "\"abc\"";
  v.last_modified = kT;
  return v;
}

Headers H(std::initializer_list<std::pair<const char*, const char*>> fields) {
  Headers h;
  for (auto& [k, v] : fields) h.Add(k, v);
  return h;
}

TEST(ETag, Comparison) {
  // RFC 9110 §8.8.3.2 table.
  EXPECT_FALSE(ETagStrongMatch("W/\"1\"", "W/\"1\""));
  EXPECT_TRUE(ETagWeakMatch("W/\"1\"", "W/\"1\""));
  EXPECT_FALSE(ETagStrongMatch("W/\"1\"", "W/\"2\""));
  EXPECT_FALSE(ETagWeakMatch("W/\"1\"", "W/\"2\""));
  EXPECT_FALSE(ETagStrongMatch("W/\"1\"", "\"1\""));
  EXPECT_TRUE(ETagWeakMatch("W/\"1\"", "\"1\""));
  EXPECT_TRUE(ETagStrongMatch("\"1\"", "\"1\""));
}

TEST(ETag, ListsWithCommasInsideTags) {
  Validators v = V();
  v.etag = "\"a,b\"";
  EXPECT_TRUE(ETagListMatches("\"x\", \"a,b\"", v, false));
  EXPECT_FALSE(ETagListMatches("\"a\", \"b\"", v, false));
  EXPECT_FALSE(ETagListMatches("\"a,b", v, false));  // unterminated: matches nothing
  EXPECT_TRUE(ETagListMatches("*", v, false));
  v.exists = false;
  EXPECT_FALSE(ETagListMatches("*", v, false));
}

TEST(Preconditions, IfMatch) {
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-Match", "\"abc\""}}), V()), Precondition::kProceed);
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-Match", "\"zzz\""}}), V()), Precondition::kFailed);
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-Match", "W/\"abc\""}}), V()),
            Precondition::kFailed);  // strong comparison
  Validators missing;
  missing.exists = false;
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-Match", "*"}}), missing), Precondition::kFailed);
}

TEST(Preconditions, IfNoneMatch) {
  EXPECT_EQ(EvaluatePreconditions("GET", H({{"If-None-Match", "W/\"abc\""}}), V()),
            Precondition::kNotModified);
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-None-Match", "*"}}), V()), Precondition::kFailed);
  Validators missing;
  missing.exists = false;
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-None-Match", "*"}}), missing),
            Precondition::kProceed);
}

TEST(Preconditions, Dates) {
  EXPECT_EQ(EvaluatePreconditions("GET", H({{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"}}), V()),
            Precondition::kNotModified);
  EXPECT_EQ(EvaluatePreconditions("GET", H({{"If-Modified-Since", "Sat, 05 Nov 1994 08:49:37 GMT"}}), V()),
            Precondition::kProceed);
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-Unmodified-Since", "Sat, 05 Nov 1994 08:49:37 GMT"}}), V()),
            Precondition::kFailed);
  // If-Modified-Since is ignored for other methods and with If-None-Match.
  EXPECT_EQ(EvaluatePreconditions("PUT", H({{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"}}), V()),
            Precondition::kProceed);
  EXPECT_EQ(EvaluatePreconditions("GET", H({{"If-None-Match", "\"other\""},
                                            {"If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"}}),
                                  V()),
            Precondition::kProceed);
  // A malformed date is ignored.
  EXPECT_EQ(EvaluatePreconditions("GET", H({{"If-Modified-Since", "garbage"}}), V()),
            Precondition::kProceed);
}

TEST(Preconditions, IfRange) {
  EXPECT_TRUE(IfRangeMatches(H({}), V()));
  EXPECT_TRUE(IfRangeMatches(H({{"If-Range", "\"abc\""}}), V()));
  EXPECT_FALSE(IfRangeMatches(H({{"If-Range", "W/\"abc\""}}), V()));
  EXPECT_TRUE(IfRangeMatches(H({{"If-Range", "Sun, 06 Nov 1994 08:49:37 GMT"}}), V()));
  EXPECT_FALSE(IfRangeMatches(H({{"If-Range", "Sat, 05 Nov 1994 08:49:37 GMT"}}), V()));
}

}  // namespace
}  // namespace nubo::http
