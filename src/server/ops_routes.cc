#include "server/ops_routes.h"

#include "http/router.h"
#include "http/status_map.h"
#include "server/metrics.h"

namespace nubo::server {

void RegisterOpsRoutes(http::Router& router, Metrics& metrics, std::function<Status()> ready) {
  router.Add("GET", "/health", [](http::Request&) {
    http::Response r = http::Response::Json(200, "{\"status\":\"ok\"}\n");
    r.headers.Set("Cache-Control", "no-store");
    return r;
  });
  router.Add("GET", "/ready",
             [ready = std::move(ready)](http::Request&) {
               Status st = ready();
               if (!st.ok()) {
                 return http::ErrorResponse(503, Code::kUnavailable, "not ready: " + st.message());
               }
               http::Response r = http::Response::Json(200, "{\"status\":\"ready\"}\n");
               r.headers.Set("Cache-Control", "no-store");
               return r;
             },
             {.blocking = true});
  router.Add("GET", "/metrics", [&metrics](http::Request&) {
    return http::Response::Text(200, metrics.Render(), "text/plain; version=0.0.4; charset=utf-8");
  });
}

}  // namespace nubo::server
