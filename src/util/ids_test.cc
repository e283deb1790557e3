#include "util/ids.h"

#include <gtest/gtest.h>

#include <set>

namespace nubo {
namespace {

TEST(Ids, UuidV7Shape) {
  std::string u = NewUuidV7();
  ASSERT_EQ(u.size(), 36u);
  EXPECT_EQ(u[8], '-');
  EXPECT_EQ(u[13], '-');
  EXPECT_EQ(u[14], '7');  // version
  EXPECT_TRUE(u[19] == '8' || u[19] == '9' || u[19] == 'a' || u[19] == 'b');  // variant
}

TEST(Ids, UuidV7SortsByTimeAndIsUnique) {
  std::set<std::string> seen;
  std::string prev;
  for (int i = 0; i < 1000; ++i) {
    std::string u = NewUuidV7();
    EXPECT_TRUE(seen.insert(u).second);
    // The 48-bit millisecond prefix never goes backwards.
    EXPECT_GE(u.substr(0, 13), prev.substr(0, std::min<size_t>(13, prev.size())));
    prev = u;
  }
}

TEST(Ids, RandomHex) {
  EXPECT_EQ(RandomHex(16).size(), 32u);
  EXPECT_NE(RandomHex(16), RandomHex(16));
}

}  // namespace
}  // namespace nubo
