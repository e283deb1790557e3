// nubo's configuration: every setting has a name, an environment variable,
// a default and a description, in one table (config.cc). Values come from,
// in rising precedence: defaults, the TOML file, NUBO_* variables, flags.
// A Config is a plain value; build it once at start-up, then share it const.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace nubo::server {

struct Config {
  std::string listen_host = "127.0.0.1";
  uint16_t listen_port = 8086;
  std::string data_dir = "./nubo-data";
  // Empty: SQLite in the data directory; else a PostgreSQL URL.
  std::string database;
  std::string web_dir = "./web/dist";
  int io_threads = 0;  // 0: one per core
  int blocking_threads = 16;
  uint64_t max_connections = 10000;
  uint64_t max_header_bytes = 16 << 10;
  uint64_t max_json_body = 1 << 20;
  uint64_t header_timeout_ms = 20'000;
  uint64_t idle_timeout_ms = 60'000;
  uint64_t read_timeout_ms = 60'000;
  uint64_t write_timeout_ms = 60'000;
  uint64_t shutdown_grace_ms = 30'000;
  uint64_t gc_grace_ms = 3'600'000;
  uint64_t maintenance_interval_ms = 3'600'000;
  uint64_t max_upload = 0;  // 0: unlimited
  bool dav_propfind_infinity = false;
  uint64_t dav_listing_page = 0;  // 0: by engine (200 SQLite, 2,000 PostgreSQL)
  uint64_t dav_poll_cache_bytes = 1 << 20;  // 0: off (dav/poll_cache.h)
  bool nc_enabled = true;      // the Nextcloud client surface (src/nc)
  bool nc_bulk_upload = true;  // its bulk upload (/remote.php/dav/bulk)
  int job_workers = 1;         // background job threads (0: none run here)
  uint64_t job_lease_ms = 300'000;
  std::string media_helper;  // empty: nubo-derive next to this binary
  std::string media_ffmpeg = "ffmpeg";
  uint64_t media_max_pixels = 100'000'000;
  uint64_t media_timeout_ms = 30'000;
  uint64_t trash_retention_ms = 30ull * 24 * 3'600'000;
  uint64_t upload_session_ttl_ms = 24ull * 3'600'000;
  int versions_quota_percent = 50;
  std::string sharee_search = "groups";  // all | groups | exact
  bool users_create_drives = false;
  // Where received shares appear in a recipient's own tree: names of a
  // folder below the root ("Shared"); empty: the root.
  std::vector<std::string> share_folder;
  uint64_t argon2_ops = 3;
  uint64_t argon2_mem = 64ull << 20;
  bool basic_account_passwords = true;
  std::vector<std::string> trusted_proxies;
  bool secure_cookies = false;
  uint64_t lockout_failures = 10;
  uint64_t lockout_ms = 300'000;
  uint64_t refresh_grace_ms = 10'000;
  uint64_t argon2_threads = 1;
  uint64_t argon2_queue = 4;
  uint64_t min_free = 100ull << 20;
  uint64_t inline_max = 8 << 10;
  std::string log_level = "info";
  bool access_log = true;
  bool quickack = true;
  bool sendfile = true;
  bool test_routes = false;  // test-only endpoints under /_test/

  // (key, value as configured, source: default|file|env|flag), in table
  // order, secrets redacted: what `nubo serve` prints at start-up.
  std::vector<std::pair<std::string, std::string>> Describe() const;

  struct Origin {
    std::string value;
    std::string source;
  };
  std::map<std::string, Origin> origins;  // by key
};

struct ConfigInputs {
  std::optional<std::string> file;                 // --config or NUBO_CONFIG
  std::function<const char*(const char*)> getenv;  // null: no environment
  std::map<std::string, std::string> flags;        // setting key → value
};

// Builds the configuration. InvalidArgument names the setting, where it came
// from and what is expected, e.g.
//   "NUBO_THREADS='abc' (env): expected an integer from 0 to 256".
Result<Config> LoadConfig(const ConfigInputs& in);

// One line per setting: "key  ENV  default  description" (for --help-config).
std::string ConfigReference();

// "HOST:PORT" or "[V6]:PORT" → host, port.
Status ParseListen(std::string_view s, std::string& host, uint16_t& port);

}  // namespace nubo::server
