// tus 1.0.0 (https://tus.io/protocols/resumable-upload) at
// /api/v1/uploads/tus/ over files::UploadSessions: core, creation,
// creation-with-upload, creation-defer-length, expiration, checksum,
// termination, concatenation.
//
// What the file becomes comes from Upload-Metadata (base64 values):
// filename (required), parent_id (a folder's id; default the caller's
// root), conflict (fail | rename | overwrite; default fail), if_match (the
// ETag the overwritten file must have), mtime (ms since the epoch),
// checksum ("blake3:<hex>" of the whole file). The file appears when the
// last byte arrives; the upload's URL then keeps answering HEAD (offset =
// length) until it expires, so a client whose last response was lost
// learns it is done.
#include <fmt/format.h>

#include "api/json.h"
#include "api/node_json.h"
#include "api/route_options.h"
#include "api/tus_routes.h"
#include "files/checksum.h"
#include "files/files.h"
#include "files/upload_sessions.h"
#include "http/body.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::api {

namespace {

using files::UploadSessions;
using http::Request;
using http::Response;
using meta::UploadSessionRow;

constexpr std::string_view kBase = "/api/v1/uploads/tus/";
constexpr const char* kExtensions =
    "creation,creation-with-upload,creation-defer-length,expiration,checksum,termination,"
    "concatenation";
constexpr const char* kChecksumAlgorithms = "sha1,md5,sha256,blake3";

void TusHeaders(Response& r) {
  r.headers.Set("Tus-Resumable", "1.0.0");
  r.headers.Set("Cache-Control", "no-store");
}

Response TusError(const Status& st) {
  Response r = http::ErrorResponse(st);
  TusHeaders(r);
  return r;
}

Response TusError(int code, const std::string& msg) {
  Response r = http::ErrorResponse(code, Code::kInvalidArgument, msg);
  TusHeaders(r);
  return r;
}

// Every request but OPTIONS names the protocol version (412 otherwise,
// with the versions the server speaks).
std::optional<Response> CheckVersion(const Request& req) {
  auto v = req.headers.Get("Tus-Resumable");
  if (v && Trim(*v) == "1.0.0") return std::nullopt;
  Response r =
      http::ErrorResponse(412, Code::kPreconditionFailed, "Tus-Resumable: 1.0.0 is required");
  TusHeaders(r);
  r.headers.Set("Tus-Version", "1.0.0");
  return r;
}

Result<uint64_t> NumberHeader(const Request& req, const char* name) {
  auto v = req.headers.Get(name);
  auto n = v ? ParseUint64(Trim(*v)) : std::nullopt;
  if (!n || *n > static_cast<uint64_t>(INT64_MAX)) {
    return Status::InvalidArgument(std::string(name) + " must be a non-negative integer");
  }
  return *n;
}

// "key base64,key2 base64,flag" (tus creation §Upload-Metadata).
Result<std::map<std::string, std::string>> ParseMetadata(std::string_view v) {
  std::map<std::string, std::string> out;
  for (std::string_view pair : Split(v, ',')) {
    pair = Trim(pair);
    if (pair.empty()) continue;
    const size_t sp = pair.find(' ');
    std::string key(pair.substr(0, sp));
    if (key.empty() || out.count(key)) {
      return Status::InvalidArgument("Upload-Metadata keys must be unique and non-empty");
    }
    std::string value;
    if (sp != std::string_view::npos) {
      auto decoded = Base64Decode(Trim(pair.substr(sp + 1)));
      if (!decoded)
        return Status::InvalidArgument("Upload-Metadata value of " + key + " is not base64");
      value = std::move(*decoded);
    }
    out[key] = std::move(value);
  }
  return out;
}

// The Upload-Checksum header ("<algo> <base64>") as files::Checksum.
Result<std::unique_ptr<files::Checksum>> BodyChecksum(const Request& req) {
  auto v = req.headers.Get("Upload-Checksum");
  if (!v) return std::unique_ptr<files::Checksum>();
  std::string_view s = Trim(*v);
  const size_t sp = s.find(' ');
  if (sp == std::string_view::npos) {
    return Status::InvalidArgument("Upload-Checksum must be \"<algorithm> <base64 digest>\"");
  }
  auto digest = Base64Decode(Trim(s.substr(sp + 1)));
  if (!digest) return Status::InvalidArgument("Upload-Checksum digest is not base64");
  return files::Checksum::Parse(AsciiLowerCopy(s.substr(0, sp)) + ":" +
                                HexEncode(digest->data(), digest->size()));
}

std::string ExpiresHeader(const UploadSessionRow& s) {
  return FormatHttpDate(static_cast<std::time_t>(s.expires_at_ms / 1000));
}

// The session's id from an upload URL (absolute or a path), for
// Upload-Concat: final.
std::optional<std::string> IdOfUrl(std::string_view url) {
  const size_t at = url.find(kBase);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view id = url.substr(at + kBase.size());
  while (!id.empty() && id.back() == '/') id.remove_suffix(1);
  if (id.empty() || id.find('/') != std::string_view::npos) return std::nullopt;
  return std::string(id);
}

// Streams a request body into one session append. Requests without a
// body get one without an append (the handler then does the work).
class AppendSink final : public http::BodySink {
 public:
  AppendSink() = default;
  AppendSink(std::string id, std::unique_ptr<files::SessionAppend> a)
      : id_(std::move(id)), append_(std::move(a)) {}
  Status Write(const char* data, size_t len) override {
    if (!append_) return Status::InvalidArgument("this request takes no body");
    return append_->Write(data, len);
  }
  Status Finish() override {
    if (!append_) return Status::Ok();
    result_ = append_->Finish();
    return result_.status().code() == Code::kInvalidArgument && checksum_failed()
               ? Status::Ok()  // answered 460 by the handler
               : result_.status();
  }
  // A cut connection keeps what arrived: the client resumes from there.
  void Abort() override {
    if (append_) append_->Keep();
  }
  bool has_append() const { return append_ != nullptr; }
  const std::string& id() const { return id_; }
  const Result<UploadSessionRow>& result() const { return result_; }
  bool checksum_failed() const { return append_ && append_->checksum_failed(); }

