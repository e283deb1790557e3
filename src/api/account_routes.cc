#include "api/account_routes.h"

#include "api/json.h"
#include "api/route_options.h"
#include "api/openapi.h"
#include "auth/accounts.h"
#include "http/cookies.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::api {

namespace {

using http::Request;
using http::Response;

std::string OptString(const std::optional<std::string>& v) { return v ? JsonQuote(*v) : "null"; }
std::string OptInt(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "null"; }

std::string UserJson(const meta::UserRow& u) {
  return "{\"id\":" + JsonQuote(u.public_id) + ",\"username\":" + JsonQuote(u.username) +
         ",\"display_name\":" + JsonQuote(u.display_name) + ",\"email\":" + OptString(u.email) +
         ",\"role\":" + JsonQuote(u.role) + ",\"active\":" + (u.active ? "true" : "false") +
         ",\"quota_bytes\":" + OptInt(u.quota_bytes) +
         ",\"created_at\":" + std::to_string(u.created_at_ms) + "}";
}

std::string ScopesJson(uint32_t scopes) {
  std::string out = "[";
  const std::string names = auth::ScopeNames(scopes);
  for (std::string_view name : Split(names, ',')) {
    if (name.empty()) continue;
    if (out.size() > 1) out += ',';
    out += JsonQuote(name);
  }
  return out + "]";
}

Result<meta::UserRow> LoadUser(meta::MetaStore& meta, int64_t id) {
  std::optional<meta::UserRow> u;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(u, t.GetUser(id));
    return Status::Ok();
  }));
  if (!u) return Status::NotFound("no such user");
  return *u;
}

// Access levels (http/router.h): kUser routes are open to every credential
// with the files scope, app passwords included; kAccount routes manage the
// account and its credentials, which an app password never may (a leaked
// one must not mint its successor or lock the owner out).
constexpr http::RouteOptions kUser = PlainRoute(http::Access::kUser);
constexpr http::RouteOptions kAccount = PlainRoute(http::Access::kAccount);
constexpr http::RouteOptions kAccountJson = JsonRoute(http::Access::kAccount);
constexpr http::RouteOptions kAdmin = PlainRoute(http::Access::kAdmin);
constexpr http::RouteOptions kAdminJson = JsonRoute(http::Access::kAdmin);
constexpr http::RouteOptions kPublicJson = JsonRoute(http::Access::kPublic);

}  // namespace

