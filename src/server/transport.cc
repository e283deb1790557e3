#include "server/transport.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <spdlog/spdlog.h>
#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "http/request.h"
#include "http/request_policy.h"
#include "http/response.h"
#include "http/router.h"
#include "http/status_map.h"
#include "http/target.h"
#include "server/metrics.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using std::chrono::milliseconds;

namespace {

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
// Body pieces move in blocks of up to this size: large enough that
// per-piece costs (a hop to the blocking pool, a syscall) vanish against
// memcpy, small enough that 10k connections do not pin gigabytes.
constexpr size_t kBodyChunk = 256 << 10;
// A body's block starts at this size (or the body's, if smaller) and
// grows to kBodyChunk once a piece fills it. Most bodies are small
// (PROPFIND, JSON), and a 256 KiB block per request is above malloc's mmap
// threshold: each one cost an mmap, page faults and an munmap with a TLB
// flush. A body that filled a first block is big: growing in one step
// instead of doubling saves a hop to the blocking pool per doubling (a
// 1,000-file PROPFIND's source: 7 reads before, 5 with this, 4 with
// BodySource::Exhausted).
constexpr size_t kFirstBlock = 16 << 10;

// The block a body moves through: small first, grown for big bodies.
class BodyBlock {
 public:
  explicit BodyBlock(std::optional<uint64_t> expected = std::nullopt)
      : cap_(expected ? static_cast<size_t>(std::clamp<uint64_t>(*expected, 1, kBodyChunk))
                      : kFirstBlock) {}
  char* data() {
    if (!buf_) buf_.reset(new char[cap_]);
    return buf_.get();
  }
  size_t size() const { return cap_; }
  // After a piece of `used` bytes: a full block grows for the next one.
  void Used(size_t used) {
    if (used == cap_ && cap_ < kBodyChunk) {
      cap_ = kBodyChunk;
      buf_.reset();
    }
  }

 private:
  size_t cap_;
  std::unique_ptr<char[]> buf_;
};
// A streamed response's first piece, read on the blocking pool in the same
// hop as the handler that made the response (a generated body — a
// PROPFIND, a REPORT, a JSON listing — reads a database for every piece).
struct FirstPiece {
  BodyBlock block;
  size_t n = 0;
  bool read = false;
};

// After an error response with an unread request body, read and discard at
// most this much (for at most kLingerMs) before closing, so the client sees
// the response instead of a connection reset (RFC 9112 §9.6).
constexpr uint64_t kLingerBytes = 64ull << 20;
// Bodies up to this size are read before authentication (see one_hop in
// Exchange).
constexpr uint64_t kOneHopBody = 64 << 10;
constexpr int kLingerMs = 2000;
// File spans are asked for in batches of at most this many bytes and files
// (one hop to the blocking pool per batch, not per chunk): enough that the
// hop vanishes against the bytes, few enough that a slow reader does not
// pin many descriptors or keep the read-ahead far in front of the socket.
constexpr size_t kSpanBytes = 8 << 20;
constexpr size_t kSpanFiles = 16;

// An error met on a route's behalf, in the route's own error format.
http::Response RouteError(const http::Endpoint& ep, const Status& st) {
  return ep.options.errors ? ep.options.errors(st) : http::ErrorResponse(st);
}

// Runs right after the handler, on its thread: reads the first piece of a
// generated body (no size known up front) that will be sent, so that the
// piece needs no hop of its own and leaves with the headers. A failure
// becomes the response — the headers have not left, so the client gets a
// clean error instead of a truncated body.
void ReadFirstPiece(const http::Endpoint& ep, const http::Request& req, http::Response& res,
                    FirstPiece& first) {
  if (!res.source || res.source->Size() || req.method == "HEAD" || res.status < 200 ||
      res.status == 204 || res.status == 304) {
    return;
  }
  // A hint only grows the first block: a small guess must not split a
  // body that the default block holds whole.
  if (auto hint = res.source->SizeHint(); hint && *hint > first.block.size()) {
    first.block = BodyBlock(hint);
  }
  Result<size_t> got = res.source->Read(first.block.data(), first.block.size());
  if (!got.ok()) {
    spdlog::error("response body failed: {} id={}", got.status().ToString(), req.request_id);
    res = RouteError(ep, got.status());
    return;
  }
  first.n = *got;
  first.read = true;
}

struct Conn {
  explicit Conn(tcp::socket s, uint64_t id) : stream(std::move(s)), id(id) {}
  beast::tcp_stream stream;
  uint64_t id;
  bool idle = true;  // touched only on the connection's I/O thread
};

// "Sun, 06 Nov 1994 08:49:37 GMT", recomputed at most once a second per thread.
const std::string& CachedDate() {
  thread_local std::time_t last = 0;
  thread_local std::string value;
  std::time_t now = std::time(nullptr);
  if (now != last) {
    last = now;
    value = FormatHttpDate(now);
  }
  return value;
}

bool SaneRequestId(std::string_view v) {
  if (v.empty() || v.size() > 64) return false;
  for (char c : v) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// Header fields the transport owns; a handler's copies are ignored.
bool TransportOwned(std::string_view name) {
  return IEquals(name, "Content-Length") || IEquals(name, "Transfer-Encoding") ||
         IEquals(name, "Connection") || IEquals(name, "Date") || IEquals(name, "Server");
}

}  // namespace

// The threads that run iocs[1..n-1]; the thread that calls Run() runs
// iocs[0]. They start with the transport, before any blocking-pool thread,
// and each makes its first allocation before the constructor returns: glibc
// binds a thread to a malloc arena at its first allocation and, once the
// server's arena limit is reached, hands later threads an existing one. So
// under the limit RunServe sets (one arena per I/O thread, plus one) every
// I/O thread gets an arena of its own instead of sharing a lock with another
// I/O thread — on a sync client's poll the two I/O threads did share one
// (bench/results/2026-12-06-s2-io-arenas.md).
class IoThreads {
 public:
  explicit IoThreads(std::vector<std::unique_ptr<asio::io_context>>& iocs) : iocs_(iocs) {
    std::latch bound(static_cast<std::ptrdiff_t>(iocs.size() - 1));
    for (size_t i = 1; i < iocs.size(); ++i) {
      guards_.emplace_back(iocs[i]->get_executor());  // run() waits for connections
      threads_.emplace_back([this, i, &bound] {
        void* volatile first = std::malloc(64);  // volatile: not elided
        std::free(first);
        bound.count_down();
        iocs_[i]->run();
      });
    }
    bound.wait();
  }
  ~IoThreads() { Stop(); }
  void Stop() {
    guards_.clear();
    for (size_t i = 1; i < iocs_.size(); ++i) iocs_[i]->stop();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  std::vector<std::unique_ptr<asio::io_context>>& iocs_;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards_;
  std::vector<std::thread> threads_;
};

struct Transport::Impl {
  Impl(TransportOptions o, const http::Router& r, Metrics& m)
      : opt(std::move(o)),
        router(r),
        metrics(m),
        iocs(MakeContexts(std::max(1, opt.io_threads))),
        ioc(*iocs[0]),
        io_threads(iocs),
        pool(static_cast<size_t>(std::max(1, opt.blocking_threads))),
        acceptor(ioc),
        signals(ioc, SIGINT, SIGTERM),
        id_prefix(RandomHex(4)) {}

