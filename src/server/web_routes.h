// Serves the web UI's build (web/dist) at "/": hashed files under
// /assets/ are immutable for a year, index.html is revalidated every time,
// and any other path that is not a file answers index.html so the
// single-page app can route it (deep links, reloads). A strict Content
// Security Policy goes with every UI response. Thread-safe.
#pragma once

#include <string>

namespace nubo::http {
class Router;
}

namespace nubo::server {

// `dir` is the build output; when it has no index.html the UI routes
// answer a short note that the UI is not built.
void RegisterWebRoutes(http::Router& router, const std::string& dir);

}  // namespace nubo::server
