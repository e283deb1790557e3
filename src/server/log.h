// Process logging: spdlog's default logger writing to stderr.
//
// Lines are buffered and written in batches (at 32 KiB, every second, and
// at once for warnings and errors): one write(2) per access-log line would
// cost a syscall per request on the hottest path. Thread-safe after Init.
#pragma once

#include <string>

namespace nubo::server {

// Installs the default logger at `level` (trace|debug|info|warn|error|off).
void InitLogging(const std::string& level);
// Writes out everything buffered; call before exiting or when a line must
// be visible now (e.g. "listening on").
void FlushLogs();

}  // namespace nubo::server
