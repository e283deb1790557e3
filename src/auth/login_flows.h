// Login Flow v2 (docs/nextcloud.md): how a Nextcloud client gets an app
// password without ever seeing the account password.
//
//   1. The client POSTs /index.php/login/v2 and gets a login URL (for the
//      browser) and a poll token (for itself).
//   2. The user opens the login URL, signs in to the web UI with their own
//      session, sees which client asks, and grants access explicitly.
//   3. The client polls with its token; the first poll after the grant gets
//      the login name and a new app password (files and groupware scope),
//      every other poll gets nothing.
//
// Everything lives in the MetaStore, so any node can answer any step. The
// app password is stored only sealed (libsodium sealed box) to a public
// key derived from the poll token, which only the client knows; that key
// is also the flow's lookup key. A database read before the poll reveals
// no password, and the row is gone after it. Flows expire after 20 minutes.
// Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "auth/principal.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::auth {

class LoginFlows {
 public:
  static constexpr int64_t kTtlMs = 20 * 60 * 1000;

  explicit LoginFlows(meta::MetaStore& meta) : meta_(meta) {}

  struct Started {
    std::string login_token;  // in the browser's URL
    std::string poll_token;   // the client's secret
  };
  // `client_name`: what the client calls itself (its User-Agent), shown to
  // the user before they grant.
  Result<Started> Start(std::string_view client_name);

  struct Pending {
    std::string client_name;
    int64_t expires_at_ms = 0;
  };
  // A flow waiting for its grant. NotFound when unknown, expired or granted.
  Result<Pending> Describe(std::string_view login_token);

  // The signed-in user grants the flow: an app password labelled with the
  // client's name is created for them. NotFound as Describe.
  Status Grant(const Principal& who, std::string_view login_token);

  struct Credentials {
    std::string login_name;
    std::string app_password;
  };
  // The one poll that answers: NotFound before the grant, after the first
  // answer and after expiry.
  Result<Credentials> Poll(std::string_view poll_token);

  // Maintenance: drops expired flows. Returns how many.
  Result<int64_t> Expire(int64_t now_ms);

 private:
  meta::MetaStore& meta_;
};

}  // namespace nubo::auth
