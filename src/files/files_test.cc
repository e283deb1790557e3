#include "files/files.h"

#include <gtest/gtest.h>

#include <set>

#include "auth/accounts.h"
#include "auth/test_support.h"
#include "blob/faulty_chunk_store.h"
#include "blob/mem/mem_chunk_store.h"
#include "content/fsck.h"
#include "content/reader.h"
#include "files/checksum.h"
#include "files/upload_sessions.h"
#include "meta/test_rerun.h"
#include "util/blake3_hash.h"
#include "util/mix.h"
#include "util/time.h"

namespace nubo::files {
namespace {

using meta::NodeRow;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto a = auth::CreateUser(*db_.store, {"alice", "correct horse battery"},
                              auth::testing::CheapParams());
    auto b = auth::CreateUser(*db_.store, {"bob", "correct horse battery"},
                              auth::testing::CheapParams());
    ASSERT_TRUE(a.ok() && b.ok());
    alice_ = auth::Principal::User(a->id, "alice");
    bob_ = auth::Principal::User(b->id, "bob");
    root_ = RootOf(alice_);
  }

  std::string RootOf(const auth::Principal& user) {
    auto d = files_.PersonalDrive(user);
    EXPECT_TRUE(d.ok());
    return d.ok() ? d->root_id : std::string();
  }

  Result<UploadResult> Put(const std::string& parent, const std::string& name,
                           const std::string& data, Conflict c = Conflict::kFail) {
    UploadRequest r;
    r.parent_id = parent;
    r.name = name;
    r.conflict = c;
    NUBO_ASSIGN_OR_RETURN(auto up, files_.BeginUpload(alice_, r));
    NUBO_RETURN_IF_ERROR(up->Write(data.data(), data.size()));
    return up->Finish();
  }

  uint64_t Used(const auth::Principal& user) { return files_.GetUsage(user)->used_bytes; }

  // Background jobs due now (-1: the read failed).
  static int64_t DueJobs(meta::MetaStore& store) {
    int64_t n = -1;
    EXPECT_TRUE(store
                    .Read([&](meta::ReadTxn& t) -> Status {
                      NUBO_ASSIGN_OR_RETURN(auto c, t.CountJobs(UnixMillis()));
                      n = c.due;
                      return Status::Ok();
                    })
                    .ok());
    return n;
  }

  void ExpectFsckClean() {
    auto r = content::Fsck(*db_.store, chunks_, false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& p : r->problems) ADD_FAILURE() << p;
  }

  auth::testing::TempMeta db_;
  blob::MemChunkStore chunks_;
  Files files_{*db_.store, chunks_, {}};
  auth::Principal alice_, bob_;
  std::string root_;
};

TEST_F(FilesTest, RollupsFollowEveryChange) {
  auto a = files_.CreateFolder(alice_, root_, "a", Conflict::kFail);
  auto b = files_.CreateFolder(alice_, a->public_id, "b", Conflict::kFail);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(Put(b->public_id, "x.bin", std::string(1000, 'x')).ok());
  ASSERT_TRUE(Put(a->public_id, "y.bin", std::string(10, 'y')).ok());
  EXPECT_EQ(files_.Get(alice_, a->public_id)->size, 1010u);
  EXPECT_EQ(Used(alice_), 1010u);
  // Overwrite shrinks; the rollup follows. The replaced content stays as
  // a version, charged its 1000 unshared bytes (files/versions.h).
  ASSERT_TRUE(Put(b->public_id, "x.bin", "small", Conflict::kOverwrite).ok());
  EXPECT_EQ(files_.Get(alice_, a->public_id)->size, 15u);
  constexpr uint64_t kVersion = 1000;
  EXPECT_EQ(files_.GetUsage(alice_)->versions_bytes, kVersion);
  // Move b to the root: a loses it, the root keeps it.
  ASSERT_TRUE(files_.Update(alice_, b->public_id, std::nullopt, root_, Conflict::kFail).ok());
  EXPECT_EQ(files_.Get(alice_, a->public_id)->size, 10u);
  EXPECT_EQ(Used(alice_), 15u + kVersion);
  // Trash does not count; restore counts again.
  ASSERT_TRUE(files_.Trash(alice_, b->public_id).ok());
  EXPECT_EQ(Used(alice_), 10u + kVersion);
  ASSERT_TRUE(files_.Restore(alice_, b->public_id).ok());
  EXPECT_EQ(Used(alice_), 15u + kVersion);
  // Copy adds its bytes (logical size: dedup does not credit); versions
  // stay with the original.
  ASSERT_TRUE(files_.Copy(alice_, b->public_id, a->public_id, std::nullopt, Conflict::kFail).ok());
  EXPECT_EQ(Used(alice_), 20u + kVersion);
  ASSERT_TRUE(files_.DeletePermanently(alice_, a->public_id).ok());
  EXPECT_EQ(Used(alice_), 5u + kVersion);
  // Deleting the file for good takes its versions along.
  ASSERT_TRUE(files_.DeletePermanently(alice_, b->public_id).ok());
  EXPECT_EQ(Used(alice_), 0u);
  ExpectFsckClean();
}

