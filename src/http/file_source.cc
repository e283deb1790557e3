#include "http/file_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

#include "util/posix_error.h"

namespace nubo::http {

FileSource::~FileSource() { close(fd_); }

Result<size_t> FileSource::Read(char* buf, size_t cap) {
  for (;;) {
    ssize_t n = read(fd_, buf, cap);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return PosixError("read file", errno);
  }
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
