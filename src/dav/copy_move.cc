// RFC 4918 §9.8 COPY and §9.9 MOVE. The Destination must lie on this
// server under a WebDAV mount (else 502, §9.8.5); Overwrite: F with an
// existing destination is 412; with T the destination goes to the trash
// (§9.8.4 "as if DELETE", so an overwrite is recoverable) in the same
// transaction as the copy or move, so a failure (507, 423) keeps it where
// it was. 201 when the destination did not exist, 204 when it was
// replaced. COPY keeps content shared (zero-copy) and copies dead
// properties; Depth 0 copies a collection without its members. Locks of
// the source (MOVE) and the destination are checked by the files domain.
#include "dav/context.h"
#include "dav/request_headers.h"

namespace nubo::dav {

namespace {

// MOVE of a received share's mount point (docs/sharing.md): the caller
// renames or moves its own view of the share, within its own tree; the
// owner's tree is untouched. Into another share is 409; onto an existing
// name 412 (a mount point replaces nothing).
http::Response MoveMountPoint(DavContext& c, const files::Resolved& dst) {
  if (!dst.home_drive_id) return DavError(409);
  const bool taken = dst.node && (dst.at_mount || !dst.mount_depth);
  if (taken && dst.node->id != c.target.node->id) return DavError(412);
  if ((dst.mount_depth && !dst.at_mount) || !dst.parent) return DavError(409);
  Status st =
      c.files.PlaceMount(c.who(), c.target.node->id, *dst.parent, dst.name, c.cond.lock_tokens);
  if (!st.ok()) return st.code() == Code::kAlreadyExists ? DavError(412) : DavError(st);
  http::Response resp = http::Response::Empty(dst.node ? 204 : 201);
  SetNodeHeaders(resp, *c.target.node);
  return resp;
}

}  // namespace

http::Response HandleCopyMove(DavContext& c) {
  const bool move = c.req.method == "MOVE";
  const files::Resolved& src = c.target;
  if (!src.node) return DavError(404);
  auto dv = c.req.headers.Get("Destination");
  if (!dv) return DavError(400);
  auto dest = ParseDestination(*dv, c.req.headers.Get("Host").value_or(""));
  if (!dest.ok()) return DavError(dest.status().code() == Code::kUnsupported ? 502 : 400);
  // Another tree (a link's, from an account's drive, or the reverse) is
  // another server as far as COPY and MOVE go.
  if (!SameTree(dest->segments, c.mount)) return DavError(502);
  std::vector<std::string> dsegs(dest->segments.begin() + MountLength(dest->segments),
                                 dest->segments.end());
  auto overwrite = ParseOverwrite(c.req.headers.Get("Overwrite"));
  if (!overwrite.ok()) return DavError(400);
  auto depth = ParseDepth(c.req.headers.Get("Depth"), Depth::kInfinity);
  if (!depth.ok() || *depth == Depth::kOne) return DavError(400);
  if (move && src.node->folder() && *depth != Depth::kInfinity) return DavError(400);  // §9.9.2
  if (c.segments.empty() || dsegs.empty()) return DavError(403);  // the drive root
  auto dst = c.files.Resolve(c.who(), dsegs, c.drive, c.share_root);
  if (!dst.ok()) return DavError(dst.status().code() == Code::kInvalidArgument ? 400 : 500);
  if (move && src.at_mount) return MoveMountPoint(c, *dst);
  // Paths compare within one drive (a received share in the caller's tree
  // has its owner's paths).
  const bool same_drive = dst->drive_id == src.drive_id;
  if (same_drive && dst->path_key == src.path_key) return DavError(403);  // §9.8.5: same resource
  // Into itself or below it: the tree would contain itself.
  if (same_drive && dst->path_key.rfind(src.path_key + "/", 0) == 0) return DavError(409);
  if (!dst->parent) return DavError(409);  // §9.8.5: missing destination parent
  const bool existed = dst->node.has_value();
  if (existed) {
    if (!*overwrite) return DavError(412);
    // Replacing an ancestor of the source would delete the source itself.
    if (same_drive && src.path_key.rfind(dst->path_key + "/", 0) == 0) return DavError(409);
  }
  const files::Conflict conflict = *overwrite ? files::Conflict::kReplace : files::Conflict::kFail;
  Result<meta::NodeRow> r = move
                                ? c.files.Update(c.who(), src.node->public_id, dst->name,
                                                 dst->parent->public_id, conflict, c.cond)
                                : c.files.Copy(c.who(), src.node->public_id, dst->parent->public_id,
                                               dst->name, conflict, *depth == Depth::kZero, c.cond);
  if (!r.ok()) {
    // A destination that appeared after the check above, with Overwrite: F.
    if (r.status().code() == Code::kAlreadyExists) return DavError(412);
    return DavError(r.status());
  }
  http::Response resp = http::Response::Empty(existed ? 204 : 201);
  SetNodeHeaders(resp, *r);
  return resp;
}

}  // namespace nubo::dav