// A write may run more than once (meta_store.h): thinning reports the
// versions the committed run dropped, not the sum over every run.
TEST_F(FilesTest, ThinningCountsOnceWhenItsWriteRunsAgain) {
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(Put(root_, "v.txt", "content " + std::to_string(i), Conflict::kOverwrite).ok());
  }
  meta::RerunningStore twice(*db_.store);
  Files files(twice, chunks_, {});
  // A month on, the three versions made within one minute share one
  // hourly slot: two go.
  auto dropped = files.ThinVersions(UnixMillis() + 30LL * 24 * 3600'000);
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  EXPECT_GT(twice.reruns(), 0);
  EXPECT_EQ(*dropped, 2);
  ExpectFsckClean();
}

TEST_F(FilesTest, FolderETagChangesOnlyAlongTheChangedPath) {
  auto a = files_.CreateFolder(alice_, root_, "a", Conflict::kFail);
  auto b = files_.CreateFolder(alice_, root_, "b", Conflict::kFail);
  auto deep = files_.CreateFolder(alice_, a->public_id, "deep", Conflict::kFail);
  std::string ea = NodeETag(*files_.Get(alice_, a->public_id));
  std::string eb = NodeETag(*files_.Get(alice_, b->public_id));
  ASSERT_TRUE(Put(deep->public_id, "f", "1").ok());
  EXPECT_NE(NodeETag(*files_.Get(alice_, a->public_id)), ea);
  EXPECT_EQ(NodeETag(*files_.Get(alice_, b->public_id)), eb);
}

TEST_F(FilesTest, FileETagIsTheContentHashPrefix) {
  auto f = Put(root_, "e.txt", "etag me");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string want = "\"" + DigestHex(Blake3::Hash("etag me")).substr(0, 32) + "\"";
  EXPECT_EQ(NodeETag(f->node), want);
  std::string appended = "W/";
  AppendNodeETag(appended, f->node);
  EXPECT_EQ(appended, "W/" + want);
  auto folder = files_.Get(alice_, root_);
  ASSERT_TRUE(folder.ok());
  EXPECT_EQ(NodeETag(*folder), "\"t" + std::to_string(folder->tree_seq) + "\"");
}

