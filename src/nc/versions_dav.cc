// /remote.php/dav/versions/<user>/: file versions the way Nextcloud
// clients browse them (docs/nextcloud.md). versions/<file id>/ lists a
// file's versions (newest first, each under its version id, with size,
// time, ETag, type and author), GET of one downloads it (ranges and
// conditionals as any content), MOVE of one to restore/<anything>
// restores it (the current content becomes a version), DELETE deletes it.
// <file id> is the file's oc:fileid. Versions are authorized like their
// file (files/versions.h): a reader lists and downloads them, a writer
// restores and deletes them; a file the caller cannot see answers 404
// like one that does not exist, and so does another user's name.
#include <cstring>

#include "api/content_response.h"
#include "auth/authz.h"
#include "dav/dav.h"
#include "dav/request_headers.h"
#include "dav/xml_writer.h"
#include "files/files.h"
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
using meta::VersionRow;

constexpr std::string_view kDav = kDavNsName;
constexpr std::string_view kNc = kNcNsName;
constexpr std::string_view kOc = kOcNsName;

Result<std::vector<std::string>> Below(const Request& req) {
  return BelowOwnName(req, authz::NodeHidden());
}

// The file <segment> (its numeric id) names, as the caller may read it.
Result<NodeRow> FileOf(files::Files& files, const auth::Principal& who, std::string_view segment) {
  auto id = ParseUint64(segment);
  if (!id || *id == 0 || *id > (uint64_t{1} << 62)) return authz::NodeHidden();
  NUBO_ASSIGN_OR_RETURN(NodeRow n, files.GetByFileId(who, static_cast<int64_t>(*id)));
  if (n.folder()) return authz::NodeHidden();  // folders have no versions
  return n;
}

void Version(dav::XmlWriter& w, const std::string& dir_href, const NodeRow& file,
             const VersionRow& v) {
  w.Open(kDav, "response");
  std::string href = dir_href;
  dav::AppendEncodedSegment(href, v.public_id);
  w.Leaf(kDav, "href", href);
  w.Open(kDav, "propstat");
  w.Open(kDav, "prop");
  w.Empty(kDav, "resourcetype");
  w.Leaf(kDav, "getcontentlength", std::to_string(v.size));
  w.Leaf(kDav, "getcontenttype", file.mime);
  std::string date;
  AppendHttpDate(date, static_cast<std::time_t>(v.mtime_ms / 1000));
  w.Leaf(kDav, "getlastmodified", date);
  // The version's content hash: what its GET answers as ETag too.
  w.Leaf(kDav, "getetag", "\"" + HexEncode(v.hash.data(), v.hash.size()) + "\"");
  w.Leaf(kNc, "version-author", v.author_name);
  w.Leaf(kNc, "version-label", "");
  w.Leaf(kOc, "fileid", std::to_string(file.id));
  w.Close();
  w.Leaf(kDav, "status", "HTTP/1.1 200 OK");
  w.Close();
  w.Close();
}

Response Propfind(files::Files& files, Request& req) {
  auto below = Below(req);
  if (!below.ok()) return TreeError(below.status());
  const std::string depth(Trim(req.headers.Get("Depth").value_or("1")));
  const std::string home = TreeHref("versions", req.segments[3]);
  dav::XmlWriter w;
  OpenMultistatus(w);
  if (below->empty()) {
    WriteCollection(w, home);
    if (depth != "0") {
      WriteCollection(w, home + "versions/");
      WriteCollection(w, home + "restore/");
    }
  } else if (below->size() == 1 && ((*below)[0] == "versions" || (*below)[0] == "restore")) {
    // Not listable: a file's versions are reached by its id.
    WriteCollection(w, home + (*below)[0] + "/");
  } else if ((*below)[0] != "versions" || below->size() > 3) {
    return TreeError(authz::NodeHidden());
  } else {
    auto file = FileOf(files, *req.principal, (*below)[1]);
    if (!file.ok()) return TreeError(file.status());
    auto versions = files.ListVersions(*req.principal, file->public_id);
    if (!versions.ok()) return TreeError(versions.status());
    const std::string dir = home + "versions/" + std::to_string(file->id) + "/";
    if (below->size() == 2) {
      WriteCollection(w, dir);
      if (depth != "0") {
        for (const VersionRow& v : *versions) Version(w, dir, *file, v);
      }
    } else {
      bool found = false;
      for (const VersionRow& v : *versions) {
        if (v.public_id != (*below)[2]) continue;
        Version(w, dir, *file, v);
        found = true;
      }
      if (!found) return TreeError(Status::NotFound("no such version"));
    }
  }
  return Multistatus(w);
}

// versions/<file id>/<version id>: (file, version id) or NotFound.
Result<std::pair<NodeRow, std::string>> VersionTarget(files::Files& files, Request& req) {
  NUBO_ASSIGN_OR_RETURN(auto below, Below(req));
  if (below.size() != 3 || below[0] != "versions") return Status::NotFound("no such version");
  NUBO_ASSIGN_OR_RETURN(NodeRow file, FileOf(files, *req.principal, below[1]));
  return std::make_pair(std::move(file), below[2]);
}

Response Get(files::Files& files, Request& req) {
  auto t = VersionTarget(files, req);
  if (!t.ok()) return TreeError(t.status());
  auto fc = files.OpenVersion(*req.principal, t->first.public_id, t->second);
  if (!fc.ok()) return TreeError(fc.status());
  return api::ContentResponse(files, req, *fc, req.principal->user_id);
}

Response Move(files::Files& files, Request& req) {
  auto t = VersionTarget(files, req);
  if (!t.ok()) return TreeError(t.status());
  auto v = req.headers.Get("Destination");
  if (!v) return TreeError(Status::InvalidArgument("MOVE needs a Destination"));
  auto d = dav::ParseDestination(*v, req.headers.Get("Host").value_or(""));
  if (!d.ok()) return TreeError(d.status());
  const auto& s = d->segments;
  if (s.size() < 5 || s[0] != "remote.php" || s[1] != "dav" || s[2] != "versions" ||
      !IEquals(s[3], req.principal->username) || s[4] != "restore") {
    return TreeError(Status::Unsupported("a version is restored by a MOVE into restore/"));
  }
  auto n = files.RestoreVersion(*req.principal, t->first.public_id, t->second);
  if (!n.ok()) return TreeError(n.status());
  Response r = Response::Empty(204);
  dav::SetNodeHeaders(r, *n);
  return r;
}

Response Delete(files::Files& files, Request& req) {
  auto t = VersionTarget(files, req);
  if (!t.ok()) return TreeError(t.status());
  Status st = files.DeleteVersion(*req.principal, t->first.public_id, t->second);
  if (!st.ok()) return TreeError(st);
  return Response::Empty(204);
}

}  // namespace

void RegisterVersionsRoutes(http::Router& router, files::Files& files) {
  files::Files* f = &files;
  RegisterTree(router, "versions",
               {{"PROPFIND", [f](Request& req) { return Propfind(*f, req); }, true},
                {"GET", [f](Request& req) { return Get(*f, req); }},
                {"MOVE", [f](Request& req) { return Move(*f, req); }},
                {"DELETE", [f](Request& req) { return Delete(*f, req); }}});
}

}  // namespace nubo::nc
