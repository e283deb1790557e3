#include "server/auth_guard.h"

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

}  // namespace

http::Guard MakeAuthGuard(auth::Authenticator& authn, auth::FailureLimiter& limiter,
                          auth::Sessions& sessions) {
  return [&authn, &limiter, &sessions](http::Request& req,
                                       const http::Endpoint& ep) -> std::optional<http::Response> {
    auto header = req.headers.Get("Authorization");
    if (!header) return Challenge("authentication required");
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
