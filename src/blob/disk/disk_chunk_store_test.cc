#include "blob/disk/disk_chunk_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <thread>
#include <vector>

#include "util/ids.h"

namespace nubo::blob {
namespace {

namespace fs = std::filesystem;

class DiskChunkStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nubo-disk-" + RandomHex(6));
    auto s = DiskChunkStore::Open((dir_ / "chunks").string(), (dir_ / "tmp").string(), &faults_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  void TearDown() override { fs::remove_all(dir_); }

  size_t TempFiles() {
    size_t n = 0;
    for (auto& e : fs::directory_iterator(dir_ / "tmp")) n += e.is_regular_file();
    return n;
  }
  size_t ChunkFiles() {
    size_t n = 0;
    for (auto& e : fs::recursive_directory_iterator(dir_ / "chunks")) n += e.is_regular_file();
    return n;
  }

  fs::path dir_;
  FaultPlan faults_;
  std::unique_ptr<DiskChunkStore> store_;
};

std::string Bytes(size_t n, char seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(seed + i * 31 + (i >> 8));
  return s;
}

TEST_F(DiskChunkStoreTest, RoundTripAndRangesAtEdges) {
  std::string data = Bytes(100000, 1);
  Digest h = Blake3::Hash(data);
  ASSERT_TRUE(store_->Put(h, data).ok());
  auto info = store_->Stat(h);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->size, data.size());
  for (auto [off, len] : std::vector<std::pair<size_t, size_t>>{{0, 1}, {0, 100000}, {99999, 1}, {4095, 2}, {50000, 0}}) {
    std::string out(len, '\0');
    ASSERT_TRUE(store_->Read(h, off, len, out.data()).ok());
    EXPECT_EQ(out, data.substr(off, len)) << off << "+" << len;
  }
  std::string out(2, '\0');
  EXPECT_EQ(store_->Read(h, 99999, 2, out.data()).code(), Code::kCorruption);  // past the end
  EXPECT_EQ(store_->Stat(Blake3::Hash("other")).status().code(), Code::kNotFound);
  EXPECT_TRUE(store_->Delete(h).ok());
  EXPECT_EQ(store_->Stat(h).status().code(), Code::kNotFound);
  EXPECT_EQ(store_->Delete(h).code(), Code::kNotFound);
}

TEST_F(DiskChunkStoreTest, ConcurrentIdenticalPutsLeaveOneFileAndNoTemps) {
  std::string data = Bytes(300000, 7);
  Digest h = Blake3::Hash(data);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      if (!store_->Put(h, data).ok()) failures++;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(ChunkFiles(), 1u);
  EXPECT_EQ(TempFiles(), 0u);
  std::string out(data.size(), '\0');
  ASSERT_TRUE(store_->Read(h, 0, out.size(), out.data()).ok());
  EXPECT_EQ(out, data);
}

TEST_F(DiskChunkStoreTest, InjectedFailuresNeverExposeAPartialChunk) {
  std::string before = Bytes(50000, 3);
  Digest hb = Blake3::Hash(before);
  ASSERT_TRUE(store_->Put(hb, before).ok());
  for (auto kind : {FaultPlan::Fault::kEnospc, FaultPlan::Fault::kEio, FaultPlan::Fault::kShortWrite}) {
    bool succeeded = false;
    for (uint64_t n = 0; !succeeded; ++n) {
      ASSERT_LT(n, 20u) << "Put never reached its end";
      std::string data = Bytes(200000 + n, static_cast<char>(n + 10 * static_cast<int>(kind)));
      Digest h = Blake3::Hash(data);
      faults_.Arm(n, kind);
      Status st = store_->Put(h, data);
      faults_.Disarm();
      auto info = store_->Stat(h);
      if (st.ok()) {
        succeeded = true;
      } else {
        EXPECT_TRUE(st.code() == Code::kResourceExhausted || st.code() == Code::kIoError) << st.ToString();
      }
      // Visible means whole: a failure before the rename leaves nothing,
      // one after it (the directory fsync) leaves the complete chunk.
      if (info.ok()) {
        std::string out(data.size(), '\0');
        ASSERT_EQ(info->size, data.size());
        ASSERT_TRUE(store_->Read(h, 0, out.size(), out.data()).ok());
        EXPECT_EQ(out, data) << "n=" << n;
      }
      EXPECT_EQ(TempFiles(), 0u) << "n=" << n;
      // The earlier chunk is untouched.
      std::string out(before.size(), '\0');
      ASSERT_TRUE(store_->Read(hb, 0, out.size(), out.data()).ok());
      EXPECT_EQ(out, before);
    }
  }
  EXPECT_GE(faults_.fired(), 3u);
}

TEST_F(DiskChunkStoreTest, BatchExposesNothingBeforeCommit) {
  std::vector<std::string> data;
  auto batch = store_->NewBatch();
  for (int i = 0; i < 4; ++i) {
    data.push_back(Bytes(70000 + i, static_cast<char>(i)));
    ASSERT_TRUE(batch->Add(Blake3::Hash(data.back()), data.back()).ok());
    ASSERT_TRUE(batch->Add(Blake3::Hash(data.back()), data.back()).ok());  // repeats are fine
  }
  for (auto& d : data) EXPECT_EQ(store_->Stat(Blake3::Hash(d)).status().code(), Code::kNotFound);
  ASSERT_TRUE(batch->Commit().ok());
  for (auto& d : data) {
    std::string out(d.size(), '\0');
    ASSERT_TRUE(store_->Read(Blake3::Hash(d), 0, out.size(), out.data()).ok());
    EXPECT_EQ(out, d);
  }
  EXPECT_EQ(TempFiles(), 0u);
  // A dropped batch leaves nothing behind.
  {
    auto dropped = store_->NewBatch();
    ASSERT_TRUE(dropped->Add(Blake3::Hash("gone"), "gone").ok());
    EXPECT_EQ(TempFiles(), 1u);
  }
  EXPECT_EQ(TempFiles(), 0u);
  EXPECT_EQ(store_->Stat(Blake3::Hash("gone")).status().code(), Code::kNotFound);
}

TEST_F(DiskChunkStoreTest, InjectedBatchFailuresNeverExposeAPartialChunk) {
  for (auto kind : {FaultPlan::Fault::kEnospc, FaultPlan::Fault::kEio, FaultPlan::Fault::kShortWrite}) {
    bool succeeded = false;
    for (uint64_t n = 0; !succeeded; ++n) {
      ASSERT_LT(n, 40u);
      std::vector<std::string> data;
      for (int i = 0; i < 3; ++i) data.push_back(Bytes(90000 + n * 7 + i, static_cast<char>(n + i + 40 * static_cast<int>(kind))));
      Status st;
      {
        auto batch = store_->NewBatch();
        faults_.Arm(n, kind);
        for (auto& d : data) {
          st = batch->Add(Blake3::Hash(d), d);
          if (!st.ok()) break;
        }
        if (st.ok()) st = batch->Commit();
        faults_.Disarm();
      }
      succeeded = st.ok();
      for (auto& d : data) {
        auto info = store_->Stat(Blake3::Hash(d));
        if (succeeded) {
          ASSERT_TRUE(info.ok());
        }
        if (!info.ok()) continue;
        std::string out(d.size(), '\0');
        ASSERT_EQ(info->size, d.size()) << "n=" << n;
        ASSERT_TRUE(store_->Read(Blake3::Hash(d), 0, out.size(), out.data()).ok());
        EXPECT_EQ(out, d) << "n=" << n;
      }
      EXPECT_EQ(TempFiles(), 0u) << "n=" << n;
    }
  }
}

// Regression: a batch that found a chunk present committed without any
// sync, though the batch that renamed that chunk into place might not have
// synced its name yet (a power loss then undoes the name while metadata
// references it). Present chunks are durable only once every window that
// exposed names has synced; until then, a batch that relied on one syncs.
TEST_F(DiskChunkStoreTest, ABatchThatFindsAnUnsyncedChunkSyncsBeforeItsCommit) {
  const std::string a = Bytes(70000, 'a'), b = Bytes(70001, 'b');
  {
    auto first = store_->NewBatch();
    ASSERT_TRUE(first->Add(Blake3::Hash(a), a).ok());
    ASSERT_TRUE(first->Commit().ok());
  }
  // Every window closed: finding `a` present needs no sync.
  uint64_t syncs = store_->syncs();
  {
    auto again = store_->NewBatch();
    ASSERT_TRUE(again->Add(Blake3::Hash(a), a).ok());
    ASSERT_TRUE(again->Commit().ok());
  }
  EXPECT_EQ(store_->syncs(), syncs);
  // A batch renames `b` into place and its closing sync fails: the name is
  // visible but may not be durable.
  {
    auto failing = store_->NewBatch();
    ASSERT_TRUE(failing->Add(Blake3::Hash(b), b).ok());
    faults_.Arm(2, FaultPlan::Fault::kEio);  // first sync, rename: pass; closing sync: fails
    EXPECT_FALSE(failing->Commit().ok());
    faults_.Disarm();
  }
  ASSERT_TRUE(store_->Stat(Blake3::Hash(b)).ok());
  syncs = store_->syncs();
  {
    auto relying = store_->NewBatch();
    ASSERT_TRUE(relying->Add(Blake3::Hash(b), b).ok());  // present: not written again
    ASSERT_TRUE(relying->Commit().ok());
  }
  EXPECT_EQ(store_->syncs(), syncs + 1);
}

TEST_F(DiskChunkStoreTest, ForEachListsWhatWasPut) {
  std::set<Digest> put;
  for (int i = 0; i < 5; ++i) {
    std::string d = Bytes(1000 + i, static_cast<char>(i));
    put.insert(Blake3::Hash(d));
    ASSERT_TRUE(store_->Put(Blake3::Hash(d), d).ok());
  }
  std::set<Digest> seen;
  ASSERT_TRUE(store_->ForEach([&](const Digest& h, const ChunkInfo&) {
    seen.insert(h);
    return Status::Ok();
  }).ok());
  EXPECT_EQ(seen, put);
}

TEST(ParseDigestHex, RoundTrip) {
  Digest d = Blake3::Hash("x"), back{};
  ASSERT_TRUE(ParseDigestHex(DigestHex(d), back));
  EXPECT_EQ(back, d);
  EXPECT_FALSE(ParseDigestHex("zz", back));
  EXPECT_FALSE(ParseDigestHex(std::string(64, 'G'), back));
}

}  // namespace
}  // namespace nubo::blob
