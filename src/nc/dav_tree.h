// What the Nextcloud client's own DAV trees under /remote.php/dav/<tree>/
// <user>/ (uploads, trashbin, versions) share: their error answer, the
// rule that <user> names the caller or nothing, collection responses, and
// one registration (OPTIONS' Allow derived from the methods). Internal to
// src/nc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dav/xml_writer.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "util/status.h"

namespace nubo::nc {

inline constexpr std::string_view kDavNsName = "DAV:";
inline constexpr std::string_view kOcNsName = "http://owncloud.org/ns";
inline constexpr std::string_view kNcNsName = "http://nextcloud.org/ns";

// A plain-text error with the status the code maps to.
http::Response TreeError(const Status& st);

// The segments below /remote.php/dav/<tree>/<user>/ when <user> is the
// caller's name; `hidden` otherwise (what a missing path answers).
Result<std::vector<std::string>> BelowOwnName(const http::Request& req, const Status& hidden);

// "/remote.php/dav/<tree>/<user>/", the user segment encoded.
std::string TreeHref(std::string_view tree, std::string_view user);

// A multistatus with d:, oc: and nc: declared.
void OpenMultistatus(dav::XmlWriter& w);
// <d:response> for a collection (with its getlastmodified when given).
void WriteCollection(dav::XmlWriter& w, const std::string& href,
                     std::optional<int64_t> mtime_ms = std::nullopt);
http::Response Multistatus(dav::XmlWriter& w);  // closes it: 207

struct TreeMethod {
  const char* name;
  http::Handler handler;
  bool xml_body = false;  // a buffered (PROPFIND/MKCOL) body
};
// Registers `methods` and OPTIONS on /remote.php/dav/<tree>/{user}/{path...}
// for accounts, on the blocking pool; `extra_allow` names methods the
// caller registers itself (a streamed PUT).
void RegisterTree(http::Router& router, std::string_view tree, std::vector<TreeMethod> methods,
                  std::string_view extra_allow = "");
std::string TreePattern(std::string_view tree);
http::RouteOptions TreeRouteOptions();

}  // namespace nubo::nc