  // One io_context per I/O thread: a connection lives on one thread, so
  // its handlers need no strand and wake no other thread. Measured against
  // one shared io_context with a strand per connection in bench/ (health).
  static std::vector<std::unique_ptr<asio::io_context>> MakeContexts(int n) {
    std::vector<std::unique_ptr<asio::io_context>> v;
    for (int i = 0; i < n; ++i) v.push_back(std::make_unique<asio::io_context>(1));
    return v;
  }

  TransportOptions opt;
  const http::Router& router;
  Metrics& metrics;
  std::vector<std::unique_ptr<asio::io_context>> iocs;
  asio::io_context& ioc;  // iocs[0]: accepting, signals, draining
  size_t next_ioc = 0;    // round-robin over iocs, touched by the accept loop only
  IoThreads io_threads;   // before the pool: see IoThreads
  asio::thread_pool pool;
  tcp::acceptor acceptor;
  asio::signal_set signals;
  std::string id_prefix;
  std::atomic<uint64_t> request_seq{0};
  std::atomic<bool> draining{false};
  std::atomic<bool> forced{false};  // the grace period ran out with requests in flight
  std::mutex conns_mu;
  std::unordered_map<uint64_t, std::weak_ptr<Conn>> conns;
  uint64_t next_conn_id = 0;

  // Runs `f` here, or on the blocking pool when `blocking`, and resumes on
  // the connection's I/O thread either way. Exceptions propagate.
  template <typename F>
  awaitable<void> Call(bool blocking, F&& f) {
    if (!blocking) {
      f();
      co_return;
    }
    co_await asio::co_spawn(
        pool,
        [&]() -> awaitable<void> {
          f();
          co_return;
        },
        asio::use_awaitable);
  }

  std::string NewRequestId(std::optional<std::string_view> given) {
    if (given && SaneRequestId(*given)) return std::string(*given);
    uint64_t n = request_seq.fetch_add(1, std::memory_order_relaxed);
    return fmt::format("{}-{:x}", id_prefix, n);
  }

