// RFC 6266 §4.1 Content-Disposition; RFC 8187 §3.2 ext-value for filename*.
#include "http/disposition.h"

#include <cstdint>

namespace nubo::http {
namespace {

// RFC 8187 §3.2.1 attr-char: the bytes allowed unencoded in an ext-value.
bool IsAttrChar(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '&':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string ContentDisposition(bool attachment, std::string_view utf8_filename) {
  std::string out = attachment ? "attachment" : "inline";
  if (utf8_filename.empty()) return out;

  // The quoted-string fallback (RFC 6266 §4.3) for user agents without RFC 8187 support. '"'
  // and '\' are replaced rather than backslash-escaped because several user agents take the
  // quoted-string literally, and a stray '\' becomes a path separator on Windows.
  std::string fallback;
  bool lossy = false;
  bool in_multibyte = false;
  for (unsigned char c : utf8_filename) {
    if (c >= 0x80) {
      // One '_' per UTF-8 sequence, not per byte: "日本.txt" → "__.txt".
      bool continuation = (c & 0xC0) == 0x80;
      if (!(continuation && in_multibyte)) fallback += '_';
      in_multibyte = true;
      lossy = true;
      continue;
    }
    in_multibyte = false;
    if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') {
      fallback += '_';
      lossy = true;
    } else {
      fallback += static_cast<char>(c);
      // Chrome and Safari percent-decode a filename="…" value (an old IE convention), so
      // "100%25.txt" would be saved as "100%.txt": let filename* carry the exact name.
      if (c == '%') lossy = true;
    }
  }
  out += "; filename=\"";
  out += fallback;
  out += '"';
  if (!lossy) return out;

  // RFC 6266 Appendix D: filename* after filename, so UAs that take the first parameter they
  // understand still prefer the exact name.
  static constexpr char kHex[] = "0123456789ABCDEF";
  out += "; filename*=UTF-8''";
  for (unsigned char c : utf8_filename) {
    if (IsAttrChar(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace nubo::http
