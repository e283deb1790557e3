#include "groupware/ical_tree.h"

namespace nubo::groupware::ical {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

size_t CountBegins(std::string_view data) {
  static constexpr std::string_view kBegin = "begin";
  size_t count = 0, matched = 0;
  for (char c : data) {
    if (c == '\r' || c == '\n' || c == ' ' || c == '\t') continue;
    matched = Lower(c) == kBegin[matched] ? matched + 1 : (Lower(c) == 'b' ? 1 : 0);
    if (matched == kBegin.size()) {
      ++count;
      matched = 0;
    }
  }
  return count;
}

std::vector<icalcomponent*> Children(icalcomponent* c, icalcomponent_kind kind) {
  std::vector<icalcomponent*> out;
  for (icalcomponent* k = icalcomponent_get_first_component(c, kind); k;
       k = icalcomponent_get_next_component(c, kind)) {
    out.push_back(k);
  }
  return out;
}

std::vector<icalproperty*> Props(icalcomponent* c, icalproperty_kind kind) {
  std::vector<icalproperty*> out;
  for (icalproperty* p = icalcomponent_get_first_property(c, kind); p;
       p = icalcomponent_get_next_property(c, kind)) {
    out.push_back(p);
  }
  return out;
}

icalproperty* FirstProp(icalcomponent* c, icalproperty_kind kind) {
  return icalcomponent_get_first_property(c, kind);
}

void RemoveProps(icalcomponent* c, icalproperty_kind kind) {
  for (icalproperty* p : Props(c, kind)) {
    icalcomponent_remove_property(c, p);
    icalproperty_free(p);
  }
}

std::string Serialize(icalcomponent* root) {
  std::vector<icalcomponent*> todo = {root};
  while (!todo.empty()) {
    icalcomponent* c = todo.back();
    todo.pop_back();
    RemoveProps(c, ICAL_XLICERROR_PROPERTY);
    for (icalcomponent* k : Children(c)) todo.push_back(k);
  }
  BufferPtr s(icalcomponent_as_ical_string_r(root));
  return s ? std::string(s.get()) : std::string();
}

}  // namespace nubo::groupware::ical
