#include "files/zip_stream.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <locale.h>

#include <clocale>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nubo::files {
namespace {

// Hands out a string in pieces of at most `piece` bytes, like a blob read in odd chunks.
class StringContent : public ZipContent {
 public:
  StringContent(std::shared_ptr<const std::string> data, size_t piece)
      : data_(std::move(data)), piece_(piece) {}
  Result<size_t> Read(char* buf, size_t cap) override {
    size_t n = std::min({cap, piece_, data_->size() - pos_});
    std::memcpy(buf, data_->data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::shared_ptr<const std::string> data_;
  size_t piece_;
  size_t pos_ = 0;
};

ZipEntry File(std::string path, std::string data, bool store = true, size_t piece = 4096) {
  auto shared = std::make_shared<const std::string>(std::move(data));
  ZipEntry e;
  e.path = std::move(path);
  e.size = shared->size();
  e.mtime_ms = 1700000000123;
  e.store = store;
  e.open = [shared, piece]() -> Result<std::unique_ptr<ZipContent>> {
    return std::unique_ptr<ZipContent>(std::make_unique<StringContent>(shared, piece));
  };
  return e;
}

ZipEntry Folder(std::string path) {
  ZipEntry e;
  e.path = std::move(path);
  e.folder = true;
  e.mtime_ms = 1700000000000;
  return e;
}

class ListEntries : public ZipEntries {
 public:
  explicit ListEntries(std::vector<ZipEntry> list) : list_(std::move(list)) {}
  Result<std::optional<ZipEntry>> Next() override {
    if (next_ == list_.size()) return std::optional<ZipEntry>();
    return std::optional<ZipEntry>(std::move(list_[next_++]));
  }

 private:
  std::vector<ZipEntry> list_;
  size_t next_ = 0;
};

// Generates `count` tiny entries on the fly, as a tree walk would, and records the stream's peak
// buffer at the moment the walk ends (before the central directory is written).
class GeneratedEntries : public ZipEntries {
 public:
  GeneratedEntries(int count, const ZipStream** stream, size_t* peak_before_close)
      : count_(count), stream_(stream), peak_before_close_(peak_before_close) {}
  Result<std::optional<ZipEntry>> Next() override {
    if (i_ == count_) {
      *peak_before_close_ = (*stream_)->max_buffered();
      return std::optional<ZipEntry>();
    }
    int i = i_++;
    if (i % 1000 == 0) return std::optional<ZipEntry>(Folder("d" + std::to_string(i / 1000)));
    return std::optional<ZipEntry>(
        File("d" + std::to_string(i / 1000) + "/f" + std::to_string(i) + ".txt",
             "file " + std::to_string(i), /*store=*/i % 2 == 0));
  }

 private:
  int count_;
  int i_ = 0;
  const ZipStream** stream_;
  size_t* peak_before_close_;
};

std::string PseudoRandom(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  uint64_t x = seed;
  for (char& c : s) {
    x ^= x << 13;  // xorshift64: incompressible enough that deflate cannot shrink it
    x ^= x >> 7;
    x ^= x << 17;
    c = static_cast<char>(x >> 56);
  }
  return s;
}

// Reads the whole archive in deliberately odd-sized Read() calls.
Result<std::string> ReadAll(ZipStream& zip) {
  static constexpr size_t kSizes[] = {1, 7, 1000, 65537, 13, 300000};
  std::string out;
  std::vector<char> buf(300000);
  for (size_t i = 0;; ++i) {
    size_t cap = kSizes[i % std::size(kSizes)];
    NUBO_ASSIGN_OR_RETURN(size_t n, zip.Read(buf.data(), cap));
    if (n == 0) return out;
    EXPECT_LE(n, cap);
    out.append(buf.data(), n);
  }
}

struct ReadEntry {
  std::string path;
  bool folder = false;
  int64_t size = 0;
  int64_t mtime = 0;
  std::string data;
};

// Reads an archive back with libarchive's seekable ZIP reader, which trusts the central directory
// (the streaming reader would have to guess where stored entries with data descriptors end).
std::vector<ReadEntry> ReadBack(const std::string& zip) {
  std::vector<ReadEntry> out;
  // The reader converts names to the locale's charset, and a test runs in the "C" locale, where
  // non-ASCII names are lost. Switch this thread (only) to a UTF-8 locale.
  locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  EXPECT_NE(utf8, static_cast<locale_t>(0)) << "no C.UTF-8 locale";
  locale_t previous = utf8 != static_cast<locale_t>(0) ? uselocale(utf8) : static_cast<locale_t>(0);
  struct archive* a = archive_read_new();
  archive_read_support_format_zip_seekable(a);
  EXPECT_EQ(archive_read_open_memory(a, zip.data(), zip.size()), ARCHIVE_OK)
      << archive_error_string(a);
  struct archive_entry* e;
  int r;
  while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
    ReadEntry re;
    const char* p = archive_entry_pathname_utf8(e);
    re.path = p != nullptr ? p : "<null>";
    re.folder = archive_entry_filetype(e) == AE_IFDIR;
    re.size = archive_entry_size(e);
    re.mtime = archive_entry_mtime(e);
    char buf[8192];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) re.data.append(buf, n);
    EXPECT_EQ(n, 0) << archive_error_string(a);
    out.push_back(std::move(re));
  }
  EXPECT_EQ(r, ARCHIVE_EOF) << archive_error_string(a);
  archive_read_free(a);
  if (utf8 != static_cast<locale_t>(0)) {
    uselocale(previous);
    freelocale(utf8);
  }
  return out;
}

uint16_t Le16(const std::string& s, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(s[at]) | static_cast<uint8_t>(s[at + 1]) << 8);
}
uint32_t Le32(const std::string& s, size_t at) {
  return Le16(s, at) | uint32_t{Le16(s, at + 2)} << 16;
}
uint64_t Le64(const std::string& s, size_t at) {
  return Le32(s, at) | uint64_t{Le32(s, at + 4)} << 32;
}

