// PATCH with X-Update-Range (the partial-update extension sabre/dav and
// its clients speak; Content-Type application/x-sabredav-partialupdate):
//   X-Update-Range: bytes=<start>-<end>   replace/extend from <start>
//   X-Update-Range: bytes=-<n>            overwrite the last <n> bytes
//   X-Update-Range: append                add at the end
// The new content is old prefix + body + old suffix, streamed through
// ingest like any upload, so unchanged chunks deduplicate against the
// previous version and only the changed region costs new storage.
#include "content/reader.h"
#include "dav/context.h"
#include "util/strings.h"

namespace nubo::dav {

namespace {

struct UpdateRange {
  uint64_t start = 0;
  std::optional<uint64_t> end;  // inclusive; the body must fill [start, end]
};

Result<UpdateRange> ParseUpdateRange(std::string_view v, uint64_t size, std::optional<uint64_t> body_len) {
  v = Trim(v);
  UpdateRange r;
  if (IEquals(v, "append")) {
    r.start = size;
    return r;
  }
  if (v.substr(0, 6) != "bytes=") return Status::InvalidArgument("X-Update-Range must be bytes=… or append");
  v.remove_prefix(6);
  size_t dash = v.find('-');
  if (dash == std::string_view::npos) return Status::InvalidArgument("malformed X-Update-Range");
  if (dash == 0) {
    auto n = ParseUint64(v.substr(1));
    if (!n || *n > size) return Status::RangeNotSatisfiable("X-Update-Range reaches before the file's start");
    r.start = size - *n;
    return r;
  }
  auto start = ParseUint64(v.substr(0, dash));
  if (!start) return Status::InvalidArgument("malformed X-Update-Range");
  if (*start > size) return Status::RangeNotSatisfiable("X-Update-Range starts after the end of the file");
  r.start = *start;
  if (dash + 1 < v.size()) {
    auto end = ParseUint64(v.substr(dash + 1));
    if (!end || *end < *start) return Status::InvalidArgument("malformed X-Update-Range");
    if (body_len && *body_len != *end - *start + 1) {
      return Status::InvalidArgument("the body length does not match X-Update-Range");
    }
    r.end = end;
  }
  return r;
}

// Feeds old prefix, then the body, then the old suffix into the upload.
class PatchSink final : public http::BodySink {
 public:
  PatchSink(files::Files& files, files::FileContent old, UpdateRange range, std::unique_ptr<files::Upload> up)
      : files_(files), old_(std::move(old)), range_(range), up_(std::move(up)) {}

  Status Write(const char* data, size_t len) override {
    NUBO_RETURN_IF_ERROR(Prefix());
    body_ += len;
    return up_->Write(data, len);
  }
  Status Finish() override {
    NUBO_RETURN_IF_ERROR(Prefix());
    const uint64_t resume = range_.start + body_;
    if (resume < old_.node.size) NUBO_RETURN_IF_ERROR(Copy(resume, old_.node.size - resume));
    result_ = up_->Finish();
    return result_.status();
  }
  void Abort() override { up_->Abort(); }
  const Result<files::UploadResult>& result() const { return result_; }

 private:
  Status Prefix() {
    if (prefix_done_) return Status::Ok();
    prefix_done_ = true;
    return range_.start ? Copy(0, range_.start) : Status::Ok();
  }
  Status Copy(uint64_t first, uint64_t len) {
    NUBO_ASSIGN_OR_RETURN(auto r, content::ManifestReader::Open(files_.chunks(), old_.chunks, old_.node.size,
                                                                first, len));
    std::string buf(256 << 10, '\0');
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(size_t n, r.Read(buf.data(), buf.size()));
      if (n == 0) return Status::Ok();
      NUBO_RETURN_IF_ERROR(up_->Write(buf.data(), n));
    }
  }

  files::Files& files_;
  files::FileContent old_;
  UpdateRange range_;
  std::unique_ptr<files::Upload> up_;
  bool prefix_done_ = false;
  uint64_t body_ = 0;
  Result<files::UploadResult> result_ = Status::Internal("patch not finished");
};

}  // namespace

Result<std::unique_ptr<http::BodySink>> OpenPatchSink(DavContext& c) {
  const files::Resolved& t = c.target;
  if (!t.node) return Status::NotFound("no such file");
  if (t.node->folder()) return Status::Unsupported("a collection cannot be patched");
  auto ct = c.req.headers.Get("Content-Type");
  if (!ct || !IEquals(Trim(ct->substr(0, ct->find(';'))), "application/x-sabredav-partialupdate")) {
    return Status::Unsupported("PATCH needs Content-Type: application/x-sabredav-partialupdate");
  }
  auto ur = c.req.headers.Get("X-Update-Range");
  if (!ur) return Status::InvalidArgument("PATCH needs an X-Update-Range header");
  std::optional<uint64_t> body_len;
  if (!c.req.chunked) body_len = c.req.content_length.value_or(0);
  NUBO_ASSIGN_OR_RETURN(UpdateRange range, ParseUpdateRange(*ur, t.node->size, body_len));
  NUBO_ASSIGN_OR_RETURN(files::FileContent old, c.files.OpenContent(c.who(), t.node->public_id));
  files::UploadRequest u;
  u.parent_id = t.parent->public_id;
  u.name = t.name;
  u.conflict = files::Conflict::kOverwrite;
  // The new content derives from this version: refuse if it changed since
  // (the commit re-checks, so a concurrent writer cannot slip in between).
  u.if_match = files::NodeETag(old.node);
  if (auto im = c.req.headers.Get("If-Match")) {
    if (Trim(*im) != "*" && Trim(*im) != *u.if_match) return Status::PreconditionFailed("If-Match failed");
  }
  u.cond.lock_tokens = c.cond.lock_tokens;
  NUBO_ASSIGN_OR_RETURN(auto up, c.files.BeginUpload(c.who(), std::move(u)));
  return std::unique_ptr<http::BodySink>(new PatchSink(c.files, std::move(old), range, std::move(up)));
}

http::Response HandlePatch(DavContext& c) {
  auto* sink = static_cast<PatchSink*>(c.upload);
  if (!sink) return DavError(Status::Internal("PATCH without a sink"));
  const auto& r = sink->result();
  if (!r.ok()) return DavError(r.status());
  http::Response resp = http::Response::Empty(204);
  resp.headers.Set("ETag", files::NodeETag(r->node));
  return resp;
}

}  // namespace nubo::dav
