// REST endpoints for sharing (documented in /api/openapi.json): groups,
// grants on nodes, and the "shared with me" / "shared by me" lists. Thin:
// every decision is made by share::Sharing and authz::Checker.
#pragma once

namespace nubo::share {
class Sharing;
}
namespace nubo::http {
class Router;
}

namespace nubo::api {

void RegisterShareRoutes(http::Router& router, share::Sharing& sharing);

}  // namespace nubo::api
