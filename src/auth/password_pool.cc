#include "auth/password_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace nubo::auth {

namespace {
std::atomic<PasswordPool*> g_installed{nullptr};
}  // namespace

struct PasswordPool::Task {
  std::function<void()> fn;
  bool done = false;
  std::mutex mu;
  std::condition_variable cv;
};

PasswordPool::PasswordPool(PasswordPoolOptions options) : opt_(options) {
  if (opt_.threads == 0) opt_.threads = 1;
  for (size_t i = 0; i < opt_.threads; ++i) threads_.emplace_back([this] { Loop(); });
}

PasswordPool::~PasswordPool() {
  if (Installed() == this) Install(nullptr);
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void PasswordPool::Loop() {
  // Lower this thread's priority only (Linux: a thread id is a process
  // id for setpriority), so uploads and listings keep the CPU under a
  // storm of sign-ins.
  if (opt_.nice > 0) {
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), opt_.nice);
  }
  for (;;) {
    std::shared_ptr<Task> t;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    t->fn();
    {
      std::lock_guard lock(t->mu);
      t->done = true;
    }
    t->cv.notify_all();
  }
}

bool PasswordPool::Push(std::shared_ptr<Task> t) {
  {
    std::lock_guard lock(mu_);
    if (stop_ || queue_.size() >= opt_.max_queue) {
      ++refused_;
      return false;
    }
    queue_.push_back(std::move(t));
  }
  cv_.notify_one();
  return true;
}

Status PasswordPool::Run(const std::function<void()>& fn) {
  auto t = std::make_shared<Task>();
  t->fn = fn;
  if (!Push(t)) {
    return Status::Unavailable("too many sign-ins are being checked right now; retry shortly");
  }
  std::unique_lock lock(t->mu);
  t->cv.wait(lock, [&] { return t->done; });
  return Status::Ok();
}

bool PasswordPool::Post(std::function<void()> fn) {
  auto t = std::make_shared<Task>();
  t->fn = std::move(fn);
  return Push(std::move(t));
}

size_t PasswordPool::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

uint64_t PasswordPool::refused() const {
  std::lock_guard lock(mu_);
  return refused_;
}

PasswordPool* PasswordPool::Installed() { return g_installed.load(); }
void PasswordPool::Install(PasswordPool* pool) { g_installed.store(pool); }

}  // namespace nubo::auth
