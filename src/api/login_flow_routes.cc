#include "api/login_flow_routes.h"

#include "auth/login_flows.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/strings.h"

namespace nubo::api {

using http::Request;
using http::Response;

void RegisterLoginFlowRoutes(http::Router& router, auth::LoginFlows& flows) {
  auth::LoginFlows* f = &flows;
  http::RouteOptions account{.access = http::Access::kAccount, .blocking = true};
  router.Add(
      "GET", "/api/v1/login-flows/{token}",
      [f](Request& req) -> Response {
        auto p = f->Describe(req.Param("token"));
        if (!p.ok()) return http::ErrorResponse(p.status());
        Response r =
            Response::Json(200, "{\"client_name\":" + JsonQuote(p->client_name) +
                                    ",\"expires_at\":" + std::to_string(p->expires_at_ms) + "}");
        r.headers.Set("Cache-Control", "no-store");
        return r;
      },
      account);
  http::RouteOptions grant = account;
  grant.body = http::BodyPolicy::kBuffered;
  grant.max_body = 64;
  router.Add(
      "POST", "/api/v1/login-flows/{token}/grant",
      [f](Request& req) -> Response {
        Status st = f->Grant(*req.principal, req.Param("token"));
        if (!st.ok()) return http::ErrorResponse(st);
        return Response::Empty(204);
      },
      grant);
}

}  // namespace nubo::api
