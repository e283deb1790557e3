#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <thread>

#include "blob/disk/disk_chunk_store.h"
#include "blob/faulty_chunk_store.h"
#include "blob/mem/mem_chunk_store.h"
#include "content/fsck.h"
#include "content/gc.h"
#include "content/ingest.h"
#include "content/reader.h"
#include "meta/sqlite/sqlite_store.h"
#include "meta/test_rerun.h"
#include "util/ids.h"
#include "util/mix.h"
#include "util/time.h"

namespace nubo::content {
namespace {

namespace fs = std::filesystem;

std::string Random(size_t n, uint64_t seed) { return PseudoRandomBytes(n, seed); }

class ContentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nubo-content-" + RandomHex(6));
    fs::create_directories(dir_);
    auto m = meta::OpenSqlite((dir_ / "meta.db").string());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    meta_ = std::move(m).value();
  }
  void TearDown() override {
    meta_.reset();
    fs::remove_all(dir_);
  }

  // Ingests `data` in `piece`-sized writes and pins it as `pin`.
  Result<ManifestDraft> Put(std::string_view data, const std::string& pin,
                            blob::ChunkStore* store = nullptr, size_t piece = 100003,
                            size_t inline_max = 0) {
    blob::ChunkStore& cs = store ? *store : chunks_;
    Ingest in(cs);
    in.InlineUpTo(inline_max);
    for (size_t pos = 0; pos < data.size(); pos += piece) {
      NUBO_RETURN_IF_ERROR(in.Write(data.data() + pos, std::min(piece, data.size() - pos)));
    }
    NUBO_ASSIGN_OR_RETURN(ManifestDraft d, in.Finish());
    NUBO_RETURN_IF_ERROR(CommitManifest(*meta_, cs, d, [&](meta::WriteTxn& t, int64_t id) {
                           return t.InsertPin(pin, id);
                         }).status());
    return d;
  }
  Status Unpin(const std::string& pin) {
    return meta_->Write([&](meta::WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto id, t.GetPin(pin));
      if (!id) return Status::NotFound(pin);
      NUBO_RETURN_IF_ERROR(t.DeletePin(pin));
      return ReleaseManifest(t, *id, UnixMillis());
    });
  }
  Result<std::string> ReadAll(const meta::Digest& hash, uint64_t first = 0,
                              std::optional<uint64_t> len = std::nullopt) {
    NUBO_ASSIGN_OR_RETURN(ManifestReader whole, ManifestReader::OpenByHash(*meta_, chunks_, hash));
    uint64_t size = whole.remaining();
    std::vector<meta::ManifestChunk> list;
    NUBO_RETURN_IF_ERROR(meta_->Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(hash));
      NUBO_ASSIGN_OR_RETURN(list, t.ManifestChunks(m->id));
      return Status::Ok();
    }));
    NUBO_ASSIGN_OR_RETURN(ManifestReader r, ManifestReader::Open(chunks_, list, size, first,
                                                                 len.value_or(size - first)));
    std::string out;
    std::vector<char> buf(70001);
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(size_t n, r.Read(buf.data(), buf.size()));
      if (n == 0) return out;
      out.append(buf.data(), n);
    }
  }
  FsckReport Check() {
    auto r = Fsck(*meta_, chunks_, false);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : FsckReport{};
  }

  fs::path dir_;
  std::unique_ptr<meta::MetaStore> meta_;
  blob::MemChunkStore chunks_;
};