struct CdRecord {
  uint16_t flags;
  uint16_t method;
};

// Central directory records by name (APPNOTE.TXT §4.3.12), to check what the reader hides:
// the compression method and the UTF-8 flag. No archive comment, so EOCD is the last 22 bytes.
std::map<std::string, CdRecord> CentralDirectory(const std::string& zip, uint64_t* cd_size) {
  std::map<std::string, CdRecord> out;
  size_t eocd = zip.size() - 22;
  EXPECT_EQ(zip.substr(eocd, 4), std::string("PK\x05\x06"));
  uint64_t size = Le32(zip, eocd + 12);
  uint64_t offset = Le32(zip, eocd + 16);
  if (offset == 0xffffffff || Le16(zip, eocd + 10) == 0xffff) {  // ZIP64 EOCD (§4.3.14)
    size_t locator = eocd - 20;
    EXPECT_EQ(zip.substr(locator, 4), std::string("PK\x06\x07"));
    size_t eocd64 = Le64(zip, locator + 8);
    EXPECT_EQ(zip.substr(eocd64, 4), std::string("PK\x06\x06"));
    size = Le64(zip, eocd64 + 40);
    offset = Le64(zip, eocd64 + 48);
  }
  *cd_size = size;
  for (size_t p = offset; p < offset + size;) {
    EXPECT_EQ(zip.substr(p, 4), std::string("PK\x01\x02"));
    uint16_t name_len = Le16(zip, p + 28);
    out[zip.substr(p + 46, name_len)] = {Le16(zip, p + 8), Le16(zip, p + 10)};
    p += 46 + name_len + Le16(zip, p + 30) + Le16(zip, p + 32);
  }
  return out;
}

