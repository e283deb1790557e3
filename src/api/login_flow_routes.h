// The web UI's side of Login Flow v2 (auth/login_flows.h): the signed-in
// user sees which client asks and grants it.
//   GET  /api/v1/login-flows/{token}         {"client_name", "expires_at"}
//   POST /api/v1/login-flows/{token}/grant   204; an app password for the client
// Both need the account itself (a session or the account password, never
// an app password); an unknown, expired or granted flow is 404.
#pragma once

namespace nubo::auth {
class LoginFlows;
}
namespace nubo::http {
class Router;
}

namespace nubo::api {

void RegisterLoginFlowRoutes(http::Router& router, auth::LoginFlows& flows);

}  // namespace nubo::api
