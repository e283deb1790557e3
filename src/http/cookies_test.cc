#include "http/cookies.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

TEST(Cookies, Get) {
  Headers h;
  h.Add("Cookie", "a=1; nubo_access=tok.en; b=\"q\"");
  h.Add("Cookie", "c=3");
  EXPECT_EQ(GetCookie(h, "nubo_access"), "tok.en");
  EXPECT_EQ(GetCookie(h, "b"), "q");
  EXPECT_EQ(GetCookie(h, "c"), "3");
  EXPECT_EQ(GetCookie(h, "nubo"), std::nullopt);  // no prefix matches
  EXPECT_EQ(GetCookie(Headers{}, "a"), std::nullopt);
}

TEST(Cookies, Set) {
  EXPECT_EQ(SetCookieValue("s", "v", {"/api", 60, true, true, "Strict"}),
            "s=v; Path=/api; Max-Age=60; HttpOnly; Secure; SameSite=Strict");
  EXPECT_EQ(SetCookieValue("s", "", {"/", 0, false, false, "Strict"}), "s=; Path=/; Max-Age=0; SameSite=Strict");
}

}  // namespace
}  // namespace nubo::http
