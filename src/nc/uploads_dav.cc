// /remote.php/dav/uploads/<user>/<folder>/<chunk>: chunked upload v2 over
// WebDAV (nc/chunked_uploads.h). MKCOL creates the folder (Destination:
// where the file will go, informative), PUT sends a numbered chunk,
// PROPFIND lists the chunks received (a client resuming asks), MOVE of
// "<folder>/.file" onto a files-tree URL assembles the file, DELETE of the
// folder aborts. Another user's name answers 404 like a missing folder.
#include "dav/dav.h"
#include "dav/request_headers.h"
#include "dav/xml_writer.h"
#include "files/files.h"
#include "http/body.h"
#include "http/router.h"
#include "http/status_map.h"
#include "nc/chunked_uploads.h"
#include "nc/dav_tree.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::nc {

namespace {

using http::Request;
using http::Response;

Status NoSuchUpload() { return Status::NotFound("no such upload"); }

Result<std::vector<std::string>> Below(const Request& req) {
  return BelowOwnName(req, NoSuchUpload());
}

Response Propfind(ChunkedUploads& up, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  const std::string depth(Trim(req.headers.Get("Depth").value_or("1")));
  dav::XmlWriter w;
  OpenMultistatus(w);
  const std::string home = TreeHref("uploads", req.segments[3]);
  if (below->empty()) {
    // The home: no listing of uploads (a client only ever asks its own).
    WriteCollection(w, home, UnixMillis());
  } else if (below->size() == 1) {
    auto u = up.Get(*req.principal, (*below)[0]);
    if (!u.ok()) return TreeError(u.status());
    std::string href = home;
    dav::AppendEncodedSegment(href, u->name);
    href += '/';
    WriteCollection(w, href, u->created_at_ms);
    if (depth != "0") {
      auto parts = up.Parts(*req.principal, u->name);
      if (!parts.ok()) return TreeError(parts.status());
      for (const auto& p : *parts) {
        w.Open(kDavNsName, "response");
        w.Leaf(kDavNsName, "href", href + std::to_string(p.number));
        w.Open(kDavNsName, "propstat");
        w.Open(kDavNsName, "prop");
        w.Empty(kDavNsName, "resourcetype");
        w.Leaf(kDavNsName, "getcontentlength", std::to_string(p.size));
        w.Leaf(kDavNsName, "getetag", "\"" + p.session_id + "\"");
        w.Close();
        w.Leaf(kDavNsName, "status", "HTTP/1.1 200 OK");
        w.Close();
        w.Close();
      }
    }
  } else {
    return TreeError(Status::NotFound("no such chunk"));
  }
  return Multistatus(w);
}

Response Mkcol(ChunkedUploads& up, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  if (below->size() != 1) {
    return TreeError(Status::Conflict("upload folders live directly in the uploads home"));
  }
  if (!req.body.empty()) return Response::Empty(415);
  Status st = up.Create(*req.principal, (*below)[0], req.headers.Get("Destination").value_or(""));
  if (st.code() == Code::kAlreadyExists) return Response::Empty(405);
  if (!st.ok()) return TreeError(st);
  return Response::Empty(201);
}

Response Delete(ChunkedUploads& up, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  if (below->size() != 1) return TreeError(Status::Unsupported("only a whole upload is deleted"));
  Status st = up.Abort(*req.principal, (*below)[0]);
  if (!st.ok()) return TreeError(st);
  return Response::Empty(204);
}

// The files-tree path a Destination names: /remote.php/dav/files/<me>/...
// or /remote.php/webdav/... (the caller's own tree only).
Result<std::vector<std::string>> DestinationPath(const Request& req) {
  auto v = req.headers.Get("Destination");
  if (!v) return Status::InvalidArgument("MOVE needs a Destination");
  NUBO_ASSIGN_OR_RETURN(auto d, dav::ParseDestination(*v, req.headers.Get("Host").value_or("")));
  const auto& s = d.segments;
  size_t skip = 0;
  if (s.size() >= 4 && s[0] == "remote.php" && s[1] == "dav" && s[2] == "files" &&
      IEquals(s[3], req.principal->username)) {
    skip = 4;
  } else if (s.size() >= 2 && s[0] == "remote.php" && s[1] == "webdav") {
    skip = 2;
  } else {
    return Status::Unsupported("the Destination must lie in the caller's files tree");
  }
  if (s.size() == skip) return Status::Conflict("the Destination names the root");
  return std::vector<std::string>(s.begin() + skip, s.end());
}

Response Move(ChunkedUploads& up, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  if (below->size() != 2 || (*below)[1] != ".file") {
    return TreeError(Status::Unsupported("only <upload>/.file can be moved"));
  }
  // The upload must exist before anything else is decided (404 first).
  auto u = up.Get(*req.principal, (*below)[0]);
  if (!u.ok()) return TreeError(u.status());
  auto dest = DestinationPath(req);
  if (!dest.ok()) return TreeError(dest.status());
  auto target = up.files().Resolve(*req.principal, *dest, "", "");
  if (!target.ok()) return TreeError(target.status());
  if (!target->parent) return TreeError(Status::Conflict("the destination folder does not exist"));
  if (target->node && target->node->folder()) {
    return TreeError(Status::Conflict("the destination is a folder"));
  }
  AssembleRequest a;
  a.parent_id = target->parent->public_id;
  a.name = target->name;
  const auto& h = req.headers;
  if (auto ow = h.Get("Overwrite"); ow && IEquals(Trim(*ow), "F")) {
    if (target->node) return Response::Empty(412);
    a.overwrite = false;
  }
  if (auto im = h.Get("If-Match")) {
    if (!target->node) return Response::Empty(412);
    a.if_match = std::string(Trim(*im));
  }
  if (auto inm = h.Get("If-None-Match"); inm && Trim(*inm) == "*") {
    if (target->node) return Response::Empty(412);
    a.overwrite = false;
  }
  if (auto v = h.Get("X-OC-MTime")) {
    auto secs = ParseUint64(Trim(*v));
    if (!secs || *secs > uint64_t{1} << 40) {
      return TreeError(Status::InvalidArgument("X-OC-MTime must be seconds since the epoch"));
    }
    a.mtime_ms = static_cast<int64_t>(*secs) * 1000;
  }
  if (auto v = h.Get("OC-Total-Length")) {
    auto n = ParseUint64(Trim(*v));
    if (!n) return TreeError(Status::InvalidArgument("OC-Total-Length must be a byte count"));
    a.total_length = *n;
  }
  // The whole file's checksum (the client sends it with the MOVE): a
  // mismatch is 400 and the chunks stay for another try.
  if (auto v = h.Get("OC-Checksum")) a.checksum = std::string(Trim(*v));
  auto done = up.Assemble(*req.principal, u->name, a);
  if (!done.ok()) {
    if (done.status().code() == Code::kAlreadyExists) return Response::Empty(412);
    return TreeError(done.status());
  }
  Response r = Response::Empty(done->created ? 201 : 204);
  dav::SetNodeHeaders(r, done->node);
  if (a.mtime_ms) r.headers.Set("X-OC-MTime", "accepted");
  return r;
}

// PUT of a chunk: the sink the route opens streams it into its session.
class ChunkPut final : public http::BodySink {
 public:
  explicit ChunkPut(std::unique_ptr<http::BodySink> inner) : inner_(std::move(inner)) {}
  Status Write(const char* data, size_t len) override { return inner_->Write(data, len); }
  Status Finish() override {
    finished_ = inner_->Finish();
    return finished_;
  }
  void Abort() override { inner_->Abort(); }
  const Status& finished() const { return finished_; }

