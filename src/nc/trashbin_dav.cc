// /remote.php/dav/trashbin/<user>/: the caller's trash as Nextcloud clients
// browse it. trash/ lists what the user deleted (each item under its node
// id, with nc:trashbin-filename, nc:trashbin-original-location and
// nc:trashbin-deletion-time), MOVE of trash/<item> to restore/<item>
// restores it, DELETE of trash/<item> deletes it for good and DELETE of
// trash/ empties the trash. Another user's name answers 404. The listing
// streams page by page. The files domain decides (authz::Checker) as for
// every other surface.
#include <cstring>

#include "auth/authz.h"
#include "dav/request_headers.h"
#include "dav/xml_writer.h"
#include "files/files.h"
#include "http/body.h"
#include "http/router.h"
#include "http/status_map.h"
#include "nc/dav_tree.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::nc {

namespace {

using http::Request;
using http::Response;
using meta::NodeRow;

constexpr std::string_view kDav = kDavNsName;
constexpr std::string_view kOc = kOcNsName;
constexpr std::string_view kNc = kNcNsName;
constexpr size_t kPage = 200;

Result<std::vector<std::string>> Below(const Request& req) {
  return BelowOwnName(req, Status::NotFound("no such trash bin"));
}

// One trashed item. `location`: its original path below the user's root.
void Item(dav::XmlWriter& w, const std::string& trash_href, const NodeRow& n,
          const std::string& location) {
  w.Open(kDav, "response");
  std::string href = trash_href;
  dav::AppendEncodedSegment(href, n.public_id);
  if (n.folder()) href += '/';
  w.Leaf(kDav, "href", href);
  w.Open(kDav, "propstat");
  w.Open(kDav, "prop");
  if (n.folder()) {
    w.Open(kDav, "resourcetype");
    w.Empty(kDav, "collection");
    w.Close();
  } else {
    w.Empty(kDav, "resourcetype");
    w.Leaf(kDav, "getcontentlength", std::to_string(n.size));
    w.Leaf(kDav, "getcontenttype", n.mime);
  }
  std::string v;
  AppendHttpDate(v, static_cast<std::time_t>(n.mtime_ms / 1000));
  w.Leaf(kDav, "getlastmodified", v);
  w.Leaf(kDav, "getetag", files::NodeETag(n));
  w.Leaf(kOc, "fileid", std::to_string(n.id));
  w.Leaf(kOc, "size", std::to_string(n.size));
  w.Leaf(kNc, "trashbin-filename", n.name);
  w.Leaf(kNc, "trashbin-original-location", location);
  w.Leaf(kNc, "trashbin-deletion-time", std::to_string(n.trashed_at_ms.value_or(0) / 1000));
  w.Close();
  w.Leaf(kDav, "status", "HTTP/1.1 200 OK");
  w.Close();
  w.Close();
}

std::string OriginalLocation(files::Files& files, const auth::Principal& who, const NodeRow& n) {
  std::string loc;
  auto path = files.Path(who, n);
  if (path.ok()) {
    for (const NodeRow& a : *path) {
      if (!a.parent_id) continue;  // the drive root
      loc += a.name;
      loc += '/';
    }
  }
  return loc + n.name;
}

// The trash listing, a page of items per read.
class TrashSource final : public http::BodySource {
 public:
  TrashSource(files::Files& files, auth::PrincipalPtr who, std::string trash_href, bool members)
      : files_(files), who_(std::move(who)), href_(std::move(trash_href)), members_(members) {
    OpenMultistatus(w_);
    WriteCollection(w_, href_);
    if (!members_) Finish();
  }
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  Result<size_t> Read(char* buf, size_t cap) override {
    std::string& out = w_.buffer();
    while (pos_ == out.size() && !done_) {
      out.clear();
      pos_ = 0;
      NUBO_RETURN_IF_ERROR(Produce());
    }
    const size_t take = std::min(cap, out.size() - pos_);
    std::memcpy(buf, out.data() + pos_, take);
    pos_ += take;
    return take;
  }
  bool Exhausted() const override { return done_ && pos_ == w_.buffer().size(); }

 private:
  void Finish() {
    w_.Close();
    done_ = true;
  }
  Status Produce() {
    NUBO_ASSIGN_OR_RETURN(files::Page page, files_.ListTrash(*who_, cursor_, kPage));
    for (const NodeRow& n : page.items) Item(w_, href_, n, OriginalLocation(files_, *who_, n));
    cursor_ = page.next_cursor;
    if (cursor_.empty()) Finish();
    return Status::Ok();
  }

