// In-memory ChunkStore for tests. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "blob/chunk_store.h"

namespace nubo::blob {

class MemChunkStore final : public ChunkStore {
 public:
  Status Put(const Digest& hash, std::string_view data) override;
  Status Read(const Digest& hash, uint64_t offset, size_t len, char* out) override;
  Result<ChunkInfo> Stat(const Digest& hash) override;
  Status Delete(const Digest& hash) override;
  Status ForEach(const std::function<Status(const Digest&, const ChunkInfo&)>& fn) override;

  // Tests: flip a byte of a stored chunk (silent corruption).
  void CorruptForTest(const Digest& hash, size_t offset);

 private:
  std::mutex mu_;
  std::map<Digest, std::pair<std::string, int64_t>> chunks_;  // bytes, mtime
};

}  // namespace nubo::blob
