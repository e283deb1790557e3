#include "content/in_flight.h"

#include "util/time.h"

namespace nubo::content {

InFlightChunks& InFlightChunks::Instance() {
  static InFlightChunks* const kInstance =
      new InFlightChunks();  // never destroyed: used until exit
  return *kInstance;
}

void InFlightChunks::Pin(const Blake3Digest& hash) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return discarding_.count(hash) == 0; });
  Held& h = count_[hash];
  if (h.count++ == 0) h.since_ms = UnixMillis();
}

void InFlightChunks::Unpin(const Blake3Digest& hash) {
  std::lock_guard lock(mu_);
  auto it = count_.find(hash);
  if (it != count_.end() && --it->second.count == 0) count_.erase(it);
}

bool InFlightChunks::Pinned(const Blake3Digest& hash) const {
  std::lock_guard lock(mu_);
  return count_.count(hash) != 0;
}

std::optional<int64_t> InFlightChunks::OldestPinMs() const {
  std::lock_guard lock(mu_);
  std::optional<int64_t> oldest;
  for (const auto& [hash, held] : count_) {
    if (!oldest || held.since_ms < *oldest) oldest = held.since_ms;
  }
  return oldest;
}

std::vector<Blake3Digest> InFlightChunks::BeginDiscard(const std::vector<Blake3Digest>& hashes) {
  std::lock_guard lock(mu_);
  std::vector<Blake3Digest> out;
  for (const auto& h : hashes) {
    auto it = count_.find(h);
    if (it != count_.end() && it->second.count == 1 && discarding_.insert(h).second) {
      out.push_back(h);
    }
  }
  return out;
}

void InFlightChunks::EndDiscard(const std::vector<Blake3Digest>& hashes) {
  {
    std::lock_guard lock(mu_);
    for (const auto& h : hashes) discarding_.erase(h);
  }
  cv_.notify_all();
}

}  // namespace nubo::content
