// PasswordPool: the threads that run Argon2id, apart from the file I/O pool.
//
// Argon2id is made to be slow (~100 ms) and memory-hard (64 MiB a run):
// run on the shared blocking pool, a guessing storm would take every
// thread that file I/O needs. Here it runs on a few threads of its own, at
// a lower CPU priority (nice), behind a bounded queue: when the queue is
// full, a request fails at once (Unavailable → 503 with Retry-After)
// instead of waiting, so a storm costs at most `threads` cores at low
// priority and at most `threads + max_queue` waiting callers.
//
// Installed once by the server (Install); password.h's hashing and
// verification use it when installed and run inline otherwise (the
// command line). Thread-safe.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/status.h"

namespace nubo::auth {

struct PasswordPoolOptions {
  size_t threads = 1;
  size_t max_queue = 4;  // tasks waiting for a thread, beyond those running
  int nice = 10;         // added CPU niceness of the pool's threads (0: none)
};

class PasswordPool {
 public:
  explicit PasswordPool(PasswordPoolOptions options);
  ~PasswordPool();  // runs what is queued, then joins
  PasswordPool(const PasswordPool&) = delete;
  PasswordPool& operator=(const PasswordPool&) = delete;

  // Runs `fn` on the pool and waits for it. Unavailable at once when
  // max_queue tasks are already waiting.
  Status Run(const std::function<void()>& fn);
  // Queues `fn` without waiting (background work); false when full.
  bool Post(std::function<void()> fn);

  size_t queued() const;
  uint64_t refused() const;

  // The process's pool (null: run inline).
  static PasswordPool* Installed();
  static void Install(PasswordPool* pool);

 private:
  struct Task;
  void Loop();
  bool Push(std::shared_ptr<Task> t);

  PasswordPoolOptions opt_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Task>> queue_;
  bool stop_ = false;
  uint64_t refused_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace nubo::auth
