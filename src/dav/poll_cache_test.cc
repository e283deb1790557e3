#include "dav/poll_cache.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "http/body.h"
#include "meta/sqlite/sqlite_store.h"
#include "util/ids.h"

namespace nubo::dav {
namespace {

namespace fs = std::filesystem;

class PollCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nubo-poll-" + RandomHex(6));
    fs::create_directories(dir_);
    auto s = meta::OpenSqlite((dir_ / "meta.db").string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  static http::Response Answer(std::string body) {
    http::Response r;
    r.status = 207;
    r.headers.Set("Content-Type", "application/xml; charset=utf-8");
    r.headers.Set("X-Extra", "1");
    r.body = std::move(body);
    return r;
  }

  fs::path dir_;
  std::unique_ptr<meta::MetaStore> store_;
};

int64_t fake_now_ms = 0;
int64_t FakeNow() { return fake_now_ms; }

TEST_F(PollCacheTest, AnEntryAnswersForASecondAtMostWhateverTheStamp) {
  // Shares and links that expire end with the clock, not with a write.
  PollCache cache(*store_, 1 << 20, FakeNow);
  fake_now_ms = 50'000;
  cache.Store("k", 5, Answer("<a/>"));
  fake_now_ms += PollCache::kMaxAgeMs - 1;
  EXPECT_TRUE(cache.Find("k", 5).has_value());
  fake_now_ms += 1;
  EXPECT_FALSE(cache.Find("k", 5).has_value());
  EXPECT_EQ(cache.bytes(), 0u);
  // Kept again, it answers again for as long.
  cache.Store("k", 5, Answer("<b/>"));
  fake_now_ms += PollCache::kMaxAgeMs - 1;
  auto hit = cache.Find("k", 5);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->body, "<b/>");
}

TEST_F(PollCacheTest, AnswersOnlyAtTheStampItWasStoredAt) {
  PollCache cache(*store_, 1 << 20);
  ASSERT_TRUE(cache.Stamp().has_value());
  EXPECT_FALSE(cache.Find("k", 5).has_value());
  cache.Store("k", 5, Answer("<a/>"));
  auto hit = cache.Find("k", 5);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->status, 207);
  EXPECT_EQ(hit->body, "<a/>");
  EXPECT_EQ(hit->headers.Get("Content-Type").value_or(""), "application/xml; charset=utf-8");
  EXPECT_EQ(hit->headers.Get("X-Extra").value_or(""), "1");
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_FALSE(cache.Find("other", 5).has_value());
  // Another stamp: the entry is stale and goes.
  EXPECT_FALSE(cache.Find("k", 6).has_value());
  EXPECT_FALSE(cache.Find("k", 5).has_value());
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_EQ(cache.hits(), 1u);
}

TEST_F(PollCacheTest, AnAnswerReadEarlierNeverReplacesANewerOne) {
  PollCache cache(*store_, 1 << 20);
  cache.Store("k", 7, Answer("new"));
  cache.Store("k", 6, Answer("old"));
  ASSERT_TRUE(cache.Find("k", 7).has_value());
  EXPECT_EQ(cache.Find("k", 7)->body, "new");
  cache.Store("k", 8, Answer("newer"));
  EXPECT_EQ(cache.Find("k", 8)->body, "newer");
}

TEST_F(PollCacheTest, KeepsNoStreamedOrOversizedAnswer) {
  PollCache cache(*store_, 1 << 20);
  http::Response streamed = Answer("");
  struct Empty final : http::BodySource {
    std::optional<uint64_t> Size() const override { return 0; }
    Result<size_t> Read(char*, size_t) override { return size_t{0}; }
  };
  streamed.source = std::make_unique<Empty>();
  cache.Store("s", 1, streamed);
  EXPECT_FALSE(cache.Find("s", 1).has_value());
  cache.Store("big", 1, Answer(std::string(PollCache::kMaxBody + 1, 'x')));
  EXPECT_FALSE(cache.Find("big", 1).has_value());
  cache.Store(std::string(PollCache::kMaxKey + 1, 'k'), 1, Answer("<a/>"));
  EXPECT_EQ(cache.bytes(), 0u);
}

TEST_F(PollCacheTest, StaysWithinItsBytesOldestLeavingFirst) {
  PollCache cache(*store_, 4096);
  for (int i = 0; i < 40; ++i)
    cache.Store("k" + std::to_string(i), 1, Answer(std::string(500, 'x')));
  EXPECT_LE(cache.bytes(), 4096u);
  EXPECT_FALSE(cache.Find("k0", 1).has_value());
  EXPECT_TRUE(cache.Find("k39", 1).has_value());
}

TEST_F(PollCacheTest, TheStoresStampMovesWithACommit) {
  PollCache cache(*store_, 1 << 20);
  cache.Stamp();
  const auto before = cache.Stamp();
  ASSERT_TRUE(before.has_value());
  cache.Store("k", *before, Answer("<a/>"));
  EXPECT_TRUE(cache.Find("k", *cache.Stamp()).has_value());
  ASSERT_TRUE(store_
                  ->Write([](meta::WriteTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(int64_t id,
                                          t.InsertManifest(Blake3::Hash("m"), 0, {}, 0));
                    return t.InsertPin("p", id);
                  })
                  .ok());
  EXPECT_FALSE(cache.Find("k", *cache.Stamp()).has_value());
}

}  // namespace
}  // namespace nubo::dav
