// RFC 4918 §9.4 GET/HEAD: a file's content exactly as the REST API serves
// it (ranges, conditionals, validators); a collection answers a short
// HTML note, as browsers pointed at a WebDAV URL expect something. A file
// uploaded with a verified OC-Checksum answers it back.
#include "api/content_response.h"
#include "dav/context.h"

namespace nubo::dav {

http::Response HandleGet(DavContext& c) {
  if (!c.target.node) return DavError(404);
  if (c.target.node->folder()) {
    return http::Response::Text(
        200, "<!doctype html><title>nubo</title><p>This is a WebDAV folder.</p>\n",
        "text/html; charset=utf-8");
  }
  auto fc = c.files.OpenContent(c.who(), c.target.node->public_id, /*want_checksums=*/true);
  if (!fc.ok()) return DavError(fc.status());
  http::Response r = api::ContentResponse(c.files, c.req, *fc, c.who().user_id, &c.opt.on_download);
  // Nextcloud clients verify a download against OC-Checksum: one entry,
  // "SHA1:<hex>" (a checksum the upload was verified against; the newest
  // comes first).
  if (!fc->checksums.empty()) {
    r.headers.Set("OC-Checksum", fc->checksums.substr(0, fc->checksums.find(' ')));
  }
  return r;
}

}  // namespace nubo::dav
