// BLAKE3 content hashing (ARCHITECTURE.md §4.2): the address of every chunk
// and manifest. Wraps the reference C implementation so that no other file
// includes blake3.h. A Blake3 object is not thread-safe; use one per stream.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace nubo {

using Blake3Digest = std::array<uint8_t, 32>;

class Blake3 {
 public:
  Blake3();
  ~Blake3();
  Blake3(const Blake3&) = delete;
  Blake3& operator=(const Blake3&) = delete;

  void Update(const void* data, size_t len);
  void Update(std::string_view s) { Update(s.data(), s.size()); }
  // The digest of everything fed so far; the hasher may keep being updated.
  Blake3Digest Final() const;

  static Blake3Digest Hash(std::string_view s);

  // The hasher's state as bytes, so a stream hashed in part can be
  // continued by another process (upload sessions keep it between
  // requests). Only this build's Restore reads it back reliably.
  std::string SaveState() const;
  // False (hasher unchanged) when `state` is not a SaveState of this
  // implementation; the caller then hashes the bytes again.
  bool RestoreState(std::string_view state);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string DigestHex(const Blake3Digest& d);
// The inverse: 64 lower-case hex digits. False (out unspecified) if malformed.
bool ParseDigestHex(std::string_view hex, Blake3Digest& out);

}  // namespace nubo
