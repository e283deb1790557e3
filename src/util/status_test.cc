#include "util/status.h"

#include <cerrno>
#include <set>

#include <gtest/gtest.h>

#include "util/posix_error.h"

namespace nubo {
namespace {

Result<int> Half(int v) {
  if (v % 2) return Status::InvalidArgument("odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  NUBO_ASSIGN_OR_RETURN(int h, Half(v));
  return Half(h);
}

TEST(Status, OkAndErrors) {
  EXPECT_TRUE(Status().ok());
  Status nf = Status::NotFound("no such file");
  EXPECT_FALSE(nf.ok());
  EXPECT_EQ(nf.code(), Code::kNotFound);
  EXPECT_EQ(nf.ToString(), "not_found: no such file");
  EXPECT_EQ(nf.WithContext("open").message(), "open: no such file");
  EXPECT_EQ(Status().ToString(), "ok");
}

TEST(Status, ResultPropagates) {
  EXPECT_EQ(*Quarter(8), 2);
  auto r = Quarter(6);  // 6/2 = 3 is odd
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
}

TEST(Status, CodeNamesAreDistinct) {
  std::set<std::string_view> names;
  for (int c = 0; c <= static_cast<int>(Code::kInternal); ++c) {
    names.insert(CodeName(static_cast<Code>(c)));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(Code::kInternal) + 1);
}

TEST(PosixError, MapsErrno) {
  EXPECT_EQ(PosixError("x", ENOENT).code(), Code::kNotFound);
  EXPECT_EQ(PosixError("x", EEXIST).code(), Code::kAlreadyExists);
  EXPECT_EQ(PosixError("x", ENOSPC).code(), Code::kResourceExhausted);
  EXPECT_EQ(PosixError("x", EACCES).code(), Code::kPermissionDenied);
  EXPECT_EQ(PosixError("x", EIO).code(), Code::kIoError);
  EXPECT_EQ(PosixError("open /a", ENOENT).message(), "open /a: No such file or directory");
}

}  // namespace
}  // namespace nubo
