// Serves a file's content: RFC 9110 conditionals (§13) and ranges (§14),
// shared by the REST API and WebDAV so both answer a GET identically.
#include "api/content_response.h"

#include <algorithm>
#include <cstring>

#include "content/reader.h"
#include "files/mime.h"
#include "http/conditional.h"
#include "http/disposition.h"
#include "http/range.h"
#include "http/status_map.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::api {

namespace {

using http::Request;
using http::Response;
using meta::NodeRow;

// A reader's next extents as the transport's spans.
Status SpansOf(content::ManifestReader& r, size_t cap, size_t max,
               std::vector<http::FileSpan>& out) {
  thread_local std::vector<content::ManifestReader::Extent> extents;
  extents.clear();
  NUBO_RETURN_IF_ERROR(r.NextExtents(cap, max, extents));
  for (const auto& e : extents) out.push_back(http::FileSpan{e.fd, e.offset, e.length});
  return Status::Ok();
}

class RangeSource final : public http::BodySource {
 public:
  explicit RangeSource(content::ManifestReader r) : r_(std::move(r)), size_(r_.remaining()) {}
  std::optional<uint64_t> Size() const override { return size_; }
  Result<size_t> Read(char* buf, size_t cap) override { return r_.Read(buf, cap); }
  Status NextSpans(size_t cap, size_t max, std::vector<http::FileSpan>& out) override {
    return SpansOf(r_, cap, max, out);
  }

 private:
  content::ManifestReader r_;
  uint64_t size_;
};

// RFC 9110 §14.6 multipart/byteranges: part headers interleaved with the
// ranges' bytes, each range read straight from its chunks.
class ByteRangesSource final : public http::BodySource {
 public:
  ByteRangesSource(blob::ChunkStore& store, files::FileContent fc,
                   std::vector<http::ByteRange> ranges, std::string boundary)
      : store_(store),
        fc_(std::move(fc)),
        ranges_(std::move(ranges)),
        boundary_(std::move(boundary)) {
    for (size_t i = 0; i < ranges_.size(); ++i) size_ += PartHead(i).size() + ranges_[i].length();
    size_ += Tail().size();
  }
  std::optional<uint64_t> Size() const override { return size_; }
  Result<size_t> Read(char* buf, size_t cap) override {
    for (;;) {
      if (!pending_.empty()) {
        size_t n = std::min(cap, pending_.size() - pending_pos_);
        std::memcpy(buf, pending_.data() + pending_pos_, n);
        pending_pos_ += n;
        if (pending_pos_ == pending_.size()) {
          pending_.clear();
          pending_pos_ = 0;
        }
        return n;
      }
      if (reader_) {
        NUBO_ASSIGN_OR_RETURN(size_t n, reader_->Read(buf, cap));
        if (n > 0) return n;
        reader_.reset();
        ++index_;
        continue;
      }
      if (index_ < ranges_.size()) {
        pending_ = PartHead(index_);
        const auto& r = ranges_[index_];
        NUBO_ASSIGN_OR_RETURN(auto rd, content::ManifestReader::Open(
                                           store_, fc_.chunks, fc_.node.size, r.first, r.length()));
        reader_ = std::make_unique<content::ManifestReader>(std::move(rd));
        continue;
      }
      if (!tail_done_) {
        tail_done_ = true;
        pending_ = Tail();
        continue;
      }
      return size_t{0};
    }
  }
  // Ranges' bytes go out as spans of their chunk files; part headers and
  // the closing boundary through Read (which also opens the next range).
  Status NextSpans(size_t cap, size_t max, std::vector<http::FileSpan>& out) override {
    if (!pending_.empty() || !reader_ || reader_->remaining() == 0) return Status::Ok();
    return SpansOf(*reader_, cap, max, out);
  }
  std::string ContentType() const { return "multipart/byteranges; boundary=" + boundary_; }

 private:
  std::string PartHead(size_t i) const {
    return "\r\n--" + boundary_ + "\r\nContent-Type: " + fc_.node.mime +
           "\r\nContent-Range: bytes " + std::to_string(ranges_[i].first) + "-" +
           std::to_string(ranges_[i].last) + "/" + std::to_string(fc_.node.size) + "\r\n\r\n";
  }
  std::string Tail() const { return "\r\n--" + boundary_ + "--\r\n"; }

