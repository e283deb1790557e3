// What only the PostgreSQL store does (the MetaStore contract itself is in
// meta_store_conformance_test.cc, which runs on both engines).
#include "meta/pg/pg_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "meta/migrations.h"
#include "meta/pg/pg_conn.h"
#include "meta/pg/pg_test_cluster.h"
#include "meta/test_rows.h"
#include "util/blake3_hash.h"

namespace nubo::meta {
namespace {

class PgStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = pg::FreshTestDatabase();
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    conninfo_ = *db;
    auto s = OpenPostgres(conninfo_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  // Alice, her root and `count` folders in it (f0, f1, …), in one write:
  // the root's id, then the folders'.
  std::vector<int64_t> SeedFolders(int count) {
    std::vector<int64_t> ids;
    Status st = store_->Write([&](WriteTxn& t) -> Status {
      ids.clear();
      NodeRow root;
      NUBO_RETURN_IF_ERROR(test_rows::InsertAliceWithRoot(t, root));
      ids.push_back(root.id);
      for (int i = 0; i < count; ++i) {
        NodeRow n;
        NUBO_RETURN_IF_ERROR(
            test_rows::InsertFolder(t, root, "n" + std::to_string(i), "f" + std::to_string(i), n));
        ids.push_back(n.id);
      }
      return Status::Ok();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
    return ids;
  }
  std::string conninfo_;
  std::unique_ptr<MetaStore> store_;
};

// A write that ignores a failed statement and returns OK must not be
// reported done: PostgreSQL has ended its transaction, and a COMMIT would
// roll everything back without an error.
TEST_F(PgStoreTest, AWriteThatGoesOnPastAFailedStatementIsNotReportedDone) {
  Status st = store_->Write([](WriteTxn& t) -> Status {
    NUBO_RETURN_IF_ERROR(t.InsertChunk({Blake3::Hash("kept?"), 1, 0, std::nullopt}));
    (void)t.InsertPin("dangling", 999999);  // no such manifest: a foreign key fails
    return Status::Ok();
  });
  EXPECT_EQ(st.code(), Code::kInternal) << st.ToString();
  ASSERT_TRUE(store_
                  ->Read([](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(Blake3::Hash("kept?")));
                    EXPECT_FALSE(c.has_value());
                    return Status::Ok();
                  })
                  .ok());
}

// A new database's tables grow without planner statistics until
// autovacuum's first analyze (a minute or more); a name lookup planned then
// reads the whole folder. RefreshStatistics analyzes them, and the lookup's
// cached (generic) plan becomes the unique index's.
TEST_F(PgStoreTest, TablesThatGrewWithoutStatisticsGetThem) {
  const std::vector<int64_t> ids = SeedFolders(2000);
  ASSERT_EQ(ids.size(), 2001u);
  const int64_t folder = ids[0];
  auto c = pg::Conn::Open(conninfo_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  pg::Conn& conn = **c;
  auto analyzed = [&] {
    auto s = conn.Prepare(
        "SELECT count(*) FROM pg_stats WHERE tablename = 'nodes' AND attname = 'name_key'");
    EXPECT_TRUE(s.ok());
    auto row = s->Step();
    return row.ok() && *row && s->Int(0) > 0;
  };
  EXPECT_FALSE(analyzed());
  // The server's activity counters reach pg_stat_user_tables within about
  // a second.
  for (int i = 0; i < 50 && !analyzed(); ++i) {
    ASSERT_TRUE(store_->RefreshStatistics().ok());
    if (!analyzed()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(analyzed());
  ASSERT_TRUE(conn.Exec("SET plan_cache_mode = force_generic_plan").ok());
  ASSERT_TRUE(conn.Exec("PREPARE sib(bigint, text) AS SELECT id FROM nodes n WHERE "
                        "n.parent_id = $1 AND n.name_key = $2 AND n.trash_root IS NULL")
                  .ok());
  // (A utility statement takes no parameters: the folder goes in the text.)
  const std::string explain =
      NUBO_SQL_PLAN_PER_CALL "EXPLAIN EXECUTE sib(" + std::to_string(folder) + ", 'f7')";
  auto plan = conn.Prepare(explain.c_str());
  ASSERT_TRUE(plan.ok());
  std::string text;
  for (;;) {
    auto row = plan->Step();
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    if (!*row) break;
    text += plan->Text(0) + "\n";
  }
  EXPECT_NE(text.find("nodes_sibling_names"), std::string::npos) << text;
}

// Each upload adds its bytes to every folder above it. Those updates must
// be heap-only (HOT): a folder's size in an index made every one of them
// write a new entry into each of the ten indexes of nodes.
TEST_F(PgStoreTest, FolderRollupsAreHeapOnlyUpdates) {
  const std::vector<int64_t> ids = SeedFolders(1);
  ASSERT_EQ(ids.size(), 2u);
  const int64_t folder = ids[1];
  auto c = pg::Conn::Open(conninfo_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  pg::Conn& conn = **c;
  // The entries of nodes' primary key (a few rows: its one leaf is page 1).
  // A heap-only update adds none; any other adds one to every index.
  ASSERT_TRUE(conn.Exec("CREATE EXTENSION IF NOT EXISTS pageinspect").ok());
  auto entries = [&] {
    auto s = conn.Prepare("SELECT count(*) FROM bt_page_items('nodes_pkey', 1)");
    EXPECT_TRUE(s.ok());
    auto row = s->Step();
    EXPECT_TRUE(row.ok() && *row);
    return s->Int(0);
  };
  EXPECT_EQ(entries(), 2);  // the root and the folder
  constexpr int kUploads = 20;
  for (int i = 0; i < kUploads; ++i) {
    ASSERT_TRUE(
        store_->Write([&](WriteTxn& t) { return t.BumpAncestors(folder, i + 1, 4096); }).ok());
  }
  EXPECT_EQ(entries(), 2);
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(std::optional<NodeRow> f, t.GetNode(folder, 0));
                    if (!f) return Status::NotFound("folder");
                    EXPECT_EQ(f->size, uint64_t{4096} * kUploads);
                    return Status::Ok();
                  })
                  .ok());
}

// Holds the writer with one write until `n` more have queued behind it, so
// that they run as one batch (one transaction with a savepoint each); then
// returns what each of them answered.
std::vector<Status> RunAsOneBatch(MetaStore& store, int n,
                                  const std::function<Status(WriteTxn&, int)>& fn) {
  std::atomic<int> arrived{0};
  std::atomic<bool> holding{false};
  std::thread first([&] {
    Status st = store.Write([&](WriteTxn&) -> Status {
      holding = true;
      while (arrived < n) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let them queue
      return Status::Ok();
    });
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  std::vector<Status> results(n);
  std::vector<std::thread> writers;
  for (int i = 0; i < n; ++i) {
    writers.emplace_back([&, i] {
      while (!holding) std::this_thread::yield();
      ++arrived;
      results[i] = store.Write([&, i](WriteTxn& t) { return fn(t, i); });
    });
  }
  first.join();
  for (auto& w : writers) w.join();
  return results;
}

bool HasChunk(MetaStore& store, const std::string& name) {
  bool found = false;
  EXPECT_TRUE(store
                  .Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto c, t.GetChunk(Blake3::Hash(name)));
                    found = c.has_value();
                    return Status::Ok();
                  })
                  .ok());
  return found;
}

// In a batch, a write that goes on past a failed statement fails alone:
// its savepoint is rolled back, the writes before and after it commit.
TEST_F(PgStoreTest, InABatchAWriteThatGoesOnPastAFailedStatementFailsAlone) {
  const uint64_t commits_before = store_->Stats().commits;
  auto results = RunAsOneBatch(*store_, 6, [](WriteTxn& t, int i) -> Status {
    NUBO_RETURN_IF_ERROR(
        t.InsertChunk({Blake3::Hash("b" + std::to_string(i)), 1, 0, std::nullopt}));
    if (i == 3) (void)t.InsertPin("dangling", 999999);  // a foreign key fails, ignored
    return Status::Ok();
  });
  for (int i = 0; i < 6; ++i) {
    if (i == 3) {
      EXPECT_EQ(results[i].code(), Code::kInternal) << results[i].ToString();
    } else {
      EXPECT_TRUE(results[i].ok()) << i << " " << results[i].ToString();
    }
    EXPECT_EQ(HasChunk(*store_, "b" + std::to_string(i)), i != 3) << i;
  }
  // The holder and the batch: two commits for seven writes.
  EXPECT_EQ(store_->Stats().commits - commits_before, 2u);
}

// A write the server undid (a deadlock or serialization failure answers
// kAborted) runs again, alone; the rest of its batch commits once.
TEST_F(PgStoreTest, InABatchAnAbortedWriteRunsAgainAlone) {
  std::atomic<int> runs{0};
  auto results = RunAsOneBatch(*store_, 4, [&](WriteTxn& t, int i) -> Status {
    NUBO_RETURN_IF_ERROR(
        t.InsertChunk({Blake3::Hash("r" + std::to_string(i)), 1, 0, std::nullopt}));
    if (i == 2 && runs++ == 0) return Status::Aborted("deadlock detected (simulated)");
    return Status::Ok();
  });
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(results[i].ok()) << i << " " << results[i].ToString();
    EXPECT_TRUE(HasChunk(*store_, "r" + std::to_string(i))) << i;
  }
  EXPECT_EQ(runs.load(), 2);
}

// Writers from many connections: sixteen threads each add one to the same
// reference count, read-then-write, and every increment lands (none fails,
// none is lost).
TEST_F(PgStoreTest, ConcurrentWritersLoseNoUpdate) {
  int64_t id = 0;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(id, t.InsertManifest(Blake3::Hash("shared"), 0, {}, 0));
                    return Status::Ok();
                  })
                  .ok());
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      for (int k = 0; k < 5; ++k) {
        Status st = store_->Write([&](WriteTxn& t) -> Status {
          // Read, then set: the pattern that loses updates without
          // serializable transactions.
          NUBO_ASSIGN_OR_RETURN(auto m, t.GetManifest(id));
          if (!m) return Status::NotFound("manifest");
          return t.SetManifestRefs(id, m->refs + 1);
        });
        if (!st.ok()) ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  ASSERT_TRUE(store_
                  ->Read([&](ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(auto m, t.GetManifest(id));
                    EXPECT_EQ(m->refs, 80);
                    return Status::Ok();
                  })
                  .ok());
}