 private:
  std::string id_;
  std::unique_ptr<files::SessionAppend> append_;
  Result<UploadSessionRow> result_ = Status::Internal("upload not finished");
};

// After an append: the file appears when the last byte is in.
Response AfterAppend(UploadSessions& uploads, Request& req, int status, UploadSessionRow s) {
  Response r = Response::Empty(status);
  if (s.kind != 1 && s.length && s.offset == *s.length) {
    auto done = uploads.Complete(*req.principal, s.public_id);
    if (!done.ok()) return TusError(done.status());
    r.headers.Set("X-Nubo-Node-Id", done->node.public_id);
  }
  TusHeaders(r);
  r.headers.Set("Upload-Offset", std::to_string(s.offset));
  r.headers.Set("Upload-Expires", ExpiresHeader(s));
  return r;
}

Response AppendResponse(UploadSessions& uploads, Request& req, int status) {
  auto* sink = static_cast<AppendSink*>(req.sink);
  if (!sink) return TusError(Status::Internal("upload sink missing"));
  const auto& r = sink->result();
  if (!r.ok()) {
    if (sink->checksum_failed()) return TusError(460, "Checksum Mismatch: " + r.status().message());
    return TusError(r.status());
  }
  return AfterAppend(uploads, req, status, *r);
}

bool OffsetStream(const Request& req) {
  auto ct = req.headers.Get("Content-Type");
  return ct &&
         AsciiLowerCopy(Trim(ct->substr(0, ct->find(';')))) == "application/offset+octet-stream";
}

// What a creation request asks for.
struct Creation {
  files::SessionSpec spec;
  bool final = false;              // Upload-Concat: final
  std::vector<std::string> parts;  // its partial uploads
};

Result<Creation> ParseCreation(files::Files& f, const Request& req, uint64_t max) {
  Creation c;
  const std::string raw(req.headers.Get("Upload-Metadata").value_or(""));
  NUBO_ASSIGN_OR_RETURN(auto meta, ParseMetadata(raw));
  files::SessionSpec& spec = c.spec;
  spec.metadata = raw;
  spec.target.name = meta.count("filename") ? meta["filename"] : "";
  auto concat_header = req.headers.Get("Upload-Concat");
  const bool partial = concat_header && Trim(*concat_header) == "partial";
  // A partial upload becomes no file of its own: clients (tus-js-client's
  // parallel uploads) send its metadata with the final upload only.
  if (spec.target.name.empty() && partial) spec.target.name = "partial upload";
  if (spec.target.name.empty()) {
    return Status::InvalidArgument("Upload-Metadata must name the file (filename)");
  }
  if (meta.count("parent_id")) {
    spec.target.parent_id = meta["parent_id"];
  } else {
    NUBO_ASSIGN_OR_RETURN(auto d, f.PersonalDrive(*req.principal));
    spec.target.parent_id = d.root_id;
  }
  NUBO_ASSIGN_OR_RETURN(spec.target.conflict,
                        files::ParseConflict(meta.count("conflict") ? meta["conflict"] : ""));
  if (meta.count("if_match")) spec.target.if_match = meta["if_match"];
  if (meta.count("mtime")) {
    auto ms = ParseUint64(meta["mtime"]);
    if (!ms || *ms > static_cast<uint64_t>(INT64_MAX)) {
      return Status::InvalidArgument("mtime must be milliseconds since the epoch");
    }
    spec.target.mtime_ms = static_cast<int64_t>(*ms);
  }
  if (meta.count("checksum")) spec.target.checksum = meta["checksum"];
  auto concat = req.headers.Get("Upload-Concat");
  if (concat && Trim(*concat).substr(0, 6) == "final;") {
    if (req.headers.Get("Upload-Length")) {
      return Status::InvalidArgument("a final upload has no Upload-Length");
    }
    c.final = true;
    for (std::string_view url : Split(Trim(*concat).substr(6), ' ')) {
      if (url.empty()) continue;
      auto id = IdOfUrl(url);
      if (!id) return Status::InvalidArgument("Upload-Concat names an unknown upload URL");
      c.parts.push_back(*id);
    }
    return c;
  }
  if (concat) {
    if (Trim(*concat) != "partial") {
      return Status::InvalidArgument("Upload-Concat must be partial or final;<urls>");
    }
    spec.kind = 1;
  }
  if (auto defer = req.headers.Get("Upload-Defer-Length")) {
    if (Trim(*defer) != "1") return Status::InvalidArgument("Upload-Defer-Length must be 1");
    if (req.headers.Get("Upload-Length")) {
      return Status::InvalidArgument("Upload-Length and Upload-Defer-Length exclude each other");
    }
  } else {
    NUBO_ASSIGN_OR_RETURN(uint64_t len, NumberHeader(req, "Upload-Length"));
    if (max && len > max) {
      return Status::TooLarge("Upload-Length exceeds Tus-Max-Size " + std::to_string(max));
    }
    spec.length = len;
  }
  return c;
}

}  // namespace

