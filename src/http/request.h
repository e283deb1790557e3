// A parsed HTTP request as domain code sees it: headers, the decoded target,
// route parameters, and the body in the form the route asked for. Built by
// the transport; one Request lives for one exchange. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/headers.h"

// Who is calling: defined by auth/ (a layer this one does not include),
// carried here opaquely.
namespace nubo::auth {
struct Principal;
}

namespace nubo::http {

class BodySink;

struct Request {
  std::string method;   // as sent, upper case by convention ("PROPFIND")
  std::string target;   // raw request-target
  std::string path;     // decoded path, "/" + segments joined by "/"
  std::vector<std::string> segments;  // decoded, non-empty path segments
  bool trailing_slash = false;        // target path ended in "/"
  std::string query;                  // raw query (after '?'), still encoded
  Headers headers;
  std::optional<uint64_t> content_length;
  bool chunked = false;     // Transfer-Encoding: chunked
  std::string remote;       // peer "ip:port"
  std::string client_ip;    // the peer's IP, or the client's from X-Forwarded-For via a trusted proxy
  std::string request_id;   // X-Request-Id (client's if sane, else generated)

  // Who is calling, once authentication succeeded: set by the router's
  // guard for every route that is not public, never null there.
  std::shared_ptr<const auth::Principal> principal;

  // Filled by routing.
  std::string route;  // matched pattern, e.g. "/api/files/{id}" (for logs/metrics)
  std::vector<std::pair<std::string, std::string>> params;

  // Filled by the transport according to the route's body policy.
  std::string body;           // BodyPolicy::kBuffered
  BodySink* sink = nullptr;   // BodyPolicy::kStream: the sink that took the body
  // Set by the transport while the guard and the handler run on a network
  // thread (RouteOptions::inline_when): the guard must not wait (no
  // password hash, no database); it sets needs_blocking instead of
  // deciding, and the request is run again on the blocking pool.
  bool must_not_block = false;
  bool needs_blocking = false;
  // Set by the transport when it read the whole (small) body before it
  // opened the route's sink: no "100 Continue" waits on the sink's
  // answer, so checks that a commit repeats need not run before it.
  bool body_in_hand = false;

  // Route parameter by name; empty when absent.
  std::string_view Param(std::string_view name) const;
  // Percent-decoded query parameter value (first occurrence), or nullopt.
  std::optional<std::string> Query(std::string_view key) const;
  bool HasBody() const { return chunked || content_length.value_or(0) > 0; }
};

}  // namespace nubo::http