namespace {

std::string TokensJson(const auth::TokenPair& t) {
  return "{\"access_token\":" + JsonQuote(t.access_token) + ",\"refresh_token\":" +
         JsonQuote(t.refresh_token) + ",\"token_type\":\"Bearer\",\"expires_in\":" +
         std::to_string(t.expires_in_s) + ",\"session_id\":" + JsonQuote(t.session_id) + "}\n";
}

// Browser mode: tokens travel in HttpOnly SameSite=Strict cookies the page
// script cannot read; the CSRF token (readable) must come back as the
// X-CSRF-Token header on every unsafe request.
Response CookieSession(const AccountDeps& d, const auth::TokenPair& t) {
  const auto& o = d.sessions.options();
  Response r = Response::Json(
      200, "{\"token_type\":\"Cookie\",\"csrf_token\":" + JsonQuote(d.sessions.signer().CsrfToken(t.session_id)) +
               ",\"expires_in\":" + std::to_string(t.expires_in_s) + ",\"session_id\":" +
               JsonQuote(t.session_id) + "}\n");
  r.headers.Add("Set-Cookie", http::SetCookieValue("nubo_access", t.access_token,
                                                   {"/", o.access_ttl_s, true, d.secure_cookies, "Strict"}));
  r.headers.Add("Set-Cookie", http::SetCookieValue("nubo_refresh", t.refresh_token,
                                                   {"/api/v1/auth", o.refresh_ttl_s, true, d.secure_cookies, "Strict"}));
  r.headers.Add("Set-Cookie", http::SetCookieValue("nubo_csrf", d.sessions.signer().CsrfToken(t.session_id),
                                                   {"/", o.refresh_ttl_s, false, d.secure_cookies, "Strict"}));
  r.headers.Set("Cache-Control", "no-store");
  return r;
}

void ClearCookies(Response& r, bool secure) {
  r.headers.Add("Set-Cookie", http::SetCookieValue("nubo_access", "", {"/", 0, true, secure, "Strict"}));
  r.headers.Add("Set-Cookie", http::SetCookieValue("nubo_refresh", "", {"/api/v1/auth", 0, true, secure, "Strict"}));
  r.headers.Add("Set-Cookie", http::SetCookieValue("nubo_csrf", "", {"/", 0, false, secure, "Strict"}));
}

void RegisterAuthRoutes(http::Router& router, const AccountDeps& d) {
  router.Add(
      "POST", "/api/v1/auth/login",
      [d](Request& req) {
        auto f = ParseStringObject(req.body, {"username", "password", "mode"});
        if (!f.ok()) return http::ErrorResponse(f.status());
        const std::string mode = f->Get("mode").value_or("token");
        if (mode != "token" && mode != "cookie") {
          return http::ErrorResponse(Status::InvalidArgument("mode must be token or cookie"));
        }
        if (!f->Get("username") || !f->Get("password")) {
          return http::ErrorResponse(Status::InvalidArgument("username and password are required"));
        }
        const std::string user = *f->Get("username");
        const int64_t now = UnixMillis();
        if (auto wait = d.limiter.SignInRetryAfter(req.client_ip, user, now)) {
          return http::TooManyAttempts(*wait);
        }
        int64_t wait = 0;
        switch (d.limiter.AdmitPasswordCheck(req.client_ip, user, now, &wait)) {
          case auth::Admission::kRun:
            break;
          case auth::Admission::kThrottled:
            return http::TooManyAttempts(wait);
          case auth::Admission::kBusy: {
            Response r = http::ErrorResponse(
                Status::Unavailable("the server is refusing a storm of wrong passwords; retry shortly"));
            r.headers.Set("Retry-After", std::to_string(wait));
            return r;
          }
        }
        auto t = d.sessions.Login(user, *f->Get("password"), req.headers.Get("User-Agent").value_or(""),
                                  req.client_ip);
        if (!t.ok()) {
          if (t.status().code() == Code::kUnauthenticated) d.limiter.SignInFailed(req.client_ip, user, now);
          Response r = http::ErrorResponse(t.status());
          if (t.status().code() == Code::kUnavailable) r.headers.Set("Retry-After", "1");
          return r;
        }
        d.limiter.SignInSucceeded(req.client_ip, user);
        if (mode == "cookie") return CookieSession(d, *t);
        return Response::Json(200, TokensJson(*t));
      },
      kPublicJson);
  router.Add(
      "POST", "/api/v1/auth/refresh",
      [d](Request& req) {
        auto f = ParseStringObject(req.body.empty() ? std::string_view("{}") : std::string_view(req.body),
                                   {"refresh_token"});
        if (!f.ok()) return http::ErrorResponse(f.status());
        const std::string refresh_key = "refresh:" + req.client_ip;
        if (auto wait = d.limiter.RetryAfter(refresh_key, UnixMillis())) return http::TooManyAttempts(*wait);
        if (auto token = f->Get("refresh_token")) {
          auto t = d.sessions.Refresh(*token);
          if (!t.ok()) {
            d.limiter.RecordFailure(refresh_key, UnixMillis());
            return http::ErrorResponse(t.status());
          }
          return Response::Json(200, TokensJson(*t));
        }
        // Browser mode: the refresh token is a cookie, so the request must
        // prove it comes from our page (double submit of the CSRF cookie).
        auto cookie = http::GetCookie(req.headers, "nubo_refresh");
        if (!cookie) return http::ErrorResponse(Status::InvalidArgument("refresh_token is required"));
        auto csrf_cookie = http::GetCookie(req.headers, "nubo_csrf");
        auto csrf_header = req.headers.Get("X-CSRF-Token");
        if (!csrf_cookie || !csrf_header || csrf_cookie->empty() || Trim(*csrf_header) != *csrf_cookie) {
          return http::ErrorResponse(403, Code::kPermissionDenied, "missing or wrong CSRF token");
        }
        auto t = d.sessions.Refresh(*cookie);
        if (!t.ok()) {
          d.limiter.RecordFailure(refresh_key, UnixMillis());
          Response r = http::ErrorResponse(t.status());
          ClearCookies(r, d.secure_cookies);
          return r;
        }
        return CookieSession(d, *t);
      },
      kPublicJson);
  router.Add(
      "POST", "/api/v1/auth/logout",
      [d](Request& req) {
        if (req.principal->session_id.empty()) {
          return http::ErrorResponse(Status::InvalidArgument("not signed in with a session"));
        }
        Status st = d.sessions.Logout(req.principal->session_id);
        if (!st.ok()) return http::ErrorResponse(st);
        Response r = Response::Empty(204);
        ClearCookies(r, d.secure_cookies);
        return r;
      },
      kUser);
  router.Add(
      "GET", "/api/v1/me/sessions",
      [d](Request& req) {
        std::vector<meta::SessionRow> rows;
        Status st = d.meta.Read([&](meta::ReadTxn& t) -> Status {
          NUBO_ASSIGN_OR_RETURN(rows, t.ListSessions(req.principal->user_id, UnixMillis()));
          return Status::Ok();
        });
        if (!st.ok()) return http::ErrorResponse(st);
        std::string out = "{\"sessions\":[";
        for (size_t i = 0; i < rows.size(); ++i) {
          if (i) out += ',';
          out += "{\"id\":" + JsonQuote(rows[i].public_id) + ",\"created_at\":" +
                 std::to_string(rows[i].created_at_ms) + ",\"user_agent\":" + JsonQuote(rows[i].user_agent) +
                 ",\"ip\":" + JsonQuote(rows[i].ip) + ",\"current\":" +
                 (rows[i].public_id == req.principal->session_id ? "true" : "false") + "}";
        }
        return Response::Json(200, out + "]}\n");
      },
      kAccount);
}

// The app passwords of an account: label, scopes, created, last used
// (never the secret, which only its creation answer carries).
Response AppPasswordList(const AccountDeps& d, int64_t user_id) {
  std::vector<meta::AppPasswordRow> rows;
  Status st = d.meta.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(rows, t.ListAppPasswords(user_id));
    return Status::Ok();
  });
  if (!st.ok()) return http::ErrorResponse(st);
  std::string out = "{\"app_passwords\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i) out += ',';
    out += "{\"id\":" + std::to_string(rows[i].id) + ",\"label\":" + JsonQuote(rows[i].label) +
           ",\"scopes\":" + ScopesJson(rows[i].scopes) +
           ",\"created_at\":" + std::to_string(rows[i].created_at_ms) +
           ",\"last_used_at\":" + OptInt(rows[i].last_used_at_ms) + "}";
  }
  return Response::Json(200, out + "]}\n");
}

