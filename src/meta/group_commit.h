// Group commit (both engines): writers that arrive while a commit is in
// progress wait, and the next of them to run commits all waiting writes
// together, so N concurrent uploads pay for one durable commit (one WAL
// fsync) instead of N. Each caller still returns only after the commit
// that holds its write was durable, or with the error that kept it out.
//
// Generic over the work: `run_batch` gets every queued item and fills each
// one's result. Thread-safe; Submit blocks its caller until its item ran.
// `before_take`, when given, runs in the leader before it takes the queue:
// an engine that may have to wait before it can write (a lock that another
// process holds) waits there, and the writers that arrive meanwhile join
// this batch rather than wait for the next.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "util/status.h"

namespace nubo::meta {

template <typename Item>
class GroupCommit {
 public:
  struct Entry {
    Item item;
    Status result;
    bool done = false;
  };
  using RunBatch = std::function<void(std::vector<Entry*>& batch)>;

  explicit GroupCommit(RunBatch run_batch, std::function<void()> before_take = nullptr)
      : run_batch_(std::move(run_batch)), before_take_(std::move(before_take)) {}

  // Queues `item` and returns its result. The caller either leads a batch
  // (runs run_batch for everything queued, its own item included) or
  // waits for a leader to run it.
  Status Submit(Item item) {
    Entry me{std::move(item), Status::Ok(), false};
    std::unique_lock lock(mu_);
    queue_.push_back(&me);
    while (!me.done) {
      if (leading_) {
        cv_.wait(lock);
        continue;
      }
      leading_ = true;
      if (before_take_) {
        lock.unlock();
        // It must not throw either; if it does, run_batch finds nothing
        // prepared and answers with an error.
        try {
          before_take_();
        } catch (...) {
        }
        lock.lock();
      }
      std::vector<Entry*> batch;
      batch.swap(queue_);
      lock.unlock();
      try {
        run_batch_(batch);
      } catch (...) {
        // run_batch must not throw; if it does, no item may pass for
        // committed, and the queue must not stall behind a lost leader.
        for (Entry* e : batch) e->result = Status::Internal("group commit failed");
      }
      lock.lock();
      for (Entry* e : batch) e->done = true;
      ++batches_;
      items_ += batch.size();
      leading_ = false;
      cv_.notify_all();
    }
    return me.result;
  }

  // Items queued behind the running batch.
  size_t waiting() const {
    std::lock_guard lock(mu_);
    return queue_.size();
  }
  // Batches run and items they held, for tests and metrics.
  size_t batches() const {
    std::lock_guard lock(mu_);
    return batches_;
  }
  size_t items() const {
    std::lock_guard lock(mu_);
    return items_;
  }

 private:
  RunBatch run_batch_;
  std::function<void()> before_take_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry*> queue_;  // waiting, not yet in a batch
  bool leading_ = false;       // a batch is running
  size_t batches_ = 0, items_ = 0;
};

}  // namespace nubo::meta