// A stream received in several requests (upload sessions): each request
// resumes from the hash state and the bytes after the last boundary, and
// the chunks come out exactly as one uninterrupted stream cuts them.
TEST_F(ContentTest, ResumedIngestCutsLikeOneStream) {
  const std::string data = Random(5 * 1024 * 1024 + 4321, 77);
  Ingest whole(chunks_);
  ASSERT_TRUE(whole.Write(data.data(), data.size()).ok());
  auto want = whole.Finish();
  ASSERT_TRUE(want.ok());

  std::vector<meta::ManifestChunk> got;
  std::string hasher = Blake3().SaveState();
  std::string tail;
  uint64_t offset = 0;
  for (size_t cut : {size_t{1}, size_t{65536}, size_t{1000003}, size_t{7}, size_t{3000000}}) {
    Ingest part(chunks_);
    ASSERT_TRUE(part.Resume(hasher, tail, offset, static_cast<uint32_t>(got.size())).ok());
    ASSERT_TRUE(part.Write(data.data() + offset, cut).ok());
    offset += cut;
    auto fresh = part.Flush();
    ASSERT_TRUE(fresh.ok());
    got.insert(got.end(), fresh->begin(), fresh->end());
    tail = std::string(part.Pending());
    hasher = part.SaveHasher();
  }
  Ingest last(chunks_);
  ASSERT_TRUE(last.Resume(hasher, tail, offset, static_cast<uint32_t>(got.size())).ok());
  ASSERT_TRUE(last.Write(data.data() + offset, data.size() - offset).ok());
  auto end = last.Finish();
  ASSERT_TRUE(end.ok());
  got.insert(got.end(), end->chunks.begin(), end->chunks.end());
  EXPECT_EQ(end->hash, want->hash);
  EXPECT_EQ(end->size, data.size());
  ASSERT_EQ(got.size(), want->chunks.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].seq, want->chunks[i].seq) << i;
    EXPECT_EQ(got[i].hash, want->chunks[i].hash) << i;
    EXPECT_EQ(got[i].offset, want->chunks[i].offset) << i;
    EXPECT_EQ(got[i].size, want->chunks[i].size) << i;
  }
  // A hash state from elsewhere is refused, not misread.
  Ingest bad(chunks_);
  EXPECT_EQ(bad.Resume("b3s:other", "", 0, 0).code(), Code::kInvalidArgument);
}

TEST_F(ContentTest, RoundTripAtEverySizeThatMatters) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{(64 << 10) - 1}, size_t{64 << 10},
                      size_t{(1 << 20) + 1}, size_t{100 << 20}}) {
    std::string data = Random(size, size);
    auto d = Put(data, "s" + std::to_string(size));
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->hash, Blake3::Hash(data));
    EXPECT_EQ(d->size, size);
    auto back = ReadAll(d->hash);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == data) << "size " << size;
  }
  EXPECT_TRUE(Check().clean());
}

TEST_F(ContentTest, RangesCrossChunkEdges) {
  std::string data = Random(3 << 20, 9);
  auto d = Put(data, "r");
  ASSERT_TRUE(d.ok());
  ASSERT_GE(d->chunks.size(), 3u);
  uint64_t edge = d->chunks[1].offset;
  for (auto [first, len] : std::vector<std::pair<uint64_t, uint64_t>>{
           {edge - 1, 2}, {edge, 1}, {0, 1}, {data.size() - 1, 1}, {edge - 100, 300000}, {5, 0}}) {
    auto got = ReadAll(d->hash, first, len);
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(*got == data.substr(first, len)) << first << "+" << len;
  }
  EXPECT_EQ(ReadAll(d->hash, data.size() - 1, 2).status().code(), Code::kInvalidArgument);
}

