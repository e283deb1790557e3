// Discovery, OCS, Login Flow v2, avatars and the polled endpoints.
#include <algorithm>
#include <cstdio>

#include "api/media_routes.h"
#include "auth/accounts.h"
#include "auth/authenticator.h"
#include "auth/login_flows.h"
#include "files/files.h"
#include "http/router.h"
#include "http/status_map.h"
#include "media/thumbnails.h"
#include "nc/chunked_uploads.h"
#include "nc/nc.h"
#include "nc/ocs.h"
#include "share/sharing.h"
#include "util/strings.h"

namespace nubo::nc {

void RegisterUploadRoutes(http::Router& router, ChunkedUploads& uploads);
void RegisterBulkUploadRoutes(http::Router& router, files::Files& files);
void RegisterTrashbinRoutes(http::Router& router, files::Files& files);
void RegisterVersionsRoutes(http::Router& router, files::Files& files);
void RegisterSharingRoutes(http::Router& router, files::Files& files, share::Sharing& sharing);

namespace {

using http::Request;
using http::Response;

// The Nextcloud release whose client API nubo speaks: clients refuse
// servers they consider too old and switch features on by version.
constexpr int kMajor = 28, kMinor = 0, kMicro = 4;

Response StatusPhp(const Request&) {
  std::string body = "{\"installed\":true,\"maintenance\":false,\"needsDbUpgrade\":false,";
  body += "\"version\":\"" + std::to_string(kMajor) + "." + std::to_string(kMinor) + "." +
          std::to_string(kMicro) + ".0\",";
  body += "\"versionstring\":\"" + std::to_string(kMajor) + "." + std::to_string(kMinor) + "." +
          std::to_string(kMicro) + "\",";
  body += "\"edition\":\"\",\"productname\":\"nubo\",\"extendedSupport\":false}";
  Response r = Response::Json(200, std::move(body));
  r.headers.Set("Cache-Control", "no-store");
  return r;
}

OcsValue Capabilities(bool bulk_upload) {
  OcsValue version = OcsValue::Object();
  version.Set("major", kMajor)
      .Set("minor", kMinor)
      .Set("micro", kMicro)
      .Set("string",
           std::to_string(kMajor) + "." + std::to_string(kMinor) + "." + std::to_string(kMicro))
      .Set("edition", "")
      .Set("extendedSupport", false);
  OcsValue core = OcsValue::Object();
  core.Set("pollinterval", 60).Set("webdav-root", "remote.php/webdav");
  // Chunked upload (v2 on /remote.php/dav/uploads/) and bulk upload
  // (/remote.php/dav/bulk: the desktop client's way with small files).
  OcsValue dav = OcsValue::Object();
  dav.Set("chunking", "1.0");
  if (bulk_upload) dav.Set("bulkupload", "1.0");
  OcsValue files = OcsValue::Object();
  files.Set("bigfilechunking", true)
      .Set("undelete", true)
      .Set("versioning", true)
      .Set("blacklisted_files", OcsValue::Array().Push(".htaccess"));
  // What PUT verifies (OC-Checksum) as the bytes arrive.
  OcsValue checksums = OcsValue::Object();
  checksums.Set("supportedTypes", OcsValue::Array().Push("SHA1").Push("MD5"))
      .Set("preferredUploadType", "SHA1");
  OcsValue theming = OcsValue::Object();
  theming.Set("name", "nubo")
      .Set("url", "")
      .Set("slogan", "")
      .Set("color", "#2f6fde")
      .Set("color-text", "#ffffff")
      .Set("color-element", "#2f6fde")
      .Set("background", "")
      .Set("background-plain", true)
      .Set("background-default", true)
      .Set("logo", "")
      .Set("logoheader", "")
      .Set("favicon", "");
  // Shares with users and groups (grants) and public links (the OCS
  // sharing API); no federation, no mail.
  OcsValue sharing = OcsValue::Object();
  sharing.Set("api_enabled", true)
      .Set("resharing", true)
      .Set("group_sharing", true)
      .Set("public", OcsValue::Object()
                         .Set("enabled", true)
                         .Set("upload", true)
                         .Set("upload_files_drop", true)
                         .Set("send_mail", false)
                         .Set("password", OcsValue::Object().Set("enforced", false))
                         .Set("expire_date", OcsValue::Object().Set("enabled", false)))
      .Set("user", OcsValue::Object()
                       .Set("send_mail", false)
                       .Set("expire_date", OcsValue::Object().Set("enabled", true)))
      .Set("federation", OcsValue::Object().Set("outgoing", false).Set("incoming", false));
  OcsValue caps = OcsValue::Object();
  caps.Set("core", std::move(core))
      .Set("files_sharing", std::move(sharing))
      .Set("dav", std::move(dav))
      .Set("files", std::move(files))
      .Set("checksums", std::move(checksums))
      .Set("theming", std::move(theming));
  OcsValue data = OcsValue::Object();
  data.Set("version", std::move(version)).Set("capabilities", std::move(caps));
  return data;
}

OcsValue UserData(const meta::UserRow& u, const files::Usage& usage) {
  OcsValue quota = OcsValue::Object();
  const int64_t used = static_cast<int64_t>(usage.used_bytes);
  if (usage.quota_bytes) {
    const int64_t total = *usage.quota_bytes;
    const int64_t free = std::max<int64_t>(0, total - used);
    quota.Set("free", free).Set("used", used).Set("total", total);
    char rel[32];
    std::snprintf(rel, sizeof rel, "%.2f", total > 0 ? 100.0 * used / total : 0.0);
    quota.Set("relative", std::string(rel)).Set("quota", total);
  } else {
    // Nextcloud's "unlimited": quota -3, free unknown (what the disk holds
    // is not promised).
    quota.Set("free", int64_t{-3}).Set("used", used).Set("total", used);
    quota.Set("relative", "0").Set("quota", int64_t{-3});
  }
  const std::string display = u.display_name.empty() ? u.username : u.display_name;
  OcsValue d = OcsValue::Object();
  d.Set("enabled", u.active)
      .Set("storageLocation", "")
      .Set("id", u.username)
      .Set("lastLogin", u.last_login_at_ms.value_or(0))
      .Set("backend", "Database")
      .Set("subadmin", OcsValue::Array())
      .Set("quota", std::move(quota))
      .Set("email", u.email.value_or(""))
      .Set("displayname", display)
      .Set("display-name", display)
      .Set("phone", "")
      .Set("address", "")
      .Set("website", "")
      .Set("twitter", "")
      .Set("groups", OcsValue::Array())
      .Set("language", "en")
      .Set("locale", "")
      .Set("backendCapabilities",
           OcsValue::Object().Set("setDisplayName", false).Set("setPassword", false));
  return d;
}

// Initials on a colour derived from the name: the same for everyone who
// asks, whether or not the account exists (no enumeration).
Response Avatar(std::string_view name, int size) {
  std::string initial = "?";
  if (!name.empty()) {
    unsigned char c = static_cast<unsigned char>(name[0]);
    if (c < 0x80) {
      initial = std::string(1, static_cast<char>(std::toupper(c)));
    } else {
      // The whole first UTF-8 sequence.
      size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      initial = std::string(name.substr(0, std::min(len, name.size())));
    }
    if (initial == "<" || initial == "&" || initial == ">" || initial == "\"") initial = "?";
  }
  uint32_t h = 2166136261u;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  static constexpr const char* kColors[] = {"#0082c9", "#c98000", "#2d7b41", "#9c3ba8",
                                            "#b3403b", "#3b6fb3", "#6a7a1a", "#a33b6d"};
  const std::string s = std::to_string(size);
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + s + "\" height=\"" + s +
                    "\" viewBox=\"0 0 100 100\"><rect width=\"100\" height=\"100\" fill=\"" +
                    kColors[h % 8] +
                    "\"/><text x=\"50\" y=\"67\" font-size=\"50\" font-family=\"sans-serif\" "
                    "fill=\"#ffffff\" text-anchor=\"middle\">";
  for (unsigned char c : initial) {
    if (c < 0x20) continue;
    svg += static_cast<char>(c);
  }
  svg += "</text></svg>";
  Response r = Response::Text(200, std::move(svg), "image/svg+xml");
  r.headers.Set("Cache-Control", "private, max-age=86400");
  r.headers.Set("X-NC-IsCustomAvatar", "0");
  return r;
}

// A form body's field (application/x-www-form-urlencoded), or the query's.
std::optional<std::string> FormField(const Request& req, std::string_view key) {
  Request form;
  form.query = req.body;
  if (auto v = form.Query(key)) return v;
  return req.Query(key);
}

}  // namespace

void RegisterNcRoutes(http::Router& router, NcDeps deps) {
  meta::MetaStore* meta = &deps.meta;
  auth::Authenticator* authn = &deps.authn;
  files::Files* files = &deps.files;
  auth::LoginFlows* flows = &deps.flows;

  router.Add("GET", "/status.php", StatusPhp);
  router.Add("GET", "/index.php/204", [](Request&) { return Response::Empty(204); });
  router.Add("GET", "/index.php/core/204", [](Request&) { return Response::Empty(204); });

  http::RouteOptions user{.access = http::Access::kUser, .blocking = true};
  for (const char* v : {"/ocs/v1.php", "/ocs/v2.php"}) {
    const std::string base = v;
    router.Add("GET", base + "/cloud/capabilities",
               [bulk = deps.bulk_upload](Request& req) { return OcsOk(req, Capabilities(bulk)); });
    auto user_answer = [meta, files](Request& req, std::string_view id) -> Response {
      const auth::Principal& who = *req.principal;
      // Oneself, or an administrator; anyone else is not there.
      if (!IEquals(id, who.username) && !who.admin)
        return OcsError(req, 404, "User does not exist");
      std::optional<meta::UserRow> u;
      Status st = meta->Read([&](meta::ReadTxn& t) -> Status {
        NUBO_ASSIGN_OR_RETURN(u, t.GetUserByName(std::string(id)));
        return Status::Ok();
      });
      if (!st.ok()) return OcsError(req, 500, "internal error");
      if (!u) return OcsError(req, 404, "User does not exist");
      files::Usage usage;
      if (u->id == who.user_id) {
        auto got = files->GetUsage(who);
        if (got.ok()) usage = *got;
      } else {
        auto got = files->GetUsage(auth::Principal::User(u->id, u->username));
        if (got.ok()) usage = *got;
      }
      return OcsOk(req, UserData(*u, usage));
    };
    router.Add(
        "GET", base + "/cloud/user",
        [user_answer](Request& req) { return user_answer(req, req.principal->username); }, user);
    router.Add(
        "GET", base + "/cloud/users/{id}",
        [user_answer](Request& req) { return user_answer(req, req.Param("id")); }, user);
    // Polled by clients: nothing to report (well-formed and empty).
    router.Add(
        "GET", base + "/apps/notifications/api/v2/notifications",
        [](Request& req) { return OcsOk(req, OcsValue::Array()); }, user);
    router.Add(
        "GET", base + "/apps/activity/api/v2/activity",
        [](Request& req) { return OcsOk(req, OcsValue::Array()); }, user);
    router.Add(
        "GET", base + "/apps/activity/api/v2/activity/{filter}",
        [](Request& req) { return OcsOk(req, OcsValue::Array()); }, user);
    // The account password (Basic) in exchange for an app password, so the
    // client never stores the real one.
    router.Add(
        "GET", base + "/core/getapppassword",
        [meta](Request& req) -> Response {
          const auth::Principal& who = *req.principal;
          if (who.credential != auth::Credential::kAccountPassword) {
            return OcsError(req, 403, "Only the account password can be converted");
          }
          std::string agent(req.headers.Get("User-Agent").value_or("Nextcloud client"));
          auto pw = auth::CreateAppPassword(
              *meta, who.username,
              agent.substr(0, 200).empty() ? "Nextcloud client" : agent.substr(0, 200));
          if (!pw.ok()) return OcsError(req, 500, "cannot create an app password");
          return OcsOk(req, OcsValue::Object().Set("apppassword", pw->secret));
        },
        user);
    // A client logging out deletes the app password it used.
    router.Add(
        "DELETE", base + "/core/apppassword",
        [meta, authn](Request& req) -> Response {
          const auth::Principal& who = *req.principal;
          if (who.credential != auth::Credential::kAppPassword) {
            return OcsError(req, 403, "Only an app password can be deleted this way");
          }
          Status st = auth::RevokeAppPassword(*meta, who.username, who.app_password_id);
          if (!st.ok()) return OcsError(req, 404, "no such app password");
          // Revoked in this process at once (others follow the version).
          authn->InvalidateUser(who.user_id);
          return OcsOk(req, OcsValue::Array());
        },
        user);
  }

  // Avatars: /index.php/avatar/{user}/{size} (and without index.php).
  for (const char* p : {"/index.php/avatar/{user}/{size}", "/avatar/{user}/{size}"}) {
    router.Add(
        "GET", p,
        [](Request& req) {
          auto size = ParseUint64(req.Param("size"));
          int px = size ? static_cast<int>(std::clamp<uint64_t>(*size, 16, 512)) : 64;
          return Avatar(req.Param("user"), px);
        },
        user);
  }

  // Previews (the apps' file lists and galleries): by file id, or by path
  // below the caller's own root (preview.png?file=/a/b.jpg). x and y are the
  // box the app wants; the small thumbnail serves up to 256 pixels, the
  // large one beyond. What the caller may not read answers 404 like a
  // file that does not exist.
  media::Thumbnails* thumbs = &deps.thumbnails;
  auto preview = [files, thumbs](Request& req) -> Response {
    const auth::Principal& who = *req.principal;
    std::string id;
    if (auto fid = req.Query("fileId")) {
      auto n = ParseUint64(*fid);
      if (!n || *n > static_cast<uint64_t>(INT64_MAX)) {
        return http::ErrorResponse(Status::InvalidArgument("fileId must be a number"));
      }
      auto node = files->GetByFileId(who, static_cast<int64_t>(*n));
      if (!node.ok()) return http::ErrorResponse(node.status());
      id = node->public_id;
    } else if (auto path = req.Query("file")) {
      std::vector<std::string> segments;
      for (std::string_view s : Split(*path, '/')) {
        if (!s.empty()) segments.emplace_back(s);
      }
      auto r = files->Resolve(who, segments);
      if (!r.ok()) return http::ErrorResponse(r.status());
      if (!r->node) return http::ErrorResponse(Status::NotFound("no such file"));
      id = r->node->public_id;
    } else {
      return http::ErrorResponse(Status::InvalidArgument("fileId or file is required"));
    }
    uint64_t box = 0;
    for (const char* k : {"x", "y"}) {
      if (auto v = req.Query(k)) box = std::max(box, ParseUint64(*v).value_or(0));
    }
    auto fc = files->OpenContent(who, id);
    if (!fc.ok()) return http::ErrorResponse(fc.status());
    return api::ThumbnailResponse(*thumbs, req, *fc,
                                  box > static_cast<uint64_t>(media::kSmallBox)
                                      ? media::Variant::kLarge
                                      : media::Variant::kSmall);
  };
  for (const char* p : {"/index.php/core/preview", "/index.php/core/preview.png"}) {
    router.Add("GET", p, preview, user);
  }

  // Login Flow v2.
  http::RouteOptions open{.blocking = true};
  open.body = http::BodyPolicy::kBuffered;
  open.max_body = 4096;
  router.Add(
      "POST", "/index.php/login/v2",
      [flows](Request& req) -> Response {
        auto started = flows->Start(req.headers.Get("User-Agent").value_or(""));
        if (!started.ok()) return http::ErrorResponse(started.status());
        const std::string base = ServerUrl(req);
        std::string body =
            "{\"poll\":{\"token\":\"" + started->poll_token +
            "\",\"endpoint\":" + JsonQuote(base + "/index.php/login/v2/poll") +
            "},\"login\":" + JsonQuote(base + "/index.php/login/v2/flow/" + started->login_token) +
            "}";
        Response r = Response::Json(200, std::move(body));
        r.headers.Set("Cache-Control", "no-store");
        return r;
      },
      open);
  router.Add(
      "POST", "/index.php/login/v2/poll",
      [flows](Request& req) -> Response {
        auto token = FormField(req, "token");
        auto got = flows->Poll(token.value_or(""));
        if (!got.ok()) {
          if (got.status().code() == Code::kNotFound) return Response::Json(404, "[]");
          return http::ErrorResponse(got.status());
        }
        std::string body = "{\"server\":" + JsonQuote(ServerUrl(req)) +
                           ",\"loginName\":" + JsonQuote(got->login_name) +
                           ",\"appPassword\":" + JsonQuote(got->app_password) + "}";
        Response r = Response::Json(200, std::move(body));
        r.headers.Set("Cache-Control", "no-store");
        return r;
      },
      open);
  // The browser's step: the web UI's page, with the user's own session.
  router.Add("GET", "/index.php/login/v2/flow/{token}", [](Request& req) {
    Response r = Response::Empty(302);
    std::string token(req.Param("token"));
    // Only hex reaches the Location header.
    if (token.size() > 64 || token.find_first_not_of("0123456789abcdef") != std::string::npos) {
      token.clear();
    }
    r.headers.Set("Location", "/login-flow/" + token);
    r.headers.Set("Cache-Control", "no-store");
    return r;
  });
  RegisterUploadRoutes(router, deps.uploads);
  if (deps.bulk_upload) RegisterBulkUploadRoutes(router, deps.files);
  RegisterTrashbinRoutes(router, deps.files);
  RegisterVersionsRoutes(router, deps.files);
  RegisterSharingRoutes(router, deps.files, deps.sharing);
}

}  // namespace nubo::nc
