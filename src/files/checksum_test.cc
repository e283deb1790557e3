#include "files/checksum.h"

#include <gtest/gtest.h>

#include "util/blake3_hash.h"

namespace nubo::files {
namespace {

// SHA-1 and MD5 of "abc" (FIPS 180 and RFC 1321 test vectors).
constexpr char kSha1Abc[] = "a9993e364706816aba3e25717850c26c9cd0d89d";
constexpr char kMd5Abc[] = "900150983cd24fb0d6963f7d28e17f72";

Blake3Digest HashOf(std::string_view s) {
  Blake3 h;
  h.Update(s);
  return h.Final();
}

TEST(Checksum, VerifiedEntryIsWhatClientsReadBack) {
  auto c = Checksum::Parse(std::string("SHA1:") + kSha1Abc);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->Entry(), "");  // nothing before it was verified
  (*c)->Update("abc", 3);
  ASSERT_TRUE((*c)->Verify(HashOf("abc")).ok());
  EXPECT_EQ((*c)->Entry(), std::string("SHA1:") + kSha1Abc);
}

TEST(Checksum, MismatchIsRefusedAndNotKept) {
  auto c = Checksum::Parse(std::string("md5:") + kMd5Abc);
  ASSERT_TRUE(c.ok());
  (*c)->Update("abd", 3);
  Status st = (*c)->Verify(HashOf("abd"));
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ((*c)->Entry(), "");
}

TEST(Checksum, Blake3IsNotKept) {
  const std::string hex = DigestHex(HashOf("abc"));
  auto c = Checksum::Parse("blake3:" + hex);
  ASSERT_TRUE(c.ok());
  (*c)->Update("abc", 3);
  ASSERT_TRUE((*c)->Verify(HashOf("abc")).ok());
  EXPECT_EQ((*c)->Entry(), "");
}

TEST(Checksum, MergeKeepsOneEntryPerAlgorithm) {
  EXPECT_EQ(Checksum::Merge("", "SHA1:aa"), "SHA1:aa");
  EXPECT_EQ(Checksum::Merge("SHA1:aa", ""), "SHA1:aa");
  EXPECT_EQ(Checksum::Merge("SHA1:aa", "MD5:bb"), "MD5:bb SHA1:aa");
  EXPECT_EQ(Checksum::Merge("MD5:bb SHA1:aa", "SHA1:cc"), "SHA1:cc MD5:bb");
  // "SHA1:" is not a prefix of "SHA256:" entries: both stay.
  EXPECT_EQ(Checksum::Merge("SHA256:dd", "SHA1:cc"), "SHA1:cc SHA256:dd");
  EXPECT_EQ(Checksum::Merge("SHA1:aa  MD5:bb", "MD5:ee"), "MD5:ee SHA1:aa");
}

}  // namespace
}  // namespace nubo::files
