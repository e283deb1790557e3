#include "api/json.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <algorithm>

namespace nubo::api {

namespace json = boost::json;

Result<JsonFields> ParseStringObject(std::string_view body, const std::vector<std::string>& allowed) {
  json::parse_options opts;
  opts.max_depth = 8;
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(body.data(), body.size()), ec, {}, opts);
  if (ec) return Status::InvalidArgument("malformed JSON: " + ec.message());
  if (!v.is_object()) return Status::InvalidArgument("the body must be a JSON object");
  JsonFields out;
  for (const auto& kv : v.as_object()) {
    std::string key(kv.key());
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return Status::InvalidArgument("unknown field '" + key + "'");
    }
    if (kv.value().is_null()) continue;
    if (!kv.value().is_string()) return Status::InvalidArgument("field '" + key + "' must be a string");
    const auto& str = kv.value().as_string();
    out.strings[key] = std::string(str.data(), str.size());
  }
  return out;
}

}  // namespace nubo::api
