#include "server/serve.h"

#include <malloc.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "api/account_routes.h"
#include "api/delta_routes.h"
#include "api/file_routes.h"
#include "api/login_flow_routes.h"
#include "api/media_routes.h"
#include "api/share_routes.h"
#include "api/tus_routes.h"
#include "auth/authenticator.h"
#include "auth/links.h"
#include "auth/lockout_sync.h"
#include "auth/login_flows.h"
#include "auth/password_pool.h"
#include "auth/rate_limiter.h"
#include "blob/faulty_chunk_store.h"
#include "content/gc.h"
#include "content/in_flight.h"
#include "dav/dav.h"
#include "dav/poll_cache.h"
#include "files/files.h"
#include "files/upload_sessions.h"
#include "groupdav/groupdav.h"
#include "groupware/collections.h"
#include "http/router.h"
#include "jobs/runner.h"
#include "media/derive_job.h"
#include "media/thumbnails.h"
#include "nc/chunked_uploads.h"
#include "nc/nc.h"
#include "server/auth_guard.h"
#include "server/faulty_meta_store.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/ops_routes.h"
#include "server/storage.h"
#include "server/sweep_schedule.h"
#include "server/test_routes.h"
#include "server/transport.h"
#include "server/web_routes.h"
#include "share/sharing.h"
#include "util/ids.h"
#include "util/posix_error.h"
#include "util/process.h"
#include "util/time.h"

namespace nubo::server {

namespace fs = std::filesystem;

namespace {

// Every connection is a descriptor, and a download holds up to 16 chunk
// files open while it sends them, so a session's default soft limit (1,024
// under systemd and most shells) refuses connections long before
// server.max_connections. The soft limit is raised to the hard one, which is
// the administrator's choice (setrlimit(2)); children started for media
// work go back to 1,024 (jobs/isolate.cc, jobs/helper_pool.cc). Returns
// the soft limit in force.
rlim_t RaiseOpenFileLimit() {
  struct rlimit rl {};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return 0;
  if (rl.rlim_cur < rl.rlim_max) {
    struct rlimit want = rl;
    want.rlim_cur = rl.rlim_max;
    // An unlimited hard limit still stops at the kernel's fs.nr_open.
    if (setrlimit(RLIMIT_NOFILE, &want) != 0 && rl.rlim_max == RLIM_INFINITY) {
      want.rlim_cur = 1 << 20;
      (void)setrlimit(RLIMIT_NOFILE, &want);
    }
    (void)getrlimit(RLIMIT_NOFILE, &rl);
  }
  return rl.rlim_cur;
}

// Creates the data directory layout (ARCHITECTURE.md §1).
Status PrepareDataDir(const std::string& dir) {
  for (const char* sub : {"", "tmp", "chunks"}) {
    std::error_code ec;
    fs::create_directories(fs::path(dir) / sub, ec);
    if (ec) return PosixError("create " + (fs::path(dir) / sub).string(), ec.value());
  }
  return Status::Ok();
}

// The row of this process in server_processes: written at start, every
// content::kHeartbeatMs with the time of the oldest in-flight pin, and
// removed at a clean exit.
class ProcessBeat {
 public:
  explicit ProcessBeat(meta::MetaStore& meta) : meta_(meta) {
    row_.id = RandomHex(12);
    row_.host = HostName();
    row_.pid = ::getpid();
    row_.started_at_ms = UnixMillis();
    Beat(row_.started_at_ms);
  }
  ~ProcessBeat() {
    Status st = meta_.Write([&](meta::WriteTxn& txn) { return txn.EndProcess(row_.id); });
    if (!st.ok()) spdlog::warn("process row: {}", st.ToString());
  }
  const std::string& id() const { return row_.id; }
  void Tick(int64_t now) {
    if (now - row_.heartbeat_at_ms >= content::kHeartbeatMs) Beat(now);
  }

