// Text extraction for the full-text index. Plain text and HTML are read
// here, in the server (small, bounded, fuzzed parsers of our own); PDF and
// office documents go through the isolated helper (src/derive), because
// their parsers are large libraries fed hostile input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nubo::search {

enum class TextKind {
  kNone,    // nothing to index (images, archives, binaries)
  kPlain,   // text/*, Markdown, source code, JSON, CSV …
  kHtml,    // HTML and XHTML: markup stripped
  kPdf,     // through the helper (poppler)
  kOffice,  // DOCX, XLSX, PPTX, ODT, ODS, ODP: through the helper (libarchive + expat)
};

// By the stored media type first, then the name's extension.
TextKind KindFor(std::string_view name, std::string_view mime);

// At most this much text is indexed per file (bytes of UTF-8).
inline constexpr size_t kMaxTextBytes = 1 << 20;

// `bytes` as valid UTF-8 (invalid sequences and control characters become
// spaces), cut at `max` bytes on a character boundary. Empty when the
// content looks binary (a NUL byte in the first 8 KiB).
std::string PlainText(std::string_view bytes, size_t max = kMaxTextBytes);

// The visible text of an HTML document: tags dropped, script and style
// skipped, the common character references decoded, whitespace collapsed.
std::string HtmlText(std::string_view html, size_t max = kMaxTextBytes);

}  // namespace nubo::search