void RegisterTusRoutes(http::Router& router, files::Files& files, UploadSessions& uploads) {
  files::Files* f = &files;
  UploadSessions* u = &uploads;
  const uint64_t max = files.options().max_upload;
  constexpr http::RouteOptions kPlain = PlainRoute(http::Access::kUser);
  constexpr http::RouteOptions kStream{
      .access = http::Access::kUser, .body = http::BodyPolicy::kStream, .blocking = true};

  router.Add(
      "OPTIONS", "/api/v1/uploads/tus",
      [max](Request&) {
        Response r = Response::Empty(204);
        TusHeaders(r);
        r.headers.Set("Tus-Version", "1.0.0");
        r.headers.Set("Tus-Extension", kExtensions);
        r.headers.Set("Tus-Checksum-Algorithm", kChecksumAlgorithms);
        if (max) r.headers.Set("Tus-Max-Size", std::to_string(max));
        return r;
      },
      kPlain);

  // Creation (with or without a first body), and concatenation.
  router.AddStream(
      "POST", "/api/v1/uploads/tus",
      [f, u, max](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
        if (!req.HasBody()) return std::unique_ptr<http::BodySink>(new AppendSink());
        if (CheckVersion(req))
          return Status::PreconditionFailed("Tus-Resumable: 1.0.0 is required");
        // creation-with-upload: the body is the first bytes.
        if (!OffsetStream(req)) {
          return Status::Unsupported("Content-Type must be application/offset+octet-stream");
        }
        NUBO_ASSIGN_OR_RETURN(Creation c, ParseCreation(*f, req, max));
        if (c.final) return Status::Unsupported("a final upload takes no body");
        NUBO_ASSIGN_OR_RETURN(auto checksum, BodyChecksum(req));
        NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, u->Create(*req.principal, std::move(c.spec)));
        auto append = u->Append(*req.principal, s.public_id, 0, std::move(checksum));
        if (!append.ok()) {
          (void)u->Cancel(*req.principal, s.public_id);
          return append.status();
        }
        return std::unique_ptr<http::BodySink>(new AppendSink(s.public_id, std::move(*append)));
      },
      [f, u, max](Request& req) {
        if (auto bad = CheckVersion(req)) return std::move(*bad);
        auto* sink = static_cast<AppendSink*>(req.sink);
        if (!sink) return TusError(Status::Internal("upload sink missing"));
        std::string id = sink->id();
        Response r;
        if (sink->has_append()) {
          r = AppendResponse(*u, req, 201);
        } else {
          auto c = ParseCreation(*f, req, max);
          if (!c.ok()) return TusError(c.status());
          UploadSessionRow s;
          if (c->final) {
            auto done = u->Concat(*req.principal, std::move(c->spec), c->parts);
            if (!done.ok()) return TusError(done.status());
            s = done->session;
          } else {
            auto made = u->Create(*req.principal, std::move(c->spec));
            if (!made.ok()) return TusError(made.status());
            s = *made;
          }
          id = s.public_id;
          // A zero-length upload is complete at once.
          r = AfterAppend(*u, req, 201, s);
          r.headers.Remove("Upload-Offset");
          if (c->final) r.headers.Set("X-Nubo-Node-Id", s.result_node);
        }
        if (r.status == 201) r.headers.Set("Location", std::string(kBase) + id);
        return r;
      },
      kStream);

  router.Add(
      "HEAD", "/api/v1/uploads/tus/{id}",
      [u](Request& req) {
        if (auto bad = CheckVersion(req)) return std::move(*bad);
        auto s = u->Get(*req.principal, req.Param("id"), /*settle=*/true);
        if (!s.ok()) return TusError(s.status());
        Response r = Response::Empty(200);
        TusHeaders(r);
        r.headers.Set("Upload-Offset", std::to_string(s->offset));
        if (s->length) {
          r.headers.Set("Upload-Length", std::to_string(*s->length));
        } else {
          r.headers.Set("Upload-Defer-Length", "1");
        }
        if (!s->metadata.empty()) r.headers.Set("Upload-Metadata", s->metadata);
        if (s->kind == 1) r.headers.Set("Upload-Concat", "partial");
        r.headers.Set("Upload-Expires", ExpiresHeader(*s));
        if (!s->result_node.empty()) r.headers.Set("X-Nubo-Node-Id", s->result_node);
        return r;
      },
      kPlain);

  router.AddStream(
      "PATCH", "/api/v1/uploads/tus/{id}",
      [u](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
        if (CheckVersion(req))
          return Status::PreconditionFailed("Tus-Resumable: 1.0.0 is required");
        if (!OffsetStream(req)) {
          return Status::Unsupported("Content-Type must be application/offset+octet-stream");
        }
        NUBO_ASSIGN_OR_RETURN(uint64_t offset, NumberHeader(req, "Upload-Offset"));
        if (req.headers.Get("Upload-Length")) {
          NUBO_ASSIGN_OR_RETURN(uint64_t len, NumberHeader(req, "Upload-Length"));
          NUBO_ASSIGN_OR_RETURN(auto s, u->Get(*req.principal, req.Param("id")));
          if (!s.length) {
            NUBO_RETURN_IF_ERROR(u->DeclareLength(*req.principal, req.Param("id"), len));
          } else if (static_cast<int64_t>(len) != *s.length) {
            return Status::InvalidArgument("Upload-Length differs from the upload's length");
          }
        }
        NUBO_ASSIGN_OR_RETURN(auto checksum, BodyChecksum(req));
        NUBO_ASSIGN_OR_RETURN(
            auto append, u->Append(*req.principal, req.Param("id"), offset, std::move(checksum)));
        return std::unique_ptr<http::BodySink>(
            new AppendSink(std::string(req.Param("id")), std::move(append)));
      },
      [u](Request& req) {
        if (auto bad = CheckVersion(req)) return std::move(*bad);
        auto* sink = static_cast<AppendSink*>(req.sink);
        if (!sink || !sink->has_append()) {
          // No body: nothing appended; the upload may still be complete
          // (e.g. a zero-length file, or a retried last request).
          auto s = u->Get(*req.principal, req.Param("id"));
          if (!s.ok()) return TusError(s.status());
          return AfterAppend(*u, req, 204, *s);
        }
        return AppendResponse(*u, req, 204);
      },
      kStream);

  router.Add(
      "DELETE", "/api/v1/uploads/tus/{id}",
      [u](Request& req) {
        if (auto bad = CheckVersion(req)) return std::move(*bad);
        Status st = u->Cancel(*req.principal, req.Param("id"));
        if (!st.ok()) return TusError(st);
        Response r = Response::Empty(204);
        TusHeaders(r);
        return r;
      },
      kPlain);
}

}  // namespace nubo::api
