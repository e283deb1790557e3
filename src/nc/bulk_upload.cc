// POST /remote.php/dav/bulk: Nextcloud's bulk upload (docs/nextcloud.md,
// "Bulk upload"). The desktop client sends up to 100 small new or changed
// files in one multipart/related body (RFC 2387), each part with its path
// (X-File-Path, from the caller's files root), modification time
// (X-File-Mtime), MD5 (X-File-MD5) and, for a changed file, the ETag it
// replaces (If-Match). The answer is a JSON object keyed by each path as
// sent: {"error": false, "etag", "fileid", "permissions", ...} or
// {"error": true, "message"}. One file's failure does not stop the others;
// each file is an ordinary upload (streamed, verified, committed on its
// own), so a broken connection keeps the files before it and nothing of
// the one it cut.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "auth/authz.h"
#include "dav/dav.h"
#include "files/files.h"
#include "http/body.h"
#include "http/multipart.h"
#include "http/router.h"
#include "http/status_map.h"
#include "nc/dav_tree.h"
#include "nc/ocs.h"
#include "util/strings.h"

namespace nubo::nc {

namespace {

using http::Request;
using http::Response;

// The client sends 100 files at most; more is not a client of ours.
constexpr size_t kMaxFiles = 1000;

// Splits an X-File-Path ("/folder/file.txt") into its segments.
Result<std::vector<std::string>> PathSegments(std::string_view path) {
  if (path.empty() || path.front() != '/') {
    return Status::InvalidArgument("X-File-Path must start with \"/\"");
  }
  std::vector<std::string> out;
  for (std::string_view rest = path.substr(1); !rest.empty();) {
    const size_t slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    if (seg.empty()) return Status::InvalidArgument("X-File-Path has an empty segment");
    out.emplace_back(seg);
    if (slash == std::string_view::npos) break;
    rest.remove_prefix(slash + 1);
    if (rest.empty()) return Status::InvalidArgument("X-File-Path names a folder");
  }
  if (out.empty()) return Status::InvalidArgument("X-File-Path names no file");
  return out;
}

// Commits overlap: a part whose bytes all arrived is finished (its chunk
// made durable, its row committed) on one of a few threads while the next
// parts stream in, so the commits' fsyncs share their flushes (group
// commit) instead of queueing one behind the other. At most kInFlight
// finished parts wait or run; the body waits beyond that.
constexpr size_t kInFlight = 8;

class BulkSink final : public http::BodySink, public http::MultipartHandler {
 public:
  BulkSink(files::Files& files, auth::Principal who, std::string boundary)
      : files_(files), who_(std::move(who)), parser_(std::move(boundary), *this, Limits()) {}

  ~BulkSink() override { Abort(); }

  Status Write(const char* data, size_t len) override { return parser_.Write(data, len); }
  Status Finish() override {
    Status st = parser_.Finish();
    Drain();  // a cut body keeps the files complete before the cut
    NUBO_RETURN_IF_ERROR(st);
    finished_ = true;
    return Status::Ok();
  }
  // The part being received goes; complete ones still commit (a cut body
  // keeps the files complete before the cut). May block: the transport
  // calls it on the blocking pool.
  void Abort() override {
    if (upload_) upload_->Abort();
    upload_.reset();
    Drain();
  }

  Status OnPartBegin(const http::MultipartPart& part) override {
    path_.clear();
    error_ = Status::Ok();
    std::optional<std::string_view> mtime, md5, checksum, if_match, length;
    for (const auto& [name, value] : part.fields) {
      if (IEquals(name, "X-File-Path")) path_ = value;
      if (IEquals(name, "X-File-Mtime") || IEquals(name, "X-OC-Mtime")) mtime = value;
      if (IEquals(name, "X-File-MD5")) md5 = value;
      if (IEquals(name, "OC-Checksum")) checksum = value;
      if (IEquals(name, "If-Match")) if_match = value;
      if (IEquals(name, "Content-Length")) length = value;
    }
    // Without its path a part cannot even be answered for: the body is
    // not a bulk upload.
    if (path_.empty()) return Status::InvalidArgument("a part has no X-File-Path");
    if (++files_seen_ > kMaxFiles) {
      return Status::InvalidArgument("at most " + std::to_string(kMaxFiles) +
                                     " files per bulk upload");
    }
    // The same path again: what is in flight lands first, so the last
    // part wins as it would with PUTs one after another.
    if (InFlight(path_)) Drain();
    auto up = Begin(mtime, md5, checksum, if_match, length);
    if (up.ok()) {
      upload_ = std::move(*up);
    } else {
      error_ = up.status();
    }
    return Status::Ok();
  }