// A small body already in hand skips BeginUpload's early checks: the
// commit must refuse the same uploads with the same answers, and keep none
// of their bytes.
TEST_F(FilesTest, ABodyInHandMeetsEveryCheckAtItsCommit) {
  ASSERT_TRUE(Put(root_, "taken.txt", "first").ok());
  auto folder = files_.CreateFolder(alice_, root_, "dir", Conflict::kFail);
  ASSERT_TRUE(folder.ok());
  struct Case {
    std::string what;
    auth::Principal who;
    std::string parent, name;
    Conflict conflict;
    std::optional<std::string> if_match;
    Code want;
  };
  const std::vector<Case> cases = {
      {"a stranger's folder", bob_, root_, "x.txt", Conflict::kFail, std::nullopt, Code::kNotFound},
      {"a taken name", alice_, root_, "taken.txt", Conflict::kFail, std::nullopt,
       Code::kAlreadyExists},
      {"a folder's name", alice_, root_, "dir", Conflict::kOverwrite, std::nullopt,
       Code::kConflict},
      {"a stale If-Match", alice_, root_, "taken.txt", Conflict::kOverwrite,
       std::string("\"stale\""), Code::kPreconditionFailed},
      {"If-Match on nothing", alice_, root_, "none.txt", Conflict::kOverwrite, std::string("\"x\""),
       Code::kPreconditionFailed},
      {"a missing folder", alice_, "nosuchfolder", "x.txt", Conflict::kFail, std::nullopt,
       Code::kNotFound},
  };
  for (const Case& c : cases) {
    for (bool in_hand : {false, true}) {
      const std::string body = c.what + (in_hand ? " in hand" : " streamed");
      UploadRequest r;
      r.parent_id = c.parent;
      r.name = c.name;
      r.conflict = c.conflict;
      r.if_match = c.if_match;
      r.expected_size = body.size();
      r.body_in_hand = in_hand;
      Status st;
      auto up = files_.BeginUpload(c.who, r);
      if (!up.ok()) {
        st = up.status();
      } else {
        st = (*up)->Write(body.data(), body.size());
        if (st.ok()) st = (*up)->Finish().status();
      }
      EXPECT_EQ(st.code(), c.want) << c.what << (in_hand ? " (in hand): " : ": ") << st.ToString();
      EXPECT_FALSE(chunks_.Stat(Blake3::Hash(body)).ok()) << c.what << ": its bytes were kept";
    }
  }
  auto kept = files_.Get(alice_, root_);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->child_count, 2);  // taken.txt and dir: nothing else was created
  // And the quota: exact at the commit, with no reservation taken first.
  ASSERT_TRUE(auth::SetQuota(*db_.store, "alice", Used(alice_) + 10).ok());
  UploadRequest r;
  r.parent_id = root_;
  r.name = "big.bin";
  r.expected_size = 11;
  r.body_in_hand = true;
  auto up = files_.BeginUpload(alice_, r);
  ASSERT_TRUE(up.ok());
  ASSERT_TRUE((*up)->Write("01234567890", 11).ok());
  EXPECT_EQ((*up)->Finish().status().code(), Code::kQuotaExceeded);
  r.name = "fits.bin";
  r.expected_size = 10;
  up = files_.BeginUpload(alice_, r);
  ASSERT_TRUE(up.ok());
  ASSERT_TRUE((*up)->Write("0123456789", 10).ok());
  EXPECT_TRUE((*up)->Finish().ok());
}

// A new file's upload answers with the row it wrote, not one read back:
// it must be the row a later read returns, field for field.
TEST_F(FilesTest, ANewFilesUploadAnswersWithTheStoredRow) {
  auto folder = files_.CreateFolder(alice_, root_, "in", Conflict::kFail);
  ASSERT_TRUE(folder.ok());
  auto f = Put(folder->public_id, "Größe.TXT", "bytes of a new file");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(f->created);
  auto got = files_.Get(alice_, f->node.public_id);
  ASSERT_TRUE(got.ok());
  const NodeRow& a = f->node;
  const NodeRow& b = *got;
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.public_id, b.public_id);
  EXPECT_EQ(a.drive_id, b.drive_id);
  EXPECT_EQ(a.parent_id, b.parent_id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.name_key, b.name_key);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.manifest_id, b.manifest_id);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.mime, b.mime);
  EXPECT_EQ(a.mtime_ms, b.mtime_ms);
  EXPECT_EQ(a.ctime_ms, b.ctime_ms);
  EXPECT_EQ(a.tree_seq, b.tree_seq);
  EXPECT_EQ(a.trashed_at_ms, b.trashed_at_ms);
  EXPECT_EQ(a.trash_root, b.trash_root);
  EXPECT_EQ(a.trash_parent, b.trash_parent);
  EXPECT_EQ(a.created_by, b.created_by);
  EXPECT_EQ(a.updated_by, b.updated_by);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.hash, Blake3::Hash("bytes of a new file"));
  EXPECT_EQ(a.favorite, b.favorite);
  EXPECT_EQ(a.parent_public_id, b.parent_public_id);
  EXPECT_EQ(a.parent_public_id, folder->public_id);
  EXPECT_EQ(a.sort_key, b.sort_key);
  EXPECT_EQ(a.child_count, b.child_count);
  EXPECT_EQ(NodeETag(a), NodeETag(b));
}

