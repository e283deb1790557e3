// A countdown fault plan for fault-injection tests: "succeed N operations,
// then fail" (after SQLite's testvfs and LevelDB's SpecialEnv). Stores
// consult it at each fault point. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>

namespace nubo::blob {

class FaultPlan {
 public:
  enum class Fault { kNone, kEnospc, kEio, kShortWrite };

  // The next `succeed` fault points pass; the one after fails with `fault`
  // (and, if `sticky`, every later one too).
  void Arm(uint64_t succeed, Fault fault, bool sticky = false) {
    std::lock_guard lock(mu_);
    countdown_ = succeed;
    fault_ = fault;
    sticky_ = sticky;
    armed_ = true;
  }
  void Disarm() {
    std::lock_guard lock(mu_);
    armed_ = false;
  }
  // Called at each fault point: the fault to inject now.
  Fault Next() {
    std::lock_guard lock(mu_);
    ++points_;
    if (!armed_) return Fault::kNone;
    if (countdown_ > 0) {
      --countdown_;
      return Fault::kNone;
    }
    ++fired_;
    if (!sticky_) armed_ = false;
    return fault_;
  }
  uint64_t fired() const {
    std::lock_guard lock(mu_);
    return fired_;
  }
  uint64_t points() const {
    std::lock_guard lock(mu_);
    return points_;
  }

 private:
  mutable std::mutex mu_;
  bool armed_ = false;
  bool sticky_ = false;
  uint64_t countdown_ = 0;
  uint64_t fired_ = 0;
  uint64_t points_ = 0;
  Fault fault_ = Fault::kNone;
};

}  // namespace nubo::blob
