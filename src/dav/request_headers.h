// RFC 4918 §10 request headers (Depth, Overwrite, Destination, Timeout) and
// href encoding for responses (§8.3). Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace nubo::dav {

enum class Depth { kZero, kOne, kInfinity };

// §10.2 Depth: "0", "1" or "infinity" (case-insensitive, surrounding
// whitespace ignored). Absent → `fallback` (each method has its own default:
// PROPFIND infinity §9.1, LOCK infinity §9.10.3, COPY infinity §9.8.3).
// Anything else → InvalidArgument (400).
Result<Depth> ParseDepth(std::optional<std::string_view> v, Depth fallback);

// §10.6 Overwrite: "T" or "F" (case-insensitive, as ABNF literals are).
// Absent → true. Anything else → InvalidArgument.
Result<bool> ParseOverwrite(std::optional<std::string_view> v);

struct Destination {
  std::string path;                   // decoded, "/" + segments joined by "/"; "/" for the root
  std::vector<std::string> segments;  // decoded; never empty, ".", "..", or containing "/" or NUL
  bool trailing_slash = false;        // the path ended in "/" (never set for the root)
};

// §10.3 Destination = Simple-ref: an absolute http(s) URI or an absolute
// path. Returns the percent-decoded path split into segments; empty segments
// ("//") collapse, as in http::ParseTarget. Raw spaces and non-ASCII bytes
// are taken as themselves (some clients do not encode them).
//
// Errors:
//  - Unsupported when the URI names another server (§9.8.5/§9.9.4: 502):
//    another scheme than http/https, or an authority other than `host` (the
//    request's Host value; compared case-insensitively, ignoring userinfo and
//    the scheme's default port).
//  - InvalidArgument for: empty, a relative or network-path reference, a
//    query or fragment, a bad "%" escape, control characters, or a decoded
//    segment that is "." / ".." or contains "/" (%2F) or NUL — such paths
//    would alias other resources.
Result<Destination> ParseDestination(std::string_view v, std::string_view host);

// §10.7 Timeout: a comma-separated preference list of "Second-N" and
// "Infinite" (case-insensitive). Returns the first well-formed entry in
// seconds ("Infinite" as `max_s`), clamped to [1, max_s]; absent or with no
// well-formed entry → `default_s` (also clamped). Never fails: §10.7 lets the
// server choose any timeout.
uint64_t ParseTimeout(std::optional<std::string_view> v, uint64_t default_s, uint64_t max_s);

// One path segment percent-encoded for an href (RFC 3986 §3.3 pchar):
// unreserved characters and "!$&'()*+,;=:@" stay, every other byte (space,
// "%", "#", "?", "/", non-ASCII UTF-8 bytes as they are, no normalization)
// becomes %XX with uppercase hex.
std::string EncodeSegment(std::string_view segment);
// Its inverse: every %XX decoded (either case), other bytes as they are;
// nullopt for a malformed escape.
std::optional<std::string> DecodeSegment(std::string_view encoded);
// The same, appended to `out` (listings encode one name per row).
void AppendEncodedSegment(std::string& out, std::string_view segment);

// "/" + encoded segments joined by "/", plus a trailing "/" for a collection
// (§8.3: clients compare collection hrefs with their slash). No segments →
// "/".
std::string EncodeHref(const std::vector<std::string>& segments, bool collection);

}  // namespace nubo::dav