  awaitable<void> AcceptLoop();
  awaitable<void> Session(std::shared_ptr<Conn> c);
  awaitable<bool> Exchange(Conn& c, beast::flat_buffer& buf, const std::string& remote);
  awaitable<Status> ReadBody(Conn& c, beast::flat_buffer& buf,
                             bhttp::request_parser<bhttp::empty_body>& hp, uint64_t limit,
                             bool blocking, const std::function<Status(const char*, size_t)>& sink,
                             uint64_t& bytes_in);
  awaitable<Status> ReadSizedBody(Conn& c, beast::flat_buffer& buf, uint64_t length,
                                  bool blocking,
                                  const std::function<Status(const char*, size_t)>& sink,
                                  uint64_t& bytes_in);
  awaitable<Status> FillBlock(Conn& c, beast::flat_buffer& buf, char* block, size_t want);
  awaitable<bool> WriteResponse(Conn& c, http::Request& req, http::Response& res, unsigned version,
                                bool keep, bool blocking, uint64_t& bytes_out,
                                FirstPiece* first = nullptr);
  awaitable<void> LingeringClose(Conn& c, beast::flat_buffer& buf);
  awaitable<bool> SendSpan(Conn& c, const http::FileSpan& span);
  awaitable<void> RefuseBusy(tcp::socket sock);
  void BeginDrain();
  awaitable<void> DrainWatch();
};

Transport::Transport(TransportOptions options, const http::Router& router, Metrics& metrics)
    : impl_(std::make_unique<Impl>(std::move(options), router, metrics)) {}

Transport::~Transport() = default;

Status Transport::Bind() {
  auto& im = *impl_;
  beast::error_code ec;
  auto addr = asio::ip::make_address(im.opt.host, ec);
  if (ec) return Status::InvalidArgument("listen host '" + im.opt.host + "' is not an IP address");
  tcp::endpoint ep(addr, im.opt.port);
  std::string where = fmt::format("{}:{}", im.opt.host, im.opt.port);
  im.acceptor.open(ep.protocol(), ec);
  if (!ec) im.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) im.acceptor.bind(ep, ec);
  if (!ec) im.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::IoError("cannot listen on " + where + ": " + ec.message());
  return Status::Ok();
}

uint16_t Transport::port() const { return impl_->acceptor.local_endpoint().port(); }

void Transport::RequestStop() {
  asio::post(impl_->ioc, [im = impl_.get()] { im->BeginDrain(); });
}

Status Transport::Run() {
  auto& im = *impl_;
  im.signals.async_wait([&im](const beast::error_code& ec, int sig) {
    if (ec) return;
    spdlog::info("signal {}: draining (grace {} ms)", sig, im.opt.shutdown_grace_ms);
    im.BeginDrain();
  });
  asio::co_spawn(im.ioc, im.AcceptLoop(), asio::detached);
  im.ioc.run();
  im.io_threads.Stop();
  if (im.forced) {
    // Blocking work may still be running on the pool; waiting for it would
    // break the grace promise, so the caller exits without joining.
    return Status::Aborted("shutdown grace expired with requests in flight");
  }
  im.pool.join();
  return Status::Ok();
}

awaitable<void> Transport::Impl::AcceptLoop() {
  for (;;) {
    asio::io_context& target = *iocs[next_ioc];
    next_ioc = (next_ioc + 1) % iocs.size();
    auto [ec, sock] = co_await acceptor.async_accept(target, kNoThrow);
    if (ec) {
      if (!acceptor.is_open() || ec == asio::error::operation_aborted) co_return;
      // EMFILE and friends: back off instead of spinning.
      spdlog::warn("accept: {}", ec.message());
      asio::steady_timer t(ioc, milliseconds(50));
      co_await t.async_wait(kNoThrow);
      continue;
    }
    beast::error_code ignored;
    sock.set_option(tcp::no_delay(true), ignored);
    if (static_cast<uint64_t>(metrics.open_connections()) >= opt.max_connections) {
      auto ex = sock.get_executor();
      asio::co_spawn(ex, RefuseBusy(std::move(sock)), asio::detached);
      continue;
    }
    auto c = std::make_shared<Conn>(std::move(sock), 0);
    {
      std::lock_guard lock(conns_mu);
      c->id = ++next_conn_id;
      conns[c->id] = c;
    }
    metrics.ConnectionOpened();
    asio::co_spawn(c->stream.get_executor(), Session(c), [this, c](std::exception_ptr e) {
      if (e) {
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          spdlog::error("connection {}: {}", c->id, ex.what());
        }
      }
      beast::error_code ignored2;
      c->stream.socket().close(ignored2);
      {
        std::lock_guard lock(conns_mu);
        conns.erase(c->id);
      }
      metrics.ConnectionClosed();
    });
  }
}

awaitable<void> Transport::Impl::RefuseBusy(tcp::socket sock) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n"
      "Content-Type: application/json\r\nContent-Length: 63\r\n\r\n"
      "{\"error\":\"resource_exhausted\",\"message\":\"too many connections\"}";
  beast::tcp_stream s(std::move(sock));
  s.expires_after(milliseconds(1000));
  co_await asio::async_write(s, asio::buffer(kBusy.data(), kBusy.size()), kNoThrow);
  beast::error_code ec;
  s.socket().shutdown(tcp::socket::shutdown_both, ec);
}

