#include "http/headers.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

TEST(Headers, CaseInsensitiveAndCombined) {
  Headers h;
  h.Add("Content-Type", "text/plain");
  h.Add("If-Match", "\"a\"");
  h.Add("if-match", "\"b\"");
  EXPECT_EQ(h.Get("content-type"), "text/plain");
  EXPECT_EQ(h.Get("If-Match"), "\"a\"");
  EXPECT_EQ(h.GetCombined("IF-MATCH"), "\"a\", \"b\"");
  EXPECT_EQ(h.Get("X-Missing"), std::nullopt);
  h.Set("IF-MATCH", "*");
  EXPECT_EQ(h.GetCombined("if-match"), "*");
  h.Remove("content-TYPE");
  EXPECT_FALSE(h.Has("Content-Type"));
  EXPECT_EQ(h.size(), 1u);
}

}  // namespace
}  // namespace nubo::http
