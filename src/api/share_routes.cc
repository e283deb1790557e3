#include "api/share_routes.h"

#include "api/json.h"
#include "api/node_json.h"
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

#define NUBO_OR_ERROR(var, expr)                                             \
  auto var##_result = (expr);                                                \
  if (!var##_result.ok()) return http::ErrorResponse(var##_result.status()); \
  auto& var = *var##_result

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

constexpr http::RouteOptions kRead{
    .access = http::Access::kUser, .body = http::BodyPolicy::kNone, .blocking = true};
constexpr http::RouteOptions kJson{.access = http::Access::kUser,
                                   .body = http::BodyPolicy::kBuffered,
                                   .max_body = 16 << 10,
                                   .blocking = true,
                                   .json = true};
constexpr http::RouteOptions kAdmin{
    .access = http::Access::kAdmin, .body = http::BodyPolicy::kNone, .blocking = true};
constexpr http::RouteOptions kAdminJson{.access = http::Access::kAdmin,
                                        .body = http::BodyPolicy::kBuffered,
                                        .max_body = 16 << 10,
                                        .blocking = true,
                                        .json = true};

}  // namespace

void RegisterShareRoutes(http::Router& router, Sharing& sharing) {
  Sharing* s = &sharing;

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
               ",\"display_name\":" + JsonQuote(it.owner_name) + "}}";
        }
        j += "],\"next_cursor\":" + NextCursor(page.next_cursor);
        return Response::Json(200, j + "}\n");
      },
      kRead);
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
