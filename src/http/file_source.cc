#include "http/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "util/posix_error.h"

namespace nubo::http {

FileSource::~FileSource() { close(fd_); }

Result<size_t> FileSource::Read(char* buf, size_t cap) {
  if (pos_ >= size_) return size_t{0};
  cap = static_cast<size_t>(std::min<uint64_t>(cap, size_ - pos_));
  for (;;) {
    ssize_t n = pread(fd_, buf, cap, static_cast<off_t>(pos_));
    if (n == 0) return Status::Corruption("file shorter than its size");
    if (n > 0) {
      pos_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
    if (errno != EINTR) return PosixError("read file", errno);
  }
}

Status FileSource::NextSpans(size_t cap, size_t max, std::vector<FileSpan>& out) {
  size_t n = static_cast<size_t>(std::min<uint64_t>(cap, size_ - pos_));
  if (n == 0 || max == 0) return Status::Ok();
  out.push_back(FileSpan{fd_, pos_, n});
  pos_ += n;
  return Status::Ok();
}

std::unique_ptr<FileSource> FileSource::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return nullptr;
  }
  return std::make_unique<FileSource>(fd, static_cast<uint64_t>(st.st_size));
}

}  // namespace nubo::http
