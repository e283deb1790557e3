#include "util/strings.h"

#include <gtest/gtest.h>

namespace nubo {
namespace {

TEST(Strings, ParseUint64) {
  EXPECT_EQ(ParseUint64("0"), 0u);
  EXPECT_EQ(ParseUint64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseUint64("18446744073709551616"), std::nullopt);
  EXPECT_EQ(ParseUint64(""), std::nullopt);
  EXPECT_EQ(ParseUint64("-1"), std::nullopt);
  EXPECT_EQ(ParseUint64("12a"), std::nullopt);
  EXPECT_EQ(ParseUint64(" 1"), std::nullopt);
}

TEST(Strings, FormatBytesUsesIecUnits) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(20u << 20), "20 MiB");  // not "20 MB"
  EXPECT_EQ(FormatBytes(20'000'000), "19.1 MiB");
  EXPECT_EQ(FormatBytes(100u << 20), "100 MiB");
  EXPECT_EQ(FormatBytes(150u << 20), "150 MiB");
  EXPECT_EQ(FormatBytes(4ull << 30), "4 GiB");
  EXPECT_EQ(FormatBytes(UINT64_MAX), "16 EiB");
}

TEST(Strings, ParseByteSize) {
  EXPECT_EQ(ParseByteSize("1024"), 1024u);
  EXPECT_EQ(ParseByteSize("64KiB"), 64u << 10);
  EXPECT_EQ(ParseByteSize("1MiB"), 1u << 20);
  EXPECT_EQ(ParseByteSize("4G"), 4ull << 30);
  // A unit means what it says: SI powers of 1000, IEC (and bare letters)
  // powers of 1024.
  EXPECT_EQ(ParseByteSize("16 kb"), 16000u);
  EXPECT_EQ(ParseByteSize("20MB"), 20'000'000u);
  EXPECT_EQ(ParseByteSize("20MiB"), 20u << 20);
  EXPECT_EQ(ParseByteSize("20M"), 20u << 20);
  EXPECT_EQ(ParseByteSize("20Mi"), 20u << 20);
  EXPECT_EQ(ParseByteSize("3GB"), 3'000'000'000u);
  EXPECT_EQ(ParseByteSize("2TB"), 2'000'000'000'000u);
  EXPECT_EQ(ParseByteSize("2tib"), 2ull << 40);
  EXPECT_EQ(ParseByteSize("7 B"), 7u);
  EXPECT_EQ(ParseByteSize("1kbb"), std::nullopt);
  EXPECT_EQ(ParseByteSize("1kibb"), std::nullopt);
  EXPECT_EQ(ParseByteSize("1ib"), std::nullopt);
  EXPECT_EQ(ParseByteSize("1PB"), std::nullopt);  // no unit past T
  EXPECT_EQ(ParseByteSize("1x"), std::nullopt);
  EXPECT_EQ(ParseByteSize("MiB"), std::nullopt);
  EXPECT_EQ(ParseByteSize("99999999999999T"), std::nullopt);  // overflow
}

TEST(Strings, ParseDuration) {
  EXPECT_EQ(ParseDurationMs("500ms"), 500u);
  EXPECT_EQ(ParseDurationMs("30s"), 30000u);
  EXPECT_EQ(ParseDurationMs("30"), 30000u);
  EXPECT_EQ(ParseDurationMs("30d"), 30u * 86400000u);
  EXPECT_EQ(ParseDurationMs("2m"), 120000u);
  EXPECT_EQ(ParseDurationMs("1h"), 3600000u);
  EXPECT_EQ(ParseDurationMs("1w"), std::nullopt);
  EXPECT_EQ(ParseDurationMs("fast"), std::nullopt);
}

TEST(Strings, ParseBool) {
  EXPECT_EQ(ParseBool("TRUE"), true);
  EXPECT_EQ(ParseBool("off"), false);
  EXPECT_EQ(ParseBool("maybe"), std::nullopt);
}

TEST(Strings, CaseAndTrim) {
  EXPECT_TRUE(IEquals("Content-Length", "content-length"));
  EXPECT_FALSE(IEquals("Content-Length", "content-lengt"));
  EXPECT_EQ(Trim(" \t a b \t"), "a b");
  auto parts = Split("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "");
}

TEST(Strings, JsonEscape) {
  EXPECT_EQ(JsonQuote("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(JsonQuote("h\xc3\xa9"), "\"h\xc3\xa9\"");  // UTF-8 passes through
}

TEST(Strings, Base64Decode) {
  EXPECT_EQ(Base64Decode("YWxpY2U6c2VjcmV0"), "alice:secret");
  EXPECT_EQ(Base64Decode("YQ=="), "a");
  EXPECT_EQ(Base64Decode("YWI="), "ab");
  EXPECT_EQ(Base64Decode(""), "");
  EXPECT_EQ(Base64Decode("YQ="), std::nullopt);       // length
  EXPECT_EQ(Base64Decode("Y==="), std::nullopt);      // too much padding
  EXPECT_EQ(Base64Decode("YQ==YQ=="), std::nullopt);  // padding in the middle
  EXPECT_EQ(Base64Decode("YW!j"), std::nullopt);      // alphabet
}

TEST(Strings, Hex) { EXPECT_EQ(HexEncode("\x00\xff\x10", 3), "00ff10"); }

TEST(Strings, DefaultPortOf) {
  EXPECT_EQ(DefaultPortOf("http"), "80");
  EXPECT_EQ(DefaultPortOf("HTTPS"), "443");
  EXPECT_EQ(DefaultPortOf("ftp"), "");
  EXPECT_EQ(DefaultPortOf(""), "");
}

TEST(Strings, NormalizeAuthority) {
  EXPECT_EQ(NormalizeAuthority("Cloud.Example:443", "443"), "cloud.example");
  EXPECT_EQ(NormalizeAuthority("cloud.example:", "80"), "cloud.example");
  EXPECT_EQ(NormalizeAuthority("cloud.example:8443", "443"), "cloud.example:8443");
  EXPECT_EQ(NormalizeAuthority("[::1]:80", "80"), "[::1]");
  EXPECT_EQ(NormalizeAuthority("[::1]", "80"), "[::1]");  // the colons inside are not a port
  EXPECT_EQ(NormalizeAuthority(" host ", "80"), "host");
}

}  // namespace
}  // namespace nubo
