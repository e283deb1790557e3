#include "util/mix.h"

#include <algorithm>
#include <cstring>

namespace nubo {

std::string PseudoRandomBytes(size_t n, uint64_t seed) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = SplitMix64(seed + i / 8);
    unsigned char b[8];
    for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(w >> (8 * k));
    std::memcpy(out.data() + i, b, std::min<size_t>(8, n - i));
  }
  return out;
}

}  // namespace nubo
