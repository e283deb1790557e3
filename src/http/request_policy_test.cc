#include "http/request_policy.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

Request Req(std::string method, std::vector<std::pair<std::string, std::string>> headers,
            uint64_t body = 0) {
  Request r;
  r.method = std::move(method);
  for (auto& [k, v] : headers) r.headers.Add(k, v);
  if (body) r.content_length = body;
  return r;
}

TEST(RequestPolicy, CrossSiteUnsafeRequestsAreRefusedWhateverTheCredential) {
  RouteOptions json{.json = true};
  const std::vector<std::vector<std::pair<std::string, std::string>>> refused = {
      {{"Host", "cloud.example"}, {"Sec-Fetch-Site", "cross-site"}},
      {{"Host", "cloud.example"}, {"Sec-Fetch-Site", "same-site"}},
      {{"Host", "cloud.example"}, {"Origin", "https://evil.example"}},
      {{"Host", "cloud.example"}, {"Origin", "null"}},
      {{"Host", "cloud.example:8086"}, {"Origin", "http://cloud.example:9999"}},
      {{"Host", "cloud.example"}, {"Origin", "https://cloud.example.evil.example"}},
      {{"Host", "cloud.example"}, {"Origin", "ftp://cloud.example"}},
  };
  for (const auto& h : refused) {
    EXPECT_EQ(CheckRequestPolicy(Req("POST", h), json).code(), Code::kPermissionDenied) << h[1].second;
    EXPECT_EQ(CheckRequestPolicy(Req("DELETE", h), RouteOptions{}).code(), Code::kPermissionDenied);
    // Safe methods pass (reads cannot change anything), and so does a
    // route meant for other sites.
    EXPECT_TRUE(CheckRequestPolicy(Req("GET", h), json).ok());
    EXPECT_TRUE(CheckRequestPolicy(Req("PROPFIND", h), json).ok());
    EXPECT_TRUE(CheckRequestPolicy(Req("POST", h), RouteOptions{.cross_site = true}).ok());
  }
  const std::vector<std::vector<std::pair<std::string, std::string>>> allowed = {
      {{"Host", "cloud.example"}},                                   // not a browser
      {{"Host", "cloud.example"}, {"Sec-Fetch-Site", "same-origin"}},
      {{"Host", "cloud.example"}, {"Sec-Fetch-Site", "none"}},       // typed or bookmarked
      {{"Host", "Cloud.Example"}, {"Origin", "https://cloud.example"}},
      {{"Host", "cloud.example:443"}, {"Origin", "https://cloud.example"}},  // default port
      {{"Host", "cloud.example"}, {"Origin", "http://cloud.example:80"}},
      {{"Host", "[::1]:8086"}, {"Origin", "http://[::1]:8086"}},
  };
  for (const auto& h : allowed) {
    EXPECT_TRUE(CheckRequestPolicy(Req("POST", h), RouteOptions{}).ok()) << h.back().second;
  }
}

TEST(RequestPolicy, JsonRoutesNeedAJsonBody) {
  RouteOptions json{.json = true};
  for (const char* ok : {"application/json", "Application/JSON; charset=utf-8", "application/merge-patch+json"}) {
    EXPECT_TRUE(CheckRequestPolicy(Req("POST", {{"Content-Type", ok}}, 2), json).ok()) << ok;
  }
  for (const char* bad : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                          "application/jsonp", "+json", ""}) {
    EXPECT_EQ(CheckRequestPolicy(Req("POST", {{"Content-Type", bad}}, 2), json).code(), Code::kUnsupported)
        << bad;
  }
  EXPECT_EQ(CheckRequestPolicy(Req("POST", {}, 2), json).code(), Code::kUnsupported);  // no type at all
  EXPECT_TRUE(CheckRequestPolicy(Req("POST", {}), json).ok());                        // no body
  EXPECT_TRUE(CheckRequestPolicy(Req("POST", {{"Content-Type", "text/plain"}}, 2), RouteOptions{}).ok());
}

}  // namespace
}  // namespace nubo::http
