// Sign-in lockouts shared by every process that serves one store: the
// failures each process counts (auth/rate_limiter.h) are added up in the
// sign_in_failures table, and what the others counted comes back into each
// process's limiter. Several nodes behind a balancer then lock an address
// as one server would (a guesser gets no more tries by spreading them),
// and a restart does not forget a lockout.
//
// The request path never waits for the store: the limiter answers from
// memory, and Run (called twice a second by the server's upkeep loop)
// writes what changed here in one transaction and reads the rows others
// wrote since the last run. A lockout reaches the other nodes within
// about two runs. A success forgets a key's failures everywhere, except a
// lock, which holds until it ends on every node.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "auth/rate_limiter.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::auth {

class LockoutSync {
 public:
  LockoutSync(meta::MetaStore& meta, FailureLimiter& limiter) : meta_(meta), limiter_(limiter) {}

  // Pushes this process's changes, then pulls everyone's recent rows.
  // On failure the changes are kept for the next run. Thread-safe (one
  // run at a time).
  Status Run(int64_t now_ms);

 private:
  std::mutex mu_;
  meta::MetaStore& meta_;
  FailureLimiter& limiter_;
  std::unordered_map<std::string, FailureLimiter::Change> pending_;
  int64_t pulled_ms_ = 0;  // rows written at or after pulled_ms_ - kOverlapMs are read
  int64_t purged_ms_ = 0;
};

}  // namespace nubo::auth
