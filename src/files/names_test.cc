#include "files/names.h"

#include <gtest/gtest.h>
#include <unicode/uvernum.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

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
  for (std::string_view bad :
       {std::string_view(""), std::string_view("."), std::string_view(".."),
        std::string_view("a/b"), std::string_view("a\0b", 3), std::string_view("tab\there"),
        std::string_view("del\x7f"), std::string_view("c1\xc2\x85"), std::string_view("\xff\xfe"),
        std::string_view("\xc0\xaf"),         // overlong '/'
        std::string_view("\xed\xa0\x80")}) {  // surrogate
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
  for (const char* ok :
       {" leading space", ".hidden", "back\\slash", "...", "emoji \xf0\x9f\x98\x80", "a:b"}) {
    EXPECT_TRUE(ValidateName(ok).ok()) << ok;
  }
}

TEST(Names, KeysFoldCase) {
  EXPECT_EQ(NameKey("Report.PDF"), NameKey("report.pdf"));
  EXPECT_EQ(NameKey("STRASSE"), NameKey("stra\xc3\x9f"
                                        "e"));  // full case folding: ß → ss
  EXPECT_NE(NameKey("a.txt"), NameKey("b.txt"));
}

// Sorting a list of names by SortKey gives `want`.
void ExpectOrder(std::vector<std::string> want) {
  std::vector<std::string> got = want;
  std::reverse(got.begin(), got.end());
  std::stable_sort(got.begin(), got.end(), [](const std::string& a, const std::string& b) {
    return SortKey(a) < SortKey(b);
  });
  EXPECT_EQ(got, want);
}

TEST(SortKeys, NumbersCompareByValueAtAnyLength) {
  ExpectOrder({"a2", "A3", "a10"});
  ExpectOrder({"report-2", "report-10", "report-100"});
  ExpectOrder({"v1.9.txt", "v1.10.txt", "v2.txt"});
  // Longer than any machine integer.
  ExpectOrder(
      {"x99999999999999999999999", "x100000000000000000000000", "x100000000000000000000001"});
  ExpectOrder({"1", "9", "10", "a"});  // digits before letters
}

TEST(SortKeys, LeadingZerosDoNotChangeTheValue) {
  // "007" is 7: between 6 and 8, and equal to "7" at this strength (the
  // node id breaks such ties in listings).
  ExpectOrder({"file6", "file007", "file8"});
  EXPECT_EQ(SortKey("file007"), SortKey("file7"));
}

TEST(SortKeys, UnicodeDigitsCountByValue) {
  // Arabic-Indic ٢ (2) and ١٠ (10), Devanagari ३ (3), fullwidth ４ (4).
  ExpectOrder({"p\xd9\xa2", "p\xe0\xa5\xa9", "p\xef\xbc\x94", "p\xd9\xa1\xd9\xa0"});
}

TEST(SortKeys, CaseIsIgnoredAccentsAreNot) {
  ExpectOrder({"apple", "Banana", "cherry"});
  EXPECT_EQ(SortKey("README"), SortKey("readme"));
  EXPECT_NE(SortKey("resume"), SortKey("r\xc3\xa9sum\xc3\xa9"));  // résumé
  ExpectOrder({"resume", "r\xc3\xa9sum\xc3\xa9", "resumes"});
  // NFC and NFD spellings of one name sort together.
  EXPECT_EQ(SortKey("caf\xc3\xa9"), SortKey("cafe\xcc\x81"));
}

TEST(SortKeys, KeysAreStableBytesAndThreadsAgree) {
  const std::string k = SortKey("Report 12.pdf");
  EXPECT_FALSE(k.empty());
  EXPECT_EQ(k.find('\0'), std::string::npos);  // the terminator is dropped
  std::string other;
  std::thread t([&] { other = SortKey("Report 12.pdf"); });
  t.join();
  EXPECT_EQ(k, other);
  // A 255-byte name still gets a whole key.
  EXPECT_LT(SortKey(std::string(254, 'a') + "1"), SortKey(std::string(254, 'a') + "2"));
  EXPECT_FALSE(CollationVersion().empty());
}

TEST(SortKeys, IcuVersionIsTheLinkedLibrarys) {
  // FillSortKeys trusts a stored collator version while this is unchanged;
  // it must name the library actually loaded (the data ships with it).
  EXPECT_EQ(IcuVersion(), U_ICU_VERSION);
}

}  // namespace
}  // namespace nubo::files
