#include "server/config.h"

#include <fmt/format.h>

#include <toml++/toml.h>

#include "util/strings.h"

namespace nubo::server {

namespace {

using Apply = std::function<Status(Config&, std::string_view)>;

struct Setting {
  const char* key;
  const char* env;
  const char* def;
  const char* help;
  bool secret;
  Apply apply;
};

Status Expect(std::string_view what) { return Status::InvalidArgument(std::string(what)); }

Apply Uint(uint64_t Config::*field, uint64_t lo, uint64_t hi) {
  return [=](Config& c, std::string_view v) -> Status {
    auto n = ParseUint64(Trim(v));
    if (!n || *n < lo || *n > hi)
      return Expect(fmt::format("expected an integer from {} to {}", lo, hi));
    c.*field = *n;
    return Status::Ok();
  };
}

Apply Int(int Config::*field, int lo, int hi) {
  return [=](Config& c, std::string_view v) -> Status {
    auto n = ParseUint64(Trim(v));
    if (!n || *n < static_cast<uint64_t>(lo) || *n > static_cast<uint64_t>(hi)) {
      return Expect(fmt::format("expected an integer from {} to {}", lo, hi));
    }
    c.*field = static_cast<int>(*n);
    return Status::Ok();
  };
}

Apply Bytes(uint64_t Config::*field, uint64_t lo, uint64_t hi) {
  return [=](Config& c, std::string_view v) -> Status {
    auto n = ParseByteSize(v);
    if (!n || *n < lo || *n > hi) {
      return Expect(fmt::format("expected a size from {} to {} (e.g. 64KiB, 1MiB, 20MB)",
                                FormatBytes(lo), FormatBytes(hi)));
    }
    c.*field = *n;
    return Status::Ok();
  };
}

Apply Duration(uint64_t Config::*field, uint64_t lo_ms, uint64_t hi_ms) {
  return [=](Config& c, std::string_view v) -> Status {
    auto n = ParseDurationMs(v);
    if (!n || *n < lo_ms || *n > hi_ms) {
      return Expect(fmt::format("expected a duration from {}ms to {}s (e.g. 500ms, 30s, 2m)", lo_ms,
                                hi_ms / 1000));
    }
    c.*field = *n;
    return Status::Ok();
  };
}

Apply Bool(bool Config::*field) {
  return [=](Config& c, std::string_view v) -> Status {
    auto b = ParseBool(v);
    if (!b) return Expect("expected true or false");
    c.*field = *b;
    return Status::Ok();
  };
}

const std::vector<Setting>& Table() {
  static const std::vector<Setting> kTable = {
      {"server.listen", "NUBO_LISTEN", "127.0.0.1:8086", "address and port to serve HTTP on", false,
       [](Config& c, std::string_view v) { return ParseListen(v, c.listen_host, c.listen_port); }},
      {"server.data_dir", "NUBO_DATA_DIR", "./nubo-data",
       "where the database, chunks and temporary files live", false,
       [](Config& c, std::string_view v) -> Status {
         if (v.empty()) return Expect("expected a directory path");
         c.data_dir = std::string(v);
         return Status::Ok();
       }},
      {"server.threads", "NUBO_THREADS", "0", "I/O threads (0: one per core)", false,
       Int(&Config::io_threads, 0, 256)},
      {"server.blocking_threads", "NUBO_BLOCKING_THREADS", "16",
       "threads for blocking work (disk, hashing, password checks)", false,
       Int(&Config::blocking_threads, 1, 1024)},
      {"server.max_connections", "NUBO_MAX_CONNECTIONS", "10000",
       "open connections beyond this are answered 503 and closed", false,
       Uint(&Config::max_connections, 1, 1'000'000)},
      {"server.shutdown_grace", "NUBO_SHUTDOWN_GRACE", "30s",
       "how long SIGTERM waits for in-flight requests", false,
       Duration(&Config::shutdown_grace_ms, 0, 3'600'000)},
      {"storage.gc_grace", "NUBO_GC_GRACE", "1h",
       "unreferenced chunks are deleted by gc only after this long", false,
       Duration(&Config::gc_grace_ms, 0, 365ull * 24 * 3'600'000)},
      {"server.web_dir", "NUBO_WEB_DIR", "./web/dist", "the web UI's build (served at /)", false,
       [](Config& c, std::string_view v) -> Status {
         if (v.empty()) return Expect("expected a directory path");
         c.web_dir = std::string(v);
         return Status::Ok();
       }},
      {"storage.maintenance_interval", "NUBO_MAINTENANCE_INTERVAL", "1h",
       "how often the server purges expired trash, collects unreferenced chunks and compacts the "
       "search index",
       false, Duration(&Config::maintenance_interval_ms, 100, 7ull * 24 * 3'600'000)},
      {"files.max_upload", "NUBO_FILES_MAX_UPLOAD", "0",
       "largest file one upload may carry (0: no limit beyond quotas)", false,
       Bytes(&Config::max_upload, 0, 1ull << 50)},
      {"files.trash_retention", "NUBO_FILES_TRASH_RETENTION", "30d",
       "trashed files are deleted for good after this long", false,
       Duration(&Config::trash_retention_ms, 0, 3650ull * 24 * 3'600'000)},
      {"files.upload_session_ttl", "NUBO_FILES_UPLOAD_SESSION_TTL", "24h",
       "a resumable upload (tus, delta) not completed within this long is dropped", false,
       Duration(&Config::upload_session_ttl_ms, 1000, 365ull * 24 * 3'600'000)},
      {"files.versions_quota_share", "NUBO_FILES_VERSIONS_QUOTA_SHARE", "50",
       "percent of a quota that file versions may take; the oldest go first beyond it", false,
       Int(&Config::versions_quota_percent, 0, 100)},
      {"sharing.sharee_search", "NUBO_SHAREE_SEARCH", "groups",
       "whom the share dialog suggests: all (every user and group), groups (members of the "
       "caller's groups) or exact (only an exact user name); an exact name always works",
       false,
       [](Config& c, std::string_view v) -> Status {
         if (v != "all" && v != "groups" && v != "exact")
           return Expect("expected all, groups or exact");
         c.sharee_search = std::string(v);
         return Status::Ok();
       }},
      {"sharing.share_folder", "NUBO_SHARE_FOLDER", "",
       "the folder of each user's own files (WebDAV and the Nextcloud clients) in which shares "
       "received appear, e.g. Shared; empty: the top level. Where it does not exist, the top "
       "level",
       false,
       [](Config& c, std::string_view v) -> Status {
         std::vector<std::string> segs;
         size_t at = 0;
         while (at <= v.size()) {
           size_t slash = v.find('/', at);
           if (slash == std::string_view::npos) slash = v.size();
           std::string_view seg = v.substr(at, slash - at);
           at = slash + 1;
           if (seg.empty()) continue;
           if (seg == "." || seg == ".." || seg.size() > 255)
             return Expect("expected a folder path");
           for (unsigned char ch : seg) {
             if (ch < 0x20 || ch == 0x7f || ch == '\\') return Expect("expected a folder path");
           }
           segs.emplace_back(seg);
         }
         if (segs.size() > 16) return Expect("expected at most 16 folder names");
         c.share_folder = std::move(segs);
         return Status::Ok();
       }},
      {"sharing.users_create_drives", "NUBO_USERS_CREATE_DRIVES", "false",
       "users (not only administrators) may create shared drives, which they then manage", false,
       Bool(&Config::users_create_drives)},
      {"nc.enabled", "NUBO_NC_ENABLED", "true",
       "serve the Nextcloud client API (status.php, OCS, Login Flow v2, chunked uploads, "
       "trash bin); the files trees under /remote.php/ stay either way",
       false, Bool(&Config::nc_enabled)},
      {"nc.bulk_upload", "NUBO_NC_BULK_UPLOAD", "true",
       "advertise and serve the Nextcloud bulk upload (the desktop client then sends small "
       "files 100 to a request)",
       false, Bool(&Config::nc_bulk_upload)},
      {"jobs.workers", "NUBO_JOBS_WORKERS", "1",
       "background job threads (text extraction, thumbnails ahead of time); 0: this node runs "
       "none",
       false, Int(&Config::job_workers, 0, 64)},
      {"jobs.lease", "NUBO_JOBS_LEASE", "5m",
       "how long a worker holds a job before another may take it (a node that died mid-job)", false,
       Duration(&Config::job_lease_ms, 1000, 24ull * 3'600'000)},
      {"media.helper", "NUBO_MEDIA_HELPER", "",
       "the media helper executable (empty: nubo-derive beside the nubo binary)", false,
       [](Config& c, std::string_view v) -> Status {
         c.media_helper = std::string(v);
         return Status::Ok();
       }},
      {"media.ffmpeg", "NUBO_MEDIA_FFMPEG", "ffmpeg",
       "the ffmpeg executable for video thumbnails (a path, or a name looked up in PATH)", false,
       [](Config& c, std::string_view v) -> Status {
         if (v.empty()) return Expect("expected a program");
         c.media_ffmpeg = std::string(v);
         return Status::Ok();
       }},
      {"media.max_pixels", "NUBO_MEDIA_MAX_PIXELS", "100000000",
       "images with more pixels get no thumbnail (decompression bombs)", false,
       Uint(&Config::media_max_pixels, 1, 1'000'000'000'000ull)},
      {"media.timeout", "NUBO_MEDIA_TIMEOUT", "30s",
       "longest a thumbnail or text extraction may run before it is killed", false,
       Duration(&Config::media_timeout_ms, 1000, 3'600'000)},
      {"dav.propfind_infinity", "NUBO_DAV_PROPFIND_INFINITY", "false",
       "answer PROPFIND Depth: infinity (streamed) instead of 403 propfind-finite-depth", false,
       Bool(&Config::dav_propfind_infinity)},
      {"dav.listing_page", "NUBO_DAV_LISTING_PAGE", "0",
       "members a PROPFIND reads per read transaction, and holds in memory at once (0: 200 on "
       "SQLite, 2000 on PostgreSQL)",
       false, Uint(&Config::dav_listing_page, 0, 10'000)},
      {"dav.poll_cache", "NUBO_DAV_POLL_CACHE", "1MiB",
       "memory for answers to sync clients' polls (PROPFIND Depth: 0), kept until the database "
       "changes; 0 turns it off (always off on PostgreSQL)",
       false, Bytes(&Config::dav_poll_cache_bytes, 0, 1ull << 30)},
      {"auth.argon2_ops", "NUBO_ARGON2_OPS", "3", "Argon2id passes per password hash", false,
       Uint(&Config::argon2_ops, 1, 10)},
      {"auth.argon2_mem", "NUBO_ARGON2_MEM", "64MiB", "Argon2id memory per password hash", false,
       Bytes(&Config::argon2_mem, 8 << 20, 4ull << 30)},
      {"auth.basic_account_passwords", "NUBO_BASIC_ACCOUNT_PASSWORDS", "true",
       "accept account passwords (not only app passwords) over Basic auth", false,
       Bool(&Config::basic_account_passwords)},
      {"auth.lockout_failures", "NUBO_LOCKOUT_FAILURES", "10",
       "failed password sign-ins per account and client address before that address is locked "
       "out of the account (five times as many lock the address out of every account)",
       false, Uint(&Config::lockout_failures, 1, 1000)},
      {"auth.refresh_grace", "NUBO_REFRESH_GRACE", "10s",
       "a refresh token rotated this recently may come back once more (two tabs refreshing "
       "together) without ending the sign-in",
       false, Duration(&Config::refresh_grace_ms, 0, 3'600'000)},
      {"auth.argon2_threads", "NUBO_ARGON2_THREADS", "1",
       "threads that verify passwords (Argon2id), at a lower CPU priority than file I/O", false,
       Uint(&Config::argon2_threads, 1, 64)},
      {"storage.database", "NUBO_DATABASE", "",
       "empty: metadata in SQLite in the data directory; a postgres:// URL: in that PostgreSQL "
       "database (experimental, see docs/postgresql.md)",
       true,
       [](Config& c, std::string_view v) -> Status {
         if (!v.empty() && !v.starts_with("postgres://") && !v.starts_with("postgresql://")) {
           return Expect("expected nothing (SQLite) or a postgres:// URL");
         }
         c.database = std::string(v);
         return Status::Ok();
       }},
      {"auth.argon2_queue", "NUBO_ARGON2_QUEUE", "4",
       "password checks that may wait for those threads; beyond, sign-ins get 503 + Retry-After",
       false, Uint(&Config::argon2_queue, 1, 10000)},
      {"storage.min_free", "NUBO_STORAGE_MIN_FREE", "100MiB",
       "uploads are refused (507) when they would leave less free disk space than this", false,
       Bytes(&Config::min_free, 0, 1ull << 50)},
      {"storage.inline_max", "NUBO_STORAGE_INLINE_MAX", "8KiB",
       "files up to this size are kept in the metadata database instead of a chunk file (one "
       "commit makes them durable); 0 turns it off, at most 64KiB",
       false, Bytes(&Config::inline_max, 0, 64 << 10)},
      {"auth.lockout", "NUBO_LOCKOUT", "5m", "how long a lockout lasts (429 + Retry-After)", false,
       Duration(&Config::lockout_ms, 1000, 24ull * 3'600'000)},
      {"auth.secure_cookies", "NUBO_SECURE_COOKIES", "false",
       "mark browser-session cookies Secure (set when served over HTTPS)", false,
       Bool(&Config::secure_cookies)},
      {"http.trusted_proxies", "NUBO_TRUSTED_PROXIES", "",
       "comma-separated proxy IPs whose X-Forwarded-For is believed", false,
       [](Config& c, std::string_view v) -> Status {
         c.trusted_proxies.clear();
         for (auto part : Split(v, ',')) {
           part = Trim(part);
           if (part.empty()) continue;
           if (part.find_first_not_of("0123456789abcdefABCDEF.:") != std::string_view::npos) {
             return Expect("expected IP addresses separated by commas");
           }
           c.trusted_proxies.emplace_back(part);
         }
         return Status::Ok();
       }},
      {"http.max_header_bytes", "NUBO_HTTP_MAX_HEADER_BYTES", "16KiB",
       "request line + headers larger than this answer 431", false,
       Bytes(&Config::max_header_bytes, 1024, 1 << 20)},
      {"http.max_json_body", "NUBO_HTTP_MAX_JSON_BODY", "1MiB",
       "default limit of JSON/XML request bodies (413 beyond)", false,
       Bytes(&Config::max_json_body, 1024, 1ull << 30)},
      {"http.header_timeout", "NUBO_HTTP_HEADER_TIMEOUT", "20s",
       "a request's headers must arrive within this (slowloris guard)", false,
       Duration(&Config::header_timeout_ms, 100, 3'600'000)},
      {"http.idle_timeout", "NUBO_HTTP_IDLE_TIMEOUT", "60s",
       "an idle keep-alive connection is closed after this", false,
       Duration(&Config::idle_timeout_ms, 100, 3'600'000)},
      {"http.read_timeout", "NUBO_HTTP_READ_TIMEOUT", "60s",
       "a request body that makes no progress for this long is abandoned", false,
       Duration(&Config::read_timeout_ms, 100, 3'600'000)},
      {"http.write_timeout", "NUBO_HTTP_WRITE_TIMEOUT", "60s",
       "a response the client does not read for this long is abandoned", false,
       Duration(&Config::write_timeout_ms, 100, 3'600'000)},
      {"log.level", "NUBO_LOG_LEVEL", "info", "trace, debug, info, warn, error or off", false,
       [](Config& c, std::string_view v) -> Status {
         std::string l = AsciiLowerCopy(Trim(v));
         for (const char* ok : {"trace", "debug", "info", "warn", "error", "off"}) {
           if (l == ok) {
             c.log_level = l;
             return Status::Ok();
           }
         }
         return Expect("expected trace, debug, info, warn, error or off");
       }},
      {"http.quickack", "NUBO_HTTP_QUICKACK", "true",
       "acknowledge a request body's first bytes at once (clients that send the header and the "
       "body in two writes, like the Nextcloud apps, otherwise wait 40 ms per request)",
       false, Bool(&Config::quickack)},
      {"http.sendfile", "NUBO_HTTP_SENDFILE", "true",
       "send file content, thumbnails and web assets from their files with sendfile(2) (false: "
       "through a buffer)",
       false, Bool(&Config::sendfile)},
      {"log.access", "NUBO_ACCESS_LOG", "true", "one log line per request", false,
       Bool(&Config::access_log)},
      {"server.test_routes", "NUBO_TEST_ROUTES", "false",
       "expose test-only endpoints under /_test/ (never in production)", false,
       Bool(&Config::test_routes)},
  };
  return kTable;
}

const Setting* Find(std::string_view key) {
  for (const auto& s : Table()) {
    if (key == s.key) return &s;
  }
  return nullptr;
}

Status ApplyOne(Config& c, const Setting& s, std::string_view value, std::string_view source,
                std::string_view label) {
  Status st = s.apply(c, value);
  if (!st.ok()) {
    return Status::InvalidArgument(fmt::format("{}='{}' ({}): {}", label,
                                               s.secret ? "<redacted>" : std::string(value), source,
                                               st.message()));
  }
  c.origins[s.key] = {std::string(value), std::string(source)};
  return Status::Ok();
}

// Flattens a TOML table into "section.key" → string value.
Status ReadToml(const std::string& path, std::map<std::string, std::string>& out) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    return Status::InvalidArgument(fmt::format("config file {}:{}:{}: {}", path, src.begin.line,
                                               src.begin.column, std::string(e.description())));
  }
  for (const auto& [section, node] : root) {
    const toml::table* tbl = node.as_table();
    if (!tbl) {
      return Status::InvalidArgument(fmt::format("config file {}: '{}' must be a [section]", path,
                                                 std::string(section.str())));
    }
    for (const auto& [k, v] : *tbl) {
      std::string key = std::string(section.str()) + "." + std::string(k.str());
      std::string value;
      if (auto s = v.value<std::string>(); s && v.is_string()) {
        value = *s;
      } else if (v.is_integer()) {
        value = std::to_string(*v.value<int64_t>());
      } else if (v.is_boolean()) {
        value = *v.value<bool>() ? "true" : "false";
      } else {
        return Status::InvalidArgument(
            fmt::format("config file {}: {} must be a string, integer or boolean", path, key));
      }
      out[key] = value;
    }
  }
  return Status::Ok();
}

}  // namespace

Status ParseListen(std::string_view s, std::string& host, uint16_t& port) {
  s = Trim(s);
  size_t colon = s.rfind(':');
  if (colon == std::string_view::npos) return Expect("expected HOST:PORT, e.g. 127.0.0.1:8086");
  std::string_view h = s.substr(0, colon), p = s.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  auto n = ParseUint64(p);
  if (h.empty() || !n || *n > 65535)
    return Expect("expected HOST:PORT with a port from 0 to 65535");
  host = std::string(h);
  port = static_cast<uint16_t>(*n);
  return Status::Ok();
}

Result<Config> LoadConfig(const ConfigInputs& in) {
  Config c;
  for (const auto& s : Table()) NUBO_RETURN_IF_ERROR(ApplyOne(c, s, s.def, "default", s.key));

  if (in.file) {
    std::map<std::string, std::string> file_values;
    NUBO_RETURN_IF_ERROR(ReadToml(*in.file, file_values));
    for (const auto& [k, v] : file_values) {
      const Setting* s = Find(k);
      if (!s) {
        return Status::InvalidArgument(fmt::format(
            "config file {}: unknown setting '{}' (see nubo --help-config)", *in.file, k));
      }
      NUBO_RETURN_IF_ERROR(ApplyOne(c, *s, v, "file", k));
    }
  }
  if (in.getenv) {
    for (const auto& s : Table()) {
      if (const char* v = in.getenv(s.env)) NUBO_RETURN_IF_ERROR(ApplyOne(c, s, v, "env", s.env));
    }
  }
  for (const auto& [k, v] : in.flags) {
    const Setting* s = Find(k);
    if (!s) return Status::Internal("flag for unknown setting " + k);
    NUBO_RETURN_IF_ERROR(ApplyOne(c, *s, v, "flag", k));
  }
  return c;
}

std::vector<std::pair<std::string, std::string>> Config::Describe() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : Table()) {
    auto it = origins.find(s.key);
    if (it == origins.end()) continue;
    out.emplace_back(s.key, fmt::format("{} ({})", s.secret ? "<redacted>" : it->second.value,
                                        it->second.source));
  }
  return out;
}

std::string ConfigReference() {
  std::string out;
  for (const auto& s : Table()) {
    out += fmt::format("  {:<24} {:<28} default {:<16} {}\n", s.key, s.env, s.def, s.help);
  }
  return out;
}

}  // namespace nubo::server
