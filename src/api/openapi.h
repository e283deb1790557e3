// The OpenAPI 3 document of the REST API (src/api/openapi.json, embedded at
// build time). api/openapi_test.cc holds it and the router to each other:
// every /api route is documented and every documented operation exists.
#pragma once

#include <string_view>

namespace nubo::api {

std::string_view OpenApiDocument();

}  // namespace nubo::api
