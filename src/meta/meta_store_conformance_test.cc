// The contract every MetaStore backend must meet, parameterized by backend.
// A PostgreSQL backend adds its factory to kBackends and must pass as is.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include "meta/migrations.h"
#include "meta/pg/pg_store.h"
#include "meta/pg/pg_test_cluster.h"
#include "meta/sqlite/sqlite_store.h"
#include "meta/test_rows.h"
#include "search/query.h"
#include "util/ids.h"

namespace nubo::meta {
namespace {

namespace fs = std::filesystem;
using test_rows::InsertAliceAndDrive;
using test_rows::InsertFolder;
using test_rows::InsertRoot;

struct Backend {
  const char* name;
  // Opens a store at `dir` (same dir = same database).
  std::function<Result<std::unique_ptr<MetaStore>>(const fs::path& dir)> open;
};

// PostgreSQL: a fresh database of the throwaway test cluster per test,
// named in the test's folder so that reopening finds the same one.
Result<std::unique_ptr<MetaStore>> OpenTestPostgres(const fs::path& dir) {
  const fs::path named = dir / "pg.conninfo";
  std::string conninfo;
  if (std::ifstream in(named); in) {
    std::getline(in, conninfo);
  } else {
    NUBO_ASSIGN_OR_RETURN(conninfo, pg::FreshTestDatabase());
    std::ofstream(named) << conninfo << "\n";
  }
  return OpenPostgres(conninfo);
}

const Backend kBackends[] = {
    {"sqlite", [](const fs::path& dir) { return OpenSqlite((dir / "meta.db").string()); }},
    {"postgres", OpenTestPostgres},
};

class MetaStoreConformance : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nubo-meta-" + RandomHex(6));
    fs::create_directories(dir_);
    auto s = GetParam().open(dir_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  fs::path dir_;
  std::unique_ptr<MetaStore> store_;
};

Digest D(const char* s) { return Blake3::Hash(s); }

ManifestChunk MC(uint32_t seq, const char* h, uint64_t off, uint32_t size) {
  return ManifestChunk{seq, D(h), off, size};
}

TEST_P(MetaStoreConformance, MigrationsApplyFromEmptyAndAreIdempotent) {
  auto v = store_->SchemaVersion();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, Migrations().back().version);
  store_.reset();
  auto again = GetParam().open(dir_);  // reopening applies nothing new
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*(*again)->SchemaVersion(), Migrations().back().version);
}

// A big file's chunk list goes in several rows to a statement: every row
// lands, in order, whatever the count's remainder; the manifest starts with
// the references it is given, and an inline chunk with its bytes.
// Recent entries: a touch moves a node to the front, a node deleted before
// the touch is skipped (not an error: the flush would fail for everyone),
// and a trim keeps the newest.
TEST_P(MetaStoreConformance, RecentTouchesSkipGoneNodesAndTrimKeepsTheNewest) {
  UserRow u;
  std::vector<int64_t> ids;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    DriveRow d;
                    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
                    NodeRow root;
                    NUBO_RETURN_IF_ERROR(InsertRoot(t, d, root));
                    for (int i = 0; i < 5; ++i) {
                      NodeRow n;
                      n.public_id = "r" + std::to_string(i);
                      n.drive_id = d.id;
                      n.parent_id = root.id;
                      n.name = n.name_key = "r" + std::to_string(i);
                      n.mime = "inode/directory";
                      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
                      ids.push_back(n.id);
                    }
                    return Status::Ok();
                  })
                  .ok());
  auto names = [&] {
    std::vector<std::string> out;
    EXPECT_TRUE(store_
                    ->Read([&](ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto rows, t.ListRecent(u.id, 10));
                      for (const auto& n : rows) out.push_back(n.name);
                      return Status::Ok();
                    })
                    .ok());
    return out;
  };
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    for (int i = 0; i < 4; ++i)
                      NUBO_RETURN_IF_ERROR(t.TouchRecent(u.id, ids[i], 100 + i));
                    NUBO_RETURN_IF_ERROR(t.TouchRecent(u.id, ids[0], 200));
                    NUBO_RETURN_IF_ERROR(t.TouchRecent(u.id, 987654, 201));  // no such node
                    return t.TouchRecent(987654, ids[4], 202);               // no such user
                  })
                  .ok());
  EXPECT_EQ(names(), (std::vector<std::string>{"r0", "r3", "r2", "r1"}));
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.TrimRecent(u.id, 2); }).ok());
  EXPECT_EQ(names(), (std::vector<std::string>{"r0", "r3"}));
}

TEST_P(MetaStoreConformance, ManyChunkManifestsAndInlineChunksInsertWhole) {
  ASSERT_TRUE(store_
                  ->Write([](WriteTxn& t) -> Status {
                    for (int i = 0; i < 7; ++i) {
                      NUBO_RETURN_IF_ERROR(t.InsertChunk(
                          {D(("c" + std::to_string(i)).c_str()), 3, 3, std::nullopt}));
                    }
                    return Status::Ok();
                  })
                  .ok());
  for (size_t n : {size_t{31}, size_t{32}, size_t{69}}) {
    std::vector<ManifestChunk> list;
    for (size_t i = 0; i < n; ++i) {
      list.push_back(MC(static_cast<uint32_t>(i), ("c" + std::to_string(i % 7)).c_str(), i * 3, 3));
    }
    const Digest hash = D(("many" + std::to_string(n)).c_str());
    int64_t id = 0;
    ASSERT_TRUE(store_
                    ->Write([&](WriteTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(id, t.InsertManifest(hash, n * 3, list, 2));
                      return Status::Ok();
                    })
                    .ok());
    ASSERT_TRUE(store_
                    ->Read([&](ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto m, t.GetManifest(id));
                      EXPECT_TRUE(m.has_value());
                      EXPECT_EQ(m ? m->refs : -1, 2);
                      NUBO_ASSIGN_OR_RETURN(auto got, t.ManifestChunks(id));
                      EXPECT_EQ(got.size(), n);
                      for (size_t i = 0; i < got.size() && i < n; ++i) {
                        EXPECT_EQ(got[i].seq, list[i].seq);
                        EXPECT_EQ(got[i].hash, list[i].hash);
                        EXPECT_EQ(got[i].offset, list[i].offset);
                      }
                      return Status::Ok();
                    })
                    .ok())
        << n;
  }
  ASSERT_TRUE(store_
                  ->Write([](WriteTxn& t) -> Status {
                    NUBO_RETURN_IF_ERROR(t.InsertInlineChunk({D("tiny"), 4, 1, std::nullopt},
                                                             std::string("a\0bc", 4)));
                    Status again = t.InsertInlineChunk({D("tiny"), 4, 1, std::nullopt}, "zzzz");
                    EXPECT_EQ(again.code(), Code::kAlreadyExists);
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->Read([](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto row, t.GetChunk(D("tiny")));
                    EXPECT_TRUE(row && row->inline_data && row->refs == 1 && row->size == 4u);
                    NUBO_ASSIGN_OR_RETURN(auto data, t.ChunkData(D("tiny")));
                    EXPECT_EQ(data, std::optional<std::string>(std::string("a\0bc", 4)));
                    return Status::Ok();
                  })
                  .ok());
}

TEST_P(MetaStoreConformance, ManifestsChunksAndPins) {
  ASSERT_TRUE(store_
                  ->Write([](WriteTxn& t) -> Status {
                    NUBO_RETURN_IF_ERROR(t.InsertChunk({D("a"), 10, 1, std::nullopt}));
                    NUBO_RETURN_IF_ERROR(t.InsertChunk({D("b"), 5, 1, std::nullopt}));
                    NUBO_ASSIGN_OR_RETURN(
                        int64_t id,
                        t.InsertManifest(D("m"), 25,
                                         {MC(0, "a", 0, 10), MC(1, "b", 10, 5), MC(2, "a", 15, 10)},
                                         0));
                    NUBO_RETURN_IF_ERROR(t.SetManifestRefs(id, 1));
                    return t.InsertPin("p", id);
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->Read([](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(D("m")));
                    EXPECT_TRUE(m.has_value());
                    EXPECT_EQ(m->size, 25u);
                    EXPECT_EQ(m->refs, 1);
                    NUBO_ASSIGN_OR_RETURN(auto byid, t.GetManifest(m->id));
                    EXPECT_EQ(byid->hash, D("m"));
                    NUBO_ASSIGN_OR_RETURN(auto list, t.ManifestChunks(m->id));
                    EXPECT_EQ(list.size(), 3u);
                    EXPECT_EQ(list[2].offset, 15u);
                    EXPECT_EQ(list[1].hash, D("b"));
                    NUBO_ASSIGN_OR_RETURN(auto pin, t.GetPin("p"));
                    EXPECT_EQ(pin, m->id);
                    NUBO_ASSIGN_OR_RETURN(auto pins, t.ListPins("", 10));
                    EXPECT_EQ(pins.size(), 1u);
                    NUBO_ASSIGN_OR_RETURN(auto crefs, t.CountChunkReferences());
                    EXPECT_EQ(crefs.size(), 2u);  // "a" listed twice by one manifest counts once
                    for (auto& [h, n] : crefs) EXPECT_EQ(n, 1);
                    NUBO_ASSIGN_OR_RETURN(auto mrefs, t.CountManifestReferences());
                    EXPECT_EQ(mrefs.size(), 1u);
                    NUBO_ASSIGN_OR_RETURN(auto missing, t.FindManifest(D("zz")));
                    EXPECT_FALSE(missing.has_value());
                    return Status::Ok();
                  })
                  .ok());
}

// Counts change in the statement that finds the row: many rows a
// statement (past one batch), new rows created, an orphan revived; a drop
// to zero stamps the orphan time, a drop below zero fails and changes
// nothing.
TEST_P(MetaStoreConformance, ChunkCountsChangeByDelta) {
  std::vector<ChunkRow> rows;
  for (int i = 0; i < 70; ++i) {
    rows.push_back({Blake3::Hash("chunk " + std::to_string(i)), 100u + i, 1 + i % 3, std::nullopt});
  }
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_RETURN_IF_ERROR(t.InsertChunk({rows[0].hash, 100, 2, std::nullopt}));
                    return t.InsertChunk({rows[69].hash, 169, 0, 1234});  // an orphan
                  })
                  .ok());
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.AddChunkRefs(rows); }).ok());
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    for (int i = 0; i < 70; ++i) {
                      NUBO_ASSIGN_OR_RETURN(auto row, t.GetChunk(rows[i].hash));
                      EXPECT_TRUE(row.has_value()) << i;
                      if (!row) continue;
                      EXPECT_EQ(row->refs, (i == 0 ? 2 : 0) + 1 + i % 3) << i;
                      EXPECT_EQ(row->size, 100u + i) << i;
                      EXPECT_FALSE(row->orphaned_at_ms.has_value()) << i;
                    }
                    return Status::Ok();
                  })
                  .ok());
  // rows[1] holds 2: one drop leaves 1, the next reaches 0 at its time.
  for (int64_t at : {50, 60}) {
    Status st = store_->Write([&](WriteTxn& t) { return t.DropChunkRefs(rows[1].hash, 1, at); });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  Status under = store_->Write([&](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.DropChunkRefs(rows[2].hash, 1, 70));  // holds 3
    return t.DropChunkRefs(rows[1].hash, 1, 70);                 // holds 0
  });
  EXPECT_EQ(under.code(), Code::kInternal) << under.ToString();
  Status missing =
      store_->Write([&](WriteTxn& t) { return t.DropChunkRefs(D("no such chunk"), 1, 70); });
  EXPECT_EQ(missing.code(), Code::kInternal) << missing.ToString();
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto gone, t.GetChunk(rows[1].hash));
                    EXPECT_EQ(gone->refs, 0);
                    EXPECT_EQ(gone->orphaned_at_ms, std::optional<int64_t>(60));
                    NUBO_ASSIGN_OR_RETURN(auto kept, t.GetChunk(rows[2].hash));
                    EXPECT_EQ(kept->refs, 3);  // the failed write's first drop undone
                    EXPECT_FALSE(kept->orphaned_at_ms.has_value());
                    return Status::Ok();
                  })
                  .ok());
}

TEST_P(MetaStoreConformance, ManifestChecksumsAreKeptReplacedAndGoWithTheManifest) {
  int64_t a = 0, b = 0;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(a, t.InsertManifest(D("ca"), 0, {}, 0));
                    NUBO_ASSIGN_OR_RETURN(b, t.InsertManifest(D("cb"), 0, {}, 0));
                    NUBO_ASSIGN_OR_RETURN(std::string none, t.ManifestChecksums(a));
                    EXPECT_EQ(none, "");
                    NUBO_RETURN_IF_ERROR(t.SetManifestChecksums(a, "SHA1:aa"));
                    NUBO_RETURN_IF_ERROR(t.SetManifestChecksums(a, "MD5:bb SHA1:aa"));
                    EXPECT_EQ(t.SetManifestChecksums(999999, "SHA1:aa").code(), Code::kNotFound);
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(std::string sums, t.ManifestChecksums(a));
                    EXPECT_EQ(sums, "MD5:bb SHA1:aa");
                    NUBO_ASSIGN_OR_RETURN(auto listed, t.ListManifestChecksums({a, b, 999999}));
                    EXPECT_EQ(listed.size(), 1u);  // b has none, 999999 does not exist
                    if (!listed.empty()) {
                      EXPECT_EQ(listed[0].first, a);
                      EXPECT_EQ(listed[0].second, "MD5:bb SHA1:aa");
                    }
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_RETURN_IF_ERROR(t.SetManifestChecksums(a, ""));  // cleared
                    NUBO_ASSIGN_OR_RETURN(std::string sums, t.ManifestChecksums(a));
                    EXPECT_EQ(sums, "");
                    NUBO_RETURN_IF_ERROR(t.SetManifestChecksums(b, "SHA1:cc"));
                    NUBO_RETURN_IF_ERROR(t.DeleteManifest(b));
                    NUBO_ASSIGN_OR_RETURN(auto gone, t.ListManifestChecksums({b}));
                    EXPECT_TRUE(gone.empty());
                    return Status::Ok();
                  })
                  .ok());
}

