// An ordered, case-insensitive HTTP header list. Field order and repeated
// fields are kept as received (RFC 9110 §5.3). Not thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nubo::http {

class Headers {
 public:
  using Field = std::pair<std::string, std::string>;

  // The first value of `name`, or nullopt.
  std::optional<std::string_view> Get(std::string_view name) const;
  // All values of `name` joined with ", " (RFC 9110 §5.3 list combination);
  // nullopt when absent.
  std::optional<std::string> GetCombined(std::string_view name) const;
  bool Has(std::string_view name) const { return Get(name).has_value(); }

  void Add(std::string name, std::string value);
  // Replaces every `name` field with one field.
  void Set(std::string name, std::string value);
  void Remove(std::string_view name);

  const std::vector<Field>& fields() const { return fields_; }
  size_t size() const { return fields_.size(); }

 private:
  std::vector<Field> fields_;
};

}  // namespace nubo::http
