#include "blob/chunk_store.h"

namespace nubo::blob {

namespace {

class ImmediateBatch final : public ChunkBatch {
 public:
  explicit ImmediateBatch(ChunkStore& store) : store_(store) {}
  Status Add(const Digest& hash, std::string_view data) override {
    const bool present = store_.Stat(hash).ok();
    NUBO_RETURN_IF_ERROR(store_.Put(hash, data));
    if (!present) published_.push_back(hash);
    return Status::Ok();
  }
  Status Commit() override { return Status::Ok(); }
  std::vector<Digest> Published() const override { return published_; }

 private:
  ChunkStore& store_;
  std::vector<Digest> published_;
};

class PassThroughReader final : public ChunkReader {
 public:
  PassThroughReader(ChunkStore& store, const Digest& hash, uint64_t size)
      : store_(store), hash_(hash), size_(size) {}
  uint64_t size() const override { return size_; }
  Status ReadAt(uint64_t offset, size_t len, char* out) override {
    return store_.Read(hash_, offset, len, out);
  }

 private:
  ChunkStore& store_;
  Digest hash_;
  uint64_t size_;
};

}  // namespace

Result<std::unique_ptr<ChunkReader>> ChunkStore::Open(const Digest& hash) {
  NUBO_ASSIGN_OR_RETURN(ChunkInfo info, Stat(hash));
  return std::unique_ptr<ChunkReader>(new PassThroughReader(*this, hash, info.size));
}

std::unique_ptr<ChunkBatch> ChunkStore::NewBatch() { return std::make_unique<ImmediateBatch>(*this); }

}  // namespace nubo::blob
