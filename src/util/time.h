// Clocks and HTTP-date (RFC 9110 §5.6.7) formatting/parsing. Thread-safe.
#pragma once

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace nubo {

int64_t UnixMillis();  // wall clock (plus the test offset below)
// Moves UnixMillis by `offset_ms` for the whole process: retention and
// expiry tests (the /_test/clock route, never registered in production).
void SetClockOffsetForTests(int64_t offset_ms);
int64_t MonotonicNanos();   // for durations only
int64_t MonotonicMillis();  // the same clock, in milliseconds

// IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
std::string FormatHttpDate(std::time_t t);
// The same, appended to `out` (no allocation once `out` has room: a
// multistatus writes one per row).
void AppendHttpDate(std::string& out, std::time_t t);
// RFC 3339 in UTC, e.g. "1994-11-06T08:49:37Z" (RFC 4918 §15.1 creationdate).
void AppendRfc3339(std::string& out, std::time_t t);
// Accepts IMF-fixdate and the two obsolete forms (RFC 850, asctime) as
// RFC 9110 §5.6.7 requires of recipients. nullopt when malformed.
std::optional<std::time_t> ParseHttpDate(std::string_view s);

}  // namespace nubo
