// Plans PostgreSQL makes for statements on the shipped schema (a
// throwaway cluster) where a poor one reads a whole table each time.
#include <gtest/gtest.h>

#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "meta/migrations.h"
#include "meta/pg/pg_conn.h"
#include "meta/pg/pg_test_cluster.h"
#include "meta/sql/sql_txn.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::pg {
namespace {

class PgPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = FreshTestDatabase();
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto c = Conn::Open(*db);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(c).value();
    auto applied = sql::ApplyMigrations(*c_, PgMigrations(), true);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    // A drive of 5,000 folders below its root, each with a version and a
    // dead property, with statistics: the planner weighs a scan of an
    // empty table as nothing.
    ASSERT_NO_FATAL_FAILURE(ExecAll(
        {"INSERT INTO users (id, public_id, username, name_key, display_name, password_hash, "
         "role, created_at) VALUES (1, 'u', 'u', 'u', 'u', 'x', 'user', 0)",
         "INSERT INTO drives (id, public_id, kind, name, owner_id, created_at) "
         "VALUES (1, 'd', 'personal', 'd', 1, 0)",
         "INSERT INTO nodes (id, public_id, drive_id, parent_id, name, name_key, kind, mime, "
         "mtime, ctime) VALUES (1, 'n1', 1, NULL, '', '', 0, '', 0, 0)",
         "INSERT INTO nodes (id, public_id, drive_id, parent_id, name, name_key, kind, mime, "
         "mtime, ctime) SELECT g, 'n' || g, 1, 1 + g / 100, 'f' || g, 'f' || g, 0, '', 0, 0 "
         "FROM generate_series(2, 5000) g",
         "INSERT INTO manifests (id, hash, size, refs, created_at) VALUES (1, '\\x00', 0, 0, 0)",
         "INSERT INTO file_versions (public_id, node_id, manifest_id, size, charged, mtime, "
         "created_at) SELECT 'v' || g, g, 1, 0, 0, 0, 0 FROM generate_series(2, 5000) g",
         "INSERT INTO dead_props (node_id, ns, name, value) "
         "SELECT g, 'urn:x', 'p', 'v' FROM generate_series(2, 5000) g",
         "ANALYZE"}));
  }

  // Runs each statement; a failure names it.
  void ExecAll(std::initializer_list<const char*> statements) {
    for (const char* q : statements) {
      const Status st = c_->Exec(q);
      ASSERT_TRUE(st.ok()) << st.ToString() << "\n" << q;
    }
  }

  // EXPLAIN's lines for `q` with its parameters ?1..?n bound to 1..n.
  // (Conn caches a statement by its text's address: each text is kept.)
  std::string Plan(const std::string& q, int n) {
    const std::string& text = texts_.emplace_back("EXPLAIN " + q);
    auto s = c_->Prepare(text.c_str());
    EXPECT_TRUE(s.ok()) << s.status().ToString() << "\n" << q;
    if (!s.ok()) return "";
    for (int i = 1; i <= n; ++i) s->Bind(i, i);
    std::string out;
    for (;;) {
      auto row = s->Step();
      EXPECT_TRUE(row.ok()) << row.status().ToString() << "\n" << q;
      if (!row.ok() || !*row) break;
      out += std::string(s->View(0)) + "\n";
    }
    return out;
  }

  std::deque<std::string> texts_;  // declared before c_, which (with its statements) goes first
  std::unique_ptr<Conn> c_;
};

// Every upload, removal and change below a folder updates the folder and
// its ancestors: that must look each of them up by id, not scan nodes
// (which it did, for tables of up to some ten thousand rows, before the
// ids were given as an array).
TEST_F(PgPlanTest, AFolderAndItsAncestorsAreUpdatedByTheirIds) {
  const std::string plan = Plan(sqlite::BumpAncestorsSql(true), 3);
  EXPECT_EQ(plan.find("Seq Scan"), std::string::npos) << plan;
  EXPECT_NE(plan.find("Index Scan using nodes_pkey on nodes  "), std::string::npos) << plan;
}