// Paging with ListOptions::reuse (each page written over the last one's
// rows, as a WebDAV listing does) gives the pages a fresh listing gives:
// folders then files, across the boundary between them, every field.
TEST_F(FilesTest, PagesWrittenOverEarlierPagesAreTheSame) {
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(files_.CreateFolder(alice_, root_, "d" + std::to_string(i), Conflict::kFail).ok());
  }
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Put(root_, "f" + std::to_string(i), "x").ok());
  std::vector<NodeRow> spare;
  std::string fresh_cursor, reused_cursor;
  size_t listed = 0;
  for (int pages = 0;; ++pages) {
    ASSERT_LT(pages, 10);
    auto fresh = files_.List(alice_, root_, meta::NodeSort::kName, false, fresh_cursor, 3);
    auto reused = files_.List(alice_, root_, meta::NodeSort::kName, false, reused_cursor, 3,
                              ListOptions{.reuse = &spare});
    ASSERT_TRUE(fresh.ok() && reused.ok());
    EXPECT_TRUE(spare.empty());
    ASSERT_EQ(fresh->items.size(), reused->items.size());
    for (size_t i = 0; i < fresh->items.size(); ++i) {
      const NodeRow& a = fresh->items[i];
      const NodeRow& b = reused->items[i];
      EXPECT_EQ(a.public_id, b.public_id);
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.manifest_id, b.manifest_id);
      EXPECT_EQ(a.hash, b.hash);
      EXPECT_EQ(a.parent_public_id, b.parent_public_id);
      EXPECT_EQ(b.parent_public_id, root_);
      EXPECT_EQ(NodeETag(a), NodeETag(b));
    }
    listed += reused->items.size();
    EXPECT_EQ(fresh->next_cursor, reused->next_cursor);
    if (reused->next_cursor.empty()) break;
    fresh_cursor = fresh->next_cursor;
    reused_cursor = reused->next_cursor;
    spare = std::move(reused->items);
  }
  EXPECT_EQ(listed, 9u);
}

TEST_F(FilesTest, MoveIntoOwnSubtreeIsRefused) {
  auto a = files_.CreateFolder(alice_, root_, "a", Conflict::kFail);
  auto b = files_.CreateFolder(alice_, a->public_id, "b", Conflict::kFail);
  auto c = files_.CreateFolder(alice_, b->public_id, "c", Conflict::kFail);
  for (const auto* target : {&*a, &*b, &*c}) {
    auto r = files_.Update(alice_, a->public_id, std::nullopt, target->public_id, Conflict::kFail);
    EXPECT_EQ(r.status().code(), Code::kConflict) << target->name;
    auto cp = files_.Copy(alice_, a->public_id, target->public_id, std::nullopt, Conflict::kFail);
    EXPECT_EQ(cp.status().code(), Code::kConflict) << target->name;
  }
  EXPECT_EQ(files_.Get(alice_, c->public_id)->parent_public_id, b->public_id);
}

TEST_F(FilesTest, OtherUsersSeeNothing) {
  auto f = Put(root_, "secret.txt", "s3cret");
  ASSERT_TRUE(f.ok());
  const std::string id = f->node.public_id;
  EXPECT_EQ(files_.Get(bob_, id).status().code(), Code::kNotFound);
  EXPECT_EQ(files_.Get(bob_, id).status().message(),
            files_.Get(bob_, "no-such-id").status().message());
  EXPECT_EQ(files_.OpenContent(bob_, id).status().code(), Code::kNotFound);
  EXPECT_EQ(files_.Trash(bob_, id).code(), Code::kNotFound);
  EXPECT_EQ(files_.DeletePermanently(bob_, id).code(), Code::kNotFound);
  EXPECT_EQ(files_.SetFavorite(bob_, id, true).code(), Code::kNotFound);
  EXPECT_EQ(files_.Copy(bob_, id, RootOf(bob_), std::nullopt, Conflict::kFail).status().code(),
            Code::kNotFound);
  EXPECT_EQ(files_.InstantUpload(bob_, {RootOf(bob_), "x"}, f->node.hash).status().code(),
            Code::kNotFound);
  EXPECT_TRUE(files_.Get(alice_, id).ok());
}

