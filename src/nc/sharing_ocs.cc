// The OCS sharing API (apps/files_sharing/api/v1/shares and
// apps/files_sharees/api/v1/sharees) on nubo's sharing model
// (docs/sharing.md), so the Nextcloud apps' share dialogs work: user
// (share_type 0) and group (1) shares are grants, public links (3) are
// links. Every call goes through share::Sharing, whose checks are
// authz::Checker's; an item or share the caller may not see answers 404
// like one that does not exist.
//
// Permissions are Nextcloud's bits (1 read, 2 update, 4 create, 8 delete,
// 16 share), mapped onto roles: read alone is a viewer, any of 2/4/8 an
// editor, 16 lets the recipient reshare. A link with create alone (4) is
// a file drop, with any write bit an edit link, else a view link.
#include <cstdio>
#include <ctime>

#include "files/files.h"
#include "http/router.h"
#include "nc/nc.h"
#include "nc/ocs.h"
#include "share/sharing.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::nc {

namespace {

using http::Request;
using http::Response;
using meta::NodeRow;

constexpr int kRead = 1, kUpdate = 2, kCreate = 4, kDelete = 8, kShare = 16;

int GrantBits(const meta::GrantRow& g) {
  int bits = kRead;
  if (g.role >= 2) bits |= kUpdate | kCreate | kDelete;
  if (g.may_reshare || g.role >= 3) bits |= kShare;
  return bits;
}

int LinkBits(const meta::LinkRow& l) {
  if (l.role == share::kLinkDrop) return kCreate;
  if (l.role == share::kLinkEdit) return kRead | kUpdate | kCreate | kDelete;
  return kRead;
}

std::string Expiration(const std::optional<int64_t>& ms) {
  if (!ms) return "";
  std::time_t t = static_cast<std::time_t>(*ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// "YYYY-MM-DD" (Nextcloud's expireDate): the end of that day, UTC.
std::optional<int64_t> ParseExpireDate(std::string_view v) {
  int y, m, d;
  if (v.size() < 10 ||
      std::sscanf(std::string(v.substr(0, 10)).c_str(), "%d-%d-%d", &y, &m, &d) != 3) {
    return std::nullopt;
  }
  if (y < 1970 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = m - 1;
  tm.tm_mday = d;
  tm.tm_hour = 23;
  tm.tm_min = 59;
  tm.tm_sec = 59;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

// A field of the request: the form body (what the apps send), else the
// query.
std::optional<std::string> Field(const Request& req, std::string_view key) {
  Request form;
  form.query = req.body;
  if (auto v = form.Query(key)) return v;
  return req.Query(key);
}

// The node a share's `path` names in the caller's files tree.
Result<NodeRow> NodeAt(files::Files& files, const auth::Principal& who, std::string_view path) {
  std::vector<std::string> segs;
  for (std::string_view s : Split(path, '/')) {
    if (!s.empty()) segs.emplace_back(s);
  }
  if (segs.empty()) return Status::InvalidArgument("the root cannot be shared");
  NUBO_ASSIGN_OR_RETURN(files::Resolved r, files.Resolve(who, segs));
  if (!r.node) return Status::NotFound("Wrong path, file/folder does not exist");
  return std::move(*r.node);
}

// A node's path in the caller's files tree, from its ancestors (Path's).
std::string JoinPath(const std::vector<NodeRow>& ancestors, const NodeRow& n) {
  std::string p;
  for (const NodeRow& a : ancestors) {
    if (!a.parent_id) continue;
    p += "/" + a.name;
  }
  return p + "/" + n.name;
}

std::string PathOf(files::Files& files, const auth::Principal& who, const NodeRow& n) {
  auto path = files.Path(who, n);
  return JoinPath(path.ok() ? *path : std::vector<NodeRow>(), n);
}

OcsValue ItemFields(OcsValue v, const auth::Principal& who, const NodeRow& n,
                    const std::string& path) {
  v.Set("path", path)
      .Set("item_type", n.folder() ? "folder" : "file")
      .Set("mimetype", n.mime)
      .Set("item_source", n.id)
      .Set("file_source", n.id)
      .Set("file_target", "/" + n.name)
      .Set("item_size", static_cast<int64_t>(n.size))
      .Set("item_mtime", n.mtime_ms / 1000)
      .Set("uid_file_owner", who.username)
      .Set("displayname_file_owner", who.username)
      .Set("storage_id", "home::" + who.username)
      .Set("storage", 1)
      .Set("mail_send", 0)
      .Set("hide_download", 0)
      .Set("note", "")
      .Set("parent", OcsValue());
  return v;
}

OcsValue GrantJson(const auth::Principal& who, const NodeRow& n, const std::string& path,
                   const meta::GrantRow& g) {
  OcsValue v = OcsValue::Object();
  v.Set("id", g.public_id)
      .Set("share_type", g.grantee_group ? 1 : 0)
      .Set("uid_owner", who.username)
      .Set("displayname_owner", who.username)
      .Set("permissions", GrantBits(g))
      .Set("can_edit", true)
      .Set("can_delete", true)
      .Set("stime", g.created_at_ms / 1000)
      .Set("expiration", g.expires_at_ms ? OcsValue(Expiration(g.expires_at_ms)) : OcsValue())
      .Set("token", OcsValue())
      .Set("share_with", g.grantee_name)
      .Set("share_with_displayname", g.grantee_name)
      .Set("label", "");
  return ItemFields(std::move(v), who, n, path);
}

OcsValue LinkJson(const auth::Principal& who, const NodeRow& n, const std::string& path,
                  const meta::LinkRow& l, const std::string& base, const std::string& token) {
  OcsValue v = OcsValue::Object();
  v.Set("id", l.public_id)
      .Set("share_type", 3)
      .Set("uid_owner", who.username)
      .Set("displayname_owner", who.username)
      .Set("permissions", LinkBits(l))
      .Set("can_edit", true)
      .Set("can_delete", true)
      .Set("stime", l.created_at_ms / 1000)
      .Set("expiration", l.expires_at_ms ? OcsValue(Expiration(l.expires_at_ms)) : OcsValue())
      // The token is shown once, when the link is made (only its hash is kept).
      .Set("token", token.empty() ? OcsValue() : OcsValue(token))
      .Set("url", token.empty() ? OcsValue() : OcsValue(base + "/s/" + token))
      .Set("share_with", l.password_hash ? OcsValue("***redacted***") : OcsValue())
      .Set("share_with_displayname", l.password_hash ? OcsValue("***redacted***") : OcsValue())
      .Set("password", l.password_hash ? OcsValue("***redacted***") : OcsValue())
      .Set("label", l.label);
  return ItemFields(std::move(v), who, n, path);
}

Response Failure(const Request& req, const Status& st) {
  const int code = st.code() == Code::kNotFound           ? 404
                   : st.code() == Code::kPermissionDenied ? 403
                   : st.code() == Code::kInvalidArgument || st.code() == Code::kAlreadyExists ||
                           st.code() == Code::kConflict
                       ? 400
                   : st.code() == Code::kUnauthenticated ? 401
                                                         : 500;
  return OcsError(req, code, code == 500 ? std::string_view("internal error") : st.message());
}

// The shares on one node the caller may manage: its grants and links.
Result<OcsValue> SharesOn(files::Files& files, share::Sharing& sharing, const Request& req,
                          const NodeRow& n) {
  const auth::Principal& who = *req.principal;
  OcsValue out = OcsValue::Array();
  NUBO_ASSIGN_OR_RETURN(auto grants, sharing.ListGrants(who, n.public_id));
  NUBO_ASSIGN_OR_RETURN(auto links, sharing.ListLinks(who, n.public_id));
  const std::string path = PathOf(files, who, n);
  for (const auto& g : grants) out.Push(GrantJson(who, n, path, g));
  for (const auto& l : links) out.Push(LinkJson(who, n, path, l, ServerUrl(req), ""));
  return out;
}

}  // namespace

void RegisterSharingRoutes(http::Router& router, files::Files& files, share::Sharing& sharing) {
  files::Files* f = &files;
  share::Sharing* s = &sharing;
  http::RouteOptions user{.access = http::Access::kUser, .blocking = true};
  http::RouteOptions body = user;
  body.body = http::BodyPolicy::kBuffered;
  body.max_body = 1 << 16;
  for (const char* v : {"/ocs/v1.php", "/ocs/v2.php"}) {
    const std::string shares = std::string(v) + "/apps/files_sharing/api/v1/shares";
    router.Add(
        "GET", shares,
        [f, s](Request& req) -> Response {
          const auth::Principal& who = *req.principal;
          if (req.Query("shared_with_me").value_or("") == "true") {
            OcsValue out = OcsValue::Array();
            auto page = s->SharedWithMe(who, "", 200);
            if (!page.ok()) return Failure(req, page.status());
            // Where each share is in the caller's own tree (the app opens it there).
            auto mounted = f->MountPaths(who);
            if (!mounted.ok()) return Failure(req, mounted.status());
            for (const auto& item : page->items) {
              auto at = mounted->find(item.node.id);
              const std::string target = at != mounted->end() ? at->second : "/" + item.node.name;
              OcsValue v = OcsValue::Object();
              v.Set("id", item.node.public_id)
                  .Set("share_type", 0)
                  .Set("uid_owner", item.owner)
                  .Set("displayname_owner", item.owner_name)
                  .Set("uid_file_owner", item.owner)
                  .Set("displayname_file_owner", item.owner_name)
                  .Set("share_with", who.username)
                  .Set("share_with_displayname", who.username)
                  .Set("permissions", (item.perms.Has(authz::Action::kRead) ? kRead : 0) |
                                          (item.perms.Has(authz::Action::kModify) ? kUpdate : 0) |
                                          (item.perms.Has(authz::Action::kCreate) ? kCreate : 0) |
                                          (item.perms.Has(authz::Action::kDelete) ? kDelete : 0) |
                                          (item.perms.Has(authz::Action::kShare) ? kShare : 0))
                  .Set("item_type", item.node.folder() ? "folder" : "file")
                  .Set("mimetype", item.node.mime)
                  .Set("item_source", item.node.id)
                  .Set("file_source", item.node.id)
                  .Set("file_target", target)
                  .Set("path", target);
              out.Push(std::move(v));
            }
            return OcsOk(req, std::move(out));
          }
          if (auto path = req.Query("path")) {
            auto n = NodeAt(*f, who, *path);
            if (!n.ok()) return Failure(req, n.status());
            auto out = SharesOn(*f, *s, req, *n);
            if (!out.ok()) return Failure(req, out.status());
            return OcsOk(req, std::move(*out));
          }
          // Everything the caller shared (grants; links are listed per item).
          OcsValue out = OcsValue::Array();
          auto page = s->SharedByMe(who, "", 200);
          if (!page.ok()) return Failure(req, page.status());
          // Every grant's path in one read (one per grant was a transaction each).
          auto paths = f->Paths(who, page->nodes);
          if (!paths.ok()) return Failure(req, paths.status());
          for (size_t i = 0; i < page->items.size(); ++i) {
            const NodeRow& n = page->nodes[i];
            out.Push(GrantJson(who, n, JoinPath((*paths)[i], n), page->items[i]));
          }
          return OcsOk(req, std::move(out));
        },
        user);
    router.Add(
        "POST", shares,
        [f, s](Request& req) -> Response {
          const auth::Principal& who = *req.principal;
          auto path = Field(req, "path");
          auto type = ParseUint64(Field(req, "shareType").value_or(""));
          if (!path || !type) return OcsError(req, 400, "path and shareType are required");
          auto n = NodeAt(*f, who, *path);
          if (!n.ok()) return Failure(req, n.status());
          const auto bits = ParseUint64(Field(req, "permissions").value_or(""));
          std::optional<int64_t> expires;
          if (auto e = Field(req, "expireDate"); e && !e->empty()) {
            expires = ParseExpireDate(*e);
            if (!expires) return OcsError(req, 400, "expireDate must be YYYY-MM-DD");
          }
          if (*type == 0 || *type == 1) {
            auto with = Field(req, "shareWith");
            if (!with || with->empty()) return OcsError(req, 400, "shareWith is required");
            share::GrantSpec spec;
            if (*type == 0) {
              spec.user = *with;
            } else {
              spec.group_id = *with;
            }
            const uint64_t p = bits.value_or(kRead);
            spec.role =
                (p & (kUpdate | kCreate | kDelete)) ? authz::Role::kEditor : authz::Role::kViewer;
            spec.may_reshare = (p & kShare) != 0;
            spec.expires_at_ms = expires;
            auto g = s->Grant(who, n->public_id, spec);
            if (!g.ok()) return Failure(req, g.status());
            return OcsOk(req, GrantJson(who, *n, PathOf(*f, who, *n), *g));
          }
          if (*type == 3) {
            share::LinkSpec spec;
            const uint64_t p = bits.value_or(kRead);
            const bool upload = Field(req, "publicUpload").value_or("") == "true";
            spec.role = p == kCreate                            ? share::kLinkDrop
                        : (upload || (p & (kUpdate | kDelete))) ? share::kLinkEdit
                                                                : share::kLinkView;
            if (auto pw = Field(req, "password"); pw && !pw->empty()) spec.password = *pw;
            spec.expires_at_ms = expires;
            spec.label = Field(req, "label").value_or("");
            auto l = s->CreateLink(who, n->public_id, spec);
            if (!l.ok()) return Failure(req, l.status());
            return OcsOk(req,
                         LinkJson(who, *n, PathOf(*f, who, *n), l->link, ServerUrl(req), l->token));
          }
          return OcsError(req, 400, "unsupported share type");
        },
        body);
    // Changes: permissions and expireDate of a grant; permissions,
    // expireDate, password and label of a link.
    router.Add(
        "PUT", shares + "/{id}",
        [s](Request& req) -> Response {
          const auth::Principal& who = *req.principal;
          const std::string id(req.Param("id"));
          std::optional<std::optional<int64_t>> expires;
          if (auto e = Field(req, "expireDate")) {
            if (e->empty()) {
              expires = std::optional<int64_t>();
            } else {
              auto ms = ParseExpireDate(*e);
              if (!ms) return OcsError(req, 400, "expireDate must be YYYY-MM-DD");
              expires = ms;
            }
          }
          const auto bits = ParseUint64(Field(req, "permissions").value_or(""));
          share::GrantPatch gp;
          if (bits) {
            gp.role = (*bits & (kUpdate | kCreate | kDelete)) ? authz::Role::kEditor
                                                              : authz::Role::kViewer;
            gp.may_reshare = (*bits & kShare) != 0;
          }
          gp.expires_at_ms = expires;
          auto g = s->UpdateGrant(who, id, gp);
          if (g.ok()) return OcsOk(req, OcsValue::Object().Set("id", g->public_id));
          if (g.status().code() != Code::kNotFound) return Failure(req, g.status());
          share::LinkPatch lp;
          if (bits) {
            lp.role = *bits == kCreate                ? share::kLinkDrop
                      : (*bits & (kUpdate | kDelete)) ? share::kLinkEdit
                                                      : share::kLinkView;
          }
          lp.expires_at_ms = expires;
          if (auto pw = Field(req, "password")) {
            lp.password = pw->empty() ? std::optional<std::string>() : std::optional(*pw);
          }
          if (auto label = Field(req, "label")) lp.label = *label;
          auto l = s->UpdateLink(who, id, lp);
          if (!l.ok()) return Failure(req, l.status());
          return OcsOk(req, OcsValue::Object().Set("id", l->public_id));
        },
        body);
    router.Add(
        "DELETE", shares + "/{id}",
        [s](Request& req) -> Response {
          const std::string id(req.Param("id"));
          Status st = s->Revoke(*req.principal, id);
          if (st.code() == Code::kNotFound) st = s->DeleteLink(*req.principal, id);
          if (!st.ok()) return Failure(req, st);
          return OcsOk(req, OcsValue::Array());
        },
        user);
    router.Add(
        "GET", std::string(v) + "/apps/files_sharing/api/v1/sharees",
        [s](Request& req) -> Response {
          auto found = s->SearchSharees(*req.principal, req.Query("search").value_or(""), 25);
          if (!found.ok()) return Failure(req, found.status());
          OcsValue users = OcsValue::Array(), groups = OcsValue::Array();
          for (const auto& sh : *found) {
            OcsValue e = OcsValue::Object();
            e.Set("label", sh.display_name.empty() ? sh.name : sh.display_name)
                .Set("value", OcsValue::Object()
                                  .Set("shareType", sh.is_group ? 1 : 0)
                                  .Set("shareWith", sh.is_group ? sh.id : sh.name));
            (sh.is_group ? groups : users).Push(std::move(e));
          }
          OcsValue exact = OcsValue::Object();
          exact.Set("users", OcsValue::Array()).Set("groups", OcsValue::Array());
          OcsValue d = OcsValue::Object();
          d.Set("exact", std::move(exact))
              .Set("users", std::move(users))
              .Set("groups", std::move(groups));
          return OcsOk(req, std::move(d));
        },
        user);
  }
}

}  // namespace nubo::nc
