#include "auth/lockout_sync.h"

#include <algorithm>
#include <vector>

namespace nubo::auth {

namespace {
// Rows are stamped with the writer's clock: reading a little further back
// than the last run covers clocks a few seconds apart (absorbing a row
// twice changes nothing).
constexpr int64_t kOverlapMs = 10'000;
constexpr size_t kPullLimit = 10'000;
constexpr int64_t kPurgeEveryMs = 10 * 60'000;
}  // namespace

Status LockoutSync::Run(int64_t now_ms) {
  std::lock_guard lock(mu_);
  for (auto& [key, c] : limiter_.TakeChanges()) {
    auto& p = pending_[key];
    if (c.cleared) p = FailureLimiter::Change{true, 0, 0, 0};
    p.failures += c.failures;
    if (c.max_failures > 0) p.max_failures = c.max_failures;
    p.last_ms = std::max(p.last_ms, c.last_ms);
  }
  const LimiterOptions& o = limiter_.options();
  if (!pending_.empty() || now_ms - purged_ms_ >= kPurgeEveryMs) {
    std::vector<meta::SignInFailureRow> stored;
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
      stored.clear();
      for (const auto& [key, c] : pending_) {
        if (c.cleared) NUBO_RETURN_IF_ERROR(txn.ClearSignInFailures(key, now_ms));
        if (c.failures > 0) {
          NUBO_ASSIGN_OR_RETURN(auto row, txn.AddSignInFailures(key, c.failures, c.max_failures,
                                                                o.lockout_ms, c.last_ms));
          stored.push_back(std::move(row));
        }
      }
      if (now_ms - purged_ms_ >= kPurgeEveryMs) {
        // A row outlives its lock and the window in which its failures
        // still count towards one.
        NUBO_RETURN_IF_ERROR(
            txn.PurgeSignInFailures(now_ms - std::max<int64_t>(o.lockout_ms, 3'600'000), now_ms)
                .status());
      }
      return Status::Ok();
    }));
    if (now_ms - purged_ms_ >= kPurgeEveryMs) purged_ms_ = now_ms;
    pending_.clear();
    for (const auto& r : stored) {
      limiter_.Absorb(r.key, static_cast<int>(r.failures), r.locked_until_ms);
    }
  }
  std::vector<meta::SignInFailureRow> rows;
  const int64_t since = pulled_ms_ == 0 ? now_ms - std::max<int64_t>(o.lockout_ms, kOverlapMs)
                                        : pulled_ms_ - kOverlapMs;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(rows, txn.SignInFailuresSince(since, kPullLimit));
    return Status::Ok();
  }));
  pulled_ms_ = now_ms;
  for (const auto& r : rows) {
    // A row whose lock ended long ago says nothing a new failure would
    // not restart anyway.
    if (r.locked_until_ms != 0 && r.locked_until_ms <= now_ms) continue;
    limiter_.Absorb(r.key, static_cast<int>(r.failures), r.locked_until_ms);
  }
  return Status::Ok();
}

}  // namespace nubo::auth
