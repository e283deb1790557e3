// Test helper: a MetaStore that runs every write twice, the way a write
// runs when its transaction is rolled back under it — another write of its
// group commit failed (SQLite), or PostgreSQL undid it — first in a
// transaction that is then rolled back, then for real. A callback that
// keeps something from its first run (a counter added to, a list appended
// to) answers differently than it does on the plain store.
#pragma once

#include <atomic>
#include <functional>

#include "meta/meta_store.h"

namespace nubo::meta {

class RerunningStore final : public MetaStore {
 public:
  explicit RerunningStore(MetaStore& inner) : inner_(inner) {}

  Status Read(const std::function<Status(ReadTxn&)>& fn) override { return inner_.Read(fn); }
  Status Write(const std::function<Status(WriteTxn&)>& fn) override {
    // Not Aborted: PostgreSQL would run that again itself.
    (void)inner_.Write([&](WriteTxn& t) -> Status {
      Status st = fn(t);
      return st.ok() ? Status::Unavailable("rolled back for the rerun") : st;
    });
    ++reruns_;
    return inner_.Write(fn);
  }
  Result<int> SchemaVersion() override { return inner_.SchemaVersion(); }
  WriteStats Stats() const override { return inner_.Stats(); }

  int reruns() const { return reruns_; }

 private:
  MetaStore& inner_;
  std::atomic<int> reruns_{0};
};

}  // namespace nubo::meta
