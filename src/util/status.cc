#include "util/status.h"

namespace nubo {

std::string_view CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kNotFound: return "not_found";
    case Code::kLocked: return "locked";
    case Code::kAlreadyExists: return "already_exists";
    case Code::kConflict: return "conflict";
    case Code::kPermissionDenied: return "permission_denied";
    case Code::kUnauthenticated: return "unauthenticated";
    case Code::kPreconditionFailed: return "precondition_failed";
    case Code::kTooLarge: return "too_large";
    case Code::kRangeNotSatisfiable: return "range_not_satisfiable";
    case Code::kUnsupported: return "unsupported";
    case Code::kQuotaExceeded: return "quota_exceeded";
    case Code::kResourceExhausted: return "resource_exhausted";
    case Code::kTimeout: return "timeout";
    case Code::kUnavailable: return "unavailable";
    case Code::kAborted: return "aborted";
    case Code::kIoError: return "io_error";
    case Code::kCorruption: return "corruption";
    case Code::kInternal: return "internal";
  }
  return "internal";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string s(CodeName(code_));
  if (!message_.empty()) {
    s += ": ";
    s += message_;
  }
  return s;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string m(context);
  m += ": ";
  m += message_;
  return Status(code_, std::move(m));
}

}  // namespace nubo
