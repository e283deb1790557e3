// The WebDAV dispatch table and the work done once before any handler:
// resolving the target path, evaluating the If header (RFC 4918 §10.4) and
// the HTTP preconditions (RFC 9110 §13.2), collecting submitted lock tokens.
#include <algorithm>

#include "dav/context.h"
#include "dav/dav.h"
#include "dav/poll_cache.h"
#include "dav/props.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "files/locks.h"
#include "http/conditional.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::dav {

namespace {

using http::Request;
using http::Response;

enum class Body { kNone, kXml, kStream };

struct Method {
  const char* name;
  Response (*handler)(DavContext&);
  Body body;
  // kStream: opens the sink after the shared checks, before any body byte.
  Result<std::unique_ptr<http::BodySink>> (*open_sink)(DavContext&) = nullptr;
};

// The one table: OPTIONS' Allow header is derived from it.
constexpr Method kMethods[] = {
    {"OPTIONS", HandleOptions, Body::kNone},
    {"PROPFIND", HandlePropfind, Body::kXml},
    {"PROPPATCH", HandleProppatch, Body::kXml},
    {"MKCOL", HandleMkcol, Body::kXml},
    {"GET", HandleGet, Body::kNone},
    {"PUT", HandlePut, Body::kStream, OpenPutSink},
    {"PATCH", HandlePatch, Body::kStream, OpenPatchSink},
    {"DELETE", HandleDelete, Body::kNone},
    {"COPY", HandleCopyMove, Body::kNone},
    {"MOVE", HandleCopyMove, Body::kNone},
    {"LOCK", HandleLock, Body::kXml},
    {"UNLOCK", HandleUnlock, Body::kNone},
    {"REPORT", HandleReport, Body::kXml},
};

// Methods that create or change the target: a name that cannot exist is a
// client error here, and merely "not found" for the others.
bool Writes(std::string_view m) {
  return m == "PUT" || m == "MKCOL" || m == "LOCK" || m == "PROPPATCH" || m == "PATCH";
}

// Resolves an If-header tag or Destination (absolute URI or path) to a
// path below one of our mounts.
std::optional<std::vector<std::string>> MountPath(std::string_view uri, std::string_view host,
                                                  std::string_view request_mount) {
  auto d = ParseDestination(uri, host);
  if (!d.ok() || !SameTree(d->segments, request_mount)) return std::nullopt;
  return std::vector<std::string>(d->segments.begin() + MountLength(d->segments),
                                  d->segments.end());
}

// An If header names at most this many resources and conditions: each
// tagged resource costs a path resolution and a lock lookup, and clients
// send one or two (a lock token, an ETag).
constexpr size_t kMaxIfResources = 16;
constexpr size_t kMaxIfConditions = 64;

Status CheckIfBounds(const IfHeader& h) {
  size_t conditions = 0;
  for (const IfTagged& g : h.groups) {
    for (const IfList& l : g.lists) conditions += l.conditions.size();
  }
  if (h.groups.size() > kMaxIfResources || conditions > kMaxIfConditions) {
    return Status::InvalidArgument("the If header names too many resources or conditions");
  }
  return Status::Ok();
}

Result<DavContext*> Prepare(DavContext& c) {
  const Request& req = c.req;
  c.principal = req.principal;
  const size_t n = MountLength(req.segments);
  c.mount.clear();
  for (size_t i = 0; i < n; ++i) c.mount += "/" + req.segments[i];
  c.segments.assign(req.segments.begin() + n, req.segments.end());
  if (req.segments[0] == "dav-drives") c.drive = req.segments[1];
  if (req.segments[0] == "dav-shares") c.share_root = req.segments[1];
  // /remote.php/dav/files/<user>/ is the caller's own tree only; another
  // name answers like a path that does not exist.
  if (n == 4 && AsciiLowerCopy(req.segments[3]) != AsciiLowerCopy(c.who().username)) {
    return Status::NotFound("no such file or folder");
  }
  // A PROPFIND's own folders carry the received shares below them in
  // their ETags: worked out in the same read as the path.
  auto r = c.files.Resolve(c.who(), c.segments, c.drive, c.share_root, req.method == "PROPFIND");
  if (!r.ok()) {
    if (r.status().code() == Code::kInvalidArgument && !Writes(req.method)) {
      return Status::NotFound("no such file or folder");
    }
    return r.status();
  }
  c.target = std::move(*r);
  if (auto v = req.headers.Get("If")) {
    auto h = ParseIfHeader(*v);
    if (!h.ok()) return h.status();
    NUBO_RETURN_IF_ERROR(CheckIfBounds(*h));
    const std::string host(req.headers.Get("Host").value_or(""));
    auto resolve = [&](std::string_view tag) -> IfResourceState {
      IfResourceState st;
      files::Resolved res;
      if (tag == "") {
        res = c.target;
      } else {
        auto segs = MountPath(tag, host, c.mount);
        if (!segs) return st;
        auto rr = c.files.Resolve(c.who(), *segs, c.drive, c.share_root);
        if (!rr.ok()) return st;
        res = std::move(*rr);
      }
      if (res.node) {
        st.exists = true;
        st.etag = files::NodeETag(*res.node);
      }
      // Through a received share, the node (or the folder an unmapped
      // name lies in) vouches for the caller's own locks.
      const meta::NodeRow* via = res.node ? &*res.node : res.parent ? &*res.parent : nullptr;
      auto locks = c.files.CoveringLocks(c.who(), res.drive_id, res.path_key, via);
      if (locks.ok()) {
        for (const auto& l : *locks) st.lock_tokens.push_back(l.token);
      }
      return st;
    };
    if (!EvaluateIf(*h, "", resolve)) {
      return Status::PreconditionFailed("the If header evaluated to false");
    }
    c.cond.lock_tokens = SubmittedLockTokens(*h);
    c.if_header = std::move(*h);
  }
  // RFC 9110 §13.2: If-Match, If-None-Match and If-Unmodified-Since hold
  // for every method (a sync client sends them so as not to destroy a file
  // changed elsewhere). GET and HEAD answer them in the content response
  // (304 and ranges); every other method is refused here with 412, and a
  // write carries the ETag they saw into its transaction.
  const auto& h = req.headers;
  if (req.method != "GET" && req.method != "HEAD" &&
      (h.Get("If-Match") || h.Get("If-None-Match") || h.Get("If-Unmodified-Since"))) {
    http::Validators v;
    v.exists = c.target.node.has_value();
    if (c.target.node) {
      v.etag = files::NodeETag(*c.target.node);
      v.last_modified = static_cast<std::time_t>(c.target.node->mtime_ms / 1000);
    }
    if (http::EvaluatePreconditions(req.method, h, v) != http::Precondition::kProceed) {
      return Status::PreconditionFailed(
          "a precondition (If-Match, If-None-Match or "
          "If-Unmodified-Since) does not hold");
    }
    if (v.etag) c.cond.expect_etag = *v.etag;
  }
  return &c;
}

// What a poll's answer depends on besides the database, when it may be
// kept (dav/poll_cache.h): a PROPFIND Depth: 0 of an account's caller
// without conditions (the If header consults locks, whose life runs with
// the clock; the HTTP preconditions are rare on a poll). Empty: not kept.
std::string PollKey(const Request& req) {
  if (req.method != "PROPFIND") return {};
  auto depth = req.headers.Get("Depth");
  if (!depth || Trim(*depth) != "0") return {};
  const auth::Principal* who = req.principal.get();
  if (!who || who->anonymous() || who->link()) return {};
  for (const char* h : {"If", "If-Match", "If-None-Match", "If-Unmodified-Since"}) {
    if (req.headers.Has(h)) return {};
  }
  const size_t size = who->username.size() + who->session_id.size() + req.target.size() +
                      req.body.size() + 8 * who->groups.size() + 64;
  if (size > PollCache::kMaxKey) return {};
  std::string key;
  key.reserve(size);
  auto num = [&key](int64_t v) {
    key += std::to_string(v);
    key += ' ';
  };
  num(who->user_id);
  num(static_cast<int64_t>(who->credential));
  num(who->scopes);
  num(who->admin);
  num(who->app_password_id);
  num(static_cast<int64_t>(who->groups.size()));
  for (int64_t g : who->groups) num(g);
  key += who->username;
  key += '\0';
  key += who->session_id;
  key += '\0';
  key += req.target;
  key += '\0';
  key += req.body;
  return key;
}

Response Dispatch(files::Files& files, const DavOptions& opt, Request& req,
                  Response (*handler)(DavContext&)) {
  DavContext c{files, opt, req};
  std::string key;
  std::optional<uint64_t> stamp;
  if (opt.poll_cache) {
    key = PollKey(req);
    // The stamp is taken before the answer is read: a write that commits
    // after it leaves the answer unused, whenever the read saw it.
    if (!key.empty()) stamp = opt.poll_cache->Stamp();
    if (stamp) {
      if (auto hit = opt.poll_cache->Find(key, *stamp)) return std::move(*hit);
    }
  }
  auto p = Prepare(c);
  if (!p.ok()) return DavError(p.status());
  Response r = handler(c);
  if (stamp && c.poll_cacheable && r.status == 207 && !r.source) {
    opt.poll_cache->Store(key, *stamp, r);
  }
  return r;
}

// A PUT's context outlives the sink: the handler answers from it.
class PutState final : public http::BodySink {
 public:
  PutState(files::Files& files, const DavOptions& opt, Request& req) : ctx_{files, opt, req} {}
  DavContext& ctx() { return ctx_; }
  void set_inner(std::unique_ptr<http::BodySink> s) { inner_ = std::move(s); }
  http::BodySink* inner() { return inner_.get(); }
  Status Write(const char* data, size_t len) override { return inner_->Write(data, len); }
  Status Finish() override { return inner_->Finish(); }
  void Abort() override { inner_->Abort(); }

