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

namespace {
class FaultyBatch final : public ChunkBatch {
 public:
  FaultyBatch(std::unique_ptr<ChunkBatch> inner, FaultPlan& plan) : inner_(std::move(inner)), plan_(plan) {}
  Status Add(const Digest& hash, std::string_view data) override {
    if (auto f = plan_.Next(); f != FaultPlan::Fault::kNone) return Injected(f, "stage chunk");
    return inner_->Add(hash, data);
  }
  Status Commit() override {
    if (auto f = plan_.Next(); f != FaultPlan::Fault::kNone) return Injected(f, "commit chunks");
    return inner_->Commit();
  }
  std::vector<Digest> Published() const override { return inner_->Published(); }

 private:
  std::unique_ptr<ChunkBatch> inner_;
  FaultPlan& plan_;
};
}  // namespace

std::unique_ptr<ChunkBatch> FaultyChunkStore::NewBatch() {
  return std::make_unique<FaultyBatch>(inner_.NewBatch(), plan_);
}

Status FaultyChunkStore::Delete(const Digest& hash) {
  if (auto f = plan_.Next(); f != FaultPlan::Fault::kNone) return Injected(f, "delete chunk");
  return inner_.Delete(hash);
}

}  // namespace nubo::blob
