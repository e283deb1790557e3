#include "util/strings.h"

#include <cstdio>
#include <iterator>
#include <limits>

namespace nubo {

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

std::string AsciiLowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

std::optional<uint64_t> ParseUint64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

namespace {
// Splits "123abc" into its digit prefix value and lower-cased suffix.
std::optional<std::pair<uint64_t, std::string>> NumberAndUnit(std::string_view s) {
  s = Trim(s);
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  auto n = ParseUint64(s.substr(0, i));
  if (!n) return std::nullopt;
  return std::make_pair(*n, AsciiLowerCopy(Trim(s.substr(i))));
}

std::optional<uint64_t> CheckedMul(uint64_t a, uint64_t b) {
  if (b != 0 && a > std::numeric_limits<uint64_t>::max() / b) return std::nullopt;
  return a * b;
}
}  // namespace

std::optional<uint64_t> ParseByteSize(std::string_view s) {
  auto nu = NumberAndUnit(s);
  if (!nu) return std::nullopt;
  const auto& [n, unit] = *nu;
  if (unit.empty() || unit == "b") return n;
  static constexpr std::string_view kLetters = "kmgt";
  const size_t power = unit.size() <= 3 ? kLetters.find(unit[0]) : std::string_view::npos;
  if (power == std::string_view::npos) return std::nullopt;
  const std::string_view rest = std::string_view(unit).substr(1);
  uint64_t base;
  if (rest.empty() || rest == "i" || rest == "ib") {
    base = 1024;
  } else if (rest == "b") {
    base = 1000;
  } else {
    return std::nullopt;
  }
  uint64_t mul = 1;
  for (size_t i = 0; i <= power; ++i) mul *= base;
  return CheckedMul(n, mul);
}

std::string FormatBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes) / 1024;
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  // Exact multiples print without a decimal ("64 MiB", not "64.0 MiB").
  if (v >= 100 || v == static_cast<double>(static_cast<uint64_t>(v))) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, kUnits[u]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[u]);
  }
  return buf;
}

std::optional<uint64_t> ParseDurationMs(std::string_view s) {
  auto nu = NumberAndUnit(s);
  if (!nu) return std::nullopt;
  const auto& [n, unit] = *nu;
  if (unit == "ms") return n;
  if (unit.empty() || unit == "s") return CheckedMul(n, 1000);
  if (unit == "m" || unit == "min") return CheckedMul(n, 60'000);
  if (unit == "h") return CheckedMul(n, 3'600'000);
  if (unit == "d") return CheckedMul(n, 86'400'000);
  return std::nullopt;
}

std::optional<bool> ParseBool(std::string_view s) {
  std::string v = AsciiLowerCopy(Trim(s));
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return std::nullopt;
}

void AppendJsonEscaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  AppendJsonEscaped(out, s);
  out += '"';
  return out;
}

std::string HexEncode(const void* data, size_t len) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out(len * 2, '0');
  for (size_t i = 0; i < len; ++i) {
    out[2 * i] = kHex[p[i] >> 4];
    out[2 * i + 1] = kHex[p[i] & 0xf];
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view in) {
  if (in.size() % 4 != 0) return std::nullopt;
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(in.size() / 4 * 3);
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      char c = in[i + k];
      if (c == '=') {
        // Padding only at the very end, only in the last two places.
        if (i + 4 != in.size() || k < 2) return std::nullopt;
        v[k] = 0;
        ++pad;
      } else {
        if (pad) return std::nullopt;
        v[k] = val(c);
        if (v[k] < 0) return std::nullopt;
      }
    }
    uint32_t n = static_cast<uint32_t>(v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3]);
    out.push_back(static_cast<char>(n >> 16));
    if (pad < 2) out.push_back(static_cast<char>((n >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(n & 0xff));
  }
  return out;
}

std::string_view DefaultPortOf(std::string_view scheme) {
  if (IEquals(scheme, "http")) return "80";
  if (IEquals(scheme, "https")) return "443";
  return {};
}

std::string NormalizeAuthority(std::string_view authority, std::string_view default_port) {
  std::string s = AsciiLowerCopy(Trim(authority));
  size_t close = s.rfind(']');
  size_t colon = s.rfind(':');
  if (colon != std::string::npos && (close == std::string::npos || colon > close)) {
    std::string_view port = std::string_view(s).substr(colon + 1);
    if (port.empty() || port == default_port) s.resize(colon);
  }
  return s;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0 || hex.size() > 16384) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = val(hex[i]), lo = val(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  auto v = ParseUint64(neg ? s.substr(1) : s);
  if (!v || *v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return neg ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
}

}  // namespace nubo
