// The only file that includes archive.h (HOUSE_STYLE: heavy libraries behind one interface).
#include "files/zip_stream.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

namespace nubo::files {
namespace {

// One step writes at most this much entry data: large enough that per-call overhead (CRC, deflate
// setup, our Read loop) is noise, small enough that the output buffer stays a few hundred KiB.
constexpr size_t kPiece = 64 * 1024;

// Well-formed UTF-8 (RFC 3629 §4): libarchive copies any bytes and would flag them as UTF-8.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = cp << 6 | (cc & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates, beyond U+10FFFF.
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

// Refuses names a naive extractor would write outside its target folder (APPNOTE.TXT §4.4.17:
// a relative path without a drive letter or leading slash). Our tree walk never produces them;
// this is the last line of defense if a caller builds paths by hand.
Status CheckPath(std::string_view path) {
  if (path.empty()) return Status::InvalidArgument("zip entry with an empty path");
  if (path.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("zip entry path contains NUL");
  }
  if (!IsUtf8(path)) return Status::InvalidArgument("zip entry path is not UTF-8");
  size_t start = 0;
  for (;;) {
    size_t slash = path.find('/', start);
    std::string_view part =
        path.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (part.empty() || part == "." || part == "..") {
      return Status::InvalidArgument("zip entry path is not a plain relative path: " +
                                     std::string(path));
    }
    if (slash == std::string_view::npos) return Status::Ok();
    start = slash + 1;
  }
}

}  // namespace

struct ZipStream::Impl {
  enum class State { kStart, kNextEntry, kData, kDone, kFailed };

  explicit Impl(std::unique_ptr<ZipEntries> e) : entries(std::move(e)) {}

  ~Impl() {
    if (archive != nullptr) {
      // archive_write_free closes an unfinished archive: it finishes the current entry (which
      // releases its deflate stream) and writes the central directory. Drop those bytes rather
      // than buffer them for nobody.
      discard = true;
      archive_write_free(archive);
    }
    if (entry != nullptr) archive_entry_free(entry);
  }

  // libarchive's write callback. With bytes_per_block 0 libarchive does no blocking or padding of
  // its own, so every byte it produces arrives here at once and Read() can hand it out.
  static la_ssize_t OnWrite(struct archive*, void* client, const void* buf, size_t n) {
    auto* self = static_cast<Impl*>(client);
    if (!self->discard) {
      self->out.append(static_cast<const char*>(buf), n);
      self->max_buffered = std::max(self->max_buffered, self->out.size() - self->out_pos);
    }
    return static_cast<la_ssize_t>(n);
  }

  Status LibError(std::string_view what) const {
    const char* detail = archive_error_string(archive);
    return Status::Internal("zip: " + std::string(what) + ": " +
                            (detail != nullptr ? detail : "libarchive error"));
  }

  Status Open() {
    archive = archive_write_new();
    entry = archive_entry_new();
    if (archive == nullptr || entry == nullptr) {
      return Status::ResourceExhausted("zip: out of memory");
    }
    if (archive_write_set_format_zip(archive) != ARCHIVE_OK ||
        archive_write_set_bytes_per_block(archive, 0) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(archive, 1) != ARCHIVE_OK ||
        // Sets the UTF-8 flag (bit 11) on non-ASCII names whatever the process locale; the names
        // themselves are handed over with archive_entry_set_pathname_utf8, because the plain
        // setter would re-encode them from the locale charset (in the "C" locale each byte
        // becomes a Latin-1 character: mojibake).
        archive_write_set_format_option(archive, "zip", "hdrcharset", "UTF-8") != ARCHIVE_OK ||
        archive_write_open2(archive, this, nullptr, &Impl::OnWrite, nullptr, nullptr) !=
            ARCHIVE_OK) {
      return LibError("open");
    }
    chunk = std::make_unique<char[]>(kPiece);
    return Status::Ok();
  }

  Status StartEntry(ZipEntry e) {
    NUBO_RETURN_IF_ERROR(CheckPath(e.path));
    if (!e.folder && e.size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::InvalidArgument("zip entry too large: " + e.path);
    }
    path = std::move(e.path);
    declared = e.folder ? 0 : e.size;
    remaining = declared;
    if (!e.folder) {
      // Open before the header goes out, so a file that vanished since the walk fails before
      // any of its bytes are sent.
      if (e.open) {
        auto opened = e.open();
        if (!opened.ok()) return opened.status().WithContext("zip: open " + path);
        content = std::move(opened).value();
        if (content == nullptr) return Status::Internal("zip: open returned null for " + path);
      } else if (declared > 0) {
        return Status::InvalidArgument("zip entry without content: " + path);
      }
      // Not archive_write_set_format_option(…"compression"…): libarchive only accepts options
      // in the NEW state, and a call between entries moves the archive to FATAL. These two
      // setters are allowed in the HEADER and DATA states and apply from the next header on.
      int r = e.store ? archive_write_zip_set_compression_store(archive)
                      : archive_write_zip_set_compression_deflate(archive);
      if (r != ARCHIVE_OK) return LibError("set compression");
    }

    archive_entry_clear(entry);
    archive_entry_set_pathname_utf8(entry, path.c_str());
    archive_entry_set_filetype(entry, e.folder ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry, e.folder ? 0755 : 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(declared));
    // Floor division: a pre-1970 time keeps a non-negative nanosecond part.
    int64_t sec = e.mtime_ms / 1000;
    int64_t ms = e.mtime_ms % 1000;
    if (ms < 0) {
      sec -= 1;
      ms += 1000;
    }
    archive_entry_set_mtime(entry, static_cast<time_t>(sec), static_cast<long>(ms * 1000000));
    // ARCHIVE_WARN counts as failure too: it means the name could not be stored as given.
    if (archive_write_header(archive, entry) != ARCHIVE_OK) return LibError("header " + path);
    if (e.folder) return FinishEntry();
    state = State::kData;
    return Status::Ok();
  }

