// vCard 3.0 (RFC 2426) and 4.0 (RFC 6350) parsing, our own: line
// unfolding (§3.2), property groups, parameters (quoted values, multiple
// values, RFC 6868 ^-escapes), value escaping (\\, \n, \,, \;), and the
// checks CardDAV (RFC 6352 §5.1) makes before it stores a card. Hostile
// input safe: bounded lines, properties and nesting, never reads out of
// bounds; fuzzed (fuzz/fuzz_vcard.cc). Thread-safe: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "groupware/text_match.h"
#include "util/status.h"

namespace nubo::groupware {

struct VCardParam {
  std::string name;                 // upper case
  std::vector<std::string> values;  // unquoted, ^-escapes decoded
};

struct VCardProperty {
  std::string group;  // "" or the group before the dot (item1.EMAIL → "item1")
  std::string name;   // upper case
  std::vector<VCardParam> params;
  std::string value;  // raw (still escaped) value, as on the line after unfolding
  // The value with escapes decoded (\n → LF, \, → , …); for text matching.
  std::string Text() const;
  // The first value of a parameter, or "" (name compared case-insensitively).
  std::string Param(std::string_view name) const;
};

struct VCard {
  std::string version;               // "3.0" or "4.0"
  std::vector<VCardProperty> props;  // in order, BEGIN/END excluded
  // The first property called `name` (upper case), or null.
  const VCardProperty* Find(std::string_view name) const;
};

struct VCardLimits {
  size_t max_bytes = 1 << 20;
  size_t max_properties = 10000;
  size_t max_params = 64;  // per property
};

// Parses exactly one vCard (BEGIN:VCARD … END:VCARD; CRLF or LF line
// ends; trailing blank lines allowed). InvalidArgument with a reason a
// client can read: missing BEGIN/END, a second card, a line without a
// colon, a bad group/name/parameter, a nested BEGIN other than an AGENT
// value, no VERSION or a VERSION other than 3.0/4.0, no FN (required in
// both), no UID (CardDAV §5.1 requires one), more than the limits.
Result<VCard> ParseVCard(std::string_view data, const VCardLimits& limits = {});

// RFC 6352 §10.5 filters as plain values.
struct CardParamFilter {
  std::string name;  // upper case
  bool is_not_defined = false;
  std::optional<TextMatch> text;  // collation default i;unicode-casemap
};
struct CardPropFilter {
  std::string name;  // upper case
  bool is_not_defined = false;
  bool all_of = false;  // test="allof" (default anyof)
  std::vector<TextMatch> texts;
  std::vector<CardParamFilter> params;
};
struct CardFilter {
  bool all_of = false;  // test="allof" on <filter> (default anyof)
  std::vector<CardPropFilter> props;
};

// Whether the card matches (§10.5: an empty filter matches every card).
bool MatchesCardFilter(const VCard& card, const CardFilter& filter);

}  // namespace nubo::groupware
