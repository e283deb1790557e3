// RFC 4918 §9.7 PUT: streams the body into a new version of the file
// (201 when created, 204 when replaced). If-Match / If-None-Match: * guard
// lost updates (RFC 9110 §13.1); a missing parent is 409 (§9.7.1); a
// collection cannot be overwritten by PUT (405).
#include "api/upload_sink.h"
#include "dav/context.h"
#include "files/files.h"
#include "http/status_map.h"
#include "util/strings.h"

namespace nubo::dav {

Result<std::unique_ptr<http::BodySink>> OpenPutSink(DavContext& c) {
  const files::Resolved& t = c.target;
  if (t.node && t.node->folder())
    return Status::Unsupported("a collection cannot be replaced by PUT");
  if (!t.node && !t.parent) return Status::Conflict("the parent collection does not exist");
  if (c.segments.empty()) return Status::Unsupported("a collection cannot be replaced by PUT");
  const auto& h = c.req.headers;
  files::UploadRequest u;
  u.parent_id = t.parent ? t.parent->public_id : std::string();
  if (t.node && !t.parent) return Status::Internal("file without parent");
  u.name = t.name;
  u.conflict = files::Conflict::kOverwrite;
  if (auto inm = h.Get("If-None-Match"); inm && Trim(*inm) == "*") {
    if (t.node) return Status::PreconditionFailed("the resource exists (If-None-Match: *)");
    u.conflict = files::Conflict::kFail;
  }
  if (auto im = h.Get("If-Match")) {
    if (!t.node) return Status::PreconditionFailed("If-Match on a resource that does not exist");
    u.if_match = std::string(Trim(*im));
  }
  u.cond = c.cond;  // locks and the pinned ETag: checked at the start and in the commit
  if (auto v = h.Get("X-Checksum")) {
    u.checksum = std::string(Trim(*v));
  } else if (auto oc = h.Get("OC-Checksum")) {
    u.checksum = std::string(Trim(*oc));  // Nextcloud clients: "SHA1:<hex>"
  }
  // Nextcloud clients send the file's modification time (seconds since the
  // epoch) and expect "X-OC-MTime: accepted" back.
  if (auto v = h.Get("X-OC-MTime")) {
    auto secs = ParseUint64(Trim(*v));
    if (!secs || *secs > uint64_t{1} << 40) {
      return Status::InvalidArgument("X-OC-MTime must be seconds since the epoch");
    }
    u.mtime_ms = static_cast<int64_t>(*secs) * 1000;
  }
  if (!c.req.chunked) u.expected_size = c.req.content_length.value_or(0);
  u.body_in_hand = c.req.body_in_hand;
  NUBO_ASSIGN_OR_RETURN(auto up, c.files.BeginUpload(c.who(), std::move(u)));
  return std::unique_ptr<http::BodySink>(new api::UploadSink(std::move(up)));
}

http::Response HandlePut(DavContext& c) {
  auto* sink = static_cast<api::UploadSink*>(c.upload);
  if (!sink) return DavError(Status::Internal("PUT without a sink"));
  const auto& r = sink->result();
  if (!r.ok()) return DavError(r.status());
  http::Response resp = http::Response::Empty(r->created ? 201 : 204);
  SetNodeHeaders(resp, r->node);
  if (c.req.headers.Get("X-OC-MTime")) resp.headers.Set("X-OC-MTime", "accepted");
  return resp;
}

}  // namespace nubo::dav
