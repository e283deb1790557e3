// REST endpoints for drives, files and folders (documented in
// /api/openapi.json): listings, uploads (raw and multipart), downloads with
// ranges and conditionals, rename/move/copy, trash, favorites, recent,
// search, ZIP. Thin: requests are parsed here and every decision is made by
// files::Files, which WebDAV shares.
#pragma once

#include "api/download_meter.h"

namespace nubo::files {
class Files;
}
namespace nubo::http {
class Router;
}

namespace nubo::api {

// What the file routes call out for, beyond the files domain.
struct FileRouteHooks {
  // A public link's bearer downloads (content or ZIP): counts it, or
  // refuses once the link's limit is reached (share::Sharing::TakeDownload).
  DownloadMeter on_download;
};

// Also registers, under /api/v1/public/{token}/, the node routes a public
// link's bearer may use (read, list, download, ZIP, upload, create, rename,
// delete), authenticated by the link.
void RegisterFileRoutes(http::Router& router, files::Files& files, FileRouteHooks hooks = {});

// File versions: list, download, restore, delete (api/version_routes.cc).
void RegisterVersionRoutes(http::Router& router, files::Files& files);

}  // namespace nubo::api
