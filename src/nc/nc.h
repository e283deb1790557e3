// The Nextcloud client surface (docs/nextcloud.md): what the Nextcloud
// desktop and mobile apps (and ownCloud's) need beyond the files tree of
// src/dav: discovery (/status.php, OCS capabilities and user), Login Flow
// v2, app-password conversion and logout, avatars, the endpoints clients
// poll, chunked upload v2 (/remote.php/dav/uploads/) and the trash bin
// (/remote.php/dav/trashbin/). Everything reaches stored data through the
// files domain, so authz::Checker decides as on every other surface.
#pragma once

#include <functional>

#include "util/status.h"

namespace nubo::files {
class Files;
class UploadSessions;
}  // namespace nubo::files
namespace nubo::share {
class Sharing;
}
namespace nubo::auth {
class Authenticator;
class LoginFlows;
}  // namespace nubo::auth
namespace nubo::http {
class Router;
}
namespace nubo::meta {
class MetaStore;
}
namespace nubo::media {
class Thumbnails;
}

namespace nubo::nc {

class ChunkedUploads;

struct NcDeps {
  meta::MetaStore& meta;
  auth::Authenticator& authn;  // told when an app password is revoked
  files::Files& files;
  auth::LoginFlows& flows;
  ChunkedUploads& uploads;
  share::Sharing& sharing;        // the OCS sharing API's model
  media::Thumbnails& thumbnails;  // /index.php/core/preview
  bool bulk_upload = true;        // advertise and serve /remote.php/dav/bulk
};

void RegisterNcRoutes(http::Router& router, NcDeps deps);

}  // namespace nubo::nc
