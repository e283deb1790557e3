#include "search/query.h"

#include <gtest/gtest.h>

namespace nubo::search {
namespace {

TEST(FtsQuery, QuotesEveryWordAndPrefixesTheLast) {
  EXPECT_EQ(FtsQuery("annual report"), "\"annual\" \"report\"*");
  EXPECT_EQ(FtsQuery("  one  "), "\"one\"*");
  EXPECT_EQ(FtsQuery(""), "");
  EXPECT_EQ(FtsQuery(" \t\n"), "");
  EXPECT_EQ(FtsQuery("annual report", false), "\"annual\" \"report\"");
}

TEST(FtsQuery, OperatorsAndQuotesStayText) {
  // Column filters, NEAR, boolean operators and quotes are data, never syntax.
  EXPECT_EQ(FtsQuery("body:x OR \"y"), "\"body:x\" \"OR\" \"\"\"y\"*");
  EXPECT_EQ(FtsQuery("NEAR(a b)"), "\"NEAR(a\" \"b)\"*");
}

TEST(FtsQuery, KeepsAtMostMaxTerms) {
  std::string many;
  for (int i = 0; i < 40; ++i) many += "w" + std::to_string(i) + " ";
  std::string q = FtsQuery(many);
  size_t phrases = 0;
  for (char c : q) phrases += c == '"';
  EXPECT_EQ(phrases, 2 * kMaxTerms);
}

TEST(TrigramPhrase, NeedsThreeCharacters) {
  EXPECT_EQ(TrigramPhrase("ab"), "");
  EXPECT_EQ(TrigramPhrase("äö"), "");  // four bytes, two characters
  EXPECT_EQ(TrigramPhrase("äöü"), "\"äöü\"");
  EXPECT_EQ(TrigramPhrase("a\"b"), "\"a\"\"b\"");
}

TEST(SplitSnippet, MarksMatchedRuns) {
  auto s = SplitSnippet(
      "…the \x02quick\x03 brown \x02"
      "fox\x03");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].text, "…the ");
  EXPECT_FALSE(s[0].match);
  EXPECT_EQ(s[1].text, "quick");
  EXPECT_TRUE(s[1].match);
  EXPECT_EQ(s[3].text, "fox");
  EXPECT_TRUE(s[3].match);
}

}  // namespace
}  // namespace nubo::search
