// Content-Disposition response values (RFC 6266) for downloads and inline views, with a
// non-ASCII file name carried per RFC 8187 (which obsoletes RFC 5987, same syntax).
// Thread-safe (pure).
#pragma once

#include <string>
#include <string_view>

namespace nubo::http {

// The Content-Disposition value `inline` or `attachment` for `utf8_filename`:
//   attachment; filename="<ASCII fallback>"[; filename*=UTF-8''<percent-encoded name>]
// The fallback replaces each non-ASCII character, control character, '"' and '\' with '_';
// filename* is added whenever the fallback is not the exact name (and for names containing '%',
// which some browsers percent-decode inside filename="…"), and every modern browser prefers it.
// The result never contains CR, LF or other control characters, whatever the input (no header
// splitting). An empty name yields the bare disposition type.
std::string ContentDisposition(bool attachment, std::string_view utf8_filename);

}  // namespace nubo::http
