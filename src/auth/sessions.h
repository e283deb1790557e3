// Sign-in sessions: a short-lived access token (auth/tokens.h) plus an
// opaque refresh token stored only as a hash. Refreshing rotates the
// refresh token; presenting a rotated one again revokes the whole family
// (it was stolen, or the client is confused: either way, sign in again).
// Session state is checked on every request through a short-TTL cache,
// so logout, password change and deactivation bite on the next request.
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string>
#include <unordered_map>

#include "auth/password.h"
#include "auth/principal.h"
#include "auth/rate_limiter.h"
#include "auth/tokens.h"
#include "meta/meta_store.h"

namespace nubo::auth {

struct SessionOptions {
  int64_t access_ttl_s = 900;            // 15 min
  int64_t refresh_ttl_s = 30 * 86'400;   // 30 days
  int64_t check_cache_ms = 2'000;        // how stale a session check may be
  // A refresh token rotated this recently may be presented once more (two
  // tabs refreshing together) without being taken for a stolen one.
  int64_t refresh_grace_ms = 10'000;
};

struct TokenPair {
  std::string access_token;
  std::string refresh_token;
  int64_t expires_in_s = 0;
  std::string session_id;
};


class Sessions {
 public:
  // Loads (or creates, once) the signing secret from the settings table.
  static Result<std::unique_ptr<Sessions>> Open(meta::MetaStore& meta, PasswordParams params,
                                                SessionOptions options);

  // Verifies the password (Argon2: blocking pool) and opens a session.
  // Unauthenticated("invalid credentials") for any failure.
  Result<TokenPair> Login(std::string_view username, std::string_view password,
                          std::string_view user_agent, std::string_view ip);
  Result<TokenPair> Refresh(std::string_view refresh_token);
  Status Logout(const std::string& session_id);
  // Revokes `session_id` if it belongs to `user_id` (NotFound otherwise,
  // exactly as for a missing one).
  Status RevokeOwn(int64_t user_id, const std::string& session_id);
  // Forgets cached checks of the user's sessions (role or state changed).
  void ForgetUser(int64_t user_id);
  // Revokes every other session of the user (after a password change).
  Status RevokeOthers(int64_t user_id, const std::string& keep_session_id);

  // Checks a bearer access token and the live state of its session and
  // user (revoked, deactivated, role): the session's principal (every
  // scope the role allows), or Unauthenticated with the reason.
  Result<PrincipalPtr> Authenticate(std::string_view access_token);

  const TokenSigner& signer() const { return signer_; }
  const SessionOptions& options() const { return opt_; }

 private:
  Sessions(meta::MetaStore& meta, PasswordParams params, SessionOptions options, std::string secret);
  Result<TokenPair> Issue(meta::WriteTxn& txn, const meta::UserRow& user, const std::string& family,
                          std::string_view user_agent, std::string_view ip, int64_t now_ms);

  meta::MetaStore& meta_;
  PasswordParams params_;
  SessionOptions opt_;
  TokenSigner signer_;
  const std::string& DummyHash();
  std::once_flag dummy_once_;
  std::string dummy_hash_;

  struct Checked {
    PrincipalPtr principal;
    int64_t until_ms;
  };
  std::mutex mu_;
  std::unordered_map<std::string, Checked> checked_;  // by session id
};

}  // namespace nubo::auth
