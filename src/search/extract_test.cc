#include "search/extract.h"

#include <gtest/gtest.h>

namespace nubo::search {
namespace {

TEST(KindFor, ByTypeThenExtension) {
  EXPECT_EQ(KindFor("a.bin", "text/plain"), TextKind::kPlain);
  EXPECT_EQ(KindFor("notes.md", "application/octet-stream"), TextKind::kPlain);
  EXPECT_EQ(KindFor("page.HTM", ""), TextKind::kHtml);
  EXPECT_EQ(KindFor("x", "text/html; charset=utf-8"), TextKind::kHtml);
  EXPECT_EQ(KindFor("paper.pdf", "application/octet-stream"), TextKind::kPdf);
  EXPECT_EQ(KindFor("letter.docx", "application/zip"), TextKind::kOffice);
  EXPECT_EQ(KindFor("photo.jpg", "image/jpeg"), TextKind::kNone);
  EXPECT_EQ(KindFor("noext", ""), TextKind::kNone);
}

TEST(PlainText, RepairsInvalidUtf8AndRefusesBinary) {
  EXPECT_EQ(PlainText("caf\xC3\xA9 ok"), "caf\xC3\xA9 ok");
  EXPECT_EQ(PlainText("a\xFF"
                      "b\xC0\xAF"
                      "c"),
            "a b  c");                            // invalid byte, overlong form
  EXPECT_EQ(PlainText("\xED\xA0\x80x"), "   x");  // a surrogate is not UTF-8
  EXPECT_EQ(PlainText(std::string("ab\0cd", 5)), "");
  EXPECT_EQ(PlainText("\xEF\xBB\xBFhello"), "hello");
}

TEST(PlainText, CutsOnACharacterBoundary) {
  std::string s = "aé";  // 1 + 2 bytes
  EXPECT_EQ(PlainText(s, 2), "a");
  EXPECT_EQ(PlainText(s, 3), "aé");
}

TEST(HtmlText, DropsMarkupScriptsAndDecodesReferences) {
  std::string html =
      "<html><head><title>T</title><style>p{color:red}</style>"
      "<SCRIPT>var secret = 1;</script></head><body><p>Fish &amp; chips"
      "</p><!-- hidden --><p>caf&#233; &#x263A; &bogus; 5&lt;6</p></body></html>";
  EXPECT_EQ(HtmlText(html), "T Fish & chips café ☺ &bogus; 5<6");
}

TEST(HtmlText, UnterminatedInputEnds) {
  EXPECT_EQ(HtmlText("text <b"), "text");
  EXPECT_EQ(HtmlText("<script>never closed"), "");
  EXPECT_EQ(HtmlText("&#99999999999;x"), "&#99999999999;x");
}

}  // namespace
}  // namespace nubo::search
