#include "meta/group_commit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace nubo::meta {
namespace {

using Commit = GroupCommit<int>;

void WaitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 5000 && !cond(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(cond());
}

TEST(GroupCommit, AloneRunsAlone) {
  std::vector<size_t> sizes;
  Commit c([&](std::vector<Commit::Entry*>& b) {
    sizes.push_back(b.size());
    for (auto* e : b) e->result = Status::Ok();
  });
  EXPECT_TRUE(c.Submit(1).ok());
  EXPECT_TRUE(c.Submit(2).ok());
  EXPECT_EQ(sizes, (std::vector<size_t>{1, 1}));
}

TEST(GroupCommit, WritersArrivingDuringACommitShareTheNextOne) {
  // The first batch holds until eight more writers queue behind it; they
  // must then run as one batch, each with its own result.
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  std::vector<std::vector<int>> batches;  // read after the threads joined
  Commit c([&](std::vector<Commit::Entry*>& b) {
    ++started;
    std::vector<int> items;
    for (auto* e : b) items.push_back(e->item);
    batches.push_back(items);
    if (b.size() == 1 && b[0]->item == 0) {
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    for (auto* e : b) {
      e->result = e->item % 3 == 0 && e->item != 0
                      ? Status::InvalidArgument(std::to_string(e->item))
                      : Status::Ok();
    }
  });
  std::thread first([&] { EXPECT_TRUE(c.Submit(0).ok()); });
  WaitFor([&] { return started == 1; });
  std::vector<Status> results(9);
  std::vector<std::thread> writers;
  for (int i = 1; i <= 8; ++i) writers.emplace_back([&, i] { results[i] = c.Submit(i); });
  WaitFor([&] { return c.waiting() == 8; });
  release = true;
  first.join();
  for (auto& t : writers) t.join();
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[1].size(), 8u);
  EXPECT_EQ(c.batches(), 2u);
  EXPECT_EQ(c.items(), 9u);
  for (int i = 1; i <= 8; ++i) {
    EXPECT_EQ(results[i].ok(), i % 3 != 0) << i;
    if (i % 3 == 0) {
      EXPECT_EQ(results[i].message(), std::to_string(i));
    }
  }
}

TEST(GroupCommit, AThrowingBatchFailsItsItemsAndDoesNotStallTheQueue) {
  bool fail = true;
  Commit c([&](std::vector<Commit::Entry*>& b) {
    if (fail) throw std::runtime_error("boom");
    for (auto* e : b) e->result = Status::Ok();
  });
  Status st = c.Submit(1);
  EXPECT_EQ(st.code(), Code::kInternal);
  fail = false;
  EXPECT_TRUE(c.Submit(2).ok());
}

TEST(GroupCommit, WritersArrivingWhileTheLeaderWaitsJoinItsBatch) {
  // The leader's wait before it takes the queue (another process's lock)
  // holds until four more writers queue: its batch must hold all five.
  std::atomic<bool> release{false};
  std::atomic<int> waits{0};
  std::vector<size_t> sizes;  // read after the threads joined
  Commit c(
      [&](std::vector<Commit::Entry*>& b) {
        sizes.push_back(b.size());
        for (auto* e : b) e->result = Status::Ok();
      },
      [&] {
        if (waits++ == 0) {
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      });
  std::thread first([&] { EXPECT_TRUE(c.Submit(0).ok()); });
  WaitFor([&] { return waits == 1; });
  std::vector<std::thread> writers;
  for (int i = 1; i <= 4; ++i) writers.emplace_back([&, i] { EXPECT_TRUE(c.Submit(i).ok()); });
  WaitFor([&] { return c.waiting() == 5; });  // the leader's own item is still queued
  release = true;
  first.join();
  for (auto& t : writers) t.join();
  EXPECT_EQ(sizes, (std::vector<size_t>{5}));
  EXPECT_EQ(c.batches(), 1u);
  // A wait that throws leaves the queue going: the batch still runs.
  Commit t(
      [](std::vector<Commit::Entry*>& b) {
        for (auto* e : b) e->result = Status::Ok();
      },
      [] { throw std::runtime_error("lock"); });
  EXPECT_TRUE(t.Submit(1).ok());
}

}  // namespace
}  // namespace nubo::meta
