// Long-lived helper processes (the media helper's "serve" mode) with the
// bounds of jobs/isolate.h: the decoders' libraries load once per process
// instead of once per file (process start-up costs more than a thumbnail),
// and each request still has a wall-clock deadline after which its process
// is killed and replaced. A process is also replaced after a number of
// requests and whenever it answers out of protocol, so what one hostile file
// did to a process cannot outlive a few more requests. Thread-safe.
//
// Protocol (one line each way): the request's fields joined by tabs, and
// the answer "<status>\t<message>", status as the one-shot helper's exit
// status (src/derive/main.cc).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jobs/isolate.h"
#include "util/status.h"

namespace nubo::jobs {

struct HelperPoolOptions {
  std::vector<std::string> argv;  // the helper and its arguments ("serve")
  IsolateLimits limits;           // per request: wall_ms, cpu_seconds; per process: the rest
  size_t max_processes = 2;
  int requests_per_process = 100;
};

class HelperPool {
 public:
  explicit HelperPool(HelperPoolOptions options);
  ~HelperPool();  // kills the processes
  HelperPool(const HelperPool&) = delete;
  HelperPool& operator=(const HelperPool&) = delete;

  // One request. exit_code is the helper's status; timed_out and signal
  // say how a process that did not answer ended. Errors: no helper could
  // be started.
  Result<IsolateResult> Run(const std::vector<std::string>& fields);

  uint64_t started() const;  // processes started so far (tests)

 private:
  struct Proc;
  Result<std::unique_ptr<Proc>> Start();
  void Retire(std::unique_ptr<Proc> p);

  HelperPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Proc>> idle_;
  size_t live_ = 0;
  uint64_t started_ = 0;
};

}  // namespace nubo::jobs
