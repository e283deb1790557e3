// The one mapping from Status to HTTP (HOUSE_STYLE: the other mapping point
// is util/posix_error.cc). Callers decide what a code means in context
// (e.g. DAV MKCOL maps a missing parent to 409 itself). Thread-safe.
#pragma once

#include <cstdint>

#include "http/response.h"
#include "util/status.h"

namespace nubo::http {

// HTTP status code for `code`; 500 for codes that are server faults.
int HttpStatusFor(Code code);

// A JSON error response: {"error": "<code name>", "message": "<message>"}.
// Server faults (500) keep their message out of the body: it may describe
// internals; the log line has it.
Response ErrorResponse(const Status& status);
Response ErrorResponse(int http_status, Code code, std::string_view message);

// 429 with Retry-After (RFC 6585 §4) after too many failed sign-ins.
Response TooManyAttempts(int64_t retry_after_s);

}  // namespace nubo::http
