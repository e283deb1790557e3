// Fuzzes HTTP-date parsing; every accepted date must format and re-parse
// to the same instant.
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "util/time.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto t = nubo::ParseHttpDate(in);
  if (t) {
    auto again = nubo::ParseHttpDate(nubo::FormatHttpDate(*t));
    FUZZ_CHECK(again && *again == *t);
  }
  return 0;
}
