// RFC 4918 §9.6 DELETE: moves the resource (a collection with everything
// below it) to the trash, where the web UI and REST API can restore it.
// Locks on the resource or below it must be presented; the locks then go
// (the files domain checks and drops them in the same transaction).
#include "dav/context.h"
#include "dav/request_headers.h"

namespace nubo::dav {

http::Response HandleDelete(DavContext& c) {
  const files::Resolved& t = c.target;
  if (!t.node) return DavError(404);
  if (c.segments.empty()) return DavError(403);  // the drive root
  if (t.node->folder()) {
    // §9.6.1: a collection is always deleted with Depth infinity.
    auto d = ParseDepth(c.req.headers.Get("Depth"), Depth::kInfinity);
    if (!d.ok() || *d != Depth::kInfinity) return DavError(400);
  }
  if (Status st = c.files.Trash(c.who(), t.node->public_id, c.cond); !st.ok()) return DavError(st);
  return http::Response::Empty(204);
}

}  // namespace nubo::dav
