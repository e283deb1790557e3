// Request-target parsing (RFC 9112 §3.2) and path sanitizing: the one place
// where percent-encoded paths become segments. Thread-safe (pure).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace nubo::http {

struct Target {
  std::vector<std::string> segments;  // decoded, never empty, never "." or ".."
  bool trailing_slash = false;
  std::string query;  // raw, still percent-encoded
};

// Accepts origin-form ("/a/b?x=1") and absolute-form ("http://h/a"); "*"
// (OPTIONS only) yields no segments. Empty segments ("//") collapse.
// InvalidArgument when the target is malformed or a decoded segment is "."
// or "..", or contains "/" or NUL: such paths would alias other resources.
Result<Target> ParseTarget(std::string_view target);

// Decoded value of the first `key` in a raw query string ('+' is a space, as
// HTML forms send it); nullopt when absent or malformed.
std::optional<std::string> QueryParam(std::string_view raw_query, std::string_view key);

// The client's IP: `peer_ip`, unless the peer is one of `trusted_proxies`;
// then the rightmost X-Forwarded-For entry that is not itself a trusted
// proxy (entries left of it are client-controlled and ignored).
std::string ClientIp(std::string_view peer_ip, std::optional<std::string_view> forwarded_for,
                     const std::vector<std::string>& trusted_proxies);

// "/" + segments joined with "/".
std::string JoinPath(const std::vector<std::string>& segments);

}  // namespace nubo::http
