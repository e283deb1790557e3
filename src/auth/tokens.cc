#include "auth/tokens.h"

#include <jwt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>

namespace nubo::auth {

namespace {

struct JwtFree {
  void operator()(jwt_t* j) const { jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

constexpr const char* kIssuer = "nubo";

}  // namespace

Result<std::string> TokenSigner::Issue(const AccessClaims& c) const {
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return Status::ResourceExhausted("jwt_new failed");
  JwtPtr j(raw);
  const auto* key = reinterpret_cast<const unsigned char*>(secret_.data());
  if (jwt_add_grant(j.get(), "iss", kIssuer) != 0 ||
      jwt_add_grant(j.get(), "sub", std::to_string(c.user_id).c_str()) != 0 ||
      jwt_add_grant(j.get(), "sid", c.session_id.c_str()) != 0 ||
      jwt_add_grant_int(j.get(), "exp", c.expires_at_s) != 0 ||
      jwt_set_alg(j.get(), JWT_ALG_HS256, key, static_cast<int>(secret_.size())) != 0) {
    return Status::Internal("cannot build access token");
  }
  char* out = jwt_encode_str(j.get());
  if (!out) return Status::Internal("cannot sign access token");
  std::string token(out);
  free(out);  // libjwt 1.10 hands out malloc()ed strings
  return token;
}

Result<AccessClaims> TokenSigner::Verify(std::string_view token, int64_t now_s) const {
  if (token.empty() || token.size() > 4096)
    return Status::Unauthenticated("malformed access token");
  std::string t(token);
  jwt_t* raw = nullptr;
  const auto* key = reinterpret_cast<const unsigned char*>(secret_.data());
  if (jwt_decode(&raw, t.c_str(), key, static_cast<int>(secret_.size())) != 0 || !raw) {
    if (raw) jwt_free(raw);
    return Status::Unauthenticated("invalid access token");
  }
  JwtPtr j(raw);
  // Only the algorithm we sign with: refuses "alg":"none" and any attempt
  // to have the secret used as another algorithm's key.
  if (jwt_get_alg(j.get()) != JWT_ALG_HS256) return Status::Unauthenticated("invalid access token");
  const char* iss = jwt_get_grant(j.get(), "iss");
  const char* sub = jwt_get_grant(j.get(), "sub");
  const char* sid = jwt_get_grant(j.get(), "sid");
  errno = 0;
  long exp = jwt_get_grant_int(j.get(), "exp");
  if (!iss || std::string_view(iss) != kIssuer || !sub || !sid || errno != 0 || exp <= 0) {
    return Status::Unauthenticated("invalid access token");
  }
  if (exp <= now_s) return Status::Unauthenticated("access token expired");
  AccessClaims c;
  try {
    c.user_id = std::stoll(sub);
  } catch (...) {
    return Status::Unauthenticated("invalid access token");
  }
  c.session_id = sid;
  c.expires_at_s = exp;
  return c;
}

std::string TokenSigner::Mac(std::string_view purpose, std::string_view data) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  // The purpose keeps one kind of MAC from being replayed as another.
  std::string msg = std::string(purpose) + ":" + std::string(data);
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < len; ++i) {
    out += kHex[mac[i] >> 4];
    out += kHex[mac[i] & 0xf];
  }
  return out;
}

bool TokenSigner::MacMatches(std::string_view purpose, std::string_view data,
                             std::string_view presented) const {
  std::string want = Mac(purpose, data);
  return presented.size() == want.size() &&
         CRYPTO_memcmp(want.data(), presented.data(), want.size()) == 0;
}

std::string TokenSigner::CsrfToken(std::string_view session_id) const {
  return Mac("csrf", session_id);
}

bool TokenSigner::CsrfMatches(std::string_view session_id, std::string_view presented) const {
  return MacMatches("csrf", session_id, presented);
}

}  // namespace nubo::auth
