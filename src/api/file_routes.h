// REST endpoints for drives, files and folders (documented in
// /api/openapi.json): listings, uploads (raw and multipart), downloads with
// ranges and conditionals, rename/move/copy, trash, favorites, recent,
// search, ZIP. Thin: requests are parsed here and every decision is made by
// files::Files, which WebDAV shares.
#pragma once

namespace nubo::files {
class Files;
}
namespace nubo::http {
class Router;
}

namespace nubo::api {

void RegisterFileRoutes(http::Router& router, files::Files& files);

}  // namespace nubo::api
