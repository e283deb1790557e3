#include "meta/sqlite/sqlite_search.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "meta/migrations.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {
namespace {

using Ranked = std::vector<std::pair<int64_t, double>>;

// RankText against FTS5's own bm25() on a real SQLite file: the same rows in
// the same order with the same values, whatever the query's shape.
class RankTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("nubo-rank-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto c = Conn::Open((dir_ / "t.db").string(), 1000);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(*c);
    // The schema of migration 0014, then migration 0024 as shipped.
    ASSERT_TRUE(c_->Exec("CREATE VIRTUAL TABLE doc_text USING fts5 "
                         "(body, tokenize = 'unicode61 remove_diacritics 2')")
                    .ok());
    ASSERT_TRUE(c_->Exec(DocSizesMigration().c_str()).ok());
    ASSERT_TRUE(c_->Exec(MigrationSql(25).c_str()).ok());
  }
  static std::string MigrationSql(int version) {
    for (const auto& m : Migrations()) {
      if (m.version == version) return std::string(m.sql);
    }
    ADD_FAILURE() << "no migration " << version;
    return "";
  }
  static std::string DocSizesMigration() { return MigrationSql(24); }
  void TearDown() override {
    c_.reset();
    std::filesystem::remove_all(dir_);
  }

  // `record`: as PutText does; without, doc_sizes does not know the row
  // and ranking reads doc_text_docsize for it.
  void Put(int64_t id, const std::string& body, bool record = true) {
    {
      auto s = c_->Prepare("INSERT INTO doc_text (rowid, body) VALUES (?, ?)");
      ASSERT_TRUE(s.ok());
      s->Bind(1, id).Bind(2, body);
      ASSERT_TRUE(s->Exec().ok());
    }
    if (record) {
      ASSERT_TRUE(StoreTextSize(*c_, id).ok());
    }
  }

  // A corpus with a skewed vocabulary (a few words in most documents, many
  // in few), documents of different lengths and gaps in the rowids.
  void Corpus(int docs) {
    std::mt19937 rng(7);
    std::vector<std::string> vocab;
    for (int i = 0; i < 80; ++i) vocab.push_back("w" + std::to_string(i) + "x");
    std::vector<double> weights;
    for (int i = 0; i < 80; ++i) weights.push_back(1.0 / (i + 1));
    std::discrete_distribution<int> pick(weights.begin(), weights.end());
    std::uniform_int_distribution<int> len(3, 60);
    ASSERT_TRUE(c_->Exec("BEGIN").ok());
    for (int d = 0; d < docs; ++d) {
      std::string body;
      for (int k = len(rng); k > 0; --k) body += vocab[pick(rng)] + " ";
      if (d % 97 == 0) body += "alpha beta ";
      if (d % 41 == 0) body += "beta alpha ";
      if (d % 300 == 7) body += "zyzzyva ";
      // Ids over several doc_sizes buckets; every seventh row unknown there.
      Put(3 * d + 1 + (d % 3 == 0 ? 1 : 0), body, record_ && d % 7 != 3);
    }
    ASSERT_TRUE(c_->Exec("COMMIT").ok());
  }

  Ranked Native(const std::string& match) {
    auto s = c_->Prepare(
        "SELECT rowid, bm25(doc_text) AS r FROM doc_text WHERE doc_text MATCH ? ORDER BY r, rowid");
    EXPECT_TRUE(s.ok());
    s->Bind(1, match);
    Ranked out;
    for (;;) {
      auto row = s->Step();
      EXPECT_TRUE(row.ok()) << row.status().ToString();
      if (!row.ok() || !*row) return out;
      out.emplace_back(s->Int(0), s->Real(1));
    }
  }

