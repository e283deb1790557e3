#include "http/request_policy.h"

#include "util/strings.h"

namespace nubo::http {

namespace {

// RFC 6454 §7: Origin is "null" or scheme "://" host [":" port].
bool SameOrigin(std::string_view origin, std::string_view host) {
  origin = Trim(origin);
  size_t sep = origin.find("://");
  if (sep == std::string_view::npos) return false;
  std::string_view scheme = origin.substr(0, sep);
  std::string_view rest = origin.substr(sep + 3);
  if (rest.find('/') != std::string_view::npos) return false;
  const std::string_view default_port = DefaultPortOf(scheme);
  if (default_port.empty()) return false;
  // Behind a TLS-terminating proxy the page is https://host while the
  // request reaches us for host on another port: the host, with the
  // scheme's default port dropped on both sides, is what must agree.
  return !host.empty() &&
         NormalizeAuthority(rest, default_port) == NormalizeAuthority(host, default_port);
}

}  // namespace

bool SafeMethod(std::string_view m) {
  return m == "GET" || m == "HEAD" || m == "OPTIONS" || m == "PROPFIND" || m == "REPORT";
}

Status CheckRequestPolicy(const Request& req, const RouteOptions& route) {
  if (!SafeMethod(req.method) && !route.cross_site) {
    // Sec-Fetch-Site is set by the browser and cannot be forged by a page;
    // "none" is a user typing the URL or a bookmark.
    if (auto site = req.headers.Get("Sec-Fetch-Site")) {
      std::string_view v = Trim(*site);
      if (!IEquals(v, "same-origin") && !IEquals(v, "none")) {
        return Status::PermissionDenied("cross-site request refused");
      }
    }
    if (auto origin = req.headers.Get("Origin")) {
      if (!SameOrigin(*origin, req.headers.Get("Host").value_or(""))) {
        return Status::PermissionDenied("cross-site request refused (Origin " +
                                        std::string(Trim(*origin)).substr(0, 100) + ")");
      }
    }
  }
  if (route.json && req.HasBody()) {
    auto ct = req.headers.Get("Content-Type");
    std::string_view type = ct ? Trim(ct->substr(0, ct->find(';'))) : std::string_view();
    const bool json = IEquals(type, "application/json") ||
                      (type.size() > 5 && IEquals(type.substr(type.size() - 5), "+json") &&
                       type.find('/') != std::string_view::npos);
    if (!json) return Status::Unsupported("the body must be JSON (Content-Type: application/json)");
  }
  return Status::Ok();
}

}  // namespace nubo::http
