#include "util/blake3_hash.h"

#include <gtest/gtest.h>

#include <string>

namespace nubo {
namespace {

// Input of the official BLAKE3 test vectors: byte i is i % 251.
std::string VectorInput(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i % 251);
  return s;
}

TEST(Blake3, KnownVectors) {
  EXPECT_EQ(DigestHex(Blake3::Hash("")),
            "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262");
  EXPECT_EQ(DigestHex(Blake3::Hash("abc")),
            "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85");
  EXPECT_EQ(DigestHex(Blake3::Hash(VectorInput(1))),
            "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213");
  EXPECT_EQ(DigestHex(Blake3::Hash(VectorInput(102400))),
            "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085");
}

TEST(Blake3, SavedStateContinuesTheStream) {
  const std::string a(3000, 'a'), b(5000, 'b');  // crosses 1 KiB chunks and the tree
  Blake3 first;
  first.Update(a);
  const std::string state = first.SaveState();
  Blake3 second;
  second.Update("unrelated");
  ASSERT_TRUE(second.RestoreState(state));
  second.Update(b);
  EXPECT_EQ(second.Final(), Blake3::Hash(a + b));
  // Anything else is refused and leaves the hasher as it was.
  Blake3 third;
  EXPECT_FALSE(third.RestoreState("b3s:0.0.0:1:x"));
  EXPECT_FALSE(third.RestoreState(state.substr(0, state.size() - 1)));
  EXPECT_EQ(third.Final(), Blake3::Hash(""));
}

TEST(Blake3, IncrementalEqualsOneShot) {
  std::string in = VectorInput(102400);
  Blake3 h;
  for (size_t pos = 0; pos < in.size(); pos += 997)
    h.Update(in.data() + pos, std::min<size_t>(997, in.size() - pos));
  EXPECT_EQ(h.Final(), Blake3::Hash(in));
}

}  // namespace
}  // namespace nubo