 private:
  std::unique_ptr<http::BodySink> inner_;
  Status finished_ = Status::Internal("chunk not finished");
};

}  // namespace

void RegisterUploadRoutes(http::Router& router, ChunkedUploads& uploads) {
  ChunkedUploads* up = &uploads;
  RegisterTree(router, "uploads",
               {{"PROPFIND", [up](Request& req) { return Propfind(*up, req); }, true},
                {"MKCOL", [up](Request& req) { return Mkcol(*up, req); }, true},
                {"DELETE", [up](Request& req) { return Delete(*up, req); }},
                {"MOVE", [up](Request& req) { return Move(*up, req); }}},
               "PUT");
  {
    const std::string p = TreePattern("uploads");
    http::RouteOptions stream = TreeRouteOptions();
    stream.body = http::BodyPolicy::kStream;
    router.AddStream(
        "PUT", p,
        [up](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
          NUBO_ASSIGN_OR_RETURN(auto below, Below(req));
          if (below.size() != 2) {
            return Status::Conflict("chunks go into an upload folder: <upload>/<number>");
          }
          std::optional<uint64_t> length;
          if (!req.chunked) length = req.content_length.value_or(0);
          NUBO_ASSIGN_OR_RETURN(auto sink,
                                up->PutChunk(*req.principal, below[0], below[1], length));
          return std::unique_ptr<http::BodySink>(new ChunkPut(std::move(sink)));
        },
        [](Request& req) -> Response {
          auto* put = static_cast<ChunkPut*>(req.sink);
          if (!put) return TreeError(Status::Internal("chunk without a sink"));
          if (!put->finished().ok()) return TreeError(put->finished());
          return Response::Empty(201);
        },
        stream);
  }
}

}  // namespace nubo::nc
