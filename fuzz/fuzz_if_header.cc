// Fuzzes the RFC 4918 §10.4 If header: parsing never crashes, evaluation is
// deterministic, resolves each resource at most once, and obeys the algebra
// of §10.4.3 (adding "(Not <DAV:no-lock>)" makes an untagged header true).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "dav/if_header.h"
#include "fuzz/fuzz_check.h"

namespace {

// A deterministic world derived from the path's bytes.
nubo::dav::IfResourceState StateOf(std::string_view path) {
  nubo::dav::IfResourceState st;
  size_t h = std::hash<std::string_view>()(path);
  st.exists = h % 4 != 0;
  st.etag = h % 3 == 0 ? "W/\"w\"" : "\"" + std::to_string(h % 7) + "\"";
  st.lock_tokens = {"urn:uuid:" + std::to_string(h % 5), std::string(nubo::dav::kNoLockToken)};
  return st;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo::dav;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto h = ParseIfHeader(in);
  if (!h.ok()) return 0;
  FUZZ_CHECK(!h->groups.empty());
  for (const auto& g : h->groups) {
    FUZZ_CHECK(g.resource.has_value() == h->tagged);
    FUZZ_CHECK(!g.lists.empty());
    for (const auto& l : g.lists) FUZZ_CHECK(!l.conditions.empty());
  }

  std::map<std::string, int> calls;
  auto resolve = [&](std::string_view p) {
    FUZZ_CHECK(++calls[std::string(p)] == 1);  // cached per evaluation
    return StateOf(p);
  };
  bool first = EvaluateIf(*h, "/dav/req", resolve);
  calls.clear();
  FUZZ_CHECK(EvaluateIf(*h, "/dav/req", resolve) == first);

  if (!h->tagged) {
    IfHeader always = *h;
    IfCondition c;
    c.negated = true;
    c.value = std::string(kNoLockToken);
    always.groups[0].lists.push_back(IfList{{c}});
    calls.clear();
    FUZZ_CHECK(EvaluateIf(always, "/dav/req", resolve));
  }

  for (const auto& t : SubmittedLockTokens(*h)) {
    FUZZ_CHECK(t != kNoLockToken);
    FUZZ_CHECK(in.find(t) != std::string_view::npos);
  }
  return 0;
}