  Status OnPartData(const char* data, size_t len) override {
    if (!upload_) return Status::Ok();  // refused: its bytes are skipped
    if (Status st = upload_->Write(data, len); !st.ok()) {
      error_ = st;
      upload_->Abort();
      upload_.reset();
    }
    return Status::Ok();
  }

  Status OnPartEnd() override {
    if (!upload_) {
      std::lock_guard lock(mu_);
      Answer(path_, std::move(error_));
      return Status::Ok();
    }
    Enqueue(path_, std::move(upload_));
    return Status::Ok();
  }

  bool finished() const { return finished_; }
  // After Finish.
  const OcsValue& answers() const { return answers_; }

 private:
  struct Pending {
    std::string path;
    std::unique_ptr<files::Upload> upload;
  };

  static http::MultipartLimits Limits() {
    http::MultipartLimits l;
    l.form_data = false;
    l.max_parts = kMaxFiles + 1;
    return l;
  }

  Result<std::unique_ptr<files::Upload>> Begin(std::optional<std::string_view> mtime,
                                               std::optional<std::string_view> md5,
                                               std::optional<std::string_view> checksum,
                                               std::optional<std::string_view> if_match,
                                               std::optional<std::string_view> length) {
    NUBO_ASSIGN_OR_RETURN(auto segments, PathSegments(path_));
    NUBO_ASSIGN_OR_RETURN(files::Resolved t, files_.Resolve(who_, segments, "", ""));
    if (t.node && t.node->folder()) return Status::Conflict("\"" + path_ + "\" is a folder");
    if (!t.parent) return Status::Conflict("the folder of \"" + path_ + "\" does not exist");
    files::UploadRequest u;
    u.parent_id = t.parent->public_id;
    u.name = t.name;
    u.conflict = files::Conflict::kOverwrite;
    if (if_match) {
      if (!t.node) return Status::PreconditionFailed("If-Match on a file that does not exist");
      u.if_match = std::string(*if_match);
    }
    // The whole file's checksum, verified as its bytes arrive and kept
    // (oc:checksums); the client's MD5 is plain hex.
    if (checksum) {
      u.checksum = std::string(*checksum);
    } else if (md5 && !md5->empty()) {
      u.checksum =
          md5->find(':') == std::string_view::npos ? "md5:" + std::string(*md5) : std::string(*md5);
    }
    if (mtime) {
      auto secs = ParseUint64(*mtime);
      if (!secs || *secs > uint64_t{1} << 40) {
        return Status::InvalidArgument("X-File-Mtime must be seconds since the epoch");
      }
      u.mtime_ms = static_cast<int64_t>(*secs) * 1000;
    }
    if (length) {
      auto n = ParseUint64(*length);
      if (!n) return Status::InvalidArgument("a part's Content-Length must be a byte count");
      u.expected_size = *n;
    }
    return files_.BeginUpload(who_, std::move(u));
  }

  bool InFlight(const std::string& path) {
    std::lock_guard lock(mu_);
    for (const Pending& p : queue_) {
      if (p.path == path) return true;
    }
    return running_.count(path) != 0;
  }

  void Enqueue(std::string path, std::unique_ptr<files::Upload> upload) {
    std::unique_lock lock(mu_);
    room_.wait(lock, [&] { return queue_.size() + running_.size() < kInFlight; });
    queue_.push_back(Pending{std::move(path), std::move(upload)});
    if (workers_.size() < kInFlight && idle_ == 0) {
      workers_.emplace_back([this] { Work(); });
    } else {
      work_.notify_one();
    }
  }

