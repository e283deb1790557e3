#include "util/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "util/posix_error.h"

namespace nubo {

Status WriteAll(int fd, const char* data, size_t len, std::string_view path) {
  while (len > 0) {
    ssize_t n = ::write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return PosixError("write " + std::string(path), errno);
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status PreadAll(int fd, char* out, size_t len, uint64_t offset, std::string_view path) {
  while (len > 0) {
    ssize_t n = ::pread(fd, out, len, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return PosixError("read " + std::string(path), errno);
    }
    if (n == 0) return Status::Corruption("unexpected end of " + std::string(path));
    out += n;
    len -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return Status::Ok();
}

Status FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return PosixError("open directory " + dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return PosixError("fsync directory " + dir, err);
  return Status::Ok();
}

Status MakeDirsDurable(const std::string& dir) {
  if (dir.empty() || dir == "/" || dir == ".") return Status::Ok();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::Ok();
    return Status::Conflict(dir + " exists and is not a directory");
  }
  size_t slash = dir.find_last_of('/');
  std::string parent = slash == std::string::npos ? "." : (slash == 0 ? "/" : dir.substr(0, slash));
  NUBO_RETURN_IF_ERROR(MakeDirsDurable(parent));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return PosixError("mkdir " + dir, errno);
  return FsyncDir(parent);
}

}  // namespace nubo
