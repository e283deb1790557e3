// Process metrics in the Prometheus text exposition format (version 0.0.4).
// Thread-safe: counters are recorded from every I/O thread; one mutex guards
// the per-(route, method, status) series, which are few and short-lived to
// touch, so contention stays far below the cost of a request.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace nubo::server {

class Metrics {
 public:
  Metrics();

  void RecordRequest(std::string_view route, std::string_view method, int status,
                     int64_t duration_ns, uint64_t bytes_in, uint64_t bytes_out);
  void ConnectionOpened() { open_connections_.fetch_add(1, std::memory_order_relaxed); }
  void ConnectionClosed() { open_connections_.fetch_sub(1, std::memory_order_relaxed); }
  int64_t open_connections() const { return open_connections_.load(std::memory_order_relaxed); }
  // Response bytes the kernel sent straight from files (sendfile).
  void SentFromFile(uint64_t n) { sendfile_bytes_.fetch_add(n, std::memory_order_relaxed); }
  // A request answered on its network thread (RouteOptions::inline_when).
  void RanInline() { inline_requests_.fetch_add(1, std::memory_order_relaxed); }

  // A counter kept elsewhere (e.g. Argon2 runs in the authenticator),
  // read when the exposition is rendered. Register before serving.
  void AddCounter(std::string name, std::string help, std::function<uint64_t()> read);
  // The same for a value that goes up and down (queue lengths).
  void AddGauge(std::string name, std::string help, std::function<uint64_t()> read);

  // The whole exposition, including process RSS read from /proc.
  std::string Render() const;

  // Latency histogram bucket bounds, in seconds.
  static const std::vector<double>& Buckets();

 private:
  struct Series {
    uint64_t count = 0;
    uint64_t bytes_in = 0;
    uint64_t bytes_out = 0;
  };
  struct Histogram {
    std::vector<uint64_t> buckets;  // cumulative at render time, raw here
    uint64_t count = 0;
    double sum = 0;
  };

  mutable std::mutex mu_;
  struct SeriesKey {
    std::string route, method;
    int status;
  };
  struct SeriesKeyView {
    std::string_view route, method;
    int status;
  };
  // Transparent: lookups take string_views and allocate only when a series
  // is first seen.
  struct SeriesLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::make_tuple(std::string_view(a.route), std::string_view(a.method), a.status) <
             std::make_tuple(std::string_view(b.route), std::string_view(b.method), b.status);
    }
  };
  std::map<SeriesKey, Series, SeriesLess> requests_;
  std::map<std::string, Histogram, std::less<>> latency_;  // by route
  std::atomic<int64_t> open_connections_{0};
  std::atomic<uint64_t> sendfile_bytes_{0};
  std::atomic<uint64_t> inline_requests_{0};
  struct External {
    std::string name, help;
    std::function<uint64_t()> read;
    bool gauge = false;
  };
  std::vector<External> external_;
};

// Resident set size of this process in bytes (0 if /proc is unreadable).
uint64_t CurrentRssBytes();

}  // namespace nubo::server