TEST_F(FilesTest, TrashHidesTheSubtreeAndRestoreRenames) {
  auto a = files_.CreateFolder(alice_, root_, "docs", Conflict::kFail);
  auto f = Put(a->public_id, "inner.txt", "inner");
  ASSERT_TRUE(files_.SetFavorite(alice_, f->node.public_id, true).ok());
  ASSERT_TRUE(files_.Trash(alice_, a->public_id).ok());
  EXPECT_EQ(files_.Get(alice_, f->node.public_id).status().code(), Code::kNotFound);
  EXPECT_TRUE(files_.ListFavorites(alice_, "", 10)->items.empty());
  meta::SearchFilter filter;
  EXPECT_TRUE(files_.Search(alice_, filter, "inner", "", 10)->items.empty());
  // The inner file cannot be restored on its own; the folder can.
  EXPECT_EQ(files_.Restore(alice_, f->node.public_id).status().code(), Code::kNotFound);
  ASSERT_TRUE(files_.CreateFolder(alice_, root_, "DOCS", Conflict::kFail).ok());
  auto back = files_.Restore(alice_, a->public_id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->name, "docs (1)");
  EXPECT_TRUE(files_.Get(alice_, f->node.public_id).ok());
  EXPECT_EQ(files_.ListFavorites(alice_, "", 10)->items.size(), 1u);
  ExpectFsckClean();
}

TEST_F(FilesTest, QuotaHoldsOnEveryWritePath) {
  ASSERT_TRUE(auth::SetQuota(*db_.store, "alice", 100).ok());
  auto f = Put(root_, "a.bin", std::string(60, 'a'));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(Put(root_, "b.bin", std::string(50, 'b')).status().code(), Code::kQuotaExceeded);
  EXPECT_EQ(files_.Copy(alice_, f->node.public_id, root_, std::nullopt, Conflict::kRename)
                .status()
                .code(),
            Code::kQuotaExceeded);
  EXPECT_EQ(files_.InstantUpload(alice_, {root_, "c.bin"}, f->node.hash).status().code(),
            Code::kQuotaExceeded);
  ASSERT_TRUE(files_.DeletePermanently(alice_, f->node.public_id).ok());
  auto x = Put(root_, "x.bin", std::string(30, 'x'));
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE(files_.Trash(alice_, x->node.public_id).ok());
  ASSERT_TRUE(Put(root_, "d.bin", std::string(75, 'd')).ok());
  EXPECT_EQ(files_.Restore(alice_, x->node.public_id).status().code(), Code::kQuotaExceeded);
  EXPECT_EQ(Used(alice_), 75u);
  ExpectFsckClean();
}

// Trashed bytes are on the disk: with a quota, the trash holds at most
// half of what the quota leaves free, and the oldest items go first.
TEST_F(FilesTest, TheTrashStaysWithinHalfOfTheFreeQuota) {
  ASSERT_TRUE(auth::SetQuota(*db_.store, "alice", 1000).ok());
  auto a = Put(root_, "a.bin", std::string(100, 'a'));
  auto b = Put(root_, "b.bin", std::string(100, 'b'));
  ASSERT_TRUE(Put(root_, "c.bin", std::string(100, 'c')).ok());
  ASSERT_TRUE(Put(root_, "d.bin", std::string(600, 'd')).ok());
  ASSERT_TRUE(files_.Trash(alice_, a->node.public_id).ok());  // free 200: budget 100, trash 100
  ASSERT_EQ(files_.ListTrash(alice_, "", 10)->items.size(), 1u);
  ASSERT_TRUE(files_.Trash(alice_, b->node.public_id).ok());  // free 300: budget 150, trash 200
  auto trash = files_.ListTrash(alice_, "", 10);
  ASSERT_TRUE(trash.ok());
  ASSERT_EQ(trash->items.size(), 1u);  // a, the oldest, went for good
  EXPECT_EQ(trash->items[0].public_id, b->node.public_id);
  EXPECT_EQ(Used(alice_), 700u);
  ExpectFsckClean();
}

