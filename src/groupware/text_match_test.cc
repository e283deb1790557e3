#include "groupware/text_match.h"

#include <gtest/gtest.h>

#include <string>

namespace nubo::groupware {
namespace {

TextMatch Make(std::string text, Collation c, MatchType m, bool negate = false) {
  TextMatch t;
  t.text = std::move(text);
  t.collation = c;
  t.match = m;
  t.negate = negate;
  return t;
}

TEST(TextMatchTest, ParsesCollations) {
  EXPECT_EQ(ParseCollation("i;octet"), Collation::kOctet);
  EXPECT_EQ(ParseCollation("i;ascii-casemap"), Collation::kAsciiCasemap);
  EXPECT_EQ(ParseCollation("i;unicode-casemap"), Collation::kUnicodeCasemap);
  EXPECT_FALSE(ParseCollation("i;basic").has_value());
  EXPECT_FALSE(ParseCollation("").has_value());
}

TEST(TextMatchTest, ParsesMatchTypes) {
  EXPECT_EQ(ParseMatchType("equals"), MatchType::kEquals);
  EXPECT_EQ(ParseMatchType("contains"), MatchType::kContains);
  EXPECT_EQ(ParseMatchType("starts-with"), MatchType::kStartsWith);
  EXPECT_EQ(ParseMatchType("ends-with"), MatchType::kEndsWith);
  EXPECT_FALSE(ParseMatchType("regex").has_value());
}

TEST(TextMatchTest, OctetIsCaseSensitive) {
  EXPECT_TRUE(TextMatches("Hello", Make("ell", Collation::kOctet, MatchType::kContains)));
  EXPECT_FALSE(TextMatches("Hello", Make("ELL", Collation::kOctet, MatchType::kContains)));
  EXPECT_FALSE(TextMatches("Hello", Make("hello", Collation::kOctet, MatchType::kEquals)));
}

TEST(TextMatchTest, AsciiCasemapFoldsOnlyAscii) {
  EXPECT_TRUE(TextMatches("Hello", Make("hELLO", Collation::kAsciiCasemap, MatchType::kEquals)));
  EXPECT_TRUE(TextMatches("Müller", Make("MüL", Collation::kAsciiCasemap, MatchType::kContains)));
  // Ü is not A-Z, so it does not fold to ü.
  EXPECT_FALSE(TextMatches("Müller", Make("MÜL", Collation::kAsciiCasemap, MatchType::kContains)));
}

TEST(TextMatchTest, UnicodeCasemapFoldsUmlauts) {
  EXPECT_TRUE(TextMatches("Müller", Make("MÜL", Collation::kUnicodeCasemap, MatchType::kContains)));
  EXPECT_TRUE(
      TextMatches("MÜLLER", Make("müller", Collation::kUnicodeCasemap, MatchType::kEquals)));
}

TEST(TextMatchTest, UnicodeCasemapUsesFullFolding) {
  EXPECT_TRUE(
      TextMatches("straße", Make("STRASSE", Collation::kUnicodeCasemap, MatchType::kEquals)));
  EXPECT_FALSE(
      TextMatches("straße", Make("STRASSE", Collation::kAsciiCasemap, MatchType::kEquals)));
}

TEST(TextMatchTest, UnicodeCasemapNormalizes) {
  // Precomposed U+00E9 against e + U+0301 (NFKD makes them equal), and the
  // compatibility ligature U+FB01 "ﬁ" against "fi".
  EXPECT_TRUE(TextMatches("Caf\xC3\xA9",
                          Make("CAFE\xCC\x81", Collation::kUnicodeCasemap, MatchType::kEquals)));
  EXPECT_TRUE(
      TextMatches("\xEF\xAC\x81le", Make("FILE", Collation::kUnicodeCasemap, MatchType::kEquals)));
  EXPECT_FALSE(
      TextMatches("Caf\xC3\xA9", Make("CAFE\xCC\x81", Collation::kOctet, MatchType::kEquals)));
}

TEST(TextMatchTest, MatchTypes) {
  auto c = Collation::kAsciiCasemap;
  EXPECT_TRUE(TextMatches("alice@example.com", Make("ALICE", c, MatchType::kStartsWith)));
  EXPECT_FALSE(TextMatches("alice@example.com", Make("example", c, MatchType::kStartsWith)));
  EXPECT_TRUE(TextMatches("alice@example.com", Make(".COM", c, MatchType::kEndsWith)));
  EXPECT_FALSE(TextMatches("alice@example.com", Make("alice", c, MatchType::kEndsWith)));
  EXPECT_TRUE(TextMatches("alice@example.com", Make("@Example.", c, MatchType::kContains)));
  EXPECT_FALSE(TextMatches("alice@example.com", Make("alice", c, MatchType::kEquals)));
  EXPECT_TRUE(TextMatches("", Make("", c, MatchType::kEquals)));
  EXPECT_TRUE(TextMatches("abc", Make("", c, MatchType::kContains)));
  EXPECT_FALSE(TextMatches("ab", Make("abc", c, MatchType::kStartsWith)));
  EXPECT_TRUE(TextMatches("Jöhn", Make("HN", Collation::kUnicodeCasemap, MatchType::kEndsWith)));
  EXPECT_TRUE(TextMatches("Jöhn", Make("JÖ", Collation::kUnicodeCasemap, MatchType::kStartsWith)));
}

TEST(TextMatchTest, NegateInverts) {
  for (auto c : {Collation::kOctet, Collation::kAsciiCasemap, Collation::kUnicodeCasemap}) {
    EXPECT_FALSE(TextMatches("Hello", Make("ell", c, MatchType::kContains, true)));
    EXPECT_TRUE(TextMatches("Hello", Make("xyz", c, MatchType::kContains, true)));
  }
}

TEST(TextMatchTest, InvalidUtf8DoesNotCrash) {
  std::string bad = "a\xC3\x28\xFF\xFE\xED\xA0\x80z";
  for (auto c : {Collation::kOctet, Collation::kAsciiCasemap, Collation::kUnicodeCasemap}) {
    EXPECT_TRUE(TextMatches(bad, Make("a", c, MatchType::kStartsWith)));
    EXPECT_TRUE(TextMatches(bad, Make("z", c, MatchType::kEndsWith)));
    (void)TextMatches("abc", Make(bad, c, MatchType::kContains));
  }
}

}  // namespace
}  // namespace nubo::groupware
