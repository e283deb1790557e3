#include "content/fastcdc.h"

#include <array>
#include <bit>

#include "util/mix.h"

namespace nubo::content {

namespace {

// PERSISTED: the gear table defines chunk boundaries; never change the seed.
const std::array<uint64_t, 256>& Gear() {
  static const std::array<uint64_t, 256> kGear = [] {
    std::array<uint64_t, 256> g{};
    constexpr uint64_t kSeed = 0x6e75626f2d676561ull;  // "nubo-gea"
    for (uint64_t i = 0; i < g.size(); ++i) g[i] = SplitMix64(kSeed + i * 0x9e3779b97f4a7c15ull);
    return g;
  }();
  return kGear;
}

// A mask of `bits` one-bits spread evenly over the upper 48 bits, so that
// each tested bit depends on a different window of recent bytes (the gear
// hash shifts left one bit per byte).
uint64_t SpreadMask(int bits) {
  uint64_t m = 0;
  for (int i = 0; i < bits; ++i) m |= 1ull << (63 - (i * 48) / bits);
  return m;
}

}  // namespace

FastCdc::FastCdc(ChunkerParams params) : p_(params) {
  int bits = std::bit_width(p_.avg_size) - 1;  // log2(avg)
  // Normalization level 2: two bits stricter before the average, two looser after.
  mask_s_ = SpreadMask(bits + 2);
  mask_l_ = SpreadMask(bits - 2);
  buf_.reserve(p_.max_size);
}

size_t FastCdc::Cut(const uint8_t* data, size_t len) const {
  if (len <= p_.min_size) return len;
  const auto& gear = Gear();
  size_t end = len < p_.max_size ? len : p_.max_size;
  size_t normal = p_.avg_size < end ? p_.avg_size : end;
  uint64_t fp = 0;
  // Bytes before min_size can never be a boundary: skip hashing them.
  size_t i = p_.min_size;
  for (; i < normal; ++i) {
    fp = (fp << 1) + gear[data[i]];
    if ((fp & mask_s_) == 0) return i + 1;
  }
  for (; i < end; ++i) {
    fp = (fp << 1) + gear[data[i]];
    if ((fp & mask_l_) == 0) return i + 1;
  }
  return end;
}

Status FastCdc::Update(const char* data, size_t len, const Emit& emit) {
  while (len > 0) {
    size_t take = std::min(len, p_.max_size - buf_.size());
    buf_.append(data, take);
    data += take;
    len -= take;
    if (buf_.size() < p_.max_size) break;
    // A full window always yields one boundary; cut and keep the rest.
    size_t n = Cut(reinterpret_cast<const uint8_t*>(buf_.data()), buf_.size());
    NUBO_RETURN_IF_ERROR(emit(std::string_view(buf_.data(), n)));
    buf_.erase(0, n);
  }
  return Status::Ok();
}

Status FastCdc::Finish(const Emit& emit) {
  while (!buf_.empty()) {
    size_t n = Cut(reinterpret_cast<const uint8_t*>(buf_.data()), buf_.size());
    NUBO_RETURN_IF_ERROR(emit(std::string_view(buf_.data(), n)));
    buf_.erase(0, n);
  }
  return Status::Ok();
}

}  // namespace nubo::content
