// libical trees as calendar_data.cc and itip.cc walk them: owning pointers,
// snapshots of a component's members (libical keeps one cursor per
// component, so nested walks and edits would disturb each other), the
// cheap pre-parse bound, and printing without libical's own remarks.
// Internal to src/groupware: only those two files include it (it includes
// libical, which nothing else may). Thread-safe: functions of their
// arguments; libical's thread-local errno is cleared by ErrnoScope.
#pragma once

#include <libical/ical.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace nubo::groupware::ical {

struct ComponentFree {
  void operator()(icalcomponent* c) const { icalcomponent_free(c); }
};
using ComponentPtr = std::unique_ptr<icalcomponent, ComponentFree>;
struct BufferFree {
  void operator()(char* p) const { icalmemory_free_buffer(p); }
};
using BufferPtr = std::unique_ptr<char, BufferFree>;

// libical reports through a thread-local errno that nothing here reads;
// clearing it on entry and exit keeps one call's failures out of the next.
class ErrnoScope {
 public:
  ErrnoScope() { icalerror_clear_errno(); }
  ~ErrnoScope() { icalerror_clear_errno(); }
  ErrnoScope(const ErrnoScope&) = delete;
  ErrnoScope& operator=(const ErrnoScope&) = delete;
};

char Lower(char c);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// Counts "BEGIN" in the text with line breaks and blanks dropped, so that
// no folding hides one: an over-estimate of the components to come
// (libical frees and prints trees recursively, so their number is bounded
// before parsing).
size_t CountBegins(std::string_view data);

// Snapshots of a component's members of `kind`.
std::vector<icalcomponent*> Children(icalcomponent* c,
                                     icalcomponent_kind kind = ICAL_ANY_COMPONENT);
std::vector<icalproperty*> Props(icalcomponent* c, icalproperty_kind kind = ICAL_ANY_PROPERTY);
icalproperty* FirstProp(icalcomponent* c, icalproperty_kind kind);
void RemoveProps(icalcomponent* c, icalproperty_kind kind);

// Prints the tree (CRLF lines) without the X-LIC-ERROR properties libical's
// parser leaves where it skipped something: they are its remarks, not the
// sender's data.
std::string Serialize(icalcomponent* root);

}  // namespace nubo::groupware::ical
