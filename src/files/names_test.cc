#include "files/names.h"

#include <gtest/gtest.h>

namespace nubo::files {
namespace {

TEST(Names, KeptAsSentButOneKeyForTwoSpellings) {
  // "é" precomposed (NFC, Linux) and e + combining acute (NFD, macOS): the
  // name comes back byte for byte, and both spellings find one file.
  auto nfc = ValidateName("caf\xc3\xa9.txt");
  auto nfd = ValidateName("cafe\xcc\x81.txt");
  ASSERT_TRUE(nfc.ok() && nfd.ok());
  EXPECT_EQ(*nfc, "caf\xc3\xa9.txt");
  EXPECT_EQ(*nfd, "cafe\xcc\x81.txt");
  EXPECT_EQ(NameKey(*nfc), NameKey(*nfd));
  // U+2126 OHM SIGN: NFC rewrites it to U+03A9; the name must not change.
  auto ohm = ValidateName("\xe2\x84\xa6 ohm.txt");
  ASSERT_TRUE(ohm.ok());
  EXPECT_EQ(*ohm, "\xe2\x84\xa6 ohm.txt");
  EXPECT_EQ(NameKey(*ohm), NameKey("\xce\xa9 OHM.txt"));
  // Keys of names kept as NFC before are unchanged: NFC first, then fold.
  EXPECT_EQ(NameKey("Caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(Names, Refusals) {
  for (std::string_view bad : {std::string_view(""), std::string_view("."), std::string_view(".."),
                               std::string_view("a/b"), std::string_view("a\0b", 3), std::string_view("tab\there"),
                               std::string_view("del\x7f"), std::string_view("c1\xc2\x85"),
                               std::string_view("\xff\xfe"), std::string_view("\xc0\xaf"),       // overlong '/'
                               std::string_view("\xed\xa0\x80")}) {                            // surrogate
    auto r = ValidateName(bad);
    EXPECT_FALSE(r.ok()) << "accepted: " << std::string(bad);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    }
  }
  EXPECT_TRUE(ValidateName(std::string(255, 'a')).ok());
  EXPECT_FALSE(ValidateName(std::string(256, 'a')).ok());
  // 85 x "€" (3 bytes each) = 255 bytes fits; one more does not.
  std::string euros;
  for (int i = 0; i < 85; ++i) euros += "\xe2\x82\xac";
  EXPECT_TRUE(ValidateName(euros).ok());
  EXPECT_FALSE(ValidateName(euros + "\xe2\x82\xac").ok());
}

TEST(Names, AllowedOddities) {
  for (const char* ok : {" leading space", ".hidden", "back\\slash", "...", "emoji \xf0\x9f\x98\x80", "a:b"}) {
    EXPECT_TRUE(ValidateName(ok).ok()) << ok;
  }
}

TEST(Names, KeysFoldCase) {
  EXPECT_EQ(NameKey("Report.PDF"), NameKey("report.pdf"));
  EXPECT_EQ(NameKey("STRASSE"), NameKey("stra\xc3\x9f" "e"));  // full case folding: ß → ss
  EXPECT_NE(NameKey("a.txt"), NameKey("b.txt"));
}

}  // namespace
}  // namespace nubo::files
