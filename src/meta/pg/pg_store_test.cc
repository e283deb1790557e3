// What only the PostgreSQL store does (the MetaStore contract itself is in
// meta_store_conformance_test.cc, which runs on both engines).
#include "meta/pg/pg_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "meta/pg/pg_conn.h"
#include "meta/pg/pg_test_cluster.h"
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

// Writers from many connections: sixteen threads each add one to the same
// reference count, read-then-write, and every increment lands (none fails,
// none is lost).
TEST_F(PgStoreTest, ConcurrentWritersLoseNoUpdate) {
  int64_t id = 0;
  ASSERT_TRUE(store_
                  ->Write([&](WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(id, t.InsertManifest(Blake3::Hash("shared"), 0, {}));
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

}  // namespace
}  // namespace nubo::meta