  Ranked Ours(const std::string& match, const std::optional<std::pair<double, int64_t>>& after,
              size_t want, bool (*keep)(int64_t) = nullptr, RankTuning tuning = {}) {
    Ranked out;
    Status st = RankText(
        *c_, match, after, want,
        [&](int64_t id, double rank) -> Result<bool> {
          if (keep && !keep(id)) return false;
          out.emplace_back(id, rank);
          return true;
        },
        tuning);
    EXPECT_TRUE(st.ok()) << st.ToString();
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<Conn> c_;
  bool record_ = true;  // Corpus records sizes in doc_sizes (but every seventh)
};

const char* const kQueries[] = {
    "\"w0x\"",            // in nearly every document
    "\"w0x\"*",           // the same as a prefix
    "\"w1\"*",            // a prefix of several words (w1x, w10x … w19x)
    "\"w3x\" \"w0x\"",    // AND of two common words
    "\"w70x\" \"w0x\"*",  // a rare word with a common prefix
    "\"w2x\" \"w5x\" \"w9x\"",
    "\"alpha beta\"",       // a two-token phrase (order matters)
    "\"beta\" \"alpha\"",   // the same words as two phrases
    "\"w79x\"",             // less common: sparse ids, one lookup each
    "\"zyzzyva\"",          // rare
    "\"nothere\"",          // no match at all
    "\"w0x\" \"nothere\"",  // an AND that nothing satisfies
};

TEST_F(RankTextTest, SameRowsOrderAndValuesAsBm25) {
  Corpus(1500);
  for (const char* q : kQueries) {
    Ranked native = Native(q);
    Ranked ours = Ours(q, std::nullopt, 100000);
    EXPECT_EQ(
        Ours(q, std::nullopt, 100000, nullptr, {.quick_count = false, .reuse_buffers = false}),
        ours)
        << q;
    ASSERT_EQ(ours.size(), native.size()) << q;
    for (size_t i = 0; i < ours.size(); ++i) {
      EXPECT_EQ(ours[i].first, native[i].first) << q << " at " << i;
      EXPECT_EQ(ours[i].second, native[i].second) << q << " at " << i;  // bit for bit
    }
  }
  EXPECT_GT(Native("\"w0x\"").size(), 1000u);        // the corpus has a common word
  EXPECT_LT(Native("\"w79x\"").size() * 16, 4500u);  // … one whose ids are sparse
  EXPECT_EQ(Native("\"zyzzyva\"").size(), 5u);
}

// Instances are counted from the raw position list where FTS5's layout
// allows: gaps of one byte, of several (a gap of 127 is stored 0x81 0x01,
// whose 0x01 could be a column marker and is counted the slow way), and
// rows of each kind in one walk, first the short gaps.
TEST_F(RankTextTest, LongGapsBetweenInstancesCountTheSame) {
  const int gaps[] = {1, 2, 125, 126, 127, 128, 200, 16383, 16384, 20000};
  ASSERT_TRUE(c_->Exec("BEGIN").ok());
  int64_t id = 1;
  for (int g : gaps) {
    for (int times = 1; times <= 4; ++times) {
      std::string body = "zeta ";
      for (int t = 1; t < times; ++t) {
        for (int k = 1; k < g; ++k) body += "pad ";
        body += "zeta ";
      }
      for (int k = 0; k < (id % 5) * 3; ++k) body += "tail ";  // lengths differ too
      Put(id++, body);
    }
  }
  ASSERT_TRUE(c_->Exec("COMMIT").ok());
  for (const char* q : {"\"zeta\"", "\"zet\"*", "\"zeta\" \"pad\""}) {
    Ranked native = Native(q);
    ASSERT_FALSE(native.empty()) << q;
    EXPECT_EQ(Ours(q, std::nullopt, 100000), native) << q;
    EXPECT_EQ(
        Ours(q, std::nullopt, 100000, nullptr, {.quick_count = false, .reuse_buffers = false}),
        native)
        << q;
  }
  EXPECT_EQ(Native("\"zeta\"").size(), std::size(gaps) * 4);
}

TEST_F(RankTextTest, PagesAfterAKeysetJoinUpToTheWhole) {
  Corpus(400);
  for (const char* q : {"\"w0x\"", "\"w3x\" \"w0x\"", "\"alpha beta\""}) {
    Ranked native = Native(q);
    Ranked paged;
    std::optional<std::pair<double, int64_t>> after;
    for (int guard = 0; guard < 1000; ++guard) {
      Ranked page = Ours(q, after, 7);
      paged.insert(paged.end(), page.begin(), page.end());
      if (page.size() < 7) break;
      after = std::make_pair(page.back().second, page.back().first);
    }
    EXPECT_EQ(paged, native) << q;
  }
}

TEST_F(RankTextTest, RejectedRowsDoNotCountTowardsWant) {
  Corpus(300);
  Ranked native = Native("\"w0x\"");
  Ranked even;
  for (const auto& r : native) {
    if (r.first % 2 == 0 && even.size() < 10) even.push_back(r);
  }
  ASSERT_EQ(even.size(), 10u);
  EXPECT_EQ(Ours("\"w0x\"", std::nullopt, 10, [](int64_t id) { return id % 2 == 0; }), even);
}

TEST_F(RankTextTest, DeletedAndReplacedDocumentsAreRankedByTheirNewText) {
  Corpus(200);
  ASSERT_TRUE(c_->Exec("DELETE FROM doc_text WHERE rowid % 5 = 0").ok());
  Put(5, "w0x w0x w0x w0x w0x w0x w0x w0x");
  Ranked native = Native("\"w0x\"");
  EXPECT_EQ(Ours("\"w0x\"", std::nullopt, 100000), native);
  ASSERT_FALSE(native.empty());
  EXPECT_EQ(native.front().first, 5);
}

// Migration 0024 packs what doc_text_docsize holds: every slot of every
// row, and ranking from the packed rows alone equals bm25().
TEST_F(RankTextTest, TheMigrationPacksEveryDocumentsSize) {
  ASSERT_TRUE(c_->Exec("DROP TABLE doc_sizes").ok());
  record_ = false;
  Corpus(1500);
  ASSERT_TRUE(c_->Exec(DocSizesMigration().c_str()).ok());
  std::map<int64_t, std::string> packed;
  {
    auto s = c_->Prepare("SELECT bucket, sizes FROM doc_sizes");
    ASSERT_TRUE(s.ok());
    while (*s->Step()) packed[s->Int(0)] = s->Blob(1);
  }
  auto s = c_->Prepare("SELECT id, sz FROM doc_text_docsize");
  ASSERT_TRUE(s.ok());
  int rows = 0;
  while (*s->Step()) {
    const int64_t id = s->Int(0);
    size_t used = 0;
    auto blob = s->BlobView(1);
    auto want = ReadVarint(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), &used);
    ASSERT_TRUE(want.has_value());
    const std::string& b = packed[id >> 10];
    const size_t at = static_cast<size_t>(id & 1023) * 4;
    ASSERT_GE(b.size(), at + 4) << id;
    const auto* p = reinterpret_cast<const unsigned char*>(b.data()) + at;
    EXPECT_EQ(p[0] | (p[1] << 8) | (p[2] << 16) | (uint64_t{p[3]} << 24), *want) << id;
    ++rows;
  }
  EXPECT_EQ(rows, 1500);
  EXPECT_GT(packed.size(), 3u);
  for (const char* q : kQueries) EXPECT_EQ(Ours(q, std::nullopt, 100000), Native(q)) << q;
  // The ranking reads these rows: sizes of one token each change it.
  std::string ones;
  for (int i = 0; i < 1024; ++i) ones += std::string("\x01\0\0\0", 4);
  auto u = c_->Prepare("UPDATE doc_sizes SET sizes = ?1");
  ASSERT_TRUE(u.ok());
  u->BindBlob(1, ones);
  ASSERT_TRUE(u->Exec().ok());
  EXPECT_NE(Ours("\"w0x\"", std::nullopt, 100000), Native("\"w0x\""));
}