TEST(ZipStream, MixedEntriesRoundTrip) {
  const std::string kUnicodeDir = "\xc3\xbcn\xc3\xaf \xc3\xa7\xc3\xb8\x64\xc3\xa9";  // ünï çødé
  const std::string kUnicodeFile = kUnicodeDir + "/\xe6\x97\xa5\xe6\x9c\xac.txt";    // 日本.txt
  std::string random = PseudoRandom(3 << 20, 42);
  std::string random_deflated = PseudoRandom(1 << 20, 7);
  std::string text;
  while (text.size() < 200000) text += "The quick brown fox jumps over the lazy dog. ";

  std::vector<ZipEntry> list;
  list.push_back(File("empty.txt", ""));
  list.push_back(Folder(kUnicodeDir));
  list.push_back(File(kUnicodeFile, "konnichiwa"));
  list.push_back(File("media/random.bin", random, /*store=*/true, /*piece=*/7777));
  list.push_back(File("notes.txt", text, /*store=*/false, /*piece=*/3001));
  list.push_back(File("media/random-deflated.bin", random_deflated, /*store=*/false));
  ZipStream zip(std::make_unique<ListEntries>(std::move(list)));
  auto bytes = ReadAll(zip);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  // Stored random data dominates; the text must have shrunk a lot.
  EXPECT_LT(bytes->size(), random.size() + random_deflated.size() + 50000);
  EXPECT_LE(zip.max_buffered(), 256u * 1024);

  auto entries = ReadBack(*bytes);
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[0].path, "empty.txt");
  EXPECT_EQ(entries[0].size, 0);
  EXPECT_EQ(entries[0].data, "");
  EXPECT_EQ(entries[0].mtime, 1700000000);
  EXPECT_EQ(entries[1].path, kUnicodeDir + "/");
  EXPECT_TRUE(entries[1].folder);
  EXPECT_EQ(entries[2].path, kUnicodeFile);
  EXPECT_EQ(entries[2].data, "konnichiwa");
  EXPECT_EQ(entries[3].path, "media/random.bin");
  EXPECT_EQ(entries[3].size, static_cast<int64_t>(random.size()));
  EXPECT_TRUE(entries[3].data == random);
  EXPECT_EQ(entries[4].path, "notes.txt");
  EXPECT_TRUE(entries[4].data == text);
  EXPECT_TRUE(entries[5].data == random_deflated);

  uint64_t cd_size = 0;
  auto cd = CentralDirectory(*bytes, &cd_size);
  ASSERT_EQ(cd.size(), 6u);
  EXPECT_EQ(cd["media/random.bin"].method, 0);  // stored
  EXPECT_EQ(cd["notes.txt"].method, 8);         // deflated: the per-entry switch took effect
  EXPECT_EQ(cd["media/random-deflated.bin"].method, 8);
  EXPECT_EQ(cd["empty.txt"].method, 0);
  EXPECT_NE(cd[kUnicodeFile].flags & (1 << 11), 0) << "UTF-8 flag missing";
  EXPECT_NE(cd[kUnicodeDir + "/"].flags & (1 << 11), 0);
  EXPECT_EQ(cd["notes.txt"].flags & (1 << 11), 0);  // plain ASCII needs no flag

  // The end stays the end.
  char c;
  auto again = zip.Read(&c, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0u);
}

TEST(ZipStream, EmptyArchiveIsValid) {
  ZipStream zip(std::make_unique<ListEntries>(std::vector<ZipEntry>{}));
  auto bytes = ReadAll(zip);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  // Just the end-of-central-directory record, all counts zero (libarchive's reader does not
  // recognize such an archive; unzip and Python's zipfile list it as empty).
  EXPECT_EQ(*bytes, std::string("PK\x05\x06") + std::string(18, '\0'));
}

