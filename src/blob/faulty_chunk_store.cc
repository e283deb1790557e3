#include "blob/faulty_chunk_store.h"

#include <cerrno>

#include "util/posix_error.h"

namespace nubo::blob {

namespace {
Status Injected(FaultPlan::Fault f, const char* op) {
  return PosixError(std::string(op) + " (injected)", f == FaultPlan::Fault::kEnospc ? ENOSPC : EIO);
}
}  // namespace

Status FaultyChunkStore::Put(const Digest& hash, std::string_view data) {
  if (auto f = plan_.Next(); f != FaultPlan::Fault::kNone) return Injected(f, "put chunk");
  return inner_.Put(hash, data);
}

Status FaultyChunkStore::Delete(const Digest& hash) {
  if (auto f = plan_.Next(); f != FaultPlan::Fault::kNone) return Injected(f, "delete chunk");
  return inner_.Delete(hash);
}

}  // namespace nubo::blob
