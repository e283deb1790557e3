// RFC 4918 §9.3 MKCOL: creates one collection. A body is refused (415,
// §9.3: we define no MKCOL body), an existing resource is 405, a missing
// parent is 409.
#include "dav/context.h"

namespace nubo::dav {

http::Response HandleMkcol(DavContext& c) {
  const files::Resolved& t = c.target;
  if (!c.req.body.empty()) return DavError(415);
  if (t.node) return DavError(405);
  if (!t.parent) return DavError(409);
  if (Status st = CheckLocks(c, t.drive_id, t.path_key, false, true); !st.ok()) return DavError(st);
  auto n = c.files.CreateFolder(c.user, t.parent->public_id, t.name, files::Conflict::kFail);
  if (!n.ok()) return DavError(n.status());
  return http::Response::Empty(201);
}

}  // namespace nubo::dav
