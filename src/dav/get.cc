// RFC 4918 §9.4 GET/HEAD: a file's content exactly as the REST API serves
// it (ranges, conditionals, validators); a collection answers a short
// HTML note, as browsers pointed at a WebDAV URL expect something.
#include "api/content_response.h"
#include "dav/context.h"

namespace nubo::dav {

http::Response HandleGet(DavContext& c) {
  if (!c.target.node) return DavError(404);
  if (c.target.node->folder()) {
    return http::Response::Text(200, "<!doctype html><title>nubo</title><p>This is a WebDAV folder.</p>\n",
                                "text/html; charset=utf-8");
  }
  auto fc = c.files.OpenContent(c.who(), c.target.node->public_id);
  if (!fc.ok()) return DavError(fc.status());
  return api::ContentResponse(c.files, c.req, *fc, c.who().user_id);
}

}  // namespace nubo::dav
