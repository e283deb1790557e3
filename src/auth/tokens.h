// Access tokens: short-lived JWTs (HS256, RFC 7519) signed with a server
// secret kept in the database settings, carrying the user and session ids.
// The libjwt library does the signing and parsing; this file only decides
// what is accepted: HS256 exactly (never "none" or another algorithm), a
// valid signature, an unexpired "exp", and the claims nubo writes.
// Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo::auth {

struct AccessClaims {
  int64_t user_id = 0;
  std::string session_id;  // public id of the session row
  int64_t expires_at_s = 0;
};

class TokenSigner {
 public:
  // `secret`: at least 32 bytes.
  explicit TokenSigner(std::string secret) : secret_(std::move(secret)) {}

  Result<std::string> Issue(const AccessClaims& claims) const;
  // Unauthenticated with the reason ("token expired", "bad signature", ...).
  Result<AccessClaims> Verify(std::string_view token, int64_t now_s) const;

  // The CSRF token of a browser session: Mac("csrf", session id), hex.
  // Bound to the session, so a cookie planted by a sibling domain is
  // useless without the matching header value.
  std::string CsrfToken(std::string_view session_id) const;
  // Constant-time comparison with the session's CSRF token.
  bool CsrfMatches(std::string_view session_id, std::string_view presented) const;

  // HMAC-SHA256(secret, purpose ":" data), hex; and its constant-time
  // check. For stateless proofs such as a public link's unlock cookie.
  std::string Mac(std::string_view purpose, std::string_view data) const;
  bool MacMatches(std::string_view purpose, std::string_view data,
                  std::string_view presented) const;

 private:
  std::string secret_;
};

}  // namespace nubo::auth