// A document whose distinct words would not fit a tsvector (at most 1 MiB)
// is still stored and indexed by its beginning: its indexing job must not
// fail for ever.
TEST_F(PgStoreTest, ADocumentTooBigForATsvectorIsIndexedByItsBeginning) {
  std::string text = "firstword ";
  for (int i = 0; text.size() < (1 << 20) - 16; ++i) text += "w" + std::to_string(i * 7919) + " ";
  text += "lastword";
  ASSERT_TRUE(store_->Write([&](WriteTxn& t) { return t.PutText(1, text); }).ok());
  auto c = pg::Conn::Open(conninfo_);
  ASSERT_TRUE(c.ok());
  auto s = (*c)->Prepare(
      "SELECT terms @@ 'firstword'::tsquery, terms @@ 'lastword'::tsquery FROM doc_text "
      "WHERE id = 1");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto row = s->Step();
  ASSERT_TRUE(row.ok() && *row) << row.status().ToString();
  EXPECT_EQ(s->Int(0), 1);
  EXPECT_EQ(s->Int(1), 0);  // beyond the first 64 KiB
}

TEST_F(PgStoreTest, RefusesADatabaseNewerThanTheBinary) {
  store_.reset();
  auto c = pg::Conn::Open(conninfo_);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->Exec("INSERT INTO schema_migrations VALUES (9999, 'future.sql', 0)").ok());
  auto s = OpenPostgres(conninfo_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kUnsupported);
  EXPECT_NE(s.status().message().find("upgrade nubo"), std::string::npos);
}

