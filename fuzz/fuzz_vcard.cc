// Fuzzes the vCard parser (RFC 6350 / RFC 2426) and CardDAV filters (RFC
// 6352 §10.5): parsing never crashes, an accepted card has what ParseVCard
// promises (VERSION 3.0/4.0, FN, UID, limits respected, names upper case),
// tighter limits never accept what the defaults refuse, and filter
// evaluation is total and obeys is-not-defined = not defined.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "groupware/vcard.h"

namespace {

using namespace nubo::groupware;

bool IsUpperName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

void CheckCard(const VCard& card, const VCardLimits& limits) {
  FUZZ_CHECK(card.version == "3.0" || card.version == "4.0");
  FUZZ_CHECK(card.Find("FN") != nullptr);
  FUZZ_CHECK(card.Find("UID") != nullptr && !card.Find("UID")->value.empty());
  FUZZ_CHECK(card.props.size() <= limits.max_properties);
  for (const auto& p : card.props) {
    FUZZ_CHECK(IsUpperName(p.name));
    FUZZ_CHECK(p.name != "BEGIN" && p.name != "END");
    FUZZ_CHECK(p.params.size() <= limits.max_params);
    for (const auto& prm : p.params) FUZZ_CHECK(IsUpperName(prm.name));
    // Decoding only ever shortens.
    FUZZ_CHECK(p.Text().size() <= p.value.size());
    if (!p.params.empty()) (void)p.Param(p.params[0].name);
  }
}

TextMatch Match(std::string text, MatchType m, Collation c, bool negate = false) {
  TextMatch t;
  t.text = std::move(text);
  t.match = m;
  t.collation = c;
  t.negate = negate;
  return t;
}

CardPropFilter PropNamed(std::string name, bool is_not_defined = false) {
  CardPropFilter p;
  p.name = std::move(name);
  p.is_not_defined = is_not_defined;
  return p;
}

// A handful of filters shaped like what clients send.
void CheckFilters(const VCard& card) {
  CardFilter empty;
  FUZZ_CHECK(MatchesCardFilter(card, empty));

  CardFilter f;
  CardPropFilter email;
  email.name = "EMAIL";
  email.texts.push_back(Match("@", MatchType::kContains, Collation::kUnicodeCasemap));
  CardParamFilter type;
  type.name = "TYPE";
  type.text = Match("WORK", MatchType::kEquals, Collation::kUnicodeCasemap, true);
  email.params.push_back(type);
  f.props.push_back(email);
  CardPropFilter fn;
  fn.name = "FN";
  fn.all_of = true;
  fn.texts.push_back(Match("M\xC3\x9C", MatchType::kStartsWith, Collation::kUnicodeCasemap));
  fn.texts.push_back(Match("er", MatchType::kEndsWith, Collation::kAsciiCasemap));
  f.props.push_back(fn);
  bool any = MatchesCardFilter(card, f);
  f.all_of = true;
  bool all = MatchesCardFilter(card, f);
  FUZZ_CHECK(!all || any);

  // Exactly one of "NICKNAME defined" and "NICKNAME not defined" holds.
  CardFilter defined, undefined;
  defined.props.push_back(PropNamed("NICKNAME"));
  undefined.props.push_back(PropNamed("NICKNAME", true));
  FUZZ_CHECK(MatchesCardFilter(card, defined) != MatchesCardFilter(card, undefined));
  // Every accepted card has an FN.
  CardFilter has_fn;
  has_fn.props.push_back(PropNamed("FN"));
  FUZZ_CHECK(MatchesCardFilter(card, has_fn));
}

// The collations must survive arbitrary bytes (invalid UTF-8 included) on
// either side, and negation must invert exactly.
void CheckCollations(std::string_view in) {
  std::string_view value = in.substr(0, in.size() / 2);
  std::string pattern(in.substr(in.size() / 2, 64));
  for (auto c : {Collation::kOctet, Collation::kAsciiCasemap, Collation::kUnicodeCasemap}) {
    for (auto mt :
         {MatchType::kEquals, MatchType::kContains, MatchType::kStartsWith, MatchType::kEndsWith}) {
      TextMatch m = Match(pattern, mt, c);
      bool plain = TextMatches(value, m);
      m.negate = true;
      FUZZ_CHECK(TextMatches(value, m) == !plain);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  CheckCollations(in.substr(0, 512));
  VCardLimits tight;
  tight.max_bytes = 4096;
  tight.max_properties = 16;
  tight.max_params = 4;
  auto small = ParseVCard(in, tight);
  auto card = ParseVCard(in);
  if (small.ok()) FUZZ_CHECK(card.ok());
  if (!card.ok()) {
    FUZZ_CHECK(!card.status().message().empty());
    return 0;
  }
  CheckCard(*card, VCardLimits{});
  if (small.ok()) CheckCard(*small, tight);
  CheckFilters(*card);
  return 0;
}
