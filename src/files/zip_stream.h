// ZipStream: a pull-based streaming ZIP writer, used to download a folder or
// a selection as one .zip without staging it on disk or in memory.
//
// The caller pulls archive bytes with Read() (e.g. into an HTTP chunked body);
// each Read drives one bounded step: one entry header, one ≤64 KiB piece of
// the current entry, or a piece of the closing central directory. Entries come
// lazily from a ZipEntries (a tree walk) and each entry's bytes from the
// ZipContent its `open` returns, so neither the entry list nor file contents
// are ever held whole.
//
// Memory is O(1) in the entry count: ZIP puts the central directory after all
// data (APPNOTE.TXT §4.3.6), one record per entry; records beyond 256 KiB go
// to an unlinked temp file in `spill_dir` and stream out at the end in
// pieces, so a 100,000-entry archive costs no more memory than a 10-entry one.
//
// Format: ZIP64 extensions are added where needed (an entry > 4 GiB, offsets
// > 4 GiB, > 65535 entries; APPNOTE.TXT §4.5.3), non-ASCII names are UTF-8 with
// the language encoding flag (general purpose bit 11, APPNOTE.TXT appendix D)
// so unzip, Windows Explorer, macOS and Python's zipfile decode them as UTF-8.
// Sizes and CRC follow each entry in a data descriptor (bit 3): the CRC is
// only known after the bytes were sent. Modification times are in the
// extended-timestamp extra field (exact seconds, UTC) besides the DOS fields.
//
// Thread-safety: a ZipStream is used by one thread at a time (not
// thread-safe); distinct ZipStreams are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "util/status.h"

namespace nubo::files {

// One entry's bytes, read in order. Owned by the ZipStream while the entry is written.
class ZipContent {
 public:
  virtual ~ZipContent() = default;
  // Copies up to `cap` (> 0) next bytes into `buf`; returns how many, 0 at the end.
  virtual Result<size_t> Read(char* buf, size_t cap) = 0;
};

struct ZipEntry {
  // UTF-8, "/"-separated, relative; folders without a trailing slash (the writer adds it).
  // Absolute paths and "", "." or ".." components are refused (InvalidArgument): a ZIP with them
  // is a path-traversal hazard for naive extractors ("zip slip").
  std::string path;
  bool folder = false;
  uint64_t size = 0;  // exact byte count of a file; a content of another length is Corruption
  int64_t mtime_ms = 0;
  bool store = true;  // true: stored (already-compressed media); false: deflate
  // Files only; called when the entry is written. May be empty for a file of size 0.
  std::function<Result<std::unique_ptr<ZipContent>>()> open;
};

// Supplies entries lazily (a tree walk), so memory does not grow with the entry count.
class ZipEntries {
 public:
  virtual ~ZipEntries() = default;
  // The next entry, nullopt when there are no more, or an error that aborts the archive.
  virtual Result<std::optional<ZipEntry>> Next() = 0;
};

class ZipStream {
 public:
  // `spill_dir`: where a large central directory waits (a temp file that is
  // never linked; empty: the system's temp directory). Use the data
  // directory's tmp/ so it lands on the server's disk, not a tmpfs.
  explicit ZipStream(std::unique_ptr<ZipEntries> entries, std::string spill_dir = "");
  ~ZipStream();
  ZipStream(const ZipStream&) = delete;
  ZipStream& operator=(const ZipStream&) = delete;

  // Copies up to `cap` next archive bytes into `buf` and returns how many (> 0), or 0 once the
  // whole archive was read. An error from the entries, a content or libarchive is returned as is
  // (a length mismatch as Corruption); the archive is then unusable and every later Read returns
  // the same error, so the caller must abort the response rather than end it cleanly: the bytes
  // sent so far are not a valid ZIP. `cap` must be > 0 (InvalidArgument otherwise).
  Result<size_t> Read(char* buf, size_t cap);

  // Peak bytes held in the output buffer so far (for tests and metrics).
  size_t max_buffered() const;
  // Peak central-directory bytes held in memory (the rest was spilled).
  size_t max_cd_memory() const;

 private:
  struct Impl;  // keeps zlib.h out of this header
  std::unique_ptr<Impl> impl_;
};

}  // namespace nubo::files
