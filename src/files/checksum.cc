#include "files/checksum.h"

#include <openssl/evp.h>

#include "files/access.h"
#include "util/dynlib.h"
#include "util/strings.h"

namespace nubo::files {

namespace {

// libcrypto is opened by the first upload that sends a SHA or MD5
// checksum, not linked: see util/dynlib.h. One member per function used.
struct Libcrypto {
  util::DynLib lib{"libcrypto.so.3", "libssl3"};
  decltype(&::EVP_sha256) EVP_sha256 = nullptr;
  decltype(&::EVP_sha1) EVP_sha1 = nullptr;
  decltype(&::EVP_md5) EVP_md5 = nullptr;
  decltype(&::EVP_MD_get_size) EVP_MD_get_size = nullptr;
  decltype(&::EVP_MD_CTX_new) EVP_MD_CTX_new = nullptr;
  decltype(&::EVP_MD_CTX_free) EVP_MD_CTX_free = nullptr;
  decltype(&::EVP_DigestInit_ex) EVP_DigestInit_ex = nullptr;
  decltype(&::EVP_DigestUpdate) EVP_DigestUpdate = nullptr;
  decltype(&::EVP_DigestFinal_ex) EVP_DigestFinal_ex = nullptr;

  Libcrypto() {
    lib.Load(EVP_sha256, "EVP_sha256");
    lib.Load(EVP_sha1, "EVP_sha1");
    lib.Load(EVP_md5, "EVP_md5");
    lib.Load(EVP_MD_get_size, "EVP_MD_get_size");
    lib.Load(EVP_MD_CTX_new, "EVP_MD_CTX_new");
    lib.Load(EVP_MD_CTX_free, "EVP_MD_CTX_free");
    lib.Load(EVP_DigestInit_ex, "EVP_DigestInit_ex");
    lib.Load(EVP_DigestUpdate, "EVP_DigestUpdate");
    lib.Load(EVP_DigestFinal_ex, "EVP_DigestFinal_ex");
  }
};

const Libcrypto& Crypto() {
  static const Libcrypto l;
  return l;
}

}  // namespace

struct Checksum::Evp {
  EVP_MD_CTX* ctx = nullptr;
  ~Evp() {
    if (ctx) Crypto().EVP_MD_CTX_free(ctx);
  }
};

Result<std::unique_ptr<Checksum>> Checksum::Parse(std::string_view spec) {
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return Status::InvalidArgument("checksum must look like <algorithm>:<hex digest>");
  }
  std::unique_ptr<Checksum> c(new Checksum);
  c->algo_ = AsciiLowerCopy(Trim(spec.substr(0, colon)));
  c->expected_ = AsciiLowerCopy(Trim(spec.substr(colon + 1)));
  size_t want_hex = 0;
  const EVP_MD* md = nullptr;
  const bool evp = c->algo_ == "sha256" || c->algo_ == "sha1" || c->algo_ == "md5";
  if (c->algo_ != "blake3" && !evp) {
    return Status::InvalidArgument("unsupported checksum algorithm \"" + c->algo_ +
                                   "\" (blake3, sha256, sha1, md5)");
  }
  if (!evp) {
    want_hex = 64;
  } else {
    const Libcrypto& l = Crypto();
    if (!l.lib.ok()) return Status::Unavailable(l.lib.error());
    md = c->algo_ == "sha256" ? l.EVP_sha256() : c->algo_ == "sha1" ? l.EVP_sha1() : l.EVP_md5();
    want_hex = static_cast<size_t>(l.EVP_MD_get_size(md)) * 2;
  }
  bool hex = c->expected_.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (c->expected_.size() != want_hex || !hex) {
    return Status::InvalidArgument(c->algo_ + " checksum must be " + std::to_string(want_hex) +
                                   " hex digits");
  }
  if (md) {
    c->evp_ = std::make_unique<Evp>();
    c->evp_->ctx = Crypto().EVP_MD_CTX_new();
    if (!c->evp_->ctx || Crypto().EVP_DigestInit_ex(c->evp_->ctx, md, nullptr) != 1) {
      return Status::Internal("cannot initialize " + c->algo_);
    }
  }
  return c;
}

Checksum::~Checksum() = default;

void Checksum::Update(const char* data, size_t len) {
  if (evp_) Crypto().EVP_DigestUpdate(evp_->ctx, data, len);
}

Status Checksum::Verify(const Blake3Digest& blake3) {
  std::string got;
  if (evp_) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (Crypto().EVP_DigestFinal_ex(evp_->ctx, md, &n) != 1)
      return Status::Internal("digest failed");
    got = HexEncode(md, n);
  } else {
    got = DigestHex(blake3);
  }
  if (got != expected_) {
    return Status::InvalidArgument(algo_ + " checksum mismatch: the body hashes to " + got +
                                   ", the request said " + expected_ + "; nothing was stored");
  }
  verified_ = true;
  return Status::Ok();
}

std::string Checksum::Entry() const {
  if (!verified_ || !evp_) return "";
  std::string name = algo_;
  for (char& ch : name) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  }
  return name + ":" + expected_;
}

std::string Checksum::Merge(std::string_view stored, std::string_view entry) {
  if (entry.empty()) return std::string(stored);
  const std::string_view algo = entry.substr(0, entry.find(':') + 1);  // "SHA1:"
  std::string out(entry);
  while (!stored.empty()) {
    const size_t sp = stored.find(' ');
    const std::string_view e = stored.substr(0, sp);
    if (!e.empty() && e.substr(0, algo.size()) != algo) {
      out += ' ';
      out += e;
    }
    if (sp == std::string_view::npos) break;
    stored.remove_prefix(sp + 1);
  }
  return out;
}

Status KeepChecksum(meta::WriteTxn& txn, int64_t manifest_id, const Checksum& c) {
  const std::string entry = c.Entry();
  if (entry.empty()) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(std::string stored, txn.ManifestChecksums(manifest_id));
  std::string merged = Checksum::Merge(stored, entry);
  if (merged == stored) return Status::Ok();
  return txn.SetManifestChecksums(manifest_id, merged);
}

}  // namespace nubo::files
