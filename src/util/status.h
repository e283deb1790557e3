// Status and Result<T>: the one error type of nubo.
//
// Expected failures (bad input, missing resources, I/O errors) travel as
// values, never as exceptions. A Status is cheap to copy when OK (no
// allocation) and carries a closed Code plus a human-readable message that
// is safe to show to the client. Thread-safety: plain values, no shared state.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace nubo {

// PERSISTED: never renumber (codes appear in logs, metrics and API bodies by name).
enum class Code {
  kOk = 0,
  kInvalidArgument,     // malformed input the client can fix
  kNotFound,            // resource does not exist (or caller may not see it)
  kAlreadyExists,       // name/unique conflict
  kConflict,            // state conflict (e.g. missing parent, move into self)
  kPermissionDenied,    // authenticated, but not allowed (surfaces may map to 404)
  kUnauthenticated,     // no or bad credentials
  kPreconditionFailed,  // If-Match / If-Unmodified-Since failed
  kLocked,              // a WebDAV lock the request did not present (RFC 4918 §11.3)
  kTooLarge,            // body or entity over a limit
  kRangeNotSatisfiable, // Range outside the representation
  kUnsupported,         // recognized but not supported (media type, method)
  kQuotaExceeded,       // per-user or per-drive quota
  kResourceExhausted,   // server-side limit (connections, disk full)
  kTimeout,             // deadline passed
  kUnavailable,         // dependency down or shutting down
  kAborted,             // concurrent modification, retryable
  kIoError,             // disk or network I/O failure
  kCorruption,          // stored data failed verification
  kInternal,            // bug: an invariant did not hold
};

// Stable snake_case name used in JSON error bodies and metrics, e.g. "not_found".
std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Code::kAlreadyExists, std::move(m)}; }
  static Status Conflict(std::string m) { return {Code::kConflict, std::move(m)}; }
  static Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
  static Status Unauthenticated(std::string m) { return {Code::kUnauthenticated, std::move(m)}; }
  static Status PreconditionFailed(std::string m) {
    return {Code::kPreconditionFailed, std::move(m)};
  }
  static Status Locked(std::string m) { return {Code::kLocked, std::move(m)}; }
  static Status TooLarge(std::string m) { return {Code::kTooLarge, std::move(m)}; }
  static Status RangeNotSatisfiable(std::string m) {
    return {Code::kRangeNotSatisfiable, std::move(m)};
  }
  static Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
  static Status QuotaExceeded(std::string m) { return {Code::kQuotaExceeded, std::move(m)}; }
  static Status ResourceExhausted(std::string m) {
    return {Code::kResourceExhausted, std::move(m)};
  }
  static Status Timeout(std::string m) { return {Code::kTimeout, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
  static Status Aborted(std::string m) { return {Code::kAborted, std::move(m)}; }
  static Status IoError(std::string m) { return {Code::kIoError, std::move(m)}; }
  static Status Corruption(std::string m) { return {Code::kCorruption, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "not_found: no such file" (or "ok").
  std::string ToString() const;

  // Returns a copy whose message is prefixed with context ("open chunk: ...").
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok() && "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  // The error; OK when the Result holds a value.
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace nubo

// Propagates a non-OK Status from an expression returning Status.
#define NUBO_RETURN_IF_ERROR(expr)        \
  do {                                    \
    ::nubo::Status _nubo_st = (expr);     \
    if (!_nubo_st.ok()) return _nubo_st;  \
  } while (0)

#define NUBO_CONCAT_INNER_(a, b) a##b
#define NUBO_CONCAT_(a, b) NUBO_CONCAT_INNER_(a, b)
// Declares `lhs` from a Result expression, or returns its error.
#define NUBO_ASSIGN_OR_RETURN(lhs, expr) \
  NUBO_ASSIGN_OR_RETURN_IMPL_(NUBO_CONCAT_(_nubo_res_, __LINE__), lhs, expr)
#define NUBO_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
