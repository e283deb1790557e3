// The groupware DAV dispatch table and the work done once before any
// handler: resolving the target below /remote.php/dav/.
#include "dav/request_headers.h"
#include "dav/xml_writer.h"
#include "groupdav/context.h"
#include "groupdav/groupdav.h"
#include "http/router.h"
#include "http/status_map.h"

namespace nubo::groupdav {

namespace {

using http::Request;
using http::Response;

struct Method {
  const char* name;
  Response (*handler)(GContext&);
  bool xml_body;  // buffered body up to max_xml_body (PUT: up to the object size)
};

// The one table: OPTIONS' Allow header is derived from it.
constexpr Method kMethods[] = {
    {"OPTIONS", HandleOptions, false},
    {"PROPFIND", HandlePropfind, true},
    {"PROPPATCH", HandleProppatch, true},
    {"MKCOL", HandleMkcol, true},
    {"MKCALENDAR", HandleMkcol, true},
    {"GET", HandleGet, false},
    {"PUT", HandlePut, true},
    {"DELETE", HandleDelete, false},
    {"REPORT", HandleReport, true},
    {"POST", HandlePost, true},
};

Response ErrorResponse(const Status& st) {
  const int code = http::HttpStatusFor(st.code());
  return Response::Text(code,
                        code == 500 ? std::string("internal server error\n") : st.message() + "\n");
}

Response Dispatch(groupware::Collections& gw, const GroupDavOptions& opt, Request& req,
                  Response (*handler)(GContext&)) {
  GContext c{gw, opt, req, req.principal, {}};
  // segments: "remote.php", "dav", then the tree's path.
  std::vector<std::string> segs(req.segments.begin() + std::min<size_t>(2, req.segments.size()),
                                req.segments.end());
  auto t = Resolve(gw, c.who(), segs);
  if (!t.ok()) return ErrorResponse(t.status());
  c.target = std::move(*t);
  return handler(c);
}

}  // namespace

Response HandleOptions(GContext&) {
  Response r = Response::Empty(200);
  std::string allow;
  for (const Method& m : kMethods) {
    if (!allow.empty()) allow += ", ";
    allow += m.name;
  }
  allow += ", HEAD";
  r.headers.Set("Allow", allow);
  // RFC 4791 §5.1, RFC 6352 §6.1, RFC 5689 §3.1, RFC 3744 §7.2.
  r.headers.Set("DAV",
                "1, 3, access-control, calendar-access, calendar-auto-schedule, addressbook, "
                "extended-mkcol");
  return r;
}

void RegisterGroupDavRoutes(http::Router& router, groupware::Collections& collections,
                            GroupDavOptions options) {
  auto opt = std::make_shared<GroupDavOptions>(options);
  groupware::Collections* gw = &collections;
  for (const Method& m : kMethods) {
    http::RouteOptions ro;
    ro.access = http::Access::kUser;
    ro.blocking = true;
    ro.errors = ErrorResponse;
    if (m.xml_body) {
      ro.body = http::BodyPolicy::kBuffered;
      ro.max_body = std::string_view(m.name) == "PUT"
                        ? std::max<uint64_t>(opt->max_xml_body, 2 * gw->options().max_object_size)
                        : opt->max_xml_body;
    }
    auto handler = m.handler;
    router.Add(
        m.name, "/remote.php/dav/{path...}",
        [gw, opt, handler](Request& req) { return Dispatch(*gw, *opt, req, handler); }, ro);
  }
  // RFC 6764 §5: clients start from the server's name.
  for (const char* p : {"/.well-known/caldav", "/.well-known/carddav"}) {
    for (const char* method : {"GET", "PROPFIND", "OPTIONS"}) {
      http::RouteOptions ro;
      // A client's PROPFIND here carries its body; it is read and ignored.
      ro.body = http::BodyPolicy::kBuffered;
      ro.max_body = opt->max_xml_body;
      router.Add(
          method, p,
          [](Request& req) {
            // GET (a browser) is told for good; a PROPFIND keeps its method
            // and body only through 307 (clients drop the body on 301).
            Response r = Response::Empty(req.method == "GET" ? 301 : 307);
            r.headers.Set("Location", std::string(kRootPath) + "/");
            return r;
          },
          ro);
    }
  }
}

}  // namespace nubo::groupdav
