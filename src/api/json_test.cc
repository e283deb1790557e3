#include "api/json.h"

#include <gtest/gtest.h>

namespace nubo::api {
namespace {

TEST(Json, FlatStringObjects) {
  auto r = ParseStringObject(R"({"username":"alice","password":"p\u00e9","email":null})",
                             {"username", "password", "email"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->Get("username"), "alice");
  EXPECT_EQ(r->Get("password"), "p\xc3\xa9");
  EXPECT_EQ(r->Get("email"), std::nullopt);
}

TEST(Json, RefusalsSayWhy) {
  EXPECT_NE(ParseStringObject("{", {"a"}).status().message().find("malformed JSON"), std::string::npos);
  EXPECT_NE(ParseStringObject("[1]", {"a"}).status().message().find("JSON object"), std::string::npos);
  EXPECT_NE(ParseStringObject(R"({"b":"x"})", {"a"}).status().message().find("unknown field 'b'"),
            std::string::npos);
  EXPECT_NE(ParseStringObject(R"({"a":1})", {"a"}).status().message().find("must be a string"),
            std::string::npos);
  std::string deep(100, '[');
  EXPECT_FALSE(ParseStringObject(deep, {"a"}).ok());
}

TEST(Json, TypedFields) {
  auto r = ParseObject(R"({"active":true,"quota_bytes":1000,"role":"user"})",
                       {{"active", JsonType::kBool}, {"quota_bytes", JsonType::kInt}, {"role", JsonType::kString}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->Get("active"), "true");
  EXPECT_EQ(r->Get("quota_bytes"), "1000");
  const std::vector<std::pair<std::string, JsonType>> q = {{"quota_bytes", JsonType::kInt}};
  EXPECT_FALSE(ParseObject(R"({"quota_bytes":-1})", q).ok());
  EXPECT_FALSE(ParseObject(R"({"quota_bytes":1.5})", q).ok());
  EXPECT_FALSE(ParseObject(R"({"quota_bytes":"5"})", q).ok());
  // Past INT64_MAX it would turn negative in a signed column: refused.
  auto big = ParseObject(R"({"quota_bytes":18446744073709551615})", q);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("too large"), std::string::npos);
  EXPECT_TRUE(ParseObject(R"({"quota_bytes":9223372036854775807})", q).ok());
}

TEST(Json, StringArrays) {
  auto f = ParseObject(R"({"ids":["a","b"],"op":"move"})",
                       {{"ids", JsonType::kStringArray}, {"op", JsonType::kString}});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->arrays.at("ids"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*f->Get("op"), "move");
  EXPECT_FALSE(ParseObject(R"({"ids":["a",1]})", {{"ids", JsonType::kStringArray}}).ok());
  EXPECT_FALSE(ParseObject(R"({"ids":"a"})", {{"ids", JsonType::kStringArray}}).ok());
}

}  // namespace
}  // namespace nubo::api