// Extents (the sendfile path) describe exactly the bytes Read returns: any
// range, any batch size, descriptors valid until the next call; a store
// without files offers none, so callers fall back to Read.
TEST_F(ContentTest, ExtentsAreTheRangesBytes) {
  auto disk = blob::DiskChunkStore::Open((dir_ / "chunks").string(), (dir_ / "tmp").string());
  ASSERT_TRUE(disk.ok()) << disk.status().ToString();
  std::string data = Random(3 << 20, 11);
  auto d = Put(data, "x", disk->get());
  ASSERT_TRUE(d.ok());
  ASSERT_GE(d->chunks.size(), 4u);
  const std::vector<meta::ManifestChunk>& list = d->chunks;
  uint64_t edge = d->chunks[2].offset;
  for (auto [first, len, cap, max] : std::vector<std::tuple<uint64_t, uint64_t, size_t, size_t>>{
           {0, data.size(), 8 << 20, 16},
           {0, data.size(), 100000, 16},
           {0, data.size(), 8 << 20, 1},
           {edge - 3, 7, 8 << 20, 16},
           {edge, 1, 1, 1},
           {12345, 2 << 20, 300001, 3},
           {data.size() - 1, 1, 8 << 20, 16}}) {
    auto r = ManifestReader::Open(**disk, list, data.size(), first, len);
    ASSERT_TRUE(r.ok());
    std::string got;
    for (int calls = 0;; ++calls) {
      ASSERT_LT(calls, 100000);
      std::vector<ManifestReader::Extent> ex;
      ASSERT_TRUE(r->NextExtents(cap, max, ex).ok());
      if (ex.empty()) break;
      EXPECT_LE(ex.size(), max);
      size_t total = 0;
      for (const auto& e : ex) {
        std::string piece(e.length, '\0');
        ASSERT_EQ(::pread(e.fd, piece.data(), e.length, static_cast<off_t>(e.offset)),
                  static_cast<ssize_t>(e.length));
        got += piece;
        total += e.length;
      }
      EXPECT_LE(total, cap);
    }
    EXPECT_EQ(r->remaining(), 0u);
    EXPECT_TRUE(got == data.substr(first, len)) << first << "+" << len << " cap " << cap;
  }
  // Extents then Read then extents: one cursor.
  auto r = ManifestReader::Open(**disk, list, data.size(), 0, data.size());
  ASSERT_TRUE(r.ok());
  std::vector<ManifestReader::Extent> ex;
  ASSERT_TRUE(r->NextExtents(1000, 1, ex).ok());
  std::string buf(5000, '\0');
  auto n = r->Read(buf.data(), buf.size());
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 5000u);
  EXPECT_TRUE(buf == data.substr(1000, 5000));
  // The memory store keeps no files: no extents, Read still works.
  auto m = Put(data, "m");
  ASSERT_TRUE(m.ok());
  auto mr = ManifestReader::Open(chunks_, list, data.size(), 0, data.size());
  ASSERT_TRUE(mr.ok());
  ex.clear();
  ASSERT_TRUE(mr->NextExtents(8 << 20, 16, ex).ok());
  EXPECT_TRUE(ex.empty());
  EXPECT_EQ(mr->remaining(), data.size());
}

TEST_F(ContentTest, SharedChunksSurviveTheOtherSidesDeletion) {
  std::string base = Random(4 << 20, 5);
  std::string edited = base;
  edited.replace(2 << 20, 10, "0123456789");
  auto a = Put(base, "a");
  auto b = Put(edited, "b");
  ASSERT_TRUE(a.ok() && b.ok());
  std::set<meta::Digest> ca, shared;
  for (auto& c : a->chunks) ca.insert(c.hash);
  for (auto& c : b->chunks)
    if (ca.count(c.hash)) shared.insert(c.hash);
  EXPECT_GE(shared.size(), 2u);  // dedup across the two
  ASSERT_TRUE(Unpin("a").ok());
  auto gc = CollectGarbage(*meta_, chunks_, 0, UnixMillis() + 1000);
  ASSERT_TRUE(gc.ok());
  EXPECT_GE(gc->chunks_deleted, 1u);  // a's own chunks go
  auto back = ReadAll(b->hash);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == edited);
  for (auto& h : shared) EXPECT_TRUE(chunks_.Stat(h).ok());
  EXPECT_TRUE(Check().clean());
}

TEST_F(ContentTest, RepeatedChunkCountsOnceAndGoesAtZero) {
  // Uniform data: every chunk is the same max-size chunk.
  std::string zeros(4 << 20, '\0');
  auto d = Put(zeros, "z");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->chunks.size(), 4u);
  ASSERT_TRUE(meta_
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(d->chunks[0].hash));
                    EXPECT_EQ(c->refs, 1);
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_TRUE(Put(zeros, "z2").ok());  // same manifest, second reference
  ASSERT_TRUE(Unpin("z").ok());
  ASSERT_TRUE(ReadAll(d->hash).ok());
  ASSERT_TRUE(Unpin("z2").ok());
  ASSERT_TRUE(meta_
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(d->chunks[0].hash));
                    EXPECT_EQ(c->refs, 0);
                    EXPECT_TRUE(c->orphaned_at_ms.has_value());
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_TRUE(Check().clean());
}

TEST_F(ContentTest, GracePeriodProtectsRecentOrphans) {
  auto d = Put(Random(300000, 1), "g");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(Unpin("g").ok());
  auto gc = CollectGarbage(*meta_, chunks_, 3'600'000, UnixMillis());
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->chunks_deleted, 0u);
  for (auto& c : d->chunks) EXPECT_TRUE(chunks_.Stat(c.hash).ok());
}

