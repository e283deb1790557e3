#include "api/share_routes.h"

#include "files/files.h"

#include "api/json.h"
#include "api/node_json.h"
#include "api/route_options.h"
#include "auth/links.h"
#include "http/cookies.h"
#include "http/router.h"
#include "http/status_map.h"
#include "share/sharing.h"
#include "util/strings.h"

namespace nubo::api {

namespace {

using http::Request;
using http::Response;
using share::Sharing;

const auth::Principal& Who(const Request& req) { return *req.principal; }

Response Done(const Status& st, int status = 204) {
  return st.ok() ? Response::Empty(status) : http::ErrorResponse(st);
}

Result<size_t> Limit(const Request& req, size_t fallback) {
  auto v = req.Query("limit");
  if (!v) return fallback;
  auto n = ParseUint64(*v);
  if (!n || *n < 1 || *n > 500) return Status::InvalidArgument("limit must be 1..500");
  return static_cast<size_t>(*n);
}

std::string GroupJson(const meta::GroupRow& g) {
  return "{\"id\":" + JsonQuote(g.public_id) + ",\"name\":" + JsonQuote(g.name) +
         ",\"created\":" + std::to_string(g.created_at_ms) + "}";
}

std::string PermsJson(authz::Perms p) {
  std::string j = "[";
  bool first = true;
  for (authz::Action a :
       {authz::Action::kRead, authz::Action::kList, authz::Action::kCreate, authz::Action::kModify,
        authz::Action::kDelete, authz::Action::kShare, authz::Action::kManage}) {
    if (!p.Has(a)) continue;
    if (!first) j += ",";
    first = false;
    j += JsonQuote(authz::ActionName(a));
  }
  return j + "]";
}

std::string GrantJson(const meta::GrantRow& g) {
  auto role = static_cast<authz::Role>(g.role);
  return "{\"id\":" + JsonQuote(g.public_id) + ",\"node_id\":" + JsonQuote(g.node_public_id) +
         ",\"grantee\":{\"type\":" + (g.grantee_group ? "\"group\"" : "\"user\"") +
         ",\"id\":" + JsonQuote(g.grantee_public_id) + ",\"name\":" + JsonQuote(g.grantee_name) +
         "},\"role\":" + JsonQuote(authz::RoleName(role)) +
         ",\"may_reshare\":" + (g.may_reshare ? "true" : "false") + ",\"expires_at\":" +
         (g.expires_at_ms ? std::to_string(*g.expires_at_ms) : std::string("null")) +
         ",\"created\":" + std::to_string(g.created_at_ms) + "}";
}

std::string NextCursor(const std::string& c) {
  return c.empty() ? std::string("null") : JsonQuote(c);
}

// {"user": name} or {"group": id}, plus the grant's settings.
Result<share::GrantSpec> ParseGrantSpec(std::string_view body) {
  NUBO_ASSIGN_OR_RETURN(auto f, ParseObject(body, {{"user", JsonType::kString},
                                                   {"group", JsonType::kString},
                                                   {"role", JsonType::kString},
                                                   {"may_reshare", JsonType::kBool},
                                                   {"expires_at", JsonType::kInt}}));
  share::GrantSpec s;
  s.user = f.Get("user").value_or("");
  s.group_id = f.Get("group").value_or("");
  auto role = authz::ParseRole(f.Get("role").value_or(""));
  if (!role) return Status::InvalidArgument("role must be viewer, editor or manager");
  s.role = *role;
  s.may_reshare = f.Get("may_reshare").value_or("false") == "true";
  if (auto e = f.Get("expires_at")) s.expires_at_ms = static_cast<int64_t>(*ParseUint64(*e));
  return s;
}

Result<share::GrantPatch> ParseGrantPatch(std::string_view body) {
  NUBO_ASSIGN_OR_RETURN(auto f, ParseObject(body, {{"role", JsonType::kString},
                                                   {"may_reshare", JsonType::kBool},
                                                   {"expires_at", JsonType::kInt}}));
  share::GrantPatch p;
  if (auto r = f.Get("role")) {
    p.role = authz::ParseRole(*r);
    if (!p.role) return Status::InvalidArgument("role must be viewer, editor or manager");
  }
  if (auto m = f.Get("may_reshare")) p.may_reshare = *m == "true";
  if (auto e = f.Get("expires_at")) {
    // 0 removes the expiry (JSON null means "unchanged", like every field).
    const int64_t at = static_cast<int64_t>(*ParseUint64(*e));
    p.expires_at_ms = at == 0 ? std::optional<int64_t>() : std::optional<int64_t>(at);
  }
  return p;
}

Result<share::MemberRef> ParseMember(std::string_view body) {
  NUBO_ASSIGN_OR_RETURN(
      auto f, ParseObject(body, {{"user", JsonType::kString}, {"group", JsonType::kString}}));
  return share::MemberRef{f.Get("user").value_or(""), f.Get("group").value_or("")};
}

std::string LinkJson(const meta::LinkRow& l, const std::string& token = "") {
  std::string j =
      "{\"id\":" + JsonQuote(l.public_id) + ",\"node_id\":" + JsonQuote(l.node_public_id) +
      ",\"role\":" + JsonQuote(share::LinkRoleName(l.role)) +
      ",\"has_password\":" + (l.password_hash ? "true" : "false") + ",\"expires_at\":" +
      (l.expires_at_ms ? std::to_string(*l.expires_at_ms) : std::string("null")) +
      ",\"max_downloads\":" +
      (l.max_downloads ? std::to_string(*l.max_downloads) : std::string("null")) +
      ",\"downloads\":" + std::to_string(l.downloads) + ",\"label\":" + JsonQuote(l.label) +
      ",\"token_hint\":" + JsonQuote(l.token_hint) +
      ",\"created\":" + std::to_string(l.created_at_ms);
  if (!token.empty()) {
    j += ",\"token\":" + JsonQuote(token) + ",\"url\":" + JsonQuote("/s/" + token);
  }
  return j + "}";
}

Result<share::LinkSpec> ParseLinkSpec(std::string_view body) {
  NUBO_ASSIGN_OR_RETURN(auto f, ParseObject(body, {{"role", JsonType::kString},
                                                   {"password", JsonType::kString},
                                                   {"expires_at", JsonType::kInt},
                                                   {"max_downloads", JsonType::kInt},
                                                   {"label", JsonType::kString}}));
  share::LinkSpec spec;
  auto role = share::ParseLinkRole(f.Get("role").value_or("view"));
  if (!role) return Status::InvalidArgument("role must be view, edit or drop");
  spec.role = *role;
  spec.password = f.Get("password");
  if (auto e = f.Get("expires_at")) spec.expires_at_ms = static_cast<int64_t>(*ParseUint64(*e));
  if (auto m = f.Get("max_downloads")) spec.max_downloads = static_cast<int64_t>(*ParseUint64(*m));
  spec.label = f.Get("label").value_or("");
  return spec;
}

// Every field optional; "" removes the password, 0 the expiry or the limit
// (JSON null leaves a field as it is).
Result<share::LinkPatch> ParseLinkPatch(std::string_view body) {
  NUBO_ASSIGN_OR_RETURN(auto f, ParseObject(body, {{"role", JsonType::kString},
                                                   {"password", JsonType::kString},
                                                   {"expires_at", JsonType::kInt},
                                                   {"max_downloads", JsonType::kInt},
                                                   {"label", JsonType::kString}}));
  share::LinkPatch p;
  if (auto r = f.Get("role")) {
    p.role = share::ParseLinkRole(*r);
    if (!p.role) return Status::InvalidArgument("role must be view, edit or drop");
  }
  if (auto pw = f.Get("password")) {
    p.password = pw->empty() ? std::optional<std::string>() : std::optional<std::string>(*pw);
  }
  auto zero_clears = [](const std::string& v) {
    const int64_t n = static_cast<int64_t>(*ParseUint64(v));
    return n == 0 ? std::optional<int64_t>() : std::optional<int64_t>(n);
  };
  if (auto e = f.Get("expires_at")) p.expires_at_ms = zero_clears(*e);
  if (auto m = f.Get("max_downloads")) p.max_downloads = zero_clears(*m);
  p.label = f.Get("label");
  return p;
}

constexpr http::RouteOptions kLinkRead = PlainRoute(http::Access::kLink);
constexpr http::RouteOptions kPublicJson = JsonRoute(http::Access::kPublic, 4 << 10);

constexpr http::RouteOptions kRead = PlainRoute(http::Access::kUser);
constexpr http::RouteOptions kJson = JsonRoute(http::Access::kUser, 16 << 10);
constexpr http::RouteOptions kAdmin = PlainRoute(http::Access::kAdmin);
constexpr http::RouteOptions kAdminJson = JsonRoute(http::Access::kAdmin, 16 << 10);

}  // namespace

void RegisterShareRoutes(http::Router& router, Sharing& sharing, files::Files& files,
                         auth::LinkVerifier& links, bool secure_cookies) {
  Sharing* s = &sharing;
  auth::LinkVerifier* lv = &links;

  // ---- Public links: management ----
  router.Add(
      "GET", "/api/v1/nodes/{id}/links",
      [s](Request& req) {
        NUBO_OR_ERROR(list, s->ListLinks(Who(req), req.Param("id")));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < list.size(); ++i) j += (i ? "," : "") + LinkJson(list[i]);
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "POST", "/api/v1/nodes/{id}/links",
      [s](Request& req) {
        NUBO_OR_ERROR(spec, ParseLinkSpec(req.body));
        NUBO_OR_ERROR(made, s->CreateLink(Who(req), req.Param("id"), spec));
        return Response::Json(201, LinkJson(made.link, made.token) + "\n");
      },
      kJson);
  router.Add(
      "PATCH", "/api/v1/links/{id}",
      [s](Request& req) {
        NUBO_OR_ERROR(patch, ParseLinkPatch(req.body));
        NUBO_OR_ERROR(l, s->UpdateLink(Who(req), req.Param("id"), patch));
        return Response::Json(200, LinkJson(l) + "\n");
      },
      kJson);
  router.Add(
      "DELETE", "/api/v1/links/{id}",
      [s](Request& req) { return Done(s->DeleteLink(Who(req), req.Param("id"))); }, kRead);

  // ---- Public links: the bearer's side (the node routes are in file_routes) ----
  router.Add(
      "GET", "/api/v1/public/{token}",
      [s](Request& req) {
        NUBO_OR_ERROR(l, s->LinkOf(Who(req)));
        std::string j =
            "{\"role\":" + JsonQuote(share::LinkRoleName(l.role)) +
            ",\"node_id\":" + JsonQuote(l.node_public_id) + ",\"expires_at\":" +
            (l.expires_at_ms ? std::to_string(*l.expires_at_ms) : std::string("null")) +
            ",\"downloads_left\":" +
            (l.max_downloads ? std::to_string(std::max<int64_t>(0, *l.max_downloads - l.downloads))
                             : std::string("null")) +
            "}";
        return Response::Json(200, j + "\n");
      },
      kLinkRead);
  router.Add(
      "POST", "/api/v1/public/{token}/unlock",
      [lv, secure_cookies](Request& req) {
        NUBO_OR_ERROR(f, ParseObject(req.body, {{"password", JsonType::kString}}));
        const std::string token(req.Param("token"));
        auth::BasicFailure why;
        auto r = lv->Unlock(token, f.Get("password").value_or(""), req.client_ip, &why);
        if (!r.ok()) {
          if (r.status().code() == Code::kResourceExhausted)
            return http::TooManyAttempts(why.retry_after_s);
          return http::ErrorResponse(r.status());
        }
        Response res = Response::Empty(204);
        // Scoped to this link's routes: it opens nothing else.
        res.headers.Add("Set-Cookie", http::SetCookieValue(auth::LinkVerifier::kCookie, r->first,
                                                           {"/api/v1/public/" + token, r->second,
                                                            true, secure_cookies, "Strict"}));
        return res;
      },
      kPublicJson);

  // ---- Groups ----
  router.Add(
      "GET", "/api/v1/groups",
      [s](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100));
        NUBO_OR_ERROR(groups, s->ListGroups(Who(req), req.Query("after").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < groups.size(); ++i) j += (i ? "," : "") + GroupJson(groups[i]);
        j += "],\"next_after\":" +
             (groups.size() == limit ? JsonQuote(groups.back().name) : std::string("null"));
        return Response::Json(200, j + "}\n");
      },
      kRead);
  router.Add(
      "POST", "/api/v1/groups",
      [s](Request& req) {
        NUBO_OR_ERROR(f, ParseObject(req.body, {{"name", JsonType::kString}}));
        NUBO_OR_ERROR(g, s->CreateGroup(Who(req), f.Get("name").value_or("")));
        return Response::Json(201, GroupJson(g) + "\n");
      },
      kAdminJson);
  router.Add(
      "GET", "/api/v1/groups/{id}",
      [s](Request& req) {
        NUBO_OR_ERROR(info, s->GetGroup(Who(req), req.Param("id")));
        std::string j = GroupJson(info.group);
        j.pop_back();
        j += ",\"members\":[";
        for (size_t i = 0; i < info.members.size(); ++i) {
          const meta::GroupMemberRow& m = info.members[i];
          j += std::string(i ? "," : "") + "{\"type\":" + (m.is_group ? "\"group\"" : "\"user\"") +
               ",\"id\":" + JsonQuote(m.public_id) + ",\"name\":" + JsonQuote(m.name) + "}";
        }
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "PATCH", "/api/v1/groups/{id}",
      [s](Request& req) {
        NUBO_OR_ERROR(f, ParseObject(req.body, {{"name", JsonType::kString}}));
        NUBO_OR_ERROR(g, s->RenameGroup(Who(req), req.Param("id"), f.Get("name").value_or("")));
        return Response::Json(200, GroupJson(g) + "\n");
      },
      kAdminJson);
  router.Add(
      "DELETE", "/api/v1/groups/{id}",
      [s](Request& req) { return Done(s->DeleteGroup(Who(req), req.Param("id"))); }, kAdmin);
  router.Add(
      "POST", "/api/v1/groups/{id}/members",
      [s](Request& req) {
        NUBO_OR_ERROR(m, ParseMember(req.body));
        return Done(s->AddMember(Who(req), req.Param("id"), m));
      },
      kAdminJson);
  router.Add(
      "DELETE", "/api/v1/groups/{id}/members/users/{name}",
      [s](Request& req) {
        return Done(s->RemoveMember(Who(req), req.Param("id"),
                                    share::MemberRef{std::string(req.Param("name")), ""}));
      },
      kAdmin);
  router.Add(
      "DELETE", "/api/v1/groups/{id}/members/groups/{member}",
      [s](Request& req) {
        return Done(s->RemoveMember(Who(req), req.Param("id"),
                                    share::MemberRef{"", std::string(req.Param("member"))}));
      },
      kAdmin);

  router.Add(
      "GET", "/api/v1/sharees",
      [s](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 20));
        NUBO_OR_ERROR(found, s->SearchSharees(Who(req), req.Query("q").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < found.size(); ++i) {
          const share::Sharee& x = found[i];
          j += std::string(i ? "," : "") + "{\"type\":" + (x.is_group ? "\"group\"" : "\"user\"") +
               ",\"id\":" + JsonQuote(x.id) + ",\"name\":" + JsonQuote(x.name) +
               ",\"display_name\":" + JsonQuote(x.display_name) + "}";
        }
        return Response::Json(200, j + "]}\n");
      },
      kRead);

