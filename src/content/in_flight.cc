#include "content/in_flight.h"

namespace nubo::content {

InFlightChunks& InFlightChunks::Instance() {
  static InFlightChunks* const kInstance =
      new InFlightChunks();  // never destroyed: used until exit
  return *kInstance;
}

void InFlightChunks::Pin(const Blake3Digest& hash) {
  std::lock_guard lock(mu_);
  ++count_[hash];
}

void InFlightChunks::Unpin(const Blake3Digest& hash) {
  std::lock_guard lock(mu_);
  auto it = count_.find(hash);
  if (it != count_.end() && --it->second == 0) count_.erase(it);
}

bool InFlightChunks::Pinned(const Blake3Digest& hash) const {
  std::lock_guard lock(mu_);
  return count_.count(hash) != 0;
}

}  // namespace nubo::content