// Changes that must reach cached credentials and session checks at once.
void Forget(const AccountDeps& d, int64_t user_id) {
  d.authn.InvalidateUser(user_id);
  d.sessions.ForgetUser(user_id);
}

Result<int64_t> UserIdByName(meta::MetaStore& meta, const std::string& name) {
  std::optional<meta::UserRow> u;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(u, t.GetUserByName(name));
    return Status::Ok();
  }));
  if (!u) return Status::NotFound("no such user");
  return u->id;
}

void RegisterProfileRoutes(http::Router& router, const AccountDeps& d) {
  router.Add(
      "PATCH", "/api/v1/me",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"display_name", JsonType::kString}, {"email", JsonType::kString}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        Status st = auth::UpdateProfile(d.meta, req.principal->username, f->Get("display_name"), f->Get("email"));
        if (!st.ok()) return http::ErrorResponse(st);
        auto u = LoadUser(d.meta, req.principal->user_id);
        if (!u.ok()) return http::ErrorResponse(u.status());
        return Response::Json(200, UserJson(*u) + "\n");
      },
      kAccountJson);
  router.Add(
      "POST", "/api/v1/me/password",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"current_password", JsonType::kString},
                                        {"new_password", JsonType::kString}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        if (!f->Get("current_password") || !f->Get("new_password")) {
          return http::ErrorResponse(Status::InvalidArgument("current_password and new_password are required"));
        }
        const int64_t now = UnixMillis();
        if (auto wait = d.limiter.SignInRetryAfter(req.client_ip, req.principal->username, now)) {
          return http::TooManyAttempts(*wait);
        }
        auto u = LoadUser(d.meta, req.principal->user_id);
        if (!u.ok()) return http::ErrorResponse(u.status());
        auto ok = auth::VerifyPassword(*f->Get("current_password"), u->password_hash);
        if (!ok.ok()) return http::ErrorResponse(ok.status());
        if (!*ok) {
          d.limiter.SignInFailed(req.client_ip, req.principal->username, now);
          return http::ErrorResponse(403, Code::kPermissionDenied, "current password is wrong");
        }
        Status st = auth::SetPassword(d.meta, req.principal->username, *f->Get("new_password"), d.params,
                                      req.principal->session_id);
        if (!st.ok()) return http::ErrorResponse(st);
        Forget(d, req.principal->user_id);
        return Response::Empty(204);
      },
      kAccountJson);
  router.Add(
      "DELETE", "/api/v1/me/sessions/{id}",
      [d](Request& req) {
        Status st = d.sessions.RevokeOwn(req.principal->user_id, std::string(req.Param("id")));
        if (!st.ok()) return http::ErrorResponse(st);
        return Response::Empty(204);
      },
      kAccount);
}