  // ---- Shared drives' members ----
  router.Add(
      "GET", "/api/v1/drives/{id}/members",
      [s](Request& req) {
        NUBO_OR_ERROR(members, s->ListDriveMembers(Who(req), req.Param("id")));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < members.size(); ++i) {
          const meta::DriveMemberRow& m = members[i];
          j += std::string(i ? "," : "") + "{\"type\":" + (m.is_group ? "\"group\"" : "\"user\"") +
               ",\"id\":" + JsonQuote(m.public_id) + ",\"name\":" + JsonQuote(m.name) +
               ",\"role\":" + JsonQuote(authz::RoleName(static_cast<authz::Role>(m.role))) + "}";
        }
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "POST", "/api/v1/drives/{id}/members",
      [s](Request& req) {
        NUBO_OR_ERROR(f, ParseObject(req.body, {{"user", JsonType::kString},
                                                {"group", JsonType::kString},
                                                {"role", JsonType::kString}}));
        auto role = authz::ParseRole(f.Get("role").value_or(""));
        if (!role) {
          return http::ErrorResponse(
              Status::InvalidArgument("role must be viewer, editor or manager"));
        }
        return Done(s->SetDriveMember(
            Who(req), req.Param("id"),
            share::MemberRef{f.Get("user").value_or(""), f.Get("group").value_or("")}, *role));
      },
      kJson);
  router.Add(
      "DELETE", "/api/v1/drives/{id}/members/users/{name}",
      [s](Request& req) {
        return Done(s->RemoveDriveMember(Who(req), req.Param("id"),
                                         share::MemberRef{std::string(req.Param("name")), ""}));
      },
      kRead);
  router.Add(
      "DELETE", "/api/v1/drives/{id}/members/groups/{member}",
      [s](Request& req) {
        return Done(s->RemoveDriveMember(Who(req), req.Param("id"),
                                         share::MemberRef{"", std::string(req.Param("member"))}));
      },
      kRead);

