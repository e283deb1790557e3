// The router's guard: authenticates the caller (HTTP Basic today; bearer
// sessions next) for every route that is not public, and checks the
// route's access level. One choke point for every surface.
#pragma once

#include "auth/authenticator.h"
#include "auth/rate_limiter.h"
#include "auth/sessions.h"
#include "http/router.h"

namespace nubo::server {

// Failed sign-ins count against both the client IP and the account name;
// either locked answers 429 with Retry-After before any password check.
// Bearer access tokens (API and web sessions) and Basic credentials (DAV
// and sync clients) are both accepted.
http::Guard MakeAuthGuard(auth::Authenticator& authn, auth::FailureLimiter& limiter,
                          auth::Sessions& sessions);

}  // namespace nubo::server
