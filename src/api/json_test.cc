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

}  // namespace
}  // namespace nubo::api
