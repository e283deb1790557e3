#include "dav/if_header.h"

#include <gtest/gtest.h>

#include <map>

namespace nubo::dav {
namespace {

IfHeader MustParse(std::string_view v) {
  auto r = ParseIfHeader(v);
  EXPECT_TRUE(r.ok()) << v << ": " << r.status().ToString();
  return r.ok() ? std::move(r).value() : IfHeader{};
}

// A tiny resource table: path → state; anything else is unmapped.
struct World {
  std::map<std::string, IfResourceState, std::less<>> resources;
  mutable int calls = 0;
  std::function<IfResourceState(std::string_view)> Resolver() const {
    return [this](std::string_view p) {
      ++calls;
      // What the real resolver does for tags: strip scheme and authority.
      if (p.substr(0, 7) == "http://") {
        size_t slash = p.find('/', 7);
        p = slash == std::string_view::npos ? "/" : p.substr(slash);
      }
      auto it = resources.find(p);
      return it == resources.end() ? IfResourceState{} : it->second;
    };
  }
};

World Litmus() {
  World w;
  w.resources["/dav/a"] = {true, "\"etag-a\"", {"urn:uuid:x"}};
  w.resources["/dav/b"] = {true, "\"etag-b\"", {}};
  w.resources["/dav/coll/"] = {true, "\"etag-c\"", {"urn:uuid:coll"}};
  return w;
}

bool Eval(std::string_view header, std::string_view path, const World& w) {
  auto h = ParseIfHeader(header);
  EXPECT_TRUE(h.ok()) << header << ": " << h.status().ToString();
  return h.ok() && EvaluateIf(*h, path, w.Resolver());
}

TEST(IfHeader, ParsesSingleToken) {
  IfHeader h = MustParse("(<urn:uuid:x>)");
  EXPECT_FALSE(h.tagged);
  ASSERT_EQ(h.groups.size(), 1u);
  EXPECT_FALSE(h.groups[0].resource.has_value());
  ASSERT_EQ(h.groups[0].lists.size(), 1u);
  ASSERT_EQ(h.groups[0].lists[0].conditions.size(), 1u);
  const IfCondition& c = h.groups[0].lists[0].conditions[0];
  EXPECT_FALSE(c.negated);
  EXPECT_FALSE(c.is_etag);
  EXPECT_EQ(c.value, "urn:uuid:x");
}

TEST(IfHeader, ParsesTokenAndEtag) {
  IfHeader h = MustParse("(<urn:uuid:x> [\"etag\"])");
  const auto& conds = h.groups[0].lists[0].conditions;
  ASSERT_EQ(conds.size(), 2u);
  EXPECT_TRUE(conds[1].is_etag);
  EXPECT_EQ(conds[1].value, "\"etag\"");
}

TEST(IfHeader, ParsesNotAndWhitespace) {
  IfHeader h = MustParse("  ( Not <DAV:no-lock> )\t(not[W/\"w\"])  ");
  ASSERT_EQ(h.groups[0].lists.size(), 2u);
  EXPECT_TRUE(h.groups[0].lists[0].conditions[0].negated);
  EXPECT_EQ(h.groups[0].lists[0].conditions[0].value, "DAV:no-lock");
  EXPECT_TRUE(h.groups[0].lists[1].conditions[0].negated);
  EXPECT_EQ(h.groups[0].lists[1].conditions[0].value, "W/\"w\"");
  MustParse("(NOT<urn:a>)");
}

TEST(IfHeader, ParsesTagged) {
  IfHeader h =
      MustParse("<http://host/dav/a> (<urn:uuid:x>) ([\"e\"]) </dav/b?q=1> (Not <DAV:no-lock>)");
  EXPECT_TRUE(h.tagged);
  ASSERT_EQ(h.groups.size(), 2u);
  EXPECT_EQ(h.groups[0].resource, "http://host/dav/a");
  EXPECT_EQ(h.groups[0].lists.size(), 2u);
  EXPECT_EQ(h.groups[1].resource, "/dav/b?q=1");
  EXPECT_EQ(h.groups[1].lists.size(), 1u);
}

TEST(IfHeader, EtagMayContainBracketsAndCommas) {
  IfHeader h = MustParse("([\"a]b,c\"])");
  EXPECT_EQ(h.groups[0].lists[0].conditions[0].value, "\"a]b,c\"");
}

TEST(IfHeader, Malformed) {
  for (std::string_view bad : {
           "",
           "   ",
           "()",
           "(",
           "(<urn:a>",
           "<urn:a>",                           // tag without a list
           "<urn:a> ()",                        // empty list
           "(<urn:a>) <http://h/a> (<urn:b>)",  // untagged then tagged
           "<http://h/a> (<urn:a>) (<urn:b>) x",
           "(<not-absolute>)",  // state token must be an absolute URI
           "(<>)",
           "(<urn:a b>)",       // space inside
           "(<1urn:a>)",        // scheme starts with a letter
           "(<urn:\xC3\xA9>)",  // not a URI character
           "(urn:a)",
           "([etag])",  // unquoted
           "([\"a\"b])",
           "([\"a\"",
           "([W\"a\"])",
           "([\"a\x01\"])",
           "(Not)",
           "(Not",
           "(Nope <urn:a>)",
           "<relative/path> (<urn:a>)",
           "<http://h/a>",
           "(<urn:a>) junk",
       }) {
    auto r = ParseIfHeader(bad);
    EXPECT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  }
}

// litmus locks.c: cond_put, fail_cond_put, cond_put_with_not, ...
TEST(IfHeader, EvaluatesLitmusUntagged) {
  World w = Litmus();
  EXPECT_TRUE(Eval("(<urn:uuid:x>)", "/dav/a", w));
  EXPECT_FALSE(Eval("(<urn:uuid:y>)", "/dav/a", w));
  EXPECT_TRUE(Eval("(<urn:uuid:x> [\"etag-a\"])", "/dav/a", w));
  EXPECT_FALSE(Eval("(<urn:uuid:x> [\"etag-b\"])", "/dav/a", w));  // AND
  EXPECT_TRUE(Eval("(Not <DAV:no-lock>)", "/dav/b", w));
  EXPECT_FALSE(Eval("(<DAV:no-lock>)", "/dav/b", w));  // fail_cond_put_unlocked
  EXPECT_TRUE(Eval("(<urn:uuid:bogus>) (Not <DAV:no-lock>)", "/dav/a", w));  // OR
  EXPECT_TRUE(Eval("(<urn:uuid:x> [\"etag-a\"]) (Not <DAV:no-lock> [\"etag-a\"])", "/dav/a", w));
  EXPECT_FALSE(Eval("(<urn:uuid:x> [\"bad\"]) (Not <DAV:no-lock> [\"bad\"])", "/dav/a", w));
  EXPECT_TRUE(Eval("(Not <urn:uuid:y>)", "/dav/a", w));
  EXPECT_FALSE(Eval("(Not <urn:uuid:x>)", "/dav/a", w));
  EXPECT_TRUE(Eval("(Not [\"etag-b\"])", "/dav/a", w));
}

TEST(IfHeader, EtagsCompareStrongly) {
  World w = Litmus();
  EXPECT_FALSE(Eval("([W/\"etag-a\"])", "/dav/a", w));
  EXPECT_TRUE(Eval("(Not [W/\"etag-a\"])", "/dav/a", w));
  w.resources["/dav/weak"] = {true, "W/\"w\"", {}};
  EXPECT_FALSE(Eval("([W/\"w\"])", "/dav/weak", w));
  w.resources["/dav/none"] = {true, "", {}};
  EXPECT_FALSE(Eval("([\"\"])", "/dav/none", w));
}

TEST(IfHeader, UnmappedUrlHasNoState) {
  // §10.4.4 / §10.4.11: as if it existed without the state.
  World w = Litmus();
  EXPECT_FALSE(Eval("(<urn:uuid:x>)", "/dav/missing", w));
  EXPECT_FALSE(Eval("([\"etag-a\"])", "/dav/missing", w));
  EXPECT_TRUE(Eval("(Not [\"etag-a\"])", "/dav/missing", w));
  EXPECT_TRUE(Eval("(Not <DAV:no-lock>)", "/dav/missing", w));
  // exists=false wins over any stale data a resolver returns.
  w.resources["/dav/ghost"] = {false, "\"g\"", {"urn:uuid:g"}};
  EXPECT_FALSE(Eval("(<urn:uuid:g>)", "/dav/ghost", w));
  EXPECT_FALSE(Eval("([\"g\"])", "/dav/ghost", w));
}

TEST(IfHeader, NoLockNeverMatchesEvenIfResolverClaimsIt) {
  World w;
  w.resources["/x"] = {true, "\"e\"", {"DAV:no-lock"}};
  EXPECT_FALSE(Eval("(<DAV:no-lock>)", "/x", w));
  EXPECT_TRUE(Eval("(Not <DAV:no-lock>)", "/x", w));
}

TEST(IfHeader, EvaluatesTagged) {
  World w = Litmus();
  // The tag names the resource, not the request path.
  EXPECT_TRUE(Eval("<http://host/dav/a> (<urn:uuid:x>)", "/dav/b", w));
  EXPECT_FALSE(Eval("<http://host/dav/b> (<urn:uuid:x>)", "/dav/a", w));
  EXPECT_TRUE(Eval("</dav/a> ([\"etag-a\"])", "/dav/zzz", w));
  // Any (tag, list) true makes the header true.
  EXPECT_TRUE(
      Eval("<http://host/dav/b> (<urn:uuid:x>) <http://host/dav/a> (<urn:uuid:x>)", "/dav/b", w));
  EXPECT_TRUE(
      Eval("<http://host/dav/b> (<urn:uuid:x>) ([\"etag-b\"])", "/dav/b", w));  // second list
  EXPECT_FALSE(Eval("<http://host/dav/b> (<urn:uuid:x>) ([\"etag-a\"])", "/dav/b", w));
  // §10.4.10: a collection lock token matches a member through the resolver.
  w.resources["/dav/coll/m"] = {true, "\"m\"", {"urn:uuid:coll"}};
  EXPECT_TRUE(Eval("</dav/coll/> (<urn:uuid:coll>)", "/dav/coll/m", w));
  EXPECT_TRUE(Eval("(<urn:uuid:coll>)", "/dav/coll/m", w));
}

TEST(IfHeader, ResolvesEachResourceOnce) {
  World w = Litmus();
  auto h = ParseIfHeader(
      "<http://host/dav/b> (<urn:uuid:1>) <http://host/dav/b> (<urn:uuid:2>) "
      "<http://host/dav/a> (<urn:uuid:3>) <http://host/dav/b> (<urn:uuid:x>)");
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(EvaluateIf(*h, "/dav/a", w.Resolver()));
  EXPECT_EQ(w.calls, 2);
}

TEST(IfHeader, StopsAtFirstTrueList) {
  World w = Litmus();
  auto h = ParseIfHeader("</dav/a> (<urn:uuid:x>) </dav/b> (<urn:uuid:q>)");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(EvaluateIf(*h, "/dav/a", w.Resolver()));
  EXPECT_EQ(w.calls, 1);
}

TEST(IfHeader, SubmittedLockTokens) {
  auto h = ParseIfHeader(
      "<http://h/a> (<urn:uuid:1> [\"e\"]) (Not <urn:uuid:2>) (<DAV:no-lock>) "
      "</b> (<urn:uuid:3>) (<urn:uuid:1>)");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(SubmittedLockTokens(*h), (std::vector<std::string>{"urn:uuid:1", "urn:uuid:3"}));
  // litmus cond_put_corrupt_token: the header is true, but no real token is submitted.
  auto corrupt = ParseIfHeader("(<opaquelocktoken:foobar>) (Not <DAV:no-lock>)");
  ASSERT_TRUE(corrupt.ok());
  EXPECT_EQ(SubmittedLockTokens(*corrupt), std::vector<std::string>{"opaquelocktoken:foobar"});
}

}  // namespace
}  // namespace nubo::dav
