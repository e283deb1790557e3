// A response body read from an open file (web assets, thumbnails): sized
// up front, streamed in the transport's buffer size, the descriptor closed
// with the source. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "http/body.h"

namespace nubo::http {

class FileSource final : public BodySource {
 public:
  FileSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  std::optional<uint64_t> Size() const override { return size_; }
  Result<size_t> Read(char* buf, size_t cap) override;
  Status NextSpans(size_t cap, size_t max, std::vector<FileSpan>& out) override;

  // Opens `path` when it is a regular file (nullptr otherwise).
  static std::unique_ptr<FileSource> Open(const std::string& path);

 private:
  int fd_;
  uint64_t size_;
  uint64_t pos_ = 0;
};

}  // namespace nubo::http
