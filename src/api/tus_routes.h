// The tus 1.0.0 resumable-upload protocol at /api/v1/uploads/tus/
// (api/tus_routes.cc), over files::UploadSessions.
#pragma once

namespace nubo::files {
class Files;
class UploadSessions;
}  // namespace nubo::files
namespace nubo::http {
class Router;
}

namespace nubo::api {

void RegisterTusRoutes(http::Router& router, files::Files& files, files::UploadSessions& uploads);

}  // namespace nubo::api