TEST(ZipStream, ManyEntriesKeepTheBufferBounded) {
  constexpr int kCount = 20000;
  const ZipStream* self = nullptr;
  size_t peak_before_close = 0;
  ZipStream zip(std::make_unique<GeneratedEntries>(kCount, &self, &peak_before_close));
  self = &zip;
  auto bytes = ReadAll(zip);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  // While entries stream, the buffer holds one step whatever the count...
  EXPECT_LE(peak_before_close, 16u * 1024);
  // ...and so it does at close: the central directory (about 1.4 MB here)
  // was spilled past 256 KiB and streams out in pieces.
  uint64_t cd_size = 0;
  auto cd = CentralDirectory(*bytes, &cd_size);
  EXPECT_EQ(cd.size(), static_cast<size_t>(kCount));
  EXPECT_GT(cd_size, 1000000u);
  EXPECT_LE(zip.max_buffered(), 80u * 1024);
  EXPECT_LE(zip.max_cd_memory(), 257u * 1024);
  EXPECT_LE(cd_size, 100u * kCount);

  auto entries = ReadBack(*bytes);
  ASSERT_EQ(entries.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(entries[12345].path, "d12/f12345.txt");
  EXPECT_EQ(entries[12345].data, "file 12345");
  EXPECT_EQ(entries[19000].path, "d19/");
}

TEST(ZipStream, MoreThan65535EntriesUseZip64End) {
  constexpr int kCount = 70000;
  const ZipStream* self = nullptr;
  size_t peak = 0;
  ZipStream zip(std::make_unique<GeneratedEntries>(kCount, &self, &peak));
  self = &zip;
  auto bytes = ReadAll(zip);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  uint64_t cd_size = 0;
  EXPECT_EQ(Le16(*bytes, bytes->size() - 22 + 10), 0xffff);  // count deferred to ZIP64 EOCD
  EXPECT_LE(zip.max_buffered(), 80u * 1024);  // memory does not grow with the count
  EXPECT_EQ(CentralDirectory(*bytes, &cd_size).size(), static_cast<size_t>(kCount));
  EXPECT_EQ(ReadBack(*bytes).size(), static_cast<size_t>(kCount));
}

TEST(ZipStream, ShortContentIsCorruption) {
  ZipEntry e = File("short.bin", std::string(60, 'x'));
  e.size = 100;  // the walk saw 100 bytes, the blob has 60
  std::vector<ZipEntry> list;
  list.push_back(std::move(e));
  ZipStream zip(std::make_unique<ListEntries>(std::move(list)));
  auto bytes = ReadAll(zip);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), Code::kCorruption);
  EXPECT_NE(bytes.status().message().find("short.bin"), std::string::npos);
  char c;
  EXPECT_EQ(zip.Read(&c, 1).status().code(), Code::kCorruption);  // sticky
}

TEST(ZipStream, LongContentIsCorruption) {
  for (bool store : {true, false}) {
    ZipEntry e = File("long.bin", std::string(20, 'x'), store);
    e.size = 10;
    std::vector<ZipEntry> list;
    list.push_back(std::move(e));
    ZipStream zip(std::make_unique<ListEntries>(std::move(list)));
    auto bytes = ReadAll(zip);
    ASSERT_FALSE(bytes.ok());
    EXPECT_EQ(bytes.status().code(), Code::kCorruption);
  }
}

TEST(ZipStream, ErrorsFromEntriesAndOpenPropagate) {
  class Failing : public ZipEntries {
    Result<std::optional<ZipEntry>> Next() override {
      if (n_++ == 0) return std::optional<ZipEntry>(File("a.txt", "a"));
      return Status::IoError("disk on fire");
    }
    int n_ = 0;
  };
  ZipStream zip(std::make_unique<Failing>());
  auto bytes = ReadAll(zip);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), Code::kIoError);

  ZipEntry e = File("gone.txt", "x");
  e.open = []() -> Result<std::unique_ptr<ZipContent>> { return Status::NotFound("gone"); };
  std::vector<ZipEntry> list;
  list.push_back(std::move(e));
  ZipStream zip2(std::make_unique<ListEntries>(std::move(list)));
  EXPECT_EQ(ReadAll(zip2).status().code(), Code::kNotFound);
}

