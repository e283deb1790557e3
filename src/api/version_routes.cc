// REST endpoints of file versions (files/versions.h):
//   GET    /api/v1/nodes/{id}/versions                    newest first
//   GET    /api/v1/nodes/{id}/versions/{vid}/content      ranges, conditionals
//   POST   /api/v1/nodes/{id}/versions/{vid}/restore      → the file
//   DELETE /api/v1/nodes/{id}/versions/{vid}
// Accounts only: a public link's bearer sees no versions.
#include "api/content_response.h"
#include "api/file_routes.h"
#include "api/json.h"
#include "api/node_json.h"
#include "api/route_options.h"
#include "files/files.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/strings.h"

namespace nubo::api {

namespace {

using http::Request;
using http::Response;

std::string VersionJson(const meta::VersionRow& v) {
  return "{\"id\":" + JsonQuote(v.public_id) + ",\"size\":" + std::to_string(v.size) +
         ",\"modified\":" + std::to_string(v.mtime_ms) +
         ",\"replaced_at\":" + std::to_string(v.created_at_ms) +
         ",\"hash\":" + JsonQuote(files::HashHex(v.hash)) +
         ",\"charged_bytes\":" + std::to_string(v.charged) +
         ",\"author\":" + (v.author_name.empty() ? std::string("null") : JsonQuote(v.author_name)) +
         "}";
}

}  // namespace

void RegisterVersionRoutes(http::Router& router, files::Files& files) {
  files::Files* f = &files;
  constexpr http::RouteOptions kRead = PlainRoute(http::Access::kUser);
  router.Add(
      "GET", "/api/v1/nodes/{id}/versions",
      [f](Request& req) {
        auto versions = f->ListVersions(*req.principal, req.Param("id"));
        if (!versions.ok()) return http::ErrorResponse(versions.status());
        std::string j = "{\"items\":[";
        for (size_t i = 0; i < versions->size(); ++i) {
          if (i) j += ",";
          j += VersionJson((*versions)[i]);
        }
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "GET", "/api/v1/nodes/{id}/versions/{vid}/content",
      [f](Request& req) {
        auto fc = f->OpenVersion(*req.principal, req.Param("id"), req.Param("vid"));
        if (!fc.ok()) return http::ErrorResponse(fc.status());
        return ContentResponse(*f, req, *fc, req.principal->user_id);
      },
      kRead);
  router.Add(
      "POST", "/api/v1/nodes/{id}/versions/{vid}/restore",
      [f](Request& req) {
        auto n = f->RestoreVersion(*req.principal, req.Param("id"), req.Param("vid"));
        if (!n.ok()) return http::ErrorResponse(n.status());
        Response r = Response::Json(200, NodeJson(*n) + "\n");
        r.headers.Set("ETag", files::NodeETag(*n));
        return r;
      },
      JsonRoute(http::Access::kUser));
  router.Add(
      "DELETE", "/api/v1/nodes/{id}/versions/{vid}",
      [f](Request& req) {
        Status st = f->DeleteVersion(*req.principal, req.Param("id"), req.Param("vid"));
        return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
      },
      kRead);
}

}  // namespace nubo::api
