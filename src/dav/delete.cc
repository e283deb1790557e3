// RFC 4918 §9.6 DELETE: moves the resource (a collection with everything
// below it) to the trash, where the web UI and REST API can restore it.
// Locks on the resource or below it must be presented; the locks then go
// (the files domain checks and drops them in the same transaction). A
// received share's mount point is removed from the caller's view only.
#include "dav/context.h"
#include "dav/request_headers.h"

namespace nubo::dav {

http::Response HandleDelete(DavContext& c) {
  const files::Resolved& t = c.target;
  if (!t.node) return DavError(404);
  if (c.segments.empty()) return DavError(403);  // the drive root
  // A received share's mount point: the share leaves the caller's tree
  // (Nextcloud clients delete the folder to be rid of it); nothing of the
  // owner's is touched and "shared with me" can show it again.
  if (t.at_mount) {
    Status st = c.files.HideMount(c.who(), t.node->public_id, true, c.cond.lock_tokens);
    return st.ok() ? http::Response::Empty(204) : DavError(st);
  }
  if (t.node->folder()) {
    // §9.6.1: a collection is always deleted with Depth infinity.
    auto d = ParseDepth(c.req.headers.Get("Depth"), Depth::kInfinity);
    if (!d.ok() || *d != Depth::kInfinity) return DavError(400);
  }
  if (Status st = c.files.Trash(c.who(), t.node->public_id, c.cond); !st.ok()) return DavError(st);
  return http::Response::Empty(204);
}

}  // namespace nubo::dav