TEST(ZipStream, RefusesBadPaths) {
  for (const char* bad : {"../x", "/etc/passwd", "a/../../x", "a//b", "./a", "", "dir/",
                          "bad\xff.txt", "over\xc0\xaflong", "cut\xe6\x97"}) {
    std::vector<ZipEntry> list;
    list.push_back(File(bad, "x"));
    ZipStream zip(std::make_unique<ListEntries>(std::move(list)));
    EXPECT_EQ(ReadAll(zip).status().code(), Code::kInvalidArgument) << bad;
  }
}

TEST(ZipStream, AbandonedMidEntryIsClean) {
  // Destroying a stream mid-deflate must not leak or crash (ASan builds check the former).
  std::vector<ZipEntry> list;
  list.push_back(File("big.txt", std::string(1 << 20, 'a'), /*store=*/false));
  ZipStream zip(std::make_unique<ListEntries>(std::move(list)));
  char buf[100];
  ASSERT_TRUE(zip.Read(buf, sizeof buf).ok());
  ASSERT_TRUE(zip.Read(buf, sizeof buf).ok());
}

// Content of `size` zero bytes, generated, so a > 4 GiB entry needs no memory.
class ZeroContent : public ZipContent {
 public:
  explicit ZeroContent(uint64_t size) : left_(size) {}
  Result<size_t> Read(char* buf, size_t cap) override {
    size_t n = static_cast<size_t>(std::min<uint64_t>(cap, left_));
    std::memset(buf, 0, n);
    left_ -= n;
    return n;
  }

 private:
  uint64_t left_;
};

// Streams 4 GiB + 1 through CRC and the buffer: ~2 s optimized, far longer under ASan, so run by
// hand
// (--gtest_also_run_disabled_tests --gtest_filter='*Huge*').
TEST(ZipStream, DISABLED_HugeEntryUsesZip64) {
  static constexpr uint64_t kSize = (uint64_t{1} << 32) + 1;
  ZipEntry e;
  e.path = "huge.bin";
  e.size = kSize;
  e.open = []() -> Result<std::unique_ptr<ZipContent>> {
    return std::unique_ptr<ZipContent>(std::make_unique<ZeroContent>(kSize));
  };
  std::vector<ZipEntry> list;
  list.push_back(std::move(e));
  list.push_back(File("after.txt", "after"));  // its offset is past 4 GiB
  ZipStream zip(std::make_unique<ListEntries>(std::move(list)));
  std::string head, tail;
  uint64_t total = 0;
  std::vector<char> buf(1 << 20);
  for (;;) {
    auto n = zip.Read(buf.data(), buf.size());
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    if (head.size() < 4096) head.append(buf.data(), std::min<size_t>(*n, 4096));
    tail.append(buf.data(), *n);
    if (tail.size() > 8192) tail.erase(0, tail.size() - 4096);
    total += *n;
  }
  EXPECT_GT(total, kSize);
  EXPECT_LE(zip.max_buffered(), 256u * 1024);
  EXPECT_EQ(Le32(head, 18), 0xffffffffu);  // local header sizes deferred to the ZIP64 extra
  // Walk the local header's extra fields (APPNOTE.TXT §4.5.1) to the ZIP64 one (id 1).
  size_t extra = 30 + Le16(head, 26), extra_end = extra + Le16(head, 28);
  while (extra < extra_end && Le16(head, extra) != 0x0001) extra += 4 + Le16(head, extra + 2);
  ASSERT_LT(extra, extra_end) << "no ZIP64 extra field";
  EXPECT_EQ(Le64(head, extra + 4), kSize);
  EXPECT_NE(tail.find("PK\x06\x06"), std::string::npos);  // ZIP64 end of central directory
}

}  // namespace
}  // namespace nubo::files