TEST_F(FilesTest, ItemsTrashedOnTheirOwnOutliveTheirFoldersDelete) {
  // x is trashed from inside f, then f is trashed and deleted for good:
  // x is still the user's, in the trash, and restores to the root. The
  // same when g is deleted for good without going through the trash.
  auto f = files_.CreateFolder(alice_, root_, "f", Conflict::kFail);
  auto g = files_.CreateFolder(alice_, root_, "g", Conflict::kFail);
  auto inner = files_.CreateFolder(alice_, f->public_id, "inner", Conflict::kFail);
  auto x = Put(inner->public_id, "x.txt", "keep me");
  auto y = Put(g->public_id, "y.txt", "me too");
  auto gone = Put(f->public_id, "gone.txt", "bye");
  ASSERT_TRUE(x.ok() && y.ok() && gone.ok());
  ASSERT_TRUE(files_.Trash(alice_, x->node.public_id).ok());
  ASSERT_TRUE(files_.Trash(alice_, y->node.public_id).ok());
  ASSERT_TRUE(files_.Trash(alice_, f->public_id).ok());
  ASSERT_TRUE(files_.DeletePermanently(alice_, f->public_id).ok());
  ASSERT_TRUE(files_.DeletePermanently(alice_, g->public_id).ok());
  EXPECT_EQ(files_.Get(alice_, gone->node.public_id).status().code(), Code::kNotFound);
  auto trash = files_.ListTrash(alice_, "", 10);
  ASSERT_TRUE(trash.ok());
  std::set<std::string> names;
  for (const auto& n : trash->items) names.insert(n.name);
  EXPECT_EQ(names, (std::set<std::string>{"x.txt", "y.txt"}));
  auto back = files_.Restore(alice_, x->node.public_id);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->parent_public_id, root_);
  auto fc = files_.OpenContent(alice_, x->node.public_id);
  ASSERT_TRUE(fc.ok());
  EXPECT_EQ(fc->node.size, 7u);
  EXPECT_EQ(Used(alice_), 7u);
  ExpectFsckClean();
}

TEST_F(FilesTest, CopiesShareContentAndOutliveTheOriginal) {
  auto a = files_.CreateFolder(alice_, root_, "a", Conflict::kFail);
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 13);
  auto f = Put(a->public_id, "big.bin", data);
  ASSERT_TRUE(f.ok());
  auto copy = files_.Copy(alice_, a->public_id, root_, std::string("b"), Conflict::kFail);
  ASSERT_TRUE(copy.ok());
  ASSERT_TRUE(files_.DeletePermanently(alice_, a->public_id).ok());
  auto list = files_.List(alice_, copy->public_id, meta::NodeSort::kName, false, "", 10);
  ASSERT_EQ(list->items.size(), 1u);
  auto fc = files_.OpenContent(alice_, list->items[0].public_id);
  ASSERT_TRUE(fc.ok());
  auto r = content::ManifestReader::Open(chunks_, fc->chunks, fc->node.size, 0, fc->node.size);
  ASSERT_TRUE(r.ok());
  std::string back(data.size(), '\0');
  size_t got = 0;
  while (got < back.size()) {
    auto n = r->Read(back.data() + got, back.size() - got);
    ASSERT_TRUE(n.ok() && *n > 0);
    got += *n;
  }
  EXPECT_EQ(back, data);
  ExpectFsckClean();
}

TEST_F(FilesTest, FailedChunkWriteLeavesNoNode) {
  // A chunk store that fails: the upload errors and no node appears.
  blob::FaultPlan plan;
  plan.Arm(0, blob::FaultPlan::Fault::kEnospc, /*sticky=*/true);
  blob::FaultyChunkStore faulty(chunks_, plan);
  Files files(*db_.store, faulty, {});
  UploadRequest r;
  r.parent_id = root_;
  r.name = "doomed.bin";
  auto up = files.BeginUpload(alice_, r);
  ASSERT_TRUE(up.ok());
  std::string data(2 << 20, 'z');
  Status st = (*up)->Write(data.data(), data.size());
  Result<UploadResult> fin = st.ok() ? (*up)->Finish() : Result<UploadResult>(st);
  EXPECT_FALSE(fin.ok());
  EXPECT_TRUE(files_.List(alice_, root_, meta::NodeSort::kName, false, "", 10)->items.empty());
  ExpectFsckClean();
}