TEST_P(MetaStoreConformance, UniqueViolationsAreAlreadyExists) {
  Status st = store_->Write([](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.InsertChunk({D("a"), 1, 0, 0}));
    return t.InsertChunk({D("a"), 1, 0, 0});
  });
  EXPECT_EQ(st.code(), Code::kAlreadyExists) << st.ToString();
  st = store_->Write([](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.InsertManifest(D("m"), 0, {}, 0).status());
    return t.InsertManifest(D("m"), 0, {}, 0).status();
  });
  EXPECT_EQ(st.code(), Code::kAlreadyExists);
}

TEST_P(MetaStoreConformance, FailedWriteRollsBackEverything) {
  Status st = store_->Write([](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.InsertChunk({D("a"), 1, 0, 0}));
    return Status::Conflict("caller changed its mind");
  });
  EXPECT_EQ(st.code(), Code::kConflict);
  ASSERT_TRUE(store_
                  ->Read([](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(D("a")));
                    EXPECT_FALSE(c.has_value());
                    return Status::Ok();
                  })
                  .ok());
}

TEST_P(MetaStoreConformance, SignInFailuresCountLockClearAndPurge) {
  ASSERT_TRUE(store_
                  ->Write([](WriteTxn& t) -> Status {
                    // Two failures, then one more reaches the limit of 3.
                    NUBO_ASSIGN_OR_RETURN(auto r, t.AddSignInFailures("user:a@1", 2, 3, 500, 1000));
                    EXPECT_EQ(r.failures, 2);
                    EXPECT_EQ(r.locked_until_ms, 0);
                    NUBO_ASSIGN_OR_RETURN(r, t.AddSignInFailures("user:a@1", 1, 3, 500, 1100));
                    EXPECT_EQ(r.failures, 3);
                    EXPECT_EQ(r.locked_until_ms, 1600);
                    // Further failures while locked do not extend the lock.
                    NUBO_ASSIGN_OR_RETURN(r, t.AddSignInFailures("user:a@1", 1, 3, 500, 1200));
                    EXPECT_EQ(r.locked_until_ms, 1600);
                    // A success while locked keeps the lock.
                    NUBO_RETURN_IF_ERROR(t.ClearSignInFailures("user:a@1", 1300));
                    NUBO_ASSIGN_OR_RETURN(auto rows, t.SignInFailuresSince(0, 10));
                    EXPECT_EQ(rows.size(), 1u);
                    // After the lock a failure starts a new window.
                    NUBO_ASSIGN_OR_RETURN(r, t.AddSignInFailures("user:a@1", 1, 3, 500, 1700));
                    EXPECT_EQ(r.failures, 1);
                    EXPECT_EQ(r.locked_until_ms, 0);
                    NUBO_RETURN_IF_ERROR(t.AddSignInFailures("ip:2", 1, 15, 500, 1800).status());
                    NUBO_ASSIGN_OR_RETURN(rows, t.SignInFailuresSince(1750, 10));
                    EXPECT_EQ(rows.size(), 1u);
                    if (rows.size() == 1) {
                      EXPECT_EQ(rows[0].key, "ip:2");
                    }
                    // Unlocked: a success forgets it.
                    NUBO_RETURN_IF_ERROR(t.ClearSignInFailures("user:a@1", 1750));
                    NUBO_ASSIGN_OR_RETURN(rows, t.SignInFailuresSince(0, 10));
                    EXPECT_EQ(rows.size(), 1u);
                    NUBO_ASSIGN_OR_RETURN(auto purged, t.PurgeSignInFailures(1801, 1900));
                    EXPECT_EQ(purged, 1);
                    NUBO_ASSIGN_OR_RETURN(rows, t.SignInFailuresSince(0, 10));
                    EXPECT_TRUE(rows.empty());
                    return Status::Ok();
                  })
                  .ok());
}

// A chore's lease: one holder at a time, renewed by its holder, free for
// another when its time runs out (a holder that died) and, once given back,
// not taken again before the chore's interval (the taker's) has passed.
TEST_P(MetaStoreConformance, LeasesHaveOneHolderAndAnInterval) {
  // Takes "sweep" (or `name`) at `now` for 1,000 ms, due 5,000 ms after it
  // was last done.
  auto take = [&](const char* who, int64_t now, const char* name = "sweep") {
    bool got = false;
    Status st = store_->Write([&](WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(got, t.TakeLease(name, who, now, now + 1000, now - 5000));
      return Status::Ok();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return got;
  };
  auto release = [&](const char* who, int64_t done_at) {
    Status st =
        store_->Write([&](WriteTxn& t) -> Status { return t.ReleaseLease("sweep", who, done_at); });
    EXPECT_TRUE(st.ok()) << st.ToString();
  };
  EXPECT_TRUE(take("a", 1000));           // never taken: free and due
  EXPECT_FALSE(take("b", 1500));          // a holds it until 2,000
  EXPECT_TRUE(take("b", 1500, "other"));  // another chore, another lease
  EXPECT_TRUE(take("a", 1900));           // a renews: until 2,900
  EXPECT_FALSE(take("b", 2500));
  release("b", 2600);  // not b's to give back
  EXPECT_FALSE(take("b", 2700));
  release("a", 2800);             // done at 2,800: due at 7,800
  EXPECT_FALSE(take("b", 7799));  // free, but not due
  EXPECT_TRUE(take("b", 7800));   // until 8,800
  // b dies holding it: after 8,800 it is anyone's (still due).
  EXPECT_FALSE(take("a", 8800));
  EXPECT_TRUE(take("a", 8801));
  EXPECT_FALSE(take("b", 9000));  // and b, back, waits its turn
}

TEST_P(MetaStoreConformance, ProcessRowsBeatAndEnd) {
  ASSERT_TRUE(
      store_
          ->Write([](WriteTxn& t) -> Status {
            NUBO_RETURN_IF_ERROR(t.BeatProcess({"a", "h1", 10, 100, 1000, std::nullopt}, 0));
            NUBO_RETURN_IF_ERROR(t.BeatProcess({"b", "h2", 11, 200, 500, 450}, 0));
            // A second beat updates the heartbeat and the pin.
            NUBO_RETURN_IF_ERROR(t.BeatProcess({"a", "h1", 10, 100, 2000, 1900}, 0));
            NUBO_ASSIGN_OR_RETURN(auto live, t.LiveProcesses(1000));
            EXPECT_EQ(live.size(), 1u);
            if (live.size() == 1) {
              EXPECT_EQ(live[0].id, "a");
              EXPECT_EQ(live[0].heartbeat_at_ms, 2000);
              EXPECT_EQ(live[0].oldest_pin_at_ms, std::optional<int64_t>(1900));
            }
            NUBO_ASSIGN_OR_RETURN(live, t.LiveProcesses(0));
            EXPECT_EQ(live.size(), 2u);
            // Beats forget rows silent for too long.
            NUBO_RETURN_IF_ERROR(t.BeatProcess({"a", "h1", 10, 100, 3000, std::nullopt}, 600));
            NUBO_ASSIGN_OR_RETURN(live, t.LiveProcesses(0));
            EXPECT_EQ(live.size(), 1u);
            if (live.size() == 1) {
              EXPECT_FALSE(live[0].oldest_pin_at_ms.has_value());
            }
            NUBO_RETURN_IF_ERROR(t.EndProcess("a"));
            NUBO_ASSIGN_OR_RETURN(live, t.LiveProcesses(0));
            EXPECT_TRUE(live.empty());
            return Status::Ok();
          })
          .ok());
}

TEST_P(MetaStoreConformance, MissingRowsAreNotFound) {
  ASSERT_TRUE(store_
                  ->Write([](WriteTxn& t) -> Status {
                    EXPECT_EQ(t.SetManifestRefs(42, 1).code(), Code::kNotFound);
                    EXPECT_EQ(t.DeleteManifest(42).code(), Code::kNotFound);
                    EXPECT_EQ(t.SetChunkRefs(D("x"), 1, std::nullopt).code(), Code::kNotFound);
                    EXPECT_EQ(t.DeleteChunk(D("x")).code(), Code::kNotFound);
                    EXPECT_EQ(t.DeletePin("x").code(), Code::kNotFound);
                    return Status::Ok();
                  })
                  .ok());
}

TEST_P(MetaStoreConformance, PagingAndOrphans) {
  ASSERT_TRUE(
      store_
          ->Write([](WriteTxn& t) -> Status {
            for (int i = 0; i < 25; ++i) {
              std::string k = "c" + std::to_string(i);
              NUBO_RETURN_IF_ERROR(t.InsertChunk(
                  {Blake3::Hash(k), 1, i % 2, i % 2 ? std::nullopt : std::optional<int64_t>(i)}));
            }
            return Status::Ok();
          })
          .ok());
  ASSERT_TRUE(store_
                  ->Read([](ReadTxn& t) -> Status {
                    std::set<Digest> seen;
                    std::optional<Digest> after;
                    for (;;) {
                      NUBO_ASSIGN_OR_RETURN(auto page, t.ListChunks(after, 7));
                      if (page.empty()) break;
                      EXPECT_LE(page.size(), 7u);
                      for (auto& c : page) EXPECT_TRUE(seen.insert(c.hash).second);
                      after = page.back().hash;
                    }
                    EXPECT_EQ(seen.size(), 25u);
                    NUBO_ASSIGN_OR_RETURN(auto orphans, t.ListOrphanChunks(10, 100));
                    EXPECT_EQ(orphans.size(), 6u);  // even i in 0..10
                    for (auto& o : orphans) {
                      EXPECT_EQ(o.refs, 0);
                      EXPECT_LE(*o.orphaned_at_ms, 10);
                    }
                    return Status::Ok();
                  })
                  .ok());
}

TEST_P(MetaStoreConformance, ConcurrentWritesCommitTogetherAndFailAlone) {
  // While one write holds the writer, sixteen more arrive; backends may run
  // them in one transaction (group commit), but each must still behave as
  // if alone: a failed write leaves nothing, even when it inserted rows
  // before failing, and the others all commit.
  // A name taken before any of them starts: on an engine whose writers
  // run side by side the order among them is not fixed.
  ASSERT_TRUE(store_
                  ->Write([](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(int64_t id, t.InsertManifest(D("taken"), 0, {}, 0));
                    return t.InsertPin("taken", id);
                  })
                  .ok());
  std::atomic<int> arrived{0};
  std::atomic<bool> holding{false}, batched{false};
  std::thread first([&] {
    Status st = store_->Write([&](WriteTxn& t) -> Status {
      holding = true;
      while (arrived < 16) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let them queue
      NUBO_ASSIGN_OR_RETURN(int64_t id, t.InsertManifest(D("first"), 0, {}, 0));
      return t.InsertPin("first", id);
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  std::vector<Status> results(16);
  std::vector<std::thread> writers;
  for (int i = 0; i < 16; ++i) {
    writers.emplace_back([&, i] {
      const auto caller = std::this_thread::get_id();
      while (!holding) std::this_thread::yield();
      ++arrived;
      results[i] = store_->Write([&](WriteTxn& t) -> Status {
        if (std::this_thread::get_id() != caller) batched = true;
        const std::string name = "w" + std::to_string(i);
        NUBO_ASSIGN_OR_RETURN(int64_t id, t.InsertManifest(D(name.c_str()), 0, {}, 0));
        NUBO_RETURN_IF_ERROR(t.InsertPin(name, id));
        if (i % 4 == 1) return Status::InvalidArgument("refused " + name);
        if (i % 4 == 2) return t.InsertPin("taken", id);  // a constraint violation, after writes
        return Status::Ok();
      });
    });
  }
  first.join();
  for (auto& w : writers) w.join();
  for (int i = 0; i < 16; ++i) {
    if (i % 4 == 1) {
      EXPECT_EQ(results[i].code(), Code::kInvalidArgument) << i;
    } else if (i % 4 == 2) {
      EXPECT_EQ(results[i].code(), Code::kAlreadyExists) << i << " " << results[i].ToString();
    } else {
      EXPECT_TRUE(results[i].ok()) << i << " " << results[i].ToString();
    }
  }
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    for (int i = 0; i < 16; ++i) {
                      const std::string name = "w" + std::to_string(i);
                      NUBO_ASSIGN_OR_RETURN(auto pin, t.GetPin(name));
                      NUBO_ASSIGN_OR_RETURN(auto m, t.FindManifest(D(name.c_str())));
                      const bool kept = i % 4 == 0 || i % 4 == 3;
                      EXPECT_EQ(pin.has_value(), kept) << name;
                      EXPECT_EQ(m.has_value(), kept) << name;
                    }
                    NUBO_ASSIGN_OR_RETURN(auto first_pin, t.GetPin("first"));
                    EXPECT_TRUE(first_pin.has_value());
                    return Status::Ok();
                  })
                  .ok());
  // Both engines run the queued writes on one thread in one transaction,
  // and count fewer commits than writes.
  EXPECT_TRUE(batched.load());
  const auto stats = store_->Stats();
  EXPECT_GE(stats.writes, 17u);
  EXPECT_LT(stats.commits, stats.writes);
}

// A write that fails inside a shared transaction must not cost the others
// their effects nor apply theirs twice, whatever the engine does to keep
// them apart (SQLite runs such a batch again in savepoints: a write may run
// more than once, and only its last run may count).
TEST_P(MetaStoreConformance, AFailedWriteInABatchCountsEveryOtherWriteOnce) {
  const Digest chunk = D("counted");
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) {
                      return t.InsertChunk({chunk, 10, 1, std::nullopt});
                    })
                  .ok());
  constexpr int kWriters = 8;
  auto round = [&](int failing, std::vector<int>& runs) -> std::vector<Status> {
    std::atomic<int> arrived{0};
    std::atomic<bool> holding{false};
    std::thread first([&] {
      EXPECT_TRUE(store_
                      ->Write([&](WriteTxn&) -> Status {
                        holding = true;
                        while (arrived < kWriters) std::this_thread::yield();
                        std::this_thread::sleep_for(std::chrono::milliseconds(50));
                        return Status::Ok();
                      })
                      .ok());
    });
    std::vector<Status> results(kWriters);
    std::vector<std::atomic<int>> counted(kWriters);
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i) {
      writers.emplace_back([&, i] {
        while (!holding) std::this_thread::yield();
        ++arrived;
        results[i] = store_->Write([&, i](WriteTxn& t) -> Status {
          ++counted[i];
          NUBO_RETURN_IF_ERROR(t.AddChunkRefs({{chunk, 10, 1, std::nullopt}}));
          if (i == failing) return Status::InvalidArgument("refused after counting");
          return Status::Ok();
        });
      });
    }
    first.join();
    for (auto& w : writers) w.join();
    runs.assign(kWriters, 0);
    for (int i = 0; i < kWriters; ++i) runs[i] = counted[i].load();
    return results;
  };
  auto refs = [&]() -> int64_t {
    int64_t n = -1;
    EXPECT_TRUE(store_
                    ->Read([&](ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto row, t.GetChunk(chunk));
                      if (row) n = row->refs;
                      return Status::Ok();
                    })
                    .ok());
    return n;
  };
  const bool sqlite = std::string(GetParam().name) == "sqlite";

  // Every write succeeds: each counts once and runs once.
  const uint64_t reruns_before = store_->Stats().reruns;
  std::vector<int> runs;
  for (const Status& st : round(-1, runs)) EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(refs(), 1 + kWriters);
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(runs[i], 1) << i;
  EXPECT_EQ(store_->Stats().reruns, reruns_before);

  // One of them fails after counting: the others count once each.
  const std::vector<Status> results = round(3, runs);
  for (int i = 0; i < kWriters; ++i) {
    if (i == 3) {
      EXPECT_EQ(results[i].code(), Code::kInvalidArgument) << results[i].ToString();
    } else {
      EXPECT_TRUE(results[i].ok()) << i << " " << results[i].ToString();
    }
  }
  EXPECT_EQ(refs(), 1 + kWriters + kWriters - 1);
  if (sqlite) {
    // The batch was rolled back and run again: the failed write twice.
    EXPECT_EQ(store_->Stats().reruns, reruns_before + 1);
    EXPECT_EQ(runs[3], 2);
  }
}

