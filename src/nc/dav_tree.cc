#include "nc/dav_tree.h"

#include "auth/principal.h"
#include "dav/request_headers.h"
#include "http/status_map.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::nc {

http::Response TreeError(const Status& st) {
  const int code = http::HttpStatusFor(st.code());
  return http::Response::Text(
      code, code == 500 ? std::string("internal server error\n") : st.message() + "\n");
}

Result<std::vector<std::string>> BelowOwnName(const http::Request& req, const Status& hidden) {
  // segments: remote.php dav <tree> <user> ...
  if (req.segments.size() < 4 || !req.principal ||
      !IEquals(req.segments[3], req.principal->username)) {
    return hidden;
  }
  return std::vector<std::string>(req.segments.begin() + 4, req.segments.end());
}

std::string TreeHref(std::string_view tree, std::string_view user) {
  std::string h = "/remote.php/dav/";
  h += tree;
  h += '/';
  dav::AppendEncodedSegment(h, user);
  h += '/';
  return h;
}

void OpenMultistatus(dav::XmlWriter& w) {
  w.Open(kDavNsName, "multistatus",
         {{"d", std::string(kDavNsName)},
          {"oc", std::string(kOcNsName)},
          {"nc", std::string(kNcNsName)}});
}

void WriteCollection(dav::XmlWriter& w, const std::string& href, std::optional<int64_t> mtime_ms) {
  w.Open(kDavNsName, "response");
  w.Leaf(kDavNsName, "href", href);
  w.Open(kDavNsName, "propstat");
  w.Open(kDavNsName, "prop");
  w.Open(kDavNsName, "resourcetype");
  w.Empty(kDavNsName, "collection");
  w.Close();
  if (mtime_ms) {
    std::string date;
    AppendHttpDate(date, static_cast<std::time_t>(*mtime_ms / 1000));
    w.Leaf(kDavNsName, "getlastmodified", date);
  }
  w.Close();
  w.Leaf(kDavNsName, "status", "HTTP/1.1 200 OK");
  w.Close();
  w.Close();
}

http::Response Multistatus(dav::XmlWriter& w) {
  w.Close();
  return http::Response::Text(207, std::move(w.buffer()), "application/xml; charset=utf-8");
}

std::string TreePattern(std::string_view tree) {
  return "/remote.php/dav/" + std::string(tree) + "/{user}/{path...}";
}

http::RouteOptions TreeRouteOptions() {
  http::RouteOptions ro{.access = http::Access::kUser, .blocking = true};
  ro.errors = [](const Status& st) { return TreeError(st); };
  return ro;
}

void RegisterTree(http::Router& router, std::string_view tree, std::vector<TreeMethod> methods,
                  std::string_view extra_allow) {
  const std::string pattern = TreePattern(tree);
  const http::RouteOptions ro = TreeRouteOptions();
  std::string allow = "OPTIONS";
  for (TreeMethod& m : methods) {
    http::RouteOptions o = ro;
    if (m.xml_body) {
      o.body = http::BodyPolicy::kBuffered;
      o.max_body = 1 << 16;
    }
    allow += ", ";
    allow += m.name;
    router.Add(m.name, pattern, std::move(m.handler), o);
  }
  if (!extra_allow.empty()) {
    allow += ", ";
    allow += extra_allow;
  }
  router.Add(
      "OPTIONS", pattern,
      [allow](http::Request&) {
        http::Response r = http::Response::Empty(200);
        r.headers.Set("Allow", allow);
        r.headers.Set("DAV", "1");
        return r;
      },
      ro);
}

}  // namespace nubo::nc
