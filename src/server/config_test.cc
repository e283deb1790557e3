#include "server/config.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <map>

namespace nubo::server {
namespace {

struct Env {
  std::map<std::string, std::string> vars;
  std::function<const char*(const char*)> Fn() const {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string WriteFile(const std::string& text) {
  char tmpl[] = "/tmp/nubo_config_test_XXXXXX";
  int fd = mkstemp(tmpl);
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(tmpl) << text;
  return tmpl;
}

TEST(Config, DefaultsAreTheZeroConfigStart) {
  auto c = LoadConfig({});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->listen_host, "127.0.0.1");
  EXPECT_EQ(c->listen_port, 8086);
  EXPECT_EQ(c->data_dir, "./nubo-data");
  EXPECT_EQ(c->max_header_bytes, 16u << 10);
  EXPECT_FALSE(c->test_routes);
  EXPECT_EQ(c->origins.at("server.listen").source, "default");
}

TEST(Config, PrecedenceFileThenEnvThenFlag) {
  std::string path = WriteFile(
      "[server]\nlisten = \"0.0.0.0:9000\"\nthreads = 3\n[http]\nmax_json_body = \"2MiB\"\n");
  Env env;
  env.vars["NUBO_THREADS"] = "5";
  ConfigInputs in;
  in.file = path;
  in.getenv = env.Fn();
  in.flags["server.listen"] = "127.0.0.1:0";
  auto c = LoadConfig(in);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->listen_port, 0);           // flag beats file
  EXPECT_EQ(c->io_threads, 5);            // env beats file
  EXPECT_EQ(c->max_json_body, 2u << 20);  // file beats default
  EXPECT_EQ(c->origins.at("server.threads").source, "env");
  std::remove(path.c_str());
}

TEST(Config, BadValuesNameTheSettingAndSource) {
  Env env;
  env.vars["NUBO_THREADS"] = "abc";
  auto c = LoadConfig({.getenv = env.Fn()});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("NUBO_THREADS='abc' (env)"), std::string::npos)
      << c.status().message();

  env.vars.clear();
  env.vars["NUBO_LISTEN"] = "localhost";
  EXPECT_FALSE(LoadConfig({.getenv = env.Fn()}).ok());
  env.vars["NUBO_LISTEN"] = "127.0.0.1:70000";
  EXPECT_FALSE(LoadConfig({.getenv = env.Fn()}).ok());
  env.vars.clear();
  env.vars["NUBO_HTTP_HEADER_TIMEOUT"] = "soon";
  EXPECT_FALSE(LoadConfig({.getenv = env.Fn()}).ok());
  env.vars.clear();
  env.vars["NUBO_ACCESS_LOG"] = "perhaps";
  EXPECT_FALSE(LoadConfig({.getenv = env.Fn()}).ok());
}

// A PROPFIND holds one page in memory: its size is bounded.
TEST(Config, ListingPageIsBounded) {
  Env env;
  env.vars["NUBO_DAV_LISTING_PAGE"] = "10000";
  auto c = LoadConfig({.getenv = env.Fn()});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->dav_listing_page, 10000u);
  env.vars["NUBO_DAV_LISTING_PAGE"] = "10001";
  c = LoadConfig({.getenv = env.Fn()});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(LoadConfig({}).value().dav_listing_page, 0u);  // by engine
}

// The metadata engine: SQLite by default, a postgres:// URL for
// PostgreSQL, nothing else; the URL may hold a password, which no message
// repeats.
TEST(Config, DatabaseIsSqliteOrAPostgresUrl) {
  auto c = LoadConfig({});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->database, "");
  Env env;
  env.vars["NUBO_DATABASE"] = "postgresql://nubo:s3cret@db.example/nubo";
  c = LoadConfig({.getenv = env.Fn()});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->database, "postgresql://nubo:s3cret@db.example/nubo");
  env.vars["NUBO_DATABASE"] = "mysql://nubo:s3cret@db.example/nubo";
  c = LoadConfig({.getenv = env.Fn()});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_NE(c.status().message().find("NUBO_DATABASE"), std::string::npos);
  EXPECT_EQ(c.status().message().find("s3cret"), std::string::npos) << c.status().message();
}

TEST(Config, FileErrors) {
  std::string bad_syntax = WriteFile("[server\nlisten=");
  auto c = LoadConfig({.file = bad_syntax});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(bad_syntax), std::string::npos);

  std::string unknown = WriteFile("[server]\nlisten_port = 80\n");
  c = LoadConfig({.file = unknown});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown setting 'server.listen_port'"), std::string::npos);

  c = LoadConfig({.file = std::string("/nonexistent/nubo.toml")});
  EXPECT_FALSE(c.ok());
  std::remove(bad_syntax.c_str());
  std::remove(unknown.c_str());
}

TEST(Config, ParseListen) {
  std::string host;
  uint16_t port = 0;
  ASSERT_TRUE(ParseListen("[::1]:8086", host, port).ok());
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 8086);
  EXPECT_FALSE(ParseListen(":80", host, port).ok());
  EXPECT_FALSE(ParseListen("host:", host, port).ok());
}

}  // namespace
}  // namespace nubo::server
