// The background job runner (ARCHITECTURE.md §6): workers that take due
// jobs from the MetaStore's queue (meta: jobs), run the handler registered
// for their kind and retire them, or put them back with a backoff. All state
// is in the database: a worker holds a job by a lease, so a process killed
// mid-job leaves it to be taken again when the lease lapses, and several
// processes on one database share the queue. Handlers must be idempotent
// (a job whose lease lapsed may run twice; its visible effect must not
// differ). Workers run at a lower priority so uploads and listings keep
// their latency while a library is indexed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::jobs {

struct RunnerOptions {
  int workers = 1;
  int64_t lease_ms = 10 * 60 * 1000;  // longer than any handler may take
  int64_t idle_poll_ms = 1000;        // how soon new work is noticed
  int max_attempts = 5;               // then the job is parked (visible, not retried)
  int64_t first_backoff_ms = 5000;    // doubled per attempt, at most an hour
  int nice = 10;
};

class Runner {
 public:
  // Ok: done. An error: retried later (a NotFound or InvalidArgument is
  // final: there is nothing to retry, the job is retired).
  using Handler = std::function<Status(const meta::JobRow&)>;

  Runner(meta::MetaStore& meta, RunnerOptions options);
  ~Runner();  // stops and joins the workers (a job in hand finishes first)
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Register every handler before Start.
  void Handle(std::string kind, Handler handler);
  void Start();
  // New work may be due: idle workers look now instead of at their next poll.
  void Wake();

  uint64_t done() const { return done_.load(std::memory_order_relaxed); }
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }

  // Runs due jobs on the calling thread until none is due (tests, `nubo
  // jobs run`). Returns how many ran.
  Result<int64_t> Drain();

 private:
  // One attempt at one job; false when none was due. With `look_first`
  // a read transaction asks whether any job is due before the writer lock
  // is taken to claim one, so that idle polls write nothing; right after a
  // job ran the next is likely due, and the claim goes first (on
  // PostgreSQL that read is three round trips per job).
  Result<bool> RunOne(bool look_first);
  void Loop();

  meta::MetaStore& meta_;
  RunnerOptions options_;
  std::map<std::string, Handler, std::less<>> handlers_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool wake_ = false;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> done_{0}, failed_{0};
};

}  // namespace nubo::jobs
