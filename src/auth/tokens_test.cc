#include "auth/tokens.h"

#include <gtest/gtest.h>

#include "util/strings.h"

namespace nubo::auth {
namespace {

const std::string kSecret(40, 'k');

std::string B64Url(std::string_view s) {
  static const char* kAlpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    uint32_t n = (uint8_t)s[i] << 16 | (uint8_t)s[i + 1] << 8 | (uint8_t)s[i + 2];
    for (int k = 3; k >= 0; --k) out += kAlpha[(n >> (6 * k)) & 63];
  }
  if (s.size() - i == 1) {
    uint32_t n = (uint8_t)s[i] << 16;
    out += kAlpha[(n >> 18) & 63];
    out += kAlpha[(n >> 12) & 63];
  } else if (s.size() - i == 2) {
    uint32_t n = (uint8_t)s[i] << 16 | (uint8_t)s[i + 1] << 8;
    out += kAlpha[(n >> 18) & 63];
    out += kAlpha[(n >> 12) & 63];
    out += kAlpha[(n >> 6) & 63];
  }
  return out;
}

TEST(Tokens, RoundTrip) {
  TokenSigner s(kSecret);
  auto t = s.Issue({42, "sess-1", 2000});
  ASSERT_TRUE(t.ok());
  auto c = s.Verify(*t, 1000);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->user_id, 42);
  EXPECT_EQ(c->session_id, "sess-1");
}

TEST(Tokens, RefusesExpiredTamperedForeignAndNone) {
  TokenSigner s(kSecret);
  auto t = *s.Issue({42, "sess-1", 2000});
  EXPECT_EQ(s.Verify(t, 2000).status().message(), "access token expired");
  // Flip a character of the payload: the signature no longer matches.
  std::string tampered = t;
  size_t dot = tampered.find('.');
  tampered[dot + 5] = tampered[dot + 5] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(s.Verify(tampered, 1000).ok());
  // Signed with another secret.
  TokenSigner other(std::string(40, 'x'));
  EXPECT_FALSE(other.Verify(t, 1000).ok());
  // "alg": "none" with a well-formed payload and no signature.
  std::string none = B64Url(R"({"alg":"none","typ":"JWT"})") + "." +
                     B64Url(R"({"iss":"nubo","sub":"42","sid":"sess-1","exp":99999999999})") + ".";
  EXPECT_FALSE(s.Verify(none, 1000).ok());
  // Garbage.
  EXPECT_FALSE(s.Verify("", 1000).ok());
  EXPECT_FALSE(s.Verify("a.b.c", 1000).ok());
  EXPECT_FALSE(s.Verify(std::string(5000, 'a'), 1000).ok());
}

TEST(Tokens, MacIsStandardHmacSha256) {
  // Known answers from an independent HMAC-SHA256 (Python's hmac and
  // `openssl dgst -hmac` agree): CSRF and sync tokens issued by an earlier
  // build stay valid, and a key longer than the hash's 64-byte block is
  // hashed first as RFC 2104 says.
  TokenSigner s(kSecret);
  EXPECT_EQ(s.CsrfToken("sess-1"),
            "3ec9ab578b87371c2f4ee2bcbdbbbd14710703a75b4d51dfaba509095e193880");
  EXPECT_TRUE(s.CsrfMatches("sess-1", s.CsrfToken("sess-1")));
  EXPECT_FALSE(s.CsrfMatches("sess-2", s.CsrfToken("sess-1")));
  EXPECT_FALSE(s.CsrfMatches("sess-1", ""));
  EXPECT_FALSE(s.CsrfMatches("sess-1", s.CsrfToken("sess-1").substr(1)));
  TokenSigner long_key(std::string(100, 'z'));
  EXPECT_EQ(long_key.Mac("sync", "drive-7/42"),
            "b2ba0f9bf551f2498bedec548e0584875281e13752ff72b782ef656651b02397");
  EXPECT_TRUE(long_key.MacMatches("sync", "drive-7/42", long_key.Mac("sync", "drive-7/42")));
}

}  // namespace
}  // namespace nubo::auth
