// RFC 4918 §10 request headers and §8.3 href encoding.
#include "dav/request_headers.h"

#include <algorithm>
#include <array>

#include "util/strings.h"

namespace nubo::dav {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsControl(char c) {
  auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

// Splits an absolute URI into its path, checking scheme and authority.
Result<std::string_view> PathOfAbsoluteUri(std::string_view v, std::string_view host) {
  size_t colon = v.find(':');
  auto scheme_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '-' || c == '.';
  };
  bool has_scheme = colon != std::string_view::npos && colon > 0 &&
                    ((v[0] >= 'a' && v[0] <= 'z') || (v[0] >= 'A' && v[0] <= 'Z')) &&
                    std::all_of(v.begin(), v.begin() + colon, scheme_char);
  if (!has_scheme) {
    return Status::InvalidArgument("Destination must be an absolute URI or an absolute path");
  }
  std::string_view scheme = v.substr(0, colon);
  const std::string_view default_port = DefaultPortOf(scheme);
  if (default_port.empty()) return Status::Unsupported("destination is on another server");
  std::string_view rest = v.substr(colon + 1);
  if (rest.substr(0, 2) != "//") {
    return Status::InvalidArgument("Destination URI has no authority");
  }
  rest.remove_prefix(2);
  size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  std::string_view path = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);  // userinfo is not identity
  if (authority.empty()) return Status::InvalidArgument("Destination URI has an empty host");
  if (NormalizeAuthority(authority, default_port) != NormalizeAuthority(host, default_port)) {
    return Status::Unsupported("destination is on another server");
  }
  if (path.empty()) path = "/";
  return path;
}

}  // namespace

Result<Depth> ParseDepth(std::optional<std::string_view> v, Depth fallback) {
  if (!v) return fallback;
  std::string_view s = Trim(*v);
  if (s == "0") return Depth::kZero;
  if (s == "1") return Depth::kOne;
  if (IEquals(s, "infinity")) return Depth::kInfinity;
  return Status::InvalidArgument("Depth must be 0, 1 or infinity");
}

Result<bool> ParseOverwrite(std::optional<std::string_view> v) {
  if (!v) return true;
  std::string_view s = Trim(*v);
  if (s == "T" || s == "t") return true;
  if (s == "F" || s == "f") return false;
  return Status::InvalidArgument("Overwrite must be T or F");
}

Result<Destination> ParseDestination(std::string_view v, std::string_view host) {
  v = Trim(v);
  if (v.empty()) return Status::InvalidArgument("Destination is empty");
  if (std::any_of(v.begin(), v.end(), IsControl)) {
    return Status::InvalidArgument("Destination contains control characters");
  }
  std::string_view path;
  if (v[0] == '/') {
    // "//x" would be a network-path reference (authority "x"), not a path.
    if (v.size() > 1 && v[1] == '/') {
      return Status::InvalidArgument("Destination must be an absolute URI or an absolute path");
    }
    path = v;
  } else {
    NUBO_ASSIGN_OR_RETURN(path, PathOfAbsoluteUri(v, host));
  }
  // A query or fragment has no meaning for a resource name; an unencoded "?"
  // or "#" is more likely a client bug than intent, so refuse instead of
  // silently dropping part of the name.
  if (path.find_first_of("?#") != std::string_view::npos) {
    return Status::InvalidArgument("Destination must not contain a query or fragment");
  }

  Destination d;
  for (std::string_view raw : Split(path.substr(1), '/')) {
    if (raw.empty()) continue;
    std::optional<std::string> decoded = DecodeSegment(raw);
    if (!decoded) return Status::InvalidArgument("Destination has a malformed percent-escape");
    const std::string& seg = *decoded;
    if (seg == "." || seg == "..") {
      return Status::InvalidArgument("Destination contains a dot segment");
    }
    if (seg.find('/') != std::string::npos || seg.find('\0') != std::string::npos) {
      return Status::InvalidArgument("Destination segment contains an encoded '/' or NUL");
    }
    d.segments.push_back(std::move(*decoded));
  }
  d.trailing_slash = !d.segments.empty() && path.back() == '/';
  // (Built by appends: `d.path = "/"` trips GCC 12's -Wrestrict false positive.)
  d.path.clear();
  for (size_t i = 0; i < d.segments.size(); ++i) {
    d.path.push_back('/');
    d.path += d.segments[i];
  }
  if (d.path.empty()) d.path.push_back('/');
  return d;
}

uint64_t ParseTimeout(std::optional<std::string_view> v, uint64_t default_s, uint64_t max_s) {
  max_s = std::max<uint64_t>(max_s, 1);
  auto clamp = [&](uint64_t s) { return std::clamp<uint64_t>(s, 1, max_s); };
  if (!v) return clamp(default_s);
  for (std::string_view item : Split(*v, ',')) {
    item = Trim(item);
    if (IEquals(item, "infinite")) return max_s;
    constexpr std::string_view kSecond = "second-";
    if (item.size() <= kSecond.size() || !IEquals(item.substr(0, kSecond.size()), kSecond)) {
      continue;
    }
    std::string_view digits = item.substr(kSecond.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    // All digits but too large for uint64: as good as infinite.
    std::optional<uint64_t> n = ParseUint64(digits);
    return n ? clamp(*n) : max_s;
  }
  return clamp(default_s);
}

namespace {

// RFC 3986 §3.3 pchar minus pct-encoded: the bytes a segment keeps as is.
constexpr auto kPchar = [] {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (char c : std::string_view("-._~!$&'()*+,;=:@")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

}  // namespace

void AppendEncodedSegment(std::string& out, std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out.reserve(out.size() + segment.size());
  size_t i = 0;
  while (i < segment.size()) {
    size_t run = i;
    while (run < segment.size() && kPchar[static_cast<unsigned char>(segment[run])]) ++run;
    out.append(segment.data() + i, run - i);
    if (run == segment.size()) break;
    auto u = static_cast<unsigned char>(segment[run]);
    out += '%';
    out += kHex[u >> 4];
    out += kHex[u & 0xF];
    i = run + 1;
  }
}

std::optional<std::string> DecodeSegment(std::string_view encoded) {
  std::string out;
  out.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '%') {
      out += encoded[i];
      continue;
    }
    const int h = i + 2 < encoded.size() ? HexValue(encoded[i + 1]) : -1;
    const int l = i + 2 < encoded.size() ? HexValue(encoded[i + 2]) : -1;
    if (h < 0 || l < 0) return std::nullopt;
    out += static_cast<char>(h << 4 | l);
    i += 2;
  }
  return out;
}

std::string EncodeSegment(std::string_view segment) {
  std::string out;
  AppendEncodedSegment(out, segment);
  return out;
}

std::string EncodeHref(const std::vector<std::string>& segments, bool collection) {
  std::string out;
  for (const auto& s : segments) {
    out += '/';
    out += EncodeSegment(s);
  }
  if (out.empty() || collection) out += '/';
  return out;
}

}  // namespace nubo::dav
