#include "auth/principal.h"

namespace nubo::auth {

std::string ScopeNames(uint32_t scopes) {
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {kScopeFiles, "files"}, {kScopeGroupware, "groupware"}, {kScopeAccount, "account"},
      {kScopeAdmin, "admin"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (!(scopes & bit)) continue;
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

}  // namespace nubo::auth
