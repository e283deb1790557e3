#include "content/fastcdc.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <vector>

#include "util/blake3_hash.h"
#include "util/mix.h"

namespace nubo::content {
namespace {

std::string Random(size_t n, uint64_t seed) { return PseudoRandomBytes(n, seed); }

std::vector<std::string> Chunks(std::string_view data, size_t piece);

// The vectors the web UI's chunker is tested against too
// (src/content/testdata/fastcdc_vectors.json): any change of a boundary,
// of the gear table or of the hash breaks both sides.
TEST(FastCdc, SharedVectors) {
  std::ifstream in(std::string(NUBO_SOURCE_DIR) + "/src/content/testdata/fastcdc_vectors.json");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  auto doc = boost::json::parse(text.str(), ec);
  ASSERT_FALSE(ec) << ec.message();
  const auto& vectors = doc.at("vectors").as_array();
  ASSERT_GE(vectors.size(), 5u);
  for (const auto& v : vectors) {
    const uint64_t seed = static_cast<uint64_t>(v.at("seed").to_number<int64_t>());
    const size_t size = static_cast<size_t>(v.at("size").to_number<int64_t>());
    const std::string data = PseudoRandomBytes(size, seed);
    std::vector<std::string> want;
    for (const auto& c : v.at("chunks").as_array()) want.emplace_back(c.as_string().c_str());
    std::vector<std::string> got;
    for (const std::string& c : Chunks(data, 100003)) {
      got.push_back(DigestHex(Blake3::Hash(c)) + ":" + std::to_string(c.size()));
    }
    EXPECT_EQ(got, want) << "seed " << seed << " size " << size;
    EXPECT_EQ(DigestHex(Blake3::Hash(data)), std::string(v.at("hash").as_string().c_str()));
  }
}

std::vector<std::string> Chunks(std::string_view data, size_t piece) {
  FastCdc cdc;
  std::vector<std::string> out;
  auto emit = [&](std::string_view c) {
    out.emplace_back(c);
    return Status::Ok();
  };
  for (size_t pos = 0; pos < data.size(); pos += piece) {
    EXPECT_TRUE(cdc.Update(data.data() + pos, std::min(piece, data.size() - pos), emit).ok());
  }
  EXPECT_TRUE(cdc.Finish(emit).ok());
  return out;
}

TEST(FastCdc, SizesRespectMinMaxAndAverage) {
  std::string data = Random(64 << 20, 1);
  auto chunks = Chunks(data, 1 << 20);
  size_t total = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    total += chunks[i].size();
    EXPECT_LE(chunks[i].size(), 1u << 20);
    if (i + 1 < chunks.size()) {
      EXPECT_GE(chunks[i].size(), 64u << 10);
    }
  }
  EXPECT_EQ(total, data.size());
  double avg = static_cast<double>(total) / chunks.size();
  EXPECT_GT(avg, 0.6 * (256 << 10)) << chunks.size() << " chunks";
  EXPECT_LT(avg, 1.5 * (256 << 10)) << chunks.size() << " chunks";
}

TEST(FastCdc, DeterministicWhateverThePieces) {
  std::string data = Random(8 << 20, 2);
  auto ref = Chunks(data, 1 << 20);
  EXPECT_EQ(Chunks(data, 1), ref);
  EXPECT_EQ(Chunks(data, 7), ref);
  EXPECT_EQ(Chunks(data, data.size()), ref);
  EXPECT_EQ(Chunks(data, 1 << 20), Chunks(data, 1 << 20));
}

// Update scans incrementally; Cut is the rule applied to a whole window.
// Cutting the input window by window must give the same chunks for any
// way the stream is split (pieces shorter and longer than a chunk, and
// data with long runs where only the maximum size cuts).
TEST(FastCdc, StreamingAgreesWithCut) {
  std::string data = Random(6 << 20, 9) + std::string(3 << 20, 'z') + Random(1 << 20, 10);
  FastCdc rule;
  std::vector<std::string> want;
  for (size_t pos = 0; pos < data.size();) {
    size_t n = rule.Cut(reinterpret_cast<const uint8_t*>(data.data()) + pos,
                        std::min<size_t>(data.size() - pos, 1 << 20));
    want.push_back(data.substr(pos, n));
    pos += n;
  }
  ASSERT_GT(want.size(), 10u);
  for (size_t piece : {size_t{1000}, size_t{65536}, size_t{256 << 10}, size_t{(1 << 20) + 1},
                       data.size()}) {
    EXPECT_EQ(Chunks(data, piece), want) << "piece " << piece;
  }
}

TEST(FastCdc, OneByteInsertionChangesAtMostTwoChunks) {
  std::string data = Random(64 << 20, 3);
  std::string edited = data;
  edited.insert(edited.begin() + 1000, 'x');
  auto a = Chunks(data, 1 << 20), b = Chunks(edited, 1 << 20);
  std::set<Blake3Digest> before;
  for (const auto& c : a) before.insert(Blake3::Hash(c));
  size_t changed = 0;
  for (const auto& c : b) changed += !before.count(Blake3::Hash(c));
  EXPECT_LE(changed, 2u);
  EXPECT_GE(changed, 1u);
}

TEST(FastCdc, SmallAndEmptyInputs) {
  EXPECT_TRUE(Chunks("", 10).empty());
  auto one = Chunks("a", 10);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], "a");
  std::string under_min = Random((64 << 10) - 1, 4);
  EXPECT_EQ(Chunks(under_min, 4096).size(), 1u);
}

TEST(FastCdc, ZerosCutAtMax) {
  // No content boundary in uniform data: every chunk is max-size.
  std::string zeros(5 << 20, '\0');
  auto chunks = Chunks(zeros, 1 << 20);
  ASSERT_EQ(chunks.size(), 5u);
  for (const auto& c : chunks) EXPECT_EQ(c.size(), 1u << 20);
}

}  // namespace
}  // namespace nubo::content

namespace nubo::content {
namespace {

// PERSISTED format guard: the gear table, masks and cut rules decide every
// boundary ever stored; deduplication against existing data breaks if they
// change. These sizes were produced by this chunker when the format was
// fixed; a change here must be deliberate.
TEST(FastCdc, BoundariesAreStable) {
  std::string data = PseudoRandomBytes(4 << 20, 42);
  std::vector<size_t> sizes;
  for (const auto& c : Chunks(data, 1 << 20)) sizes.push_back(c.size());
  EXPECT_EQ(sizes, (std::vector<size_t>{389698, 81478, 361019, 272987, 349112, 348221, 352640,
                                        421336, 146820, 267681, 369267, 308790, 374090, 151165}));
}

}  // namespace
}  // namespace nubo::content
