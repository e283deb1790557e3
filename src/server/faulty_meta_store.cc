#include "server/faulty_meta_store.h"

namespace nubo::server {

Status FaultyMetaStore::Write(const std::function<Status(meta::WriteTxn&)>& fn) {
  const blob::FaultPlan::Fault f = plan_.Next();
  if (f == blob::FaultPlan::Fault::kNone) return inner_.Write(fn);
  // The body runs (so every statement is exercised), then the commit
  // "fails": returning an error makes the real store roll back.
  Status injected = f == blob::FaultPlan::Fault::kEnospc
                        ? Status::ResourceExhausted("database or disk is full (injected)")
                    : f == blob::FaultPlan::Fault::kEio
                        ? Status::IoError("disk I/O error (injected)")
                        : Status::Unavailable("database is locked (injected)");
  return inner_.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_RETURN_IF_ERROR(fn(txn));
    return injected;
  });
}

}  // namespace nubo::server
