// The ZIP writer (APPNOTE.TXT 6.3), written out here rather than through
// libarchive: libarchive keeps one central-directory record per entry in
// memory until the archive closes and then hands it over in one piece, so a
// 100,000-entry download held ~20 MB per request. Here the central
// directory goes to a spill file past kCdMemory bytes and streams out at the
// end in bounded pieces: memory is O(1) in the entry count. zlib does the
// deflating and the CRC (the only file that includes zlib.h).
#include "files/zip_stream.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <string_view>
#include <utility>

#include "util/posix_error.h"

namespace nubo::files {
namespace {

// One step writes at most this much entry data: large enough that per-call overhead (CRC, deflate
// setup, our Read loop) is noise, small enough that the output buffer stays a few hundred KiB.
constexpr size_t kPiece = 64 * 1024;
// Central-directory bytes kept in memory before they go to the spill file.
constexpr size_t kCdMemory = 256 * 1024;
// Entries this large (or whose data could grow past 4 GiB deflated) get ZIP64 fields.
constexpr uint64_t kZip64Size = 0xFF000000ull;

// PERSISTED (APPNOTE.TXT §4.3): record signatures and field values.
constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kDescriptorSig = 0x08074b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint16_t kFlagDescriptor = 1 << 3;  // sizes and CRC follow the data
constexpr uint16_t kFlagUtf8 = 1 << 11;       // names are UTF-8 (appendix D)
constexpr uint16_t kVersion20 = 20, kVersion45 = 45;  // 4.5 for ZIP64
constexpr uint16_t kMadeByUnix = 3 << 8;
constexpr uint16_t kExtraZip64 = 0x0001, kExtraTime = 0x5455;  // 4.5.3; "UT" extended timestamp

void Put16(std::string& o, uint16_t v) {
  o.push_back(static_cast<char>(v & 0xFF));
  o.push_back(static_cast<char>(v >> 8));
}
void Put32(std::string& o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void Put64(std::string& o, uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t Clamp32(uint64_t v) { return v >= 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<uint32_t>(v); }

// Well-formed UTF-8 (RFC 3629 §4).
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

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
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

// MS-DOS date and time (APPNOTE.TXT §4.4.6), in UTC; before 1980 is 1980.
std::pair<uint16_t, uint16_t> DosTime(int64_t seconds) {
  std::time_t t = static_cast<std::time_t>(std::max<int64_t>(seconds, 315532800));  // 1980-01-01
  std::tm tm{};
  gmtime_r(&t, &tm);
  if (tm.tm_year > 2107 - 1900) tm = std::tm{0, 0, 0, 31, 11, 2107 - 1900};
  const uint16_t time = static_cast<uint16_t>(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
  const uint16_t date =
      static_cast<uint16_t>((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
  return {time, date};
}

// Floor division: a pre-1970 time stays on the right second.
int64_t Seconds(int64_t ms) { return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000); }

}  // namespace

struct ZipStream::Impl {
  enum class State { kNextEntry, kData, kCentral, kDone, kFailed };

  Impl(std::unique_ptr<ZipEntries> e, std::string spill_dir)
      : entries(std::move(e)), spill_dir(std::move(spill_dir)), chunk(new char[kPiece]) {}
  ~Impl() {
    if (deflating) deflateEnd(&z);
    if (spill_fd >= 0) ::close(spill_fd);
  }

  // The records every entry carries: the UT extended timestamp (the exact
  // second, which DOS time cannot hold) and, for big entries, ZIP64 sizes.
  std::string TimeExtra() const {
    std::string x;
    if (mtime_s < std::numeric_limits<int32_t>::min() || mtime_s > std::numeric_limits<int32_t>::max()) {
      return x;
    }
    Put16(x, kExtraTime);
    Put16(x, 5);
    x.push_back(1);  // modification time present
    Put32(x, static_cast<uint32_t>(static_cast<int32_t>(mtime_s)));
    return x;
  }

  Status StartEntry(ZipEntry e) {
    NUBO_RETURN_IF_ERROR(CheckPath(e.path));
    path = e.folder ? e.path + "/" : e.path;
    folder = e.folder;
    declared = e.folder ? 0 : e.size;
    remaining = declared;
    deflate_entry = !e.folder && !e.store && declared > 0;
    zip64 = declared >= kZip64Size;
    mtime_s = Seconds(e.mtime_ms);
    crc = crc32(0L, Z_NULL, 0);
    compressed = 0;
    offset = written;
    flags = (IsAscii(path) ? 0 : kFlagUtf8) | (folder ? 0 : kFlagDescriptor);
    if (!folder && declared > 0) {
      if (!e.open) return Status::Internal("zip: file entry without content: " + path);
      auto opened = e.open();
      if (!opened.ok()) return opened.status().WithContext("zip: open " + path);
      content = std::move(*opened);
    }
    if (deflate_entry) {
      std::memset(&z, 0, sizeof z);
      if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        return Status::ResourceExhausted("zip: deflate init failed");
      }
      deflating = true;
    }
    // Local file header (§4.3.7). With the descriptor flag, CRC and sizes
    // follow the data; ZIP64 entries carry their known size in the extra.
    const auto [dos_time, dos_date] = DosTime(mtime_s);
    std::string x = TimeExtra();
    if (zip64) {
      Put16(x, kExtraZip64);
      Put16(x, 16);
      Put64(x, declared);
      Put64(x, deflate_entry ? 0 : declared);
    }
    Put32(out, kLocalSig);
    Put16(out, zip64 ? kVersion45 : kVersion20);
    Put16(out, flags);
    Put16(out, deflate_entry ? 8 : 0);
    Put16(out, dos_time);
    Put16(out, dos_date);
    Put32(out, 0);
    Put32(out, zip64 ? 0xFFFFFFFFu : 0);
    Put32(out, zip64 ? 0xFFFFFFFFu : 0);
    Put16(out, static_cast<uint16_t>(path.size()));
    Put16(out, static_cast<uint16_t>(x.size()));
    out += path;
    out += x;
    if (folder || declared == 0) return FinishEntry();
    state = State::kData;
    return Status::Ok();
  }

  // Deflates `n` input bytes (or, with `finish`, flushes the end) into `out`.
  Status Deflate(const char* data, size_t n, bool finish) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data));
    z.avail_in = static_cast<uInt>(n);
    for (;;) {
      char buf[16 * 1024];
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      int rc = deflate(&z, finish ? Z_FINISH : Z_NO_FLUSH);
      if (rc == Z_STREAM_ERROR) return Status::Internal("zip: deflate failed: " + path);
      const size_t made = sizeof buf - z.avail_out;
      out.append(buf, made);
      compressed += made;
      if (finish ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out != 0)) return Status::Ok();
    }
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
      crc = crc32(crc, reinterpret_cast<const Bytef*>(chunk.get()), static_cast<uInt>(n));
      if (deflate_entry) {
        NUBO_RETURN_IF_ERROR(Deflate(chunk.get(), n, false));
      } else {
        out.append(chunk.get(), n);
        compressed += n;
      }
      remaining -= n;
      return Status::Ok();
    }
    // A content longer than its declared size would make the sizes lie:
    // probe for one more byte.
    auto extra = content->Read(chunk.get(), kPiece);
    if (!extra.ok()) return extra.status().WithContext("zip: read " + path);
    if (*extra != 0) {
      return Status::Corruption("zip: " + path + " is longer than its declared " +
                                std::to_string(declared) + " bytes");
    }
    if (deflate_entry) {
      NUBO_RETURN_IF_ERROR(Deflate(nullptr, 0, true));
      deflateEnd(&z);
      deflating = false;
    }
    return FinishEntry();
  }

  // The data descriptor (§4.3.9) and the entry's central-directory record.
  Status FinishEntry() {
    const bool big = zip64 || compressed >= 0xFFFFFFFFull;
    if (!folder) {
      Put32(out, kDescriptorSig);
      Put32(out, crc);
      if (big) {
        Put64(out, compressed);
        Put64(out, declared);
      } else {
        Put32(out, static_cast<uint32_t>(compressed));
        Put32(out, static_cast<uint32_t>(declared));
      }
    }
    content.reset();
    written += out.size() - written_mark;
    written_mark = out.size();
    // Central directory header (§4.3.12): ZIP64 fields for whatever does not fit 32 bits.
    std::string x = TimeExtra();
    std::string z64;
    if (declared >= 0xFFFFFFFFull || big) Put64(z64, declared);
    if (compressed >= 0xFFFFFFFFull || big) Put64(z64, compressed);
    if (offset >= 0xFFFFFFFFull) Put64(z64, offset);
    if (!z64.empty()) {
      Put16(x, kExtraZip64);
      Put16(x, static_cast<uint16_t>(z64.size()));
      x += z64;
    }
    const auto [dos_time, dos_date] = DosTime(mtime_s);
    const bool needs45 = !z64.empty() || zip64;
    std::string& cd = cd_mem;
    Put32(cd, kCentralSig);
    Put16(cd, kMadeByUnix | kVersion45);
    Put16(cd, needs45 ? kVersion45 : kVersion20);
    Put16(cd, flags);
    Put16(cd, deflate_entry ? 8 : 0);
    Put16(cd, dos_time);
    Put16(cd, dos_date);
    Put32(cd, folder ? 0 : crc);
    Put32(cd, big ? 0xFFFFFFFFu : Clamp32(compressed));
    Put32(cd, big ? 0xFFFFFFFFu : Clamp32(declared));
    Put16(cd, static_cast<uint16_t>(path.size()));
    Put16(cd, static_cast<uint16_t>(x.size()));
    Put16(cd, 0);  // comment
    Put16(cd, 0);  // disk
    Put16(cd, 0);  // internal attributes
    // External attributes: the Unix mode in the high half, the MS-DOS
    // directory bit in the low byte.
    Put32(cd, (folder ? 040755u : 0100644u) << 16 | (folder ? 0x10u : 0u));
    Put32(cd, Clamp32(offset));
    cd += path;
    cd += x;
    ++count;
    cd_bytes += 46 + path.size() + x.size();
    max_cd_memory = std::max(max_cd_memory, cd_mem.size());
    if (cd_mem.size() >= kCdMemory) NUBO_RETURN_IF_ERROR(Spill());
    state = State::kNextEntry;
    return Status::Ok();
  }

  // Moves the in-memory central directory to the spill file: an unlinked
  // temp file, so nothing is left behind whatever happens.
  Status Spill() {
    if (spill_fd < 0) {
      std::string dir = spill_dir.empty() ? std::filesystem::temp_directory_path().string() : spill_dir;
      spill_fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
      if (spill_fd < 0) {
        // File systems without O_TMPFILE: a named file, unlinked at once.
        std::string tmpl = dir + "/zip-cd-XXXXXX";
        spill_fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
        if (spill_fd < 0) return PosixError("zip: spill file in " + dir, errno);
        ::unlink(tmpl.c_str());
      }
    }
    size_t done = 0;
    while (done < cd_mem.size()) {
      ssize_t n = ::write(spill_fd, cd_mem.data() + done, cd_mem.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return PosixError("zip: write spill file", errno);
      done += static_cast<size_t>(n);
    }
    spilled += cd_mem.size();
    cd_mem.clear();
    return Status::Ok();
  }

  // The central directory (spilled part first, then what is in memory),
  // a piece at a time, then the end records.
  Status WriteCentral() {
    if (cd_offset_known == false) {
      cd_offset = written;
      cd_offset_known = true;
      if (spill_fd >= 0 && ::lseek(spill_fd, 0, SEEK_SET) < 0) {
        return PosixError("zip: rewind spill file", errno);
      }
    }
    if (spill_read < spilled) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kPiece, spilled - spill_read));
      const size_t at = out.size();
      out.resize(at + want);
      ssize_t n = ::read(spill_fd, out.data() + at, want);
      if (n < 0 && errno == EINTR) n = 0;
      if (n < 0) return PosixError("zip: read spill file", errno);
      if (n == 0) return Status::IoError("zip: spill file ended early");
      out.resize(at + static_cast<size_t>(n));
      spill_read += static_cast<uint64_t>(n);
      return Status::Ok();
    }
    if (cd_mem_pos < cd_mem.size()) {
      const size_t n = std::min(kPiece, cd_mem.size() - cd_mem_pos);
      out.append(cd_mem, cd_mem_pos, n);
      cd_mem_pos += n;
      return Status::Ok();
    }
    cd_mem.clear();
    cd_mem.shrink_to_fit();
    // End records (§4.3.14-4.3.16): ZIP64 ones when a count or offset does
    // not fit the classic record.
    const uint64_t end_at = cd_offset + cd_bytes;
    const bool z64 = count > 0xFFFF || cd_bytes >= 0xFFFFFFFFull || cd_offset >= 0xFFFFFFFFull;
    if (z64) {
      Put32(out, kZip64EndSig);
      Put64(out, 44);
      Put16(out, kMadeByUnix | kVersion45);
      Put16(out, kVersion45);
      Put32(out, 0);
      Put32(out, 0);
      Put64(out, count);
      Put64(out, count);
      Put64(out, cd_bytes);
      Put64(out, cd_offset);
      Put32(out, kZip64LocatorSig);
      Put32(out, 0);
      Put64(out, end_at);
      Put32(out, 1);
    }
    Put32(out, kEndSig);
    Put16(out, 0);
    Put16(out, 0);
    Put16(out, z64 ? 0xFFFF : static_cast<uint16_t>(count));
    Put16(out, z64 ? 0xFFFF : static_cast<uint16_t>(count));
    Put32(out, Clamp32(cd_bytes));
    Put32(out, Clamp32(cd_offset));
    Put16(out, 0);
    state = State::kDone;
    return Status::Ok();
  }

  // Produces the next bytes into `out`.
  Status Step() {
    switch (state) {
      case State::kNextEntry: {
        auto next = entries->Next();
        if (!next.ok()) return next.status().WithContext("zip: next entry");
        if (next->has_value()) return StartEntry(std::move(**next));
        state = State::kCentral;
        return Status::Ok();
      }
      case State::kData:
        return WriteData();
      case State::kCentral:
        return WriteCentral();
      case State::kDone:
      case State::kFailed:
        break;
    }
    return Status::Internal("zip: step in a final state");
  }

  std::unique_ptr<ZipEntries> entries;
  std::string spill_dir;
  State state = State::kNextEntry;
  Status failure;  // sticky once state is kFailed

  std::string out;  // bytes produced, handed out from out_pos
  size_t out_pos = 0;
  size_t max_buffered = 0;
  uint64_t written = 0;     // archive bytes produced before `out`'s current contents
  size_t written_mark = 0;  // how much of `out` is already counted in `written`

  // The current entry.
  std::string path;
  bool folder = false;
  bool deflate_entry = false;
  bool zip64 = false;
  uint16_t flags = 0;
  int64_t mtime_s = 0;
  uint64_t declared = 0, remaining = 0, compressed = 0, offset = 0;
  uLong crc = 0;
  std::unique_ptr<ZipContent> content;
  z_stream z{};
  bool deflating = false;
  std::unique_ptr<char[]> chunk;

  // The central directory.
  std::string cd_mem;
  size_t cd_mem_pos = 0;  // handed out at the end
  size_t max_cd_memory = 0;
  int spill_fd = -1;
  uint64_t spilled = 0, spill_read = 0;
  uint64_t count = 0, cd_bytes = 0, cd_offset = 0;
  bool cd_offset_known = false;
};