// A session made by CreateAndAppend (a Nextcloud chunk) is committed whole
// or not at all: nothing of it is stored while its body arrives, however
// long. Append (tus) commits a long body in stretches, so that a client
// whose connection drops resumes from the last one.
TEST_F(FilesTest, CreateAndAppendCommitsOnlyTheWholeBody) {
  UploadSessions sessions(files_, 3'600'000);
  const std::string block = PseudoRandomBytes(1 << 20, 7);
  constexpr uint64_t kBlocks = 65;  // past the 64 MiB between Append's commits
  SessionSpec part;
  part.kind = 1;
  part.target.name = "chunk-1";
  part.length = kBlocks * block.size();
  meta::UploadSessionRow row;
  auto whole = sessions.CreateAndAppend(alice_, part, row);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  for (uint64_t i = 0; i < kBlocks; ++i)
    ASSERT_TRUE((*whole)->Write(block.data(), block.size()).ok());
  EXPECT_EQ(sessions.Get(alice_, row.public_id, false).status().code(), Code::kNotFound);
  auto done = (*whole)->Finish();
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_EQ(done->offset, static_cast<int64_t>(kBlocks * block.size()));
  EXPECT_EQ(sessions.Get(alice_, row.public_id, false)->offset, done->offset);

  SessionSpec file;
  file.target.parent_id = root_;
  file.target.name = "resumable.bin";
  file.length = kBlocks * block.size();
  auto created = sessions.Create(alice_, file);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto stretch = sessions.Append(alice_, created->public_id, 0, nullptr);
  ASSERT_TRUE(stretch.ok()) << stretch.status().ToString();
  for (uint64_t i = 0; i < kBlocks; ++i)
    ASSERT_TRUE((*stretch)->Write(block.data(), block.size()).ok());
  EXPECT_GE(sessions.Get(alice_, created->public_id, false)->offset, 64 << 20);
  ASSERT_TRUE((*stretch)->Finish().ok());
  ExpectFsckClean();
}