awaitable<void> Transport::Impl::Session(std::shared_ptr<Conn> c) {
  beast::flat_buffer buf;
  beast::error_code rec;
  auto rep = c->stream.socket().remote_endpoint(rec);
  std::string remote = rec ? "?" : fmt::format("{}:{}", rep.address().to_string(), rep.port());
  bool first = true;
  for (;;) {
    if (buf.size() == 0) {
      // Between requests: wait for the first byte under the idle timeout.
      // A drain cancels this wait (BeginDrain), never an exchange.
      c->idle = true;
      if (draining) break;
      c->stream.expires_after(milliseconds(first ? opt.header_timeout_ms : opt.idle_timeout_ms));
      auto [ec, n] = co_await c->stream.async_read_some(buf.prepare(4096), kNoThrow);
      if (ec) break;
      buf.commit(n);
    }
    c->idle = false;
    first = false;
    if (!co_await Exchange(*c, buf, remote)) break;
    if (draining) break;
  }
  beast::error_code ec;
  c->stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

awaitable<bool> Transport::Impl::Exchange(Conn& c, beast::flat_buffer& buf,
                                          const std::string& remote) {
  const int64_t t0 = MonotonicNanos();
  bhttp::request_parser<bhttp::empty_body> hp;
  hp.header_limit(static_cast<std::uint32_t>(opt.max_header_bytes));
  hp.body_limit(boost::none);  // body limits are per route, applied below
  c.stream.expires_after(milliseconds(opt.header_timeout_ms));
  auto [hec, hn] = co_await bhttp::async_read_header(c.stream, buf, hp, kNoThrow);

  http::Request req;
  req.remote = remote;
  http::Response res;
  FirstPiece first;
  unsigned version = 11;
  bool keep = false;
  bool body_done = false;
  bool blocking = false;
  uint64_t bytes_in = 0, bytes_out = 0;
  std::unique_ptr<http::BodySink> sink;

  if (hec) {
    // A closed or timed-out connection gets no answer: the stream is gone.
    if (hec == bhttp::error::end_of_stream || hec == beast::error::timeout ||
        hec == asio::error::operation_aborted || hec == asio::error::connection_reset ||
        hec == asio::error::eof) {
      co_return false;
    }
    req.method = "-";
    req.request_id = NewRequestId(std::nullopt);
    res = hec == bhttp::error::header_limit
              ? http::ErrorResponse(431, Code::kTooLarge, "request header fields too large")
              : http::ErrorResponse(400, Code::kInvalidArgument,
                                    "malformed HTTP request: " + hec.message());
  } else {
    const auto& h = hp.get();
    version = h.version();
    keep = hp.keep_alive();
    req.method = std::string(h.method_string());
    req.target = std::string(h.target());
    for (const auto& f : h) req.headers.Add(std::string(f.name_string()), std::string(f.value()));
    if (auto cl = hp.content_length()) req.content_length = *cl;
    req.chunked = hp.chunked();
    req.request_id = NewRequestId(req.headers.Get("X-Request-Id"));
    req.client_ip = http::ClientIp(std::string_view(remote).substr(0, remote.rfind(':')),
                                   req.headers.Get("X-Forwarded-For"), opt.trusted_proxies);
    body_done = !req.HasBody();

    auto target = http::ParseTarget(req.target);
    const http::Endpoint* ep = nullptr;
    if (!target.ok()) {
      res = http::ErrorResponse(target.status());
    } else {
      req.segments = std::move(target->segments);
      req.trailing_slash = target->trailing_slash;
      req.query = std::move(target->query);
      req.path = http::JoinPath(req.segments);
      http::RouteMatch m = router.Resolve(req.method, req.segments);
      req.route = m.pattern;
      if (!m.endpoint) {
        res = std::move(m.response);
      } else {
        ep = m.endpoint;
        req.params = std::move(m.params);
        blocking = ep->options.blocking;
      }
    }

    std::optional<http::Response> early;
    // Cross-site and content-type rules come first, before authentication:
    // a refused cross-site request costs no password check.
    if (ep) {
      if (Status st = http::CheckRequestPolicy(req, ep->options); !st.ok()) {
        early = RouteError(*ep, st);
      }
    }
    // The route's limit on the request body (0: none; a streamed route's
    // quota is its sink's business).
    uint64_t limit = 0;
    if (ep) {
      const auto& o = ep->options;
      limit = o.body == http::BodyPolicy::kBuffered
                  ? (o.max_body ? o.max_body : opt.default_body_limit)
                  : o.max_body;
    }
    // A request without a body, or with a small one of known size that
    // needs no "100 Continue" decision, has its body read first on this
    // thread; then authentication, the sink (streamed routes: open, write,
    // finish) and the handler share one hop to the blocking pool instead
    // of a hop each (five for a small upload). The size bound is within
    // the route's limit, so a client that fails authentication still gets
    // 401, never 413.
    bool one_hop = false;
    if (!early && ep && ep->options.access != http::Access::kPublic && router.guard()) {
      one_hop = !req.HasBody() ||
                (ep->options.body != http::BodyPolicy::kNone && req.content_length &&
                 *req.content_length <= kOneHopBody && (!limit || *req.content_length <= limit) &&
                 !req.headers.Get("Expect"));
    }
    const bool hop_stream = one_hop && ep->options.body == http::BodyPolicy::kStream;
    std::string small_body;  // hop_stream: the body, read before the hop
    if (!early && ep && ep->options.access != http::Access::kPublic && !one_hop) {
      if (!router.guard()) {
        early = http::ErrorResponse(Status::Internal("no authentication configured"));
      } else {
        co_await Call(true, [&] { early = router.guard()(req, *ep); });
      }
    }
    if (hop_stream && req.HasBody()) {
      Status st = co_await ReadBody(
          c, buf, hp, *req.content_length, false,
          [&](const char* d, size_t n) {
            small_body.append(d, n);
            return Status::Ok();
          },
          bytes_in);
      if (st.code() == Code::kAborted || st.code() == Code::kTimeout) {
        spdlog::info("{} {} {} body incomplete: {} id={}", remote, req.method, req.target,
                     st.message(), req.request_id);
        co_return false;
      }
      if (!st.ok()) early = RouteError(*ep, st);
      body_done = st.ok();
    }
    if (ep && !early && !hop_stream) {
      const auto& o = ep->options;
      if (req.HasBody() && o.body == http::BodyPolicy::kNone) {
        early = http::ErrorResponse(413, Code::kTooLarge, "this resource takes no request body");
      } else if (limit && req.content_length && *req.content_length > limit) {
        early = http::ErrorResponse(
            413, Code::kTooLarge,
            fmt::format("request body of {} bytes exceeds the limit of {} bytes",
                        *req.content_length, limit));
      } else if (o.body == http::BodyPolicy::kStream) {
        Result<std::unique_ptr<http::BodySink>> opened = Status::Internal("sink not opened");
        co_await Call(blocking, [&] { opened = ep->open_sink(req); });
        if (!opened.ok()) {
          early = RouteError(*ep, opened.status());
        } else {
          sink = std::move(opened).value();
        }
      }
      if (!early && req.HasBody()) {
        // RFC 9110 §10.1.1: answer "100 Continue" only once the request is
        // known to be acceptable, so a client never sends a body in vain.
        if (auto ex = req.headers.Get("Expect");
            ex && IEquals(Trim(*ex), "100-continue") && version >= 11) {
          static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          c.stream.expires_after(milliseconds(opt.write_timeout_ms));
          auto [wec, wn] = co_await asio::async_write(
              c.stream, asio::buffer(kContinue.data(), kContinue.size()), kNoThrow);
          if (wec) co_return false;
        }
        std::function<Status(const char*, size_t)> consume;
        if (sink) {
          consume = [&](const char* d, size_t n) { return sink->Write(d, n); };
        } else {
          consume = [&](const char* d, size_t n) {
            req.body.append(d, n);
            return Status::Ok();
          };
        }
        Status st =
            co_await ReadBody(c, buf, hp, limit, blocking && sink != nullptr, consume, bytes_in);
        if (st.ok()) {
          body_done = true;
          if (sink) co_await Call(blocking, [&] { st = sink->Finish(); });
        } else if (st.code() == Code::kAborted || st.code() == Code::kTimeout) {
          // The client went away or stalled: nobody to answer.
          if (sink) co_await Call(blocking, [&] { sink->Abort(); });
          spdlog::info("{} {} {} body incomplete: {} id={}", remote, req.method, req.target,
                       st.message(), req.request_id);
          co_return false;
        } else if (sink) {
          co_await Call(blocking, [&] { sink->Abort(); });
        }
        if (!st.ok()) early = RouteError(*ep, st);
        req.sink = sink.get();
      } else if (!early && sink) {
        // An empty body (a 0-byte upload) still ends: the sink commits it.
        Status st = Status::Ok();
        co_await Call(blocking, [&] { st = sink->Finish(); });
        if (!st.ok()) early = RouteError(*ep, st);
        req.sink = sink.get();
      }
    }
    // A cheap read whose caller the caches vouch for runs here, without
    // the two thread hand-offs of the blocking pool (RouteOptions::inline_when).
    bool inline_done = false;
    if (!early && ep && one_hop && !hop_stream && ep->options.inline_when &&
        ep->options.inline_when(req)) {
      req.must_not_block = true;
      try {
        if (auto denied = router.guard()(req, *ep); !req.needs_blocking) {
          res = denied ? std::move(*denied) : ep->handler(req);
          inline_done = true;
          metrics.RanInline();
        }
      } catch (const std::exception& e) {
        spdlog::error("{} {} {}: handler threw: {} id={}", remote, req.method, req.target, e.what(),
                      req.request_id);
        res = http::ErrorResponse(Status::Internal(e.what()));
        inline_done = true;
      }
      req.must_not_block = false;
      req.needs_blocking = false;
    }
    if (inline_done) {
      // answered above
    } else if (early) {
      res = std::move(*early);
    } else if (ep) {
      try {
        co_await Call(blocking || one_hop, [&] {
          if (one_hop) {
            if (auto denied = router.guard()(req, *ep)) {
              res = std::move(*denied);
              return;
            }
          }
          if (hop_stream) {
            req.body_in_hand = true;
            auto opened = ep->open_sink(req);
            if (!opened.ok()) {
              res = RouteError(*ep, opened.status());
              return;
            }
            sink = std::move(opened).value();
            Status st = small_body.empty() ? Status::Ok()
                                           : sink->Write(small_body.data(), small_body.size());
            if (!st.ok()) {
              sink->Abort();
              res = RouteError(*ep, st);
              return;
            }
            st = sink->Finish();
            if (!st.ok()) {
              res = RouteError(*ep, st);
              return;
            }
            req.sink = sink.get();
          }
          res = ep->handler(req);
          ReadFirstPiece(*ep, req, res, first);
        });
      } catch (const std::exception& e) {
        spdlog::error("{} {} {}: handler threw: {} id={}", remote, req.method, req.target, e.what(),
                      req.request_id);
        res = http::ErrorResponse(Status::Internal(e.what()));
      }
    }
  }

  if (!body_done || draining) keep = false;
  if (res.close) keep = false;
  bool ok = co_await WriteResponse(c, req, res, version, keep, blocking, bytes_out, &first);
  const int64_t dt = MonotonicNanos() - t0;
  // Label values must come from a closed set: a client inventing methods
  // must not be able to create unbounded metric series.
  metrics.RecordRequest(
      req.route.empty() ? "unmatched" : req.route,
      http::Router::KnownMethod(req.method) ? std::string_view(req.method) : "other", res.status,
      dt, bytes_in, bytes_out);
  if (opt.access_log) {
    spdlog::info("{} \"{} {}\" {} in={} out={} {:.3f}ms id={}", remote, req.method, req.target,
                 res.status, bytes_in, bytes_out, static_cast<double>(dt) / 1e6, req.request_id);
  }
  if (ok && !body_done) co_await LingeringClose(c, buf);
  co_return ok&& keep;
}

awaitable<Status> Transport::Impl::ReadBody(Conn& c, beast::flat_buffer& buf,
                                            bhttp::request_parser<bhttp::empty_body>& hp,
                                            uint64_t limit, bool blocking,
                                            const std::function<Status(const char*, size_t)>& sink,
                                            uint64_t& bytes_in) {
  bhttp::request_parser<bhttp::buffer_body> p{std::move(hp)};
  p.body_limit(boost::none);
  // The body is still on its way: acknowledge at once. A client that sends
  // the header and the body in two writes (Qt, so the Nextcloud clients)
  // holds the body back until the header is acknowledged (Nagle), and a
  // delayed acknowledgement would cost every such request 40 ms. A body
  // that came with the header (a poll's PROPFIND) is not waited for: no
  // system call for it.
  const bool arrived = !p.chunked() && p.content_length() && buf.size() >= *p.content_length();
  if (opt.quickack && !p.is_done() && !arrived) {
    int one = 1;
    ::setsockopt(c.stream.socket().native_handle(), IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
  }
  if (!p.chunked() && p.content_length() && !p.is_done()) {
    if (limit && *p.content_length() > limit) {
      co_return Status::TooLarge(fmt::format("request body exceeds the limit of {} bytes", limit));
    }
    co_return co_await ReadSizedBody(c, buf, *p.content_length(), blocking, sink, bytes_in);
  }
  BodyBlock block(p.content_length() ? std::optional<uint64_t>(*p.content_length()) : std::nullopt);
  while (!p.is_done()) {
    char* chunk = block.data();
    const size_t cap = block.size();
    p.get().body().data = chunk;
    p.get().body().size = cap;
    c.stream.expires_after(milliseconds(opt.read_timeout_ms));
    auto [ec, n] = co_await bhttp::async_read(c.stream, buf, p, kNoThrow);
    if (ec == bhttp::error::need_buffer) ec = {};
    if (ec == beast::error::timeout) co_return Status::Timeout("request body stalled");
    if (ec == bhttp::error::partial_message || ec == bhttp::error::end_of_stream ||
        ec == asio::error::eof || ec == asio::error::connection_reset ||
        ec == asio::error::operation_aborted) {
      co_return Status::Aborted("client closed the connection mid-body");
    }
    if (ec) co_return Status::InvalidArgument("malformed request body: " + ec.message());
    size_t got = cap - p.get().body().size;
    bytes_in += got;
    if (limit && bytes_in > limit) {
      co_return Status::TooLarge(fmt::format("request body exceeds the limit of {} bytes", limit));
    }
    if (got == 0) continue;
    Status st;
    co_await Call(blocking, [&] { st = sink(chunk, got); });
    block.Used(got);
    if (!st.ok()) co_return st;
  }
  co_return Status::Ok();
}

// A body of known length needs no parser: its bytes are the next `length`
// bytes on the connection (RFC 9112 §6.2). They are read straight into
// full blocks, not through the parser's small buffer (which cost one recv
// and one timer per 4 KiB), and while the blocking pool consumes one block
// this thread already reads the next, so receiving overlaps chunking,
// hashing and writing.
awaitable<Status> Transport::Impl::ReadSizedBody(
    Conn& c, beast::flat_buffer& buf, uint64_t length, bool blocking,
    const std::function<Status(const char*, size_t)>& sink, uint64_t& bytes_in) {
  using namespace asio::experimental::awaitable_operators;
  const size_t cap = static_cast<size_t>(std::min<uint64_t>(length, kBodyChunk));
  std::unique_ptr<char[]> blocks[2] = {std::unique_ptr<char[]>(new char[cap]), nullptr};
  uint64_t left = length;
  size_t got = static_cast<size_t>(std::min<uint64_t>(cap, left));
  Status st = co_await FillBlock(c, buf, blocks[0].get(), got);
  if (!st.ok()) co_return st;
  bytes_in += got;
  left -= got;
  for (int cur = 0;; cur ^= 1) {
    const char* ready = blocks[cur].get();
    if (left == 0) {
      co_await Call(blocking, [&] { st = sink(ready, got); });
      co_return st;
    }
    if (!blocks[cur ^ 1]) blocks[cur ^ 1].reset(new char[cap]);
    char* next = blocks[cur ^ 1].get();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(cap, left));
    Status read_st;
    if (blocking) {
      read_st = co_await (FillBlock(c, buf, next, want) && Call(true, [&] { st = sink(ready, got); }));
    } else {
      st = sink(ready, got);
      if (st.ok()) read_st = co_await FillBlock(c, buf, next, want);
    }
    // A client that went away outranks the sink's verdict: nobody is
    // left to read it.
    if (!read_st.ok()) co_return read_st;
    if (!st.ok()) co_return st;
    got = want;
    bytes_in += got;
    left -= got;
  }
}

// Fills `block` with the next `want` body bytes: those already buffered
// behind the header first, then from the socket.
awaitable<Status> Transport::Impl::FillBlock(Conn& c, beast::flat_buffer& buf, char* block,
                                             size_t want) {
  size_t have = std::min(buf.size(), want);
  if (have) {
    std::memcpy(block, buf.data().data(), have);
    buf.consume(have);
  }
  while (have < want) {
    c.stream.expires_after(milliseconds(opt.read_timeout_ms));
    auto [ec, n] =
        co_await c.stream.async_read_some(asio::buffer(block + have, want - have), kNoThrow);
    if (ec == beast::error::timeout) co_return Status::Timeout("request body stalled");
    if (ec) co_return Status::Aborted("client closed the connection mid-body");
    have += n;
  }
  co_return Status::Ok();
}

namespace {

template <class Body>
void FillHeaders(bhttp::response<Body>& r, const http::Request& req, const http::Response& res,
                 unsigned version, bool keep) {
  r.version(version);
  r.result(static_cast<unsigned>(res.status));
  for (const auto& [k, v] : res.headers.fields()) {
    if (!TransportOwned(k)) r.insert(k, v);
  }
  r.set(bhttp::field::server, "nubo");
  r.set(bhttp::field::date, CachedDate());
  r.set("X-Request-Id", req.request_id);
  r.keep_alive(keep);
}

}  // namespace

awaitable<bool> Transport::Impl::WriteResponse(Conn& c, http::Request& req, http::Response& res,
                                               unsigned version, bool keep, bool blocking,
                                               uint64_t& bytes_out, FirstPiece* first) {
  const bool head = req.method == "HEAD";
  const bool no_body = res.status == 204 || res.status == 304 || res.status < 200;
  c.stream.expires_after(milliseconds(opt.write_timeout_ms));
  if (head || no_body) {
    bhttp::response<bhttp::empty_body> r;
    FillHeaders(r, req, res, version, keep);
    if (head && !no_body) {
      // HEAD carries the Content-Length GET would send (RFC 9110 §9.3.2).
      std::optional<uint64_t> size = res.source ? res.source->Size() : res.body.size();
      if (size) r.set(bhttp::field::content_length, std::to_string(*size));
    }
    auto [ec, n] = co_await bhttp::async_write(c.stream, r, kNoThrow);
    co_return !ec;
  }
  const bool have_first = first && first->read && res.source;
  if (have_first && res.source->Exhausted()) {
    // The whole body is in the first piece: it goes out with its length.
    res.body.assign(first->block.data(), first->n);
    res.source.reset();
  }
  if (!res.source) {
    bhttp::response<bhttp::string_body> r;
    FillHeaders(r, req, res, version, keep);
    r.body() = std::move(res.body);
    r.prepare_payload();
    bytes_out = r.body().size();
    auto [ec, n] = co_await bhttp::async_write(c.stream, r, kNoThrow);
    co_return !ec;
  }

  bhttp::response<bhttp::buffer_body> r;
  std::optional<uint64_t> size = res.source->Size();
  if (!size && version < 11) keep = false;  // HTTP/1.0: the close ends the body
  FillHeaders(r, req, res, version, keep);
  if (size) {
    r.content_length(*size);
  } else if (version >= 11) {
    r.chunked(true);
  }
  r.body().data = nullptr;
  r.body().more = true;
  bhttp::response_serializer<bhttp::buffer_body> sr{r};
  // A first piece in hand leaves in the headers' write.
  bool pending_first = have_first;
  if (!pending_first) {
    auto [hec, hn] = co_await bhttp::async_write_header(c.stream, sr, kNoThrow);
    if (hec) co_return false;
  }
  // With a Content-Length the body goes out unframed, so spans sent
  // straight from their files and pieces written by the serializer can
  // alternate.
  const bool use_spans = opt.sendfile && size.has_value();
  std::vector<http::FileSpan> spans;
  BodyBlock block = pending_first ? std::move(first->block) : BodyBlock(size);
  for (;;) {
    if (use_spans) {
      spans.clear();
      Status st;
      co_await Call(blocking, [&] { st = res.source->NextSpans(kSpanBytes, kSpanFiles, spans); });
      if (!st.ok()) {
        spdlog::error("response body failed mid-stream: {} id={}", st.ToString(), req.request_id);
        co_return false;
      }
      if (!spans.empty()) {
        for (const auto& span : spans) {
          if (!co_await SendSpan(c, span)) co_return false;
          bytes_out += span.length;
          metrics.SentFromFile(span.length);
        }
        if (bytes_out >= *size) break;  // the whole body went out from files
        continue;
      }
    }
    char* chunk = block.data();
    Result<size_t> got = Status::Internal("source not read");
    if (pending_first) {
      got = first->n;
      pending_first = false;
    } else {
      co_await Call(blocking, [&] { got = res.source->Read(chunk, block.size()); });
    }
    if (!got.ok()) {
      // Headers are gone already: abort so the client sees truncation.
      spdlog::error("response body failed mid-stream: {} id={}", got.status().ToString(),
                    req.request_id);
      co_return false;
    }
    size_t n = *got;
    // The last piece carries the end of the body (the final chunk, when
    // chunked) whenever the source can tell it is the last.
    const bool last = n == 0 || (size && bytes_out + n >= *size) || res.source->Exhausted();
    r.body().data = n ? chunk : nullptr;
    r.body().size = n;
    r.body().more = !last;
    c.stream.expires_after(milliseconds(opt.write_timeout_ms));
    auto [ec, wn] = co_await bhttp::async_write(c.stream, sr, kNoThrow);
    if (ec == bhttp::error::need_buffer) ec = {};
    if (ec) co_return false;
    bytes_out += n;
    if (last) break;
    block.Used(n);
  }
  co_return true;
}

awaitable<bool> Transport::Impl::SendSpan(Conn& c, const http::FileSpan& span) {
  using namespace asio::experimental::awaitable_operators;
  auto& sock = c.stream.socket();
  beast::error_code ec;
  if (!sock.non_blocking()) sock.non_blocking(true, ec);  // async I/O only: no behaviour change
  if (ec) co_return false;
  off_t off = static_cast<off_t>(span.offset);
  size_t left = span.length;
  while (left > 0) {
    ssize_t n = ::sendfile(sock.native_handle(), span.fd, &off, left);
    if (n > 0) {
      left -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      // The file ended before the span: the headers promised more bytes
      // than there are, so the client must see a truncated body.
      spdlog::error("file span ended early ({} bytes missing)", left);
      co_return false;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) co_return false;  // peer gone
    // The socket buffer is full: wait for room, under the write timeout.
    asio::steady_timer timer(c.stream.get_executor());
    timer.expires_after(milliseconds(opt.write_timeout_ms));
    auto which =
        co_await (sock.async_wait(tcp::socket::wait_write, kNoThrow) || timer.async_wait(kNoThrow));
    if (which.index() != 0 || std::get<0>(std::get<0>(which))) co_return false;
  }
  co_return true;
}

awaitable<void> Transport::Impl::LingeringClose(Conn& c, beast::flat_buffer& buf) {
  beast::error_code ec;
  c.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  c.stream.expires_after(milliseconds(kLingerMs));
  uint64_t drained = 0;
  std::vector<char> sink(64 << 10);
  while (drained < kLingerBytes) {
    auto [rec, n] = co_await c.stream.async_read_some(asio::buffer(sink), kNoThrow);
    if (rec) break;
    drained += n;
  }
  buf.consume(buf.size());
}

void Transport::Impl::BeginDrain() {
  if (draining.exchange(true)) return;
  beast::error_code ec;
  acceptor.close(ec);
  signals.cancel(ec);
  std::vector<std::shared_ptr<Conn>> live;
  {
    std::lock_guard lock(conns_mu);
    for (auto& [id, w] : conns) {
      if (auto c = w.lock()) live.push_back(std::move(c));
    }
  }
  for (auto& c : live) {
    asio::post(c->stream.get_executor(), [c] {
      if (c->idle) c->stream.cancel();
    });
  }
  asio::co_spawn(ioc, DrainWatch(), asio::detached);
}

awaitable<void> Transport::Impl::DrainWatch() {
  const int64_t deadline =
      MonotonicNanos() + static_cast<int64_t>(opt.shutdown_grace_ms) * 1'000'000;
  asio::steady_timer t(ioc);
  while (metrics.open_connections() > 0 && MonotonicNanos() < deadline) {
    t.expires_after(milliseconds(10));
    co_await t.async_wait(kNoThrow);
  }
  if (metrics.open_connections() > 0) {
    forced = true;
    spdlog::warn("shutdown grace over: closing {} connection(s) with requests in flight",
                 metrics.open_connections());
  }
  spdlog::info("stopped");
  ioc.stop();
}

}  // namespace nubo::server