TEST_P(MetaStoreConformance, ReadersSeeCommittedStateConcurrently) {
  std::atomic<bool> stop{false};
  std::atomic<int> reads{0};
  std::thread reader([&] {
    while (!stop) {
      Status st = store_->Read([&](ReadTxn& t) -> Status {
        NUBO_ASSIGN_OR_RETURN(auto pins, t.ListPins("", 1000));
        // Pins and their manifests commit together: never one without the other.
        for (auto& [name, id] : pins) {
          NUBO_ASSIGN_OR_RETURN(auto m, t.GetManifest(id));
          EXPECT_TRUE(m.has_value());
        }
        return Status::Ok();
      });
      EXPECT_TRUE(st.ok()) << st.ToString();
      reads++;
    }
  });
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(store_
                    ->Write([&](WriteTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(
                          int64_t id,
                          t.InsertManifest(Blake3::Hash("m" + std::to_string(i)), 0, {}, 0));
                      return t.InsertPin("p" + std::to_string(i), id);
                    })
                    .ok());
  }
  stop = true;
  reader.join();
  EXPECT_GT(reads.load(), 0);
}

// ChangeStamp's promise (what the WebDAV poll cache relies on): a commit
// of this store moves the stamp for every call after it at once, one by
// another store on the same database (another process) within the
// engine's bound; while nothing commits it stays put.
TEST_P(MetaStoreConformance, ChangeStampMovesWithEveryCommitOfAnyProcess) {
  if (std::string_view(GetParam().name) == "postgres") {
    // Another node's commit leaves no trace in this process: no stamp, so
    // nothing is kept by one.
    EXPECT_FALSE(store_->ChangeStamp().has_value());
    return;
  }
  auto insert = [](MetaStore& m, const std::string& name) {
    return m.Write([&](WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(int64_t id, t.InsertManifest(Blake3::Hash(name), 0, {}, 0));
      return t.InsertPin(name, id);
    });
  };
  auto stamp = [&] {
    auto s = store_->ChangeStamp();
    EXPECT_TRUE(s.has_value());
    return s.value_or(0);
  };
  // Past SQLite's bound for other processes, so that a call looks again.
  auto later = [] { std::this_thread::sleep_for(std::chrono::milliseconds(3)); };
  stamp();
  later();
  const uint64_t quiet = stamp();
  for (int i = 0; i < 3; ++i) {
    later();
    EXPECT_EQ(stamp(), quiet) << "the stamp moved without a commit";
  }
  ASSERT_TRUE(store_->Read([&](ReadTxn& t) { return t.ListPins("", 10).status(); }).ok());
  later();
  EXPECT_EQ(stamp(), quiet) << "a read moved the stamp";

  // A commit here: at once, also from inside a read.
  ASSERT_TRUE(insert(*store_, "here").ok());
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn&) -> Status {
                    EXPECT_GT(stamp(), quiet);
                    return Status::Ok();
                  })
                  .ok());
  // The connection that looks for other processes' commits sees this one
  // too, and may move the stamp once more (a miss, never a stale answer).
  later();
  stamp();
  later();
  const uint64_t after_here = stamp();
  EXPECT_GT(after_here, quiet);

  // A commit through another store on the same file (what another process
  // does): within the bound.
  auto other = GetParam().open(dir_);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  later();
  EXPECT_EQ(stamp(), after_here);
  ASSERT_TRUE(insert(**other, "elsewhere").ok());
  later();
  const uint64_t after_other = stamp();
  EXPECT_GT(after_other, after_here);
  later();
  EXPECT_EQ(stamp(), after_other) << "a quiet store is quiet again";
}

TEST_P(MetaStoreConformance, RefusesADatabaseNewerThanTheBinary) {
  if (std::string(GetParam().name) != "sqlite") GTEST_SKIP() << "writes the SQLite file directly";
  store_.reset();
  // Simulate a newer nubo having migrated this database.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "meta.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "INSERT INTO schema_migrations VALUES (9999, 'future.sql', 0)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto s = GetParam().open(dir_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnsupported);
  EXPECT_NE(s.status().message().find("upgrade nubo"), std::string::npos);
}

TEST_P(MetaStoreConformance, UsersAndAppPasswords) {
  auto user = [](std::string name, std::optional<std::string> email) {
    UserRow u;
    u.public_id = "pid-" + name;
    u.username = std::move(name);
    u.email = std::move(email);
    u.display_name = "D";
    u.password_hash = "$argon2id$x";
    u.role = "user";
    u.created_at_ms = 1;
    return u;
  };
  int64_t alice_id = 0;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    UserRow a = user("Alice", "Alice@Example.org");
                    NUBO_RETURN_IF_ERROR(t.InsertUser(a));
                    alice_id = a.id;
                    EXPECT_GT(a.id, 0);
                    UserRow dup = user("ALICE", std::nullopt);
                    dup.public_id = "other";
                    EXPECT_EQ(t.InsertUser(dup).code(),
                              Code::kAlreadyExists);  // names are case-insensitive
                    UserRow same_mail = user("carol", "alice@example.org");
                    EXPECT_EQ(t.InsertUser(same_mail).code(),
                              Code::kAlreadyExists);  // so are emails
                    for (const char* n : {"bob", "dave", "erin"}) {
                      UserRow u = user(n, std::nullopt);
                      NUBO_RETURN_IF_ERROR(t.InsertUser(u));
                    }
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto a, t.GetUserByName("alice"));
                    EXPECT_TRUE(a.has_value());
                    EXPECT_EQ(a->email, "alice@example.org");
                    a->role = "admin";
                    a->active = false;
                    a->credentials_version = 7;
                    NUBO_RETURN_IF_ERROR(t.UpdateUser(*a));
                    NUBO_ASSIGN_OR_RETURN(auto again, t.GetUser(alice_id));
                    EXPECT_EQ(again->role, "admin");
                    EXPECT_FALSE(again->active);
                    EXPECT_EQ(again->credentials_version, 7);
                    NUBO_ASSIGN_OR_RETURN(int64_t admins, t.CountActiveAdmins());
                    EXPECT_EQ(admins, 0);  // inactive admins do not count
                    NUBO_ASSIGN_OR_RETURN(int64_t users, t.CountUsers());
                    EXPECT_EQ(users, 4);
                    std::vector<std::string> names;
                    std::string after;
                    for (;;) {
                      NUBO_ASSIGN_OR_RETURN(auto page, t.ListUsers(after, 3));
                      if (page.empty()) break;
                      for (auto& u : page) names.push_back(u.username);
                      after = page.back().username;
                    }
                    EXPECT_EQ(names, (std::vector<std::string>{"Alice", "bob", "dave", "erin"}));
                    NUBO_ASSIGN_OR_RETURN(auto pre, t.ListUsers("", 10, "D"));
                    EXPECT_EQ(pre.size(), 1u);
                    if (!pre.empty()) {
                      EXPECT_EQ(pre[0].username, "dave");
                    }
                    NUBO_ASSIGN_OR_RETURN(auto none, t.ListUsers("", 10, "z"));
                    EXPECT_TRUE(none.empty());

                    AppPasswordRow ap{0, alice_id, "phone", D("secret"), 5, std::nullopt};
                    NUBO_ASSIGN_OR_RETURN(int64_t id, t.InsertAppPassword(ap));
                    NUBO_RETURN_IF_ERROR(t.TouchAppPassword(id, 99));
                    NUBO_ASSIGN_OR_RETURN(auto found, t.FindAppPassword(D("secret")));
                    EXPECT_TRUE(found.has_value());
                    EXPECT_EQ(found->user_id, alice_id);
                    EXPECT_EQ(found->last_used_at_ms, 99);
                    NUBO_ASSIGN_OR_RETURN(auto list, t.ListAppPasswords(alice_id));
                    EXPECT_EQ(list.size(), 1u);
                    EXPECT_EQ(t.DeleteAppPassword(alice_id + 1000, id).code(),
                              Code::kNotFound);  // not yours
                    NUBO_RETURN_IF_ERROR(t.DeleteAppPassword(alice_id, id));
                    NUBO_ASSIGN_OR_RETURN(auto gone, t.FindAppPassword(D("secret")));
                    EXPECT_FALSE(gone.has_value());
                    return Status::Ok();
                  })
                  .ok());
}

