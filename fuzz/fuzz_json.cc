// Fuzzes JSON request bodies (api/json.h): any bytes give a result or a
// reason, never a crash; an accepted object holds only allowed keys, each
// of its declared type.
#include <cstdint>
#include <string_view>

#include "api/json.h"
#include "fuzz/fuzz_check.h"
#include "util/strings.h"

using nubo::api::JsonType;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto f = nubo::api::ParseObject(body, {{"name", JsonType::kString},
                                         {"size", JsonType::kInt},
                                         {"on", JsonType::kBool},
                                         {"ids", JsonType::kStringArray}});
  if (!f.ok()) {
    FUZZ_CHECK(!f.status().message().empty());
    return 0;
  }
  for (const auto& [k, v] : f->strings) {
    FUZZ_CHECK(k == "name" || k == "size" || k == "on");
    if (k == "size") FUZZ_CHECK(nubo::ParseUint64(v).has_value());
    if (k == "on") FUZZ_CHECK(v == "true" || v == "false");
  }
  for (const auto& [k, v] : f->arrays) FUZZ_CHECK(k == "ids");
  auto s = nubo::api::ParseStringObject(body, {"name", "mode"});
  if (s.ok()) {
    for (const auto& [k, v] : s->strings) FUZZ_CHECK(k == "name" || k == "mode");
  }
  return 0;
}
