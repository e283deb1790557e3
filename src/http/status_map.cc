#include "http/status_map.h"

#include "util/strings.h"

namespace nubo::http {

int HttpStatusFor(Code code) {
  switch (code) {
    case Code::kOk: return 200;
    case Code::kInvalidArgument: return 400;
    case Code::kUnauthenticated: return 401;
    case Code::kPermissionDenied: return 403;
    case Code::kNotFound: return 404;
    case Code::kTimeout: return 408;
    case Code::kAlreadyExists: return 409;
    case Code::kConflict: return 409;
    case Code::kAborted: return 409;
    case Code::kPreconditionFailed: return 412;
    case Code::kLocked: return 423;
    case Code::kTooLarge: return 413;
    case Code::kUnsupported: return 415;
    case Code::kRangeNotSatisfiable: return 416;
    // Disk or database full (ENOSPC, SQLITE_FULL): RFC 4918 §11.5 507.
    case Code::kResourceExhausted: return 507;
    case Code::kUnavailable: return 503;
    // RFC 4918 §11.5: the Nextcloud and WebDAV clients understand 507 as "quota".
    case Code::kQuotaExceeded: return 507;
    case Code::kIoError: return 500;
    case Code::kCorruption: return 500;
    case Code::kInternal: return 500;
  }
  return 500;
}

Response ErrorResponse(int http_status, Code code, std::string_view message) {
  std::string body = "{\"error\":";
  body += JsonQuote(CodeName(code));
  body += ",\"message\":";
  body += JsonQuote(http_status == 500
                        ? std::string_view("internal server error")
                        : message);
  body += "}\n";
  Response r = Response::Json(http_status, std::move(body));
  return r;
}

Response TooManyAttempts(int64_t retry_after_s) {
  Response r = ErrorResponse(429, Code::kResourceExhausted,
                             "too many failed sign-ins; retry in " + std::to_string(retry_after_s) + " s");
  r.headers.Set("Retry-After", std::to_string(retry_after_s));
  return r;
}

Response ErrorResponse(const Status& status) {
  return ErrorResponse(HttpStatusFor(status.code()), status.code(), status.message());
}

}  // namespace nubo::http
