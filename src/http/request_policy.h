// Rules every request obeys before authentication, whatever the route and
// the credential (CSRF by construction, ARCHITECTURE.md §4.7):
//
//  - An unsafe method (anything but GET, HEAD, OPTIONS, PROPFIND, REPORT)
//    sent by a browser on behalf of another site is refused (403), unless
//    the route is meant for it (RouteOptions::cross_site). Browsers say so
//    with Sec-Fetch-Site (cross-site or same-site) or with an Origin other
//    than the request's own host. This covers every scheme at once: a
//    browser replays Basic credentials and cookies alike to a cross-site
//    form, so checking only cookie sessions (as the CSRF token does) left
//    Basic open. Clients that are not browsers (rclone, sync clients,
//    curl) send neither header and are unaffected.
//  - A JSON route's body must say it is JSON (application/json or any
//    +json type): 415 otherwise. HTML forms cannot send that content type
//    cross-site without a CORS preflight, which nubo never grants.
//
// Thread-safe (pure).
#pragma once

#include "http/request.h"
#include "http/router.h"
#include "util/status.h"

namespace nubo::http {

// RFC 9110 §9.2.1 safe methods, with WebDAV's read methods.
bool SafeMethod(std::string_view method);

// PermissionDenied (403) for a refused cross-site request, Unsupported
// (415) for a JSON route's non-JSON body; OK otherwise.
Status CheckRequestPolicy(const Request& req, const RouteOptions& route);

}  // namespace nubo::http
