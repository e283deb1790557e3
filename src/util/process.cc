#include "util/process.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace nubo {

std::string HostName() {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  return host;
}

bool ProcessGone(std::string_view host, int64_t pid) {
  // kill(pid, 0) checks existence without signalling; EPERM means it
  // exists under another user.
  return pid > 0 && host == HostName() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace nubo
