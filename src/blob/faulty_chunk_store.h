// A ChunkStore wrapper that fails operations according to a FaultPlan, for
// testing what the layers above do when storage fails. Put and Delete are
// fault points (a short write is reported as EIO without touching the
// inner store, as a temp-file store would leave nothing visible). Thread-safe.
#pragma once

#include "blob/chunk_store.h"
#include "blob/fault_plan.h"

namespace nubo::blob {

class FaultyChunkStore final : public ChunkStore {
 public:
  FaultyChunkStore(ChunkStore& inner, FaultPlan& plan) : inner_(inner), plan_(plan) {}

  Status Put(const Digest& hash, std::string_view data) override;
  // Batches of the inner store, with Add and Commit as fault points.
  std::unique_ptr<ChunkBatch> NewBatch() override;
  Status Read(const Digest& hash, uint64_t offset, size_t len, char* out) override {
    return inner_.Read(hash, offset, len, out);
  }
  Result<ChunkInfo> Stat(const Digest& hash) override { return inner_.Stat(hash); }
  Status Delete(const Digest& hash) override;
  Status ForEach(const std::function<Status(const Digest&, const ChunkInfo&)>& fn) override {
    return inner_.ForEach(fn);
  }
  std::optional<uint64_t> FreeBytes() override { return inner_.FreeBytes(); }

 private:
  ChunkStore& inner_;
  FaultPlan& plan_;
};

}  // namespace nubo::blob