 private:
  DavContext ctx_;
  std::unique_ptr<http::BodySink> inner_;
};

}  // namespace

std::string DavContext::Href(const std::vector<std::string>& segs, bool collection) const {
  return mount + EncodeHref(segs, collection);
}

std::string DavContext::TargetHref() const {
  return Href(segments, target.node && target.node->folder());
}

size_t MountLength(const std::vector<std::string>& segments) {
  if (segments.empty()) return 0;
  if (segments[0] == "dav" || segments[0] == "webdav") return 1;
  if (segments.size() >= 2 && segments[0] == "public.php" && segments[1] == "webdav") return 2;
  // The Nextcloud layout: the legacy /remote.php/webdav/ and the files
  // tree of the DAV root, /remote.php/dav/files/<user>/.
  if (segments.size() >= 2 && segments[0] == "remote.php" && segments[1] == "webdav") return 2;
  if (segments.size() >= 4 && segments[0] == "remote.php" && segments[1] == "dav" &&
      segments[2] == "files") {
    return 4;
  }
  if (segments.size() >= 2 && (segments[0] == "dav-drives" || segments[0] == "dav-shares"))
    return 2;
  return 0;
}

bool SameTree(const std::vector<std::string>& segments, std::string_view request_mount) {
  const size_t n = MountLength(segments);
  if (n == 0) return false;
  if (n == 1) return request_mount == "/dav" || request_mount == "/webdav";
  std::string mount;
  for (size_t i = 0; i < n; ++i) mount += "/" + segments[i];
  return request_mount == mount;
}

