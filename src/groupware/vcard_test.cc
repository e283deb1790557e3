#include "groupware/vcard.h"

#include <gtest/gtest.h>

#include <string>

namespace nubo::groupware {
namespace {

// A minimal valid card around `body` (CRLF line ends).
std::string Card(std::string_view body, std::string_view version = "4.0") {
  std::string s = "BEGIN:VCARD\r\nVERSION:";
  s += version;
  s += "\r\nFN:Alice Example\r\nUID:urn:uuid:1\r\n";
  s += body;
  s += "END:VCARD\r\n";
  return s;
}

VCard MustParse(std::string_view data) {
  auto r = ParseVCard(data);
  EXPECT_TRUE(r.ok()) << r.status().ToString() << "\n" << data;
  return r.ok() ? std::move(r).value() : VCard{};
}

// The error message of a refused card ("" if it was accepted).
std::string Refusal(std::string_view data, const VCardLimits& limits = {}) {
  auto r = ParseVCard(data, limits);
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  return r.status().message();
}

TEST(VCardTest, ParsesMinimalV4) {
  VCard c = MustParse(Card(""));
  EXPECT_EQ(c.version, "4.0");
  ASSERT_EQ(c.props.size(), 3u);
  EXPECT_EQ(c.props[0].name, "VERSION");
  ASSERT_NE(c.Find("FN"), nullptr);
  EXPECT_EQ(c.Find("FN")->value, "Alice Example");
  EXPECT_EQ(c.Find("UID")->value, "urn:uuid:1");
  EXPECT_EQ(c.Find("fn"), c.Find("FN"));
  EXPECT_EQ(c.Find("EMAIL"), nullptr);
}

TEST(VCardTest, ParsesV3WithBareLfAndLowercase) {
  VCard c = MustParse(
      "begin:vcard\nversion:3.0\nn:Doe;John;;;\nfn:John Doe\nuid:42\n"
      "tel;type=HOME;type=voice:+1 555\nend:vcard\n\n\n");
  EXPECT_EQ(c.version, "3.0");
  const VCardProperty* tel = c.Find("TEL");
  ASSERT_NE(tel, nullptr);
  ASSERT_EQ(tel->params.size(), 1u);
  EXPECT_EQ(tel->params[0].name, "TYPE");
  EXPECT_EQ(tel->params[0].values, (std::vector<std::string>{"HOME", "voice"}));
  EXPECT_EQ(tel->Param("type"), "HOME");
  EXPECT_EQ(tel->Param("PREF"), "");
}

TEST(VCardTest, UnfoldsLines) {
  VCard c = MustParse(Card("NOTE:Hello\r\n  World\r\n\tand more\r\nX-A:1\r\n"));
  EXPECT_EQ(c.Find("NOTE")->value, "Hello Worldand more");
  EXPECT_EQ(c.Find("X-A")->value, "1");
}

TEST(VCardTest, UnfoldsUtf8SequenceSplitAcrossFold) {
  // "Müller" with the two bytes of ü (C3 BC) on either side of the fold.
  VCard c = MustParse(Card("NICKNAME:M\xC3\r\n \xBCller\r\n"));
  EXPECT_EQ(c.Find("NICKNAME")->value, "M\xC3\xBCller");
  // Folding inside the name and the parameters too.
  VCard d = MustParse(Card("EM\r\n AIL;TY\r\n PE=work:a@\r\n b.example\r\n"));
  ASSERT_NE(d.Find("EMAIL"), nullptr);
  EXPECT_EQ(d.Find("EMAIL")->Param("TYPE"), "work");
  EXPECT_EQ(d.Find("EMAIL")->value, "a@b.example");
}

TEST(VCardTest, QuotedParamsMayHoldColonSemicolonComma) {
  VCard c = MustParse(
      Card("ADR;LABEL=\"Main St. 1: Apt 2, Berlin; DE\";TYPE=home,work:;;Main St. 1;Berlin;;;\r\n"
           "X-URL;X-P=\"a:b\":http://example.com/x:y\r\n"));
  const VCardProperty* adr = c.Find("ADR");
  ASSERT_NE(adr, nullptr);
  EXPECT_EQ(adr->Param("LABEL"), "Main St. 1: Apt 2, Berlin; DE");
  ASSERT_EQ(adr->params.size(), 2u);
  EXPECT_EQ(adr->params[1].values, (std::vector<std::string>{"home", "work"}));
  EXPECT_EQ(adr->value, ";;Main St. 1;Berlin;;;");
  EXPECT_EQ(c.Find("X-URL")->value, "http://example.com/x:y");
  EXPECT_EQ(c.Find("X-URL")->Param("x-p"), "a:b");
}

TEST(VCardTest, DecodesCaretEscapes) {
  VCard c = MustParse(Card("ADR;LABEL=\"a^nb^^c^'d^x\":;;;;;;\r\n"));
  EXPECT_EQ(c.Find("ADR")->Param("LABEL"), "a\nb^c\"d^x");
}

TEST(VCardTest, BareParamIsType) {
  VCard c = MustParse(Card("TEL;HOME;VOICE:123\r\n", "3.0"));
  const VCardProperty* tel = c.Find("TEL");
  ASSERT_EQ(tel->params.size(), 1u);
  EXPECT_EQ(tel->params[0].name, "TYPE");
  EXPECT_EQ(tel->params[0].values, (std::vector<std::string>{"HOME", "VOICE"}));
}

TEST(VCardTest, Groups) {
  VCard c = MustParse(
      Card("item1.EMAIL;type=INTERNET:a@example.com\r\nitem1.X-ABLabel:_$!<Work>!$_\r\n"));
  const VCardProperty* email = c.Find("EMAIL");
  ASSERT_NE(email, nullptr);
  EXPECT_EQ(email->group, "item1");
  EXPECT_EQ(email->name, "EMAIL");
  EXPECT_EQ(c.Find("X-ABLABEL")->group, "item1");
  EXPECT_EQ(c.Find("FN")->group, "");
}

TEST(VCardTest, TextDecodesEscapes) {
  VCard c = MustParse(Card("NOTE:a\\nb\\Nc\\,d\\;e\\\\f\\qg\\\r\n"));
  EXPECT_EQ(c.Find("NOTE")->value, "a\\nb\\Nc\\,d\\;e\\\\f\\qg\\");
  EXPECT_EQ(c.Find("NOTE")->Text(), "a\nb\nc,d;e\\f\\qg\\");
  // "\\n" is an escaped backslash then a plain n, not a newline.
  VCard d = MustParse(Card("NOTE:x\\\\ny\r\n"));
  EXPECT_EQ(d.Find("NOTE")->Text(), "x\\ny");
}

TEST(VCardTest, AcceptsV3AgentOnOneLine) {
  VCard c = MustParse(Card("AGENT:BEGIN:VCARD\\nFN:Bob\\nEND:VCARD\r\n", "3.0"));
  EXPECT_EQ(c.Find("AGENT")->Text(), "BEGIN:VCARD\nFN:Bob\nEND:VCARD");
}

TEST(VCardTest, RefusesMissingBeginOrEnd) {
  EXPECT_NE(Refusal(""), "");
  EXPECT_NE(Refusal("VERSION:4.0\r\nFN:a\r\nUID:1\r\nEND:VCARD\r\n").find("BEGIN"),
            std::string::npos);
  EXPECT_NE(Refusal("\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:a\r\nUID:1\r\nEND:VCARD\r\n"), "");
  EXPECT_NE(Refusal("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:a\r\nUID:1\r\n").find("END"),
            std::string::npos);
  EXPECT_NE(Refusal("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:a\r\nUID:1\r\nEND:VCALENDAR\r\n"), "");
}

TEST(VCardTest, RefusesMissingOrWrongVersion) {
  EXPECT_NE(Refusal("BEGIN:VCARD\r\nFN:a\r\nUID:1\r\nEND:VCARD\r\n").find("VERSION"),
            std::string::npos);
  EXPECT_NE(Refusal(Card("", "2.1")).find("VERSION"), std::string::npos);
  EXPECT_NE(Refusal(Card("VERSION:4.0\r\n")).find("VERSION"), std::string::npos);
}

TEST(VCardTest, RefusesMissingFnOrUid) {
  EXPECT_NE(Refusal("BEGIN:VCARD\r\nVERSION:4.0\r\nUID:1\r\nEND:VCARD\r\n").find("FN"),
            std::string::npos);
  EXPECT_NE(Refusal("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:a\r\nEND:VCARD\r\n").find("UID"),
            std::string::npos);
  EXPECT_NE(Refusal("BEGIN:VCARD\r\nVERSION:4.0\r\nFN:a\r\nUID:\r\nEND:VCARD\r\n"), "");
}

TEST(VCardTest, RefusesTwoCardsAndNesting) {
  std::string one = Card("");
  EXPECT_NE(Refusal(one + one).find("more than one"), std::string::npos);
  EXPECT_NE(Refusal(one + "\r\nNOTE:x\r\n").find("after END"), std::string::npos);
  EXPECT_NE(Refusal(Card("BEGIN:VCARD\r\nFN:b\r\nEND:VCARD\r\n")).find("nested"),
            std::string::npos);
}

TEST(VCardTest, RefusesMalformedLines) {
  std::string msg = Refusal(Card("NOTE just text\r\n"));
  EXPECT_NE(msg.find("colon"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 5"), std::string::npos) << msg;
  EXPECT_NE(Refusal(Card("NO_TE:x\r\n")), "");           // '_' not in a name
  EXPECT_NE(Refusal(Card("a.b.EMAIL:x\r\n")), "");       // two groups
  EXPECT_NE(Refusal(Card(".EMAIL:x\r\n")), "");          // empty group
  EXPECT_NE(Refusal(Card(":x\r\n")), "");                // empty name
  EXPECT_NE(Refusal(Card("EMAIL;=x:a\r\n")), "");        // empty param name
  EXPECT_NE(Refusal(Card("EMAIL;X=\"abc:a\r\n")), "");   // unterminated quote
  EXPECT_NE(Refusal(Card("EMAIL;X=a\"b\":a\r\n")), "");  // quote inside a value
  EXPECT_NE(Refusal(Card("EMAIL;X=\"a\"b:a\r\n")), "");  // junk after a quoted value
}

TEST(VCardTest, EnforcesLimits) {
  VCardLimits limits;
  limits.max_properties = 5;
  std::string ok = Card("NOTE:1\r\nNOTE:2\r\n");  // VERSION FN UID + 2
  EXPECT_EQ(Refusal(ok, limits), "");
  EXPECT_NE(Refusal(Card("NOTE:1\r\nNOTE:2\r\nNOTE:3\r\n"), limits).find("properties"),
            std::string::npos);

  limits = {};
  limits.max_params = 2;
  EXPECT_EQ(Refusal(Card("EMAIL;A=1;B=2:x\r\n"), limits), "");
  EXPECT_NE(Refusal(Card("EMAIL;A=1;B=2;C=3:x\r\n"), limits).find("parameters"), std::string::npos);

  limits = {};
  std::string card = Card("");
  limits.max_bytes = card.size();
  EXPECT_EQ(Refusal(card, limits), "");
  limits.max_bytes = card.size() - 1;
  EXPECT_NE(Refusal(card, limits), "");
}

// Filters.

const char kAlice[] =
    "BEGIN:VCARD\r\nVERSION:4.0\r\nUID:alice\r\nFN:Alice M\xC3\xBCller\r\n"
    "EMAIL;TYPE=work:alice@work.example\r\n"
    "item1.EMAIL;TYPE=home:alice@home.example\r\nEND:VCARD\r\n";
const char kBob[] =
    "BEGIN:VCARD\r\nVERSION:3.0\r\nUID:bob\r\nFN:Bob\r\nNICKNAME:bobby\r\nEND:VCARD\r\n";

TextMatch Text(std::string s, MatchType m = MatchType::kContains,
               Collation c = Collation::kUnicodeCasemap) {
  TextMatch t;
  t.text = std::move(s);
  t.match = m;
  t.collation = c;
  return t;
}

CardPropFilter Prop(std::string name) {
  CardPropFilter p;
  p.name = std::move(name);
  return p;
}

TEST(VCardFilterTest, EmptyFilterMatchesAll) {
  EXPECT_TRUE(MatchesCardFilter(MustParse(kAlice), CardFilter{}));
  CardFilter all;
  all.all_of = true;
  EXPECT_TRUE(MatchesCardFilter(MustParse(kBob), all));
}

TEST(VCardFilterTest, EmailContainsIncludingGroupedInstance) {
  VCard alice = MustParse(kAlice), bob = MustParse(kBob);
  CardFilter f;
  f.props.push_back(Prop("EMAIL"));
  f.props[0].texts.push_back(Text("HOME.example"));
  EXPECT_TRUE(MatchesCardFilter(alice, f));  // the item1.EMAIL instance
  EXPECT_FALSE(MatchesCardFilter(bob, f));
  f.props[0].texts[0].text = "nowhere";
  EXPECT_FALSE(MatchesCardFilter(alice, f));
}

TEST(VCardFilterTest, PropWithoutChildrenTestsExistence) {
  CardFilter f;
  f.props.push_back(Prop("NICKNAME"));
  EXPECT_FALSE(MatchesCardFilter(MustParse(kAlice), f));
  EXPECT_TRUE(MatchesCardFilter(MustParse(kBob), f));
}

TEST(VCardFilterTest, IsNotDefined) {
  CardFilter f;
  f.props.push_back(Prop("EMAIL"));
  f.props[0].is_not_defined = true;
  EXPECT_FALSE(MatchesCardFilter(MustParse(kAlice), f));
  EXPECT_TRUE(MatchesCardFilter(MustParse(kBob), f));
  f.props[0].name = "FN";
  EXPECT_FALSE(MatchesCardFilter(MustParse(kAlice), f));
  EXPECT_FALSE(MatchesCardFilter(MustParse(kBob), f));
}

TEST(VCardFilterTest, ParamFilter) {
  VCard alice = MustParse(kAlice);
  CardFilter f;
  f.props.push_back(Prop("EMAIL"));
  CardParamFilter type;
  type.name = "TYPE";
  type.text = Text("work", MatchType::kEquals);
  f.props[0].params.push_back(type);
  EXPECT_TRUE(MatchesCardFilter(alice, f));

  f.props[0].params[0].text->text = "other";
  EXPECT_FALSE(MatchesCardFilter(alice, f));

  // TYPE is defined on every EMAIL; PREF on none.
  f.props[0].params[0].text.reset();
  f.props[0].params[0].is_not_defined = true;
  EXPECT_FALSE(MatchesCardFilter(alice, f));
  f.props[0].params[0].name = "PREF";
  EXPECT_TRUE(MatchesCardFilter(alice, f));
}

TEST(VCardFilterTest, ParamNegationAppliesToAllValues) {
  VCard c = MustParse(Card("TEL;TYPE=home,work:1\r\n"));
  CardFilter f;
  f.props.push_back(Prop("TEL"));
  CardParamFilter type;
  type.name = "TYPE";
  type.text = Text("work", MatchType::kEquals);
  type.text->negate = true;
  f.props[0].params.push_back(type);
  EXPECT_FALSE(MatchesCardFilter(c, f));
}

TEST(VCardFilterTest, PropTestAnyofVersusAllof) {
  VCard alice = MustParse(kAlice);
  CardFilter f;
  f.props.push_back(Prop("EMAIL"));
  f.props[0].texts.push_back(Text("work"));
  f.props[0].texts.push_back(Text("home"));
  EXPECT_TRUE(MatchesCardFilter(alice, f));  // anyof
  // allof: no single EMAIL contains both.
  f.props[0].all_of = true;
  EXPECT_FALSE(MatchesCardFilter(alice, f));
  f.props[0].texts[1] = Text("alice@");
  EXPECT_TRUE(MatchesCardFilter(alice, f));
}

TEST(VCardFilterTest, FilterTestAnyofVersusAllof) {
  VCard alice = MustParse(kAlice), bob = MustParse(kBob);
  CardFilter f;
  f.props.push_back(Prop("EMAIL"));
  f.props.push_back(Prop("NICKNAME"));
  EXPECT_TRUE(MatchesCardFilter(alice, f));
  EXPECT_TRUE(MatchesCardFilter(bob, f));
  f.all_of = true;
  EXPECT_FALSE(MatchesCardFilter(alice, f));
  EXPECT_FALSE(MatchesCardFilter(bob, f));
}

TEST(VCardFilterTest, UnicodeCasemapOnNames) {
  VCard alice = MustParse(kAlice);
  CardFilter f;
  f.props.push_back(Prop("FN"));
  f.props[0].texts.push_back(Text("M\xC3\x9CLLER"));  // "MÜLLER"
  EXPECT_TRUE(MatchesCardFilter(alice, f));
  f.props[0].texts[0].collation = Collation::kAsciiCasemap;
  EXPECT_FALSE(MatchesCardFilter(alice, f));
  f.props[0].texts[0] = Text("alice m\xC3\xBC", MatchType::kStartsWith, Collation::kAsciiCasemap);
  EXPECT_TRUE(MatchesCardFilter(alice, f));
}

TEST(VCardFilterTest, TextMatchUsesUnescapedValue) {
  VCard c = MustParse(Card("NOTE:a\\, b\r\n"));
  CardFilter f;
  f.props.push_back(Prop("NOTE"));
  f.props[0].texts.push_back(Text("a, b", MatchType::kEquals));
  EXPECT_TRUE(MatchesCardFilter(c, f));
}

}  // namespace
}  // namespace nubo::groupware
