// The router's guard: authenticates the caller of every route that is not
// public into an auth::Principal (bearer or cookie sessions, HTTP Basic with
// an app password or the account password) and checks that the
// credential's scope reaches the route's access level (an app password
// never reaches account or admin routes). One choke point for every
// surface; what a principal may do to a resource is authz's (auth/authz.h)
// decision inside the domain. Public-link routes (http::Access::kLink) are
// authenticated by their link instead (auth/links.h): never by an
// account's credentials, so a link's page cannot act as anyone's account.
#pragma once

#include "auth/authenticator.h"
#include "auth/links.h"
#include "auth/sessions.h"
#include "http/router.h"

namespace nubo::server {

http::Guard MakeAuthGuard(auth::Authenticator& authn, auth::Sessions& sessions,
                          auth::LinkVerifier& links);

}  // namespace nubo::server
