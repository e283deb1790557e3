#include "search/extract.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace nubo::search {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return out;
}

std::string_view Extension(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : name.substr(dot + 1);
}

// Length of the valid UTF-8 sequence at p (RFC 3629), 0 when invalid.
size_t Utf8Len(const unsigned char* p, size_t avail) {
  unsigned char c = p[0];
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (avail < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  static constexpr std::array<uint32_t, 5> kMin = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void AppendCodePoint(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    out += ' ';
  } else if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Appends `text` as clean UTF-8 to `out` while it stays under `max`.
void AppendClean(std::string& out, std::string_view text, size_t max) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0;
  while (i < text.size()) {
    size_t n = Utf8Len(p + i, text.size() - i);
    if (out.size() + std::max<size_t>(n, 1) > max) return;
    if (n == 0) {
      out += ' ';
      ++i;
    } else if (n == 1 && p[i] < 0x20 && p[i] != '\n' && p[i] != '\t') {
      out += ' ';
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
}

}  // namespace

TextKind KindFor(std::string_view name, std::string_view mime) {
  std::string m = Lower(mime.substr(0, mime.find(';')));
  std::string ext = Lower(Extension(name));
  if (m == "text/html" || m == "application/xhtml+xml" || ext == "html" || ext == "htm" ||
      ext == "xhtml") {
    return TextKind::kHtml;
  }
  if (m == "application/pdf" || ext == "pdf") return TextKind::kPdf;
  static constexpr std::array<std::string_view, 6> kOffice = {"docx", "xlsx", "pptx",
                                                              "odt",  "ods",  "odp"};
  if (std::find(kOffice.begin(), kOffice.end(), ext) != kOffice.end()) return TextKind::kOffice;
  if (m.rfind("text/", 0) == 0 || m == "application/json" || m == "application/xml" ||
      m == "application/javascript" || m == "application/x-sh") {
    return TextKind::kPlain;
  }
  static constexpr std::array<std::string_view, 34> kPlainExt = {
      "txt",  "md",  "markdown", "rst",  "org", "csv", "tsv", "log", "json", "xml", "yaml", "yml",
      "toml", "ini", "cfg",      "conf", "c",   "cc",  "cpp", "h",   "hpp",  "py",  "rs",   "go",
      "java", "js",  "ts",       "sh",   "rb",  "php", "sql", "css", "tex",  "kt"};
  if (std::find(kPlainExt.begin(), kPlainExt.end(), ext) != kPlainExt.end())
    return TextKind::kPlain;
  return TextKind::kNone;
}

std::string PlainText(std::string_view bytes, size_t max) {
  if (bytes.substr(0, 8192).find('\0') != std::string_view::npos) return {};
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);  // UTF-8 byte order mark
  std::string out;
  out.reserve(std::min(bytes.size(), max));
  AppendClean(out, bytes, max);
  return out;
}

std::string HtmlText(std::string_view html, size_t max) {
  std::string raw;  // visible text, entities decoded, before cleaning
  raw.reserve(std::min(html.size(), max));
  size_t i = 0;
  auto starts = [&](size_t at, std::string_view what) {
    if (html.size() - at < what.size()) return false;
    for (size_t k = 0; k < what.size(); ++k) {
      char c = html[at + k];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      if (c != what[k]) return false;
    }
    return true;
  };
  auto space = [&] {
    if (!raw.empty() && raw.back() != ' ') raw += ' ';
  };
  while (i < html.size() && raw.size() < max) {
    char c = html[i];
    if (c == '<') {
      if (starts(i, "<!--")) {
        size_t end = html.find("-->", i + 4);
        i = end == std::string_view::npos ? html.size() : end + 3;
        continue;
      }
      bool script = starts(i, "<script"), style = starts(i, "<style");
      size_t end = html.find('>', i);
      if (end == std::string_view::npos) break;
      i = end + 1;
      if (script || style) {
        // Skip to the matching close tag (case-insensitive).
        std::string_view close = script ? "</script" : "</style";
        size_t j = i;
        while (j < html.size() && !starts(j, close)) ++j;
        i = j;
      }
      space();
      continue;
    }
    if (c == '&') {
      size_t semi = html.find(';', i);
      if (semi != std::string_view::npos && semi - i <= 10) {
        std::string_view ent = html.substr(i + 1, semi - i - 1);
        uint32_t cp = 0;
        bool ok = true;
        if (ent == "amp")
          cp = '&';
        else if (ent == "lt")
          cp = '<';
        else if (ent == "gt")
          cp = '>';
        else if (ent == "quot")
          cp = '"';
        else if (ent == "apos")
          cp = '\'';
        else if (ent == "nbsp")
          cp = ' ';
        else if (ent.size() > 1 && ent[0] == '#') {
          bool hex = ent[1] == 'x' || ent[1] == 'X';
          std::string_view digits = ent.substr(hex ? 2 : 1);
          ok = !digits.empty();
          for (char d : digits) {
            int v = d >= '0' && d <= '9'          ? d - '0'
                    : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
                    : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10
                                                  : -1;
            if (v < 0 || cp > 0x10FFFF) {
              ok = false;
              break;
            }
            cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
          }
        } else {
          ok = false;
        }
        if (ok) {
          AppendCodePoint(raw, cp);
          i = semi + 1;
          continue;
        }
      }
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space();
    } else {
      raw += c;
    }
    ++i;
  }
  std::string out;
  AppendClean(out, raw, max);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace nubo::search
