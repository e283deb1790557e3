// Operations endpoints for load balancers and Prometheus:
//   GET /health   liveness: the process answers (200 {"status":"ok"})
//   GET /ready    readiness: storage reachable (200, or 503 with the reason)
//   GET /metrics  Prometheus text format
#pragma once

#include <functional>

#include "util/status.h"

namespace nubo::http {
class Router;
}

namespace nubo::server {

class Metrics;

// `ready` reports whether storage is reachable; it runs on the blocking pool.
void RegisterOpsRoutes(http::Router& router, Metrics& metrics, std::function<Status()> ready);

}  // namespace nubo::server
