#include "dav/request_headers.h"

#include <gtest/gtest.h>

namespace nubo::dav {
namespace {

TEST(Depth, Parses) {
  EXPECT_EQ(*ParseDepth("0", Depth::kInfinity), Depth::kZero);
  EXPECT_EQ(*ParseDepth("1", Depth::kInfinity), Depth::kOne);
  EXPECT_EQ(*ParseDepth("infinity", Depth::kZero), Depth::kInfinity);
  EXPECT_EQ(*ParseDepth("Infinity", Depth::kZero), Depth::kInfinity);
  EXPECT_EQ(*ParseDepth(" INFINITY ", Depth::kZero), Depth::kInfinity);
  EXPECT_EQ(*ParseDepth(std::nullopt, Depth::kOne), Depth::kOne);
  EXPECT_EQ(*ParseDepth(std::nullopt, Depth::kInfinity), Depth::kInfinity);
  for (std::string_view bad : {"", "2", "-1", "00", "inf", "infinite", "0,1", "1 0"}) {
    auto r = ParseDepth(bad, Depth::kZero);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  }
}

TEST(Overwrite, Parses) {
  EXPECT_TRUE(*ParseOverwrite(std::nullopt));
  EXPECT_TRUE(*ParseOverwrite("T"));
  EXPECT_FALSE(*ParseOverwrite("F"));
  EXPECT_FALSE(*ParseOverwrite(" f "));
  EXPECT_TRUE(*ParseOverwrite("t"));
  for (std::string_view bad : {"", "true", "false", "TF", "1", "0", "Y"}) {
    auto r = ParseOverwrite(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  }
}

Destination MustDest(std::string_view v, std::string_view host = "example.com") {
  auto r = ParseDestination(v, host);
  EXPECT_TRUE(r.ok()) << v << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : Destination{};
}

Code DestCode(std::string_view v, std::string_view host = "example.com") {
  auto r = ParseDestination(v, host);
  return r.status().code();
}

TEST(Destination, AbsolutePath) {
  Destination d = MustDest("/dav/a%20b/c");
  EXPECT_EQ(d.path, "/dav/a b/c");
  EXPECT_EQ(d.segments, (std::vector<std::string>{"dav", "a b", "c"}));
  EXPECT_FALSE(d.trailing_slash);
  EXPECT_TRUE(MustDest("/dav/dir/").trailing_slash);
  EXPECT_EQ(MustDest("/dav/dir/").path, "/dav/dir");
  Destination root = MustDest("/");
  EXPECT_EQ(root.path, "/");
  EXPECT_TRUE(root.segments.empty());
  EXPECT_FALSE(root.trailing_slash);
  EXPECT_EQ(MustDest("/a//b///").segments, (std::vector<std::string>{"a", "b"}));
}

TEST(Destination, AbsoluteUri) {
  Destination d = MustDest("http://example.com/dav/x%2Ay");
  EXPECT_EQ(d.path, "/dav/x*y");
  EXPECT_EQ(MustDest("https://EXAMPLE.com/dav/").segments, std::vector<std::string>{"dav"});
  EXPECT_EQ(MustDest("HTTP://example.com").path, "/");
  EXPECT_EQ(MustDest("http://user:pw@example.com/a").path, "/a");
  // Ports: explicit must match, default ports are implied.
  EXPECT_EQ(MustDest("http://example.com:8086/a", "example.com:8086").path, "/a");
  EXPECT_EQ(MustDest("http://example.com:80/a", "example.com").path, "/a");
  EXPECT_EQ(MustDest("http://example.com/a", "example.com:80").path, "/a");
  EXPECT_EQ(MustDest("https://example.com:443/a", "example.com").path, "/a");
  EXPECT_EQ(MustDest("http://example.com:/a", "example.com").path, "/a");
  EXPECT_EQ(MustDest("http://[::1]:8086/a", "[::1]:8086").path, "/a");
  EXPECT_EQ(MustDest("http://[::1]/a", "[::1]:80").path, "/a");
}

TEST(Destination, ForeignServerIsUnsupported) {
  EXPECT_EQ(DestCode("http://other.com/a"), Code::kUnsupported);
  EXPECT_EQ(DestCode("http://example.com:8080/a"), Code::kUnsupported);
  EXPECT_EQ(DestCode("http://example.com/a", "example.com:8080"), Code::kUnsupported);
  EXPECT_EQ(DestCode("https://example.com:80/a"), Code::kUnsupported);
  EXPECT_EQ(DestCode("ftp://example.com/a"), Code::kUnsupported);
  EXPECT_EQ(DestCode("mailto:someone@example.com"), Code::kUnsupported);
  EXPECT_EQ(DestCode("http://[::2]:8086/a", "[::1]:8086"), Code::kUnsupported);
  EXPECT_EQ(DestCode("http://example.com.evil/a"), Code::kUnsupported);
  EXPECT_EQ(DestCode("http://evil@other.com/a"), Code::kUnsupported);
  EXPECT_EQ(DestCode("http://example.com@other.com/a"), Code::kUnsupported);
}

TEST(Destination, RefusesAliasingAndMalformed) {
  for (std::string_view bad : {
           "",
           "   ",
           "dav/a",            // relative
           "../a",             // relative
           "//example.com/a",  // network-path reference
           "http:/a",          // no authority
           "http:///a",        // empty host
           "/a/../b",
           "/a/./b",
           "/a/%2e%2E/b",  // decoded dot segment
           "/a/%2E",
           "/a%2Fb",  // encoded slash inside a segment
           "/a%2fb",
           "/a%00b",  // NUL
           "/a%",
           "/a%2",
           "/a%zz",
           "/a?x=1",   // query
           "/a#frag",  // fragment
           "http://example.com/a?x",
           "http://example.com?x",
           "/a\x01",  // control character
           "/a\x7f",
           "1http://example.com/a",
       }) {
    auto r = ParseDestination(bad, "example.com");
    EXPECT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
  }
}

TEST(Destination, LenientAboutUnencodedBytes) {
  EXPECT_EQ(MustDest("/dav/a b").segments[1], "a b");
  EXPECT_EQ(MustDest("/dav/caf\xC3\xA9").segments[1], "caf\xC3\xA9");
  EXPECT_EQ(MustDest("/dav/caf%C3%A9").segments[1], "caf\xC3\xA9");
  EXPECT_EQ(MustDest("/dav/100%25").segments[1], "100%");
  EXPECT_EQ(MustDest("/dav/%3F%23").segments[1], "?#");
  EXPECT_EQ(MustDest(" /dav/x ").path, "/dav/x");  // OWS around the field value
}

TEST(Timeout, Parses) {
  constexpr uint64_t kDef = 600, kMax = 86400;
  EXPECT_EQ(ParseTimeout(std::nullopt, kDef, kMax), kDef);
  EXPECT_EQ(ParseTimeout("Second-3600", kDef, kMax), 3600u);
  EXPECT_EQ(ParseTimeout("second-10", kDef, kMax), 10u);
  EXPECT_EQ(ParseTimeout("Infinite", kDef, kMax), kMax);
  EXPECT_EQ(ParseTimeout("Infinite, Second-4100000000", kDef, kMax), kMax);
  EXPECT_EQ(ParseTimeout("Second-4100000000", kDef, kMax), kMax);  // clamped
  EXPECT_EQ(ParseTimeout("Second-99999999999999999999999", kDef, kMax), kMax);
  EXPECT_EQ(ParseTimeout("Second-0", kDef, kMax), 1u);
  EXPECT_EQ(ParseTimeout("Bogus, Second-5", kDef, kMax), 5u);  // first well-formed entry
  EXPECT_EQ(ParseTimeout(" Second-7 , Infinite", kDef, kMax), 7u);
  for (std::string_view bad :
       {"", "Second-", "Second-x", "Second--1", "Seconds-5", "5", "Second-1.5", "Infinity"}) {
    EXPECT_EQ(ParseTimeout(bad, kDef, kMax), kDef) << bad;
  }
  EXPECT_EQ(ParseTimeout(std::nullopt, 0, kMax), 1u);  // default clamped too
  EXPECT_EQ(ParseTimeout(std::nullopt, 1000000, kMax), kMax);
  EXPECT_EQ(ParseTimeout("Infinite", kDef, 0), 1u);  // max below 1
}

TEST(Href, EncodeSegment) {
  EXPECT_EQ(EncodeSegment("plain-name_1.txt~"), "plain-name_1.txt~");
  EXPECT_EQ(EncodeSegment("a b"), "a%20b");
  EXPECT_EQ(EncodeSegment("100%"), "100%25");
  EXPECT_EQ(EncodeSegment("what?#"), "what%3F%23");
  EXPECT_EQ(EncodeSegment("a/b"), "a%2Fb");
  EXPECT_EQ(EncodeSegment("!$&'()*+,;=:@"), "!$&'()*+,;=:@");
  EXPECT_EQ(EncodeSegment("<>\"\\^`{|}[]"), "%3C%3E%22%5C%5E%60%7B%7C%7D%5B%5D");
  EXPECT_EQ(EncodeSegment(std::string("\0\x1f\x7f", 3)), "%00%1F%7F");
  // NFC "é" and NFD "e" + U+0301 pass through as their own bytes.
  EXPECT_EQ(EncodeSegment("caf\xC3\xA9"), "caf%C3%A9");
  EXPECT_EQ(EncodeSegment("cafe\xCC\x81"), "cafe%CC%81");
  EXPECT_EQ(EncodeSegment(""), "");
}

TEST(Href, EncodeHref) {
  EXPECT_EQ(EncodeHref({}, true), "/");
  EXPECT_EQ(EncodeHref({}, false), "/");
  EXPECT_EQ(EncodeHref({"dav", "a b", "c#1"}, false), "/dav/a%20b/c%231");
  EXPECT_EQ(EncodeHref({"dav", "dir?"}, true), "/dav/dir%3F/");
}

TEST(Href, RoundTripsThroughDestination) {
  std::vector<std::string> segs = {"dav", "a b", "100%", "q?#", "caf\xC3\xA9", "x;y=z", "[1]"};
  auto d = ParseDestination(EncodeHref(segs, true), "h");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->segments, segs);
  EXPECT_TRUE(d->trailing_slash);
}

}  // namespace
TEST(DecodeSegmentTest, InvertsEncodeSegmentAndRefusesMalformedEscapes) {
  const std::vector<std::string> names = {"plain", "Team A", "a/b%c", std::string("nul\0byte", 8),
                                          "\xc3\xa4"};
  for (const std::string& name : names) {
    auto back = DecodeSegment(EncodeSegment(name));
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(*back, name);
  }
  EXPECT_EQ(DecodeSegment("%41%62c"), "Abc");
  EXPECT_EQ(DecodeSegment("%4a"), "J");
  EXPECT_FALSE(DecodeSegment("%4").has_value());
  EXPECT_FALSE(DecodeSegment("%zz").has_value());
  EXPECT_FALSE(DecodeSegment("ab%").has_value());
}

}  // namespace nubo::dav
