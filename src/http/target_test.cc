#include "http/target.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

TEST(Target, DecodesSegmentsAndKeepsQueryRaw) {
  auto t = ParseTarget("/dav/My%20Files/caf%C3%A9.txt?x=1&y=a%20b");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->segments.size(), 3u);
  EXPECT_EQ(t->segments[1], "My Files");
  EXPECT_EQ(t->segments[2], "caf\xc3\xa9.txt");
  EXPECT_EQ(t->query, "x=1&y=a%20b");
  EXPECT_FALSE(t->trailing_slash);
  EXPECT_EQ(JoinPath(t->segments), "/dav/My Files/caf\xc3\xa9.txt");
}

TEST(Target, CollapsesEmptySegmentsAndNotesTrailingSlash) {
  auto t = ParseTarget("//a///b/");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->segments, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(t->trailing_slash);
  EXPECT_EQ(JoinPath({}), "/");
}

TEST(Target, AbsoluteForm) {
  auto t = ParseTarget("http://example.org:8080/a/b?q");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->segments, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t->query, "q");
}

TEST(Target, RefusesAliasingSegments) {
  EXPECT_FALSE(ParseTarget("/a/../b").ok());
  EXPECT_FALSE(ParseTarget("/a/./b").ok());
  EXPECT_FALSE(ParseTarget("/a/%2e%2E/b").ok());
  EXPECT_FALSE(ParseTarget("/a%2fb").ok());
  EXPECT_FALSE(ParseTarget("/a%00b").ok());
  EXPECT_FALSE(ParseTarget("/a b").ok());  // raw space is not a valid target
  EXPECT_FALSE(ParseTarget("").ok());
  EXPECT_TRUE(ParseTarget("/a..b/.c").ok());  // dots inside names are fine
}

TEST(Target, ClientIp) {
  std::vector<std::string> trusted = {"10.0.0.1", "10.0.0.2"};
  EXPECT_EQ(ClientIp("1.2.3.4", "5.6.7.8", trusted), "1.2.3.4");  // untrusted peer: XFF ignored
  EXPECT_EQ(ClientIp("10.0.0.1", std::nullopt, trusted), "10.0.0.1");
  EXPECT_EQ(ClientIp("10.0.0.1", "6.6.6.6, 5.6.7.8", trusted), "5.6.7.8");  // rightmost untrusted
  EXPECT_EQ(ClientIp("10.0.0.1", "6.6.6.6, 5.6.7.8, 10.0.0.2", trusted), "5.6.7.8");
  EXPECT_EQ(ClientIp("10.0.0.1", "10.0.0.2", trusted), "10.0.0.1");
  EXPECT_EQ(ClientIp("10.0.0.1", "5.6.7.8", {}), "10.0.0.1");  // no trusted proxies
}

TEST(Target, QueryParam) {
  EXPECT_EQ(QueryParam("a=1&b=x%20y&c=p+q", "b"), "x y");
  EXPECT_EQ(QueryParam("a=1&b=x%20y&c=p+q", "c"), "p q");
  EXPECT_EQ(QueryParam("a=1&a=2", "a"), "1");
  EXPECT_EQ(QueryParam("flag", "flag"), "");
  EXPECT_EQ(QueryParam("a=1", "z"), std::nullopt);
}

}  // namespace
}  // namespace nubo::http
