// The router's guard: authenticates the caller (HTTP Basic today; bearer
// sessions next) for every route that is not public, and checks the
// route's access level. One choke point for every surface.
#pragma once

#include "auth/authenticator.h"
#include "http/router.h"

namespace nubo::server {

http::Guard MakeAuthGuard(auth::Authenticator& authn);

}  // namespace nubo::server
