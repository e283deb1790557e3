// Small string helpers shared by every layer. Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nubo {

char AsciiLower(char c);
std::string AsciiLowerCopy(std::string_view s);
bool IEquals(std::string_view a, std::string_view b);  // ASCII case-insensitive
std::string_view Trim(std::string_view s);             // spaces and tabs (HTTP OWS)
// Splits on `sep`, keeping empty pieces.
std::vector<std::string_view> Split(std::string_view s, char sep);

// Strict decimal parse: digits only, no sign, no overflow. nullopt otherwise.
std::optional<uint64_t> ParseUint64(std::string_view s);
// A size with an optional unit → bytes; nullopt if malformed or too big.
// IEC units and their one-letter forms are powers of 1024 ("64KiB", "4G",
// "512k"); SI units are powers of 1000 ("20MB" = 20,000,000, "1kB"), so a
// unit means what it says. Case-insensitive; "B" or none: bytes.
std::optional<uint64_t> ParseByteSize(std::string_view s);
// Bytes for people, in IEC units: "512 B", "1.5 KiB", "20 MiB" (one
// decimal below 100 units, none from there; the unit is exact-labelled,
// never "MB" for 2^20).
std::string FormatBytes(uint64_t bytes);
// "30s", "500ms", "2m", "1h", "30d" or plain seconds → milliseconds. nullopt if malformed.
std::optional<uint64_t> ParseDurationMs(std::string_view s);
std::optional<bool> ParseBool(std::string_view s);  // true/false/1/0/yes/no/on/off

// Appends `s` as the inside of a JSON string literal (quotes not included).
void AppendJsonEscaped(std::string& out, std::string_view s);
std::string JsonQuote(std::string_view s);  // "\"...\""

std::string HexEncode(const void* data, size_t len);
// Lower-case hex (as HexEncode writes it) back to bytes; nullopt when
// malformed or longer than 16 KiB of hex (cursors, tokens).
std::optional<std::string> HexDecode(std::string_view hex);
// A decimal integer with an optional leading '-'; nullopt when malformed
// or out of range.
std::optional<int64_t> ParseInt64(std::string_view s);

// A URI authority ("Host:8080", "[::1]:443") for comparing two of them:
// lower-cased, without the scheme's `default_port` and without an empty
// port ("host:"). IPv6 literals keep their brackets.
std::string NormalizeAuthority(std::string_view authority, std::string_view default_port);
// The default port of "http" (80) or "https" (443), case-insensitively;
// empty for any other scheme.
std::string_view DefaultPortOf(std::string_view scheme);

// Standard base64 (RFC 4648 §4) with padding; nullopt on any invalid
// character, bad padding or length.
std::optional<std::string> Base64Decode(std::string_view in);

}  // namespace nubo
