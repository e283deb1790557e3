#include "server/auth_guard.h"

#include "http/cookies.h"
#include "http/status_map.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::server {

namespace {

http::Response Challenge(std::string_view message) {
  http::Response r = http::ErrorResponse(401, Code::kUnauthenticated, message);
  // RFC 7617 §2.1: the charset parameter tells clients to send UTF-8.
  r.headers.Set("WWW-Authenticate", "Basic realm=\"nubo\", charset=\"UTF-8\"");
  return r;
}

// A browser session must not get a Basic challenge: browsers answer it with
// a password dialog over the web UI.
http::Response BrowserDenied(std::string_view message) {
  return http::ErrorResponse(401, Code::kUnauthenticated, message);
}

bool Unsafe(std::string_view method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

}  // namespace

http::Guard MakeAuthGuard(auth::Authenticator& authn, auth::FailureLimiter& limiter,
                          auth::Sessions& sessions) {
  return [&authn, &limiter, &sessions](http::Request& req,
                                       const http::Endpoint& ep) -> std::optional<http::Response> {
    auto header = req.headers.Get("Authorization");
    if (!header) {
      auto cookie = http::GetCookie(req.headers, "nubo_access");
      if (!cookie) {
        // An expired access cookie is gone while the CSRF cookie (refresh
        // lifetime) remains: that is still a browser, which must not get
        // a Basic challenge (it would pop a password dialog over the UI).
        if (http::GetCookie(req.headers, "nubo_csrf")) return BrowserDenied("session expired");
        return Challenge("authentication required");
      }
      auto c = sessions.Authenticate(*cookie);
      if (!c.ok()) return BrowserDenied(c.status().message());
      // Double-submit CSRF check (the token is bound to the session): a
      // cross-site form can send the cookie but cannot read it to set the header.
      if (Unsafe(req.method)) {
        auto presented = req.headers.Get("X-CSRF-Token");
        if (!presented || !sessions.signer().CsrfMatches(c->session_id, Trim(*presented))) {
          return http::ErrorResponse(403, Code::kPermissionDenied, "missing or wrong CSRF token");
        }
      }
      if (ep.options.access == http::Access::kAdmin && !c->admin) {
        return http::ErrorResponse(403, Code::kPermissionDenied, "administrators only");
      }
      req.caller = http::Caller{c->user_id, c->public_id, c->username, c->admin, false, c->session_id};
      return std::nullopt;
    }
    std::string_view v = Trim(*header);
    size_t sp = v.find(' ');
    if (sp != std::string_view::npos && IEquals(v.substr(0, sp), "Bearer")) {
      auto c = sessions.Authenticate(Trim(v.substr(sp + 1)));
      if (!c.ok()) return Challenge(c.status().message());
      if (ep.options.access == http::Access::kAdmin && !c->admin) {
        return http::ErrorResponse(403, Code::kPermissionDenied, "administrators only");
      }
      req.caller = http::Caller{c->user_id, c->public_id, c->username, c->admin, false, c->session_id};
      return std::nullopt;
    }
    if (sp == std::string_view::npos || !IEquals(v.substr(0, sp), "Basic")) {
      return Challenge("unsupported authorization scheme; use Bearer or Basic");
    }
    auto decoded = Base64Decode(Trim(v.substr(sp + 1)));
    if (!decoded) return Challenge("malformed Basic credentials");
    size_t colon = decoded->find(':');
    if (colon == std::string::npos) return Challenge("malformed Basic credentials");
    std::string_view user = std::string_view(*decoded).substr(0, colon);
    const int64_t now = UnixMillis();
    if (auto wait = limiter.SignInRetryAfter(req.client_ip, user, now)) {
      return http::TooManyAttempts(*wait);
    }
    auto p = authn.VerifyBasic(user, std::string_view(*decoded).substr(colon + 1));
    if (!p.ok()) {
      limiter.SignInFailed(req.client_ip, user, now);
      return Challenge(p.status().message());
    }
    limiter.SignInSucceeded(user);
    if (ep.options.access == http::Access::kAdmin && p->role != "admin") {
      return http::ErrorResponse(403, Code::kPermissionDenied, "administrators only");
    }
    req.caller = http::Caller{p->user_id, "", p->username, p->role == "admin", p->via_app_password};
    return std::nullopt;
  };
}

}  // namespace nubo::server
