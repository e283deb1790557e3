#include "http/response.h"

namespace nubo::http {

Response Response::Text(int status, std::string body, std::string_view content_type) {
  Response r;
  r.status = status;
  r.headers.Set("Content-Type", std::string(content_type));
  r.body = std::move(body);
  return r;
}

Response Response::Json(int status, std::string body) {
  return Text(status, std::move(body), "application/json");
}

Response Response::Empty(int status) {
  Response r;
  r.status = status;
  return r;
}

}  // namespace nubo::http