TEST_F(ContentTest, AnUploadSlowerThanTheGracePeriodKeepsItsChunks) {
  // GC runs "two hours later" with a one-hour grace while an upload has
  // stored chunks but not committed: they must survive, and the upload
  // commit. Abandoned, the same chunks are swept by the next GC.
  const int64_t later = UnixMillis() + 2 * 3'600'000;
  std::string data = Random(3 << 20, 7);
  std::set<meta::Digest> committed;
  {
    Ingest in(chunks_);
    ASSERT_TRUE(in.Write(data.data(), data.size()).ok());
    auto d = in.Finish();
    ASSERT_TRUE(d.ok());
    for (const auto& c : d->chunks) committed.insert(c.hash);
    auto gc = CollectGarbage(*meta_, chunks_, 3'600'000, later);
    ASSERT_TRUE(gc.ok());
    EXPECT_EQ(gc->files_swept, 0u);
    auto id = CommitManifest(*meta_, chunks_, *d, [&](meta::WriteTxn& t, int64_t id) {
      return t.InsertPin("slow", id);
    });
    ASSERT_TRUE(id.ok()) << id.status().ToString();
  }
  auto back = ReadAll(Blake3::Hash(data));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
  std::string other = Random(1 << 20, 8);
  uint64_t stored = 0;
  {
    Ingest abandoned(chunks_);
    ASSERT_TRUE(abandoned.Write(other.data(), other.size()).ok());
    auto d = abandoned.Finish();
    ASSERT_TRUE(d.ok());
    std::set<meta::Digest> distinct;  // new chunks: some may equal committed ones
    for (const auto& c : d->chunks) {
      if (!committed.count(c.hash)) distinct.insert(c.hash);
    }
    stored = distinct.size();
    ASSERT_GT(stored, 0u);
  }
  auto gc = CollectGarbage(*meta_, chunks_, 3'600'000, later);
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->files_swept, stored);
  EXPECT_TRUE(Check().clean());
}

TEST_F(ContentTest, AnUploadInAnotherProcessKeepsItsChunksUntilThatProcessIsGone) {
  // Chunks another process's upload stored (no row, no pin in this
  // process): GC "two hours later" must spare them while that process's
  // heartbeat says its oldest pin is older than they are.
  const int64_t now = UnixMillis();
  const int64_t later = now + 2 * 3'600'000;
  std::vector<meta::Digest> hashes;
  {
    auto batch = chunks_.NewBatch();
    for (int i = 0; i < 3; ++i) {
      std::string c = Random(5000, 40 + i);
      hashes.push_back(Blake3::Hash(c));
      ASSERT_TRUE(batch->Add(hashes.back(), c).ok());
    }
    ASSERT_TRUE(batch->Commit().ok());
  }
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  auto beat = [&](const std::string& id, int64_t pid, std::optional<int64_t> oldest) {
    meta::ProcessRow p{id, host, pid, now, later, oldest};
    ASSERT_TRUE(meta_->Write([&](meta::WriteTxn& t) { return t.BeatProcess(p, 0); }).ok());
  };
  beat("other", ::getpid(), now - 1000);  // alive: the test process itself
  auto gc = CollectGarbage(*meta_, chunks_, 3'600'000, later, "self");
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  EXPECT_EQ(gc->files_swept, 0u);
  // The process's own row does not hold back its own GC.
  gc = CollectGarbage(*meta_, chunks_, 3'600'000, later - 1, "other");
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->files_swept, 3u);
  for (const auto& h : hashes) EXPECT_FALSE(chunks_.Stat(h).ok());
  // A row of a process of this machine that no longer exists holds nothing.
  ASSERT_TRUE(meta_->Write([&](meta::WriteTxn& t) { return t.EndProcess("other"); }).ok());
  beat("dead", int64_t{1} << 30, now - 1000);
  auto cutoff = GcCutoff(*meta_, 3'600'000, later, "");
  ASSERT_TRUE(cutoff.ok());
  EXPECT_EQ(*cutoff, later - 3'600'000);
  // A live process without pins still keeps the last heartbeat interval.
  beat("idle", ::getpid(), std::nullopt);
  cutoff = GcCutoff(*meta_, 0, later, "");
  ASSERT_TRUE(cutoff.ok());
  EXPECT_EQ(*cutoff, later - kHeartbeatMs - 60'000);
}

