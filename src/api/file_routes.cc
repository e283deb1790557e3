#include "api/file_routes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "api/content_response.h"
#include "api/json.h"
#include "api/node_json.h"
#include "api/route_options.h"
#include "api/upload_sink.h"
#include "auth/principal.h"
#include "content/reader.h"
#include "files/files.h"
#include "files/mime.h"
#include "files/names.h"
#include "files/zip_stream.h"
#include "http/body.h"
#include "http/conditional.h"
#include "http/disposition.h"
#include "http/multipart.h"
#include "http/range.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::api {

namespace {

using files::Files;
using http::Request;
using http::Response;
using meta::NodeRow;

// The guard set the principal for every route registered here (none is
// public).
const auth::Principal& Who(const Request& req) { return *req.principal; }

// RFC 9110 §13.2: a write's preconditions (If-Match, If-None-Match,
// If-Unmodified-Since) are evaluated once, before the write, against the
// node the path names; the ETag they saw is then pinned for the write
// (Conditions::expect_etag), which fails if the node changed in between.
Result<files::Conditions> Preconditions(Files& f, const Request& req) {
  files::Conditions c;
  const auto& h = req.headers;
  if (!h.Get("If-Match") && !h.Get("If-None-Match") && !h.Get("If-Unmodified-Since")) return c;
  NUBO_ASSIGN_OR_RETURN(NodeRow n, f.Get(Who(req), req.Param("id"), /*trashed_too=*/true));
  http::Validators v;
  v.etag = files::NodeETag(n);
  v.last_modified = static_cast<std::time_t>(n.mtime_ms / 1000);
  if (http::EvaluatePreconditions(req.method, h, v) != http::Precondition::kProceed) {
    return Status::PreconditionFailed(
        "a precondition (If-Match, If-None-Match or "
        "If-Unmodified-Since) does not hold");
  }
  c.expect_etag = *v.etag;
  return c;
}

// `extra`: more members of the page object, already JSON (",\"k\":v").
std::string PageJson(const files::Page& p, std::string_view extra = "") {
  std::string j = "{\"items\":[";
  for (size_t i = 0; i < p.items.size(); ++i) {
    if (i) j += ",";
    j += NodeJson(p.items[i]);
  }
  j += "],\"next_cursor\":" +
       (p.next_cursor.empty() ? std::string("null") : JsonQuote(p.next_cursor));
  j += extra;
  j += "}\n";
  return j;
}

Response NodeResponse(int status, const NodeRow& n) {
  Response r = Response::Json(status, NodeJson(n) + "\n");
  r.headers.Set("ETag", files::NodeETag(n));
  return r;
}

Result<size_t> LimitParam(const Request& req, size_t fallback = 100) {
  auto v = req.Query("limit");
  if (!v) return fallback;
  auto n = ParseUint64(*v);
  if (!n || *n < 1 || *n > 500) return Status::InvalidArgument("limit must be 1..500");
  return static_cast<size_t>(*n);
}

Result<std::optional<int64_t>> MillisParam(const Request& req, const char* key) {
  auto v = req.Query(key);
  if (!v) return std::optional<int64_t>();
  auto n = ParseUint64(*v);
  if (!n || *n > static_cast<uint64_t>(INT64_MAX)) {
    return Status::InvalidArgument(std::string(key) + " must be milliseconds since the epoch");
  }
  return std::optional<int64_t>(static_cast<int64_t>(*n));
}

// ---- Uploads ----

std::string DriveJson(const files::DriveInfo& info) {
  const meta::DriveRow& d = info.drive;
  const files::Usage& u = info.usage;
  return "{\"id\":" + JsonQuote(d.public_id) + ",\"kind\":" + JsonQuote(d.kind) +
         ",\"name\":" + JsonQuote(d.name) + ",\"root_id\":" + JsonQuote(info.root_id) +
         ",\"used_bytes\":" + std::to_string(u.used_bytes) +
         ",\"versions_bytes\":" + std::to_string(u.versions_bytes) + ",\"quota_bytes\":" +
         (u.quota_bytes ? std::to_string(*u.quota_bytes) : std::string("null")) +
         ",\"role\":" + JsonQuote(info.role) + "}";
}

std::string ChecksumHeader(const Request& req) {
  if (auto v = req.headers.Get("X-Checksum")) return std::string(Trim(*v));
  // Nextcloud clients: "OC-Checksum: SHA1:<hex>".
  if (auto v = req.headers.Get("OC-Checksum")) return std::string(Trim(*v));
  return "";
}

// Per-part results of a multipart upload: each file part streams into its
// own Upload; a part that fails (name, conflict, quota) is reported and the
// rest go on (partial success is per item, never all-or-nothing).
class MultipartSink final : public http::BodySink, public http::MultipartHandler {
 public:
  MultipartSink(Files& files, auth::PrincipalPtr who, std::string parent, files::Conflict conflict,
                std::string boundary)
      : files_(files),
        who_(std::move(who)),
        parent_(std::move(parent)),
        conflict_(conflict),
        parser_(std::move(boundary), *this, Limits()) {}

