#include "jobs/helper_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "util/posix_error.h"
#include "util/time.h"

namespace nubo::jobs {

struct HelperPool::Proc {
  pid_t pid = -1;
  int to = -1;    // its stdin
  int from = -1;  // its stdout
  int served = 0;
  std::string buffered;  // bytes read past the last answer (none, in protocol)

  // Kills the process group and reaps it; returns the status.
  int Kill() {
    int status = 0;
    if (to >= 0) close(to);
    if (from >= 0) close(from);
    to = from = -1;
    if (pid > 0) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      pid = -1;
    }
    return status;
  }
  ~Proc() { Kill(); }
};

HelperPool::HelperPool(HelperPoolOptions options) : options_(std::move(options)) {}

HelperPool::~HelperPool() {
  std::lock_guard lock(mu_);
  idle_.clear();
}

uint64_t HelperPool::started() const {
  std::lock_guard lock(mu_);
  return started_;
}

Result<std::unique_ptr<HelperPool::Proc>> HelperPool::Start() {
  std::vector<char*> args;
  for (const std::string& a : options_.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) return PosixError("pipe", errno);
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    int e = errno;
    close(in_pipe[0]);
    close(in_pipe[1]);
    return PosixError("pipe", e);
  }
  const IsolateLimits& l = options_.limits;
  // The process's whole life: the helper lowers its soft limit to each
  // request's budget itself.
  const rlim_t cpu_total = static_cast<rlim_t>(l.cpu_seconds) * (options_.requests_per_process + 1);
  const ChildLimits child(l, cpu_total, cpu_total);
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) close(fd);
    return PosixError("fork", e);
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull < 0) _exit(126);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(devnull, 2);
    if (close_range(3, ~0U, 0) != 0) {
      for (int fd = 3; fd < 65536; ++fd) close(fd);
    }
    child.ApplyInChild();
    signal(SIGPIPE, SIG_DFL);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(in_pipe[0]);
  close(out_pipe[1]);
  auto p = std::make_unique<Proc>();
  p->pid = pid;
  p->to = in_pipe[1];
  p->from = out_pipe[0];
  return p;
}

void HelperPool::Retire(std::unique_ptr<Proc> p) {
  if (p) p->Kill();
  std::lock_guard lock(mu_);
  --live_;
  cv_.notify_one();
}

Result<IsolateResult> HelperPool::Run(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].find_first_of("\t\n") != std::string::npos) {
      return Status::InvalidArgument("helper request fields may not hold tabs or newlines");
    }
    if (i) line += '\t';
    line += fields[i];
  }
  line += '\n';
  std::unique_ptr<Proc> p;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty() || live_ < options_.max_processes; });
    if (!idle_.empty()) {
      p = std::move(idle_.back());
      idle_.pop_back();
    } else {
      ++live_;
      ++started_;
    }
  }
  if (!p) {
    auto started = Start();
    if (!started.ok()) {
      Retire(nullptr);
      return started.status();
    }
    p = std::move(*started);
  }
  IsolateResult result;
  const int64_t deadline = MonotonicMillis() + options_.limits.wall_ms;
  // Send the request (small: one write; a dead process answers EPIPE).
  // SIGPIPE is blocked in this thread while writing (a dead helper answers
  // EPIPE instead of ending the server), and a pending one is consumed.
  size_t off = 0;
  bool dead = false;
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  while (off < line.size()) {
    ssize_t n = write(p->to, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      dead = true;
      break;
    }
    off += static_cast<size_t>(n);
  }
  if (dead) {
    const struct timespec zero { 0, 0 };
    while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  std::string answer;
  while (!dead) {
    size_t nl = p->buffered.find('\n');
    if (nl != std::string::npos) {
      answer = p->buffered.substr(0, nl);
      p->buffered.erase(0, nl + 1);
      break;
    }
    int64_t left = deadline - MonotonicMillis();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    struct pollfd pf {
      p->from, POLLIN, 0
    };
    int rc = poll(&pf, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (rc < 0 && errno != EINTR) {
      dead = true;
      break;
    }
    if (rc <= 0) continue;
    char buf[4096];
    ssize_t n = read(p->from, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      dead = true;
      break;
    }
    p->buffered.append(buf, static_cast<size_t>(n));
    if (p->buffered.size() > 64 << 10) {  // out of protocol
      dead = true;
      break;
    }
  }
  if (dead || result.timed_out) {
    int status = p->Kill();
    if (!result.timed_out && WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    if (!result.timed_out && WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
      if (result.exit_code == 127) {
        Retire(std::move(p));
        return Status::Unavailable("cannot run " + options_.argv[0]);
      }
    }
    Retire(std::move(p));
    return result;
  }
  size_t tab = answer.find('\t');
  const std::string code = answer.substr(0, tab);
  result.exit_code = code.empty() || code.size() > 3 ? -1 : std::atoi(code.c_str());
  if (tab != std::string::npos) result.stderr_tail = answer.substr(tab + 1);
  // A process that met an error (even a well-formed one about bad input)
  // is not trusted with the next file.
  if (result.exit_code != 0 || ++p->served >= options_.requests_per_process) {
    Retire(std::move(p));
    return result;
  }
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(p));
  cv_.notify_one();
  return result;
}

}  // namespace nubo::jobs