TEST_F(RankTextTest, APrefixOnlyTheWordHasIsDropped) {
  Corpus(300);
  Put(5000, "Zürich zurichsee w0x");
  auto adds_nothing = [&](const char* m) {
    auto r = PrefixAddsNothing(*c_, m);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  };
  EXPECT_TRUE(adds_nothing("\"w0x\"*"));  // no longer term starts with w0x
  EXPECT_TRUE(adds_nothing("\"W0X\"*"));  // folded as the index folds
  EXPECT_TRUE(adds_nothing("\"w3x\" \"w0x\"*"));
  EXPECT_FALSE(adds_nothing("\"w1\"*"));      // w1x, w10x …
  EXPECT_FALSE(adds_nothing("\"w0\"*"));      // w0x: the word is not a term
  EXPECT_FALSE(adds_nothing("\"zurich\"*"));  // zurichsee
  EXPECT_FALSE(adds_nothing("\"Zürich\"*"));  // the same, diacritics removed
  EXPECT_TRUE(adds_nothing("\"zurichsee\"*"));
  EXPECT_FALSE(adds_nothing("\"w0x\""));       // not a prefix query
  EXPECT_FALSE(adds_nothing("\"w0x w3x\"*"));  // two tokens
  EXPECT_FALSE(adds_nothing("\"a\"\"b\"*"));   // a quote inside: a\"b
  // Either way the answer is the prefix query's.
  for (const char* q : {"\"w0x\"*", "\"zurich\"*", "\"zurichsee\"*", "\"w1\"*"}) {
    EXPECT_EQ(Ours(q, std::nullopt, 100000), Native(q)) << q;
  }
}

