#include "jobs/isolate.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "util/posix_error.h"
#include "util/time.h"

namespace nubo::jobs {

ChildLimits::ChildLimits(const IsolateLimits& l, rlim_t cpu_soft, rlim_t cpu_hard)
    : as{l.address_space_bytes, l.address_space_bytes},
      cpu{cpu_soft, cpu_hard},
      core{0, 0},
      files{},
      nice(l.nice) {
  // AddressSanitizer reserves terabytes of shadow address space up front:
  // an address-space limit would stop an instrumented helper from starting.
#if defined(__SANITIZE_ADDRESS__)
  limit_as = false;
#else
  limit_as = true;
#endif
  // The server raised its own soft limit for its connections (serve.cc);
  // a helper gets the usual 1,024 back.
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = std::min<rlim_t>(files.rlim_cur, 1024);
}

void ChildLimits::ApplyInChild() const {
  if (limit_as) setrlimit(RLIMIT_AS, &as);
  setrlimit(RLIMIT_CPU, &cpu);
  setrlimit(RLIMIT_CORE, &core);
  setrlimit(RLIMIT_NOFILE, &files);
  setpriority(PRIO_PROCESS, 0, nice);
}

Result<IsolateResult> RunIsolated(const std::vector<std::string>& argv,
                                  const IsolateLimits& limits) {
  if (argv.empty()) return Status::InvalidArgument("no program to run");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return PosixError("pipe", errno);
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls (the parent has other threads).
  const ChildLimits child(limits, static_cast<rlim_t>(limits.cpu_seconds),
                          static_cast<rlim_t>(limits.cpu_seconds + 1));
  const char* file = args[0];
  const bool search_path = argv[0].find('/') == std::string::npos;
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(err_pipe[0]);
    close(err_pipe[1]);
    return PosixError("fork", e);
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull < 0) _exit(126);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(err_pipe[1], 2);
    // Nothing else of the server's (sockets, the database) reaches the child.
    if (close_range(3, ~0U, 0) != 0) {
      for (int fd = 3; fd < 65536; ++fd) close(fd);
    }
    child.ApplyInChild();
    signal(SIGPIPE, SIG_DFL);
    if (search_path) {
      execvp(file, args.data());
    } else {
      execv(file, args.data());
    }
    _exit(127);
  }
  close(err_pipe[1]);
  setpgid(pid, pid);  // also from here, so the group exists before any kill
  IsolateResult result;
  const int64_t deadline = MonotonicMillis() + limits.wall_ms;
  bool open_pipe = true;
  char buf[4096];
  while (open_pipe) {
    int64_t left = deadline - MonotonicMillis();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    struct pollfd p {
      err_pipe[0], POLLIN, 0
    };
    int rc = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (rc < 0 && errno != EINTR) break;
    if (rc <= 0) continue;
    ssize_t n = read(err_pipe[0], buf, sizeof buf);
    if (n > 0) {
      result.stderr_tail.append(buf, static_cast<size_t>(n));
      if (result.stderr_tail.size() > 2048) {
        result.stderr_tail.erase(0, result.stderr_tail.size() - 2048);
      }
    } else if (n == 0 || errno != EINTR) {
      open_pipe = false;  // the program (and its children) closed stderr
    }
  }
  close(err_pipe[0]);
  int status = 0;
  for (;;) {
    if (result.timed_out) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return PosixError("waitpid", errno);
    // stderr closed but the process still runs (it closed its stderr):
    // keep to the deadline.
    if (MonotonicMillis() >= deadline) {
      result.timed_out = true;
      continue;
    }
    usleep(2000);
  }
  // Whatever the program left running in its group goes with it.
  kill(-pid, SIGKILL);
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (!result.timed_out && result.exit_code == 127) {
    return Status::Unavailable("cannot run " + argv[0]);
  }
  return result;
}

}  // namespace nubo::jobs