// RFC 6578 sync-collection's two sources: a folder's live children in
// change order from a position, and the names that left it; pruning old
// removals raises the drive's floor to the newest one pruned.
TEST_P(MetaStoreConformance, ChangedChildrenTombstonesAndTheirFloor) {
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    NodeRow root;
    NUBO_RETURN_IF_ERROR(InsertRoot(t, d, root));
    std::vector<int64_t> ids;
    for (int i = 0; i < 5; ++i) {
      NodeRow n;
      n.public_id = "c" + std::to_string(i);
      n.drive_id = d.id;
      n.parent_id = root.id;
      n.name = n.name_key = "c" + std::to_string(i);
      n.mime = "inode/directory";
      n.tree_seq = std::vector<int64_t>{7, 7, 9, 8, 6}[i];  // c0 and c1 share a number
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      ids.push_back(n.id);
    }
    NUBO_ASSIGN_OR_RETURN(auto all, t.ChangedChildren(root.id, 0, 0, 100, 10, 0));
    std::vector<std::string> order;
    for (const auto& n : all) order.push_back(n.name);
    EXPECT_EQ(order, (std::vector<std::string>{"c4", "c0", "c1", "c3", "c2"}));
    // From (7, c0): c1 (same number, larger id) and what is newer; capped.
    NUBO_ASSIGN_OR_RETURN(auto after, t.ChangedChildren(root.id, 7, ids[0], 100, 10, 0));
    EXPECT_EQ(after.size(), 3u);
    if (after.size() == 3) {
      EXPECT_EQ(after[0].name, "c1");
      EXPECT_EQ(after[1].name, "c3");
    }
    NUBO_ASSIGN_OR_RETURN(auto upto, t.ChangedChildren(root.id, 0, 0, 7, 10, 0));
    EXPECT_EQ(upto.size(), 3u);  // through 7: c3 (8) and c2 (9) wait
    NUBO_RETURN_IF_ERROR(t.MarkSubtreeTrashed(ids[4]));
    NUBO_ASSIGN_OR_RETURN(auto live, t.ChangedChildren(root.id, 0, 0, 100, 10, 0));
    EXPECT_EQ(live.size(), 4u);  // trashed children are not members
    NUBO_RETURN_IF_ERROR(t.AddTombstone(d.id, root.id, "gone.txt", false, 11, 1000));
    NUBO_RETURN_IF_ERROR(t.AddTombstone(d.id, root.id, "dir", true, 12, 5000));
    NUBO_ASSIGN_OR_RETURN(auto tombs, t.Tombstones(root.id, 10, 100, 10));
    EXPECT_EQ(tombs.size(), 2u);
    if (tombs.size() == 2) {
      EXPECT_EQ(tombs[0].name, "gone.txt");
      EXPECT_FALSE(tombs[0].folder);
      EXPECT_TRUE(tombs[1].folder);
    }
    NUBO_ASSIGN_OR_RETURN(auto later, t.Tombstones(root.id, 11, 100, 10));
    EXPECT_EQ(later.size(), 1u);
    NUBO_ASSIGN_OR_RETURN(int64_t floor0, t.SyncFloor(d.id));
    EXPECT_EQ(floor0, 0);
    NUBO_ASSIGN_OR_RETURN(int64_t pruned, t.PruneTombstones(2000));
    EXPECT_EQ(pruned, 1);
    NUBO_ASSIGN_OR_RETURN(int64_t floor1, t.SyncFloor(d.id));
    EXPECT_EQ(floor1, 11);
    NUBO_ASSIGN_OR_RETURN(auto left, t.Tombstones(root.id, 0, 100, 10));
    EXPECT_EQ(left.size(), 1u);
    // The floor never goes back.
    NUBO_ASSIGN_OR_RETURN(int64_t none, t.PruneTombstones(2000));
    EXPECT_EQ(none, 0);
    NUBO_ASSIGN_OR_RETURN(int64_t floor2, t.SyncFloor(d.id));
    EXPECT_EQ(floor2, 11);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// Nodes: one live sibling per name key; trashed names are free; keyset
// listings walk every child exactly once in the requested order.
TEST_P(MetaStoreConformance, NodesSiblingsTrashAndKeysetListing) {
  UserRow u, bob;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    EXPECT_EQ(t.InsertDrive(d).code(), Code::kAlreadyExists);  // one personal drive per owner
    NodeRow root;
    NUBO_RETURN_IF_ERROR(InsertRoot(t, d, root));
    NUBO_ASSIGN_OR_RETURN(int64_t manifest, t.InsertManifest(D("content"), 0, {}, 0));
    for (int i = 0; i < 30; ++i) {
      NodeRow n;
      n.public_id = "n" + std::to_string(i);
      n.drive_id = d.id;
      n.parent_id = root.id;
      n.name = n.name_key = "name" + std::to_string(100 + (i * 7) % 30);
      // Listings order by sort_key, which here runs against the names.
      n.sort_key = std::string(1, static_cast<char>(0xf0 - (i * 7) % 30)) + "\x01";
      n.kind = i % 3 == 0 ? NodeKind::kFolder : NodeKind::kFile;
      n.mime = n.kind == NodeKind::kFolder ? "inode/directory" : "text/plain";
      if (n.kind == NodeKind::kFile) n.manifest_id = manifest;  // files always have content
      n.size = static_cast<uint64_t>(i % 4);
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
    }
    NodeRow dup;
    dup.public_id = "dup";
    dup.drive_id = d.id;
    dup.parent_id = root.id;
    dup.name = dup.name_key = "name100";
    dup.sort_key = "\xf0\x01";
    dup.mime = "inode/directory";
    EXPECT_EQ(t.InsertNode(dup).code(), Code::kAlreadyExists);
    // Trashing frees the name; the trash marker covers the node.
    NUBO_ASSIGN_OR_RETURN(auto victim, t.FindChild(root.id, "name100", u.id));
    EXPECT_TRUE(victim.has_value());
    NUBO_RETURN_IF_ERROR(t.MarkSubtreeTrashed(victim->id));
    NUBO_RETURN_IF_ERROR(t.InsertNode(dup));
    // A file's hash follows its manifest through insert and update.
    NUBO_ASSIGN_OR_RETURN(auto file, t.FindChild(root.id, "name101", u.id));
    EXPECT_EQ(file->hash, D("content"));
    NUBO_ASSIGN_OR_RETURN(int64_t other, t.InsertManifest(D("other"), 0, {}, 0));
    file->manifest_id = other;
    NUBO_RETURN_IF_ERROR(t.UpdateNode(*file));
    NUBO_ASSIGN_OR_RETURN(auto updated, t.GetNode(file->id, u.id));
    EXPECT_EQ(updated->hash, D("other"));
    NUBO_ASSIGN_OR_RETURN(auto mismatches, t.NodeHashMismatches(10));
    EXPECT_TRUE(mismatches.empty());
    NUBO_ASSIGN_OR_RETURN(auto seq, t.NextChangeSeq(d.id));
    EXPECT_EQ(seq, 1);
    NUBO_RETURN_IF_ERROR(t.BumpAncestors(dup.id, seq, 5));
    NUBO_ASSIGN_OR_RETURN(auto r, t.GetNode(root.id, u.id));
    EXPECT_EQ(r->size, 5u);
    EXPECT_EQ(r->tree_seq, 1);
    NUBO_ASSIGN_OR_RETURN(auto liked, t.FindChild(root.id, "name107", u.id));
    if (!liked) return Status::NotFound("name107");
    NUBO_RETURN_IF_ERROR(t.AddFavorite(u.id, liked->id, 1));
    // Bob likes another file: a flag that ignored the viewer would show.
    bob.public_id = "u2";
    bob.username = bob.display_name = "bob";
    bob.role = "user";
    NUBO_RETURN_IF_ERROR(t.InsertUser(bob));
    NUBO_ASSIGN_OR_RETURN(auto bobs, t.FindChild(root.id, "name110", u.id));
    if (!bobs) return Status::NotFound("name110");
    return t.AddFavorite(bob.id, bobs->id, 1);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  // A listed row reads fewer columns than a node read: it must still be the
  // same node in every field (but the parent's public id, which listings
  // leave to the caller).
  auto same_node = [](const NodeRow& a, const NodeRow& b) {
    return std::tie(a.id, a.public_id, a.drive_id, a.parent_id, a.name, a.name_key, a.sort_key,
                    a.kind, a.manifest_id, a.size, a.mime, a.mtime_ms, a.ctime_ms, a.tree_seq,
                    a.trashed_at_ms, a.trash_root, a.trash_parent, a.created_by, a.updated_by,
                    a.child_count, a.hash, a.favorite) ==
           std::tie(b.id, b.public_id, b.drive_id, b.parent_id, b.name, b.name_key, b.sort_key,
                    b.kind, b.manifest_id, b.size, b.mime, b.mtime_ms, b.ctime_ms, b.tree_seq,
                    b.trashed_at_ms, b.trash_root, b.trash_parent, b.created_by, b.updated_by,
                    b.child_count, b.hash, b.favorite);
  };
  int favorites_listed = 0;
  // Every page is written over the rows of the one before (files over
  // folders and back, across listings), each field of them made wrong
  // first: a field the listing does not set shows as a difference.
  // With ListColumns::kBasic the fields it leaves out are empty instead.
  std::vector<NodeRow> page;
  for (ListColumns cols : {ListColumns::kAll, ListColumns::kBasic}) {
    for (NodeSort sort : {NodeSort::kName, NodeSort::kSize, NodeSort::kModified, NodeSort::kType}) {
      for (bool desc : {false, true}) {
        std::vector<NodeRow> all;
        ASSERT_TRUE(store_
                        ->Read([&](ReadTxn& t) -> Status {
                          NUBO_ASSIGN_OR_RETURN(auto root, t.GetNodeByPublicId("root", u.id));
                          for (NodeKind kind : {NodeKind::kFolder, NodeKind::kFile}) {
                            std::optional<NodeCursor> after;
                            for (;;) {
                              for (NodeRow& n : page) {
                                n.parent_public_id = "stale";
                                n.trashed_at_ms = n.trash_root = n.trash_parent = 7;
                                n.manifest_id = n.manifest_id ? std::nullopt : std::optional(7);
                                n.hash[0] ^= 0xff;
                                n.favorite = !n.favorite;
                                n.child_count = -1;
                                n.name += "-stale";
                                n.public_id += "-stale";
                                n.drive_id = n.created_by = n.updated_by = -1;
                              }
                              NUBO_RETURN_IF_ERROR(t.ListChildrenInto(
                                  root->id, kind, sort, desc, after, 4, u.id, page, 0, cols));
                              if (page.empty()) break;
                              const NodeRow& last = page.back();
                              after = NodeCursor{last.kind,
                                                 sort == NodeSort::kSize
                                                     ? static_cast<int64_t>(last.size)
                                                     : last.mtime_ms,
                                                 last.mime, last.sort_key, last.id};
                              for (const auto& n : page) {
                                NUBO_ASSIGN_OR_RETURN(auto read, t.GetNode(n.id, u.id));
                                if (!read) return Status::NotFound(n.name);
                                NodeRow want = *read;
                                if (cols == ListColumns::kBasic) {
                                  want.public_id.clear();
                                  want.drive_id = want.created_by = want.updated_by = 0;
                                  want.child_count = 0;
                                }
                                EXPECT_TRUE(same_node(n, want)) << n.name;
                                EXPECT_EQ(n.parent_public_id, "") << n.name;
                                favorites_listed += n.favorite;
                                all.push_back(*read);
                              }
                            }
                          }
                          return Status::Ok();
                        })
                        .ok());
        ASSERT_EQ(all.size(), 30u);  // 29 live originals + "dup"
        std::set<std::string> ids;
        for (const auto& n : all) ids.insert(n.public_id);
        EXPECT_EQ(ids.size(), 30u);
        EXPECT_FALSE(ids.count("n0"));  // the trashed one
        for (size_t i = 1; i < all.size(); ++i) {
          const NodeRow& a = all[i - 1];
          const NodeRow& b = all[i];
          if (a.kind != b.kind) {
            EXPECT_EQ(a.kind, NodeKind::kFolder);  // folders first, either direction
            continue;
          }
          auto key = [&](const NodeRow& n) {
            return std::make_tuple(sort == NodeSort::kSize ? static_cast<int64_t>(n.size) : 0,
                                   sort == NodeSort::kType ? n.mime : std::string(), n.sort_key,
                                   n.id);
          };
          EXPECT_TRUE(desc ? key(a) > key(b) : key(a) < key(b)) << a.name << " / " << b.name;
        }
      }
    }
  }
  EXPECT_EQ(favorites_listed, 16);  // alice's one favorite, in each of the sixteen listings
  // The flag is the viewer's own: bob sees his (name110), nobody sees
  // alice's but her, signed in or not.
  for (int64_t viewer : {bob.id, bob.id + 1, int64_t{0}}) {
    ASSERT_TRUE(store_
                    ->Read([&](ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto root, t.GetNodeByPublicId("root", viewer));
                      NUBO_ASSIGN_OR_RETURN(
                          auto files, t.ListChildren(root->id, NodeKind::kFile, NodeSort::kName,
                                                     false, {}, 30, viewer));
                      EXPECT_EQ(files.size(), 20u);
                      for (const auto& n : files) {
                        EXPECT_EQ(n.favorite, viewer == bob.id && n.name == "name110")
                            << viewer << n.name;
                      }
                      NUBO_ASSIGN_OR_RETURN(auto liked, t.FindChild(root->id, "name107", viewer));
                      EXPECT_TRUE(liked && !liked->favorite) << viewer;
                      return Status::Ok();
                    })
                    .ok());
  }
}

