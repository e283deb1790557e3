#include "auth/rate_limiter.h"

namespace nubo::auth {

std::optional<int64_t> FailureLimiter::RetryAfter(const std::string& key, int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end() || it->second.locked_until_ms <= now_ms) return std::nullopt;
  return (it->second.locked_until_ms - now_ms + 999) / 1000;
}

void FailureLimiter::RecordFailure(const std::string& key, int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) {
    order_.push_front(key);
    it = slots_.emplace(key, Slot{0, 0, order_.begin()}).first;
    while (slots_.size() > opt_.max_keys) {
      slots_.erase(order_.back());
      order_.pop_back();
    }
  } else {
    order_.splice(order_.begin(), order_, it->second.age);
  }
  Slot& s = it->second;
  if (s.locked_until_ms != 0 && s.locked_until_ms <= now_ms) s.failures = 0;  // window over
  if (++s.failures >= opt_.max_failures) s.locked_until_ms = now_ms + opt_.lockout_ms;
}

void FailureLimiter::RecordSuccess(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return;
  order_.erase(it->second.age);
  slots_.erase(it);
}

}  // namespace nubo::auth
