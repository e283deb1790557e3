// When this process next asks for the maintenance lease. Every process of
// an installation asks every few seconds, so that a sweep falls to one of
// them soon after it is due; the one that has just swept does not ask
// again until its own interval has passed since that sweep ended. The
// lease row says so too, but only once its release is committed: a
// release that failed (a write error) leaves this process the holder, and
// a holder may always renew — without this, it would sweep again at every
// check until a release went through.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nubo::server {

class SweepSchedule {
 public:
  SweepSchedule(int64_t interval_ms, int64_t check_ms, int64_t start_ms)
      : interval_ms_(interval_ms), check_ms_(check_ms), next_ms_(start_ms) {}

  bool Due(int64_t now_ms) const { return now_ms >= next_ms_; }
  // Asked at `now_ms` and did not get the lease (or asked and swept:
  // Swept follows).
  void Asked(int64_t now_ms) { next_ms_ = now_ms + std::min(interval_ms_, check_ms_); }
  // This process's sweep ended at `ended_ms`.
  void Swept(int64_t ended_ms) { next_ms_ = std::max(next_ms_, ended_ms + interval_ms_); }
  int64_t next_ms() const { return next_ms_; }

 private:
  int64_t interval_ms_, check_ms_, next_ms_;
};

}  // namespace nubo::server