// A statistics counter of one table or index, `q` naming it as ?1 (this
// backend's counts are flushed first).
int64_t StatCount(Conn& c, const char* q, const std::string& name) {
  EXPECT_TRUE(c.Exec("SELECT pg_stat_force_next_flush()").ok());
  auto s = c.Prepare(q);
  EXPECT_TRUE(s.ok());
  if (!s.ok()) return -1;
  s->Bind(1, name);
  auto row = s->Step();
  EXPECT_TRUE(row.ok() && *row);
  return row.ok() && *row ? s->Int(0) : -1;
}

// Sequential scans PostgreSQL has made of `table`.
int64_t SeqScans(Conn& c, const std::string& table) {
  return StatCount(c, "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = ?", table);
}

// What a write below a folder, trashing, restoring and deleting run on
// the tree, on a drive of 5,000 nodes: none of it may read every node (or
// every version or dead property). Each is run seven times, past the five
// custom plans after which PostgreSQL may keep one generic plan for a
// prepared statement; then their results are checked.
TEST_F(PgPlanTest, TreeWalksReadNoTableWhole) {
  sqlite::SqliteTxn t(*c_);
  const int64_t before = SeqScans(*c_, "nodes");
  const int64_t versions_before = SeqScans(*c_, "file_versions");
  const int64_t props_before = SeqScans(*c_, "dead_props");
  // Folder 3 (below the root, 1) holds nodes 200..299; 300.. are below 4.
  for (int i = 0; i < 7; ++i) {
    const int64_t folder = 250 + i;
    ASSERT_TRUE(t.BumpAncestors(folder, 10 + i, 1).ok());
    auto chain = t.Ancestors(folder);
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    ASSERT_EQ(chain->size(), 3u);
    EXPECT_EQ((*chain)[0].id, folder);
    EXPECT_EQ((*chain)[1].id, 3);
    EXPECT_EQ((*chain)[2].id, 1);
    auto manifests = t.SubtreeManifests(3);  // of the versions of 3 and its 100 members
    ASSERT_TRUE(manifests.ok()) << manifests.status().ToString();
    EXPECT_EQ(manifests->size(), 101u);
    ASSERT_TRUE(t.InnerTrashRoots(3).ok());
    ASSERT_TRUE(t.MarkSubtreeTrashed(3).ok());
    ASSERT_TRUE(t.UnmarkSubtreeTrashed(3).ok());
    auto gone = t.DeleteSubtree(4900 + i);  // a leaf
    ASSERT_TRUE(gone.ok()) << gone.status().ToString();
    EXPECT_EQ(*gone, 1);
  }
  EXPECT_EQ(SeqScans(*c_, "nodes"), before);
  EXPECT_EQ(SeqScans(*c_, "file_versions"), versions_before);
  EXPECT_EQ(SeqScans(*c_, "dead_props"), props_before);

  // What they did (these counts read the tables whole).
  auto count = [&](const char* q) {
    auto s = c_->Prepare(q);
    EXPECT_TRUE(s.ok());
    if (!s.ok()) return int64_t{-1};
    auto row = s->Step();
    return row.ok() && *row ? s->Int(0) : int64_t{-1};
  };
  EXPECT_EQ(count("SELECT size FROM nodes WHERE id = 1"), 7);
  EXPECT_EQ(count("SELECT size FROM nodes WHERE id = 3"), 7);
  EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE id BETWEEN 4900 AND 4906"), 0);
  ASSERT_TRUE(t.MarkSubtreeTrashed(3).ok());
  EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE trash_root = 3"), 101);
  ASSERT_TRUE(t.UnmarkSubtreeTrashed(3).ok());
  EXPECT_EQ(count("SELECT count(*) FROM nodes WHERE trash_root IS NOT NULL"), 0);
  auto gone = t.DeleteSubtree(3);
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(*gone, 101);
  EXPECT_EQ(count("SELECT count(*) FROM file_versions WHERE node_id BETWEEN 200 AND 299"), 0);
}

