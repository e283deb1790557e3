#include "util/blake3_hash.h"

#include <blake3.h>

#include <cstring>

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

namespace {
// The library's version and the layout's size: a state saved by another
// BLAKE3 build is refused instead of misread.
std::string StateTag() {
  return std::string("b3s:") + blake3_version() + ":" + std::to_string(sizeof(blake3_hasher)) + ":";
}
}  // namespace

std::string Blake3::SaveState() const {
  std::string out = StateTag();
  out.append(reinterpret_cast<const char*>(&state_->hasher), sizeof(blake3_hasher));
  return out;
}

bool Blake3::RestoreState(std::string_view state) {
  const std::string tag = StateTag();
  if (state.size() != tag.size() + sizeof(blake3_hasher) || state.substr(0, tag.size()) != tag) {
    return false;
  }
  std::memcpy(&state_->hasher, state.data() + tag.size(), sizeof(blake3_hasher));
  return true;
}

std::string DigestHex(const Blake3Digest& d) { return HexEncode(d.data(), d.size()); }

bool ParseDigestHex(std::string_view hex, Blake3Digest& out) {
  auto val = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (hex.size() != 2 * out.size()) return false;
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = val(hex[2 * i]), lo = val(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

}  // namespace nubo
