// A bounded pool of one engine's connections, opened on demand: Acquire
// waits while `max` are out, Release hands one back (or closes it, when it
// is no longer fit to use). Internal to meta.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "util/status.h"

namespace nubo::meta::sql {

template <typename C>
class Pool {
 public:
  using Opener = std::function<Result<std::unique_ptr<C>>()>;
  Pool(int max, Opener open) : max_(max), open_(std::move(open)) {}

  Result<std::unique_ptr<C>> Acquire() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty() || opened_ < max_; });
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    ++opened_;
    lock.unlock();
    auto c = open_();
    if (!c.ok()) {
      std::lock_guard relock(mu_);
      --opened_;
      cv_.notify_one();
    }
    return c;
  }

  // `keep`: false closes the connection (e.g. its server went away).
  void Release(std::unique_ptr<C> c, bool keep = true) {
    std::lock_guard lock(mu_);
    if (keep) {
      idle_.push_back(std::move(c));
    } else {
      --opened_;
    }
    cv_.notify_one();
  }

 private:
  const int max_;
  Opener open_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<C>> idle_;
  int opened_ = 0;
};

}  // namespace nubo::meta::sql