// Folders count their live children in the statement that changes one:
// insert, move, trash, restore and delete, at any depth.
TEST_P(MetaStoreConformance, FoldersCountTheirLiveChildren) {
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    auto add = [&](const std::string& name, std::optional<int64_t> parent) -> Result<int64_t> {
      NodeRow n;
      n.public_id = name;
      n.drive_id = d.id;
      n.parent_id = parent;
      n.name = n.name_key = name;
      n.sort_key = name;
      n.mime = "inode/directory";
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      return n.id;
    };
    auto count = [&](int64_t id) -> int64_t {
      auto n = t.GetNode(id, 0);
      return n.ok() && *n ? (*n)->child_count : -1;
    };
    NUBO_ASSIGN_OR_RETURN(int64_t root, add("root", std::nullopt));
    NUBO_ASSIGN_OR_RETURN(int64_t a, add("a", root));
    NUBO_ASSIGN_OR_RETURN(int64_t b, add("b", root));
    NUBO_ASSIGN_OR_RETURN(int64_t a1, add("a1", a));
    NUBO_ASSIGN_OR_RETURN(int64_t a2, add("a2", a));
    (void)a2;
    EXPECT_EQ(count(root), 2);
    EXPECT_EQ(count(a), 2);
    EXPECT_EQ(count(b), 0);
    // A move leaves one folder and arrives in another.
    NUBO_ASSIGN_OR_RETURN(auto moved, t.GetNode(a1, 0));
    moved->parent_id = b;
    NUBO_RETURN_IF_ERROR(t.UpdateNode(*moved));
    EXPECT_EQ(count(a), 1);
    EXPECT_EQ(count(b), 1);
    // A rename (same parent) changes nothing.
    moved->name = moved->name_key = moved->sort_key = "a1-renamed";
    NUBO_RETURN_IF_ERROR(t.UpdateNode(*moved));
    EXPECT_EQ(count(b), 1);
    // Trashing "a" takes it out of root's count and its own children out
    // of its count; restoring puts both back.
    NUBO_RETURN_IF_ERROR(t.MarkSubtreeTrashed(a));
    EXPECT_EQ(count(root), 1);
    EXPECT_EQ(count(a), 0);
    NUBO_RETURN_IF_ERROR(t.UnmarkSubtreeTrashed(a));
    EXPECT_EQ(count(root), 2);
    EXPECT_EQ(count(a), 1);
    NUBO_ASSIGN_OR_RETURN(auto bad, t.ChildCountMismatches(10));
    EXPECT_TRUE(bad.empty());
    // Deleting a live subtree drops it from its parent's count.
    NUBO_ASSIGN_OR_RETURN(int64_t gone, t.DeleteSubtree(b));
    EXPECT_EQ(gone, 2);
    EXPECT_EQ(count(root), 1);
    NUBO_ASSIGN_OR_RETURN(bad, t.ChildCountMismatches(10));
    EXPECT_TRUE(bad.empty());
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// Sort keys are bytes (NUL and 0xFF included, empty is not NULL); the
// rows without one are found, filled and can all be dropped.
TEST_P(MetaStoreConformance, SortKeysAreBytesAndCanBeRebuilt) {
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    NodeRow root;
    root.public_id = "root";
    root.drive_id = d.id;
    root.mime = "inode/directory";
    NUBO_RETURN_IF_ERROR(t.InsertNode(root));  // empty key, not NULL
    const std::string bytes("\x00\xff\x0a\x01", 4);
    NodeRow n;
    n.public_id = "n";
    n.drive_id = d.id;
    n.parent_id = root.id;
    n.name = n.name_key = "n";
    n.sort_key = bytes;
    n.mime = "inode/directory";
    NUBO_RETURN_IF_ERROR(t.InsertNode(n));
    NUBO_ASSIGN_OR_RETURN(auto got, t.GetNode(n.id, 0));
    EXPECT_EQ(got->sort_key, bytes);
    NUBO_ASSIGN_OR_RETURN(auto none, t.NodesWithoutSortKey(0, 10));
    EXPECT_TRUE(none.empty());
    NUBO_RETURN_IF_ERROR(t.ClearSortKeys());
    NUBO_ASSIGN_OR_RETURN(auto all, t.NodesWithoutSortKey(0, 10));
    EXPECT_EQ(all.size(), 2u);
    NUBO_ASSIGN_OR_RETURN(auto after_root, t.NodesWithoutSortKey(root.id, 10));
    EXPECT_EQ(after_root.size(), 1u);
    if (after_root.size() == 1) {
      EXPECT_EQ(after_root[0].second, "n");
    }
    NUBO_RETURN_IF_ERROR(t.SetSortKey(n.id, "k"));
    NUBO_RETURN_IF_ERROR(t.SetSortKey(root.id, ""));
    NUBO_ASSIGN_OR_RETURN(none, t.NodesWithoutSortKey(0, 10));
    EXPECT_TRUE(none.empty());
    NUBO_ASSIGN_OR_RETURN(got, t.GetNode(n.id, 0));
    EXPECT_EQ(got->sort_key, "k");
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

TEST_P(MetaStoreConformance, DeadPropsOfManyNodesInOneQuery) {
  std::vector<int64_t> ids;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    for (const char* name : {"root", "a", "b", "c"}) {
      NodeRow n;
      n.public_id = name;
      n.drive_id = d.id;
      if (!ids.empty()) n.parent_id = ids[0];
      n.name = n.name_key = name;
      n.mime = "inode/directory";
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      ids.push_back(n.id);
    }
    NUBO_RETURN_IF_ERROR(t.SetDeadProp(ids[1], {"urn:z", "zeta", "<x/>"}));
    NUBO_RETURN_IF_ERROR(t.SetDeadProp(ids[1], {"urn:a", "alpha", "1"}));
    NUBO_RETURN_IF_ERROR(t.SetDeadProp(ids[3], {"urn:a", "alpha", "3"}));
    NUBO_RETURN_IF_ERROR(t.SetDeadProp(ids[0], {"urn:a", "root", "r"}));  // not asked for
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<NodeDeadProp> got, none;
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(got, t.ListDeadProps({ids[3], ids[2], ids[1], 999999}));
                    NUBO_ASSIGN_OR_RETURN(none, t.ListDeadProps({}));
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_EQ(got.size(), 3u);
  // By node id, then (ns, name); nodes without properties contribute nothing.
  EXPECT_EQ(got[0].node_id, ids[1]);
  EXPECT_EQ(got[0].prop.name, "alpha");
  EXPECT_EQ(got[1].node_id, ids[1]);
  EXPECT_EQ(got[1].prop.name, "zeta");
  EXPECT_EQ(got[1].prop.value, "<x/>");
  EXPECT_EQ(got[2].node_id, ids[3]);
  EXPECT_EQ(got[2].prop.value, "3");
  EXPECT_TRUE(none.empty());
}

// A drive with a root and members "a", "a/b", "c"; their ids in `ids`.
Status InsertSmallTree(WriteTxn& t, UserRow& u, DriveRow& d, std::vector<int64_t>& ids) {
  NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
  for (const char* name : {"root", "a", "b", "c"}) {
    NodeRow n;
    n.public_id = name;
    n.drive_id = d.id;
    if (!ids.empty()) n.parent_id = std::string(name) == "b" ? ids[1] : ids[0];
    n.name = n.name_key = name;
    n.mime = "inode/directory";
    NUBO_RETURN_IF_ERROR(t.InsertNode(n));
    ids.push_back(n.id);
  }
  return t.SetDriveRoot(d.id, ids[0]);
}

TEST_P(MetaStoreConformance, ManyNodesInOneQuery) {
  std::vector<int64_t> ids;
  int64_t alice = 0;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertSmallTree(t, u, d, ids));
    alice = u.id;
    return t.AddFavorite(u.id, ids[3], 1);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<NodeRow> got, none;
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(got, t.GetNodes({ids[3], 999999, ids[1], ids[3]}, alice));
                    NUBO_ASSIGN_OR_RETURN(none, t.GetNodes({}, alice));
                    return Status::Ok();
                  })
                  .ok());
  // Those that exist, each once, as GetNode reads it (the viewer's
  // favourite too).
  ASSERT_EQ(got.size(), 2u);
  std::sort(got.begin(), got.end(), [](const NodeRow& a, const NodeRow& b) { return a.id < b.id; });
  EXPECT_EQ(got[0].id, ids[1]);
  EXPECT_EQ(got[0].name, "a");
  EXPECT_EQ(got[0].parent_id, ids[0]);
  EXPECT_FALSE(got[0].favorite);
  EXPECT_EQ(got[1].id, ids[3]);
  EXPECT_EQ(got[1].public_id, "c");
  EXPECT_TRUE(got[1].favorite);
  EXPECT_TRUE(none.empty());
}

// TakenChildKeys answers the asked keys a live child of that folder holds:
// not a trashed one's, not another folder's, and keys holding JSON's
// special characters arrive intact.
TEST_P(MetaStoreConformance, TakenChildKeysInOneQuery) {
  std::vector<int64_t> ids;
  const std::string odd = "say \"hi\" \\ tab\there \xc3\xa9t\xc3\xa9 \xf0\x9f\x93\x81";
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertSmallTree(t, u, d, ids));
    for (const std::string& name : {odd, std::string("gone")}) {
      NodeRow n;
      n.public_id = name == odd ? "odd" : "gone";
      n.drive_id = d.id;
      n.parent_id = ids[0];
      n.name = n.name_key = name;
      n.mime = "inode/directory";
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      if (name == "gone") {
        n.trash_root = n.id;
        n.trashed_at_ms = 1;
        NUBO_RETURN_IF_ERROR(t.UpdateNode(n));
      }
    }
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  std::vector<std::string> got, below, none;
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(
                        got, t.TakenChildKeys(ids[0], {"c", "b", "gone", odd, "zz", "a"}));
                    NUBO_ASSIGN_OR_RETURN(below, t.TakenChildKeys(ids[1], {"a", "b", "c"}));
                    NUBO_ASSIGN_OR_RETURN(none, t.TakenChildKeys(ids[0], {}));
                    return Status::Ok();
                  })
                  .ok());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"a", "c", odd}));
  EXPECT_EQ(below, (std::vector<std::string>{"b"}));
  EXPECT_TRUE(none.empty());
}

// The drive's props_bytes follows every change of dead properties in the
// same transaction: set, overwrite, remove, copy, and subtree deletion.
TEST_P(MetaStoreConformance, PropertyBytesFollowTheirProperties) {
  UserRow u;
  DriveRow d;
  std::vector<int64_t> ids;
  auto bytes = [&]() {
    int64_t out = -1;
    EXPECT_TRUE(store_
                    ->Read([&](ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto drive, t.GetDrive(d.id));
                      if (!drive) return Status::NotFound("drive");
                      out = drive->props_bytes;
                      NUBO_ASSIGN_OR_RETURN(auto bad, t.PropsBytesMismatches(10));
                      EXPECT_TRUE(bad.empty());
                      return Status::Ok();
                    })
                    .ok());
    return out;
  };
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return InsertSmallTree(t, u, d, ids); }).ok());
  ASSERT_TRUE(
      store_
          ->Write([&](WriteTxn& t) -> Status {
            NUBO_RETURN_IF_ERROR(t.SetDeadProp(ids[2], {"urn:x", "k", "12345"}));  // 5 + 1 + 5
            return t.SetDeadProp(ids[3], {"urn:x", "k", "1"});                     // 5 + 1 + 1
          })
          .ok());
  EXPECT_EQ(bytes(), 18);
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) {
                      return t.SetDeadProp(ids[2], {"urn:x", "k", "1"});
                    })
                  .ok());
  EXPECT_EQ(bytes(), 14);
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.CopyDeadProps(ids[3], ids[1]); }).ok());
  EXPECT_EQ(bytes(), 21);
  ASSERT_TRUE(
      store_->Write([&](WriteTxn& t) { return t.RemoveDeadProp(ids[3], "urn:x", "k"); }).ok());
  ASSERT_TRUE(
      store_->Write([&](WriteTxn& t) { return t.RemoveDeadProp(ids[3], "urn:x", "nope"); }).ok());
  EXPECT_EQ(bytes(), 14);
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.DeleteSubtree(ids[1]).status(); })
                  .ok());  // a and b
  EXPECT_EQ(bytes(), 0);
}

// Quota reservations: live ones count, expired and excepted ones do not,
// updates of a swept one are NotFound.
TEST_P(MetaStoreConformance, QuotaReservations) {
  UserRow u;
  DriveRow d;
  std::vector<int64_t> ids;
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return InsertSmallTree(t, u, d, ids); }).ok());
  int64_t r1 = 0, r2 = 0;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(r1, t.InsertReservation(d.id, 100, 1000));
                    NUBO_ASSIGN_OR_RETURN(r2, t.InsertReservation(d.id, 30, 5000));
                    return Status::Ok();
                  })
                  .ok());
  auto reserved = [&](int64_t now, int64_t except) {
    int64_t out = -1;
    EXPECT_TRUE(store_
                    ->Read([&](ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(out, t.ReservedBytes(d.id, now, except));
                      return Status::Ok();
                    })
                    .ok());
    return out;
  };
  EXPECT_EQ(reserved(500, 0), 130);
  EXPECT_EQ(reserved(500, r1), 30);
  EXPECT_EQ(reserved(2000, 0), 30);  // r1 expired
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.UpdateReservation(r1, 10, 9000); }).ok());
  EXPECT_EQ(reserved(2000, 0), 40);
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(int64_t n, t.DeleteExpiredReservations(6000));
                    EXPECT_EQ(n, 1);  // r2
                    return t.DeleteReservation(r1);
                  })
                  .ok());
  EXPECT_EQ(reserved(0, 0), 0);
  EXPECT_EQ(store_->Write([&](WriteTxn& t) { return t.UpdateReservation(r2, 1, 1); }).code(),
            Code::kNotFound);
}

