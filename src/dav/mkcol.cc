// RFC 4918 §9.3 MKCOL: creates one collection. A body is refused (415,
// §9.3: we define no MKCOL body), an existing resource is 405, a missing
// parent is 409; a lock on the parent must be presented (the files domain
// checks it).
#include "dav/context.h"

namespace nubo::dav {

http::Response HandleMkcol(DavContext& c) {
  const files::Resolved& t = c.target;
  if (!c.req.body.empty()) return DavError(415);
  if (t.node) return DavError(405);
  if (!t.parent) return DavError(409);
  auto n =
      c.files.CreateFolder(c.who(), t.parent->public_id, t.name, files::Conflict::kFail, c.cond);
  if (!n.ok()) {
    // A member that appeared after resolving: as if it had been there (§9.3.1).
    if (n.status().code() == Code::kAlreadyExists) return DavError(405);
    return DavError(n.status());
  }
  http::Response r = http::Response::Empty(201);
  SetNodeHeaders(r, *n);
  return r;
}

}  // namespace nubo::dav