// A drive of two folders, one of 5,000 files: the statistics then say a
// folder has thousands of members, and a lookup by parent is planned as a
// scan. Trashing, restoring and deleting a file still read no table whole
// (a file has no members to look for).
TEST_F(PgPlanTest, AFileInABigFolderIsTrashedWithoutAScan) {
  ASSERT_NO_FATAL_FAILURE(
      ExecAll({"TRUNCATE nodes CASCADE",
               "INSERT INTO nodes (id, public_id, drive_id, parent_id, name, name_key, kind, mime, "
               "mtime, ctime) VALUES (1, 'n1', 1, NULL, '', '', 0, '', 0, 0), "
               "(2, 'n2', 1, 1, 'a', 'a', 0, '', 0, 0), (3, 'n3', 1, 1, 'b', 'b', 0, '', 0, 0)",
               "INSERT INTO nodes (id, public_id, drive_id, parent_id, name, name_key, kind, "
               "manifest_id, mime, mtime, ctime) SELECT g, 'n' || g, 1, CASE WHEN g < 5010 THEN 2 "
               "ELSE 3 END, 'f' || g, 'f' || g, 1, 1, '', 0, 0 FROM generate_series(10, 5019) g",
               "ANALYZE"}));
  sqlite::SqliteTxn t(*c_);
  const int64_t before = SeqScans(*c_, "nodes");
  for (int i = 0; i < 7; ++i) {
    ASSERT_TRUE(t.MarkSubtreeTrashed(10 + i).ok());
    ASSERT_TRUE(t.UnmarkSubtreeTrashed(10 + i).ok());
    auto manifests = t.SubtreeManifests(30 + i);
    ASSERT_TRUE(manifests.ok()) << manifests.status().ToString();
    EXPECT_EQ(manifests->size(), 1u);
    auto gone = t.DeleteSubtree(20 + i);
    ASSERT_TRUE(gone.ok()) << gone.status().ToString();
    EXPECT_EQ(*gone, 1);
  }
  EXPECT_EQ(SeqScans(*c_, "nodes"), before);
}