  // ---- Grants ----
  router.Add(
      "GET", "/api/v1/nodes/{id}/grants",
      [s](Request& req) {
        NUBO_OR_ERROR(grants, s->ListGrants(Who(req), req.Param("id")));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < grants.size(); ++i) j += (i ? "," : "") + GrantJson(grants[i]);
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "POST", "/api/v1/nodes/{id}/grants",
      [s](Request& req) {
        NUBO_OR_ERROR(spec, ParseGrantSpec(req.body));
        NUBO_OR_ERROR(g, s->Grant(Who(req), req.Param("id"), spec));
        return Response::Json(201, GrantJson(g) + "\n");
      },
      kJson);
  router.Add(
      "PATCH", "/api/v1/grants/{id}",
      [s](Request& req) {
        NUBO_OR_ERROR(patch, ParseGrantPatch(req.body));
        NUBO_OR_ERROR(g, s->UpdateGrant(Who(req), req.Param("id"), patch));
        return Response::Json(200, GrantJson(g) + "\n");
      },
      kJson);
  router.Add(
      "DELETE", "/api/v1/grants/{id}",
      [s](Request& req) { return Done(s->Revoke(Who(req), req.Param("id"))); }, kRead);

  router.Add(
      "GET", "/api/v1/shared-with-me",
      [s](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100));
        NUBO_OR_ERROR(page, s->SharedWithMe(Who(req), req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          const share::SharedItem& it = page.items[i];
          auto role = authz::RoleOf(it.perms);
          j += std::string(i ? "," : "") + "{\"node\":" + NodeJson(it.node) +
               ",\"role\":" + JsonQuote(role ? authz::RoleName(*role) : "viewer") +
               ",\"permissions\":" + PermsJson(it.perms) +
               ",\"owner\":{\"username\":" + JsonQuote(it.owner) +
               ",\"display_name\":" + JsonQuote(it.owner_name) +
               "},\"hidden\":" + (it.hidden ? "true" : "false") + "}";
        }
        j += "],\"next_cursor\":" + NextCursor(page.next_cursor);
        return Response::Json(200, j + "}\n");
      },
      kRead);
  // Shows again (or removes) a received share in the caller's own WebDAV
  // tree; the grant itself is the owner's to change.
  router.Add(
      "PUT", "/api/v1/shared-with-me/{id}",
      [f = &files](Request& req) {
        NUBO_OR_ERROR(body, ParseObject(req.body, {{"hidden", JsonType::kBool}}));
        auto hidden = body.Get("hidden");
        if (!hidden) return Done(Status::InvalidArgument("\"hidden\" (true or false) is required"));
        return Done(f->HideMount(Who(req), req.Param("id"), *hidden == "true"));
      },
      kJson);
  router.Add(
      "GET", "/api/v1/shared-by-me",
      [s](Request& req) {
        NUBO_OR_ERROR(limit, Limit(req, 100));
        NUBO_OR_ERROR(page, s->SharedByMe(Who(req), req.Query("cursor").value_or(""), limit));
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < page.items.size(); ++i) {
          std::string g = GrantJson(page.items[i]);
          g.pop_back();
          j += std::string(i ? "," : "") + g + ",\"node\":" + NodeJson(page.nodes[i]) + "}";
        }
        j += "],\"next_cursor\":" + NextCursor(page.next_cursor);
        return Response::Json(200, j + "}\n");
      },
      kRead);
}

}  // namespace nubo::api
