#include "server/auth_guard.h"

#include "auth/authz.h"
#include "http/cookies.h"
#include "http/status_map.h"
#include "util/strings.h"

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

// The caller, or the response that refuses it.
struct Outcome {
  auth::PrincipalPtr principal;
  std::optional<http::Response> refused;
};

Outcome FromCookie(auth::Sessions& sessions, const http::Request& req) {
  auto cookie = http::GetCookie(req.headers, "nubo_access");
  if (!cookie) {
    // An expired access cookie is gone while the CSRF cookie (refresh
    // lifetime) remains: that is still a browser, which must not get a
    // Basic challenge (it would pop a password dialog over the UI).
    if (http::GetCookie(req.headers, "nubo_csrf"))
      return {nullptr, BrowserDenied("session expired")};
    return {nullptr, Challenge("authentication required")};
  }
  auto p = sessions.Authenticate(*cookie);
  if (!p.ok()) return {nullptr, BrowserDenied(p.status().message())};
  // Double-submit CSRF check (the token is bound to the session): a
  // cross-site form can send the cookie but cannot read it to set the
  // header. (Cross-site requests are refused before this for every scheme,
  // http/request_policy.h; this stays as a second lock.)
  if (req.method != "GET" && req.method != "HEAD" && req.method != "OPTIONS") {
    auto presented = req.headers.Get("X-CSRF-Token");
    if (!presented || !sessions.signer().CsrfMatches((*p)->session_id, Trim(*presented))) {
      return {nullptr,
              http::ErrorResponse(403, Code::kPermissionDenied, "missing or wrong CSRF token")};
    }
  }
  return {std::move(*p), std::nullopt};
}

Outcome FromBasic(auth::Authenticator& authn, const http::Request& req, std::string_view creds) {
  auto decoded = Base64Decode(Trim(creds));
  if (!decoded) return {nullptr, Challenge("malformed Basic credentials")};
  size_t colon = decoded->find(':');
  if (colon == std::string::npos) return {nullptr, Challenge("malformed Basic credentials")};
  std::string_view user = std::string_view(*decoded).substr(0, colon);
  auth::BasicFailure why;
  auto p =
      authn.VerifyBasic(user, std::string_view(*decoded).substr(colon + 1), req.client_ip, &why);
  if (p.ok()) return {std::move(*p), std::nullopt};
  switch (p.status().code()) {
    case Code::kResourceExhausted:
      return {nullptr, http::TooManyAttempts(why.retry_after_s)};
    case Code::kUnavailable: {
      http::Response r = http::ErrorResponse(p.status());
      r.headers.Set("Retry-After", std::to_string(std::max<int64_t>(1, why.retry_after_s)));
      return {nullptr, std::move(r)};
    }
    case Code::kUnauthenticated:
      return {nullptr, Challenge(p.status().message())};
    default:
      return {nullptr, http::ErrorResponse(p.status())};
  }
}

Outcome Authenticate(auth::Authenticator& authn, auth::Sessions& sessions,
                     const http::Request& req) {
  auto header = req.headers.Get("Authorization");
  if (!header) return FromCookie(sessions, req);
  std::string_view v = Trim(*header);
  size_t sp = v.find(' ');
  if (sp != std::string_view::npos && IEquals(v.substr(0, sp), "Bearer")) {
    auto p = sessions.Authenticate(Trim(v.substr(sp + 1)));
    if (!p.ok()) return {nullptr, Challenge(p.status().message())};
    return {std::move(*p), std::nullopt};
  }
  if (sp == std::string_view::npos || !IEquals(v.substr(0, sp), "Basic")) {
    return {nullptr, Challenge("unsupported authorization scheme; use Bearer or Basic")};
  }
  return FromBasic(authn, req, v.substr(sp + 1));
}

// The credential must reach the route's access level.
Status CheckAccess(const auth::Principal& p, http::Access access) {
  switch (access) {
    case http::Access::kPublic:
      return Status::Ok();
    case http::Access::kUser:
      return authz::CheckScope(p, auth::kScopeFiles);
    case http::Access::kAccount:
      return authz::CheckScope(p, auth::kScopeAccount);
    case http::Access::kAdmin:
      return authz::CheckAdmin(p);
    case http::Access::kLink:
      return Status::Ok();  // authenticated by the link itself
  }
  return Status::PermissionDenied("unknown access level");
}