// Joining partial uploads (a Nextcloud MOVE of .file) is one commit
// however many parts, and the caller's own writes ride in it: when they
// fail, nothing of the join is kept.
TEST_F(FilesTest, ConcatCommitsOnceWithTheCallersWrites) {
  UploadSessions sessions(files_, 3'600'000);
  std::vector<std::string> ids;
  std::string all;
  for (int i = 0; i < 5; ++i) {
    const std::string bytes = PseudoRandomBytes(300'000 + 7919 * i, 20 + i);
    all += bytes;
    SessionSpec part;
    part.kind = 1;
    part.target.name = "chunk-" + std::to_string(i);
    part.length = bytes.size();
    meta::UploadSessionRow row;
    auto up = sessions.CreateAndAppend(alice_, part, row);
    ASSERT_TRUE(up.ok()) << up.status().ToString();
    ASSERT_TRUE((*up)->Write(bytes.data(), bytes.size()).ok());
    ASSERT_TRUE((*up)->Finish().ok());
    ids.push_back(row.public_id);
  }
  SessionSpec file;
  file.target.parent_id = root_;
  file.target.name = "joined.bin";
  auto refused = sessions.Concat(alice_, file, ids, std::nullopt, nullptr,
                                 [](meta::WriteTxn&) { return Status::Conflict("refused"); });
  EXPECT_EQ(refused.status().code(), Code::kConflict);
  for (const auto& id : ids) EXPECT_TRUE(sessions.Get(alice_, id, false).ok());
  EXPECT_TRUE(files_.List(alice_, root_, meta::NodeSort::kName, false, "", 10)->items.empty());

  const auto before = db_.store->Stats();
  bool ran = false;
  auto done = sessions.Concat(alice_, file, ids, std::nullopt, nullptr, [&](meta::WriteTxn&) {
    ran = true;
    return Status::Ok();
  });
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_TRUE(ran);
  EXPECT_EQ(db_.store->Stats().commits - before.commits, 1u);
  EXPECT_EQ(done->file.node.size, all.size());
  EXPECT_EQ(done->file.node.hash, Blake3::Hash(all));
  for (const auto& id : ids) {
    EXPECT_EQ(sessions.Get(alice_, id, false).status().code(), Code::kNotFound);
  }
  auto final_s = sessions.Get(alice_, done->session.public_id, false);
  ASSERT_TRUE(final_s.ok()) << final_s.status().ToString();
  EXPECT_EQ(final_s->result_node, done->file.node.public_id);
  ExpectFsckClean();
}

// A derive job that could do nothing for the file it was queued for is
// dropped in the transaction that writes the file; a rename into a type it
// reads queues one.
TEST_F(FilesTest, DeriveJobsStayOnlyForFilesTheyCanRead) {
  FilesOptions o;
  o.derive_wanted = [](std::string_view name, std::string_view) { return name.ends_with(".txt"); };
  Files files(*db_.store, chunks_, o);
  auto due = [&] { return DueJobs(*db_.store); };
  auto put = [&](const std::string& name, const std::string& data) {
    UploadRequest r;
    r.parent_id = root_;
    r.name = name;
    r.conflict = Conflict::kOverwrite;
    auto up = files.BeginUpload(alice_, r);
    EXPECT_TRUE(up.ok());
    EXPECT_TRUE((*up)->Write(data.data(), data.size()).ok());
    auto done = (*up)->Finish();
    EXPECT_TRUE(done.ok()) << done.status().ToString();
    return done.ok() ? done->node : NodeRow{};
  };
  const NodeRow a = put("a.bin", "binary");
  EXPECT_EQ(due(), 0);
  put("b.txt", "words");
  EXPECT_EQ(due(), 1);
  put("a.bin", "other binary");  // new content, still nothing to read
  EXPECT_EQ(due(), 1);
  auto renamed =
      files.Update(alice_, a.public_id, std::string("a.txt"), std::nullopt, Conflict::kFail, {});
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(due(), 2);
  // Without the option every job stays, as the database queued it.
  Files plain(*db_.store, chunks_, {});
  UploadRequest r;
  r.parent_id = root_;
  r.name = "c.bin";
  auto up = plain.BeginUpload(alice_, r);
  ASSERT_TRUE(up.ok() && (*up)->Write("x", 1).ok() && (*up)->Finish().ok());
  EXPECT_EQ(due(), 3);
}

// On SQLite the triggers ask the store's derive_wanted before they queue a
// job (migration 0032): here the upload drops nothing (no FilesOptions
// filter), so only the triggers can keep the jobs out — for a new file and
// for new content. A store opened without the option queues every file.
TEST_F(FilesTest, SqlitesTriggersQueueNoJobForAFileTheStoreDoesNotWant) {
  meta::SqliteOptions so;
  so.derive_wanted = [](std::string_view name, std::string_view mime) {
    EXPECT_FALSE(mime.empty());
    return name.ends_with(".txt");
  };
  auto store = meta::OpenSqlite((db_.dir / "m.db").string(), so);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Files files(**store, chunks_, {});
  auto due = [&] { return DueJobs(**store); };
  auto put = [&](Files& f, const std::string& name, const std::string& data) {
    UploadRequest r;
    r.parent_id = root_;
    r.name = name;
    r.conflict = Conflict::kOverwrite;
    auto up = f.BeginUpload(alice_, r);
    ASSERT_TRUE(up.ok()) << up.status().ToString();
    ASSERT_TRUE((*up)->Write(data.data(), data.size()).ok());
    auto done = (*up)->Finish();
    ASSERT_TRUE(done.ok()) << done.status().ToString();
  };
  put(files, "a.bin", "binary");
  EXPECT_EQ(due(), 0);
  put(files, "b.txt", "words");
  EXPECT_EQ(due(), 1);
  put(files, "a.bin", "other binary");  // new content: the update's trigger asks too
  EXPECT_EQ(due(), 1);
  put(files, "b.txt", "other words");  // the same job again, one row
  EXPECT_EQ(due(), 1);
  put(files_, "c.bin", "x");  // this fixture's store has no derive_wanted
  EXPECT_EQ(due(), 2);
}

}  // namespace
}  // namespace nubo::files