  Status Write(const char* data, size_t len) override { return parser_.Write(data, len); }
  Status Finish() override { return parser_.Finish(); }
  void Abort() override {
    if (up_) up_->Abort();
    up_.reset();
  }

  // Parts of any kind count: a body of 100,000 tiny form fields is refused
  // after 10,000 rather than parsed to the end.
  static http::MultipartLimits Limits() {
    http::MultipartLimits l;
    l.max_parts = 10000;
    return l;
  }

  Status OnPartBegin(const http::MultipartPart& part) override {
    if (up_) up_->Abort();
    up_.reset();
    if (!part.filename) {
      current_ = -1;  // a plain form field: ignored
      return Status::Ok();
    }
    current_ = static_cast<int64_t>(results_.size());
    results_.push_back(Item{*part.filename, Status::Ok(), {}});
    // "dir/sub/name.txt" (a dropped folder) creates the folders first.
    std::string rel = *part.filename;
    std::string folder = parent_;
    size_t slash = rel.rfind('/');
    std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
    if (slash != std::string::npos) {
      auto f = files_.EnsureFolders(*who_, parent_, rel.substr(0, slash));
      if (!f.ok()) return Fail(f.status());
      folder = *f;
    }
    files::UploadRequest r;
    r.parent_id = folder;
    r.name = name;
    r.conflict = conflict_;
    auto up = files_.BeginUpload(*who_, std::move(r));
    if (!up.ok()) return Fail(up.status());
    up_ = std::move(up).value();
    return Status::Ok();
  }
  Status OnPartData(const char* data, size_t len) override {
    if (!up_) return Status::Ok();  // field, or a part that already failed: skip its bytes
    Status st = up_->Write(data, len);
    if (!st.ok()) {
      up_->Abort();
      up_.reset();
      return Fail(st);
    }
    return Status::Ok();
  }
  Status OnPartEnd() override {
    if (!up_) return Status::Ok();
    auto r = up_->Finish();
    up_.reset();
    if (!r.ok()) return Fail(r.status());
    results_[static_cast<size_t>(current_)].result = *r;
    return Status::Ok();
  }

  std::string Json() const {
    std::string j = "{\"items\":[";
    for (size_t i = 0; i < results_.size(); ++i) {
      const Item& it = results_[i];
      if (i) j += ",";
      j += "{\"name\":" + JsonQuote(it.name) + ",\"status\":";
      if (!it.error.ok()) {
        j += std::to_string(http::HttpStatusFor(it.error.code())) +
             ",\"error\":{\"error\":" + JsonQuote(CodeName(it.error.code())) + ",\"message\":" +
             JsonQuote(http::HttpStatusFor(it.error.code()) == 500 ? "internal server error"
                                                                   : it.error.message()) +
             "}}";
      } else {
        j += std::string(it.result.created ? "201" : "200") +
             ",\"node\":" + NodeJson(it.result.node) + "}";
      }
    }
    return j + "]}\n";
  }

