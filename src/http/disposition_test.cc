#include "http/disposition.h"

#include <gtest/gtest.h>

#include <string>

namespace nubo::http {
namespace {

// A header value must never carry a control character (CR/LF would split the response).
void ExpectHeaderSafe(const std::string& v) {
  for (unsigned char c : v) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "byte " << int(c) << " in " << v;
  }
}

TEST(Disposition, PlainAscii) {
  EXPECT_EQ(ContentDisposition(true, "report.pdf"), "attachment; filename=\"report.pdf\"");
  EXPECT_EQ(ContentDisposition(false, "a b.png"), "inline; filename=\"a b.png\"");
  EXPECT_EQ(ContentDisposition(true, ""), "attachment");
}

TEST(Disposition, QuotesBackslashSemicolon) {
  std::string v = ContentDisposition(true, "say \"hi\"\\; x.txt");
  EXPECT_EQ(v,
            "attachment; filename=\"say _hi__; x.txt\"; "
            "filename*=UTF-8''say%20%22hi%22%5C%3B%20x.txt");
  ExpectHeaderSafe(v);
  // A semicolon alone is safe inside the quoted-string: no filename* needed.
  EXPECT_EQ(ContentDisposition(true, "a;b.txt"), "attachment; filename=\"a;b.txt\"");
}

TEST(Disposition, Utf8Name) {
  // "日本 é.txt"
  std::string v = ContentDisposition(true, "\xe6\x97\xa5\xe6\x9c\xac \xc3\xa9.txt");
  EXPECT_EQ(v,
            "attachment; filename=\"__ _.txt\"; "
            "filename*=UTF-8''%E6%97%A5%E6%9C%AC%20%C3%A9.txt");
  ExpectHeaderSafe(v);
}

TEST(Disposition, ControlCharactersCannotSplitTheHeader) {
  std::string v = ContentDisposition(false, "evil\r\nSet-Cookie: a=b\x7f\t.txt");
  ExpectHeaderSafe(v);
  EXPECT_EQ(v,
            "inline; filename=\"evil__Set-Cookie: a=b__.txt\"; "
            "filename*=UTF-8''evil%0D%0ASet-Cookie%3A%20a%3Db%7F%09.txt");
  ExpectHeaderSafe(ContentDisposition(true, std::string("nul\0byte", 8)));
}

TEST(Disposition, PercentForcesExtendedForm) {
  EXPECT_EQ(ContentDisposition(true, "100%25.txt"),
            "attachment; filename=\"100%25.txt\"; filename*=UTF-8''100%2525.txt");
}

TEST(Disposition, InvalidUtf8StaysHeaderSafe) {
  std::string v = ContentDisposition(true, "\xff\xfe\x80x");
  ExpectHeaderSafe(v);
  EXPECT_EQ(v, "attachment; filename=\"__x\"; filename*=UTF-8''%FF%FE%80x");
}

}  // namespace
}  // namespace nubo::http
