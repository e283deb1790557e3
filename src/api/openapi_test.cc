#include "api/openapi.h"
#include "api/login_flow_routes.h"
#include "auth/login_flows.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <filesystem>
#include <set>

#include "api/account_routes.h"
#include "api/delta_routes.h"
#include "api/file_routes.h"
#include "api/media_routes.h"
#include "api/share_routes.h"
#include "api/tus_routes.h"
#include "auth/authenticator.h"
#include "auth/links.h"
#include "auth/sessions.h"
#include "blob/mem/mem_chunk_store.h"
#include "files/files.h"
#include "files/upload_sessions.h"
#include "http/router.h"
#include "media/thumbnails.h"
#include "meta/sqlite/sqlite_store.h"
#include "share/sharing.h"
#include "util/ids.h"
#include "util/strings.h"

namespace nubo::api {
namespace {

namespace fs = std::filesystem;

// Every /api route is documented, and every documented operation is routed:
// a contract change breaks this test, not the web UI.
TEST(OpenApi, DocumentAndRouterAgree) {
  fs::path dir = fs::temp_directory_path() / ("nubo-openapi-" + RandomHex(6));
  fs::create_directories(dir);
  {
    auto meta = std::move(meta::OpenSqlite((dir / "m.db").string())).value();
    auth::PasswordParams p;
    auth::FailureLimiter limiter;
    auth::Authenticator authn(*meta, p, limiter, {});
    auto sessions = std::move(auth::Sessions::Open(*meta, p, {})).value();
    http::Router router;
    RegisterAccountRoutes(router, {*meta, authn, p, *sessions, limiter});
    blob::MemChunkStore chunks;
    files::Files files(*meta, chunks, {});
    RegisterFileRoutes(router, files);
    RegisterVersionRoutes(router, files);
    files::UploadSessions uploads(files, 3600'000);
    RegisterTusRoutes(router, files, uploads);
    RegisterDeltaRoutes(router, files, uploads);
    share::Sharing sharing(*meta);
    auth::LinkVerifier links(*meta, limiter, sessions->signer());
    RegisterShareRoutes(router, sharing, files, links, false);
    auth::LoginFlows flows(*meta);
    RegisterLoginFlowRoutes(router, flows);
    media::Thumbnails thumbnails(*meta, chunks, {});
    RegisterMediaRoutes(router, {*meta, files, thumbnails});

    boost::system::error_code ec;
    auto doc = boost::json::parse(OpenApiDocument(), ec);
    ASSERT_FALSE(ec) << ec.message();
    std::set<std::string> documented;
    for (const auto& [path, item] : doc.at("paths").as_object()) {
      for (const auto& [method, op] : item.as_object()) {
        documented.insert(AsciiLowerCopy(method) + " " + std::string(path));
      }
    }
    std::set<std::string> routed;
    router.ForEach([&](const http::Endpoint& e) {
      if (e.pattern.rfind("/api/v1/", 0) == 0)
        routed.insert(AsciiLowerCopy(e.method) + " " + e.pattern);
    });
    EXPECT_EQ(routed, documented);
    EXPECT_GE(routed.size(), 10u);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nubo::api
