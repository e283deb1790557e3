#include "auth/rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace nubo::auth {

std::optional<int64_t> FailureLimiter::RetryAfter(const std::string& key, int64_t now_ms) {
  if (tracked_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end() || it->second.locked_until_ms <= now_ms) return std::nullopt;
  return (it->second.locked_until_ms - now_ms + 999) / 1000;
}

FailureLimiter::Slot& FailureLimiter::Touch(const std::string& key) {
  auto it = slots_.find(key);
  if (it == slots_.end()) {
    order_.push_front(key);
    it = slots_.emplace(key, Slot{0, 0, order_.begin()}).first;
    while (slots_.size() > opt_.max_keys) {
      slots_.erase(order_.back());
      order_.pop_back();
    }
    tracked_.store(slots_.size(), std::memory_order_relaxed);
  } else {
    order_.splice(order_.begin(), order_, it->second.age);
  }
  return it->second;
}

void FailureLimiter::RecordFailure(const std::string& key, int64_t now_ms, int max_failures) {
  if (max_failures <= 0) max_failures = opt_.max_failures;
  std::lock_guard lock(mu_);
  Slot& s = Touch(key);
  if (s.locked_until_ms != 0 && s.locked_until_ms <= now_ms) {
    s.failures = 0;  // window over
    s.locked_until_ms = 0;
  }
  if (++s.failures >= max_failures && s.locked_until_ms == 0) {
    s.locked_until_ms = now_ms + opt_.lockout_ms;
  }
  if (changes_.size() < opt_.max_keys || changes_.count(key)) {
    Change& c = changes_[key];
    ++c.failures;
    c.max_failures = max_failures;
    c.last_ms = std::max(c.last_ms, now_ms);
  }
}

std::unordered_map<std::string, FailureLimiter::Change> FailureLimiter::TakeChanges() {
  std::lock_guard lock(mu_);
  return std::exchange(changes_, {});
}

void FailureLimiter::Absorb(const std::string& key, int failures, int64_t locked_until_ms) {
  std::lock_guard lock(mu_);
  Slot& s = Touch(key);
  s.failures = std::max(s.failures, failures);
  s.locked_until_ms = std::max(s.locked_until_ms, locked_until_ms);
}

void FailureLimiter::RecordSuccess(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return;
  if (changes_.size() < opt_.max_keys || changes_.count(key)) changes_[key] = Change{true, 0, 0, 0};
  order_.erase(it->second.age);
  slots_.erase(it);
  tracked_.store(slots_.size(), std::memory_order_relaxed);
}

namespace {
std::string IpKey(std::string_view ip) { return "ip:" + std::string(ip); }
// Usernames are ASCII (accounts.h) and compare case-insensitively.
std::string PairKey(std::string_view ip, std::string_view name) {
  std::string k = "user:";
  for (char c : name) k += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  k += '@';
  k += ip;
  return k;
}
}  // namespace

std::optional<int64_t> FailureLimiter::SignInRetryAfter(std::string_view ip, std::string_view username,
                                                        int64_t now_ms) {
  if (tracked_.load(std::memory_order_relaxed) == 0) return std::nullopt;
  auto a = RetryAfter(IpKey(ip), now_ms);
  auto b = RetryAfter(PairKey(ip, username), now_ms);
  if (a && b) return std::max(*a, *b);
  return a ? a : b;
}

void FailureLimiter::SignInFailed(std::string_view ip, std::string_view username, int64_t now_ms) {
  {
    std::lock_guard lock(mu_);
    RecentFailures(now_ms);
    recent_failures_ += 1;
    recent_any_.store(true, std::memory_order_relaxed);
  }
  RecordFailure(IpKey(ip), now_ms, opt_.max_failures * std::max(1, opt_.address_factor));
  RecordFailure(PairKey(ip, username), now_ms);
}

double FailureLimiter::RecentFailures(int64_t now_ms) {
  if (now_ms > recent_at_ms_) {
    recent_failures_ *= std::exp(-static_cast<double>(now_ms - recent_at_ms_) / 60'000.0);
    recent_at_ms_ = now_ms;
    if (recent_failures_ < 0.5) recent_any_.store(false, std::memory_order_relaxed);
  }
  return recent_failures_;
}

Admission FailureLimiter::AdmitPasswordCheck(std::string_view ip, std::string_view username,
                                             int64_t now_ms, int64_t* retry_after_s) {
  if (opt_.suspect_rate <= 0 || (tracked_.load(std::memory_order_relaxed) == 0 &&
                                 !recent_any_.load(std::memory_order_relaxed))) {
    return Admission::kRun;
  }
  std::lock_guard lock(mu_);
  auto failed = [&](const std::string& key, int at_least) {
    auto it = slots_.find(key);
    return it != slots_.end() && it->second.failures >= at_least &&
           (it->second.locked_until_ms == 0 || it->second.locked_until_ms > now_ms);
  };
  const int n = std::max(1, opt_.suspect_failures);
  const bool suspect = failed(IpKey(ip), n * std::max(1, opt_.address_factor)) ||
                       failed(PairKey(ip, username), n);
  const bool attack = opt_.attack_failures > 0 && RecentFailures(now_ms) >= opt_.attack_failures;
  if (!suspect && !attack) return Admission::kRun;
  // A token bucket shared by every such attempt.
  if (suspect_tokens_ < 0) suspect_tokens_ = opt_.suspect_burst;
  suspect_tokens_ = std::min(opt_.suspect_burst,
                             suspect_tokens_ + (now_ms - suspect_at_ms_) / 1000.0 * opt_.suspect_rate);
  suspect_at_ms_ = now_ms;
  if (suspect_tokens_ >= 1) {
    suspect_tokens_ -= 1;
    return Admission::kRun;
  }
  if (retry_after_s) {
    *retry_after_s = static_cast<int64_t>((1 - suspect_tokens_) / opt_.suspect_rate) + 1;
  }
  return suspect ? Admission::kThrottled : Admission::kBusy;
}

void FailureLimiter::CheckRefused(int64_t now_ms) {
  std::lock_guard lock(mu_);
  RecentFailures(now_ms);
  recent_failures_ += 1;
  recent_any_.store(true, std::memory_order_relaxed);
}

void FailureLimiter::SignInSucceeded(std::string_view ip, std::string_view username) {
  if (tracked_.load(std::memory_order_relaxed) == 0) return;
  RecordSuccess(PairKey(ip, username));
}

}  // namespace nubo::auth
