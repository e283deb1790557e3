// The HTTP/1.1 transport: the only code that knows Boost.Beast and Asio.
//
// One coroutine per connection; N I/O threads each run their own io_context
// and own the connections accepted onto it (round-robin). Requests
// on a connection are handled one after another (pipelined requests wait in
// the read buffer). Bodies stream between the socket and the route's
// BodySink/BodySource in bounded pieces. Work that may block runs on a
// bounded thread pool and is awaited, so I/O threads never wait on disk.
//
// The I/O threads other than Run's caller start with the constructor (so
// they take their malloc arenas first: see transport.cc) and end when Run
// returns, or with the destructor when Run never ran.
//
// Thread-safety: construct, Bind, then Run from one thread; RequestStop may
// be called from any thread (and signal delivery calls it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/status.h"

namespace nubo::http {
class Router;
}

namespace nubo::server {

class Metrics;

struct TransportOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8086;
  int io_threads = 1;
  int blocking_threads = 16;
  uint64_t max_connections = 10000;
  uint64_t max_header_bytes = 16 << 10;
  uint64_t default_body_limit = 1 << 20;  // kBuffered routes without their own
  uint64_t header_timeout_ms = 20'000;
  uint64_t idle_timeout_ms = 60'000;
  uint64_t read_timeout_ms = 60'000;
  uint64_t write_timeout_ms = 60'000;
  uint64_t shutdown_grace_ms = 30'000;
  bool access_log = true;
  // Acknowledge a request body at once (TCP_QUICKACK; see ReadBody).
  bool quickack = true;
  // Send bodies that lie in files (chunks, thumbnails, web assets) with
  // sendfile(2) rather than through a buffer.
  bool sendfile = true;
  std::vector<std::string> trusted_proxies;  // peers whose X-Forwarded-For is believed
};

class Transport {
 public:
  Transport(TransportOptions options, const http::Router& router, Metrics& metrics);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Binds and listens. IoError/PermissionDenied name the address on failure.
  Status Bind();
  // The bound port (useful with port 0).
  uint16_t port() const;

  // Serves until SIGTERM/SIGINT or RequestStop, then drains: stops
  // accepting, closes idle connections, lets in-flight requests finish for
  // up to shutdown_grace_ms, and returns OK. Aborted when the grace period
  // ran out: blocking work may still be running, so the caller must end the
  // process (std::_Exit) rather than destroy the Transport.
  Status Run();
  void RequestStop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nubo::server