// Every attempt counts (not only failures): at most `lockout_failures`
// registrations or setups per IP per lockout window.
std::optional<Response> Throttle(const AccountDeps& d, const std::string& what, const std::string& ip) {
  const int64_t now = UnixMillis();
  const std::string key = what + ":" + ip;
  if (auto wait = d.limiter.RetryAfter(key, now)) return http::TooManyAttempts(*wait);
  d.limiter.RecordFailure(key, now);
  return std::nullopt;
}

void RegisterSignupRoutes(http::Router& router, const AccountDeps& d) {
  router.Add(
      "POST", "/api/v1/register",
      [d](Request& req) {
        if (auto t = Throttle(d, "register", req.client_ip)) return std::move(*t);
        auto open = auth::RegistrationOpen(d.meta);
        if (!open.ok()) return http::ErrorResponse(open.status());
        if (!*open) return http::ErrorResponse(403, Code::kPermissionDenied, "registration is closed");
        auto f = ParseObject(req.body, {{"username", JsonType::kString}, {"password", JsonType::kString},
                                        {"email", JsonType::kString}, {"display_name", JsonType::kString}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        if (!f->Get("username") || !f->Get("password")) {
          return http::ErrorResponse(Status::InvalidArgument("username and password are required"));
        }
        auth::NewUser nu{*f->Get("username"), *f->Get("password"), false, f->Get("email"),
                         f->Get("display_name").value_or(""), false};
        auto u = auth::CreateUser(d.meta, nu, d.params);
        if (!u.ok()) return http::ErrorResponse(u.status());
        return Response::Json(201, UserJson(*u) + "\n");
      },
      kPublicJson);
  router.Add(
      "GET", "/api/v1/admin/settings",
      [d](Request&) {
        auto open = auth::RegistrationOpen(d.meta);
        if (!open.ok()) return http::ErrorResponse(open.status());
        return Response::Json(200, std::string("{\"registration\":") + (*open ? "true" : "false") + "}\n");
      },
      kAdmin);
  router.Add(
      "PATCH", "/api/v1/admin/settings",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"registration", JsonType::kBool}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        if (auto reg = f->Get("registration")) {
          Status st = auth::SetRegistrationOpen(d.meta, *reg == "true");
          if (!st.ok()) return http::ErrorResponse(st);
        }
        auto open = auth::RegistrationOpen(d.meta);
        if (!open.ok()) return http::ErrorResponse(open.status());
        return Response::Json(200, std::string("{\"registration\":") + (*open ? "true" : "false") + "}\n");
      },
      kAdminJson);
}

