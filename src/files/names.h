// File and folder names: the one place they are validated and normalized
// (ARCHITECTURE.md §4.5), shared by REST, WebDAV and the Nextcloud API.
//
// A name is valid UTF-8, stored in Unicode NFC (so "é" typed on macOS, which
// sends NFD, and on Linux, which sends NFC, is one name), 1 to 255 bytes,
// and is neither "." nor ".." nor contains "/", NUL or a control character
// (C0, DEL, C1). Everything else is allowed, including spaces, leading dots
// and backslashes (legal names on Linux and macOS). Sibling uniqueness uses
// NameKey: NFC plus Unicode case folding, so "Report.pdf" and "report.PDF"
// cannot sit side by side — Windows and macOS clients could not sync both.
// Thread-safe (pure).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo::files {

inline constexpr size_t kMaxNameBytes = 255;

// The NFC form of `name`, or InvalidArgument with the reason.
Result<std::string> NormalizeName(std::string_view name);

// Case-folded NFC of an already normalized name: the sibling-uniqueness key.
std::string NameKey(std::string_view normalized_name);

}  // namespace nubo::files
