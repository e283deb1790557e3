// Runs a helper program (the media helper, ffmpeg) on hostile input with
// hard bounds: its own process group, no shell (a fixed argument vector),
// address-space and CPU-time limits, a lower priority, no core files, no
// inherited descriptors, and a wall-clock deadline after which the whole
// group is killed. A decoder that loops, allocates without end or crashes
// costs that process, never the server.
#pragma once

#include <sys/resource.h>

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace nubo::jobs {

struct IsolateLimits {
  int64_t wall_ms = 30'000;
  int64_t cpu_seconds = 20;
  uint64_t address_space_bytes = 2ULL << 30;
  int nice = 10;
};

// The limits a helper process runs under, computed before fork (the child
// of a threaded server may only make async-signal-safe calls) and set by
// the child before it runs the program. `cpu_soft`/`cpu_hard`: seconds.
struct ChildLimits {
  ChildLimits(const IsolateLimits& l, rlim_t cpu_soft, rlim_t cpu_hard);
  void ApplyInChild() const;  // setrlimit and setpriority only

  bool limit_as;
  struct rlimit as, cpu, core, files;
  int nice;
};

struct IsolateResult {
  int exit_code = -1;  // the program's exit status; -1 when killed by a signal
  int signal = 0;      // the signal that ended it, if any
  bool timed_out = false;
  std::string stderr_tail;  // the last bytes it wrote to stderr (for logs)
};

// argv[0] is an absolute path, or a bare name looked up in PATH. Errors:
// the program could not be started.
Result<IsolateResult> RunIsolated(const std::vector<std::string>& argv,
                                  const IsolateLimits& limits);

}  // namespace nubo::jobs
