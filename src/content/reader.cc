#include "content/reader.h"

#include <fcntl.h>

#include <algorithm>
#include <cstring>

namespace nubo::content {

namespace {

Status CopyInline(std::string_view bytes, uint64_t offset, size_t len, char* out) {
  if (offset > bytes.size() || len > bytes.size() - offset) {
    return Status::Corruption("read past the end of an inline chunk");
  }
  std::memcpy(out, bytes.data() + offset, len);
  return Status::Ok();
}

// An inline chunk's bytes behind the ChunkReader interface; no file. It
// views the bytes in the reader's own chunk list (which outlives it).
class InlineReader final : public blob::ChunkReader {
 public:
  explicit InlineReader(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  Status ReadAt(uint64_t offset, size_t len, char* out) override {
    return CopyInline(bytes_, offset, len, out);
  }

 private:
  std::string_view bytes_;
};

}  // namespace

Status ReadChunk(blob::ChunkStore& store, const meta::ManifestChunk& c, uint64_t offset, size_t len,
                 char* out) {
  if (!c.data) return store.Read(c.hash, offset, len, out);
  return CopyInline(*c.data, offset, len, out);
}

ManifestReader::ManifestReader(blob::ChunkStore& store, std::vector<meta::ManifestChunk> chunks,
                               uint64_t pos, uint64_t end)
    : store_(&store), chunks_(std::move(chunks)), pos_(pos), end_(end) {
  // First chunk whose end lies beyond pos.
  auto it = std::upper_bound(
      chunks_.begin(), chunks_.end(), pos_,
      [](uint64_t p, const meta::ManifestChunk& c) { return p < c.offset + c.size; });
  index_ = static_cast<size_t>(it - chunks_.begin());
}

Result<ManifestReader> ManifestReader::Open(blob::ChunkStore& store,
                                            std::vector<meta::ManifestChunk> chunks, uint64_t size,
                                            uint64_t first, uint64_t length) {
  if (first > size || length > size - first) {
    return Status::InvalidArgument("range outside the content");
  }
  uint64_t expect = 0;
  for (const auto& c : chunks) {
    if (c.offset != expect) return Status::Corruption("manifest chunk offsets are not contiguous");
    expect += c.size;
  }
  if (expect != size) return Status::Corruption("manifest chunk sizes do not add up to its size");
  return ManifestReader(store, std::move(chunks), first, first + length);
}

Result<ManifestReader> ManifestReader::OpenByHash(meta::MetaStore& meta, blob::ChunkStore& store,
                                                  const meta::Digest& hash) {
  std::optional<meta::ManifestRow> row;
  std::vector<meta::ManifestChunk> chunks;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, txn.FindManifest(hash));
    if (!row) return Status::NotFound("no manifest " + DigestHex(hash));
    NUBO_ASSIGN_OR_RETURN(chunks, txn.ManifestChunks(row->id));
    return Status::Ok();
  }));
  return Open(store, std::move(chunks), row->size, 0, row->size);
}

Result<size_t> ManifestReader::Read(char* buf, size_t cap) {
  // Fill the buffer across chunk boundaries: callers write what they get,
  // so fewer, larger pieces mean fewer syscalls downstream.
  size_t done = 0;
  while (done < cap && pos_ < end_) {
    if (index_ >= chunks_.size()) return Status::Corruption("manifest ends before its size");
    const auto& c = chunks_[index_];
    uint64_t in_chunk = pos_ - c.offset;
    size_t n =
        static_cast<size_t>(std::min<uint64_t>({cap - done, c.size - in_chunk, end_ - pos_}));
    NUBO_RETURN_IF_ERROR(OpenCurrent());
    NUBO_RETURN_IF_ERROR(open_->ReadAt(in_chunk, n, buf + done));
    done += n;
    pos_ += n;
    if (pos_ == c.offset + c.size) ++index_;
  }
  return done;
}

Status ManifestReader::OpenCurrent(bool hold) {
  if (open_index_ == index_) return Status::Ok();
  const auto& c = chunks_[index_];
  if (hold && open_) held_.push_back(std::move(open_));
  open_.reset();
  open_index_ = SIZE_MAX;
  if (c.data) {
    open_ = std::make_unique<InlineReader>(*c.data);
  } else {
    NUBO_ASSIGN_OR_RETURN(open_, store_->Open(c.hash));
  }
  open_index_ = index_;
  if (open_->size() != c.size) {
    return Status::Corruption("chunk " + DigestHex(c.hash) + " has the wrong size");
  }
  return Status::Ok();
}

Status ManifestReader::NextExtents(size_t cap, size_t max, std::vector<Extent>& out) {
  held_.clear();  // the caller is done with the last call's descriptors
  size_t given = 0;
  for (size_t k = 0; k < max && given < cap && pos_ < end_; ++k) {
    if (index_ >= chunks_.size()) return Status::Corruption("manifest ends before its size");
    NUBO_RETURN_IF_ERROR(OpenCurrent(/*hold=*/k > 0));
    if (open_->fd() < 0) break;
    const auto& c = chunks_[index_];
    uint64_t in_chunk = pos_ - c.offset;
    size_t n =
        static_cast<size_t>(std::min<uint64_t>({cap - given, c.size - in_chunk, end_ - pos_}));
    Extent e{open_->fd(), in_chunk, n};
    // Start reading it now (here, on a worker thread), not when the sender
    // needs it. Advice only: its failure changes nothing.
    (void)::posix_fadvise(e.fd, static_cast<off_t>(e.offset), static_cast<off_t>(e.length),
                          POSIX_FADV_WILLNEED);
    out.push_back(e);
    given += n;
    pos_ += n;
    if (pos_ == c.offset + c.size) ++index_;
  }
  return Status::Ok();
}

}  // namespace nubo::content