// A public link's bearer. REST names the token in the path (a browser page:
// no Basic challenge, the unlock cookie carries the password); WebDAV
// clients send it as the Basic user name with the link's password.
Outcome FromLink(auth::LinkVerifier& links, const http::Request& req) {
  std::string token(req.Param("token"));
  std::optional<std::string> password;
  const bool basic_client = token.empty();
  if (basic_client) {
    auto header = req.headers.Get("Authorization");
    std::string_view v = header ? Trim(*header) : std::string_view();
    size_t sp = v.find(' ');
    std::optional<std::string> decoded;
    if (sp != std::string_view::npos && IEquals(v.substr(0, sp), "Basic")) {
      decoded = Base64Decode(Trim(v.substr(sp + 1)));
    }
    if (!decoded) return {nullptr, Challenge("give the link's token as the user name")};
    size_t colon = decoded->find(':');
    token = decoded->substr(0, colon);
    if (colon != std::string::npos) password = decoded->substr(colon + 1);
  }
  auto cookie = http::GetCookie(req.headers, auth::LinkVerifier::kCookie);
  auth::BasicFailure why;
  auto p = links.Verify(token, password, cookie ? std::string_view(*cookie) : std::string_view(),
                        req.client_ip, &why);
  if (p.ok()) return {std::move(*p), std::nullopt};
  switch (p.status().code()) {
    case Code::kResourceExhausted:
      return {nullptr, http::TooManyAttempts(why.retry_after_s)};
    case Code::kUnavailable: {
      http::Response r = http::ErrorResponse(p.status());
      r.headers.Set("Retry-After", std::to_string(std::max<int64_t>(1, why.retry_after_s)));
      return {nullptr, std::move(r)};
    }
    case Code::kUnauthenticated:
      return {nullptr,
              basic_client ? Challenge(p.status().message()) : BrowserDenied(p.status().message())};
    default:
      return {nullptr, http::ErrorResponse(p.status())};
  }
}

// The caller's principal when its Basic credential is in the caches.
std::optional<auth::PrincipalPtr> CachedOnly(auth::Authenticator& authn, const http::Request& req) {
  auto header = req.headers.Get("Authorization");
  if (!header) return std::nullopt;
  std::string_view v = Trim(*header);
  size_t sp = v.find(' ');
  if (sp == std::string_view::npos || !IEquals(v.substr(0, sp), "Basic")) return std::nullopt;
  auto decoded = Base64Decode(Trim(v.substr(sp + 1)));
  if (!decoded) return std::nullopt;
  size_t colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  std::string_view d(*decoded);
  return authn.CachedBasic(d.substr(0, colon), d.substr(colon + 1), req.client_ip);
}

}  // namespace

http::Guard MakeAuthGuard(auth::Authenticator& authn, auth::Sessions& sessions,
                          auth::LinkVerifier& links) {
  return [&authn, &sessions, &links](http::Request& req,
                                     const http::Endpoint& ep) -> std::optional<http::Response> {
    if (req.must_not_block) {
      // On a network thread only a Basic credential the caches vouch for
      // is decided; anything else (a refusal included) is decided by the
      // full path below, on the blocking pool.
      if (auto p = CachedOnly(authn, req); p && CheckAccess(**p, ep.options.access).ok() &&
                                           ep.options.access == http::Access::kUser) {
        req.principal = std::move(*p);
        return std::nullopt;
      }
      req.needs_blocking = true;
      return std::nullopt;
    }
    if (ep.options.access == http::Access::kLink) {
      Outcome o = FromLink(links, req);
      if (o.refused) {
        if (ep.options.errors && o.refused->status == 404) {
          return ep.options.errors(Status::NotFound("no such link"));
        }
        return std::move(o.refused);
      }
      req.principal = std::move(o.principal);
      return std::nullopt;
    }
    Outcome o = Authenticate(authn, sessions, req);
    if (o.refused) return std::move(o.refused);
    if (Status st = CheckAccess(*o.principal, ep.options.access); !st.ok()) {
      return ep.options.errors ? ep.options.errors(st) : http::ErrorResponse(st);
    }
    req.principal = std::move(o.principal);
    return std::nullopt;
  };
}

}  // namespace nubo::server