// The small reads the files domain asks inside its writes: any lock in a
// drive, sibling keys by prefix, the trash's bytes and age order, drives
// with a quota, a sign-in's live sessions, all app passwords of a user.
// Groups nest (membership is transitive and a cycle still terminates);
// grants reach a node from it and its ancestors, for the user or a group
// the user belongs to, until they expire; they go with their node, user
// or group.
TEST_P(MetaStoreConformance, GroupsAndGrants) {
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow alice;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, alice, d));
    UserRow bob;
    bob.public_id = "u2";
    bob.username = bob.display_name = "bob";
    bob.role = "user";
    NUBO_RETURN_IF_ERROR(t.InsertUser(bob));
    auto add = [&](const std::string& name, std::optional<int64_t> parent) -> Result<int64_t> {
      NodeRow n;
      n.public_id = "n-" + name;
      n.drive_id = d.id;
      n.parent_id = parent;
      n.name = n.name_key = n.sort_key = name;
      n.mime = "inode/directory";
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      return n.id;
    };
    NUBO_ASSIGN_OR_RETURN(int64_t root, add("root", std::nullopt));
    NUBO_ASSIGN_OR_RETURN(int64_t a, add("a", root));
    NUBO_ASSIGN_OR_RETURN(int64_t b, add("b", a));
    NUBO_ASSIGN_OR_RETURN(int64_t c, add("c", b));
    NUBO_ASSIGN_OR_RETURN(int64_t other, add("other", root));

    // Groups: "Team" ⊃ "Core" ⊃ bob.
    GroupRow team{0, "g-team", "Team", 1};
    GroupRow core{0, "g-core", "Core", 1};
    NUBO_RETURN_IF_ERROR(t.InsertGroup(team));
    NUBO_RETURN_IF_ERROR(t.InsertGroup(core));
    GroupRow dup{0, "g-dup", "TEAM", 1};
    EXPECT_EQ(t.InsertGroup(dup).code(), Code::kAlreadyExists);
    NUBO_ASSIGN_OR_RETURN(auto by_name, t.GetGroupByName("team"));
    EXPECT_TRUE(by_name && by_name->id == team.id);
    NUBO_RETURN_IF_ERROR(t.AddGroupMember(core.id, false, bob.id));
    NUBO_RETURN_IF_ERROR(t.AddGroupMember(team.id, true, core.id));
    EXPECT_EQ(t.AddGroupMember(team.id, true, core.id).code(), Code::kAlreadyExists);
    NUBO_ASSIGN_OR_RETURN(auto groups, t.GroupsOfUser(bob.id));
    EXPECT_EQ(groups, (std::vector<int64_t>{team.id, core.id}));
    NUBO_ASSIGN_OR_RETURN(bool contains, t.GroupContains(team.id, core.id));
    EXPECT_TRUE(contains);
    NUBO_ASSIGN_OR_RETURN(contains, t.GroupContains(core.id, team.id));
    EXPECT_FALSE(contains);
    NUBO_ASSIGN_OR_RETURN(auto members, t.ListGroupMembers(team.id, 10));
    EXPECT_EQ(members.size(), 1u);
    EXPECT_TRUE(!members.empty() && members[0].is_group && members[0].public_id == "g-core");
    NUBO_ASSIGN_OR_RETURN(auto none, t.DanglingSharingRows(10));
    EXPECT_TRUE(none.empty());
    // A cycle written behind the domain's back: membership still ends,
    // and the consistency check names it.
    NUBO_RETURN_IF_ERROR(t.AddGroupMember(core.id, true, team.id));
    NUBO_ASSIGN_OR_RETURN(groups, t.GroupsOfUser(bob.id));
    EXPECT_EQ(groups.size(), 2u);
    NUBO_ASSIGN_OR_RETURN(auto cyc, t.DanglingSharingRows(10));
    EXPECT_FALSE(cyc.empty());
    NUBO_RETURN_IF_ERROR(t.RemoveGroupMember(core.id, true, team.id));
    EXPECT_EQ(t.RemoveGroupMember(core.id, true, team.id).code(), Code::kNotFound);

    // A viewer grant on "a" to bob, an editor grant on "b" to Team.
    GrantRow g1;
    g1.public_id = "gr1";
    g1.node_id = a;
    g1.grantee_user = bob.id;
    g1.role = 1;
    g1.created_by = alice.id;
    g1.created_at_ms = 1;
    NUBO_RETURN_IF_ERROR(t.InsertGrant(g1));
    GrantRow again = g1;
    again.public_id = "gr1b";
    EXPECT_EQ(t.InsertGrant(again).code(), Code::kAlreadyExists);
    GrantRow g2;
    g2.public_id = "gr2";
    g2.node_id = b;
    g2.grantee_group = team.id;
    g2.role = 2;
    g2.may_reshare = true;
    g2.expires_at_ms = 1000;
    g2.created_by = alice.id;
    g2.created_at_ms = 1;
    NUBO_RETURN_IF_ERROR(t.InsertGrant(g2));

    NUBO_ASSIGN_OR_RETURN(groups, t.GroupsOfUser(bob.id));
    NUBO_ASSIGN_OR_RETURN(auto hits, t.GrantsReaching(c, bob.id, groups, 500));
    EXPECT_EQ(hits.size(), 2u);
    std::set<std::tuple<int64_t, int, bool>> got;
    for (const GrantHit& h : hits) got.emplace(h.node_id, h.role, h.may_reshare);
    EXPECT_EQ(got, (std::set<std::tuple<int64_t, int, bool>>{{a, 1, false}, {b, 2, true}}));
    // Expired at 1000; without the groups only the user grant counts; a
    // node outside "a" is reached by nothing.
    NUBO_ASSIGN_OR_RETURN(hits, t.GrantsReaching(c, bob.id, groups, 1000));
    EXPECT_EQ(hits.size(), 1u);
    NUBO_ASSIGN_OR_RETURN(hits, t.GrantsReaching(c, bob.id, {}, 500));
    EXPECT_EQ(hits.size(), 1u);
    NUBO_ASSIGN_OR_RETURN(hits, t.GrantsReaching(other, bob.id, groups, 500));
    EXPECT_TRUE(hits.empty());
    NUBO_ASSIGN_OR_RETURN(hits, t.GrantsReaching(c, alice.id, {}, 500));
    EXPECT_TRUE(hits.empty());
    // The same for several nodes in one statement: each hit tagged with the
    // node it reaches, as GrantsReaching gives it for that node alone; a
    // node reached by nothing (or missing) has no hit.
    using Tagged = std::set<std::tuple<int64_t, int64_t, int, bool>>;
    auto each = [&](const std::vector<int64_t>& ids, const std::vector<int64_t>& gs,
                    int64_t now) -> Result<Tagged> {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.GrantsReachingEach(ids, bob.id, gs, now));
      Tagged out;
      for (const auto& [start, h] : rows) {
        out.emplace(start, h.node_id, h.role, h.may_reshare);
        EXPECT_EQ(h.created_by, alice.id);
      }
      EXPECT_EQ(out.size(), rows.size());  // no hit twice
      return out;
    };
    NUBO_ASSIGN_OR_RETURN(Tagged tagged, each({c, a, other, b, 987654321}, groups, 500));
    EXPECT_EQ(tagged, (Tagged{{c, a, 1, false},
                              {c, b, 2, true},
                              {a, a, 1, false},
                              {b, a, 1, false},
                              {b, b, 2, true}}));
    NUBO_ASSIGN_OR_RETURN(tagged, each({c, b}, groups, 1000));  // the group's grant expired
    EXPECT_EQ(tagged, (Tagged{{c, a, 1, false}, {b, a, 1, false}}));
    NUBO_ASSIGN_OR_RETURN(tagged, each({c, other}, {}, 500));  // without the groups
    EXPECT_EQ(tagged, (Tagged{{c, a, 1, false}}));
    NUBO_ASSIGN_OR_RETURN(tagged, each({}, groups, 500));
    EXPECT_TRUE(tagged.empty());

    NUBO_ASSIGN_OR_RETURN(auto shared, t.ListSharedWith(bob.id, groups, 500, 0, 10));
    EXPECT_EQ(shared.size(), 2u);
    NUBO_ASSIGN_OR_RETURN(auto page2, t.ListSharedWith(bob.id, groups, 500, a, 10));
    EXPECT_EQ(page2.size(), 1u);
    EXPECT_TRUE(!page2.empty() && page2[0].node_id == b && page2[0].role == 2);
    // Both grants were made by Alice, who owns the drive; a grant someone
    // else made (a reshare) is not.
    EXPECT_TRUE(shared.size() == 2 && shared[0].owner_made && shared[1].owner_made);
    GrantRow g3;
    g3.public_id = "gr3";
    g3.node_id = other;
    g3.grantee_user = bob.id;
    g3.role = 1;
    g3.created_by = bob.id;
    g3.created_at_ms = 1;
    NUBO_RETURN_IF_ERROR(t.InsertGrant(g3));
    NUBO_ASSIGN_OR_RETURN(auto with3, t.ListSharedWith(bob.id, groups, 500, 0, 10));
    EXPECT_TRUE(with3.size() == 3 && with3[2].node_id == other && !with3[2].owner_made);
    NUBO_RETURN_IF_ERROR(t.DeleteGrant(g3.id));
    // The owner's own drive is never "shared with" her.
    NUBO_ASSIGN_OR_RETURN(auto own, t.ListSharedWith(alice.id, {}, 500, 0, 10));
    EXPECT_TRUE(own.empty());
    NUBO_ASSIGN_OR_RETURN(auto by, t.ListSharedBy(alice.id, 0, 10));
    EXPECT_EQ(by.size(), 2u);
    EXPECT_TRUE(by.size() == 2 && by[0].node_public_id == "n-a" && by[0].grantee_name == "bob" &&
                by[1].grantee_name == "Team" && by[1].grantee_public_id == "g-team");
    NUBO_ASSIGN_OR_RETURN(auto one, t.GetGrantByPublicId("gr2"));
    EXPECT_TRUE(one && one->expires_at_ms == 1000 && one->may_reshare && one->drive_id == d.id);
    one->role = 3;
    one->expires_at_ms.reset();
    NUBO_RETURN_IF_ERROR(t.UpdateGrant(*one));
    NUBO_ASSIGN_OR_RETURN(hits, t.GrantsReaching(c, bob.id, groups, 5000));
    EXPECT_EQ(hits.size(), 2u);

    NUBO_ASSIGN_OR_RETURN(bool may, t.MayHoldGrants(bob.id));
    EXPECT_TRUE(may);
    NUBO_ASSIGN_OR_RETURN(may, t.MayHoldGrants(alice.id));
    EXPECT_FALSE(may);  // no grant names her, no group holds her
    NUBO_RETURN_IF_ERROR(t.AddGroupMember(core.id, false, alice.id));
    NUBO_ASSIGN_OR_RETURN(may, t.MayHoldGrants(alice.id));
    EXPECT_TRUE(may);  // Core is in Team, which holds a grant
    NUBO_RETURN_IF_ERROR(t.RemoveGroupMember(core.id, false, alice.id));

    // Where bob keeps what he received in his own tree: one row per
    // (user, node), replaced by the next placement.
    NUBO_RETURN_IF_ERROR(t.PutShareMount({bob.id, a, other, "From Alice"}));
    NUBO_RETURN_IF_ERROR(t.PutShareMount({bob.id, a, std::nullopt, "Renamed"}));
    NUBO_RETURN_IF_ERROR(t.PutShareMount({bob.id, b, other, "B"}));
    NUBO_ASSIGN_OR_RETURN(auto mounts, t.ListShareMounts(bob.id));
    EXPECT_EQ(mounts.size(), 2u);
    EXPECT_TRUE(mounts.size() == 2 && mounts[0].node_id == a && !mounts[0].parent_id &&
                mounts[0].name == "Renamed" && mounts[1].node_id == b &&
                mounts[1].parent_id == other && mounts[1].name == "B");
    NUBO_ASSIGN_OR_RETURN(auto alices, t.ListShareMounts(alice.id));
    EXPECT_TRUE(alices.empty());
    // Hidden (removed from his tree), then the row gone again.
    NUBO_RETURN_IF_ERROR(t.PutShareMount({bob.id, b, other, "B", true}));
    NUBO_ASSIGN_OR_RETURN(mounts, t.ListShareMounts(bob.id));
    EXPECT_TRUE(mounts.size() == 2 && !mounts[0].hidden && mounts[1].hidden);
    NUBO_RETURN_IF_ERROR(t.DeleteShareMount(bob.id, b));
    NUBO_RETURN_IF_ERROR(t.DeleteShareMount(bob.id, b));  // none left: no error
    NUBO_ASSIGN_OR_RETURN(mounts, t.ListShareMounts(bob.id));
    EXPECT_TRUE(mounts.size() == 1 && mounts[0].node_id == a);
    NUBO_RETURN_IF_ERROR(t.PutShareMount({bob.id, b, other, "B"}));

    // Deleting the group takes its grant; deleting the subtree the other.
    NUBO_RETURN_IF_ERROR(t.DeleteGroup(team.id));
    NUBO_ASSIGN_OR_RETURN(auto left, t.ListNodeGrants(b));
    EXPECT_TRUE(left.empty());
    NUBO_ASSIGN_OR_RETURN(int64_t gone, t.DeleteSubtree(a));
    EXPECT_EQ(gone, 3);
    NUBO_ASSIGN_OR_RETURN(by, t.ListSharedBy(alice.id, 0, 10));
    EXPECT_TRUE(by.empty());
    // The placements went with their nodes.
    NUBO_ASSIGN_OR_RETURN(mounts, t.ListShareMounts(bob.id));
    EXPECT_TRUE(mounts.empty());
    NUBO_ASSIGN_OR_RETURN(none, t.DanglingSharingRows(10));
    EXPECT_TRUE(none.empty());
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// A shared drive has no owner and its own quota; members are users or
// groups with a role; a user's drives include those of its groups.
TEST_P(MetaStoreConformance, SharedDrivesAndMembers) {
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow alice;
    DriveRow personal;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, alice, personal));
    GroupRow team{0, "g-team", "Team", 1};
    NUBO_RETURN_IF_ERROR(t.InsertGroup(team));
    NUBO_RETURN_IF_ERROR(t.AddGroupMember(team.id, false, alice.id));
    DriveRow d;
    d.public_id = "sd1";
    d.kind = "shared";
    d.name = "Zed space";
    d.quota_bytes = 1000;
    NUBO_RETURN_IF_ERROR(t.InsertDrive(d));
    DriveRow e = d;
    e.public_id = "sd2";
    e.name = "Alpha space";
    e.quota_bytes.reset();
    NUBO_RETURN_IF_ERROR(t.InsertDrive(e));
    NUBO_ASSIGN_OR_RETURN(auto got, t.GetDriveByPublicId("sd1"));
    EXPECT_TRUE(got && got->kind == "shared" && !got->owner_id && got->quota_bytes == 1000);
    NUBO_RETURN_IF_ERROR(t.SetDriveMember(d.id, false, alice.id, 1));
    NUBO_RETURN_IF_ERROR(
        t.SetDriveMember(d.id, false, alice.id, 2));  // a role change, not a second row
    NUBO_RETURN_IF_ERROR(t.SetDriveMember(e.id, true, team.id, 3));
    NUBO_ASSIGN_OR_RETURN(int role, t.DriveRoleOf(d.id, alice.id, {}));
    EXPECT_EQ(role, 2);
    NUBO_ASSIGN_OR_RETURN(role, t.DriveRoleOf(e.id, alice.id, {}));
    EXPECT_EQ(role, 0);
    NUBO_ASSIGN_OR_RETURN(role, t.DriveRoleOf(e.id, alice.id, {team.id}));
    EXPECT_EQ(role, 3);
    NUBO_ASSIGN_OR_RETURN(auto mine, t.ListMemberDrives(alice.id, {team.id}));
    EXPECT_EQ(mine.size(), 2u);
    EXPECT_TRUE(mine.size() == 2 && mine[0].first.name == "Alpha space" && mine[0].second == 3 &&
                mine[1].second == 2);
    NUBO_ASSIGN_OR_RETURN(auto members, t.ListDriveMembers(d.id));
    EXPECT_TRUE(members.size() == 1 && !members[0].is_group && members[0].role == 2);
    NUBO_ASSIGN_OR_RETURN(auto quota_drives, t.ListQuotaDrives(0, 10));
    EXPECT_EQ(quota_drives, (std::vector<int64_t>{d.id}));
    d.name = "Renamed";
    d.quota_bytes.reset();
    NUBO_RETURN_IF_ERROR(t.UpdateDrive(d));
    NUBO_ASSIGN_OR_RETURN(got, t.GetDriveByPublicId("sd1"));
    EXPECT_TRUE(got && got->name == "Renamed" && !got->quota_bytes);
    EXPECT_EQ(t.RemoveDriveMember(e.id, false, alice.id).code(), Code::kNotFound);
    NUBO_RETURN_IF_ERROR(t.RemoveDriveMember(e.id, true, team.id));
    NUBO_RETURN_IF_ERROR(t.DeleteDrive(d.id));
    NUBO_ASSIGN_OR_RETURN(mine, t.ListMemberDrives(alice.id, {team.id}));
    EXPECT_TRUE(mine.empty());
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

