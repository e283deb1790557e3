// The one mapping from errno values to Status (HOUSE_STYLE: exactly two
// mapping points; the other is http/status_map.cc). Thread-safe.
#pragma once

#include <string_view>

#include "util/status.h"

namespace nubo {

// Maps errno `err` to a Status whose message reads "<what>: <strerror>".
// ENOENT → NotFound, EEXIST → AlreadyExists, ENOSPC/EDQUOT → ResourceExhausted,
// EACCES/EPERM → PermissionDenied, EIO and the rest → IoError, etc.
Status PosixError(std::string_view what, int err);

}  // namespace nubo