// The grant check of every request a non-owner makes below a share: the
// node's chain of ancestors joined with the grants on it. With thousands
// of grants (one person's folders each shared with someone), it must still
// look the chain's grants up by node, not read every grant or every node.
TEST_F(PgPlanTest, AGrantCheckReadsNoTableWhole) {
  ASSERT_NO_FATAL_FAILURE(ExecAll(
      {"INSERT INTO users (id, public_id, username, name_key, display_name, password_hash, "
       "role, created_at) VALUES (2, 'u2', 'u2', 'u2', 'u2', 'x', 'user', 0)",
       "INSERT INTO grants (public_id, node_id, grantee_user, role, created_by, created_at) "
       "SELECT 'g' || g, g, 2, 1 + g % 3, 1, 0 FROM generate_series(2, 4000) g",
       // Groups 1..500, each granted one of the folders; group 7 the root.
       "INSERT INTO user_groups (id, public_id, name, name_key, created_at) "
       "SELECT g, 'grp' || g, 'grp' || g, 'grp' || g, 0 FROM generate_series(1, 500) g",
       "INSERT INTO grants (public_id, node_id, grantee_group, role, created_by, created_at) "
       "SELECT 'gg' || g, CASE WHEN g = 7 THEN 1 ELSE 1000 + g END, g, 2, 1, 0 "
       "FROM generate_series(1, 500) g",
       "ANALYZE"}));
  sqlite::SqliteTxn t(*c_);
  const int64_t nodes_before = SeqScans(*c_, "nodes");
  const int64_t grants_before = SeqScans(*c_, "grants");
  for (int i = 0; i < 7; ++i) {
    // Node 4950 + i: its parent is 50 (granted), whose parent is 1 (not).
    auto hits = t.GrantsReaching(4950 + i, 2, {}, 0);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ((*hits)[0].node_id, 50);
    EXPECT_EQ((*hits)[0].role, 1 + 50 % 3);
    auto none = t.GrantsReaching(4950 + i, 1, {}, 0);  // the owner holds no grant
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_TRUE(none->empty());
    // Through groups: 7's grant on the root reaches; 8's (on 1008) does not.
    auto by_group = t.GrantsReaching(4950 + i, 1, {7, 8}, 0);
    ASSERT_TRUE(by_group.ok()) << by_group.status().ToString();
    ASSERT_EQ(by_group->size(), 1u);
    EXPECT_EQ((*by_group)[0].node_id, 1);
    EXPECT_EQ((*by_group)[0].role, 2);
    auto both = t.GrantsReaching(4950 + i, 2, {7}, 0);
    ASSERT_TRUE(both.ok()) << both.status().ToString();
    EXPECT_EQ(both->size(), 2u);
  }
  // A page of a hundred share-list entries decided at once: the chains of
  // nodes 4900..4999 (all below 50), looked up by node all the same.
  std::vector<int64_t> page;
  for (int64_t id = 4900; id < 5000; ++id) page.push_back(id);
  for (int i = 0; i < 7; ++i) {
    auto each = t.GrantsReachingEach(page, 2, {7}, 0);
    ASSERT_TRUE(each.ok()) << each.status().ToString();
    ASSERT_EQ(each->size(), 200u);
    std::map<int64_t, std::set<int64_t>> reached;
    for (const auto& [start, hit] : *each) reached[start].insert(hit.node_id);
    ASSERT_EQ(reached.size(), 100u);
    EXPECT_EQ(reached.begin()->first, 4900);
    EXPECT_EQ(reached[4999], (std::set<int64_t>{1, 50}));
  }
  EXPECT_EQ(SeqScans(*c_, "nodes"), nodes_before);
  EXPECT_EQ(SeqScans(*c_, "grants"), grants_before);
}

// A recipient's shared nodes, read at once on every request to their tree:
// by key, however many nodes the table holds.
TEST_F(PgPlanTest, ManyNodesAreReadByKey) {
  sqlite::SqliteTxn t(*c_);
  const int64_t before = SeqScans(*c_, "nodes");
  for (int i = 0; i < 7; ++i) {
    auto got = t.GetNodes({4990 + i, 3, 999999}, 1);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), 2u);
    EXPECT_EQ((*got)[0].id + (*got)[1].id, 4990 + i + 3);
  }
  EXPECT_EQ(SeqScans(*c_, "nodes"), before);
}

// Index scans PostgreSQL has made with `index`.
int64_t IdxScans(Conn& c, const std::string& index) {
  return StatCount(c, "SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = ?", index);
}

// A recipient's shares are named against their own items with one
// statement per folder: the asked names are probes of the sibling index
// (parent_id, name_key), not a walk of the folder's members.
TEST_F(PgPlanTest, TakenNamesAreProbedByKey) {
  sqlite::SqliteTxn t(*c_);
  const int64_t before = SeqScans(*c_, "nodes");
  const int64_t probes = IdxScans(*c_, "nodes_sibling_names");
  for (int i = 0; i < 7; ++i) {
    const std::string mine = "f" + std::to_string(250 + i);
    auto got = t.TakenChildKeys(3, {"f2", mine, "nope", "f310"});  // f2 and f310: other folders'
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, std::vector<std::string>{mine});
  }
  EXPECT_EQ(SeqScans(*c_, "nodes"), before);
  // One probe of the index per asked name, four names a call.
  EXPECT_EQ(IdxScans(*c_, "nodes_sibling_names"), probes + 7 * 4);
}

}  // namespace
}  // namespace nubo::meta::pg
