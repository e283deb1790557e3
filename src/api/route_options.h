// The route options the REST API's handlers register with (http/router.h),
// in one place: every route runs on the blocking pool (it reaches the
// database); JSON bodies are small and must say they are JSON.
#pragma once

#include <cstdint>

#include "http/router.h"
#include "http/status_map.h"

// Handlers: `var` is the value of the Result `expr`, or the handler answers
// its error (http/status_map.h).
#define NUBO_OR_ERROR(var, expr)                                             \
  auto var##_result = (expr);                                                \
  if (!var##_result.ok()) return http::ErrorResponse(var##_result.status()); \
  auto& var = *var##_result

namespace nubo::api {

// No body.
constexpr http::RouteOptions PlainRoute(http::Access access) {
  return {.access = access, .body = http::BodyPolicy::kNone, .blocking = true};
}

// A JSON body of at most `max_body` bytes.
constexpr http::RouteOptions JsonRoute(http::Access access, uint64_t max_body = 64 << 10) {
  return {.access = access,
          .body = http::BodyPolicy::kBuffered,
          .max_body = max_body,
          .blocking = true,
          .json = true};
}

}  // namespace nubo::api
