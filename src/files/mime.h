// MIME types of stored files: what to record for a new file (extension table, then libmagic),
// whether a type may be served inline, and whether it is worth deflating in a ZIP.
//
// The extension wins over content sniffing because it is what the user chose and what every
// client (browser, desktop sync, WebDAV) shows; libmagic only names files whose extension we do
// not know. Thread-safety: all functions are thread-safe; DetectMime shares one libmagic cookie
// under a lock (cookies are not thread-safe; one per thread would map the database per thread).
#pragma once

#include <string>
#include <string_view>

namespace nubo::files {

// The MIME type for the extension of `name` (a file name or a path; the part after the last '.'
// of the last component, ASCII case-insensitive), or "" when unknown or there is none
// (".bashrc" has no extension).
std::string MimeFromExtension(std::string_view name);

// The type to store for a new file: the extension's type when known; otherwise libmagic's
// MAGIC_MIME_TYPE verdict on `head` (the first ≤ 4 KiB of the content; more is ignored);
// "application/octet-stream" when neither knows, when `head` is empty, or when libmagic cannot
// load its database (silently: a missing database must not fail uploads).
std::string DetectMime(std::string_view name, std::string_view head);

// True when a browser may render `mime` inline from our origin without running script:
// image/* except SVG, audio/*, video/*, application/pdf, text/plain. Never text/html, SVG, XML
// or JavaScript. Parameters (";charset=…") and case are ignored. The caller must still send
// `X-Content-Type-Options: nosniff`, or browsers may sniff text/plain into HTML.
bool InlineSafe(std::string_view mime);

// True for media that is already compressed, which a ZIP stores rather than deflates (deflate
// would burn CPU for ~0% gain): images except BMP/SVG/TIFF/ICO/PNM, audio except WAV/AIFF, video,
// zip/gzip/xz/zstd/7z/rar/bzip2 archives, OOXML/ODF office documents, PDF.
bool AlreadyCompressed(std::string_view mime);

}  // namespace nubo::files
