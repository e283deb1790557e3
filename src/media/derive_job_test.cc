#include "media/derive_job.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "auth/accounts.h"
#include "auth/test_support.h"
#include "blob/mem/mem_chunk_store.h"
#include "files/files.h"
#include "jobs/runner.h"
#include "search/query.h"
#include "util/time.h"

namespace nubo::media {
namespace {

using auth::Principal;
using files::Conflict;

// The full-text index end to end on a real SQLite store: uploads queue
// jobs through the database's triggers, the runner drains them, and
// SearchContent answers through the files domain's authorization.
class DeriveJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = auth::CreateUser(*db_.store, {"alice", "correct horse battery"},
                              auth::testing::CheapParams());
    auto b = auth::CreateUser(*db_.store, {"bob", "correct horse battery"},
                              auth::testing::CheapParams());
    ASSERT_TRUE(a.ok() && b.ok());
    alice_ = Principal::User(a->id, "alice");
    bob_ = Principal::User(b->id, "bob");
    root_ = files_.PersonalDrive(alice_)->root_id;
    topt_.tmp_dir = db_.dir.string();
    topt_.derived_dir = (db_.dir / "derived").string();
    topt_.helper = "/nonexistent/nubo-derive";
    runner_.Handle("derive", [this](const meta::JobRow& j) { return derive_.Run(j); });
  }

  std::string Put(const std::string& name, const std::string& data, Conflict c = Conflict::kFail) {
    return PutIn(alice_, root_, name, data, c);
  }
  std::string PutIn(const Principal& who, const std::string& parent, const std::string& name,
                    const std::string& data, Conflict c = Conflict::kFail) {
    files::UploadRequest r;
    r.parent_id = parent;
    r.name = name;
    r.conflict = c;
    auto up = files_.BeginUpload(who, r);
    EXPECT_TRUE(up.ok());
    EXPECT_TRUE((*up)->Write(data.data(), data.size()).ok());
    auto done = (*up)->Finish();
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    return done.ok() ? done->node.public_id : std::string();
  }

  std::vector<std::string> Find(const Principal& who, const std::string& q) {
    auto page = files_.SearchContent(who, q, "", 50);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::string> names;
    if (page.ok()) {
      for (const auto& r : page->items) names.push_back(r.node.name);
    }
    return names;
  }

  meta::JobCounts Counts() {
    meta::JobCounts c;
    EXPECT_TRUE(db_.store
                    ->Read([&](meta::ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(c, t.CountJobs(UnixMillis()));
                      return Status::Ok();
                    })
                    .ok());
    return c;
  }

  auth::testing::TempMeta db_;
  blob::MemChunkStore chunks_;
  files::Files files_{*db_.store, chunks_, {}};
  ThumbnailOptions topt_;
  Thumbnails thumbs_{*db_.store, chunks_, topt_};
  DeriveJob derive_{*db_.store, chunks_, thumbs_};
  jobs::Runner runner_{*db_.store, {}};
  Principal alice_, bob_;
  std::string root_;
};

TEST_F(DeriveJobTest, UploadsAreIndexedByTheQueue) {
  Put("notes.md", "# Plans\nThe quarterly gazebo budget is due on Friday.");
  Put("page.html", "<p>Visit the <b>gazebo</b> museum</p><script>var hidden='zeppelin';</script>");
  Put("photo.bin", std::string("\0\1\2 gazebo", 10));
  EXPECT_EQ(Counts().due, 3);
  EXPECT_TRUE(Find(alice_, "gazebo").empty());  // nothing before the jobs ran
  auto ran = runner_.Drain();
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(*ran, 3);
  EXPECT_EQ(Counts().due, 0);
  EXPECT_EQ(Counts().done, 3);
  auto found = Find(alice_, "gazebo");
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{"notes.md", "page.html"}));
  EXPECT_TRUE(Find(alice_, "zeppelin").empty());  // script text is not content
  // A prefix of the last word matches (results while typing).
  EXPECT_EQ(Find(alice_, "quarterly gaze").size(), 1u);
  // The snippet marks the matched word.
  auto page = files_.SearchContent(alice_, "budget", "", 10);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 1u);
  auto segs = search::SplitSnippet(page->items[0].snippet);
  bool marked = false;
  for (const auto& s : segs) marked |= s.match && s.text == "budget";
  EXPECT_TRUE(marked) << page->items[0].snippet;
}

