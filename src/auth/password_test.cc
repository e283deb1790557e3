#include "auth/password.h"

#include <gtest/gtest.h>

namespace nubo::auth {
namespace {

PasswordParams Cheap() {
  PasswordParams p;
  p.ops_limit = 1;
  p.mem_limit = 8 << 20;
  return p;
}

TEST(Password, HashVerifyAndSaltIsRandom) {
  auto a = HashPassword("correct horse battery", Cheap());
  auto b = HashPassword("correct horse battery", Cheap());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->rfind("$argon2id$", 0), 0u) << *a;
  EXPECT_NE(*a, *b);  // salted
  EXPECT_TRUE(VerifyPassword("correct horse battery", *a));
  EXPECT_FALSE(VerifyPassword("correct horse batterY", *a));
  EXPECT_FALSE(VerifyPassword("", *a));
  EXPECT_FALSE(VerifyPassword("correct horse battery", ""));
  EXPECT_FALSE(VerifyPassword("correct horse battery", "$argon2id$garbage"));
}

TEST(Password, RehashWhenParametersChange) {
  auto h = HashPassword("correct horse battery", Cheap());
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(NeedsRehash(*h, Cheap()));
  PasswordParams stronger = Cheap();
  stronger.ops_limit = 2;
  EXPECT_TRUE(NeedsRehash(*h, stronger));
}

TEST(Password, Policy) {
  PasswordParams p;
  EXPECT_EQ(CheckPasswordPolicy("short", p).code(), Code::kInvalidArgument);
  EXPECT_NE(CheckPasswordPolicy("short", p).message().find("at least 10"), std::string::npos);
  EXPECT_TRUE(CheckPasswordPolicy("long enough pw", p).ok());
  EXPECT_FALSE(CheckPasswordPolicy(std::string(2000, 'x'), p).ok());
  EXPECT_FALSE(CheckPasswordPolicy(std::string("abcdefghij\0k", 12), p).ok());
}

}  // namespace
}  // namespace nubo::auth