 private:
  struct Item {
    std::string name;
    Status error;
    files::UploadResult result;
  };
  // A failing part is recorded; only server faults stop the request.
  Status Fail(const Status& st) {
    if (current_ >= 0) results_[static_cast<size_t>(current_)].error = st;
    if (http::HttpStatusFor(st.code()) >= 500 && st.code() != Code::kQuotaExceeded) return st;
    return Status::Ok();
  }

  Files& files_;
  auth::PrincipalPtr who_;
  std::string parent_;
  files::Conflict conflict_;
  http::MultipartParser parser_;
  std::unique_ptr<files::Upload> up_;
  int64_t current_ = -1;
  std::vector<Item> results_;
};

// ---- Downloads ----

Response Download(Files& files, Request& req, const api::DownloadMeter* meter = nullptr) {
  NUBO_OR_ERROR(fc, files.OpenContent(Who(req), req.Param("id")));
  return ContentResponse(files, req, fc, Who(req).user_id, meter);
}

class ZipSource final : public http::BodySource {
 public:
  ZipSource(std::unique_ptr<files::ZipEntries> e, std::string spill_dir)
      : zip_(std::move(e), std::move(spill_dir)) {}
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  Result<size_t> Read(char* buf, size_t cap) override { return zip_.Read(buf, cap); }

 private:
  files::ZipStream zip_;
};

Response ZipResponse(Files& files, Request& req, const std::vector<std::string>& ids,
                     std::string name) {
  NUBO_OR_ERROR(entries, files.ZipNodes(Who(req), ids));
  Response r;
  r.headers.Set("Content-Type", "application/zip");
  r.headers.Set("Content-Disposition", http::ContentDisposition(true, name + ".zip"));
  r.headers.Set("Cache-Control", "no-store");
  r.source = std::make_unique<ZipSource>(std::move(entries), files.options().tmp_dir);
  return r;
}

// ---- Batch ----

struct BatchOp {
  std::string op;
  std::string parent;
  files::Conflict conflict;
};

std::string ItemResult(const std::string& id, const Status& st, int ok_status,
                       const NodeRow* node) {
  std::string j = "{\"id\":" + JsonQuote(id) + ",\"status\":";
  if (!st.ok()) {
    int code = http::HttpStatusFor(st.code());
    return j + std::to_string(code) + ",\"error\":{\"error\":" + JsonQuote(CodeName(st.code())) +
           ",\"message\":" + JsonQuote(code == 500 ? "internal server error" : st.message()) + "}}";
  }
  j += std::to_string(ok_status);
  if (node) j += ",\"node\":" + NodeJson(*node);
  return j + "}";
}

std::string RunBatchItem(Files& files, const auth::Principal& user, const BatchOp& b,
                         const std::string& id) {
  if (b.op == "move") {
    auto r = files.Update(user, id, std::nullopt, b.parent, b.conflict);
    return ItemResult(id, r.status(), 200, r.ok() ? &*r : nullptr);
  }
  if (b.op == "copy") {
    auto r = files.Copy(user, id, b.parent, std::nullopt, b.conflict);
    return ItemResult(id, r.status(), 201, r.ok() ? &*r : nullptr);
  }
  if (b.op == "trash") return ItemResult(id, files.Trash(user, id), 204, nullptr);
  if (b.op == "delete") return ItemResult(id, files.DeletePermanently(user, id), 204, nullptr);
  auto r = files.Restore(user, id);  // "restore"
  return ItemResult(id, r.status(), 200, r.ok() ? &*r : nullptr);
}

// A ZIP through a public link counts against the link's limit (a file's
// content counts in ContentResponse, which sees its ranges). Others'
// downloads count nothing.
Status CountZip(const FileRouteHooks& hooks, const Request& req) {
  if (!req.principal || !req.principal->link() || !hooks.on_download) return Status::Ok();
  if (req.method != "GET") return Status::Ok();
  return hooks.on_download(*req.principal);
}

constexpr http::RouteOptions kRead = PlainRoute(http::Access::kUser);
constexpr http::RouteOptions kJson = JsonRoute(http::Access::kUser, 256 << 10);
constexpr http::RouteOptions kStream{
    .access = http::Access::kUser, .body = http::BodyPolicy::kStream, .blocking = true};

}  // namespace

