#include "files/names.h"

#include <gtest/gtest.h>

namespace nubo::files {
namespace {

TEST(Names, NfcMakesOneNameOfTwoSpellings) {
  // "é" precomposed (NFC, Linux) and e + combining acute (NFD, macOS).
  auto nfc = NormalizeName("caf\xc3\xa9.txt");
  auto nfd = NormalizeName("cafe\xcc\x81.txt");
  ASSERT_TRUE(nfc.ok() && nfd.ok());
  EXPECT_EQ(*nfc, *nfd);
  EXPECT_EQ(*nfd, "caf\xc3\xa9.txt");
}

TEST(Names, Refusals) {
  for (std::string_view bad : {std::string_view(""), std::string_view("."), std::string_view(".."),
                               std::string_view("a/b"), std::string_view("a\0b", 3), std::string_view("tab\there"),
                               std::string_view("del\x7f"), std::string_view("c1\xc2\x85"),
                               std::string_view("\xff\xfe"), std::string_view("\xc0\xaf"),       // overlong '/'
                               std::string_view("\xed\xa0\x80")}) {                            // surrogate
    auto r = NormalizeName(bad);
    EXPECT_FALSE(r.ok()) << "accepted: " << std::string(bad);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    }
  }
  EXPECT_TRUE(NormalizeName(std::string(255, 'a')).ok());
  EXPECT_FALSE(NormalizeName(std::string(256, 'a')).ok());
  // 85 x "€" (3 bytes each) = 255 bytes fits; one more does not.
  std::string euros;
  for (int i = 0; i < 85; ++i) euros += "\xe2\x82\xac";
  EXPECT_TRUE(NormalizeName(euros).ok());
  EXPECT_FALSE(NormalizeName(euros + "\xe2\x82\xac").ok());
}

TEST(Names, AllowedOddities) {
  for (const char* ok : {" leading space", ".hidden", "back\\slash", "...", "emoji \xf0\x9f\x98\x80", "a:b"}) {
    EXPECT_TRUE(NormalizeName(ok).ok()) << ok;
  }
}

TEST(Names, KeysFoldCase) {
  EXPECT_EQ(NameKey("Report.PDF"), NameKey("report.pdf"));
  EXPECT_EQ(NameKey("STRASSE"), NameKey("stra\xc3\x9f" "e"));  // full case folding: ß → ss
  EXPECT_NE(NameKey("a.txt"), NameKey("b.txt"));
}

}  // namespace
}  // namespace nubo::files
