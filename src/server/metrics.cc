#include "server/metrics.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "util/strings.h"

namespace nubo::server {

namespace {

// Prometheus label values escape backslash, quote and newline.
std::string Label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

Metrics::Metrics() = default;

const std::vector<double>& Metrics::Buckets() {
  static const std::vector<double> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                               0.25,   0.5,   1,      2.5,   5,    10,    30,   60};
  return kBuckets;
}

void Metrics::RecordRequest(std::string_view route, std::string_view method, int status,
                            int64_t duration_ns, uint64_t bytes_in, uint64_t bytes_out) {
  double secs = static_cast<double>(duration_ns) / 1e9;
  const auto& b = Buckets();
  size_t bucket = 0;
  while (bucket < b.size() && secs > b[bucket]) ++bucket;
  std::lock_guard lock(mu_);
  auto it = requests_.find(SeriesKeyView{route, method, status});
  if (it == requests_.end()) {
    it = requests_.emplace(SeriesKey{std::string(route), std::string(method), status}, Series{})
             .first;
  }
  Series& s = it->second;
  s.count++;
  s.bytes_in += bytes_in;
  s.bytes_out += bytes_out;
  auto hit = latency_.find(route);
  if (hit == latency_.end()) hit = latency_.emplace(std::string(route), Histogram{}).first;
  Histogram& h = hit->second;
  if (h.buckets.empty()) h.buckets.assign(b.size() + 1, 0);  // last: above every bound
  h.buckets[bucket]++;
  h.count++;
  h.sum += secs;
}

uint64_t CurrentRssBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void Metrics::AddCounter(std::string name, std::string help, std::function<uint64_t()> read) {
  std::lock_guard lock(mu_);
  external_.push_back({std::move(name), std::move(help), std::move(read)});
}

void Metrics::AddGauge(std::string name, std::string help, std::function<uint64_t()> read) {
  std::lock_guard lock(mu_);
  external_.push_back({std::move(name), std::move(help), std::move(read), true});
}

std::string Metrics::Render() const {
  std::string out;
  auto add = [&out](std::string s) { out += s; };
  std::lock_guard lock(mu_);
  add("# HELP nubo_http_requests_total HTTP requests by route, method and status.\n");
  add("# TYPE nubo_http_requests_total counter\n");
  for (const auto& [k, s] : requests_) {
    add(fmt::format("nubo_http_requests_total{{route=\"{}\",method=\"{}\",status=\"{}\"}} {}\n",
                    Label(k.route), Label(k.method), k.status, s.count));
  }
  uint64_t in = 0, outb = 0;
  for (const auto& [k, s] : requests_) {
    in += s.bytes_in;
    outb += s.bytes_out;
  }
  add("# HELP nubo_http_request_bytes_total Request body bytes received.\n");
  add("# TYPE nubo_http_request_bytes_total counter\n");
  add(fmt::format("nubo_http_request_bytes_total {}\n", in));
  add("# HELP nubo_http_response_bytes_total Response body bytes sent.\n");
  add("# TYPE nubo_http_response_bytes_total counter\n");
  add(fmt::format("nubo_http_response_bytes_total {}\n", outb));
  add("# HELP nubo_http_inline_requests_total Requests answered on their network thread, without "
      "the blocking pool.\n");
  add("# TYPE nubo_http_inline_requests_total counter\n");
  add(fmt::format("nubo_http_inline_requests_total {}\n",
                  inline_requests_.load(std::memory_order_relaxed)));
  add("# HELP nubo_http_sendfile_bytes_total Response body bytes sent straight from files.\n");
  add("# TYPE nubo_http_sendfile_bytes_total counter\n");
  add(fmt::format("nubo_http_sendfile_bytes_total {}\n",
                  sendfile_bytes_.load(std::memory_order_relaxed)));

  add("# HELP nubo_http_request_duration_seconds Time from request headers to response end.\n");
  add("# TYPE nubo_http_request_duration_seconds histogram\n");
  const auto& b = Buckets();
  for (const auto& [route, h] : latency_) {
    uint64_t cum = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      cum += h.buckets[i];
      add(fmt::format("nubo_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
                      Label(route), b[i], cum));
    }
    add(fmt::format("nubo_http_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} {}\n",
                    Label(route), h.count));
    add(fmt::format("nubo_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n", Label(route),
                    h.sum));
    add(fmt::format("nubo_http_request_duration_seconds_count{{route=\"{}\"}} {}\n", Label(route),
                    h.count));
  }
  add("# HELP nubo_http_open_connections Client connections currently open.\n");
  add("# TYPE nubo_http_open_connections gauge\n");
  add(fmt::format("nubo_http_open_connections {}\n", open_connections()));
  for (const External& e : external_) {
    add(fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", e.name, e.help, e.name,
                    e.gauge ? "gauge" : "counter", e.name, e.read()));
  }
  add("# HELP process_resident_memory_bytes Resident memory size in bytes.\n");
  add("# TYPE process_resident_memory_bytes gauge\n");
  add(fmt::format("process_resident_memory_bytes {}\n", CurrentRssBytes()));
  return out;
}

}  // namespace nubo::server
