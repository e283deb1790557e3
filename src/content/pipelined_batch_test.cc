#include "content/pipelined_batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "blob/disk/disk_chunk_store.h"
#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/mix.h"

namespace nubo::content {
namespace {

namespace fs = std::filesystem;
constexpr size_t kChunk = 256 << 10;

// The real disk store (temp files, syncfs, renames) with its fault points.
class PipelinedBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nubo-pipe-" + RandomHex(6));
    auto s =
        blob::DiskChunkStore::Open((dir_ / "chunks").string(), (dir_ / "tmp").string(), &faults_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t Files(const char* sub) {
    size_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(dir_ / sub)) n += e.is_regular_file();
    return n;
  }
  fs::path dir_;
  blob::FaultPlan faults_;
  std::unique_ptr<blob::DiskChunkStore> store_;
};

// Enough chunks that most of them pass through the writer thread.
std::vector<std::string> Chunks(size_t n, uint64_t seed) {
  std::vector<std::string> v;
  for (size_t i = 0; i < n; ++i) v.push_back(PseudoRandomBytes(kChunk, seed + i));
  return v;
}

TEST_F(PipelinedBatchTest, StoresWhatAnInlineBatchStores) {
  auto& store = *store_;
  const auto chunks = Chunks(40, 100);  // 10 MiB: 2 MiB inline, the rest queued
  std::vector<blob::Digest> want;
  {
    PipelinedBatch batch(store.NewBatch());
    for (const auto& c : chunks) {
      want.push_back(Blake3::Hash(c));
      ASSERT_TRUE(batch.Add(want.back(), c).ok());
    }
    // Once more: a chunk already staged is only refreshed.
    ASSERT_TRUE(batch.Add(want[30], chunks[30]).ok());
    ASSERT_TRUE(batch.Commit().ok());
    auto published = batch.Published();
    std::sort(published.begin(), published.end());
    auto sorted = want;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(published, sorted);
  }
  for (size_t i = 0; i < chunks.size(); ++i) {
    std::string back(kChunk, '\0');
    ASSERT_TRUE(store.Read(want[i], 0, kChunk, back.data()).ok()) << i;
    EXPECT_EQ(back, chunks[i]) << i;
  }
}

// A write that fails on the writer thread fails the batch: a later Add or
// the Commit reports it, the Commit publishes nothing and no temp file
// stays behind. (Each staged chunk passes two fault points: create, write.)
TEST_F(PipelinedBatchTest, AWriterErrorFailsTheBatch) {
  for (uint64_t fail_at : {30u, 51u, 79u}) {
    const auto chunks = Chunks(40, 200 + fail_at);
    {
      PipelinedBatch batch(store_->NewBatch());
      faults_.Arm(fail_at, blob::FaultPlan::Fault::kEio);
      Status st;
      for (const auto& c : chunks) {
        st = batch.Add(Blake3::Hash(c), c);
        if (!st.ok()) break;
      }
      EXPECT_FALSE(batch.Commit().ok()) << "fault after " << fail_at;
      EXPECT_TRUE(batch.Published().empty()) << "fault after " << fail_at;
    }
    faults_.Disarm();
    EXPECT_EQ(Files("chunks"), 0u) << "fault after " << fail_at;
    EXPECT_EQ(Files("tmp"), 0u) << "fault after " << fail_at;
  }
}

// A sync that fails on the writer's turn (CommitSoon) fails the batch:
// the final Commit reports it.
TEST_F(PipelinedBatchTest, ABackgroundCommitErrorFailsTheBatch) {
  const auto chunks = Chunks(24, 400);
  PipelinedBatch batch(store_->NewBatch());
  for (size_t i = 0; i < 12; ++i) ASSERT_TRUE(batch.Add(Blake3::Hash(chunks[i]), chunks[i]).ok());
  ASSERT_TRUE(batch.Published().empty());  // waits until the twelve are staged
  // Now the commit's first sync fails, on the writer's turn.
  faults_.Arm(0, blob::FaultPlan::Fault::kEio, /*sticky=*/true);
  (void)batch.CommitSoon();  // queued: the error comes later
  Status st;
  for (size_t i = 12; i < chunks.size() && st.ok(); ++i)
    st = batch.Add(Blake3::Hash(chunks[i]), chunks[i]);
  EXPECT_FALSE(batch.Commit().ok());
  faults_.Disarm();
  EXPECT_EQ(Files("chunks"), 0u);
}

// A batch committed in the background in several steps ends with every
// chunk visible, as if it had been committed once.
TEST_F(PipelinedBatchTest, CommitSoonThenCommit) {
  const auto chunks = Chunks(24, 500);
  PipelinedBatch batch(store_->NewBatch());
  for (size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_TRUE(batch.Add(Blake3::Hash(chunks[i]), chunks[i]).ok());
    if (i % 10 == 9) {
      ASSERT_TRUE(batch.CommitSoon().ok());
    }
  }
  ASSERT_TRUE(batch.Commit().ok());
  EXPECT_EQ(batch.Published().size(), chunks.size());
  EXPECT_EQ(Files("chunks"), chunks.size());
  EXPECT_EQ(Files("tmp"), 0u);
}

// Destroying a batch with chunks still queued stops the writer cleanly
// and leaves nothing behind.
TEST_F(PipelinedBatchTest, DestroyedWithAFullQueue) {
  const auto chunks = Chunks(30, 300);
  {
    PipelinedBatch batch(store_->NewBatch());
    for (const auto& c : chunks) ASSERT_TRUE(batch.Add(Blake3::Hash(c), c).ok());
  }
  EXPECT_EQ(Files("chunks"), 0u);
  EXPECT_EQ(Files("tmp"), 0u);
}

}  // namespace
}  // namespace nubo::content
