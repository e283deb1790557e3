#include "http/headers.h"

#include <algorithm>

#include "util/strings.h"

namespace nubo::http {

std::optional<std::string_view> Headers::Get(std::string_view name) const {
  for (const auto& [k, v] : fields_) {
    if (IEquals(k, name)) return std::string_view(v);
  }
  return std::nullopt;
}

std::optional<std::string> Headers::GetCombined(std::string_view name) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : fields_) {
    if (!IEquals(k, name)) continue;
    if (!out) {
      out = v;
    } else {
      *out += ", ";
      *out += v;
    }
  }
  return out;
}

void Headers::Add(std::string name, std::string value) {
  fields_.emplace_back(std::move(name), std::move(value));
}

void Headers::Set(std::string name, std::string value) {
  Remove(name);
  Add(std::move(name), std::move(value));
}

void Headers::Remove(std::string_view name) {
  std::erase_if(fields_, [&](const Field& f) { return IEquals(f.first, name); });
}

}  // namespace nubo::http