TEST_F(ContentTest, GcRacingIngestNeverLosesReferencedChunks) {
  // Two files sharing most chunks; one is dropped and re-added over and
  // over while GC (grace 50 ms) runs, so GC keeps finding orphans that an
  // ingest is about to reference again.
  std::string data = Random(2 << 20, 77);
  ASSERT_TRUE(Put(data, "keep").ok());
  std::string other = data;
  other.replace(0, 100, std::string(100, 'q'));
  std::atomic<bool> stop{false};
  std::thread gc([&] {
    while (!stop) {
      auto r = CollectGarbage(*meta_, chunks_, 50, UnixMillis());
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  });
  int committed = 0;
  for (int i = 0; i < 60; ++i) {
    auto d = Put(other, "o");
    if (d.ok()) {
      ++committed;
      auto back = ReadAll(d->hash);
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      ASSERT_TRUE(*back == other);
      ASSERT_TRUE(Unpin("o").ok());
    } else {
      // The only acceptable failure: GC took a chunk between store and commit.
      EXPECT_EQ(d.status().code(), Code::kAborted) << d.status().ToString();
    }
  }
  stop = true;
  gc.join();
  EXPECT_GT(committed, 0);
  auto back = ReadAll(Blake3::Hash(data));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
  EXPECT_TRUE(Check().clean());
}

// A write may run more than once (meta_store.h): fsck and GC report what
// the run that committed found and did, not the sum over every run.
TEST_F(ContentTest, FsckAndGcCountOnceWhenTheirWritesRunAgain) {
  meta::RerunningStore twice(*meta_);
  auto d = Put(Random(1 << 20, 5), "f");
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(meta_
                  ->Write([&](meta::WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(d->hash));
                    return t.SetManifestRefs(m->id, 5);
                  })
                  .ok());
  auto found = Fsck(twice, chunks_, false);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->problems.size(), 1u);
  auto repaired = Fsck(twice, chunks_, true);
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ(repaired->repaired, 1u);
  EXPECT_TRUE(Check().clean());

  std::set<meta::Digest> distinct;
  for (const auto& c : d->chunks) distinct.insert(c.hash);
  ASSERT_TRUE(Unpin("f").ok());
  const int before = twice.reruns();
  auto gc = CollectGarbage(twice, chunks_, 0, UnixMillis() + 1000);
  ASSERT_TRUE(gc.ok()) << gc.status().ToString();
  EXPECT_GT(twice.reruns(), before);
  EXPECT_EQ(gc->chunks_deleted, distinct.size());
  for (const auto& h : distinct) EXPECT_FALSE(chunks_.Stat(h).ok());
  EXPECT_TRUE(Check().clean());
}

TEST_F(ContentTest, FsckFindsCorruptionAndWrongCountsAndRepairsCounts) {
  auto d = Put(Random(1 << 20, 3), "f");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(Check().clean());
  // A wrong count.
  ASSERT_TRUE(meta_
                  ->Write([&](meta::WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(d->hash));
                    return t.SetManifestRefs(m->id, 5);
                  })
                  .ok());
  FsckReport r = Check();
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("counts 5 references, has 1"), std::string::npos) << r.problems[0];
  auto repaired = Fsck(*meta_, chunks_, true);
  ASSERT_TRUE(repaired.ok());
  EXPECT_EQ(repaired->repaired, 1u);
  EXPECT_TRUE(Check().clean());
  // Silent corruption of one byte of one chunk.
  chunks_.CorruptForTest(d->chunks[1].hash, 12345 % d->chunks[1].size);
  r = Check();
  ASSERT_FALSE(r.clean());
  EXPECT_NE(r.problems[0].find("is corrupt"), std::string::npos) << r.problems[0];
  // A missing chunk.
  ASSERT_TRUE(chunks_.Delete(d->chunks[0].hash).ok());
  r = Check();
  bool missing = false;
  for (auto& p : r.problems) missing |= p.find("is missing") != std::string::npos;
  EXPECT_TRUE(missing);
}

