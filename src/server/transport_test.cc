#include "server/transport.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>

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

// One GET on a new connection; returns the body ("" on any failure).
std::string Get(uint16_t port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string got;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    if (write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
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

}  // namespace
}  // namespace nubo::server
