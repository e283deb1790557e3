#include "jobs/runner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "util/time.h"

namespace nubo::jobs {

Runner::Runner(meta::MetaStore& meta, RunnerOptions options) : meta_(meta), options_(options) {}

Runner::~Runner() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void Runner::Handle(std::string kind, Handler handler) {
  handlers_.emplace(std::move(kind), std::move(handler));
}

void Runner::Start() {
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    threads_.emplace_back([this] { Loop(); });
  }
}

void Runner::Wake() {
  {
    std::lock_guard lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

Result<bool> Runner::RunOne(bool look_first) {
  const int64_t now = UnixMillis();
  if (look_first) {
    bool due = false;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(due, t.JobDue(now));
      return Status::Ok();
    }));
    if (!due) return false;
  }
  std::optional<meta::JobRow> job;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(job, t.ClaimJob(now, options_.lease_ms));
    return Status::Ok();
  }));
  if (!job) return false;  // another worker took it
  Status st;
  auto h = handlers_.find(job->kind);
  if (h == handlers_.end()) {
    st = Status::Unsupported("no handler for jobs of kind " + job->kind);
  } else {
    st = h->second(*job);
  }
  // Nothing to retry: the node is gone, or its content is not what the
  // handler can read.
  const bool final_error = st.code() == Code::kNotFound || st.code() == Code::kInvalidArgument;
  if (st.ok() || final_error) {
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) { return t.FinishJob(*job); }));
    done_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  int64_t retry_at;
  if (job->attempts >= options_.max_attempts) {
    retry_at = INT64_MAX / 2;  // parked: listed as failing, never taken again
  } else {
    int64_t backoff = options_.first_backoff_ms << std::min<int64_t>(job->attempts - 1, 20);
    retry_at = UnixMillis() + std::min<int64_t>(backoff, 3600 * 1000);
  }
  failed_.fetch_add(1, std::memory_order_relaxed);
  NUBO_RETURN_IF_ERROR(
      meta_.Write([&](meta::WriteTxn& t) { return t.FailJob(*job, st.ToString(), retry_at); }));
  return true;
}

Result<int64_t> Runner::Drain() {
  int64_t ran = 0;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool any, RunOne(/*look_first=*/ran == 0));
    if (!any) return ran;
    ++ran;
  }
}

void Runner::Loop() {
  // Per-thread niceness (Linux): background work yields to requests.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), options_.nice);
  std::unique_lock lock(mu_);
  bool streak = false;  // the last attempt ran a job
  while (!stop_) {
    lock.unlock();
    auto ran = RunOne(/*look_first=*/!streak);
    lock.lock();
    if (stop_) break;
    streak = ran.ok() && *ran;
    if (streak) continue;
    // A database error: logged, tried again after a poll.
    if (!ran.ok()) spdlog::warn("jobs: {}", ran.status().ToString());
    cv_.wait_for(lock, std::chrono::milliseconds(options_.idle_poll_ms),
                 [&] { return stop_ || wake_; });
    wake_ = false;
  }
}

}  // namespace nubo::jobs