size_t StoredChunks(blob::ChunkStore& store) {
  size_t n = 0;
  EXPECT_TRUE(store
                  .ForEach([&](const meta::Digest&, const blob::ChunkInfo&) {
                    ++n;
                    return Status::Ok();
                  })
                  .ok());
  return n;
}

// Tiny files (storage.inline_max): the bytes commit in the chunk's row and
// never touch the chunk store; reading, dedup, fsck and GC treat the row
// like any chunk.
TEST_F(ContentTest, TinyContentLivesInItsRow) {
  const std::string small = Random(4096, 41);
  auto d = Put(small, "s", nullptr, 1000, /*inline_max=*/8192);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_EQ(d->chunks.size(), 1u);
  ASSERT_TRUE(d->chunks[0].data.has_value());
  EXPECT_EQ(StoredChunks(chunks_), 0u);  // no chunk file at all
  auto back = ReadAll(d->hash);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == small);
  auto mid = ReadAll(d->hash, 1000, 2000);  // a range inside it
  ASSERT_TRUE(mid.ok());
  EXPECT_TRUE(*mid == small.substr(1000, 2000));
  FsckReport r = Check();
  EXPECT_TRUE(r.clean());
  EXPECT_EQ(r.inline_chunks, 1u);
  EXPECT_EQ(r.bytes_verified, 4096u);

  // The same bytes again: the same manifest, one more reference.
  ASSERT_TRUE(Put(small, "s2", nullptr, 1000, 8192).ok());
  ASSERT_TRUE(meta_
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(d->hash));
                    EXPECT_EQ(m->refs, 2);
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(d->hash));
                    EXPECT_TRUE(c->inline_data);
                    EXPECT_EQ(c->refs, 1);
                    return Status::Ok();
                  })
                  .ok());

  // One byte over the limit goes to the chunk store as before.
  auto big = Put(Random(8193, 42), "b", nullptr, 1000, 8192);
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big->chunks[0].data.has_value());
  EXPECT_EQ(StoredChunks(chunks_), 1u);

  // Silent corruption of the row is found.
  std::string bad = small;
  bad[7] ^= 1;
  ASSERT_TRUE(meta_->Write([&](meta::WriteTxn& t) { return t.SetChunkData(d->hash, bad); }).ok());
  r = Check();
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("inline chunk"), std::string::npos) << r.problems[0];
  EXPECT_NE(r.problems[0].find("is corrupt"), std::string::npos) << r.problems[0];
  ASSERT_TRUE(meta_->Write([&](meta::WriteTxn& t) { return t.SetChunkData(d->hash, small); }).ok());

  // Released, the row (and with it the bytes) goes at the next GC.
  ASSERT_TRUE(Unpin("s").ok());
  ASSERT_TRUE(Unpin("s2").ok());
  auto gc = CollectGarbage(*meta_, chunks_, 0, UnixMillis() + 1000);
  ASSERT_TRUE(gc.ok());
  EXPECT_EQ(gc->chunks_deleted, 1u);
  EXPECT_EQ(gc->bytes_freed, 4096u);
  ASSERT_TRUE(meta_
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(d->hash));
                    EXPECT_FALSE(c.has_value());
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_TRUE(Check().clean());
}

// A chunk stored as a file, then orphaned, may lose its file to GC at any
// moment; the same bytes uploaded again as a tiny file revive the row with
// the bytes in it, so nothing depends on the file any more.
TEST_F(ContentTest, TinyUploadRevivesAnOrphanedChunkRowWithItsBytes) {
  const std::string small = Random(3000, 43);
  auto d = Put(small, "f");  // inline off: a chunk file
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(StoredChunks(chunks_), 1u);
  ASSERT_TRUE(Unpin("f").ok());
  ASSERT_TRUE(chunks_.Delete(d->hash).ok());  // GC's file deletion, before its row's
  auto again = Put(small, "i", nullptr, 1000, 8192);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto back = ReadAll(d->hash);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == small);
  FsckReport r = Check();
  EXPECT_TRUE(r.clean()) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.inline_chunks, 1u);
}

