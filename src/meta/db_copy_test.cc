// `nubo db copy` at the store level: a SQLite store filled through the
// MetaStore, copied row by row (so that PostgreSQL checks every foreign key
// on its own row), then opened as a PostgreSQL store. The end-to-end
// version with a real server on both sides is tests/blackbox/test_db_copy.py.
#include "meta/db_copy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "meta/migrations.h"
#include "meta/pg/pg_conn.h"
#include "meta/pg/pg_store.h"
#include "meta/pg/pg_test_cluster.h"
#include "meta/sql/sql_txn.h"
#include "meta/sqlite/sqlite_store.h"
#include "meta/test_rows.h"
#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::meta {
namespace {

namespace fs = std::filesystem;

NodeRow Folder(const std::string& name, int64_t drive, std::optional<int64_t> parent) {
  NodeRow n;
  n.public_id = "n-" + name;
  n.drive_id = drive;
  n.parent_id = parent;
  n.name = n.name_key = n.sort_key = name;
  n.mime = "inode/directory";
  n.mtime_ms = n.ctime_ms = 1'700'000'000'000;
  return n;
}

class DbCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nubo-copy-" + RandomHex(6));
    fs::create_directories(dir_);
    path_ = (dir_ / "nubo.db").string();
    auto s = OpenSqlite(path_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    // alice's drive: root, then "early", then "later"; "early" moves into
    // "later" (a folder holding an older node: id order is not enough),
    // and "gone", the newest node, is deleted (its id is never reused).
    Status st = (*s)->Write([&](WriteTxn& t) -> Status {
      UserRow u;
      DriveRow d;
      NUBO_RETURN_IF_ERROR(test_rows::InsertAliceAndDrive(t, u, d));
      NodeRow root = Folder("root", d.id, std::nullopt);
      NUBO_RETURN_IF_ERROR(t.InsertNode(root));
      NUBO_RETURN_IF_ERROR(t.SetDriveRoot(d.id, root.id));
      NodeRow early = Folder("early", d.id, root.id);
      NUBO_RETURN_IF_ERROR(t.InsertNode(early));
      NodeRow later = Folder("later", d.id, root.id);
      NUBO_RETURN_IF_ERROR(t.InsertNode(later));
      early.parent_id = later.id;
      NUBO_RETURN_IF_ERROR(t.UpdateNode(early));
      NodeRow gone = Folder("gone", d.id, root.id);
      NUBO_RETURN_IF_ERROR(t.InsertNode(gone));
      NUBO_RETURN_IF_ERROR(t.DeleteSubtree(gone.id).status());
      root_ = root.id;
      early_ = early.id;
      later_ = later.id;
      gone_ = gone.id;
      drive_ = d.id;
      return Status::Ok();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string path_;
  int64_t root_ = 0, early_ = 0, later_ = 0, gone_ = 0, drive_ = 0;
};

TEST_F(DbCopyTest, RowsAndIdsArriveAndTheTargetGoesOn) {
  auto db = pg::FreshTestDatabase();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto r = CopySqliteToPostgres(path_, *db, {.batch_rows = 1});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  int64_t nodes = -1, users = -1;
  for (const CopiedTable& t : r->tables) {
    if (t.name == "nodes") nodes = t.rows;
    if (t.name == "users") users = t.rows;
  }
  EXPECT_EQ(nodes, 3);
  EXPECT_EQ(users, 1);

  auto pg = OpenPostgres(*db);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  Status st = (*pg)->Read([&](ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto early, t.GetNode(early_, 0));
    EXPECT_EQ(early ? early->parent_id : std::nullopt, std::optional<int64_t>(later_));
    // The child counts were copied, not counted again by the triggers.
    NUBO_ASSIGN_OR_RETURN(auto root, t.GetNode(root_, 0));
    NUBO_ASSIGN_OR_RETURN(auto later, t.GetNode(later_, 0));
    EXPECT_EQ(root ? root->child_count : -1, 1);
    EXPECT_EQ(later ? later->child_count : -1, 1);
    return Status::Ok();
  });
  ASSERT_TRUE(st.ok()) << st.ToString();
  // New rows take ids after the copied ones, and after the deleted node's.
  st = (*pg)->Write([&](WriteTxn& t) -> Status {
    NodeRow next = Folder("next", drive_, root_);
    NUBO_RETURN_IF_ERROR(t.InsertNode(next));
    EXPECT_GT(next.id, gone_);
    UserRow bob;
    bob.public_id = "u2";
    bob.username = bob.display_name = "bob";
    bob.role = "user";
    return t.InsertUser(bob);
  });
  EXPECT_TRUE(st.ok()) << st.ToString();

  // Never over an installation.
  auto again = CopySqliteToPostgres(path_, *db);
  EXPECT_EQ(again.status().code(), Code::kConflict) << again.status().ToString();
}

// Regression: the read-back paged by physical position sorted positions
// as text, so a table past ten pages and a thousand rows came back short
// and the copy failed. Both limits are crossed here (about 30 pages).
TEST_F(DbCopyTest, ATableOfManyPagesIsReadBackWhole) {
  {
    auto s = OpenSqlite(path_);
    ASSERT_TRUE(s.ok());
    Status st = (*s)->Write([&](WriteTxn& t) -> Status {
      for (int i = 0; i < 2500; ++i) {
        NUBO_RETURN_IF_ERROR(t.InsertChunk({Blake3::Hash(std::to_string(i)), 100, 1, i}));
      }
      return Status::Ok();
    });
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  auto db = pg::FreshTestDatabase();
  ASSERT_TRUE(db.ok());
  auto r = CopySqliteToPostgres(path_, *db);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const CopiedTable& t : r->tables) {
    if (t.name == "chunks") {
      EXPECT_EQ(t.rows, 2500);
    }
  }
}

TEST_F(DbCopyTest, RefusesASourceAServerIsRunningOn) {
  {
    auto s = OpenSqlite(path_);
    ASSERT_TRUE(s.ok());
    char host[256] = {};
    ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
    ProcessRow me{"p1", host, ::getpid(), UnixMillis(), UnixMillis(), std::nullopt};
    ASSERT_TRUE((*s)->Write([&](WriteTxn& t) { return t.BeatProcess(me, 0); }).ok());
  }
  auto db = pg::FreshTestDatabase();
  ASSERT_TRUE(db.ok());
  auto r = CopySqliteToPostgres(path_, *db);
  EXPECT_EQ(r.status().code(), Code::kConflict);
  EXPECT_NE(r.status().message().find("running on the source"), std::string::npos)
      << r.status().ToString();
}

// A target with a nubo schema of another version may be an installation:
// refused as it is, not migrated first.
TEST_F(DbCopyTest, ATargetOfAnotherSchemaVersionIsRefusedUntouched) {
  auto db = pg::FreshTestDatabase();
  ASSERT_TRUE(db.ok());
  auto c = pg::Conn::Open(*db);
  ASSERT_TRUE(c.ok());
  std::vector<Migration> older = PgMigrations();
  older.pop_back();
  ASSERT_TRUE(sql::ApplyMigrations(**c, older, true).ok());
  auto r = CopySqliteToPostgres(path_, *db);
  EXPECT_EQ(r.status().code(), Code::kConflict) << r.status().ToString();
  auto v = sql::CurrentVersion(**c);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, older.back().version);
}

TEST_F(DbCopyTest, AMissingSourceIsNotCreated) {
  const std::string missing = (dir_ / "elsewhere.db").string();
  auto r = CopySqliteToPostgres(missing, "postgres://unused");
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_FALSE(fs::exists(missing));
}

}  // namespace
}  // namespace nubo::meta
