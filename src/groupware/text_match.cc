// RFC 4790 collations for CalDAV (RFC 4791 §9.7.5) and CardDAV (RFC 6352
// §10.5.4) text-match. Both the value and the pattern are mapped to a
// canonical form first, then compared byte-wise; for i;unicode-casemap the
// canonical form is valid UTF-8, so a byte match never splits a character
// (UTF-8 is self-synchronizing).
#include "groupware/text_match.h"

#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <climits>
#include <string>

namespace nubo::groupware {
namespace {

// i;ascii-casemap (RFC 4790 §9.2): only A-Z fold; other bytes (including
// UTF-8 sequences) stay as they are.
std::string AsciiFold(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// i;unicode-casemap (RFC 5051). RFC 5051 §2 specifies simple titlecasing
// and NFKD; we use NFKD plus *full* case folding instead (then NFKD again,
// because folding can leave a string that is no longer normalized), so
// that "straße" matches "STRASSE" as address-book users expect — a
// superset of the RFC's equivalences, never a subset. Invalid UTF-8 turns
// into U+FFFD (ICU's fromUTF8 substitutes), so hostile bytes cannot crash.
std::string UnicodeFold(std::string_view s) {
  // ICU indexes with int32_t; our inputs are bounded far below that, and a
  // truncated giant string is still compared safely.
  int32_t len = s.size() > INT32_MAX ? INT32_MAX : static_cast<int32_t>(s.size());
  icu::UnicodeString u = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), len));
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* nfkd = icu::Normalizer2::getNFKDInstance(err);
  if (U_SUCCESS(err)) {
    icu::UnicodeString n = nfkd->normalize(u, err);
    if (U_SUCCESS(err)) u = std::move(n);
  }
  u.foldCase(U_FOLD_CASE_DEFAULT);
  if (nfkd != nullptr && U_SUCCESS(err)) {
    icu::UnicodeString n = nfkd->normalize(u, err);
    if (U_SUCCESS(err)) u = std::move(n);
  }
  std::string out;
  u.toUTF8String(out);
  return out;
}

std::string Canonical(std::string_view s, Collation c) {
  switch (c) {
    case Collation::kOctet:
      return std::string(s);
    case Collation::kAsciiCasemap:
      return AsciiFold(s);
    case Collation::kUnicodeCasemap:
      return UnicodeFold(s);
  }
  return std::string(s);
}

bool Compare(std::string_view value, std::string_view pattern, MatchType match) {
  switch (match) {
    case MatchType::kEquals:
      return value == pattern;
    case MatchType::kContains:
      return value.find(pattern) != std::string_view::npos;
    case MatchType::kStartsWith:
      return value.starts_with(pattern);
    case MatchType::kEndsWith:
      return value.ends_with(pattern);
  }
  return false;
}

}  // namespace

// Identifiers are compared exactly, spelled as RFC 4790 and RFC 5051
// register them; anything else gets the supported-collation precondition.
std::optional<Collation> ParseCollation(std::string_view name) {
  if (name == "i;octet") return Collation::kOctet;
  if (name == "i;ascii-casemap") return Collation::kAsciiCasemap;
  if (name == "i;unicode-casemap") return Collation::kUnicodeCasemap;
  return std::nullopt;
}

std::optional<MatchType> ParseMatchType(std::string_view name) {
  if (name == "equals") return MatchType::kEquals;
  if (name == "contains") return MatchType::kContains;
  if (name == "starts-with") return MatchType::kStartsWith;
  if (name == "ends-with") return MatchType::kEndsWith;
  return std::nullopt;
}

bool TextMatches(std::string_view value, const TextMatch& m) {
  std::string v = Canonical(value, m.collation);
  std::string p = Canonical(m.text, m.collation);
  return Compare(v, p, m.match) != m.negate;
}

}  // namespace nubo::groupware
