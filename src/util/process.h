// Serving processes as other processes see them: each records this
// machine's name and its pid (server_processes), and a reader on the same
// machine can tell when such a process no longer exists (it was killed and
// left its row behind).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace nubo {

// This machine's name (gethostname).
std::string HostName();

// True when the process `pid` of `host` is known to be gone: `host` is this
// machine and no process `pid` exists. A process of another machine is
// never known gone (its heartbeat has to age instead).
bool ProcessGone(std::string_view host, int64_t pid);

}  // namespace nubo
