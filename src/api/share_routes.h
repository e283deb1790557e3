// REST endpoints for sharing (documented in /api/openapi.json): groups,
// grants on nodes, public links, and the "shared with me" / "shared by me"
// lists. Thin:
// every decision is made by share::Sharing and authz::Checker.
#pragma once

namespace nubo::share {
class Sharing;
}
namespace nubo::auth {
class LinkVerifier;
}
namespace nubo::http {
class Router;
}

namespace nubo::files {
class Files;
}

namespace nubo::api {

// Also: public links (management, the bearer's link info and unlock).
void RegisterShareRoutes(http::Router& router, share::Sharing& sharing, files::Files& files,
                         auth::LinkVerifier& links, bool secure_cookies);

}  // namespace nubo::api
