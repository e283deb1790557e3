// Text matching shared by CalDAV and CardDAV filters: RFC 4790 collations
// as RFC 4791 §9.7.5 and RFC 6352 §10.5.4 use them. Thread-safe (pure).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nubo::groupware {

enum class Collation {
  kOctet,           // i;octet: bytes as they are
  kAsciiCasemap,    // i;ascii-casemap: A-Z folded to a-z (the CalDAV default)
  kUnicodeCasemap,  // i;unicode-casemap (RFC 5051): NFKD + Unicode case folding (the CardDAV
                    // default)
};

// The collation an identifier names; nullopt for one we do not support
// (RFC 4791 §7.5.1: answered with the supported-collation precondition).
std::optional<Collation> ParseCollation(std::string_view name);

enum class MatchType { kEquals, kContains, kStartsWith, kEndsWith };  // RFC 6352 §10.5.4

// nullopt for an unknown match-type.
std::optional<MatchType> ParseMatchType(std::string_view name);

struct TextMatch {
  std::string text;
  Collation collation = Collation::kAsciiCasemap;
  MatchType match = MatchType::kContains;
  bool negate = false;  // negate-condition="yes"
};

// Whether `value` matches (negation applied).
bool TextMatches(std::string_view value, const TextMatch& m);

}  // namespace nubo::groupware