  files::Files& files_;
  auth::PrincipalPtr who_;
  std::string href_;
  bool members_;
  dav::XmlWriter w_;
  std::string cursor_;
  size_t pos_ = 0;
  bool done_ = false;
};

// The trashed node an item segment names, if it is an item of the caller's
// own trash (their personal drive's, as ListTrash shows it); anything else
// — another drive's trashed node the caller may read through a grant
// included — answers exactly like an id that does not exist.
Result<NodeRow> TrashedItem(files::Files& files, const auth::Principal& who,
                            std::string_view segment) {
  auto n = files.Get(who, segment, /*trashed_too=*/true);
  if (!n.ok()) {
    if (n.status().code() == Code::kNotFound || n.status().code() == Code::kPermissionDenied) {
      return authz::NodeHidden();
    }
    return n.status();
  }
  NUBO_ASSIGN_OR_RETURN(files::DriveInfo mine, files.PersonalDrive(who));
  if (n->live() || !n->trashed_at_ms || n->drive_id != mine.drive.id) return authz::NodeHidden();
  return std::move(*n);
}

Response Propfind(files::Files& files, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  const std::string depth(Trim(req.headers.Get("Depth").value_or("1")));
  const std::string home = TreeHref("trashbin", req.segments[3]);
  if (below->empty()) {
    dav::XmlWriter w;
    OpenMultistatus(w);
    WriteCollection(w, home);
    if (depth != "0") {
      WriteCollection(w, home + "trash/");
      WriteCollection(w, home + "restore/");
    }
    return Multistatus(w);
  }
  if ((*below)[0] == "restore" && below->size() == 1) {
    dav::XmlWriter w;
    OpenMultistatus(w);
    WriteCollection(w, home + "restore/");
    return Multistatus(w);
  }
  if ((*below)[0] != "trash") return TreeError(Status::NotFound("no such collection"));
  if (below->size() == 1) {
    Response r;
    r.status = 207;
    r.headers.Set("Content-Type", "application/xml; charset=utf-8");
    r.source = std::make_unique<TrashSource>(files, req.principal, home + "trash/", depth != "0");
    return r;
  }
  if (below->size() > 2) {
    return TreeError(Status::NotFound("items inside a trashed folder are restored with it"));
  }
  auto n = TrashedItem(files, *req.principal, (*below)[1]);
  if (!n.ok()) return TreeError(n.status());
  dav::XmlWriter w;
  OpenMultistatus(w);
  Item(w, home + "trash/", *n, OriginalLocation(files, *req.principal, *n));
  return Multistatus(w);
}

Response Delete(files::Files& files, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  if (below->size() == 1 && (*below)[0] == "trash") {
    auto n = files.EmptyTrash(*req.principal);
    if (!n.ok()) return TreeError(n.status());
    return Response::Empty(204);
  }
  if (below->size() != 2 || (*below)[0] != "trash") {
    return TreeError(Status::Unsupported("only the trash and its items can be deleted"));
  }
  auto n = TrashedItem(files, *req.principal, (*below)[1]);
  if (!n.ok()) return TreeError(n.status());
  Status st = files.DeletePermanently(*req.principal, n->public_id);
  if (!st.ok()) return TreeError(st);
  return Response::Empty(204);
}

Response Move(files::Files& files, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  if (below->size() != 2 || (*below)[0] != "trash") {
    return TreeError(Status::Unsupported("only items of the trash can be moved (restored)"));
  }
  auto n = TrashedItem(files, *req.principal, (*below)[1]);
  if (!n.ok()) return TreeError(n.status());
  auto v = req.headers.Get("Destination");
  if (!v) return TreeError(Status::InvalidArgument("MOVE needs a Destination"));
  auto d = dav::ParseDestination(*v, req.headers.Get("Host").value_or(""));
  if (!d.ok()) return TreeError(d.status());
  const auto& s = d->segments;
  // Restoring: a Destination in restore/ (its name is not used: the item
  // goes back where it was, a taken name getting " (n)").
  if (s.size() < 5 || s[0] != "remote.php" || s[1] != "dav" || s[2] != "trashbin" ||
      !IEquals(s[3], req.principal->username) || s[4] != "restore") {
    return TreeError(Status::Unsupported("a trashed item is restored by a MOVE into restore/"));
  }
  auto r = files.Restore(*req.principal, n->public_id);
  if (!r.ok()) return TreeError(r.status());
  return Response::Empty(201);
}

}  // namespace

void RegisterTrashbinRoutes(http::Router& router, files::Files& files) {
  files::Files* f = &files;
  RegisterTree(router, "trashbin",
               {{"PROPFIND", [f](Request& req) { return Propfind(*f, req); }, true},
                {"DELETE", [f](Request& req) { return Delete(*f, req); }},
                {"MOVE", [f](Request& req) { return Move(*f, req); }}});
}

}  // namespace nubo::nc
