#include "util/posix_error.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace nubo {

Status PosixError(std::string_view what, int err) {
  std::string msg(what);
  msg += ": ";
  char buf[256];
  // GNU strerror_r returns a pointer that may or may not be buf.
  msg += strerror_r(err, buf, sizeof buf);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound(std::move(msg));
    case EEXIST:
    case ENOTEMPTY:
      return Status::AlreadyExists(std::move(msg));
    case EACCES:
    case EPERM:
    case EROFS:
      return Status::PermissionDenied(std::move(msg));
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      return Status::ResourceExhausted(std::move(msg));
    case EINVAL:
    case ENAMETOOLONG:
    case EISDIR:
      return Status::InvalidArgument(std::move(msg));
    case ETIMEDOUT:
      return Status::Timeout(std::move(msg));
    case EAGAIN:
    case EINTR:
      return Status::Aborted(std::move(msg));
    default:
      return Status::IoError(std::move(msg));
  }
}

}  // namespace nubo
