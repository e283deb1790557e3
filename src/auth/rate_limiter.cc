#include "auth/rate_limiter.h"

#include <algorithm>

namespace nubo::auth {

std::optional<int64_t> FailureLimiter::RetryAfter(const std::string& key, int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end() || it->second.locked_until_ms <= now_ms) return std::nullopt;
  return (it->second.locked_until_ms - now_ms + 999) / 1000;
}

void FailureLimiter::RecordFailure(const std::string& key, int64_t now_ms, int max_failures) {
  if (max_failures <= 0) max_failures = opt_.max_failures;
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
  if (++s.failures >= max_failures) s.locked_until_ms = now_ms + opt_.lockout_ms;
}

void FailureLimiter::RecordSuccess(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return;
  order_.erase(it->second.age);
  slots_.erase(it);
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
  auto a = RetryAfter(IpKey(ip), now_ms);
  auto b = RetryAfter(PairKey(ip, username), now_ms);
  if (a && b) return std::max(*a, *b);
  return a ? a : b;
}

void FailureLimiter::SignInFailed(std::string_view ip, std::string_view username, int64_t now_ms) {
  RecordFailure(IpKey(ip), now_ms, opt_.max_failures * std::max(1, opt_.address_factor));
  RecordFailure(PairKey(ip, username), now_ms);
}

void FailureLimiter::SignInSucceeded(std::string_view ip, std::string_view username) {
  RecordSuccess(PairKey(ip, username));
}

}  // namespace nubo::auth