 private:
  void Beat(int64_t now) {
    row_.heartbeat_at_ms = now;
    row_.oldest_pin_at_ms = content::InFlightChunks::Instance().OldestPinMs();
    Status st = meta_.Write(
        [&](meta::WriteTxn& txn) { return txn.BeatProcess(row_, now - 24 * 3'600'000); });
    if (!st.ok()) spdlog::warn("process heartbeat: {}", st.ToString());
  }
  meta::MetaStore& meta_;
  meta::ProcessRow row_;
};

Status DataDirWritable(const std::string& dir) {
  if (access(dir.c_str(), W_OK | X_OK) != 0) return PosixError("data directory " + dir, errno);
  return Status::Ok();
}

// Background upkeep while serving: recent-file notes are written in
// batches (twice a second), expired trash is purged and unreferenced chunks
// are collected every `interval_ms`. Stops promptly when destroyed.
class Maintenance {
 public:
  // `extra`: more upkeep run on every sweep (expired login flows, upload
  // folders), each given the time.
  Maintenance(files::Files& files, files::UploadSessions& uploads, meta::MetaStore& meta,
              blob::ChunkStore& chunks, uint64_t interval_ms, uint64_t gc_grace_ms,
              std::vector<std::function<void(int64_t)>> extra = {},
              std::vector<std::function<void(int64_t)>> ticks = {}, std::string self = "")
      : self_(std::move(self)),
        extra_(std::move(extra)),
        ticks_(std::move(ticks)),
        files_(files),
        uploads_(uploads),
        meta_(meta),
        chunks_(chunks),
        interval_ms_(interval_ms),
        gc_grace_ms_(gc_grace_ms),
        thread_([this] { Loop(); }),
        ticker_([this] { TickLoop(); }) {}
  // Sweeps this process has run (one process of the installation sweeps
  // at a time: the lease).
  uint64_t sweeps() const { return sweeps_.load(); }

  ~Maintenance() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    ticker_.join();
    (void)files_.FlushRecent();
  }

 private:
  void TickLoop() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stop_; });
      if (stop_) break;
      lock.unlock();
      const int64_t now = UnixMillis();
      for (const auto& tick : ticks_) tick(now);
      // A sweep holds its lease for as long as it runs (minutes over a
      // large store), however long that is.
      {
        std::lock_guard hold(lease_mu_);
        if (sweeping_ && now >= lease_renew_at_) {
          auto held = TakeLease(now);
          if (held.ok() && !*held) spdlog::warn("maintenance: the lease went to another process");
        }
      }
      lock.lock();
    }
  }

  // Takes or renews the sweep's lease (migrations/0030) until
  // now + kLeaseMs. False: another process has it, or the last sweep
  // ended less than an interval ago.
  Result<bool> TakeLease(int64_t now) {
    bool held = false;
    Status st = meta_.Write([&](meta::WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(held, t.TakeLease(kLease, self_, now, now + kLeaseMs,
                                              now - static_cast<int64_t>(interval_ms_)));
      return Status::Ok();
    });
    if (!st.ok()) {
      spdlog::warn("maintenance lease: {}", st.ToString());
      return st;
    }
    if (held) lease_renew_at_ = now + kLeaseMs / 3;
    return held;
  }

  void Loop() {
    SweepSchedule schedule(static_cast<int64_t>(interval_ms_), kLeaseCheckMs, UnixMillis());
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stop_; });
      if (stop_) break;
      lock.unlock();
      if (Status st = files_.FlushRecent(); !st.ok()) spdlog::warn("recent: {}", st.ToString());
      int64_t now = UnixMillis();
      // One process of the installation sweeps at a time, once an
      // interval whichever it is; each asks for the lease every few
      // seconds (a write that changes nothing while the sweep is not due).
      if (schedule.Due(now)) {
        schedule.Asked(now);
        auto held = TakeLease(now);
        if (held.ok() && *held) {
          sweeping_ = true;
          Sweep(now);
          sweeps_.fetch_add(1);
          // Due again an interval after it ended (each process's own
          // interval: a changed setting holds from the next check).
          std::lock_guard hold(lease_mu_);
          sweeping_ = false;
          now = UnixMillis();
          schedule.Swept(now);  // even if the release below fails
          Status st =
              meta_.Write([&](meta::WriteTxn& t) { return t.ReleaseLease(kLease, self_, now); });
          if (!st.ok()) spdlog::warn("maintenance lease: {}", st.ToString());
        }
      }
      lock.lock();
    }
  }

  void Sweep(int64_t now) {
    auto purged = files_.PurgeExpiredTrash(now);
    if (!purged.ok()) {
      spdlog::warn("trash purge: {}", purged.status().ToString());
    } else if (*purged > 0) {
      spdlog::info("trash purge: {} expired items deleted", *purged);
    }
    auto expired = uploads_.Expire(now);
    if (!expired.ok()) {
      spdlog::warn("uploads: {}", expired.status().ToString());
    } else if (*expired > 0) {
      spdlog::info("uploads: {} expired upload sessions dropped", *expired);
    }
    for (const auto& job : extra_) job(now);
    auto thinned = files_.ThinVersions(now);
    if (!thinned.ok()) {
      spdlog::warn("versions: {}", thinned.status().ToString());
    } else if (*thinned > 0) {
      spdlog::info("versions: {} deleted by the retention schedule", *thinned);
    }
    CompactSearchIndex();
    auto gc =
        content::CollectGarbage(meta_, chunks_, static_cast<int64_t>(gc_grace_ms_), now, self_);
    if (!gc.ok()) {
      spdlog::warn("gc: {}", gc.status().ToString());
    } else if (gc->chunks_deleted + gc->files_swept > 0) {
      spdlog::info("gc: {} chunks and {} stray files deleted, {} bytes freed", gc->chunks_deleted,
                   gc->files_swept, gc->bytes_freed);
    }
  }

  // Merges the full-text index's segments in steps of ~1,000 pages, each
  // its own transaction (a writer waits for one step at most), for up to
  // ten seconds a sweep; a merge not done goes on at the next sweep.
  void CompactSearchIndex() {
    const int64_t until = UnixMillis() + 10'000;
    int steps = 0;
    for (bool more = true; more && UnixMillis() < until; ++steps) {
      Status st = meta_.Write([&](meta::WriteTxn& t) -> Status {
        NUBO_ASSIGN_OR_RETURN(more, t.CompactTextIndex(1000));
        return Status::Ok();
      });
      if (!st.ok()) {
        spdlog::warn("search index: {}", st.ToString());
        return;
      }
    }
    if (steps > 1) spdlog::info("search index: {} merge steps", steps - 1);
  }

  static constexpr const char* kLease = "maintenance";
  // A holder that stops renewing (it died) loses the lease after this.
  static constexpr int64_t kLeaseMs = 60'000;
  static constexpr int64_t kLeaseCheckMs = 5'000;

  std::string self_;     // this process's row in server_processes
  std::mutex lease_mu_;  // the ticker's renewal vs. the release
  std::atomic<bool> sweeping_{false};
  std::atomic<int64_t> lease_renew_at_{0};
  std::atomic<uint64_t> sweeps_{0};
  std::vector<std::function<void(int64_t)>> extra_;
  // Twice a second, on a thread of their own: a sweep over a large store
  // takes minutes, and the heartbeat that other nodes' GC trusts (and
  // the shared lockouts) must not wait for it.
  std::vector<std::function<void(int64_t)>> ticks_;
  files::Files& files_;
  files::UploadSessions& uploads_;
  meta::MetaStore& meta_;
  blob::ChunkStore& chunks_;
  uint64_t interval_ms_, gc_grace_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
  std::thread ticker_;
};

