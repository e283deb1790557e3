#include "util/dynlib.h"

#include <gtest/gtest.h>

#include <cstring>

namespace nubo::util {
namespace {

TEST(DynLib, LoadsTypedSymbols) {
  DynLib lib("libc.so.6", "libc6");
  decltype(&::strlen) my_strlen = nullptr;
  lib.Load(my_strlen, "strlen");
  ASSERT_TRUE(lib.ok()) << lib.error();
  ASSERT_NE(my_strlen, nullptr);
  EXPECT_EQ(my_strlen("nubo"), 4u);
}

TEST(DynLib, MissingLibraryNamesItsPackage) {
  DynLib lib("libnubo-absent.so.9", "libnubo-absent9");
  decltype(&::strlen) fn = &::strlen;
  lib.Load(fn, "strlen");
  EXPECT_FALSE(lib.ok());
  EXPECT_EQ(fn, nullptr);  // never a stale pointer
  EXPECT_NE(lib.error().find("libnubo-absent.so.9"), std::string::npos) << lib.error();
  EXPECT_NE(lib.error().find("Debian package libnubo-absent9"), std::string::npos) << lib.error();
}

TEST(DynLib, MissingSymbolIsAnError) {
  DynLib lib("libc.so.6", "libc6");
  decltype(&::strlen) a = nullptr;
  decltype(&::strlen) b = nullptr;
  lib.Load(a, "strlen");
  lib.Load(b, "nubo_no_such_symbol");
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(b, nullptr);
  EXPECT_FALSE(lib.ok());
  EXPECT_NE(lib.error().find("lacks nubo_no_such_symbol"), std::string::npos) << lib.error();
}

}  // namespace
}  // namespace nubo::util
