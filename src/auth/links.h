// Public links: turning a link's token (and its password, when it has one)
// into a kLink Principal (auth/principal.h), which authz::Checker limits to
// the link's node and what lies below it (docs/sharing.md).
//
// Tokens are 160 random bits as 40 lower-case hex characters; only their
// BLAKE3 hash is stored and looked up, so no token bytes are ever compared
// and a copy of the database opens nothing. An unknown token, an expired
// link and a link whose node is gone answer the same NotFound.
//
// Passwords are Argon2id. A correct password opens the link for the
// caller either in the same request (WebDAV: Basic with the token as the
// user name) or through an unlock cookie that names this link only: a MAC
// (server secret) over the link, its current password hash and an expiry,
// so changing the password closes every unlock at once, on every node,
// without state. Wrong passwords are throttled per (link, address) and per
// link; checks of the same password run once at a time (single-flight) and
// a success is remembered for a while, so a client that sends the password
// with every request pays Argon2id once. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "auth/authenticator.h"
#include "auth/principal.h"
#include "auth/rate_limiter.h"
#include "auth/tokens.h"
#include "meta/meta_store.h"

namespace nubo::auth {

inline constexpr size_t kLinkTokenHexChars = 40;

// A new token (shown once) and what is stored of it.
struct NewLinkToken {
  std::string token;
  meta::Digest hash{};
  std::string hint;  // last 4 characters
};
NewLinkToken MakeLinkToken();
// The stored hash of a presented token; nullopt when it is not even shaped
// like one (answered like an unknown token).
std::optional<meta::Digest> LinkTokenHash(std::string_view token);

struct LinkVerifierOptions {
  int64_t unlock_ttl_ms = 24LL * 3600 * 1000;  // how long an unlock cookie opens the link
  int64_t cache_ttl_ms = 10 * 60'000;          // how long a verified password is remembered
  size_t max_cached = 10'000;
};

class LinkVerifier {
 public:
  LinkVerifier(meta::MetaStore& meta, FailureLimiter& limiter, const TokenSigner& signer,
               LinkVerifierOptions options = {});

  // The principal for `token`. `password`: presented with this request
  // (WebDAV Basic); `unlock`: the unlock cookie's value, if any.
  //   NotFound("no such link")            unknown, expired, or its node gone
  //   Unauthenticated("password required") the link has a password, none given
  //   Unauthenticated("wrong password")    (counted by the throttle)
  //   ResourceExhausted / Unavailable      throttled / busy, `failure` says when
  Result<PrincipalPtr> Verify(std::string_view token, std::optional<std::string_view> password,
                              std::string_view unlock, std::string_view client_ip,
                              BasicFailure* failure = nullptr);
  // Checks `password` and returns the value of the unlock cookie for this
  // link (and its Max-Age in seconds).
  Result<std::pair<std::string, int64_t>> Unlock(std::string_view token, std::string_view password,
                                                 std::string_view client_ip,
                                                 BasicFailure* failure = nullptr);

  // The unlock cookie's name (its path scopes it to one link).
  static constexpr const char* kCookie = "nubo_link";

  uint64_t argon2_runs() const { return argon2_runs_; }

 private:
  struct Flight {
    bool done = false;
    Result<bool> ok = false;
  };
  Result<meta::LinkRow> Load(std::string_view token);
  Status CheckPassword(const meta::LinkRow& link, std::string_view password,
                       std::string_view client_ip, BasicFailure* failure);
  bool UnlockValid(const meta::LinkRow& link, std::string_view unlock, int64_t now_ms) const;
  std::string UnlockData(const meta::LinkRow& link, int64_t expires_s) const;

  meta::MetaStore& meta_;
  FailureLimiter& limiter_;
  const TokenSigner& signer_;
  LinkVerifierOptions opt_;

  std::mutex mu_;
  std::condition_variable cv_;
  // BLAKE3(link id, password hash, password) → verified at (ms).
  std::unordered_map<std::string, int64_t> verified_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flights_;
  std::atomic<uint64_t> argon2_runs_{0};
};

}  // namespace nubo::auth
