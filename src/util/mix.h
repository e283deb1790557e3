// Deterministic pseudo-randomness for tests, benchmarks and persisted
// tables (never for secrets: see util/ids.h). Pure functions, thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nubo {

// SplitMix64's output function applied to x + 0x9e3779b97f4a7c15: a
// well-mixed 64-bit value for every input.
constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// `n` bytes that depend only on (seed, n): word k is SplitMix64(seed + k),
// little-endian.
std::string PseudoRandomBytes(size_t n, uint64_t seed);

}  // namespace nubo