TEST_P(MetaStoreConformance, DomainLookups) {
  UserRow u;
  DriveRow d;
  std::vector<int64_t> ids;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_RETURN_IF_ERROR(InsertSmallTree(t, u, d, ids));
                    for (const char* name :
                         {"x (1).txt", "x (2).txt", "x (10).txt", "x.txt", "y (1).txt"}) {
                      NodeRow n;
                      n.public_id = name;
                      n.drive_id = d.id;
                      n.parent_id = ids[0];
                      n.name = n.name_key = name;
                      n.mime = "inode/directory";
                      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
                    }
                    DavLockRow l;
                    l.token = "urn:uuid:1";
                    l.drive_id = d.id;
                    l.path = "/a";
                    l.user_id = u.id;
                    l.expires_at_ms = 1000;
                    NUBO_RETURN_IF_ERROR(t.InsertDavLock(l));
                    // Trash "c" (older) and "a" (newer), with sizes.
                    for (auto [idx, at, size] : {std::tuple{3, 10, 7}, std::tuple{1, 20, 5}}) {
                      NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(ids[idx], 0));
                      n->trashed_at_ms = at;
                      n->trash_root = n->id;
                      n->size = size;
                      NUBO_RETURN_IF_ERROR(t.UpdateNode(*n));
                    }
                    AppPasswordRow a1, a2;
                    a1.user_id = a2.user_id = u.id;
                    a1.label = a2.label = "p";
                    a1.secret_hash = D("one");
                    a2.secret_hash = D("two");
                    a2.scopes = 1;
                    NUBO_RETURN_IF_ERROR(t.InsertAppPassword(a1).status());
                    NUBO_RETURN_IF_ERROR(t.InsertAppPassword(a2).status());
                    SessionRow s;
                    s.public_id = "s1";
                    s.user_id = u.id;
                    s.family_id = "f1";
                    s.refresh_hash = D("r1");
                    s.expires_at_ms = 10'000;
                    NUBO_RETURN_IF_ERROR(t.InsertSession(s));
                    return t.RevokeSession(s.id, 50, /*rotated=*/true);
                  })
                  .ok());
  ASSERT_TRUE(
      store_
          ->Read([&](ReadTxn& t) -> Status {
            EXPECT_TRUE(*t.HasDavLocks(d.id, 999));
            EXPECT_FALSE(*t.HasDavLocks(d.id, 1000));  // expired
            EXPECT_FALSE(*t.HasDavLocks(d.id + 1, 0));
            NUBO_ASSIGN_OR_RETURN(auto keys, t.ChildKeysWithPrefix(ids[0], "x (", 10));
            EXPECT_EQ(keys, (std::vector<std::string>{"x (1).txt", "x (10).txt", "x (2).txt"}));
            NUBO_ASSIGN_OR_RETURN(keys, t.ChildKeysWithPrefix(ids[0], "x (", 2));
            EXPECT_EQ(keys.size(), 2u);
            EXPECT_EQ(*t.TrashBytes(d.id), 12);
            NUBO_ASSIGN_OR_RETURN(auto oldest, t.ListOldestTrash(d.id, 10));
            EXPECT_EQ(oldest.size(), 2u);
            if (oldest.size() == 2) {
              EXPECT_EQ(oldest[0].public_id, "c");
              EXPECT_EQ(oldest[1].public_id, "a");
            }
            EXPECT_TRUE(t.ListQuotaDrives(0, 10)->empty());    // alice has no quota
            EXPECT_FALSE(*t.FamilyHasLiveSession("f1", 100));  // its one session was rotated away
            NUBO_ASSIGN_OR_RETURN(auto s, t.GetSession("s1"));
            EXPECT_EQ(s->rotated_at_ms, std::optional<int64_t>(50));
            NUBO_ASSIGN_OR_RETURN(auto apps, t.ListAppPasswords(u.id));
            EXPECT_EQ(apps.size(), 2u);
            if (apps.size() == 2) {
              EXPECT_EQ(apps[0].scopes, 3u);  // the default
              EXPECT_EQ(apps[1].scopes, 1u);
            }
            return Status::Ok();
          })
          .ok());
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    u.quota_bytes = 100;
                    NUBO_RETURN_IF_ERROR(t.UpdateUser(u));
                    NUBO_ASSIGN_OR_RETURN(int64_t n, t.DeleteAppPasswords(u.id));
                    EXPECT_EQ(n, 2);
                    NUBO_ASSIGN_OR_RETURN(auto drives, t.ListQuotaDrives(0, 10));
                    EXPECT_EQ(drives, std::vector<int64_t>{d.id});
                    return Status::Ok();
                  })
                  .ok());
}