// A maintenance tick that runs `run` at most every `every_ms` and warns
// when it starts failing, not at every failed tick after that.
std::function<void(int64_t)> WarningTick(std::string what, int64_t every_ms,
                                         std::function<Status(int64_t)> run) {
  return [what = std::move(what), every_ms, run = std::move(run), next = int64_t{0},
          failing = false](int64_t now) mutable {
    if (now < next) return;
    next = now + every_ms;
    Status st = run(now);
    if (!st.ok() && !failing) spdlog::warn("{}: {}", what, st.ToString());
    failing = !st.ok();
  };
}

}  // namespace

int RunServe(const Config& cfg) {
  // glibc gives each thread that allocates its own malloc arena, up to 8
  // per core, and each arena keeps the pages freed into it: with a blocking
  // pool that is 16 arenas on 2 cores and a third more resident memory after
  // a 10,000-file PROPFIND (bench/malloc_arenas_ab.py). One arena per I/O
  // thread plus one keeps that memory near the 2-arena figure, and the I/O
  // threads, which allocate on every request, no longer queue on a shared
  // arena lock (bench/results/2026-12-06-s2-io-arenas.md). The limit must
  // be set before a second thread allocates; MALLOC_ARENA_MAX still wins.
  const int io_threads = cfg.io_threads > 0
                             ? cfg.io_threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!std::getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, io_threads + 1);
  spdlog::info("nubo {} starting", NUBO_VERSION);
  for (const auto& [k, v] : cfg.Describe()) spdlog::info("config {} = {}", k, v);
  const rlim_t open_files = RaiseOpenFileLimit();
  spdlog::info("open files: up to {}", static_cast<uint64_t>(open_files));
  // Beyond the connections: the database, logs, listeners, chunk files.
  if (open_files < cfg.max_connections + 64) {
    spdlog::warn(
        "server.max_connections is {} but this process may open {} files: connections beyond "
        "that wait (raise the hard limit, e.g. LimitNOFILE= in a systemd unit)",
        cfg.max_connections, static_cast<uint64_t>(open_files));
  }

  if (Status st = PrepareDataDir(cfg.data_dir); !st.ok()) {
    spdlog::critical("cannot prepare data directory: {}", st.ToString());
    FlushLogs();
    return 1;
  }
  // Migrations run here, before anything listens (ARCHITECTURE.md §1).
  auto storage = OpenStorage(cfg.data_dir, cfg.database, /*migrate=*/true);
  if (!storage.ok()) {
    spdlog::critical("cannot open storage in {}: {}", cfg.data_dir, storage.status().ToString());
    FlushLogs();
    return 1;
  }
  // Test-only: fault injectors around both stores, armed by /_test/faults.
  blob::FaultPlan chunk_faults, meta_faults;
  std::unique_ptr<blob::FaultyChunkStore> faulty_chunks;
  std::unique_ptr<FaultyMetaStore> faulty_meta;
  if (cfg.test_routes) {
    faulty_chunks = std::make_unique<blob::FaultyChunkStore>(*storage->chunks, chunk_faults);
    faulty_meta = std::make_unique<FaultyMetaStore>(*storage->meta, meta_faults);
  }
  meta::MetaStore& meta =
      faulty_meta ? static_cast<meta::MetaStore&>(*faulty_meta) : *storage->meta;
  blob::ChunkStore& chunks =
      faulty_chunks ? static_cast<blob::ChunkStore&>(*faulty_chunks) : *storage->chunks;

  http::Router router;
  Metrics metrics;
  TransportOptions t;
  t.host = cfg.listen_host;
  t.port = cfg.listen_port;
  t.io_threads = io_threads;
  t.blocking_threads = cfg.blocking_threads;
  t.max_connections = cfg.max_connections;
  t.max_header_bytes = cfg.max_header_bytes;
  t.default_body_limit = cfg.max_json_body;
  t.header_timeout_ms = cfg.header_timeout_ms;
  t.idle_timeout_ms = cfg.idle_timeout_ms;
  t.read_timeout_ms = cfg.read_timeout_ms;
  t.write_timeout_ms = cfg.write_timeout_ms;
  t.shutdown_grace_ms = cfg.shutdown_grace_ms;
  t.access_log = cfg.access_log;
  t.quickack = cfg.quickack;
  t.sendfile = cfg.sendfile;
  t.trusted_proxies = cfg.trusted_proxies;

  // The transport starts its I/O threads now, before any other thread of
  // the server exists, so each takes one of these arenas (see IoThreads).
  // It ends right after Run(): the connections it still holds must not
  // outlive the stores, pools and services declared below.
  auto transport = std::make_unique<Transport>(t, router, metrics);
  RegisterOpsRoutes(router, metrics, [dir = cfg.data_dir, &meta] {
    NUBO_RETURN_IF_ERROR(DataDirWritable(dir));
    return meta.Read([](meta::ReadTxn& txn) { return txn.GetPin("").status(); });
  });
  auth::PasswordParams params;
  params.ops_limit = cfg.argon2_ops;
  params.mem_limit = cfg.argon2_mem;
  // Argon2id runs on its own threads, never on the file I/O pool.
  auth::PasswordPool password_pool({.threads = static_cast<size_t>(cfg.argon2_threads),
                                    .max_queue = static_cast<size_t>(cfg.argon2_queue),
                                    .nice = 19});
  auth::PasswordPool::Install(&password_pool);
  auth::FailureLimiter limiter(
      {static_cast<int>(cfg.lockout_failures), static_cast<int64_t>(cfg.lockout_ms), 100'000});
  auth::Authenticator authn(meta, params, limiter,
                            {.allow_account_passwords = cfg.basic_account_passwords});
  metrics.AddCounter("nubo_meta_writes_total", "Metadata write transactions requested.",
                     [&meta] { return meta.Stats().writes; });
  metrics.AddCounter("nubo_meta_commits_total",
                     "Durable metadata commits (concurrent writes share one: group commit).",
                     [&meta] { return meta.Stats().commits; });
  metrics.AddCounter("nubo_meta_batch_reruns_total",
                     "Shared write transactions rolled back and run again write by write because "
                     "one of their writes failed (SQLite).",
                     [&meta] { return meta.Stats().reruns; });
  metrics.AddCounter("nubo_auth_argon2_verifications_total",
                     "Basic-auth passwords verified with Argon2id (credential cache misses).",
                     [&authn] { return authn.argon2_runs(); });
  metrics.AddCounter("nubo_auth_credential_cache_hits_total",
                     "Basic-auth requests answered from the credential cache, without Argon2id.",
                     [&authn] { return authn.cache_hits(); });
  metrics.AddCounter("nubo_auth_credential_refreshes_total",
                     "Cached account passwords re-verified in the background before expiry.",
                     [&authn] { return authn.background_refreshes(); });
  metrics.AddCounter("nubo_auth_password_checks_refused_total",
                     "Password checks refused at once because the Argon2id queue was full (503).",
                     [&password_pool] { return password_pool.refused(); });
  auto sessions = auth::Sessions::Open(
      meta, params, {.refresh_grace_ms = static_cast<int64_t>(cfg.refresh_grace_ms)});
  if (!sessions.ok()) {
    spdlog::critical("cannot open sessions: {}", sessions.status().ToString());
    FlushLogs();
    return 1;
  }
  auth::LinkVerifier links(meta, limiter, (*sessions)->signer());
  router.SetGuard(MakeAuthGuard(authn, **sessions, links));
  api::RegisterAccountRoutes(router,
                             {meta, authn, params, **sessions, limiter, cfg.secure_cookies});
  files::FilesOptions fopt;
  fopt.max_upload = cfg.max_upload;
  fopt.trash_retention_ms = static_cast<int64_t>(cfg.trash_retention_ms);
  fopt.min_free_bytes = cfg.min_free;
  fopt.inline_max_bytes = cfg.inline_max;
  fopt.tmp_dir = (fs::path(cfg.data_dir) / "tmp").string();
  fopt.users_create_drives = cfg.users_create_drives;
  fopt.share_folder = cfg.share_folder;
  fopt.derive_wanted = media::DeriveWanted;
  fopt.versions_quota_per_mille = cfg.versions_quota_percent * 10;
  files::Files files(meta, chunks, fopt);
  share::Sharing sharing(
      meta, params,
      {.sharee_search =
           share::ParseShareeSearch(cfg.sharee_search).value_or(share::ShareeSearch::kGroups)});
  api::RegisterFileRoutes(router, files, {.on_download = [&sharing](const auth::Principal& who) {
                            return sharing.TakeDownload(who);
                          }});
  api::RegisterVersionRoutes(router, files);
  files::UploadSessions uploads(files, static_cast<int64_t>(cfg.upload_session_ttl_ms));
  api::RegisterTusRoutes(router, files, uploads);
  api::RegisterDeltaRoutes(router, files, uploads);
  api::RegisterShareRoutes(router, sharing, files, links, cfg.secure_cookies);
  dav::DavOptions dopt;
  dopt.allow_depth_infinity = cfg.dav_propfind_infinity;
  dopt.on_download = [&sharing](const auth::Principal& who) { return sharing.TakeDownload(who); };
  dopt.signer = &(*sessions)->signer();
  // On PostgreSQL each page's statements are round trips to another
  // process: 2,000 rows a page (bench/pg_listing_ab.py: a 10,000-file
  // listing 0.75–0.81× the time of 200-row pages; reading the next page on
  // another thread while one is written out gained nothing reliable: three
  // runs 0.91, 0.93 and 1.01× at 10,000 files, and 1.18× on SQLite).
  // dav.listing_page overrides both.
  const bool postgres = !cfg.database.empty();
  dopt.listing_page = cfg.dav_listing_page ? cfg.dav_listing_page : postgres ? 2000 : 200;
  // Only an engine that sees every commit, its own and other processes',
  // can keep poll answers (MetaStore::ChangeStamp). Asking once here also
  // opens SQLite's checking connection now rather than in the first poll.
  if (cfg.dav_poll_cache_bytes && meta.ChangeStamp()) {
    dopt.poll_cache = std::make_shared<dav::PollCache>(meta, cfg.dav_poll_cache_bytes);
    metrics.AddCounter("nubo_dav_poll_cache_hits_total",
                       "PROPFIND Depth: 0 polls answered from the poll cache.",
                       [cache = dopt.poll_cache] { return cache->hits(); });
  }
  dav::RegisterDavRoutes(router, files, dopt);
  groupware::Collections collections(meta, {});
  groupdav::RegisterGroupDavRoutes(router, collections, {});
  auth::LoginFlows login_flows(meta);
  nc::ChunkedUploads nc_uploads(meta, files, uploads);
  api::RegisterLoginFlowRoutes(router, login_flows);
  media::ThumbnailOptions topt;
  topt.derived_dir = (fs::path(cfg.data_dir) / "derived").string();
  topt.tmp_dir = fopt.tmp_dir;
  topt.helper = cfg.media_helper.empty() ? media::DefaultHelperPath() : cfg.media_helper;
  topt.ffmpeg = cfg.media_ffmpeg;
  topt.max_pixels = static_cast<double>(cfg.media_max_pixels);
  topt.limits.wall_ms = static_cast<int64_t>(cfg.media_timeout_ms);
  topt.limits.cpu_seconds = std::max<int64_t>(1, static_cast<int64_t>(cfg.media_timeout_ms / 1000));
  // Without the helper every thumbnail, photo detail and document text
  // fails, each derive job after four retries: say so at start, and in
  // /metrics for as long as it lasts (it is run by path, execv).
  if (::access(topt.helper.c_str(), X_OK) != 0) {
    spdlog::warn(
        "media helper {} cannot be run ({}): no thumbnails, photo details or text of PDF and "
        "office files will be made; install nubo-derive beside nubo or set media.helper "
        "(NUBO_MEDIA_HELPER)",
        topt.helper, std::strerror(errno));
  }
  metrics.AddGauge("nubo_media_helper_available",
                   "1 while the media helper (media.helper) can be run, 0 while not.",
                   [helper = topt.helper] { return ::access(helper.c_str(), X_OK) == 0 ? 1 : 0; });
  media::Thumbnails thumbnails(meta, chunks, topt);
  api::RegisterMediaRoutes(router, {meta, files, thumbnails});
  if (cfg.nc_enabled) {
    nc::RegisterNcRoutes(router, {meta, authn, files, login_flows, nc_uploads, sharing, thumbnails,
                                  cfg.nc_bulk_upload});
  }
  metrics.AddCounter("nubo_thumbnails_made_total", "Thumbnails made by the media helper.",
                     [&thumbnails] { return thumbnails.made(); });
  metrics.AddCounter("nubo_derive_copies_total",
                     "Temp copies of file content written for the media helper.",
                     [&thumbnails] { return thumbnails.copies(); });
  // The queue lives in the database: these read it, so every node of a
  // cluster reports the same figures.
  // One scrape renders five job figures: they share one count of the
  // queue, taken at most every 100 ms.
  struct JobCountsMemo {
    std::mutex mu;
    int64_t at_ms = -1;
    meta::JobCounts counts;
  };
  auto memo = std::make_shared<JobCountsMemo>();
  auto job_counts = [&meta, memo] {
    std::lock_guard lock(memo->mu);
    const int64_t now = MonotonicMillis();
    if (memo->at_ms < 0 || now - memo->at_ms >= 100) {
      (void)meta.Read([&](meta::ReadTxn& t) -> Status {
        NUBO_ASSIGN_OR_RETURN(memo->counts, t.CountJobs(UnixMillis()));
        return Status::Ok();
      });
      memo->at_ms = now;
    }
    return memo->counts;
  };
  metrics.AddGauge("nubo_jobs_due", "Background jobs waiting to run.",
                   [job_counts] { return static_cast<uint64_t>(job_counts().due); });
  metrics.AddGauge("nubo_jobs_running", "Background jobs held by a worker.",
                   [job_counts] { return static_cast<uint64_t>(job_counts().running); });
  metrics.AddGauge("nubo_jobs_retrying", "Background jobs that failed and wait to be retried.",
                   [job_counts] { return static_cast<uint64_t>(job_counts().retrying); });
  metrics.AddCounter("nubo_jobs_done_total", "Background jobs completed.",
                     [job_counts] { return static_cast<uint64_t>(job_counts().done); });
  metrics.AddCounter("nubo_jobs_failed_total", "Background job attempts that failed.",
                     [job_counts] { return static_cast<uint64_t>(job_counts().failed); });
  media::DeriveJob derive(meta, chunks, thumbnails);
  // A job holds its lease for at most a few helper runs; the lease must
  // outlast them.
  jobs::Runner runner(
      meta, {.workers = std::max(1, cfg.job_workers),
             .lease_ms = std::max<int64_t>(static_cast<int64_t>(cfg.job_lease_ms),
                                           3 * static_cast<int64_t>(cfg.media_timeout_ms))});
  runner.Handle("derive", [&derive](const meta::JobRow& job) { return derive.Run(job); });
  if (cfg.job_workers > 0) runner.Start();
  std::vector<std::function<void(int64_t)>> upkeep;
  upkeep.push_back([&login_flows](int64_t now) {
    if (auto n = login_flows.Expire(now); !n.ok()) {
      spdlog::warn("login flows: {}", n.status().ToString());
    }
  });
  upkeep.push_back([&nc_uploads](int64_t now) {
    auto n = nc_uploads.Expire(now);
    if (!n.ok()) {
      spdlog::warn("chunked uploads: {}", n.status().ToString());
    } else if (*n > 0) {
      spdlog::info("chunked uploads: {} expired upload folders dropped", *n);
    }
  });
  upkeep.push_back([&thumbnails](int64_t) {
    auto n = thumbnails.CollectOrphans();
    if (!n.ok()) {
      spdlog::warn("thumbnails: {}", n.status().ToString());
    } else if (*n > 0) {
      spdlog::info("thumbnails: {} of deleted content removed", *n);
    }
  });
  // Lockouts shared with the other processes of this store (and kept
  // across restarts): auth/lockout_sync.h.
  auth::LockoutSync lockouts(meta, limiter);
  // Before the first request: a lockout set before a restart holds.
  if (Status st = lockouts.Run(UnixMillis()); !st.ok()) {
    spdlog::warn("sign-in lockouts: {}", st.ToString());
  }
  std::vector<std::function<void(int64_t)>> ticks;
  ticks.push_back(
      WarningTick("sign-in lockouts", 0, [&lockouts](int64_t now) { return lockouts.Run(now); }));
  // This process on the store, with the age of its oldest in-flight
  // upload, so that GC elsewhere (other nodes, `nubo gc`) spares the
  // chunks the upload has stored (content/gc.h).
  ProcessBeat beat(meta);
  ticks.push_back([&beat](int64_t now) { beat.Tick(now); });
  // Planner statistics for tables that grew before autovacuum analyzed
  // them (PostgreSQL; MetaStore::RefreshStatistics).
  ticks.push_back(WarningTick("planner statistics", 5'000,
                              [&meta](int64_t) { return meta.RefreshStatistics(); }));
  Maintenance maintenance(files, uploads, meta, chunks, cfg.maintenance_interval_ms,
                          cfg.gc_grace_ms, std::move(upkeep), std::move(ticks), beat.id());
  metrics.AddCounter("nubo_maintenance_sweeps_total",
                     "Maintenance sweeps (trash, expiry, versions, GC) this process ran.",
                     [&maintenance] { return maintenance.sweeps(); });
  RegisterWebRoutes(router, cfg.web_dir);
  if (cfg.test_routes) {
    spdlog::warn("test-only routes under /_test/ are enabled: never do this in production");
    RegisterTestRoutes(router, {&chunk_faults, &meta_faults});
  }

  if (Status st = transport->Bind(); !st.ok()) {
    spdlog::critical("{}", st.message());
    FlushLogs();
    return 1;
  }
  bool v6 = cfg.listen_host.find(':') != std::string::npos;
  spdlog::info("listening on http://{}{}{}:{}", v6 ? "[" : "", cfg.listen_host, v6 ? "]" : "",
               transport->port());
  FlushLogs();
  Status st = transport->Run();
  if (st.code() == Code::kAborted) {
    spdlog::warn("{}: exiting now", st.message());
    spdlog::shutdown();
    std::_Exit(0);
  }
  transport.reset();
  if (!st.ok()) {
    spdlog::critical("server stopped: {}", st.ToString());
    FlushLogs();
    return 1;
  }
  // The last failures counted here reach the store (and the next start).
  if (Status sync = lockouts.Run(UnixMillis()); !sync.ok()) {
    spdlog::warn("sign-in lockouts: {}", sync.ToString());
  }
  FlushLogs();
  return 0;
}

}  // namespace nubo::server
