// File and folder names: the one place they are validated and compared
// (ARCHITECTURE.md §4.5 and invariant 12), shared by REST, WebDAV and the
// Nextcloud API.
//
// A name is valid UTF-8, 1 to 255 bytes, and is neither "." nor ".." nor
// contains "/", NUL or a control character (C0, DEL, C1). Everything else
// is allowed, including spaces, leading dots and backslashes (legal names
// on Linux and macOS). A valid name is stored and returned exactly as the
// client sent it: a sync client compares names byte for byte, and a
// server that hands back "café" in NFC for the NFD "café" macOS sent (or
// U+03A9 for U+2126 OHM SIGN, which NFC also rewrites) makes the client see
// its file vanish and a stranger appear.
//
// Lookups and sibling uniqueness use NameKey instead: NFC, then Unicode
// case folding, so the NFD and NFC spellings of "café" find the same file,
// and "Report.pdf" and "report.PDF" cannot sit side by side — Windows and
// macOS clients could not sync both. Thread-safe (pure).
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo::files {

inline constexpr size_t kMaxNameBytes = 255;

// `name` unchanged when it is a valid name, or InvalidArgument with the
// reason.
Result<std::string> ValidateName(std::string_view name);

// The lookup and sibling-uniqueness key of a valid name: NFC, case folded,
// NFC again (the same key for every canonically equivalent spelling).
std::string NameKey(std::string_view name);

// The listing-order key of a valid name: its ICU collation key in the root
// locale with numeric ordering and secondary strength, so "a2" < "A3" <
// "a10" < "b" (digits compare as numbers of any length, case is ignored,
// accents are not). Keys compare bytewise (memcmp, or a BLOB column's
// order); they depend on the ICU version, see CollationVersion.
std::string SortKey(std::string_view name);

// The collator's version ("153.112..."): keys made by one version are not
// comparable with another's, so stored keys are rebuilt when it changes.
// Building the collator to ask loads ICU's collation code and data (~1.6
// MiB resident), so a start compares IcuVersion first (see FillSortKeys).
std::string CollationVersion();

// The ICU library's own version ("72.1"), known without loading any
// collation data. The collation data ships with the library, so while this
// is unchanged CollationVersion is too.
std::string IcuVersion();

}  // namespace nubo::files
