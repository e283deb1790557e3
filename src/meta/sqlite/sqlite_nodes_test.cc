#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>

#include "meta/migrations.h"
#include "meta/sql/sql_txn.h"
#include "meta/sqlite/sqlite_conn.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {
namespace {

// The plans SQLite makes for the listing statements on the shipped schema:
// a page of files by name with the basic columns must come from
// nodes_list_files alone (a fetch of each row by id, in name order, was
// a quarter of a 10,000-file listing's time), and no listing may sort its rows
// itself (every order has an index).
class ListingPlanTest : public ::testing::Test {
 protected:
  // The shipped schema in a database of its own, in memory: a plan depends
  // on the schema, not on rows.
  void SetUp() override {
    auto c = Conn::Open(":memory:", 1000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(*c);
    auto applied = sql::ApplyMigrations(*c_, Migrations(), true);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  }

  // EXPLAIN QUERY PLAN's detail lines, one per line. (Conn caches a
  // statement by its text's address: each text is kept, so none is reused.)
  std::string Plan(const std::string& q) {
    const std::string& text = texts_.emplace_back("EXPLAIN QUERY PLAN " + q);
    auto s = c_->Prepare(text.c_str());
    EXPECT_TRUE(s.ok()) << q;
    if (!s.ok()) return "";
    std::string out;
    for (;;) {
      auto row = s->Step();
      EXPECT_TRUE(row.ok());
      if (!row.ok() || !*row) break;
      out += std::string(s->View(3)) + "\n";
    }
    return out;
  }

  std::deque<std::string> texts_;  // declared before c_, which (with its statements) goes first
  std::unique_ptr<Conn> c_;
};

TEST_F(ListingPlanTest, FilesByNameReadOnlyTheirIndex) {
  for (bool desc : {false, true}) {
    for (bool after : {false, true}) {
      const std::string files =
          Plan(ListChildrenSql(NodeKind::kFile, NodeSort::kName, desc, after, ListColumns::kBasic));
      EXPECT_NE(files.find("USING COVERING INDEX nodes_list_files"), std::string::npos)
          << desc << after << "\n"
          << files;
      const std::string all =
          Plan(ListChildrenSql(NodeKind::kFile, NodeSort::kName, desc, after, ListColumns::kAll));
      EXPECT_NE(all.find("USING INDEX nodes_list_files"), std::string::npos) << all;
      const std::string folders = Plan(
          ListChildrenSql(NodeKind::kFolder, NodeSort::kName, desc, after, ListColumns::kBasic));
      EXPECT_NE(folders.find("USING INDEX nodes_list_folders"), std::string::npos) << folders;
    }
  }
}

TEST_F(ListingPlanTest, NoListingSortsItsRows) {
  for (NodeKind kind : {NodeKind::kFolder, NodeKind::kFile}) {
    for (NodeSort sort : {NodeSort::kName, NodeSort::kModified, NodeSort::kType}) {
      for (ListColumns columns : {ListColumns::kAll, ListColumns::kBasic}) {
        for (bool desc : {false, true}) {
          for (bool after : {false, true}) {
            const std::string plan = Plan(ListChildrenSql(kind, sort, desc, after, columns));
            EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos)
                << static_cast<int>(kind) << " " << static_cast<int>(sort) << "\n"
                << plan;
            EXPECT_EQ(plan.find("SCAN"), std::string::npos) << plan;
          }
        }
      }
    }
  }
  // Files by size walk nodes_list_size (folders by size are sorted: few).
  EXPECT_EQ(Plan(ListChildrenSql(NodeKind::kFile, NodeSort::kSize, false, true, ListColumns::kAll))
                .find("TEMP B-TREE"),
            std::string::npos);
}

}  // namespace
}  // namespace nubo::meta::sqlite