void RegisterFileRoutes(http::Router& router, Files& files, FileRouteHooks hooks) {
  Files* f = &files;
  auto on_download = std::make_shared<FileRouteHooks>(std::move(hooks));
  // The routes a public link's bearer uses too, under
  // /api/v1/public/{token}/... (http::Access::kLink): the same handlers and
  // the same decisions; the link's principal reaches only what authz lets
  // it (its node and below, as its role says).
  auto public_pattern = [](std::string_view pattern) {
    return "/api/v1/public/{token}/" +
           std::string(pattern.substr(std::string_view("/api/v1/").size()));
  };
  auto both = [&](std::string_view method, std::string_view pattern, http::Handler h,
                  http::RouteOptions o) {
    router.Add(method, pattern, h, o);
    o.access = http::Access::kLink;
    router.Add(method, public_pattern(pattern), std::move(h), o);
  };
  auto both_stream = [&](std::string_view method, std::string_view pattern, http::SinkOpener open,
                         http::Handler h, http::RouteOptions o) {
    router.AddStream(method, pattern, open, h, o);
    o.access = http::Access::kLink;
    router.AddStream(method, public_pattern(pattern), std::move(open), std::move(h), o);
  };

  router.Add(
      "GET", "/api/v1/drives",
      [f](Request& req) {
        NUBO_OR_ERROR(drives, f->Drives(Who(req)));
        std::string j = "{\"drives\":[";
        for (size_t i = 0; i < drives.size(); ++i) j += (i ? "," : "") + DriveJson(drives[i]);
        return Response::Json(200, j + "]}\n");
      },
      kRead);
  router.Add(
      "POST", "/api/v1/drives",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseObject(req.body, {{"name", JsonType::kString},
                                                   {"quota_bytes", JsonType::kInt}}));
        if (!body.Get("name"))
          return http::ErrorResponse(Status::InvalidArgument("name is required"));
        // 0 means no quota, as in PATCH.
        std::optional<int64_t> quota;
        if (auto q = body.Get("quota_bytes"); q && *q != "0") {
          quota = static_cast<int64_t>(*ParseUint64(*q));
        }
        NUBO_OR_ERROR(d, f->CreateDrive(Who(req), *body.Get("name"), quota));
        return Response::Json(201, DriveJson(d) + "\n");
      },
      kJson);
  router.Add(
      "PATCH", "/api/v1/drives/{id}",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseObject(req.body, {{"name", JsonType::kString},
                                                   {"quota_bytes", JsonType::kInt}}));
        std::optional<std::optional<int64_t>> quota;
        // 0 removes the quota (JSON null leaves it as it is).
        if (auto q = body.Get("quota_bytes")) {
          const int64_t n = static_cast<int64_t>(*ParseUint64(*q));
          quota = n == 0 ? std::optional<int64_t>() : std::optional<int64_t>(n);
        }
        NUBO_OR_ERROR(d, f->UpdateDrive(Who(req), req.Param("id"), body.Get("name"), quota));
        return Response::Json(200, DriveJson(d) + "\n");
      },
      kJson);
  router.Add(
      "DELETE", "/api/v1/drives/{id}",
      [f](Request& req) {
        Status st = f->DeleteDrive(Who(req), req.Param("id"));
        return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
      },
      kRead);
  router.Add(
      "GET", "/api/v1/me/usage",
      [f](Request& req) {
        NUBO_OR_ERROR(u, f->GetUsage(Who(req)));
        return Response::Json(
            200,
            "{\"used_bytes\":" + std::to_string(u.used_bytes) +
                ",\"versions_bytes\":" + std::to_string(u.versions_bytes) + ",\"quota_bytes\":" +
                (u.quota_bytes ? std::to_string(*u.quota_bytes) : std::string("null")) + "}\n");
      },
      kRead);

  both(
      "GET", "/api/v1/nodes/{id}",
      [f](Request& req) {
        NUBO_OR_ERROR(n, f->Get(Who(req), req.Param("id")));
        NUBO_OR_ERROR(path, f->Path(Who(req), n));
        std::string j = NodeJson(n);
        j.pop_back();
        j += ",\"path\":[";
        for (size_t i = 0; i < path.size(); ++i) {
          if (i) j += ",";
          j += "{\"id\":" + JsonQuote(path[i].public_id) + ",\"name\":" + JsonQuote(path[i].name) +
               "}";
        }
        Response r = Response::Json(200, j + "]}\n");
        r.headers.Set("ETag", files::NodeETag(n));
        return r;
      },
      kRead);

  both(
      "GET", "/api/v1/nodes/{id}/children",
      [f](Request& req) {
        std::string sort_s = req.Query("sort").value_or("name");
        std::string order = req.Query("order").value_or("asc");
        meta::NodeSort sort;
        if (sort_s == "name") {
          sort = meta::NodeSort::kName;
        } else if (sort_s == "size") {
          sort = meta::NodeSort::kSize;
        } else if (sort_s == "modified") {
          sort = meta::NodeSort::kModified;
        } else if (sort_s == "type") {
          sort = meta::NodeSort::kType;
        } else {
          return http::ErrorResponse(
              Status::InvalidArgument("sort must be name, size, modified or type"));
        }
        if (order != "asc" && order != "desc") {
          return http::ErrorResponse(Status::InvalidArgument("order must be asc or desc"));
        }
        NUBO_OR_ERROR(limit, LimitParam(req));
        NUBO_OR_ERROR(page, f->List(Who(req), req.Param("id"), sort, order == "desc",
                                    req.Query("cursor").value_or(""), limit));
        std::string j = PageJson(page);
        return Response::Json(200, "{\"folder\":" + NodeJson(*page.folder) + "," + j.substr(1));
      },
      kRead);

  both(
      "POST", "/api/v1/nodes/{id}/folders",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseStringObject(req.body, {"name", "conflict"}));
        if (!body.Get("name"))
          return http::ErrorResponse(Status::InvalidArgument("name is required"));
        NUBO_OR_ERROR(conflict, files::ParseConflict(body.Get("conflict").value_or("")));
        NUBO_OR_ERROR(cond, Preconditions(*f, req));
        NUBO_OR_ERROR(
            n, f->CreateFolder(Who(req), req.Param("id"), *body.Get("name"), conflict, cond));
        return NodeResponse(201, n);
      },
      kJson);

  both_stream(
      "PUT", "/api/v1/nodes/{id}/files/{name}",
      [f](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
        files::UploadRequest u;
        u.parent_id = std::string(req.Param("id"));
        u.name = std::string(req.Param("name"));
        NUBO_ASSIGN_OR_RETURN(u.conflict, files::ParseConflict(req.Query("conflict").value_or("")));
        if (auto m = req.headers.Get("If-Match")) {
          if (u.conflict != files::Conflict::kOverwrite) {
            return Status::InvalidArgument("If-Match needs conflict=overwrite");
          }
          u.if_match = std::string(*m);
        }
        u.checksum = ChecksumHeader(req);
        if (!req.chunked) u.expected_size = req.content_length.value_or(0);
        u.body_in_hand = req.body_in_hand;
        NUBO_ASSIGN_OR_RETURN(u.mtime_ms, MillisParam(req, "modified"));
        NUBO_ASSIGN_OR_RETURN(auto up, f->BeginUpload(Who(req), std::move(u)));
        return std::unique_ptr<http::BodySink>(new UploadSink(std::move(up)));
      },
      [](Request& req) {
        auto* sink = static_cast<UploadSink*>(req.sink);
        if (!sink) return http::ErrorResponse(Status::Internal("upload sink missing"));
        const auto& r = sink->result();
        if (!r.ok()) return http::ErrorResponse(r.status());
        return NodeResponse(r->created ? 201 : 200, r->node);
      },
      kStream);

  both_stream(
      "POST", "/api/v1/nodes/{id}/upload",
      [f](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
        NUBO_ASSIGN_OR_RETURN(auto conflict,
                              files::ParseConflict(req.Query("conflict").value_or("")));
        auto ct = req.headers.Get("Content-Type");
        if (!ct) return Status::Unsupported("Content-Type must be multipart/form-data");
        auto boundary = http::MultipartParser::BoundaryFromContentType(*ct);
        if (!boundary.ok()) return Status::Unsupported(boundary.status().message());
        // The folder must exist before any byte is read (a drop link may
        // not read it: its parts are refused one by one instead).
        if (!(Who(req).file_drop())) {
          NUBO_RETURN_IF_ERROR(f->Get(Who(req), req.Param("id")).status());
        }
        return std::unique_ptr<http::BodySink>(new MultipartSink(
            *f, req.principal, std::string(req.Param("id")), conflict, *boundary));
      },
      [](Request& req) {
        auto* sink = static_cast<MultipartSink*>(req.sink);
        if (!sink) return http::ErrorResponse(Status::InvalidArgument("empty multipart body"));
        return Response::Json(200, sink->Json());
      },
      kStream);

  router.Add(
      "POST", "/api/v1/nodes/{id}/instant",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseObject(req.body, {{"name", JsonType::kString},
                                                   {"hash", JsonType::kString},
                                                   {"size", JsonType::kInt},
                                                   {"conflict", JsonType::kString},
                                                   {"modified", JsonType::kInt}}));
        if (!body.Get("name") || !body.Get("hash")) {
          return http::ErrorResponse(Status::InvalidArgument("name and hash are required"));
        }
        meta::Digest hash{};
        if (!ParseDigestHex(AsciiLowerCopy(*body.Get("hash")), hash))
          return http::ErrorResponse(
              Status::InvalidArgument("hash must be 64 hex digits (BLAKE3)"));
        files::UploadRequest u;
        u.parent_id = std::string(req.Param("id"));
        u.name = *body.Get("name");
        NUBO_OR_ERROR(conflict, files::ParseConflict(body.Get("conflict").value_or("")));
        u.conflict = conflict;
        if (auto m = body.Get("modified")) u.mtime_ms = static_cast<int64_t>(*ParseUint64(*m));
        if (auto s = body.Get("size")) u.expected_size = *ParseUint64(*s);
        NUBO_OR_ERROR(r, f->InstantUpload(Who(req), u, hash));
        return NodeResponse(r.created ? 201 : 200, r.node);
      },
      kJson);

  both(
      "GET", "/api/v1/nodes/{id}/content",
      [f, on_download](Request& req) { return Download(*f, req, &on_download->on_download); },
      kRead);

  both(
      "PATCH", "/api/v1/nodes/{id}",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseStringObject(req.body, {"name", "parent_id", "conflict"}));
        if (!body.Get("name") && !body.Get("parent_id")) {
          return http::ErrorResponse(Status::InvalidArgument("name or parent_id is required"));
        }
        NUBO_OR_ERROR(conflict, files::ParseConflict(body.Get("conflict").value_or("")));
        NUBO_OR_ERROR(cond, Preconditions(*f, req));
        NUBO_OR_ERROR(n, f->Update(Who(req), req.Param("id"), body.Get("name"),
                                   body.Get("parent_id"), conflict, cond));
        return NodeResponse(200, n);
      },
      kJson);

  router.Add(
      "POST", "/api/v1/nodes/{id}/copy",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseStringObject(req.body, {"name", "parent_id", "conflict"}));
        if (!body.Get("parent_id"))
          return http::ErrorResponse(Status::InvalidArgument("parent_id is required"));
        NUBO_OR_ERROR(conflict, files::ParseConflict(body.Get("conflict").value_or("")));
        NUBO_OR_ERROR(cond, Preconditions(*f, req));
        NUBO_OR_ERROR(n, f->Copy(Who(req), req.Param("id"), *body.Get("parent_id"),
                                 body.Get("name"), conflict, false, cond));
        return NodeResponse(201, n);
      },
      kJson);

  both(
      "DELETE", "/api/v1/nodes/{id}",
      [f](Request& req) {
        auto permanent = ParseBool(req.Query("permanent").value_or("false"));
        if (!permanent)
          return http::ErrorResponse(Status::InvalidArgument("permanent must be true or false"));
        NUBO_OR_ERROR(cond, Preconditions(*f, req));
        Status st = *permanent ? f->DeletePermanently(Who(req), req.Param("id"), cond)
                               : f->Trash(Who(req), req.Param("id"), cond);
        if (!st.ok()) return http::ErrorResponse(st);
        return Response::Empty(204);
      },
      kRead);

  router.Add(
      "POST", "/api/v1/nodes/{id}/restore",
      [f](Request& req) {
        NUBO_OR_ERROR(cond, Preconditions(*f, req));
        NUBO_OR_ERROR(n, f->Restore(Who(req), req.Param("id"), cond));
        return NodeResponse(200, n);
      },
      kJson);

  router.Add(
      "GET", "/api/v1/trash",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, LimitParam(req));
        NUBO_OR_ERROR(page, f->ListTrash(Who(req), req.Query("cursor").value_or(""), limit,
                                         req.Query("drive").value_or("")));
        // How long items stay before the purge, so clients can show it.
        return Response::Json(
            200,
            PageJson(page, ",\"retention_ms\":" + std::to_string(f->options().trash_retention_ms)));
      },
      kRead);
  router.Add(
      "DELETE", "/api/v1/trash",
      [f](Request& req) {
        NUBO_OR_ERROR(n, f->EmptyTrash(Who(req), req.Query("drive").value_or("")));
        return Response::Json(200, "{\"deleted\":" + std::to_string(n) + "}\n");
      },
      kRead);

  router.Add(
      "POST", "/api/v1/batch",
      [f](Request& req) {
        NUBO_OR_ERROR(body, ParseObject(req.body, {{"op", JsonType::kString},
                                                   {"ids", JsonType::kStringArray},
                                                   {"parent_id", JsonType::kString},
                                                   {"conflict", JsonType::kString}}));
        BatchOp b;
        b.op = body.Get("op").value_or("");
        if (b.op != "move" && b.op != "copy" && b.op != "trash" && b.op != "restore" &&
            b.op != "delete") {
          return http::ErrorResponse(
              Status::InvalidArgument("op must be move, copy, trash, restore or delete"));
        }
        auto it = body.arrays.find("ids");
        if (it == body.arrays.end() || it->second.empty() || it->second.size() > 1000) {
          return http::ErrorResponse(Status::InvalidArgument("ids must list 1..1000 ids"));
        }
        if ((b.op == "move" || b.op == "copy") && !body.Get("parent_id")) {
          return http::ErrorResponse(Status::InvalidArgument("parent_id is required for " + b.op));
        }
        b.parent = body.Get("parent_id").value_or("");
        NUBO_OR_ERROR(conflict, files::ParseConflict(body.Get("conflict").value_or("")));
        b.conflict = conflict;
        std::string j = "{\"results\":[";
        for (size_t i = 0; i < it->second.size(); ++i) {
          if (i) j += ",";
          j += RunBatchItem(*f, Who(req), b, it->second[i]);
        }
        return Response::Json(200, j + "]}\n");
      },
      kJson);

  router.Add(
      "GET", "/api/v1/favorites",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, LimitParam(req));
        NUBO_OR_ERROR(page, f->ListFavorites(Who(req), req.Query("cursor").value_or(""), limit));
        return Response::Json(200, PageJson(page));
      },
      kRead);
  router.Add(
      "PUT", "/api/v1/favorites/{id}",
      [f](Request& req) {
        Status st = f->SetFavorite(Who(req), req.Param("id"), true);
        return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
      },
      kRead);
  router.Add(
      "DELETE", "/api/v1/favorites/{id}",
      [f](Request& req) {
        Status st = f->SetFavorite(Who(req), req.Param("id"), false);
        return st.ok() ? Response::Empty(204) : http::ErrorResponse(st);
      },
      kRead);
  router.Add(
      "GET", "/api/v1/recent",
      [f](Request& req) {
        NUBO_OR_ERROR(limit, LimitParam(req, 100));
        NUBO_OR_ERROR(page, f->ListRecent(Who(req), limit));
        return Response::Json(200, PageJson(page));
      },
      kRead);

  both(
      "GET", "/api/v1/nodes/{id}/zip",
      [f, on_download](Request& req) {
        NUBO_OR_ERROR(n, f->Get(Who(req), req.Param("id")));
        if (Status st = CountZip(*on_download, req); !st.ok()) return http::ErrorResponse(st);
        return ZipResponse(*f, req, {n.public_id}, n.parent_id ? n.name : std::string("files"));
      },
      kRead);
  router.Add(
      "GET", "/api/v1/zip",
      [f](Request& req) {
        std::vector<std::string> ids;
        const std::string list = req.Query("ids").value_or("");
        for (std::string_view id : Split(list, ',')) {
          if (!Trim(id).empty()) ids.emplace_back(Trim(id));
        }
        // The archive's name: the client's (a folder's or selection's
        // label), else the one item's name, else "N items".
        std::string name;
        if (auto want = req.Query("name")) {
          NUBO_OR_ERROR(valid, files::ValidateName(*want));
          name = std::move(valid);
        } else if (ids.size() == 1) {
          NUBO_OR_ERROR(n, f->Get(Who(req), ids[0]));
          name = n.parent_id ? n.name : std::string("files");
        } else {
          name = std::to_string(ids.size()) + " items";
        }
        return ZipResponse(*f, req, ids, name);
      },
      kRead);

  router.Add(
      "GET", "/api/v1/search",
      [f](Request& req) {
        meta::SearchFilter filter;
        if (auto k = req.Query("kind")) {
          if (*k == "file") {
            filter.kind = meta::NodeKind::kFile;
          } else if (*k == "folder") {
            filter.kind = meta::NodeKind::kFolder;
          } else {
            return http::ErrorResponse(Status::InvalidArgument("kind must be file or folder"));
          }
        }
        filter.mime_prefix = req.Query("mime").value_or("");
        for (auto [key, field] :
             {std::pair{"min_size", &filter.min_size}, std::pair{"max_size", &filter.max_size}}) {
          if (auto v = req.Query(key)) {
            auto n = ParseUint64(*v);
            if (!n)
              return http::ErrorResponse(
                  Status::InvalidArgument(std::string(key) + " must be bytes"));
            *field = *n;
          }
        }
        NUBO_OR_ERROR(after, MillisParam(req, "modified_after"));
        NUBO_OR_ERROR(before, MillisParam(req, "modified_before"));
        filter.modified_after_ms = after;
        filter.modified_before_ms = before;
        NUBO_OR_ERROR(limit, LimitParam(req));
        NUBO_OR_ERROR(page, f->Search(Who(req), filter, req.Query("q").value_or(""),
                                      req.Query("cursor").value_or(""), limit));
        return Response::Json(200, PageJson(page));
      },
      kRead);
}

}  // namespace nubo::api