  void Work() {
    std::unique_lock lock(mu_);
    for (;;) {
      ++idle_;
      work_.wait(lock, [&] { return closing_ || !queue_.empty(); });
      --idle_;
      if (queue_.empty()) return;  // closing, nothing left
      Pending p = std::move(queue_.front());
      queue_.pop_front();
      running_.insert(p.path);
      lock.unlock();
      OcsValue answer = Finished(*p.upload);
      p.upload.reset();
      lock.lock();
      running_.erase(running_.find(p.path));
      answers_.Set(p.path, std::move(answer));
      room_.notify_all();
    }
  }

  // Waits for every queued part to commit and the threads to end.
  void Drain() {
    std::vector<std::thread> workers;
    {
      std::lock_guard lock(mu_);
      closing_ = true;
      workers.swap(workers_);
    }
    work_.notify_all();
    for (std::thread& t : workers) t.join();
    std::lock_guard lock(mu_);
    closing_ = false;
  }

  OcsValue Finished(files::Upload& upload) {
    auto done = upload.Finish();
    if (!done.ok()) return Refusal(done.status());
    const meta::NodeRow& n = done->node;
    auto perms = files_.PermsOn(who_, n);
    const std::string etag = files::NodeETag(n);
    const std::string id = dav::OcId(n.id);
    OcsValue v = OcsValue::Object();
    v.Set("error", false)
        .Set("etag", etag)
        .Set("OC-ETag", etag)
        .Set("fileid", id)
        .Set("OC-FileID", id)
        .Set("permissions", perms.ok() ? dav::OcPermissions(n, *perms) : std::string())
        .Set("X-OC-MTime", "accepted");
    return v;
  }

  // "status" is nubo's: the HTTP status a PUT of the file would have had
  // (clients read "error" and "message").
  static OcsValue Refusal(Status st) {
    if (st.ok()) st = Status::Internal("the file was not stored");
    OcsValue v = OcsValue::Object();
    v.Set("error", true)
        .Set("message",
             st.code() == Code::kInternal ? std::string("internal server error") : st.message())
        .Set("status", http::HttpStatusFor(st.code()));
    return v;
  }
  // Under mu_.
  void Answer(const std::string& path, Status st) { answers_.Set(path, Refusal(std::move(st))); }

  files::Files& files_;
  auth::Principal who_;
  http::MultipartParser parser_;
  // The part being received (the body's thread only).
  std::unique_ptr<files::Upload> upload_;
  std::string path_;
  Status error_;
  size_t files_seen_ = 0;
  bool finished_ = false;
  // Complete parts and their commits.
  std::mutex mu_;
  std::condition_variable work_;  // a part is queued, or closing
  std::condition_variable room_;  // a commit ended
  std::deque<Pending> queue_;
  std::multiset<std::string> running_;
  std::vector<std::thread> workers_;
  size_t idle_ = 0;
  bool closing_ = false;
  OcsValue answers_ = OcsValue::Object();
};

}  // namespace

void RegisterBulkUploadRoutes(http::Router& router, files::Files& files) {
  http::RouteOptions stream = TreeRouteOptions();
  stream.body = http::BodyPolicy::kStream;
  files::Files* f = &files;
  router.AddStream(
      "POST", "/remote.php/dav/bulk",
      [f](Request& req) -> Result<std::unique_ptr<http::BodySink>> {
        NUBO_ASSIGN_OR_RETURN(
            std::string boundary,
            http::MultipartParser::BoundaryFromContentType(
                req.headers.Get("Content-Type").value_or(""), "multipart/related"));
        return std::unique_ptr<http::BodySink>(
            new BulkSink(*f, *req.principal, std::move(boundary)));
      },
      [](Request& req) -> Response {
        auto* bulk = static_cast<BulkSink*>(req.sink);
        if (!bulk || !bulk->finished()) {
          return TreeError(Status::Internal("bulk upload without its body"));
        }
        std::string body;
        bulk->answers().AppendJson(body);
        return Response::Json(200, std::move(body));
      },
      stream);
}

}  // namespace nubo::nc
