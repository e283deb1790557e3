// An HTTP response as domain code builds it. Small bodies go in `body`;
// large or generated ones come from a BodySource and are streamed by the
// transport. Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "http/body.h"
#include "http/headers.h"

namespace nubo::http {

struct Response {
  int status = 200;
  Headers headers;
  std::string body;                     // used when `source` is null
  std::unique_ptr<BodySource> source;   // streamed body (takes precedence)
  bool close = false;                   // send Connection: close and close after

  static Response Text(int status, std::string body,
                       std::string_view content_type = "text/plain; charset=utf-8");
  static Response Json(int status, std::string body);
  static Response Empty(int status);
};

}  // namespace nubo::http