ZipStream::ZipStream(std::unique_ptr<ZipEntries> entries, std::string spill_dir)
    : impl_(std::make_unique<Impl>(std::move(entries), std::move(spill_dir))) {}

ZipStream::~ZipStream() = default;

Result<size_t> ZipStream::Read(char* buf, size_t cap) {
  Impl& s = *impl_;
  if (s.state == Impl::State::kFailed) return s.failure;
  if (cap == 0) return Status::InvalidArgument("zip: Read with an empty buffer");
  while (s.out_pos == s.out.size()) {
    if (s.state == Impl::State::kDone) return size_t{0};
    // Only refill when drained: this is what bounds the buffer to one step's output.
    s.written += s.out.size() - s.written_mark;
    s.out.clear();
    s.out_pos = 0;
    s.written_mark = 0;
    Status st = s.Step();
    if (!st.ok()) {
      s.state = Impl::State::kFailed;
      s.failure = st;
      s.out.clear();
      s.out_pos = 0;
      return st;
    }
    s.max_buffered = std::max(s.max_buffered, s.out.size());
  }
  size_t n = std::min(cap, s.out.size() - s.out_pos);
  std::memcpy(buf, s.out.data() + s.out_pos, n);
  s.out_pos += n;
  return n;
}

size_t ZipStream::max_buffered() const { return impl_->max_buffered; }
size_t ZipStream::max_cd_memory() const { return impl_->max_cd_memory; }

}  // namespace nubo::files