// Snippets come from the words as typed first and from the prefix query
// when a document holds only a longer word: both are marked.
TEST_F(DeriveJobTest, SnippetsMarkTheWordOrTheLongerWordItStarts) {
  Put("exact.txt", "the harvest festival starts at noon");
  Put("longer.txt", "harvesting begins after the rain");
  ASSERT_TRUE(runner_.Drain().ok());
  auto page = files_.SearchContent(alice_, "harvest", "", 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->items.size(), 2u);
  std::map<std::string, std::vector<std::string>> marked;
  for (const auto& r : page->items) {
    for (const auto& s : search::SplitSnippet(r.snippet)) {
      if (s.match) marked[r.node.name].push_back(s.text);
    }
  }
  EXPECT_EQ(marked["exact.txt"], std::vector<std::string>{"harvest"});
  EXPECT_EQ(marked["longer.txt"], std::vector<std::string>{"harvesting"});
}

// One ranking over every drive the caller searches: pages interleave its
// personal and shared drive by rank, and another user's better-ranked
// document neither shows nor takes a place on a page.
TEST_F(DeriveJobTest, RankedAcrossTheCallersDrivesOnly) {
  files::FilesOptions o;
  o.users_create_drives = true;
  files::Files team_files{*db_.store, chunks_, o};
  auto team = team_files.CreateDrive(alice_, "team", std::nullopt);
  ASSERT_TRUE(team.ok()) << team.status().ToString();
  auto bob_root = files_.PersonalDrive(bob_);
  ASSERT_TRUE(bob_root.ok());
  // Same length, k times the word: a larger k ranks better.
  auto text = [](int k) {
    std::string s;
    for (int i = 0; i < 8; ++i) s += i < k ? "ember " : ("filler" + std::to_string(i) + " ");
    return s;
  };
  PutIn(bob_, bob_root->root_id, "k7.txt", text(7));
  for (int k = 1; k <= 6; ++k) {
    PutIn(alice_, k % 2 ? root_ : team->root_id, "k" + std::to_string(k) + ".txt", text(k));
  }
  ASSERT_TRUE(runner_.Drain().ok());
  std::vector<std::string> paged;
  std::string cursor;
  for (int guard = 0; guard < 10; ++guard) {
    auto page = files_.SearchContent(alice_, "ember", cursor, 2);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_LE(page->items.size(), 2u);
    for (const auto& r : page->items) paged.push_back(r.node.name);
    cursor = page->next_cursor;
    if (cursor.empty()) break;
  }
  EXPECT_EQ(paged,
            (std::vector<std::string>{"k6.txt", "k5.txt", "k4.txt", "k3.txt", "k2.txt", "k1.txt"}));
  EXPECT_EQ(Find(bob_, "ember"), std::vector<std::string>{"k7.txt"});
}

TEST_F(DeriveJobTest, AnotherUserNeverFindsIt) {
  Put("secret.txt", "the launch code is marmalade");
  ASSERT_TRUE(runner_.Drain().ok());
  EXPECT_EQ(Find(alice_, "marmalade").size(), 1u);
  EXPECT_TRUE(Find(bob_, "marmalade").empty());
}

TEST_F(DeriveJobTest, NewContentReplacesOldWordsAtOnce) {
  Put("a.txt", "alpha bravo");
  ASSERT_TRUE(runner_.Drain().ok());
  EXPECT_EQ(Find(alice_, "alpha").size(), 1u);
  Put("a.txt", "charlie delta", Conflict::kOverwrite);
  // The old text is gone with the old content, before any job runs.
  EXPECT_TRUE(Find(alice_, "alpha").empty());
  ASSERT_TRUE(runner_.Drain().ok());
  EXPECT_EQ(Find(alice_, "charlie").size(), 1u);
  EXPECT_TRUE(Find(alice_, "alpha").empty());
}

