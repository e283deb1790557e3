// Delta sync over upload sessions: upload only the chunks the server lacks,
// download only the chunks the client lacks (api/delta_routes.cc).
#pragma once

namespace nubo::files {
class Files;
class UploadSessions;
}  // namespace nubo::files
namespace nubo::http {
class Router;
}

namespace nubo::api {

void RegisterDeltaRoutes(http::Router& router, files::Files& files, files::UploadSessions& uploads);

}  // namespace nubo::api