void RegisterAdminRoutes(http::Router& router, const AccountDeps& d) {
  // "End every session": every sign-in and every app password of the
  // account stop working (the account may be compromised; its sync
  // clients need new app passwords).
  router.Add(
      "DELETE", "/api/v1/admin/users/{name}/sessions",
      [d](Request& req) {
        const std::string name(req.Param("name"));
        auto id = UserIdByName(d.meta, name);
        if (!id.ok()) return http::ErrorResponse(id.status());
        Status st = d.sessions.RevokeOthers(*id, "");
        if (!st.ok()) return http::ErrorResponse(st);
        auto gone = auth::RevokeAllAppPasswords(d.meta, name);
        if (!gone.ok()) return http::ErrorResponse(gone.status());
        Forget(d, *id);
        return Response::Empty(204);
      },
      kAdmin);
  router.Add(
      "GET", "/api/v1/admin/users/{name}/app-passwords",
      [d](Request& req) {
        auto id = UserIdByName(d.meta, std::string(req.Param("name")));
        if (!id.ok()) return http::ErrorResponse(id.status());
        return AppPasswordList(d, *id);
      },
      kAdmin);
  router.Add(
      "DELETE", "/api/v1/admin/users/{name}/app-passwords/{id}",
      [d](Request& req) {
        const std::string name(req.Param("name"));
        auto user = UserIdByName(d.meta, name);
        if (!user.ok()) return http::ErrorResponse(user.status());
        auto id = ParseUint64(req.Param("id"));
        Status st = id ? auth::RevokeAppPassword(d.meta, name, static_cast<int64_t>(*id))
                       : Status::NotFound("no such app password");
        if (!st.ok()) {
          return http::ErrorResponse(st.code() == Code::kNotFound ? Status::NotFound("no such app password") : st);
        }
        Forget(d, *user);
        return Response::Empty(204);
      },
      kAdmin);
  router.Add(
      "POST", "/api/v1/admin/users",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"username", JsonType::kString}, {"password", JsonType::kString},
                                        {"admin", JsonType::kBool}, {"email", JsonType::kString},
                                        {"display_name", JsonType::kString}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        if (!f->Get("username") || !f->Get("password")) {
          return http::ErrorResponse(Status::InvalidArgument("username and password are required"));
        }
        auth::NewUser nu{*f->Get("username"), *f->Get("password"), f->Get("admin") == "true",
                         f->Get("email"), f->Get("display_name").value_or(""), false};
        auto u = auth::CreateUser(d.meta, nu, d.params);
        if (!u.ok()) return http::ErrorResponse(u.status());
        return Response::Json(201, UserJson(*u) + "\n");
      },
      kAdminJson);
  router.Add(
      "PATCH", "/api/v1/admin/users/{name}",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"role", JsonType::kString}, {"active", JsonType::kBool},
                                        {"quota_bytes", JsonType::kInt}, {"unlimited", JsonType::kBool}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        const std::string name(req.Param("name"));
        auto id = UserIdByName(d.meta, name);
        if (!id.ok()) return http::ErrorResponse(id.status());
        Status st;
        if (auto role = f->Get("role")) {
          if (*role != "admin" && *role != "user") {
            return http::ErrorResponse(Status::InvalidArgument("role must be admin or user"));
          }
          st = auth::SetRole(d.meta, name, *role == "admin");
        }
        if (st.ok() && f->Get("active")) st = auth::SetActive(d.meta, name, f->Get("active") == "true");
        if (st.ok() && f->Get("quota_bytes")) {
          st = auth::SetQuota(d.meta, name, static_cast<int64_t>(*ParseUint64(*f->Get("quota_bytes"))));
        } else if (st.ok() && f->Get("unlimited") == "true") {
          st = auth::SetQuota(d.meta, name, std::nullopt);
        }
        Forget(d, *id);
        if (!st.ok()) return http::ErrorResponse(st);
        auto u = LoadUser(d.meta, *id);
        if (!u.ok()) return http::ErrorResponse(u.status());
        return Response::Json(200, UserJson(*u) + "\n");
      },
      kAdminJson);
  router.Add(
      "POST", "/api/v1/admin/users/{name}/password",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"password", JsonType::kString}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        if (!f->Get("password")) return http::ErrorResponse(Status::InvalidArgument("password is required"));
        const std::string name(req.Param("name"));
        auto id = UserIdByName(d.meta, name);
        if (!id.ok()) return http::ErrorResponse(id.status());
        // A reset means the account may be in someone else's hands: every
        // session and every app password ends with the old password.
        Status st = auth::SetPassword(d.meta, name, *f->Get("password"), d.params, {},
                                      /*revoke_app_passwords=*/true);
        if (!st.ok()) return http::ErrorResponse(st);
        Forget(d, *id);
        return Response::Empty(204);
      },
      kAdminJson);
}

}  // namespace

