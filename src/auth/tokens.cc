#include "auth/tokens.h"

#include <jwt.h>
#include <sodium.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <string>

#include "util/dynlib.h"
#include "util/strings.h"

namespace nubo::auth {

namespace {

// libjwt (and with it libcrypto) is opened by the first access token, not
// linked: see util/dynlib.h. One member per function this file calls.
struct Libjwt {
  util::DynLib lib{"libjwt.so.0", "libjwt0"};
  decltype(&::jwt_new) jwt_new = nullptr;
  decltype(&::jwt_free) jwt_free = nullptr;
  decltype(&::jwt_add_grant) jwt_add_grant = nullptr;
  decltype(&::jwt_add_grant_int) jwt_add_grant_int = nullptr;
  decltype(&::jwt_set_alg) jwt_set_alg = nullptr;
  decltype(&::jwt_encode_str) jwt_encode_str = nullptr;
  decltype(&::jwt_decode) jwt_decode = nullptr;
  decltype(&::jwt_get_alg) jwt_get_alg = nullptr;
  decltype(&::jwt_get_grant) jwt_get_grant = nullptr;
  decltype(&::jwt_get_grant_int) jwt_get_grant_int = nullptr;

  Libjwt() {
    lib.Load(jwt_new, "jwt_new");
    lib.Load(jwt_free, "jwt_free");
    lib.Load(jwt_add_grant, "jwt_add_grant");
    lib.Load(jwt_add_grant_int, "jwt_add_grant_int");
    lib.Load(jwt_set_alg, "jwt_set_alg");
    lib.Load(jwt_encode_str, "jwt_encode_str");
    lib.Load(jwt_decode, "jwt_decode");
    lib.Load(jwt_get_alg, "jwt_get_alg");
    lib.Load(jwt_get_grant, "jwt_get_grant");
    lib.Load(jwt_get_grant_int, "jwt_get_grant_int");
  }
};

const Libjwt& Jwt() {
  static const Libjwt l;
  return l;
}

struct JwtFree {
  void operator()(jwt_t* j) const { Jwt().jwt_free(j); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

constexpr const char* kIssuer = "nubo";

}  // namespace

Result<std::string> TokenSigner::Issue(const AccessClaims& c) const {
  const Libjwt& l = Jwt();
  if (!l.lib.ok()) return Status::Unavailable(l.lib.error());
  jwt_t* raw = nullptr;
  if (l.jwt_new(&raw) != 0) return Status::ResourceExhausted("jwt_new failed");
  JwtPtr j(raw);
  const auto* key = reinterpret_cast<const unsigned char*>(secret_.data());
  if (l.jwt_add_grant(j.get(), "iss", kIssuer) != 0 ||
      l.jwt_add_grant(j.get(), "sub", std::to_string(c.user_id).c_str()) != 0 ||
      l.jwt_add_grant(j.get(), "sid", c.session_id.c_str()) != 0 ||
      l.jwt_add_grant_int(j.get(), "exp", c.expires_at_s) != 0 ||
      l.jwt_set_alg(j.get(), JWT_ALG_HS256, key, static_cast<int>(secret_.size())) != 0) {
    return Status::Internal("cannot build access token");
  }
  char* out = l.jwt_encode_str(j.get());
  if (!out) return Status::Internal("cannot sign access token");
  std::string token(out);
  free(out);  // libjwt 1.10 hands out malloc()ed strings
  return token;
}

Result<AccessClaims> TokenSigner::Verify(std::string_view token, int64_t now_s) const {
  if (token.empty() || token.size() > 4096)
    return Status::Unauthenticated("malformed access token");
  const Libjwt& l = Jwt();
  if (!l.lib.ok()) return Status::Unavailable(l.lib.error());
  std::string t(token);
  jwt_t* raw = nullptr;
  const auto* key = reinterpret_cast<const unsigned char*>(secret_.data());
  if (l.jwt_decode(&raw, t.c_str(), key, static_cast<int>(secret_.size())) != 0 || !raw) {
    if (raw) l.jwt_free(raw);
    return Status::Unauthenticated("invalid access token");
  }
  JwtPtr j(raw);
  // Only the algorithm we sign with: refuses "alg":"none" and any attempt
  // to have the secret used as another algorithm's key.
  if (l.jwt_get_alg(j.get()) != JWT_ALG_HS256) {
    return Status::Unauthenticated("invalid access token");
  }
  const char* iss = l.jwt_get_grant(j.get(), "iss");
  const char* sub = l.jwt_get_grant(j.get(), "sub");
  const char* sid = l.jwt_get_grant(j.get(), "sid");
  errno = 0;
  long exp = l.jwt_get_grant_int(j.get(), "exp");
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
  // libsodium's HMAC-SHA256 (standard HMAC for a key of any length), so a
  // MAC never waits for libcrypto to be opened. The purpose keeps one kind
  // of MAC from being replayed as another.
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(secret_.data()),
                              secret_.size());
  const std::string msg = std::string(purpose) + ":" + std::string(data);
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(msg.data()),
                                msg.size());
  unsigned char mac[crypto_auth_hmacsha256_BYTES];
  crypto_auth_hmacsha256_final(&st, mac);
  return HexEncode(mac, sizeof mac);
}

bool TokenSigner::MacMatches(std::string_view purpose, std::string_view data,
                             std::string_view presented) const {
  const std::string want = Mac(purpose, data);
  return presented.size() == want.size() &&
         sodium_memcmp(want.data(), presented.data(), want.size()) == 0;
}

std::string TokenSigner::CsrfToken(std::string_view session_id) const {
  return Mac("csrf", session_id);
}

bool TokenSigner::CsrfMatches(std::string_view session_id, std::string_view presented) const {
  return MacMatches("csrf", session_id, presented);
}

}  // namespace nubo::auth
