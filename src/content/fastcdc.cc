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

size_t FastCdc::Scan(const uint8_t* data, size_t len, bool* cut) {
  const auto& gear = Gear();
  const size_t base = pos_;  // chunk offset of data[0]
  uint64_t fp = fp_;
  size_t i = base < p_.min_size ? std::min(len, p_.min_size - base) : 0;
  const size_t normal = p_.avg_size > base ? std::min(len, p_.avg_size - base) : 0;
  const size_t end = std::min(len, p_.max_size - base);
  *cut = false;
  for (; i < normal; ++i) {
    fp = (fp << 1) + gear[data[i]];
    if ((fp & mask_s_) == 0) {
      *cut = true;
      ++i;
      break;
    }
  }
  if (!*cut) {
    for (; i < end; ++i) {
      fp = (fp << 1) + gear[data[i]];
      if ((fp & mask_l_) == 0) {
        *cut = true;
        ++i;
        break;
      }
    }
  }
  if (!*cut && base + i == p_.max_size) *cut = true;
  pos_ = *cut ? 0 : base + i;
  fp_ = *cut ? 0 : fp;
  return i;
}

// Each byte is scanned once, as it arrives. A chunk that lies wholly in
// `data` is emitted from it without a copy; only a chunk spanning calls
// is gathered in buf_.
Status FastCdc::Update(const char* data, size_t len, const Emit& emit) {
  const auto* d = reinterpret_cast<const uint8_t*>(data);
  size_t begin = 0;  // first byte of `data` in the current chunk
  size_t i = 0;
  while (i < len) {
    bool cut = false;
    i += Scan(d + i, len - i, &cut);
    if (!cut) break;
    if (buf_.empty()) {
      NUBO_RETURN_IF_ERROR(emit(std::string_view(data + begin, i - begin)));
    } else {
      buf_.append(data + begin, i - begin);
      NUBO_RETURN_IF_ERROR(emit(buf_));
      buf_.clear();
    }
    begin = i;
  }
  buf_.append(data + begin, len - begin);
  return Status::Ok();
}

Status FastCdc::Finish(const Emit& emit) {
  // Every pending byte was scanned without finding a boundary: the rest
  // is one (short) chunk.
  if (!buf_.empty()) NUBO_RETURN_IF_ERROR(emit(buf_));
  buf_.clear();
  pos_ = 0;
  fp_ = 0;
  return Status::Ok();
}

}  // namespace nubo::content
