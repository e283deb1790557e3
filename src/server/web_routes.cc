#include "server/web_routes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/mime.h"
#include "http/body.h"
#include "http/file_source.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/posix_error.h"
#include "util/strings.h"

namespace nubo::server {

namespace {

// No inline script, no eval, nothing from other origins (issue: strict
// CSP); media and images may come from blob: URLs the viewers create.
constexpr const char* kCsp =
    "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; "
    "style-src 'self'; script-src 'self'; connect-src 'self'; "
    "frame-src 'self'; object-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action "
    "'self'";

// Opens `path` if it is a regular file.
std::optional<http::Response> ServeFile(const std::string& path, bool immutable) {
  auto source = http::FileSource::Open(path);
  if (!source) return std::nullopt;
  http::Response r;
  std::string mime = files::MimeFromExtension(path);
  if (mime.empty()) mime = "application/octet-stream";
  if (mime.rfind("text/", 0) == 0 || mime == "application/javascript" || mime == "image/svg+xml") {
    mime += "; charset=utf-8";
  }
  r.headers.Set("Content-Type", mime);
  r.headers.Set("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
  r.headers.Set("X-Content-Type-Options", "nosniff");
  r.headers.Set("Content-Security-Policy", kCsp);
  r.headers.Set("Referrer-Policy", "same-origin");
  r.source = std::move(source);
  return r;
}

}  // namespace

void RegisterWebRoutes(http::Router& router, const std::string& dir) {
  auto handler = [dir](http::Request& req) -> http::Response {
    // API and protocol prefixes never fall back to the app: a wrong API
    // path must stay a 404, not an HTML page.
    if (!req.segments.empty()) {
      const std::string& first = req.segments[0];
      if (first == "api" || first == "dav" || first == "webdav" || first == "_test") {
        return http::ErrorResponse(404, Code::kNotFound, "no such endpoint");
      }
    }
    // Segments are decoded and never "." or ".." (the target parser
    // refuses them); hidden files stay hidden.
    std::string rel;
    for (const std::string& s : req.segments) {
      if (s.empty() || s[0] == '.' || s.find('\0') != std::string::npos) {
        return http::ErrorResponse(404, Code::kNotFound, "not found");
      }
      rel += "/" + s;
    }
    const bool asset = !req.segments.empty() && req.segments[0] == "assets";
    if (!rel.empty()) {
      if (auto r = ServeFile(dir + rel, asset)) return std::move(*r);
      // A missing hashed asset is a real 404 (a stale page asking for an
      // old build), not the app.
      if (asset) return http::ErrorResponse(404, Code::kNotFound, "no such asset");
    }
    if (auto r = ServeFile(dir + "/index.html", false)) return std::move(*r);
    // No UI build: only "/" explains; any other path is an honest 404.
    if (!rel.empty()) return http::ErrorResponse(404, Code::kNotFound, "no such resource");
    return http::Response::Text(
        200, "nubo is running; the web UI is not built (cd web && npm ci && npm run build).\n");
  };
  const http::RouteOptions ro{http::Access::kPublic, http::BodyPolicy::kNone, 0, true};
  router.Add("GET", "/", handler, ro);
  router.Add("GET", "/{path...}", handler, ro);
}

}  // namespace nubo::server