TEST_F(DeriveJobTest, TrashedFilesAreNotFoundAndDeletedOnesLeaveNoText) {
  std::string id = Put("t.txt", "xylophone");
  const int64_t node_id = files_.Get(alice_, id)->id;
  ASSERT_TRUE(runner_.Drain().ok());
  ASSERT_TRUE(files_.Trash(alice_, id).ok());
  EXPECT_TRUE(Find(alice_, "xylophone").empty());
  ASSERT_TRUE(files_.Restore(alice_, id).ok());
  EXPECT_EQ(Find(alice_, "xylophone").size(), 1u);
  ASSERT_TRUE(files_.Trash(alice_, id).ok());
  ASSERT_TRUE(files_.EmptyTrash(alice_).ok());
  bool has = true;
  ASSERT_TRUE(db_.store
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(has, t.HasText(node_id));
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_FALSE(has);  // the row went with the node (trigger)
}

// ---- The queue's own rules (jobs/runner.h) on the same database ----

TEST_F(DeriveJobTest, FailuresBackOffThenPark) {
  Put("f.txt", "x");
  jobs::Runner r(*db_.store, {.max_attempts = 3, .first_backoff_ms = 0});
  int calls = 0;
  r.Handle("derive", [&](const meta::JobRow&) {
    ++calls;
    return Status::IoError("disk on fire");
  });
  auto ran = r.Drain();
  ASSERT_TRUE(ran.ok());
  EXPECT_EQ(calls, 3);  // then parked, never taken again
  EXPECT_EQ(*r.Drain(), 0);
  std::vector<meta::JobRow> failing;
  ASSERT_TRUE(db_.store
                  ->Read([&](meta::ReadTxn& t) -> Status {
                    NUBO_ASSIGN_OR_RETURN(failing, t.ListRetryingJobs(10));
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_EQ(failing.size(), 1u);
  EXPECT_EQ(failing[0].attempts, 3);
  EXPECT_NE(failing[0].last_error.find("disk on fire"), std::string::npos);
  EXPECT_EQ(Counts().failed, 3);
  // A new upload of the file asks again: the job is due once more.
  Put("f.txt", "y", Conflict::kOverwrite);
  EXPECT_EQ(Counts().due, 1);
}

TEST_F(DeriveJobTest, AFinalErrorRetiresTheJob) {
  Put("g.txt", "x");
  jobs::Runner r(*db_.store, {});
  r.Handle("derive", [](const meta::JobRow&) { return Status::NotFound("gone"); });
  EXPECT_EQ(*r.Drain(), 1);
  EXPECT_EQ(Counts().due + Counts().retrying, 0);
}

TEST_F(DeriveJobTest, ARequestDuringTheRunIsNotLost) {
  Put("h.txt", "first");
  jobs::Runner r(*db_.store, {});
  int calls = 0;
  r.Handle("derive", [&](const meta::JobRow& j) {
    // The file changes while its job runs: the job must run again.
    if (++calls == 1) Put("h.txt", "second", Conflict::kOverwrite);
    return derive_.Run(j);
  });
  EXPECT_EQ(*r.Drain(), 2);
  EXPECT_EQ(Find(alice_, "second").size(), 1u);
  EXPECT_TRUE(Find(alice_, "first").empty());
}

// Idle workers poll with reads: a server with nothing to do takes no
// writer lock. After a job, the next claim goes first; a streak that runs
// dry costs one empty claim, not one per poll.
TEST_F(DeriveJobTest, IdlePollsWriteNothing) {
  Put("p.txt", "polled words");
  jobs::Runner runner(*db_.store, {.workers = 1, .idle_poll_ms = 5});
  runner.Handle("derive", [this](const meta::JobRow& j) { return derive_.Run(j); });
  runner.Start();
  for (int i = 0; i < 400 && runner.done() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(runner.done(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the streak ends
  const uint64_t writes = db_.store->Stats().writes;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // ~40 idle polls
  EXPECT_EQ(db_.store->Stats().writes, writes);
  EXPECT_EQ(Find(alice_, "polled"), std::vector<std::string>{"p.txt"});
}

TEST_F(DeriveJobTest, ALapsedLeaseLetsAnotherWorkerTakeTheJob) {
  Put("i.txt", "x");
  const int64_t now = UnixMillis();
  std::optional<meta::JobRow> a, b, c;
  auto claim = [&](int64_t at) {
    std::optional<meta::JobRow> j;
    EXPECT_TRUE(db_.store
                    ->Write([&](meta::WriteTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(j, t.ClaimJob(at, 60'000));
                      return Status::Ok();
                    })
                    .ok());
    return j;
  };
  a = claim(now);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->attempts, 1);  // the claimed row as it is now
  EXPECT_EQ(a->lease_until_ms, now + 60'000);
  b = claim(now + 1000);  // held: a worker that died still holds it
  EXPECT_FALSE(b.has_value());
  c = claim(now + 61'000);  // its lease lapsed
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->id, a->id);
  EXPECT_EQ(c->attempts, 2);
}

TEST_F(DeriveJobTest, PagesFollowTheRanking) {
  for (int i = 0; i < 7; ++i) {
    std::string body = "common";
    for (int k = 0; k < i; ++k) body += " common";
    body += " filler text number " + std::to_string(i);
    Put("doc" + std::to_string(i) + ".txt", body);
  }
  ASSERT_TRUE(runner_.Drain().ok());
  std::vector<std::string> all = Find(alice_, "common");
  ASSERT_EQ(all.size(), 7u);
  std::vector<std::string> paged;
  std::string cursor;
  for (int guard = 0; guard < 10; ++guard) {
    auto page = files_.SearchContent(alice_, "common", cursor, 3);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    for (const auto& r : page->items) paged.push_back(r.node.name);
    cursor = page->next_cursor;
    if (cursor.empty()) break;
  }
  EXPECT_EQ(paged, all);
  EXPECT_FALSE(files_.SearchContent(alice_, "common", "zz", 3).ok());
  EXPECT_FALSE(files_.SearchContent(alice_, "   ", "", 3).ok());
}

TEST_F(DeriveJobTest, QuerySyntaxIsNeverAnError) {
  Put("q.txt", "plain words here");
  ASSERT_TRUE(runner_.Drain().ok());
  for (const char* q : {"\"", "a OR", "NEAR(", "body:x", "*", "(", "^", "-x", "AND AND"}) {
    auto page = files_.SearchContent(alice_, q, "", 5);
    EXPECT_TRUE(page.ok()) << q << ": " << page.status().ToString();
  }
}

TEST_F(DeriveJobTest, NameSearchThroughTheTrigramIndexMatchesTheScan) {
  for (const char* n :
       {"Report 2024.pdf", "report-final.txt", "Übersicht.txt", "ab.txt", "annual REPORT.docx"}) {
    Put(n, "x");
  }
  auto names = [&](const std::string& q) {
    auto page = files_.Search(alice_, {}, q, "", 50);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::string> out;
    for (const auto& n : page->items) out.push_back(n.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names("report"), (std::vector<std::string>{"Report 2024.pdf", "annual REPORT.docx",
                                                       "report-final.txt"}));
  EXPECT_EQ(names("ÜBER"), (std::vector<std::string>{"Übersicht.txt"}));
  EXPECT_EQ(names("ab"), (std::vector<std::string>{"ab.txt"}));  // short: the scan
  EXPECT_EQ(names("t 20"), (std::vector<std::string>{"Report 2024.pdf"}));
  // A rename moves the name in the index.
  auto page = files_.Search(alice_, {}, "final", "", 5);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 1u);
  ASSERT_TRUE(files_
                  .Update(alice_, page->items[0].public_id, std::string("draft.txt"), std::nullopt,
                          Conflict::kFail, {})
                  .ok());
  EXPECT_TRUE(names("final").empty());
  EXPECT_EQ(names("draft"), (std::vector<std::string>{"draft.txt"}));
}

}  // namespace
}  // namespace nubo::media
