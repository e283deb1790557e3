#include "blob/mem/mem_chunk_store.h"

#include <cstring>
#include <vector>

#include "util/time.h"

namespace nubo::blob {

Status MemChunkStore::Put(const Digest& hash, std::string_view data) {
  std::lock_guard lock(mu_);
  auto& slot = chunks_[hash];
  slot.first = std::string(data);
  slot.second = UnixMillis();
  return Status::Ok();
}

Status MemChunkStore::Read(const Digest& hash, uint64_t offset, size_t len, char* out) {
  std::lock_guard lock(mu_);
  auto it = chunks_.find(hash);
  if (it == chunks_.end()) return Status::NotFound("no chunk " + DigestHex(hash));
  const std::string& b = it->second.first;
  if (offset > b.size() || len > b.size() - offset) {
    return Status::Corruption("chunk " + DigestHex(hash) + " is shorter than the read");
  }
  std::memcpy(out, b.data() + offset, len);
  return Status::Ok();
}

Result<ChunkInfo> MemChunkStore::Stat(const Digest& hash) {
  std::lock_guard lock(mu_);
  auto it = chunks_.find(hash);
  if (it == chunks_.end()) return Status::NotFound("no chunk " + DigestHex(hash));
  return ChunkInfo{it->second.first.size(), it->second.second};
}

Status MemChunkStore::Delete(const Digest& hash) {
  std::lock_guard lock(mu_);
  if (chunks_.erase(hash) == 0) return Status::NotFound("no chunk " + DigestHex(hash));
  return Status::Ok();
}

Status MemChunkStore::ForEach(const std::function<Status(const Digest&, const ChunkInfo&)>& fn) {
  std::vector<std::pair<Digest, ChunkInfo>> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [h, v] : chunks_) all.push_back({h, ChunkInfo{v.first.size(), v.second}});
  }
  for (const auto& [h, info] : all) NUBO_RETURN_IF_ERROR(fn(h, info));
  return Status::Ok();
}

void MemChunkStore::CorruptForTest(const Digest& hash, size_t offset) {
  std::lock_guard lock(mu_);
  auto it = chunks_.find(hash);
  if (it != chunks_.end() && offset < it->second.first.size()) it->second.first[offset] ^= 1;
}

}  // namespace nubo::blob
