// REST endpoints for accounts (all JSON):
//   POST   /api/v1/setup                     first admin; 409 once any account exists
//   GET    /api/v1/me                        the caller's profile
//   GET    /api/v1/me/app-passwords          label, created, last used
//   POST   /api/v1/me/app-passwords          {label} → 201 {id, label, password} (shown once)
//   DELETE /api/v1/me/app-passwords/{id}     revoke (effective at once)
//   GET    /api/v1/admin/users?after=&limit= keyset page of accounts (admins)
//   POST   /api/v1/auth/login                {username, password[, mode:"cookie"]} → tokens,
//                                            or (cookie mode) HttpOnly cookies + a CSRF token
//   POST   /api/v1/auth/refresh              {refresh_token} → rotated tokens
//   POST   /api/v1/auth/logout               ends the caller's bearer session
//   GET    /api/v1/me/sessions               the caller's live sessions
#pragma once

#include "auth/authenticator.h"
#include "auth/password.h"
#include "auth/rate_limiter.h"
#include "auth/sessions.h"
#include "meta/meta_store.h"

namespace nubo::http {
class Router;
}

namespace nubo::api {

struct AccountDeps {
  meta::MetaStore& meta;
  auth::Authenticator& authn;
  auth::PasswordParams params;
  auth::Sessions& sessions;
  auth::FailureLimiter& limiter;
  bool secure_cookies = false;  // mark browser-session cookies Secure (HTTPS deployments)
};

void RegisterAccountRoutes(http::Router& router, AccountDeps deps);

}  // namespace nubo::api