  Status FinishEntry() {
    if (archive_write_finish_entry(archive) != ARCHIVE_OK) return LibError("finish " + path);
    content.reset();
    state = State::kNextEntry;
    return Status::Ok();
  }

  // One ≤ kPiece piece of the current entry, or its end.
  Status WriteData() {
    if (remaining > 0) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(kPiece, remaining));
      auto got = content->Read(chunk.get(), want);
      if (!got.ok()) return got.status().WithContext("zip: read " + path);
      size_t n = *got;
      if (n == 0) {
        return Status::Corruption("zip: " + path + " ended after " +
                                  std::to_string(declared - remaining) + " of " +
                                  std::to_string(declared) + " bytes");
      }
      if (n > want) return Status::Internal("zip: content overran its buffer: " + path);
      if (archive_write_data(archive, chunk.get(), n) != static_cast<la_ssize_t>(n)) {
        return LibError("data " + path);
      }
      remaining -= n;
      return Status::Ok();
    }
    // libarchive silently truncates data past the declared size, so a longer content must be
    // caught here: probe for one more byte.
    if (content != nullptr) {
      auto extra = content->Read(chunk.get(), kPiece);
      if (!extra.ok()) return extra.status().WithContext("zip: read " + path);
      if (*extra != 0) {
        return Status::Corruption("zip: " + path + " is longer than its declared " +
                                  std::to_string(declared) + " bytes");
      }
    }
    return FinishEntry();
  }

  // Produces the next bytes into `out` (possibly none, e.g. after Open).
  Status Step() {
    switch (state) {
      case State::kStart:
        NUBO_RETURN_IF_ERROR(Open());
        state = State::kNextEntry;
        return Status::Ok();
      case State::kNextEntry: {
        auto next = entries->Next();
        if (!next.ok()) return next.status().WithContext("zip: next entry");
        if (next->has_value()) return StartEntry(std::move(**next));
        if (archive_write_close(archive) != ARCHIVE_OK) return LibError("close");
        state = State::kDone;
        return Status::Ok();
      }
      case State::kData:
        return WriteData();
      case State::kDone:
      case State::kFailed:
        break;
    }
    return Status::Internal("zip: step in a final state");
  }

  std::unique_ptr<ZipEntries> entries;
  struct archive* archive = nullptr;
  struct archive_entry* entry = nullptr;  // reused for every header
  State state = State::kStart;
  Status failure;  // sticky once state is kFailed

  std::string out;  // bytes produced by libarchive, handed out from out_pos
  size_t out_pos = 0;
  size_t max_buffered = 0;
  bool discard = false;

  std::string path;  // current entry, for messages
  std::unique_ptr<ZipContent> content;
  uint64_t declared = 0;
  uint64_t remaining = 0;
  std::unique_ptr<char[]> chunk;
};

ZipStream::ZipStream(std::unique_ptr<ZipEntries> entries)
    : impl_(std::make_unique<Impl>(std::move(entries))) {}

ZipStream::~ZipStream() = default;

Result<size_t> ZipStream::Read(char* buf, size_t cap) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kFailed) return s.failure;
  if (cap == 0) return Status::InvalidArgument("zip: Read with an empty buffer");
  while (s.out_pos == s.out.size()) {
    if (s.state == Impl::State::kDone) return size_t{0};
    // Only refill when drained: this is what bounds the buffer to one step's output.
    s.out.clear();
    s.out_pos = 0;
    Status st = s.Step();
    if (!st.ok()) {
      s.state = Impl::State::kFailed;
      s.failure = st;
      s.out.clear();
      s.out_pos = 0;
      return st;
    }
  }
  size_t n = std::min(cap, s.out.size() - s.out_pos);
  std::memcpy(buf, s.out.data() + s.out_pos, n);
  s.out_pos += n;
  return n;
}

size_t ZipStream::max_buffered() const { return impl_->max_buffered; }

}  // namespace nubo::files
