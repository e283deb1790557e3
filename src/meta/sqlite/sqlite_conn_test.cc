// The SQLite connection's INSERT … RETURNING id fast path (Conn::Prepare):
// the same answers as SQLite's own RETURNING, also with triggers that
// insert elsewhere and with rows skipped on conflict.
#include "meta/sqlite/sqlite_conn.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "util/ids.h"

namespace nubo::meta::sqlite {
namespace {

namespace fs = std::filesystem;

class SqliteConnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("nubo-conn-" + RandomHex(6) + ".db");
    auto c = Conn::Open(path_.string(), 1000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(c).value();
    ASSERT_TRUE(c_->Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, v INTEGER);"
                         "CREATE TABLE log (id INTEGER PRIMARY KEY, what TEXT);"
                         "INSERT INTO log (what) VALUES ('a'), ('b'), ('c'), ('d');"
                         "CREATE TRIGGER t_log AFTER INSERT ON t BEGIN "
                         "INSERT INTO log (what) VALUES (NEW.k); END;")
                    .ok());
  }
  void TearDown() override {
    c_.reset();
    for (const char* ext : {"", "-wal", "-shm"}) fs::remove(path_.string() + ext);
  }
  fs::path path_;
  std::unique_ptr<Conn> c_;
};

TEST_F(SqliteConnTest, ReturningIdIsTheNewRowEvenWhenATriggerInsertsElsewhere) {
  for (int64_t want : {1, 2, 3}) {
    auto s = c_->Prepare("INSERT INTO t (k, v) VALUES (?, 0) ON CONFLICT DO NOTHING RETURNING id");
    ASSERT_TRUE(s.ok());
    const std::string k = "k" + std::to_string(want);
    s->Bind(1, k);
    auto id = InsertedId(*s);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_EQ(*id, want);  // not the trigger's row in `log` (ids 5, 6, 7)
  }
  // A taken key: no row, so AlreadyExists, and the statement stays usable.
  auto s = c_->Prepare("INSERT INTO t (k, v) VALUES (?, 0) ON CONFLICT DO NOTHING RETURNING id");
  const std::string taken = "k2";
  s->Bind(1, taken);
  EXPECT_EQ(InsertedId(*s).status().code(), Code::kAlreadyExists);
}

TEST_F(SqliteConnTest, AnUpsertStillAnswersTheRowItUpdated) {
  static const char* kUpsert =
      "INSERT INTO t (k, v) VALUES (?1, ?2) ON CONFLICT (k) DO UPDATE SET v = ?2 RETURNING id";
  int64_t first = 0;
  for (int64_t v : {1, 2}) {
    for (const char* k : {"x", "y"}) {
      auto s = c_->Prepare(kUpsert);
      const std::string key = k;
      s->Bind(1, key).Bind(2, v);
      auto id = InsertedId(*s);
      ASSERT_TRUE(id.ok()) << id.status().ToString();
      if (std::string(k) == "x") {
        if (v == 1) first = *id;
        EXPECT_EQ(*id, first);  // the update answers the existing row's id
      }
    }
  }
  auto q = c_->Prepare("SELECT count(*), sum(v) FROM t");
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Int(0), 2);
  EXPECT_EQ(q->Int(1), 4);
}

}  // namespace
}  // namespace nubo::meta::sqlite
