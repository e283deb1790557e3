// The only file that includes magic.h.
#include "files/mime.h"

#include <magic.h>

#include <algorithm>
#include <array>
#include <mutex>

#include "util/dynlib.h"
#include "util/strings.h"

namespace nubo::files {
namespace {

constexpr std::string_view kOctetStream = "application/octet-stream";

struct ExtType {
  std::string_view ext;  // lower case, no dot
  std::string_view mime;
};

// Sorted by extension (checked below) for binary search. Types are the IANA-registered ones where
// one exists, else the de-facto x- type that browsers and desktop clients recognize.
// Deliberately absent: "ts" (TypeScript or MPEG transport stream; libmagic tells them apart by
// the 0x47 sync bytes) and "bin"/"dat" (mean nothing), so content sniffing decides those.
constexpr ExtType kTypes[] = {
    {"3g2", "video/3gpp2"},
    {"3gp", "video/3gpp"},
    {"7z", "application/x-7z-compressed"},
    {"aac", "audio/aac"},
    {"ai", "application/postscript"},
    {"aif", "audio/aiff"},
    {"aiff", "audio/aiff"},
    {"amr", "audio/amr"},
    {"apk", "application/vnd.android.package-archive"},
    {"apng", "image/apng"},
    {"arw", "image/x-sony-arw"},
    {"avi", "video/x-msvideo"},
    {"avif", "image/avif"},
    {"bash", "application/x-sh"},
    {"bib", "text/x-bibtex"},
    // Declared binary (Debian's mime.types); sniffing it ran libmagic's
    // whole database (~0.2 ms) for nothing better.
    {"bin", "application/octet-stream"},
    {"bmp", "image/bmp"},
    {"bz2", "application/x-bzip2"},
    {"c", "text/x-c"},
    {"cab", "application/vnd.ms-cab-compressed"},
    {"cbr", "application/vnd.comicbook-rar"},
    {"cbz", "application/vnd.comicbook+zip"},
    {"cc", "text/x-c++"},
    {"cjs", "text/javascript"},
    {"conf", "text/plain"},
    {"cpp", "text/x-c++"},
    {"cr2", "image/x-canon-cr2"},
    {"cs", "text/x-csharp"},
    {"css", "text/css"},
    {"csv", "text/csv"},
    {"cxx", "text/x-c++"},
    {"deb", "application/vnd.debian.binary-package"},
    {"diff", "text/x-diff"},
    {"djvu", "image/vnd.djvu"},
    {"dmg", "application/x-apple-diskimage"},
    {"dng", "image/x-adobe-dng"},
    {"doc", "application/msword"},
    {"docm", "application/vnd.ms-word.document.macroEnabled.12"},
    {"docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
    {"dot", "application/msword"},
    {"dotx", "application/vnd.openxmlformats-officedocument.wordprocessingml.template"},
    {"eml", "message/rfc822"},
    {"eps", "application/postscript"},
    {"epub", "application/epub+zip"},
    {"exe", "application/vnd.microsoft.portable-executable"},
    {"flac", "audio/flac"},
    {"flv", "video/x-flv"},
    {"gif", "image/gif"},
    {"go", "text/x-go"},
    {"gpx", "application/gpx+xml"},
    {"gz", "application/gzip"},
    {"h", "text/x-c"},
    {"heic", "image/heic"},
    {"heif", "image/heif"},
    {"hh", "text/x-c++"},
    {"hpp", "text/x-c++"},
    {"htm", "text/html"},
    {"html", "text/html"},
    {"ico", "image/vnd.microsoft.icon"},
    {"ics", "text/calendar"},
    {"ifb", "text/calendar"},
    {"ini", "text/plain"},
    {"ipynb", "application/x-ipynb+json"},
    {"iso", "application/x-iso9660-image"},
    {"jar", "application/java-archive"},
    {"java", "text/x-java"},
    {"jfif", "image/jpeg"},
    {"jpe", "image/jpeg"},
    {"jpeg", "image/jpeg"},
    {"jpg", "image/jpeg"},
    {"js", "text/javascript"},  // RFC 9239
    {"json", "application/json"},
    {"jsonld", "application/ld+json"},
    {"jxl", "image/jxl"},
    {"key", "application/vnd.apple.keynote"},
    {"kml", "application/vnd.google-earth.kml+xml"},
    {"kmz", "application/vnd.google-earth.kmz"},
    {"kt", "text/x-kotlin"},
    {"log", "text/plain"},
    {"lua", "text/x-lua"},
    {"lz", "application/x-lzip"},
    {"lzma", "application/x-lzma"},
    {"m2ts", "video/mp2t"},
    {"m3u", "audio/x-mpegurl"},
    {"m3u8", "application/vnd.apple.mpegurl"},
    {"m4a", "audio/mp4"},
    {"m4v", "video/mp4"},
    {"markdown", "text/markdown"},
    {"mbox", "application/mbox"},
    {"md", "text/markdown"},  // RFC 7763
    {"mid", "audio/midi"},
    {"midi", "audio/midi"},
    {"mjs", "text/javascript"},
    {"mka", "audio/x-matroska"},
    {"mkv", "video/x-matroska"},
    {"mobi", "application/x-mobipocket-ebook"},
    {"mov", "video/quicktime"},
    {"mp3", "audio/mpeg"},
    {"mp4", "video/mp4"},
    {"mpeg", "video/mpeg"},
    {"mpg", "video/mpeg"},
    {"msi", "application/x-msi"},
    {"mts", "video/mp2t"},
    {"nef", "image/x-nikon-nef"},
    {"numbers", "application/vnd.apple.numbers"},
    {"odf", "application/vnd.oasis.opendocument.formula"},
    {"odg", "application/vnd.oasis.opendocument.graphics"},
    {"odp", "application/vnd.oasis.opendocument.presentation"},
    {"ods", "application/vnd.oasis.opendocument.spreadsheet"},
    {"odt", "application/vnd.oasis.opendocument.text"},
    {"oga", "audio/ogg"},
    {"ogg", "audio/ogg"},
    {"ogv", "video/ogg"},
    // Opus files are Ogg streams (RFC 7845) that browsers play as audio/ogg; audio/opus names
    // the RTP payload (RFC 7587), which some players refuse for files.
    {"opus", "audio/ogg"},
    {"orf", "image/x-olympus-orf"},
    {"otf", "font/otf"},
    {"ott", "application/vnd.oasis.opendocument.text-template"},
    {"pages", "application/vnd.apple.pages"},
    {"patch", "text/x-diff"},
    {"pdf", "application/pdf"},
    {"php", "application/x-httpd-php"},
    {"pl", "text/x-perl"},
    {"png", "image/png"},
    {"potx", "application/vnd.openxmlformats-officedocument.presentationml.template"},
    {"pps", "application/vnd.ms-powerpoint"},
    {"ppsx", "application/vnd.openxmlformats-officedocument.presentationml.slideshow"},
    {"ppt", "application/vnd.ms-powerpoint"},
    {"pptm", "application/vnd.ms-powerpoint.presentation.macroEnabled.12"},
    {"pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
    {"ps", "application/postscript"},
    {"psd", "image/vnd.adobe.photoshop"},
    {"py", "text/x-python"},
    {"raf", "image/x-fuji-raf"},
    {"rar", "application/vnd.rar"},
    {"rb", "text/x-ruby"},
    {"rpm", "application/x-rpm"},
    {"rs", "text/x-rust"},
    {"rtf", "application/rtf"},
    {"rw2", "image/x-panasonic-rw2"},
    {"scss", "text/x-scss"},
    {"sh", "application/x-sh"},
    {"sql", "application/sql"},
    {"sqlite", "application/vnd.sqlite3"},
    {"srt", "application/x-subrip"},
    {"svg", "image/svg+xml"},
    {"svgz", "image/svg+xml"},
    {"swift", "text/x-swift"},
    {"tar", "application/x-tar"},
    {"tex", "application/x-tex"},
    {"text", "text/plain"},
    {"tgz", "application/gzip"},
    {"tif", "image/tiff"},
    {"tiff", "image/tiff"},
    {"toml", "application/toml"},
    {"torrent", "application/x-bittorrent"},
    {"tsv", "text/tab-separated-values"},
    {"ttf", "font/ttf"},
    {"txt", "text/plain"},
    {"vcard", "text/vcard"},
    {"vcf", "text/vcard"},  // RFC 6350 §10.1
    {"vtt", "text/vtt"},
    {"wasm", "application/wasm"},
    {"wav", "audio/wav"},
    {"weba", "audio/webm"},
    {"webm", "video/webm"},
    {"webmanifest", "application/manifest+json"},
    {"webp", "image/webp"},
    {"wma", "audio/x-ms-wma"},
    {"wmv", "video/x-ms-wmv"},
    {"woff", "font/woff"},
    {"woff2", "font/woff2"},
    {"xcf", "image/x-xcf"},
    {"xhtml", "application/xhtml+xml"},
    {"xls", "application/vnd.ms-excel"},
    {"xlsm", "application/vnd.ms-excel.sheet.macroEnabled.12"},
    {"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
    {"xltx", "application/vnd.openxmlformats-officedocument.spreadsheetml.template"},
    {"xml", "application/xml"},  // RFC 7303
    {"xz", "application/x-xz"},
    {"yaml", "application/yaml"},  // RFC 9512
    {"yml", "application/yaml"},
    {"zip", "application/zip"},
    {"zst", "application/zstd"},  // RFC 8878
};

constexpr bool ByExt(const ExtType& a, const ExtType& b) { return a.ext < b.ext; }
static_assert(std::is_sorted(std::begin(kTypes), std::end(kTypes), ByExt),
              "kTypes must stay sorted by extension");
static_assert(std::adjacent_find(std::begin(kTypes), std::end(kTypes),
                                 [](const ExtType& a, const ExtType& b) {
                                   return a.ext == b.ext;
                                 }) == std::end(kTypes),
              "duplicate extension in kTypes");

// "image/SVG+xml; charset=x" → "image/svg+xml".
std::string Essence(std::string_view mime) {
  size_t semi = mime.find(';');
  if (semi != std::string_view::npos) mime = mime.substr(0, semi);
  return AsciiLowerCopy(Trim(mime));
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// libmagic (with its liblzma and libbz2) is opened by the first sniff, not
// linked: see util/dynlib.h. One member per function used.
struct Libmagic {
  util::DynLib lib{"libmagic.so.1", "libmagic1"};
  decltype(&::magic_open) magic_open = nullptr;
  decltype(&::magic_load) magic_load = nullptr;
  decltype(&::magic_close) magic_close = nullptr;
  decltype(&::magic_buffer) magic_buffer = nullptr;

  Libmagic() {
    lib.Load(magic_open, "magic_open");
    lib.Load(magic_load, "magic_load");
    lib.Load(magic_close, "magic_close");
    lib.Load(magic_buffer, "magic_buffer");
  }
};

// One libmagic cookie for the process, used under a lock: a cookie holds parse state and must not
// be used by two threads at once, and each cookie maps its own copy of the ~8 MB database, so a
// cookie per thread cost 8 MB of resident memory per blocking thread (measured: 16 threads pushed
// the server's RSS past 100 MB). Sniffing runs only for names without a known extension, on at
// most 4 KiB, so the lock is rarely contended.
class MagicCookie {
 public:
  MagicCookie() {
    // Without the library every sniff answers octet-stream, as without
    // the database.
    if (!lib_.lib.ok()) return;
    cookie_ = lib_.magic_open(MAGIC_MIME_TYPE);
    if (cookie_ != nullptr && lib_.magic_load(cookie_, nullptr) != 0) {
      lib_.magic_close(cookie_);
      cookie_ = nullptr;  // no database: every sniff answers octet-stream
    }
  }
  ~MagicCookie() {
    if (cookie_ != nullptr) lib_.magic_close(cookie_);
  }
  MagicCookie(const MagicCookie&) = delete;
  MagicCookie& operator=(const MagicCookie&) = delete;

  std::string Sniff(std::string_view head) const {
    if (cookie_ == nullptr) return std::string(kOctetStream);
    const char* type = lib_.magic_buffer(cookie_, head.data(), head.size());
    if (type == nullptr || *type == '\0') return std::string(kOctetStream);
    return type;
  }

 private:
  Libmagic lib_;
  magic_t cookie_ = nullptr;
};

}  // namespace

std::string MimeFromExtension(std::string_view name) {
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  size_t dot = name.rfind('.');
  // No dot, a leading dot only (".bashrc"), or a trailing dot: no extension.
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return "";
  std::string ext = AsciiLowerCopy(name.substr(dot + 1));
  auto it = std::lower_bound(std::begin(kTypes), std::end(kTypes), ExtType{ext, {}}, ByExt);
  if (it == std::end(kTypes) || it->ext != ext) return "";
  return std::string(it->mime);
}

std::string DetectMime(std::string_view name, std::string_view head) {
  std::string by_ext = MimeFromExtension(name);
  if (!by_ext.empty()) return by_ext;
  // libmagic calls an empty buffer "application/x-empty", which is no type to store: an empty
  // file gets its real type when content arrives.
  if (head.empty()) return std::string(kOctetStream);
  static MagicCookie cookie;  // loaded on first use
  static std::mutex mu;
  std::lock_guard lock(mu);
  return cookie.Sniff(head.substr(0, 4096));
}

bool InlineSafe(std::string_view mime) {
  std::string m = Essence(mime);
  if (StartsWith(m, "image/")) {
    // SVG is a document that runs script from our origin; every other image type is pixels.
    return m.size() > 6 && !StartsWith(m, "image/svg");
  }
  if (StartsWith(m, "audio/") || StartsWith(m, "video/")) return m.size() > 6;
  return m == "application/pdf" || m == "text/plain";
}

bool AlreadyCompressed(std::string_view mime) {
  std::string m = Essence(mime);
  if (StartsWith(m, "image/")) {
    // Raw bitmaps and XML deflate well; everything else is a compressed codec.
    static constexpr std::string_view kRaw[] = {"image/bmp",
                                                "image/x-bmp",
                                                "image/x-ms-bmp",
                                                "image/svg+xml",
                                                "image/tiff",
                                                "image/x-icon",
                                                "image/vnd.microsoft.icon",
                                                "image/x-portable-anymap",
                                                "image/x-portable-bitmap",
                                                "image/x-portable-graymap",
                                                "image/x-portable-pixmap",
                                                "image/vnd.adobe.photoshop",
                                                "image/x-xcf"};
    return m.size() > 6 && std::find(std::begin(kRaw), std::end(kRaw), m) == std::end(kRaw);
  }
  if (StartsWith(m, "audio/")) {
    static constexpr std::string_view kRaw[] = {"audio/wav",      "audio/x-wav",    "audio/wave",
                                                "audio/vnd.wave", "audio/aiff",     "audio/x-aiff",
                                                "audio/midi",     "audio/x-mpegurl"};
    return m.size() > 6 && std::find(std::begin(kRaw), std::end(kRaw), m) == std::end(kRaw);
  }
  if (StartsWith(m, "video/")) return m.size() > 6;
  // OOXML, ODF and iWork documents are ZIP containers.
  if (StartsWith(m, "application/vnd.openxmlformats-officedocument.") ||
      StartsWith(m, "application/vnd.oasis.opendocument.") || EndsWith(m, ".macroenabled.12")) {
    return true;
  }
  static constexpr std::string_view kCompressed[] = {
      "application/pdf",
      "application/zip",
      "application/gzip",
      "application/x-gzip",
      "application/x-xz",
      "application/zstd",
      "application/x-7z-compressed",
      "application/vnd.rar",
      "application/x-rar-compressed",
      "application/x-bzip2",
      "application/x-lzip",
      "application/x-lzma",
      "application/java-archive",
      "application/epub+zip",
      "application/vnd.android.package-archive",
      "application/vnd.comicbook+zip",
      "application/vnd.comicbook-rar",
      "application/vnd.google-earth.kmz",
      "application/vnd.debian.binary-package",
      "application/x-rpm",
      "application/x-apple-diskimage",
      "application/vnd.apple.pages",
      "application/vnd.apple.numbers",
      "application/vnd.apple.keynote",
      "font/woff",
      "font/woff2",
  };
  return std::find(std::begin(kCompressed), std::end(kCompressed), m) != std::end(kCompressed);
}

}  // namespace nubo::files
