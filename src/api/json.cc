#include "api/json.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>

namespace nubo::api {

namespace json = boost::json;

Result<JsonFields> ParseObject(std::string_view body,
                               const std::vector<std::pair<std::string, JsonType>>& allowed) {
  json::parse_options opts;
  opts.max_depth = 8;
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(body.data(), body.size()), ec, {}, opts);
  if (ec) return Status::InvalidArgument("malformed JSON: " + ec.message());
  if (!v.is_object()) return Status::InvalidArgument("the body must be a JSON object");
  JsonFields out;
  for (const auto& kv : v.as_object()) {
    std::string key(kv.key());
    auto spec = std::find_if(allowed.begin(), allowed.end(), [&](const auto& a) { return a.first == key; });
    if (spec == allowed.end()) return Status::InvalidArgument("unknown field '" + key + "'");
    const json::value& val = kv.value();
    if (val.is_null()) continue;
    switch (spec->second) {
      case JsonType::kString:
        if (!val.is_string()) return Status::InvalidArgument("field '" + key + "' must be a string");
        out.strings[key] = std::string(val.as_string().data(), val.as_string().size());
        break;
      case JsonType::kBool:
        if (!val.is_bool()) return Status::InvalidArgument("field '" + key + "' must be true or false");
        out.strings[key] = val.as_bool() ? "true" : "false";
        break;
      case JsonType::kInt:
        // Up to INT64_MAX: every integer nubo stores is a signed 64-bit column.
        if (val.is_int64() && val.as_int64() >= 0) {
          out.strings[key] = std::to_string(val.as_int64());
        } else if (val.is_uint64()) {
          return Status::InvalidArgument("field '" + key + "' is too large");
        } else {
          return Status::InvalidArgument("field '" + key + "' must be a non-negative integer");
        }
        break;
      case JsonType::kStringArray: {
        if (!val.is_array()) return Status::InvalidArgument("field '" + key + "' must be an array of strings");
        auto& list = out.arrays[key];
        for (const auto& item : val.as_array()) {
          if (!item.is_string()) {
            return Status::InvalidArgument("field '" + key + "' must be an array of strings");
          }
          list.emplace_back(item.as_string().data(), item.as_string().size());
        }
        break;
      }
    }
  }
  return out;
}

Result<JsonFields> ParseStringObject(std::string_view body, const std::vector<std::string>& allowed) {
  std::vector<std::pair<std::string, JsonType>> spec;
  for (const auto& k : allowed) spec.emplace_back(k, JsonType::kString);
  return ParseObject(body, spec);
}

}  // namespace nubo::api