// A role that may not install pg_trgm (no CREATE on the database) still
// migrates, without the name index, and its name search still finds names
// through the same statement (migrations/pg/0029).
TEST_F(PgStoreTest, WithoutPgTrgmTheMigrationGoesOnAndNameSearchStillFinds) {
  auto db = pg::FreshTestDatabase();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto admin = pg::Conn::Open(*db);
  ASSERT_TRUE(admin.ok());
  const std::string role = "plain_" + db->substr(db->rfind('=') + 1);
  ASSERT_TRUE(
      (*admin)
          ->Exec("CREATE ROLE " + role + " LOGIN; GRANT CREATE, USAGE ON SCHEMA public TO " + role)
          .ok());
  auto s = OpenPostgres(*db + " user=" + role);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto count = [&](const char* sql) {
    auto q = (*admin)->Prepare(sql);
    EXPECT_TRUE(q.ok() && *q->Step());
    return q.ok() ? q->Int(0) : -1;
  };
  EXPECT_EQ(count("SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM pg_indexes WHERE indexname = 'nodes_name_trgm'"), 0);
  EXPECT_EQ(count("SELECT max(version) FROM schema_migrations"), PgMigrations().back().version);
  DriveRow d;
  Status st = (*s)->Write([&](WriteTxn& t) -> Status {
    UserRow u;
    NUBO_RETURN_IF_ERROR(test_rows::InsertAliceAndDrive(t, u, d));
    NodeRow root;
    NUBO_RETURN_IF_ERROR(test_rows::InsertRoot(t, d, root));
    NodeRow f;
    f.public_id = "f";
    f.drive_id = d.id;
    f.parent_id = root.id;
    f.name = f.name_key = f.sort_key = "quarterly-reports";
    f.kind = NodeKind::kFolder;
    f.mime = "inode/directory";
    return t.InsertNode(f);
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  SearchFilter filter;
  filter.needle = "report";
  filter.name_match = "\"report\"";  // three characters or more: the indexed statement
  st = (*s)->Read([&](ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto found, t.SearchNodes(d.id, filter, std::nullopt, 10, 0));
    EXPECT_EQ(found.size(), 1u);
    if (!found.empty()) {
      EXPECT_EQ(found[0].name, "quarterly-reports");
    }
    return Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
}

// pg_trgm installed by an administrator in a schema off nubo's search
// path: the index is still built (its operator class named with its
// schema).
TEST_F(PgStoreTest, PgTrgmInAnotherSchemaStillGivesTheNameIndex) {
  auto db = pg::FreshTestDatabase();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto admin = pg::Conn::Open(*db);
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE((*admin)->Exec("CREATE SCHEMA ext; CREATE EXTENSION pg_trgm SCHEMA ext").ok());
  auto s = OpenPostgres(*db);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto q = (*admin)->Prepare("SELECT indexdef FROM pg_indexes WHERE indexname = 'nodes_name_trgm'");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_NE(q->Text(0).find("ext.gin_trgm_ops"), std::string::npos) << q->Text(0);
}

}  // namespace
}  // namespace nubo::meta
