// A MetaStore wrapper for fault injection (test-only, `serve
// --enable-test-routes`): the Nth write transaction runs its body and then
// fails as a commit would (disk full, I/O error, database busy), so the
// real store rolls it back. Loops over N prove that every write path
// answers a clean error and leaves nothing half-done. Thread-safe.
#pragma once

#include "blob/fault_plan.h"
#include "meta/meta_store.h"

namespace nubo::server {

class FaultyMetaStore final : public meta::MetaStore {
 public:
  FaultyMetaStore(meta::MetaStore& inner, blob::FaultPlan& plan) : inner_(inner), plan_(plan) {}

  Status Read(const std::function<Status(meta::ReadTxn&)>& fn) override { return inner_.Read(fn); }
  Status Write(const std::function<Status(meta::WriteTxn&)>& fn) override;
  Result<int> SchemaVersion() override { return inner_.SchemaVersion(); }
  WriteStats Stats() const override { return inner_.Stats(); }

 private:
  meta::MetaStore& inner_;
  blob::FaultPlan& plan_;
};

}  // namespace nubo::server