  blob::ChunkStore& store_;
  files::FileContent fc_;
  std::vector<http::ByteRange> ranges_;
  std::string boundary_;
  uint64_t size_ = 0;
  size_t index_ = 0;
  std::string pending_;
  size_t pending_pos_ = 0;
  std::unique_ptr<content::ManifestReader> reader_;
  bool tail_done_ = false;
};

}  // namespace

Response ContentResponse(files::Files& files, Request& req, const files::FileContent& fc,
                         int64_t user, const DownloadMeter* meter) {
  const NodeRow& n = fc.node;
  http::Validators v;
  v.etag = files::NodeETag(n);
  v.last_modified = static_cast<std::time_t>(n.mtime_ms / 1000);
  auto common = [&](Response& r) {
    r.headers.Set("ETag", *v.etag);
    r.headers.Set("Last-Modified", FormatHttpDate(*v.last_modified));
    r.headers.Set("Accept-Ranges", "bytes");
    r.headers.Set("Cache-Control", "private, no-cache");
    r.headers.Set("X-Content-Type-Options", "nosniff");
  };
  switch (http::EvaluatePreconditions(req.method, req.headers, v)) {
    case http::Precondition::kNotModified: {
      Response r = Response::Empty(304);
      common(r);
      return r;
    }
    case http::Precondition::kFailed:
      return http::ErrorResponse(412, Code::kPreconditionFailed, "precondition failed");
    case http::Precondition::kProceed:
      break;
  }
  http::RangeSpec spec;
  if (auto range = req.headers.Get("Range"); range && http::IfRangeMatches(req.headers, v)) {
    spec = http::ParseRange(*range, n.size);
  }
  Response r;
  common(r);
  if (spec.kind == http::RangeSpec::Kind::kUnsatisfiable) {
    r = http::ErrorResponse(416, Code::kRangeNotSatisfiable, "range outside the file");
    r.headers.Set("Content-Range", "bytes */" + std::to_string(n.size));
    return r;
  }
  const bool first_byte = spec.kind == http::RangeSpec::Kind::kFull ||
                          std::any_of(spec.ranges.begin(), spec.ranges.end(),
                                      [](const http::ByteRange& b) { return b.first == 0; });
  // Charged once the answer is sure to carry the bytes (after the reader
  // opened: a failure to read costs no download).
  auto charge = [&]() -> Status {
    if (meter && *meter && req.method == "GET" && first_byte && req.principal &&
        req.principal->link()) {
      return (*meter)(*req.principal);
    }
    return Status::Ok();
  };
  const bool attachment = req.Query("download").has_value() || !files::InlineSafe(n.mime);
  r.headers.Set("Content-Disposition", http::ContentDisposition(attachment, n.name));
  if (spec.kind == http::RangeSpec::Kind::kPartial && spec.ranges.size() > 1) {
    if (Status st = charge(); !st.ok()) return http::ErrorResponse(st);
    auto src = std::make_unique<ByteRangesSource>(files.chunks(), fc, spec.ranges, RandomHex(12));
    r.status = 206;
    r.headers.Set("Content-Type", src->ContentType());
    r.source = std::move(src);
    return r;
  }
  uint64_t first = 0, length = n.size;
  if (spec.kind == http::RangeSpec::Kind::kPartial) {
    first = spec.ranges[0].first;
    length = spec.ranges[0].length();
    r.status = 206;
    r.headers.Set("Content-Range", "bytes " + std::to_string(spec.ranges[0].first) + "-" +
                                       std::to_string(spec.ranges[0].last) + "/" +
                                       std::to_string(n.size));
  }
  auto reader = content::ManifestReader::Open(files.chunks(), fc.chunks, n.size, first, length);
  if (!reader.ok()) return http::ErrorResponse(reader.status());
  if (Status st = charge(); !st.ok()) return http::ErrorResponse(st);
  r.headers.Set("Content-Type", n.mime);
  r.source = std::make_unique<RangeSource>(std::move(*reader));
  // A video player's range requests are one viewing, not many uses.
  if (req.method == "GET" && first == 0) files.NoteRecent(user, n.id);
  return r;
}

}  // namespace nubo::api
