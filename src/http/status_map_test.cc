#include "http/status_map.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

TEST(StatusMap, Codes) {
  EXPECT_EQ(HttpStatusFor(Code::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFor(Code::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusFor(Code::kPermissionDenied), 403);
  EXPECT_EQ(HttpStatusFor(Code::kNotFound), 404);
  EXPECT_EQ(HttpStatusFor(Code::kConflict), 409);
  EXPECT_EQ(HttpStatusFor(Code::kPreconditionFailed), 412);
  EXPECT_EQ(HttpStatusFor(Code::kTooLarge), 413);
  EXPECT_EQ(HttpStatusFor(Code::kRangeNotSatisfiable), 416);
  EXPECT_EQ(HttpStatusFor(Code::kQuotaExceeded), 507);
  EXPECT_EQ(HttpStatusFor(Code::kUnavailable), 503);
  EXPECT_EQ(HttpStatusFor(Code::kInternal), 500);
}

TEST(StatusMap, JsonBody) {
  Response r = ErrorResponse(Status::NotFound("no \"x\""));
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.headers.Get("Content-Type"), "application/json");
  EXPECT_EQ(r.body, "{\"error\":\"not_found\",\"message\":\"no \\\"x\\\"\"}\n");
}

TEST(StatusMap, InternalErrorsHideDetails) {
  Response r = ErrorResponse(Status::Internal("sqlite: table nodes is locked at 0x7f"));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body.find("sqlite"), std::string::npos);
}

}  // namespace
}  // namespace nubo::http