// Rows written one transaction each leave many segments; compaction steps
// merge them until few are left, and the ranking is still bm25()'s.
TEST_F(RankTextTest, CompactionMergesSegmentsAndKeepsTheRanking) {
  // Without automerge every write's segment stays (until FTS5's crisis
  // merge at 16 a level): what a long-grown index looks like, quickly.
  ASSERT_TRUE(c_->Exec("INSERT INTO doc_text (doc_text, rank) VALUES ('automerge', 0)").ok());
  std::mt19937 rng(3);
  for (int d = 0; d < 400; ++d) {
    std::string body = "w0x";
    for (int k = static_cast<int>(rng() % 20); k > 0; --k)
      body += " w" + std::to_string(rng() % 9) + "x";
    Put(d + 1, body);  // autocommit: a segment each
  }
  auto segments = TextIndexSegments(*c_);
  ASSERT_TRUE(segments.ok());
  ASSERT_GT(*segments, kCompactAbove);
  const Ranked before = Native("\"w0x\" \"w3x\"");
  int steps = 0;
  for (;; ++steps) {
    ASSERT_LT(steps, 1000);
    auto more = CompactTextIndex(*c_, 2);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
  }
  EXPECT_GE(steps, 1);
  segments = TextIndexSegments(*c_);
  ASSERT_TRUE(segments.ok());
  EXPECT_LE(*segments, 2);
  EXPECT_EQ(Native("\"w0x\" \"w3x\""), before);
  EXPECT_EQ(Ours("\"w0x\" \"w3x\"", std::nullopt, 100000), before);
  auto again = CompactTextIndex(*c_, 50);  // nothing left to do
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(ReadVarintTest, DecodesSqliteVarints) {
  size_t used = 0;
  const unsigned char one[] = {0x05};
  EXPECT_EQ(ReadVarint(one, 1, &used), 5u);
  EXPECT_EQ(used, 1u);
  const unsigned char two[] = {0x81, 0x00};  // 128
  EXPECT_EQ(ReadVarint(two, 2, &used), 128u);
  EXPECT_EQ(used, 2u);
  const unsigned char nine[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(ReadVarint(nine, 9, &used), UINT64_MAX);
  EXPECT_EQ(used, 9u);
  EXPECT_EQ(ReadVarint(two, 1, &used), std::nullopt);  // cut short
  EXPECT_EQ(ReadVarint(nine, 8, &used), std::nullopt);
}

}  // namespace
}  // namespace nubo::meta::sqlite