void SetNodeHeaders(Response& r, const meta::NodeRow& n) {
  std::string etag = files::NodeETag(n);
  r.headers.Set("OC-ETag", etag);
  r.headers.Set("ETag", std::move(etag));
  r.headers.Set("OC-FileId", OcId(n.id));
}

Response DavError(int status, std::string_view condition, std::string_view href) {
  if (condition.empty()) return Response::Empty(status);
  XmlWriter w;
  w.Open(kDavNs, "error", {{"d", std::string(kDavNs)}});
  if (href.empty()) {
    w.Empty(kDavNs, condition);
  } else {
    w.Open(kDavNs, condition);
    w.Leaf(kDavNs, "href", href);
    w.Close();
  }
  w.Close();
  return Response::Text(status, std::move(w.buffer()), "application/xml; charset=utf-8");
}

Response DavError(const Status& st) {
  // §16: a lock the request did not present names the lock's root.
  if (st.code() == Code::kLocked) return DavError(423, "lock-token-submitted", st.message());
  const int code = http::HttpStatusFor(st.code());
  Response r = Response::Text(
      code, code == 500 ? std::string("internal server error\n") : st.message() + "\n");
  return r;
}

Response HandleOptions(DavContext& c) {
  Response r = Response::Empty(200);
  std::string allow;
  for (const Method& m : kMethods) {
    if (!allow.empty()) allow += ", ";
    allow += m.name;
  }
  allow += ", HEAD";
  r.headers.Set("Allow", allow);
  // RFC 4918 §10.1: class 1 and 2, and 3 (the 4918 revision of both).
  r.headers.Set("DAV", "1, 2, 3");
  r.headers.Set("MS-Author-Via", "DAV");  // Windows' Web Folders look for it
  r.headers.Set("Accept-Ranges", "bytes");
  return r;
}

