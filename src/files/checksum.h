// Client-supplied whole-file checksums ("<algo>:<hex>", as in an
// X-Checksum or OC-Checksum header), verified while the bytes stream in so
// a mismatch is known before anything is committed. BLAKE3 comes free from
// ingest; SHA-256, SHA-1 and MD5 (what Nextcloud clients send) go through
// OpenSSL. Not thread-safe; one Checksum per stream.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "util/blake3_hash.h"
#include "util/status.h"

namespace nubo::files {

class Checksum {
 public:
  // InvalidArgument for an unknown algorithm or a malformed hex digest.
  static Result<std::unique_ptr<Checksum>> Parse(std::string_view spec);
  ~Checksum();

  void Update(const char* data, size_t len);
  // False for BLAKE3, which Verify compares with the content hash alone.
  bool NeedsBytes() const { return evp_ != nullptr; }
  // InvalidArgument naming the algorithm when the digest differs.
  // `blake3` is the content hash ingest computed.
  Status Verify(const Blake3Digest& blake3);
  // After a successful Verify: the checksum as Nextcloud clients read it
  // back (oc:checksums, OC-Checksum), "SHA1:<hex>"; empty for BLAKE3,
  // which is the content's own hash and not something those clients know.
  std::string Entry() const;

  // `stored` (entries separated by spaces, as Entry() makes them) with
  // `entry` added, replacing one of the same algorithm; at most one entry
  // per algorithm, so the result stays short.
  static std::string Merge(std::string_view stored, std::string_view entry);

 private:
  Checksum() = default;
  std::string algo_;      // lower case
  std::string expected_;  // lower-case hex
  struct Evp;
  std::unique_ptr<Evp> evp_;  // null for blake3
  bool verified_ = false;
};

}  // namespace nubo::files
