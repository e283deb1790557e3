// JSON request bodies for the REST API: the only code that includes
// Boost.JSON. Requests are small flat objects; anything else is refused
// with a reason. Thread-safe (pure).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace nubo::api {

struct JsonFields {
  std::map<std::string, std::string> strings;
  std::map<std::string, std::vector<std::string>> arrays;  // kStringArray fields
  std::optional<std::string> Get(const std::string& key) const {
    auto it = strings.find(key);
    return it == strings.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
};

enum class JsonType { kString, kBool, kInt, kStringArray };

// Parses `body` as a JSON object whose keys are all in `allowed`, each
// value of its declared type (null counts as absent). Values come back as
// text: booleans "true"/"false", integers in decimal. InvalidArgument names
// the problem.
Result<JsonFields> ParseObject(std::string_view body,
                               const std::vector<std::pair<std::string, JsonType>>& allowed);

// Parses `body` as a JSON object whose keys are all in `allowed` and whose
// values are all strings (null counts as absent). InvalidArgument names the
// problem: malformed JSON, not an object, unknown field, wrong type.
Result<JsonFields> ParseStringObject(std::string_view body, const std::vector<std::string>& allowed);

}  // namespace nubo::api
