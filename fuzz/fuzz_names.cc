// Fuzzes file-name validation: anything accepted is returned unchanged,
// within the limits, and has a key that every canonically equivalent
// spelling shares (the key of the key is itself).
#include <cstdint>
#include <string>
#include <string_view>

#include "files/names.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto r = nubo::files::ValidateName(in);
  if (r.ok()) {
    FUZZ_CHECK(*r == in);
    FUZZ_CHECK(!r->empty() && r->size() <= nubo::files::kMaxNameBytes);
    FUZZ_CHECK(r->find('/') == std::string::npos);
    FUZZ_CHECK(r->find('\0') == std::string::npos);
    FUZZ_CHECK(*r != "." && *r != "..");
    const std::string key = nubo::files::NameKey(*r);
    FUZZ_CHECK(nubo::files::NameKey(key) == key);
  }
  return 0;
}