void RegisterDavRoutes(http::Router& router, files::Files& files, DavOptions options) {
  files::Files* f = &files;
  auto opt = std::make_shared<DavOptions>(options);
  // Shared drives at /dav-drives/<id>/ and what was shared with the caller
  // at /dav-shares/<node id>/: prefixes no user's own folder name can take
  // (a user's tree is /dav/). A public link's tree at Nextcloud's
  // public WebDAV address: the token is the Basic user name, the link's
  // password (if any) the password.
  for (const char* mount :
       {"/dav/{path...}", "/webdav/{path...}", "/dav-drives/{drive}/{path...}",
        "/dav-shares/{node}/{path...}", "/public.php/webdav/{path...}",
        "/remote.php/webdav/{path...}", "/remote.php/dav/files/{user}/{path...}"}) {
    for (const Method& m : kMethods) {
      http::RouteOptions ro;
      ro.access = std::string_view(mount).rfind("/public.php/", 0) == 0 ? http::Access::kLink
                                                                        : http::Access::kUser;
      ro.blocking = true;
      ro.errors = [](const Status& st) { return DavError(st); };
      if (std::string_view(m.name) == "PROPFIND") {
        // A sync client's poll: one resource's properties, read from the
        // metadata store's memory.
        ro.inline_when = [](const Request& req) {
          auto depth = req.headers.Get("Depth");
          return depth && Trim(*depth) == "0";
        };
      }
      if (m.body == Body::kXml) {
        ro.body = http::BodyPolicy::kBuffered;
        ro.max_body = opt->max_xml_body;
      }
      if (m.body == Body::kStream) {
        ro.body = http::BodyPolicy::kStream;
        router.AddStream(
            m.name, mount,
            [f, opt, open = m.open_sink](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
              auto state = std::make_unique<PutState>(*f, *opt, req);
              NUBO_RETURN_IF_ERROR(Prepare(state->ctx()).status());
              NUBO_ASSIGN_OR_RETURN(auto inner, open(state->ctx()));
              state->set_inner(std::move(inner));
              return std::unique_ptr<http::BodySink>(std::move(state));
            },
            [handler = m.handler](Request& req) {
              auto* state = static_cast<PutState*>(req.sink);
              if (!state) return DavError(Status::Internal("upload without a sink"));
              state->ctx().upload = state->inner();
              return handler(state->ctx());
            },
            ro);
        continue;
      }
      auto handler = m.handler;
      router.Add(
          m.name, mount,
          [f, opt, handler](Request& req) { return Dispatch(*f, *opt, req, handler); }, ro);
    }
  }
}

}  // namespace nubo::dav