void RegisterAccountRoutes(http::Router& router, AccountDeps d) {
  RegisterSignupRoutes(router, d);
  RegisterProfileRoutes(router, d);
  RegisterAdminRoutes(router, d);
  RegisterAuthRoutes(router, d);
  router.Add("GET", "/api/openapi.json", [](Request&) {
    Response r = Response::Json(200, std::string(OpenApiDocument()));
    r.headers.Set("Cache-Control", "no-cache");
    return r;
  });
  router.Add(
      "POST", "/api/v1/setup",
      [d](Request& req) {
        if (auto t = Throttle(d, "setup", req.client_ip)) return std::move(*t);
        auto f = ParseStringObject(req.body, {"username", "password", "email", "display_name"});
        if (!f.ok()) return http::ErrorResponse(f.status());
        if (!f->Get("username") || !f->Get("password")) {
          return http::ErrorResponse(Status::InvalidArgument("username and password are required"));
        }
        auth::NewUser nu{*f->Get("username"), *f->Get("password"), true, f->Get("email"),
                         f->Get("display_name").value_or(""), true};
        auto u = auth::CreateUser(d.meta, nu, d.params);
        if (!u.ok()) return http::ErrorResponse(u.status());
        return Response::Json(201, UserJson(*u) + "\n");
      },
      kPublicJson);

  // Whether first-run setup is still open, without side effects (the web
  // UI decides between "sign in" and "create the administrator").
  router.Add(
      "GET", "/api/v1/setup",
      [d](Request&) {
        int64_t users = 0;
        Status st = d.meta.Read([&](meta::ReadTxn& t) -> Status {
          NUBO_ASSIGN_OR_RETURN(users, t.CountUsers());
          return Status::Ok();
        });
        if (!st.ok()) return http::ErrorResponse(st);
        return Response::Json(200, std::string("{\"open\":") + (users == 0 ? "true" : "false") + "}\n");
      },
      {.access = http::Access::kPublic, .body = http::BodyPolicy::kNone, .blocking = true});

  router.Add(
      "GET", "/api/v1/me",
      [d](Request& req) {
        auto u = LoadUser(d.meta, req.principal->user_id);
        if (!u.ok()) return http::ErrorResponse(u.status());
        return Response::Json(200, UserJson(*u) + "\n");
      },
      kUser);

  router.Add(
      "GET", "/api/v1/me/app-passwords",
      [d](Request& req) { return AppPasswordList(d, req.principal->user_id); }, kAccount);

  router.Add(
      "POST", "/api/v1/me/app-passwords",
      [d](Request& req) {
        auto f = ParseObject(req.body, {{"label", JsonType::kString}, {"scopes", JsonType::kStringArray}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        uint32_t scopes = auth::kDefaultAppPasswordScopes;
        if (auto it = f->arrays.find("scopes"); it != f->arrays.end()) {
          scopes = 0;
          for (const std::string& name : it->second) {
            if (name == "files") {
              scopes |= auth::kScopeFiles;
            } else if (name == "groupware") {
              scopes |= auth::kScopeGroupware;
            } else {
              return http::ErrorResponse(Status::InvalidArgument(
                  "scopes may hold \"files\" and \"groupware\" only; an app password never "
                  "manages the account or administers"));
            }
          }
        }
        auto app = auth::CreateAppPassword(d.meta, req.principal->username, f->Get("label").value_or(""),
                                           scopes);
        if (!app.ok()) return http::ErrorResponse(app.status());
        return Response::Json(201, "{\"id\":" + std::to_string(app->row.id) + ",\"label\":" +
                                       JsonQuote(app->row.label) + ",\"scopes\":" + ScopesJson(scopes) +
                                       ",\"password\":" + JsonQuote(app->secret) + "}\n");
      },
      kAccountJson);

  router.Add(
      "DELETE", "/api/v1/me/app-passwords/{id}",
      [d](Request& req) {
        auto id = ParseUint64(req.Param("id"));
        // Someone else's id answers exactly like a missing one (404).
        Status st = id ? auth::RevokeAppPassword(d.meta, req.principal->username, static_cast<int64_t>(*id))
                       : Status::NotFound("no such app password");
        if (!st.ok()) return http::ErrorResponse(st.code() == Code::kNotFound
                                                     ? Status::NotFound("no such app password")
                                                     : st);
        d.authn.InvalidateUser(req.principal->user_id);
        return Response::Empty(204);
      },
      kAccount);

  router.Add(
      "GET", "/api/v1/admin/users",
      [d](Request& req) {
        std::string after = req.Query("after").value_or("");
        std::string prefix = req.Query("q").value_or("");
        if (prefix.size() > 64) return http::ErrorResponse(Status::InvalidArgument("q is at most 64 characters"));
        auto limit = ParseUint64(req.Query("limit").value_or("100"));
        if (!limit || *limit == 0 || *limit > 1000) {
          return http::ErrorResponse(Status::InvalidArgument("limit must be 1 to 1000"));
        }
        std::vector<meta::UserRow> page;
        Status st = d.meta.Read([&](meta::ReadTxn& t) -> Status {
          NUBO_ASSIGN_OR_RETURN(page, t.ListUsers(after, *limit, prefix));
          return Status::Ok();
        });
        if (!st.ok()) return http::ErrorResponse(st);
        std::string out = "{\"users\":[";
        for (size_t i = 0; i < page.size(); ++i) {
          if (i) out += ',';
          out += UserJson(page[i]);
        }
        out += "],\"next\":";
        out += page.size() == *limit ? JsonQuote(page.back().username) : "null";
        return Response::Json(200, out + "}\n");
      },
      kAdmin);
}

}  // namespace nubo::api
