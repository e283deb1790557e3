// Fuzzes file-name normalization: anything accepted is valid, NFC-stable
// (normalizing again changes nothing) and within the limits.
#include <cstdint>
#include <string>
#include <string_view>

#include "files/names.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = nubo::files::NormalizeName(in);
  if (r.ok()) {
    FUZZ_CHECK(!r->empty() && r->size() <= nubo::files::kMaxNameBytes);
    FUZZ_CHECK(r->find('/') == std::string::npos);
    FUZZ_CHECK(r->find('\0') == std::string::npos);
    FUZZ_CHECK(*r != "." && *r != "..");
    auto again = nubo::files::NormalizeName(*r);
    FUZZ_CHECK(again.ok() && *again == *r);
    (void)nubo::files::NameKey(*r);
  }
  return 0;
}
