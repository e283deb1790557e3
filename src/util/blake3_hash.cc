#include "util/blake3_hash.h"

#include <blake3.h>

#include "util/strings.h"

namespace nubo {

struct Blake3::State {
  blake3_hasher hasher;
};

Blake3::Blake3() : state_(std::make_unique<State>()) { blake3_hasher_init(&state_->hasher); }
Blake3::~Blake3() = default;

void Blake3::Update(const void* data, size_t len) {
  blake3_hasher_update(&state_->hasher, data, len);
}

Blake3Digest Blake3::Final() const {
  Blake3Digest d;
  blake3_hasher_finalize(&state_->hasher, d.data(), d.size());
  return d;
}

Blake3Digest Blake3::Hash(std::string_view s) {
  Blake3 h;
  h.Update(s);
  return h.Final();
}

std::string DigestHex(const Blake3Digest& d) { return HexEncode(d.data(), d.size()); }

}  // namespace nubo