// Nextcloud clients take a known file id for the same file: a node id is
// never handed out twice, even when the newest node was deleted for good.
TEST_P(MetaStoreConformance, NodeIdsAreNeverReused) {
  int64_t deleted = 0, fresh = 0;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    NodeRow root;
    NUBO_RETURN_IF_ERROR(InsertRoot(t, d, root));
    NodeRow n;
    NUBO_RETURN_IF_ERROR(InsertFolder(t, root, "newest", "f", n));
    deleted = n.id;
    NUBO_ASSIGN_OR_RETURN(int64_t gone, t.DeleteSubtree(n.id));
    EXPECT_EQ(gone, 1);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Across a reopen too: the floor is stored.
  store_.reset();
  auto s = GetParam().open(dir_);
  ASSERT_TRUE(s.ok());
  store_ = std::move(s).value();
  st = store_->Write([&](WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetDriveByPublicId("d1"));
    NodeRow n;
    n.public_id = "after";
    n.drive_id = d->id;
    n.parent_id = d->root_id;
    n.name = n.name_key = n.sort_key = "g";
    n.mime = "inode/directory";
    NUBO_RETURN_IF_ERROR(t.InsertNode(n));
    fresh = n.id;
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT(fresh, deleted);
}

TEST_P(MetaStoreConformance, LoginFlowsAreGrantedOnceAndExpire) {
  LoginFlowRow f;
  f.poll_hash = D("poll");
  f.login_token = "login";
  f.client_name = "client";
  f.created_at_ms = 1000;
  f.expires_at_ms = 2000;
  int64_t user_id = 0;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    user_id = u.id;
    NUBO_RETURN_IF_ERROR(t.InsertLoginFlow(f));
    LoginFlowRow again = f;
    EXPECT_EQ(t.InsertLoginFlow(again).code(), Code::kAlreadyExists);  // token unique
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  f.user_id = user_id;
  f.login_name = "alice";
  f.sealed = std::string("\x00\x01sealed", 8);
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.GrantLoginFlow(f); }).ok());
  EXPECT_EQ(store_->Write([&](WriteTxn& t) { return t.GrantLoginFlow(f); }).code(),
            Code::kNotFound);
  st = store_->Read([&](ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto by_poll, t.GetLoginFlowByPoll(D("poll")));
    EXPECT_TRUE(by_poll.has_value());
    if (by_poll) {
      EXPECT_EQ(by_poll->user_id, user_id);
      EXPECT_EQ(by_poll->sealed, f.sealed);  // bytes, NULs included
      EXPECT_EQ(by_poll->client_name, "client");
    }
    NUBO_ASSIGN_OR_RETURN(auto none, t.GetLoginFlowByToken("other"));
    EXPECT_FALSE(none.has_value());
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  st = store_->Write([&](WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(int64_t n, t.DeleteExpiredLoginFlows(1999));
    EXPECT_EQ(n, 0);
    NUBO_ASSIGN_OR_RETURN(n, t.DeleteExpiredLoginFlows(2000));
    EXPECT_EQ(n, 1);
    EXPECT_EQ(t.DeleteLoginFlow(f.id).code(), Code::kNotFound);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

TEST_P(MetaStoreConformance, ChunkedUploadPartsOrderNumerically) {
  NcUploadRow up;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    DriveRow d;
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    up.user_id = u.id;
    up.name = "web-file-upload-1";
    up.created_at_ms = 10;
    up.expires_at_ms = 20;
    NUBO_RETURN_IF_ERROR(t.InsertNcUpload(up));
    NcUploadRow dup = up;
    EXPECT_EQ(t.InsertNcUpload(dup).code(), Code::kAlreadyExists);
    for (int64_t n : {10, 2, 1}) {
      NUBO_ASSIGN_OR_RETURN(
          auto replaced,
          t.PutNcUploadPart(up.id, NcUploadPart{n, "s" + std::to_string(n), n * 100}));
      EXPECT_FALSE(replaced.has_value());
    }
    NUBO_ASSIGN_OR_RETURN(auto replaced, t.PutNcUploadPart(up.id, NcUploadPart{2, "s2b", 7}));
    EXPECT_EQ(replaced, std::optional<std::string>("s2"));
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  st = store_->Read([&](ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto parts, t.ListNcUploadParts(up.id));
    EXPECT_EQ(parts.size(), 3u);
    if (parts.size() == 3) {
      EXPECT_EQ(parts[0].number, 1);
      EXPECT_EQ(parts[1].number, 2);
      EXPECT_EQ(parts[1].session_id, "s2b");
      EXPECT_EQ(parts[1].size, 7);
      EXPECT_EQ(parts[2].number, 10);  // numerically after 2
    }
    NUBO_ASSIGN_OR_RETURN(auto expired, t.ListExpiredNcUploads(20, 10));
    EXPECT_EQ(expired.size(), 1u);
    NUBO_ASSIGN_OR_RETURN(expired, t.ListExpiredNcUploads(19, 10));
    EXPECT_TRUE(expired.empty());
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.DeleteNcUpload(up.id); }).ok());
  st = store_->Read([&](ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto parts, t.ListNcUploadParts(up.id));
    EXPECT_TRUE(parts.empty());  // the parts went with the folder
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// The content index, on both engines alike: words found whatever their
// case, every phrase required, a phrase's words in order, the last word
// of a query as a prefix when asked, better matches first, pages that
// resume after (rank, id), only the drives asked for, never a trashed file,
// highlighted snippets, and a document replaced or removed with its text.
TEST_P(MetaStoreConformance, ContentSearchFindsRanksPagesAndHighlights) {
  UserRow u;
  DriveRow d;
  int64_t a = 0, b = 0, c = 0;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
    NodeRow root;
    NUBO_RETURN_IF_ERROR(InsertRoot(t, d, root));
    NUBO_ASSIGN_OR_RETURN(int64_t manifest, t.InsertManifest(D("text"), 0, {}, 0));
    int64_t* ids[] = {&a, &b, &c};
    const char* texts[] = {"The quick brown Fox jumps over the lazy dog",
                           "fox FOX fox: the den of a fox", "nothing to see here"};
    for (int i = 0; i < 3; ++i) {
      NodeRow n;
      n.public_id = "t" + std::to_string(i);
      n.drive_id = d.id;
      n.parent_id = root.id;
      n.name = n.name_key = n.sort_key = "doc" + std::to_string(i) + ".txt";
      n.kind = NodeKind::kFile;
      n.mime = "text/plain";
      n.manifest_id = manifest;
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      *ids[i] = n.id;
      NUBO_RETURN_IF_ERROR(t.PutText(n.id, texts[i]));
    }
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto found = [&](ReadTxn& t, const std::string& match,
                   std::optional<std::pair<double, int64_t>> after = std::nullopt,
                   size_t limit = 10, std::vector<int64_t> drives = {}) {
    if (drives.empty()) drives = {d.id};
    auto r = t.SearchText(drives, match, after, limit, u.id);
    EXPECT_TRUE(r.ok()) << match << ": " << r.status().ToString();
    return r.ok() ? *r : std::vector<TextHit>{};
  };
  auto ids = [](const std::vector<TextHit>& hits) {
    std::vector<int64_t> out;
    for (const TextHit& h : hits) out.push_back(h.node.id);
    return out;
  };
  st = store_->Read([&](ReadTxn& t) -> Status {
    // Four foxes rank before one.
    auto foxes = found(t, "\"fox\"");
    EXPECT_EQ(ids(foxes), (std::vector<int64_t>{b, a}));
    if (foxes.size() == 2) {
      EXPECT_LE(foxes[0].rank, foxes[1].rank);
      auto first = found(t, "\"fox\"", std::nullopt, 1);
      EXPECT_EQ(ids(first), (std::vector<int64_t>{b}));
      auto second = found(t, "\"fox\"", std::make_pair(foxes[0].rank, foxes[0].node.id), 1);
      EXPECT_EQ(ids(second), (std::vector<int64_t>{a}));
      EXPECT_TRUE(found(t, "\"fox\"", std::make_pair(foxes[1].rank, foxes[1].node.id)).empty());
    }
    EXPECT_EQ(ids(found(t, "\"qui\"*")), (std::vector<int64_t>{a}));
    EXPECT_TRUE(found(t, "\"qui\"").empty());
    EXPECT_EQ(ids(found(t, "\"brown fox\"")), (std::vector<int64_t>{a}));
    EXPECT_TRUE(found(t, "\"fox brown\"").empty());
    EXPECT_EQ(ids(found(t, "\"FOX\" \"den\"")), (std::vector<int64_t>{b}));
    EXPECT_TRUE(found(t, "\"fox\" \"nothing\"").empty());
    EXPECT_TRUE(found(t, "\"fox\"", std::nullopt, 10, {d.id + 1000}).empty());
    // Query syntax inside a phrase is only text.
    EXPECT_TRUE(found(t, "\"fox OR nothing\"").empty());
    EXPECT_TRUE(found(t, "\"it\"\"s\" \"a & b | !c\"*").empty());
    NUBO_ASSIGN_OR_RETURN(auto snippets, t.TextSnippets({"\"lazy\"", "\"brown\""}, {a, c}));
    EXPECT_EQ(snippets.size(), 1u);
    if (!snippets.empty()) {
      EXPECT_EQ(snippets[0].first, a);
      EXPECT_NE(snippets[0].second.find("\x02lazy\x03"), std::string::npos) << snippets[0].second;
      EXPECT_EQ(snippets[0].second.find("\x02"
                                        "brown"),
                std::string::npos)
          << snippets[0].second;
    }
    NUBO_ASSIGN_OR_RETURN(bool has, t.HasText(c));
    EXPECT_TRUE(has);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  st = store_->Write([&](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.PutText(a, "entirely new words"));
    NUBO_RETURN_IF_ERROR(t.PutText(c, ""));
    return t.MarkSubtreeTrashed(b);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  st = store_->Read([&](ReadTxn& t) -> Status {
    EXPECT_TRUE(found(t, "\"fox\"").empty());  // a's old text is gone, b is in the trash
    EXPECT_EQ(ids(found(t, "\"words\"")), (std::vector<int64_t>{a}));
    NUBO_ASSIGN_OR_RETURN(bool has, t.HasText(c));
    EXPECT_FALSE(has);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// Alice with her drive, and a shared drive she is not a member of; each
// with its root.
Status InsertAliceAndTwoDrives(WriteTxn& t, UserRow& u, DriveRow& d, NodeRow& root, DriveRow& other,
                               NodeRow& other_root) {
  NUBO_RETURN_IF_ERROR(InsertAliceAndDrive(t, u, d));
  NUBO_RETURN_IF_ERROR(InsertRoot(t, d, root));
  other.public_id = "sd-other";
  other.kind = "shared";
  other.name = "Other";
  NUBO_RETURN_IF_ERROR(t.InsertDrive(other));
  return InsertRoot(t, other, other_root, "other-root");
}

// Name search: a needle of three characters or more goes through the
// engine's name index (SQLite's FTS5 trigrams, PostgreSQL's pg_trgm), a
// shorter one through a scan; both find exactly the names that contain it,
// LIKE's own characters included, in (sort_key, id) pages, in one drive.
TEST_P(MetaStoreConformance, NameSearchFindsSubstringsThroughTheIndexOrAScan) {
  UserRow u;
  DriveRow d, other;
  std::map<std::string, int64_t> id;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    NodeRow root, other_root;
    NUBO_RETURN_IF_ERROR(InsertAliceAndTwoDrives(t, u, d, root, other, other_root));
    NUBO_ASSIGN_OR_RETURN(int64_t manifest, t.InsertManifest(D("name"), 0, {}, 0));
    auto add = [&](const NodeRow& parent, const std::string& name, bool folder) -> Status {
      NodeRow n;
      n.public_id = "n" + std::to_string(id.size());
      n.drive_id = parent.drive_id;
      n.parent_id = parent.id;
      n.name = n.name_key = n.sort_key = name;
      n.kind = folder ? NodeKind::kFolder : NodeKind::kFile;
      n.mime = folder ? "inode/directory" : "application/pdf";
      if (!folder) n.manifest_id = manifest;
      NUBO_RETURN_IF_ERROR(t.InsertNode(n));
      id[name] = n.id;
      return Status::Ok();
    };
    for (const char* name :
         {"report-2026.pdf", "100%_done\\x.txt", "1000_done.txt", "ab.txt", "zähler.txt"}) {
      NUBO_RETURN_IF_ERROR(add(root, name, false));
    }
    NUBO_RETURN_IF_ERROR(add(root, "reports", true));
    return add(other_root, "report-other.pdf", false);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto names = [&](ReadTxn& t, const std::string& needle, std::optional<NodeKind> kind = {},
                   std::optional<std::pair<std::string, int64_t>> after = {}, size_t limit = 10,
                   std::string mime_prefix = "") {
    SearchFilter f;
    f.needle = needle;
    f.name_match = search::TrigramPhrase(needle);
    f.kind = kind;
    f.mime_prefix = mime_prefix;
    auto r = t.SearchNodes(d.id, f, after, limit, u.id);
    EXPECT_TRUE(r.ok()) << needle << ": " << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const NodeRow& n : *r) out.push_back(n.name);
    }
    return out;
  };
  using V = std::vector<std::string>;
  st = store_->Read([&](ReadTxn& t) -> Status {
    EXPECT_EQ(names(t, "report"), (V{"report-2026.pdf", "reports"}));
    EXPECT_EQ(names(t, "report", NodeKind::kFile), (V{"report-2026.pdf"}));
    EXPECT_EQ(names(t, "report", std::nullopt, std::nullopt, 10, "inode/"), (V{"reports"}));
    EXPECT_EQ(names(t, "re", std::nullopt, std::nullopt, 10, "application/"),
              (V{"report-2026.pdf"}));
    EXPECT_TRUE(names(t, "report", std::nullopt, std::nullopt, 10, "text/").empty());
    EXPECT_EQ(names(t, "port-2"), (V{"report-2026.pdf"}));
    // %, _ and \ are characters of the name, not a pattern's.
    EXPECT_EQ(names(t, "0%_d"), (V{"100%_done\\x.txt"}));
    EXPECT_EQ(names(t, "0_d"), (V{"1000_done.txt"}));
    EXPECT_EQ(names(t, "e\\x"), (V{"100%_done\\x.txt"}));
    EXPECT_EQ(names(t, "%"), (V{"100%_done\\x.txt"}));
    EXPECT_EQ(names(t, "done"), (V{"100%_done\\x.txt", "1000_done.txt"}));
    EXPECT_EQ(names(t, "ähl"), (V{"zähler.txt"}));
    EXPECT_EQ(names(t, "ab"), (V{"ab.txt"}));  // two characters: the scan
    EXPECT_TRUE(names(t, "repx").empty());
    EXPECT_TRUE(names(t, "other").empty());  // another drive's name
    // Pages continue after (sort_key, id).
    EXPECT_EQ(names(t, "done", std::nullopt, std::nullopt, 1), (V{"100%_done\\x.txt"}));
    EXPECT_EQ(names(t, "done", std::nullopt,
                    std::make_pair(std::string("100%_done\\x.txt"), id["100%_done\\x.txt"]), 1),
              (V{"1000_done.txt"}));
    EXPECT_TRUE(names(t, "done", std::nullopt,
                      std::make_pair(std::string("1000_done.txt"), id["1000_done.txt"]))
                    .empty());
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
}

// A needle many names hold and one few hold answer the same pages in
// (sort_key, id) order, whichever way the engine reaches them (SQLite
// looks up at most a couple of thousand matches by id and sorts them, and
// walks the drive in name order past that).
TEST_P(MetaStoreConformance, NameSearchPagesAgreeForFewAndManyMatches) {
  UserRow u;
  DriveRow d, other;
  constexpr int kMany = 2100;
  Status st = store_->Write([&](WriteTxn& t) -> Status {
    NodeRow root, other_root;
    NUBO_RETURN_IF_ERROR(InsertAliceAndTwoDrives(t, u, d, root, other, other_root));
    NUBO_ASSIGN_OR_RETURN(int64_t manifest, t.InsertManifest(D("many"), 0, {}, 0));
    auto add = [&](const NodeRow& parent, const std::string& name) -> Status {
      NodeRow n;
      n.public_id = "m-" + std::to_string(parent.drive_id) + "-" + name;
      n.drive_id = parent.drive_id;
      n.parent_id = parent.id;
      n.name = n.name_key = n.sort_key = name;
      n.kind = NodeKind::kFile;
      n.mime = "text/plain";
      n.manifest_id = manifest;
      return t.InsertNode(n);
    };
    // Written last name first, so id order is not name order.
    for (int i = kMany - 1; i >= 0; --i) {
      char name[32];
      std::snprintf(name, sizeof name, "many-%05d.txt", i);
      NUBO_RETURN_IF_ERROR(add(root, name));
    }
    for (int i = 0; i < 30; ++i) {
      NUBO_RETURN_IF_ERROR(add(other_root, "many-other-" + std::to_string(i) + ".txt"));
    }
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  // Every page of `needle`, `limit` at a time.
  auto walk = [&](const std::string& needle, size_t limit) {
    std::vector<std::string> out;
    std::optional<std::pair<std::string, int64_t>> after;
    Status rs = store_->Read([&](ReadTxn& t) -> Status {
      for (int guard = 0; guard < 10000; ++guard) {
        SearchFilter f;
        f.needle = needle;
        f.name_match = search::TrigramPhrase(needle);
        NUBO_ASSIGN_OR_RETURN(std::vector<NodeRow> page,
                              t.SearchNodes(d.id, f, after, limit, u.id));
        for (const NodeRow& n : page) out.push_back(n.name);
        if (page.size() < limit) break;
        after = std::make_pair(page.back().sort_key, page.back().id);
      }
      return Status::Ok();
    });
    EXPECT_TRUE(rs.ok()) << rs.ToString();
    return out;
  };
  auto expected = [&](int from, int to) {
    std::vector<std::string> v;
    for (int i = from; i < to; ++i) {
      char name[32];
      std::snprintf(name, sizeof name, "many-%05d.txt", i);
      v.push_back(name);
    }
    return v;
  };
  EXPECT_EQ(walk("many", 100), expected(0, kMany));       // more than the few-way takes
  EXPECT_EQ(walk("y-00", 7), expected(0, 1000));          // 1,000: the few-way
  EXPECT_EQ(walk("y-012", 30), expected(1200, 1300));     // a hundred
  EXPECT_EQ(walk("y-0012", 3), expected(120, 130));       // ten
  EXPECT_EQ(walk("any-02", 500), expected(2000, kMany));  // one page
  EXPECT_TRUE(walk("other", 10).empty());                 // only another drive's names
}

INSTANTIATE_TEST_SUITE_P(Backends, MetaStoreConformance, ::testing::ValuesIn(kBackends),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nubo::meta
