#include "dav/poll_cache.h"

#include "meta/meta_store.h"
#include "util/time.h"

namespace nubo::dav {

namespace {

size_t CostOf(const std::string& key, const http::Headers& h, const std::string& body) {
  size_t n = 2 * key.size() + body.size() + 128;  // the key is kept twice (map, order)
  for (const auto& [name, value] : h.fields()) n += name.size() + value.size() + 64;
  return n;
}

}  // namespace

PollCache::PollCache(meta::MetaStore& meta, size_t max_bytes, int64_t (*now_ms)())
    : meta_(meta), max_bytes_(max_bytes), now_ms_(now_ms ? now_ms : MonotonicMillis) {}

std::optional<uint64_t> PollCache::Stamp() { return meta_.ChangeStamp(); }

std::optional<http::Response> PollCache::Find(const std::string& key, uint64_t stamp) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (it->second.stamp != stamp || now_ms_() - it->second.kept_ms >= kMaxAgeMs) {
    Drop(it);
    return std::nullopt;
  }
  http::Response r;
  r.status = it->second.status;
  r.headers = it->second.headers;
  r.body = it->second.body;
  hits_.fetch_add(1, std::memory_order_relaxed);
  return r;
}

void PollCache::Store(const std::string& key, uint64_t stamp, const http::Response& r) {
  if (r.source || key.size() > kMaxKey || r.body.size() > kMaxBody) return;
  const size_t cost = CostOf(key, r.headers, r.body);
  if (cost > max_bytes_) return;
  std::lock_guard lock(mu_);
  if (auto it = entries_.find(key); it != entries_.end()) {
    // Stamps only grow: an answer read earlier never replaces a newer one.
    if (it->second.stamp > stamp) return;
    Drop(it);
  }
  while (bytes_ + cost > max_bytes_ && !order_.empty()) Drop(entries_.find(order_.front()));
  order_.push_back(key);
  Entry& e = entries_[key];
  e.stamp = stamp;
  e.kept_ms = now_ms_();
  e.status = r.status;
  e.headers = r.headers;
  e.body = r.body;
  e.cost = cost;
  e.order = std::prev(order_.end());
  bytes_ += cost;
}

size_t PollCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

void PollCache::Drop(std::unordered_map<std::string, Entry>::iterator it) {
  bytes_ -= it->second.cost;
  order_.erase(it->second.order);
  entries_.erase(it);
}

}  // namespace nubo::dav
