// Durable file-system primitives (ARCHITECTURE.md §4.1): the only way nubo
// makes bytes durable is temp file + fsync + rename + directory fsync.
// Thread-safe (no shared state); errors carry the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo {

// write(2) until every byte is written (retrying EINTR and short writes).
Status WriteAll(int fd, const char* data, size_t len, std::string_view path);
// pread(2) exactly `len` bytes at `offset`; Corruption if the file is shorter.
Status PreadAll(int fd, char* out, size_t len, uint64_t offset, std::string_view path);
// fsync(2) of a directory, making entries created or renamed in it durable.
Status FsyncDir(const std::string& dir);
// mkdir -p, fsyncing each parent whose entry list changed.
Status MakeDirsDurable(const std::string& dir);

}  // namespace nubo
