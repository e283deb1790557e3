#include "server/transport.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "http/body.h"
#include "http/response.h"
#include "http/router.h"
#include "server/metrics.h"

namespace nubo::server {
namespace {

int ThreadCount() {
  int n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Waits up to 5 s for the process to have `want` threads (a joined thread
// leaves /proc a moment after pthread_join returns).
bool ThreadCountBecomes(int want) {
  for (int i = 0; i < 500; ++i) {
    if (ThreadCount() == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// A client socket connected to 127.0.0.1:port (Nagle on, as by default),
// or -1. Reads give up after 5 s: a connection nobody serves fails the test
// instead of hanging it.
int Connect(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval limit{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// One GET on a new connection; returns the body ("" on any failure).
std::string Get(uint16_t port, const std::string& path) {
  int fd = Connect(port);
  std::string got;
  if (fd >= 0) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    }
    close(fd);
  }
  size_t body = got.find("\r\n\r\n");
  return got.rfind("HTTP/1.1 200", 0) == 0 && body != std::string::npos ? got.substr(body + 4) : "";
}

TransportOptions Options(int io_threads) {
  TransportOptions o;
  o.port = 0;
  o.io_threads = io_threads;
  o.blocking_threads = 1;
  o.access_log = false;
  o.shutdown_grace_ms = 2000;
  return o;
}

// The I/O threads start with the transport (so that they take their malloc
// arenas before any other thread of the server) and must end with it, also
// when it never ran: a server that fails to bind returns through here.
TEST(Transport, IoThreadsStartWithItAndEndWithItWithoutRun) {
  http::Router router;
  Metrics metrics;
  const int before = ThreadCount();
  {
    Transport t(Options(3), router, metrics);
    // Two I/O threads beside the caller's (which runs the first context in
    // Run) and one blocking-pool thread.
    EXPECT_EQ(ThreadCount(), before + 3);
  }
  EXPECT_TRUE(ThreadCountBecomes(before)) << ThreadCount() << " threads, " << before << " before";
}

// Connections are dealt round-robin to the I/O threads: three connections
// on a three-thread transport are answered by three different threads, the
// two started by the constructor among them, and a stop ends all of them.
TEST(Transport, EveryIoThreadServesItsConnections) {
  http::Router router;
  router.Add("GET", "/who", [](http::Request&) {
    std::ostringstream id;
    id << std::this_thread::get_id();
    return http::Response::Text(200, id.str(), "text/plain");
  });
  Metrics metrics;
  const int before = ThreadCount();
  {
    Transport t(Options(3), router, metrics);
    ASSERT_TRUE(t.Bind().ok());
    Status ran = Status::Internal("did not run");
    std::thread runner([&] { ran = t.Run(); });
    std::set<std::string> threads;
    for (int i = 0; i < 3; ++i) {
      std::string who = Get(t.port(), "/who");
      ASSERT_FALSE(who.empty()) << "connection " << i;
      threads.insert(who);
    }
    EXPECT_EQ(threads.size(), 3u);
    t.RequestStop();
    runner.join();
    EXPECT_TRUE(ran.ok()) << ran.ToString();
  }
  EXPECT_TRUE(ThreadCountBecomes(before)) << ThreadCount() << " threads, " << before << " before";
}

// Sends `n` POSTs on one connection, each header and body in two writes
// with Nagle on — as Qt, and so the Nextcloud clients, send them — after a
// few in one write to take the connection out of the kernel's initial
// quick-ack phase. Returns the milliseconds the `n` took, or -1.
double SplitPosts(uint16_t port, int n) {
  int fd = Connect(port);
  if (fd < 0) return -1;
  const std::string head =
      "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n";
  auto exchange = [&](bool split) {
    bool ok;
    if (split) {
      ok = write(fd, head.data(), head.size()) == static_cast<ssize_t>(head.size()) &&
           write(fd, "hello", 5) == 5;
    } else {
      std::string whole = head + "hello";
      ok = write(fd, whole.data(), whole.size()) == static_cast<ssize_t>(whole.size());
    }
    std::string got;
    char buf[1024];
    // The answer is short and ends with the echoed body.
    while (ok && !got.ends_with("\r\n\r\nhello")) {
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) return false;
      got.append(buf, static_cast<size_t>(r));
    }
    return ok;
  };
  bool ok = true;
  for (int i = 0; i < 20 && ok; ++i) ok = exchange(false);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n && ok; ++i) ok = exchange(true);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  close(fd);
  return ok ? ms : -1;
}

double SplitPostsMs(bool quickack) {
  http::Router router;
  router.Add("POST", "/echo",
             [](http::Request& req) { return http::Response::Text(200, req.body, "text/plain"); },
             {.body = http::BodyPolicy::kBuffered});
  Metrics metrics;
  TransportOptions o = Options(1);
  o.quickack = quickack;
  Transport t(o, router, metrics);
  if (!t.Bind().ok()) return -1;
  std::thread runner([&] { (void)t.Run(); });
  double ms = SplitPosts(t.port(), 10);
  t.RequestStop();
  runner.join();
  return ms;
}

// A body that is still on its way is acknowledged at once, so a client
// that holds it back until its header is acknowledged does not wait for
// the kernel's delayed acknowledgement (40 ms and more) on every request.
// The run without quick acknowledgement shows that this client does meet
// the delay here, so the first bound is not met by chance.
TEST(Transport, BodyAfterItsHeaderIsAcknowledgedAtOnce) {
  const double quick = SplitPostsMs(true);
  const double delayed = SplitPostsMs(false);
  ASSERT_GE(quick, 0);
  ASSERT_GE(delayed, 0);
  EXPECT_GT(delayed, 10 * 20.0) << "10 split requests without TCP_QUICKACK";
  EXPECT_LT(quick, 10 * 10.0) << "10 split requests with TCP_QUICKACK";
}

// A body of `pieces` pieces of "abc…" (each `piece` bytes), counting the
// reads the transport makes. With `tells`, it reports the end through
// Exhausted(); with `sized`, it has a Content-Length.
class CountingSource final : public http::BodySource {
 public:
  CountingSource(int pieces, size_t piece, bool tells, bool sized, std::atomic<int>& reads)
      : left_(pieces),
        piece_(piece),
        total_(static_cast<uint64_t>(pieces) * piece),
        tells_(tells),
        sized_(sized),
        reads_(reads) {}
  std::optional<uint64_t> Size() const override {
    return sized_ ? std::optional<uint64_t>(total_) : std::nullopt;
  }
  Result<size_t> Read(char* buf, size_t cap) override {
    ++reads_;
    if (left_ == 0) return size_t{0};
    --left_;
    const size_t n = std::min(cap, piece_);  // the first block is large enough here
    for (size_t i = 0; i < n; ++i) buf[i] = static_cast<char>('a' + i % 26);
    return n;
  }
  bool Exhausted() const override { return tells_ && left_ == 0; }

 private:
  int left_;
  size_t piece_;
  uint64_t total_;
  bool tells_, sized_;
  std::atomic<int>& reads_;
};

// Serves GET /body with a source from `make` and returns the raw response
// to one request.
std::string RawGet(const std::function<std::unique_ptr<http::BodySource>()>& make) {
  http::Router router;
  router.Add("GET", "/body", [&](http::Request&) {
    http::Response r;
    r.source = make();
    return r;
  });
  Metrics metrics;
  Transport t(Options(1), router, metrics);
  std::string got;
  if (!t.Bind().ok()) return got;
  std::thread runner([&] { (void)t.Run(); });
  int fd = Connect(t.port());
  if (fd >= 0) {
    std::string req = "GET /body HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      std::vector<char> buf(1 << 16);
      for (ssize_t k; (k = read(fd, buf.data(), buf.size())) > 0;) {
        got.append(buf.data(), static_cast<size_t>(k));
      }
    }
    close(fd);
  }
  t.RequestStop();
  runner.join();
  return got;
}

// Runs one GET of a CountingSource body; returns the raw response and sets
// `reads` to the number of Read calls the transport made.
std::string CountedBody(int pieces, bool tells, bool sized, int& reads) {
  std::atomic<int> n{0};
  std::string got =
      RawGet([&] { return std::make_unique<CountingSource>(pieces, 1000, tells, sized, n); });
  reads = n.load();
  return got;
}

// The body of a chunked response in `raw`, or "!" when the framing is
// broken or the last chunk is missing.
std::string Dechunk(const std::string& raw) {
  size_t at = raw.find("\r\n\r\n");
  if (at == std::string::npos) return "!";
  at += 4;
  std::string body;
  for (;;) {
    const size_t eol = raw.find("\r\n", at);
    if (eol == std::string::npos) return "!";
    const size_t len = std::stoul(raw.substr(at, eol - at), nullptr, 16);
    at = eol + 2;
    if (len == 0) return raw.compare(at, std::string::npos, "\r\n") == 0 ? body : "!";
    if (raw.size() < at + len + 2) return "!";
    body += raw.substr(at, len);
    at += len + 2;
  }
}

// A source that can tell it has ended is not read once more for an empty
// piece (each read is a hop to the blocking pool): its last piece goes out
// with the chunked body's end. One that cannot is read until it answers 0,
// and a sized body ends at its Content-Length either way.
TEST(Transport, BodyEndsWithoutAnEmptyReadWhenTheSourceTells) {
  std::string piece;
  for (size_t i = 0; i < 1000; ++i) piece += static_cast<char>('a' + i % 26);
  const std::string whole = piece + piece + piece;

  int reads = 0;
  std::string raw = CountedBody(3, true, false, reads);
  EXPECT_NE(raw.find("Transfer-Encoding: chunked"), std::string::npos) << raw.substr(0, 200);
  EXPECT_EQ(Dechunk(raw), whole);
  EXPECT_EQ(reads, 3);

  raw = CountedBody(3, false, false, reads);
  EXPECT_EQ(Dechunk(raw), whole);
  EXPECT_EQ(reads, 4);

  raw = CountedBody(3, false, true, reads);
  const size_t at = raw.find("\r\n\r\n");
  ASSERT_NE(at, std::string::npos);
  EXPECT_NE(raw.find("Content-Length: 3000"), std::string::npos) << raw.substr(0, 200);
  EXPECT_EQ(raw.substr(at + 4), whole);
  EXPECT_EQ(reads, 3);
}

// A generated body of `total` bytes that fills every block it is given;
// counts its reads. `fail_first`: the first read fails.
class FillingSource final : public http::BodySource {
 public:
  FillingSource(size_t total, std::optional<uint64_t> hint, bool fail_first,
                std::atomic<int>& reads)
      : left_(total), hint_(hint), fail_first_(fail_first), reads_(reads) {}
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  std::optional<uint64_t> SizeHint() const override { return hint_; }
  Result<size_t> Read(char* buf, size_t cap) override {
    if (reads_++ == 0 && fail_first_) return Status::Unavailable("the listing's store is gone");
    const size_t n = std::min(cap, left_);
    std::memset(buf, 'x', n);
    left_ -= n;
    return n;
  }
  bool Exhausted() const override { return left_ == 0; }

 private:
  size_t left_;
  std::optional<uint64_t> hint_;
  bool fail_first_;
  std::atomic<int>& reads_;
};

// One GET of a FillingSource body: the raw response, and its reads.
std::string FilledBody(size_t total, std::optional<uint64_t> hint, bool fail_first, int& reads) {
  std::atomic<int> n{0};
  std::string got =
      RawGet([&] { return std::make_unique<FillingSource>(total, hint, fail_first, n); });
  reads = n.load();
  return got;
}

// The first piece of a generated body is read with the handler, before
// any header leaves: a body it holds whole goes out with its length, and
// a failure there is an error response, not a 200 cut short.
TEST(Transport, AGeneratedBodysFirstPieceDecidesTheHeaders) {
  int reads = 0;
  std::string raw = FilledBody(5000, std::nullopt, false, reads);
  EXPECT_EQ(raw.rfind("HTTP/1.1 200", 0), 0u) << raw.substr(0, 200);
  EXPECT_NE(raw.find("Content-Length: 5000\r\n"), std::string::npos) << raw.substr(0, 200);
  EXPECT_EQ(raw.find("chunked"), std::string::npos) << raw.substr(0, 200);
  EXPECT_EQ(raw.substr(raw.find("\r\n\r\n") + 4), std::string(5000, 'x'));
  EXPECT_EQ(reads, 1);

  raw = FilledBody(5000, std::nullopt, true, reads);
  EXPECT_EQ(raw.rfind("HTTP/1.1 503", 0), 0u) << raw.substr(0, 200);
  EXPECT_EQ(reads, 1);
}

// A source that knows its body is big starts in a big block: 300,000
// bytes in two reads (256 KiB, then the rest) instead of three (16 KiB,
// 256 KiB, the rest); a small hint never shrinks the first block.
TEST(Transport, ASizeHintSizesTheFirstBlock) {
  const std::string whole(300'000, 'x');
  int reads = 0;
  std::string raw = FilledBody(whole.size(), 300'000, false, reads);
  EXPECT_EQ(Dechunk(raw), whole);
  EXPECT_EQ(reads, 2);
  raw = FilledBody(whole.size(), std::nullopt, false, reads);
  EXPECT_EQ(Dechunk(raw), whole);
  EXPECT_EQ(reads, 3);
  raw = FilledBody(10'000, 100, false, reads);
  EXPECT_NE(raw.find("Content-Length: 10000\r\n"), std::string::npos) << raw.substr(0, 200);
  EXPECT_EQ(reads, 1);
}

}  // namespace
}  // namespace nubo::server