// References an upload held pass to the manifest made of them in one
// pass: each count ends as ReleaseChunks then AcquireManifest would leave
// it, and fsck agrees.
TEST_F(ContentTest, ReleasingIntoAManifestCountsAsReleaseThenAcquire) {
  std::vector<meta::ManifestChunk> c(4);
  std::string joined;  // a, b and d
  for (size_t i = 0; i < c.size(); ++i) {
    const std::string bytes = Random(1000 + i, 60 + i);
    if (i < 3) joined += bytes;
    c[i].hash = Blake3::Hash(bytes);
    c[i].size = static_cast<uint32_t>(bytes.size());
    ASSERT_TRUE(chunks_.Put(c[i].hash, bytes).ok());
  }
  const meta::Digest a = c[0].hash, b = c[1].hash, d = c[2].hash, e = c[3].hash;
  // What an upload holds: a once, b twice, e once; d has no row yet.
  ASSERT_TRUE(meta_
                  ->Write([&](meta::WriteTxn& t) {
                    return AcquireChunks(
                        t, {{a, c[0].size}, {b, c[1].size}, {b, c[1].size}, {e, c[3].size}});
                  })
                  .ok());
  ManifestDraft draft;
  for (size_t i : {0, 1, 2}) {  // a, b, d
    meta::ManifestChunk m = c[i];
    m.seq = static_cast<uint32_t>(draft.chunks.size());
    m.offset = draft.size;
    draft.size += m.size;
    draft.chunks.push_back(m);
  }
  draft.hash = Blake3::Hash(joined);
  const int64_t now = UnixMillis();
  ASSERT_TRUE(meta_
                  ->Write([&](meta::WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(int64_t id,
                                          AcquireManifestReleasing(t, draft, {a, b, b, e}, now));
                    return t.InsertPin("joined", id);
                  })
                  .ok());
  ASSERT_TRUE(meta_
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    for (const meta::Digest& h : {a, b, d}) {
                      NUBO_ASSIGN_OR_RETURN(auto row, t.GetChunk(h));
                      EXPECT_TRUE(row && row->refs == 1 && !row->orphaned_at_ms);
                    }
                    NUBO_ASSIGN_OR_RETURN(auto gone, t.GetChunk(e));
                    EXPECT_TRUE(gone && gone->refs == 0 && gone->orphaned_at_ms == now);
                    return Status::Ok();
                  })
                  .ok());
  FsckReport r = Check();
  EXPECT_TRUE(r.clean()) << (r.problems.empty() ? "" : r.problems[0]);
  // A reference released that nothing counted is refused, and the
  // transaction with it.
  Status bad = meta_->Write([&](meta::WriteTxn& t) -> Status {
    draft.hash = Blake3::Hash("another content");
    return AcquireManifestReleasing(t, draft, {e}, now).status();
  });
  EXPECT_EQ(bad.code(), Code::kInternal) << bad.ToString();
}

// The empty file has no chunk at all, inline or not.
TEST_F(ContentTest, EmptyContentHasNoChunk) {
  auto d = Put("", "e", nullptr, 1000, 8192);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->chunks.empty());
  auto back = ReadAll(d->hash);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->empty());
}

TEST_F(ContentTest, FailedChunkWritesCommitNothing) {
  blob::FaultPlan plan;
  blob::FaultyChunkStore faulty(chunks_, plan);
  std::string data = Random(3 << 20, 11);
  for (uint64_t n = 0;; ++n) {
    ASSERT_LT(n, 100u);
    plan.Arm(n, n % 2 ? blob::FaultPlan::Fault::kEnospc : blob::FaultPlan::Fault::kEio);
    auto d = Put(data, "x" + std::to_string(n), &faulty);
    plan.Disarm();
    if (d.ok()) break;  // the plan passed every Put
    EXPECT_TRUE(d.status().code() == Code::kResourceExhausted ||
                d.status().code() == Code::kIoError);
    // Nothing committed: no manifest, no pin, and every invariant holds.
    ASSERT_TRUE(meta_
                    ->Read([&](meta::ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(Blake3::Hash(data)));
                      EXPECT_FALSE(m.has_value()) << "n=" << n;
                      return Status::Ok();
                    })
                    .ok());
    EXPECT_TRUE(Check().clean()) << "n=" << n;
  }
  auto back = ReadAll(Blake3::Hash(data));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == data);
}

}  // namespace
}  // namespace nubo::content
