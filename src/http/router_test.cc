#include "http/router.h"

#include <gtest/gtest.h>

namespace nubo::http {
namespace {

Handler Named(std::string name) {
  return [name](Request&) { return Response::Text(200, name); };
}

std::vector<std::string> Segs(std::initializer_list<const char*> s) { return {s.begin(), s.end()}; }

std::string Dispatch(const Router& r, const char* method, std::vector<std::string> segs) {
  RouteMatch m = r.Resolve(method, segs);
  if (!m.endpoint) return "status " + std::to_string(m.response.status);
  Request req;
  return m.endpoint->handler(req).body;
}

TEST(Router, LiteralsBeatCapturesWhateverTheOrder) {
  Router r;
  r.Add("GET", "/api/files/{id}", Named("by-id"));
  r.Add("GET", "/api/files/recent", Named("recent"));
  EXPECT_EQ(Dispatch(r, "GET", Segs({"api", "files", "recent"})), "recent");
  EXPECT_EQ(Dispatch(r, "GET", Segs({"api", "files", "42"})), "by-id");
  RouteMatch m = r.Resolve("GET", Segs({"api", "files", "42"}));
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].first, "id");
  EXPECT_EQ(m.params[0].second, "42");
  EXPECT_EQ(m.pattern, "/api/files/{id}");
}

TEST(Router, RestCaptureTakesTheTail) {
  Router r;
  r.Add("PROPFIND", "/dav/{path...}", Named("dav"));
  RouteMatch m = r.Resolve("PROPFIND", Segs({"dav", "a", "b c", "d"}));
  ASSERT_NE(m.endpoint, nullptr);
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].second, "a/b c/d");
  RouteMatch root = r.Resolve("PROPFIND", Segs({"dav"}));
  ASSERT_NE(root.endpoint, nullptr);
  EXPECT_EQ(root.params[0].second, "");
}

TEST(Router, BacktracksFromADeadLiteral) {
  Router r;
  r.Add("GET", "/a/b/c", Named("abc"));
  r.Add("GET", "/a/{x}/d", Named("axd"));
  EXPECT_EQ(Dispatch(r, "GET", Segs({"a", "b", "d"})), "axd");
  EXPECT_EQ(Dispatch(r, "GET", Segs({"a", "b", "c"})), "abc");
  EXPECT_EQ(Dispatch(r, "GET", Segs({"a", "b"})), "status 404");
}

TEST(Router, HeadFallsBackToGet) {
  Router r;
  r.Add("GET", "/x", Named("get"));
  EXPECT_EQ(Dispatch(r, "HEAD", Segs({"x"})), "get");
}

TEST(Router, WrongMethodAnswers405WithAllow) {
  Router r;
  r.Add("GET", "/x", Named("get"));
  r.Add("PUT", "/x", Named("put"));
  RouteMatch m = r.Resolve("DELETE", Segs({"x"}));
  EXPECT_EQ(m.endpoint, nullptr);
  EXPECT_EQ(m.response.status, 405);
  EXPECT_EQ(m.response.headers.Get("Allow"), "GET, HEAD, OPTIONS, PUT");
}

TEST(Router, UnknownMethodAnswers501WithAllow) {
  Router r;
  r.Add("GET", "/x", Named("get"));
  RouteMatch m = r.Resolve("FROBNICATE", Segs({"x"}));
  EXPECT_EQ(m.response.status, 501);
  EXPECT_TRUE(m.response.headers.Has("Allow"));
}

TEST(Router, AutomaticOptions) {
  Router r;
  r.Add("POST", "/x", Named("post"));
  RouteMatch m = r.Resolve("OPTIONS", Segs({"x"}));
  EXPECT_EQ(m.response.status, 204);
  EXPECT_EQ(m.response.headers.Get("Allow"), "OPTIONS, POST");
}

TEST(Router, MissingPathIs404) {
  Router r;
  r.Add("GET", "/x", Named("get"));
  EXPECT_EQ(r.Resolve("GET", Segs({"y"})).response.status, 404);
  EXPECT_EQ(r.Resolve("GET", Segs({"x", "y"})).response.status, 404);
}

TEST(Router, DuplicateRouteIsAProgrammingError) {
  Router r;
  r.Add("GET", "/x", Named("a"));
  EXPECT_THROW(r.Add("GET", "/x", Named("b")), std::logic_error);
}

}  // namespace
}  // namespace nubo::http
