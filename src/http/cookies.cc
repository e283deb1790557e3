#include "http/cookies.h"

#include "util/strings.h"

namespace nubo::http {

std::optional<std::string> GetCookie(const Headers& headers, std::string_view name) {
  for (const auto& [k, v] : headers.fields()) {
    if (!IEquals(k, "Cookie")) continue;
    for (std::string_view pair : Split(v, ';')) {
      pair = Trim(pair);
      size_t eq = pair.find('=');
      if (eq == std::string_view::npos) continue;
      if (Trim(pair.substr(0, eq)) == name) {
        std::string_view val = Trim(pair.substr(eq + 1));
        if (val.size() >= 2 && val.front() == '"' && val.back() == '"') val = val.substr(1, val.size() - 2);
        return std::string(val);
      }
    }
  }
  return std::nullopt;
}

std::string SetCookieValue(std::string_view name, std::string_view value, const CookieOptions& o) {
  std::string out(name);
  out += '=';
  out += value;
  out += "; Path=" + o.path;
  if (o.max_age_s >= 0) out += "; Max-Age=" + std::to_string(o.max_age_s);
  if (o.http_only) out += "; HttpOnly";
  if (o.secure) out += "; Secure";
  if (!o.same_site.empty()) out += "; SameSite=" + o.same_site;
  return out;
}

}  // namespace nubo::http
