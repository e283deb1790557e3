// The answers to sync clients' polls (PROPFIND Depth: 0 on an unchanged
// resource), kept while the metadata store says nothing changed.
//
// A desktop or phone client asks for the same few properties of the same
// folder every few seconds, and the answer only changes when a write
// commits. An entry is the whole response, keyed by everything the
// answer depends on besides the database (the caller as authenticated,
// the request target and the body; only Depth: 0 is kept) and stamped
// with the store's ChangeStamp taken before the answer was read; it
// answers only while the stamp is still the same, so a write of this
// server ends it before the write is answered, and one of another process
// within the store's bound (MetaStore::ChangeStamp; SQLite: 1 ms). What
// may change without a write (a lock's expiry, the If header's lock
// checks) is never cached: the handler decides (DavContext::poll_cacheable).
// What ends with the clock inside an answer the handler cannot see — a
// share or a link with an expiry date is filtered by the time of the read
// — is bounded instead: an entry answers for kMaxAgeMs at most.
//
// Bounded by bytes; the oldest entries leave first. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "http/response.h"

namespace nubo::meta {
class MetaStore;
}

namespace nubo::dav {

class PollCache {
 public:
  // `meta`: the store whose ChangeStamp the entries carry; it must have one.
  // `now_ms`: a monotonic clock in milliseconds (tests pass their own).
  PollCache(meta::MetaStore& meta, size_t max_bytes, int64_t (*now_ms)() = nullptr);

  // The store's stamp now (nullopt: none could be read; keep nothing).
  std::optional<uint64_t> Stamp();

  // Keys longer than this are not cached (a poll's body is a few hundred
  // bytes; a large one would crowd the others out).
  static constexpr size_t kMaxKey = 4096;
  static constexpr size_t kMaxBody = 16 << 10;
  // How long after it was kept an entry answers at most, whatever the
  // stamp: a grant that expired is gone from the polls within this.
  static constexpr int64_t kMaxAgeMs = 1000;

  // The answer stored under `key` at `stamp`, as it was stored.
  std::optional<http::Response> Find(const std::string& key, uint64_t stamp);
  // Keeps `r` (status, headers and body; never a streamed one).
  void Store(const std::string& key, uint64_t stamp, const http::Response& r);

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  size_t bytes() const;

 private:
  struct Entry {
    uint64_t stamp = 0;
    int64_t kept_ms = 0;  // now_ms_() when stored
    int status = 0;
    http::Headers headers;
    std::string body;
    size_t cost = 0;
    std::list<std::string>::iterator order;
  };

  void Drop(std::unordered_map<std::string, Entry>::iterator it);

  meta::MetaStore& meta_;
  const size_t max_bytes_;
  int64_t (*const now_ms_)();
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> order_;  // oldest first
  size_t bytes_ = 0;
  std::atomic<uint64_t> hits_{0};
};

}  // namespace nubo::dav
