#include "dav/xml_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace nubo::dav {
namespace {

XmlElement MustParse(std::string_view body) {
  auto r = ParseXml(body);
  EXPECT_TRUE(r.ok()) << r.status().ToString() << "\n" << body;
  return r.ok() ? std::move(r).value() : XmlElement{};
}

// Error message of a failing parse ("" when it unexpectedly succeeded).
std::string ErrorOf(std::string_view body, const XmlLimits& limits = {}) {
  auto r = ParseXml(body, limits);
  EXPECT_FALSE(r.ok()) << body;
  EXPECT_TRUE(r.ok() || r.status().code() == Code::kInvalidArgument) << r.status().ToString();
  return r.ok() ? "" : r.status().message();
}

// parse(InnerXml) gives the same text and children (the brief's round trip).
void ExpectRoundTrip(const XmlElement& e) {
  std::string wrapped = "<w>" + e.InnerXml() + "</w>";
  auto again = ParseXml(wrapped);
  ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n" << wrapped;
  EXPECT_EQ(again->text, e.text) << wrapped;
  EXPECT_EQ(again->children, e.children) << wrapped;
}

TEST(XmlReader, PropfindAllprop) {
  auto e = MustParse(R"(<?xml version="1.0" encoding="utf-8" ?>
<D:propfind xmlns:D="DAV:">
  <D:allprop/>
</D:propfind>)");
  EXPECT_EQ(e.ns, "DAV:");
  EXPECT_EQ(e.name, "propfind");
  EXPECT_EQ(e.text, "");  // indentation dropped
  ASSERT_EQ(e.children.size(), 1u);
  EXPECT_NE(e.Child("DAV:", "allprop"), nullptr);
  EXPECT_EQ(e.Child("DAV:", "propname"), nullptr);
  EXPECT_EQ(e.Child("dav:", "allprop"), nullptr);  // namespace URIs compare exactly
}

TEST(XmlReader, PropfindPropname) {
  auto e = MustParse(R"(<propfind xmlns="DAV:"><propname/></propfind>)");
  EXPECT_EQ(e.ns, "DAV:");
  EXPECT_NE(e.Child("DAV:", "propname"), nullptr);
}

TEST(XmlReader, PropfindPropWithCustomNamespaces) {
  auto e = MustParse(R"(<?xml version="1.0"?>
<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
  <d:prop>
    <d:getlastmodified/>
    <d:getcontentlength/>
    <oc:fileid/>
    <nc:has-preview/>
    <x:color xmlns:x="urn:example:props"/>
    <nonamespace xmlns=""/>
  </d:prop>
</d:propfind>)");
  const XmlElement* prop = e.Child("DAV:", "prop");
  ASSERT_NE(prop, nullptr);
  ASSERT_EQ(prop->children.size(), 6u);
  EXPECT_EQ(prop->children[0].ns, "DAV:");
  EXPECT_EQ(prop->children[0].name, "getlastmodified");
  EXPECT_EQ(prop->children[2].ns, "http://owncloud.org/ns");
  EXPECT_EQ(prop->children[2].name, "fileid");
  EXPECT_EQ(prop->children[3].ns, "http://nextcloud.org/ns");
  EXPECT_EQ(prop->children[3].name, "has-preview");
  EXPECT_EQ(prop->children[4].ns, "urn:example:props");
  EXPECT_EQ(prop->children[5].ns, "");
  EXPECT_EQ(prop->children[5].name, "nonamespace");
}

TEST(XmlReader, PropfindInclude) {
  // RFC 4918 §14.8: allprop with include.
  auto e = MustParse(R"(<D:propfind xmlns:D="DAV:">
  <D:allprop/>
  <D:include><D:supported-live-property-set/><D:supported-report-set/></D:include>
</D:propfind>)");
  const XmlElement* inc = e.Child("DAV:", "include");
  ASSERT_NE(inc, nullptr);
  ASSERT_EQ(inc->children.size(), 2u);
  EXPECT_EQ(inc->children[1].name, "supported-report-set");
}

TEST(XmlReader, ProppatchWithNestedDeadProperty) {
  auto e = MustParse(R"(<?xml version="1.0" encoding="utf-8" ?>
<D:propertyupdate xmlns:D="DAV:" xmlns:Z="http://ns.example.com/standards/z39.50/">
  <D:set>
    <D:prop>
      <Z:Authors>
        <Z:Author Z:role="lead" lang="en">Jim Whitehead</Z:Author>
        <Z:Author>Roy Fielding</Z:Author>
        <q:note xmlns:q="urn:q" xml:lang="de">a &amp; b &lt; c</q:note>
      </Z:Authors>
    </D:prop>
  </D:set>
  <D:remove>
    <D:prop><Z:Copyright-Owner/></D:prop>
  </D:remove>
</D:propertyupdate>)");
  ASSERT_EQ(e.children.size(), 2u);
  EXPECT_EQ(e.children[0].name, "set");
  EXPECT_EQ(e.children[1].name, "remove");
  const XmlElement* authors = e.Child("DAV:", "set")
                                  ->Child("DAV:", "prop")
                                  ->Child("http://ns.example.com/standards/z39.50/", "Authors");
  ASSERT_NE(authors, nullptr);
  ASSERT_EQ(authors->children.size(), 3u);
  const XmlElement& first = authors->children[0];
  EXPECT_EQ(first.text, "Jim Whitehead");
  ASSERT_EQ(first.attrs.size(), 2u);
  EXPECT_EQ(first.attrs[0].first, "http://ns.example.com/standards/z39.50/ role");
  EXPECT_EQ(first.attrs[0].second, "lead");
  EXPECT_EQ(first.attrs[1].first, "lang");
  const XmlElement& note = authors->children[2];
  EXPECT_EQ(note.ns, "urn:q");
  EXPECT_EQ(note.text, "a & b < c");
  ASSERT_EQ(note.attrs.size(), 1u);
  EXPECT_EQ(note.attrs[0].first, std::string(kXmlNs) + " lang");

  std::string inner = authors->InnerXml();
  // Context-free: every top-level element declares its own namespace.
  EXPECT_NE(inner.find(R"(<Author xmlns="http://ns.example.com/standards/z39.50/")"),
            std::string::npos)
      << inner;
  EXPECT_NE(inner.find(R"(xml:lang="de")"), std::string::npos) << inner;
  EXPECT_EQ(inner.find("xmlns:xml"), std::string::npos) << inner;
  ExpectRoundTrip(*authors);
  // The property element itself, as PROPFIND would re-emit it.
  ExpectRoundTrip(*e.Child("DAV:", "set")->Child("DAV:", "prop"));
  ExpectRoundTrip(e);
}

TEST(XmlReader, InnerXmlOfTextValue) {
  auto e = MustParse(R"(<x:p xmlns:x="urn:x">  hello &amp; "bye"&#13;
</x:p>)");
  EXPECT_EQ(e.text, "  hello & \"bye\"\r\n");
  EXPECT_EQ(e.InnerXml(), "  hello &amp; \"bye\"&#13;\n");
  ExpectRoundTrip(e);
}

TEST(XmlReader, InnerXmlNullNamespaceInsideDefault) {
  // litmus "propnullns": an element with no namespace nested in a default one.
  auto e = MustParse(R"(<p xmlns="urn:a"><q><r xmlns=""><s/></r></q></p>)");
  ASSERT_EQ(e.children[0].children[0].ns, "");
  std::string inner = e.InnerXml();
  EXPECT_EQ(inner, R"(<q xmlns="urn:a"><r xmlns=""><s/></r></q>)");
  ExpectRoundTrip(e);
}

TEST(XmlReader, InnerXmlAttributesInElementNamespace) {
  auto e = MustParse(
      R"(<p xmlns:a="urn:a" xmlns:b="urn:b"><a:x a:k="1" b:k="2" k="3" a:j="&#9;&#10;"/></p>)");
  const XmlElement& x = e.children[0];
  ASSERT_EQ(x.attrs.size(), 4u);
  EXPECT_EQ(x.attrs[3].second, "\t\n");
  std::string inner = e.InnerXml();
  EXPECT_NE(inner.find(R"(xmlns:a0="urn:a")"), std::string::npos) << inner;
  EXPECT_NE(inner.find(R"(a0:j="&#9;&#10;")"), std::string::npos) << inner;
  ExpectRoundTrip(e);
}

TEST(XmlReader, MixedContentKeepsTextButNotPosition) {
  auto e = MustParse(R"(<o xmlns="DAV:">Joe <href>mailto:j@x</href> Smith</o>)");
  EXPECT_EQ(e.text, "Joe  Smith");
  ASSERT_NE(e.Child("DAV:", "href"), nullptr);
  ExpectRoundTrip(e);
}

TEST(XmlReader, CdataAndCommentsAndPis) {
  auto e = MustParse("<a><!-- c --><?pi x?><![CDATA[<raw> & ]]></a>");
  EXPECT_EQ(e.text, "<raw> & ");
  EXPECT_TRUE(e.children.empty());
}

TEST(XmlReader, LockInfo) {
  auto e = MustParse(R"(<?xml version="1.0" encoding="utf-8" ?>
<D:lockinfo xmlns:D='DAV:'>
  <D:lockscope><D:exclusive/></D:lockscope>
  <D:locktype><D:write/></D:locktype>
  <D:owner>
    <D:href>http://example.org/~ejw/contact.html</D:href>
  </D:owner>
</D:lockinfo>)");
  EXPECT_EQ(e.name, "lockinfo");
  ASSERT_NE(e.Child("DAV:", "lockscope"), nullptr);
  EXPECT_NE(e.Child("DAV:", "lockscope")->Child("DAV:", "exclusive"), nullptr);
  EXPECT_NE(e.Child("DAV:", "locktype")->Child("DAV:", "write"), nullptr);
  const XmlElement* owner = e.Child("DAV:", "owner");
  ASSERT_NE(owner, nullptr);
  EXPECT_EQ(owner->Child("DAV:", "href")->text, "http://example.org/~ejw/contact.html");
  // The owner is echoed back verbatim-ish in lockdiscovery (§14.17).
  EXPECT_EQ(owner->InnerXml(), R"(<href xmlns="DAV:">http://example.org/~ejw/contact.html</href>)");
  ExpectRoundTrip(*owner);
}

TEST(XmlReader, RefusesBillionLaughs) {
  std::string msg = ErrorOf(R"(<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<D:propfind xmlns:D="DAV:"><D:prop><x>&lol4;</x></D:prop></D:propfind>)");
  EXPECT_NE(msg.find("DOCTYPE"), std::string::npos) << msg;
}

TEST(XmlReader, RefusesExternalEntity) {
  std::string msg = ErrorOf(R"(<?xml version="1.0"?>
<!DOCTYPE foo [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<D:propfind xmlns:D="DAV:"><D:prop><x>&xxe;</x></D:prop></D:propfind>)");
  EXPECT_NE(msg.find("DOCTYPE"), std::string::npos) << msg;
}

TEST(XmlReader, RefusesAnyDoctype) {
  EXPECT_NE(ErrorOf("<!DOCTYPE a><a/>").find("DOCTYPE"), std::string::npos);
  EXPECT_NE(ErrorOf(R"(<!DOCTYPE a SYSTEM "http://evil.example/x.dtd"><a/>)").find("DOCTYPE"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"(<!DOCTYPE a [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><a/>)")
                .find("DOCTYPE"),
            std::string::npos);
}

TEST(XmlReader, RefusesUndefinedEntity) {
  EXPECT_NE(ErrorOf("<a>&nbsp;</a>").find("undefined entity"), std::string::npos);
  // The five predefined ones and character references are fine.
  EXPECT_EQ(MustParse("<a>&lt;&gt;&amp;&apos;&quot;&#233;&#x1F600;</a>").text,
            "<>&'\"\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(XmlReader, DepthLimit) {
  XmlLimits limits;
  limits.max_depth = 4;
  EXPECT_TRUE(ParseXml("<a><b><c><d/></c></b></a>", limits).ok());
  EXPECT_NE(ErrorOf("<a><b><c><d><e/></d></c></b></a>", limits).find("deeper than 4"),
            std::string::npos);
  // Default limit: 32.
  std::string deep;
  for (int i = 0; i < 33; ++i) deep += "<a>";
  for (int i = 0; i < 33; ++i) deep += "</a>";
  EXPECT_NE(ErrorOf(deep).find("deeper than 32"), std::string::npos);
  std::string ok = deep.substr(3, deep.size() - 7);  // 32 levels
  EXPECT_TRUE(ParseXml(ok).ok());
}

TEST(XmlReader, ElementLimit) {
  XmlLimits limits;
  limits.max_elements = 3;
  EXPECT_TRUE(ParseXml("<a><b/><c/></a>", limits).ok());
  EXPECT_NE(ErrorOf("<a><b/><c/><d/></a>", limits).find("more than 3 elements"), std::string::npos);
  std::string wide = "<a>";
  for (int i = 0; i < 10000; ++i) wide += "<b/>";
  wide += "</a>";
  EXPECT_NE(ErrorOf(wide).find("more than 10000 elements"), std::string::npos);
}

TEST(XmlReader, ByteLimitIsTooLarge) {
  XmlLimits limits;
  limits.max_bytes = 10;
  auto r = ParseXml("<a>0123456789</a>", limits);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kTooLarge);
  EXPECT_TRUE(ParseXml("<a>01</a>", limits).ok());
}

TEST(XmlReader, Malformed) {
  EXPECT_NE(ErrorOf("<a><b></a>").find("line 1"), std::string::npos);
  EXPECT_NE(ErrorOf("<a>").find("truncated"), std::string::npos);
  EXPECT_NE(ErrorOf("<D:propfind xmlns:D=\"DAV:\"><D:prop>").find("truncated"), std::string::npos);
  EXPECT_FALSE(ErrorOf("<a b='1' b='2'/>").empty());
  EXPECT_FALSE(ErrorOf("just text").empty());
  EXPECT_FALSE(ErrorOf("<a>\x01</a>").empty());      // not an XML character
  EXPECT_FALSE(ErrorOf("<a>&#1;</a>").empty());      // nor as a reference
  EXPECT_FALSE(ErrorOf("<a>\xff\xfe</a>").empty());  // invalid UTF-8
  EXPECT_FALSE(ErrorOf(std::string("<a>\0</a>", 8)).empty());
  EXPECT_FALSE(ErrorOf("<a xmlns:p=''/>").empty());  // undeclaring a prefix (NS 1.0)
}

TEST(XmlReader, UndeclaredPrefix) {
  EXPECT_NE(ErrorOf("<D:propfind><D:allprop/></D:propfind>").find("undeclared namespace prefix"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<a z:k='v'/>").find("undeclared namespace prefix"), std::string::npos);
}

TEST(XmlReader, MultipleRoots) {
  EXPECT_NE(ErrorOf("<a/><b/>").find("after the root"), std::string::npos);
  EXPECT_NE(ErrorOf("<a/>trailing").find("after the root"), std::string::npos);
  EXPECT_TRUE(ParseXml("<a/>\n  <!-- ok -->\n").ok());
}

TEST(XmlReader, Empty) {
  EXPECT_EQ(ErrorOf(""), "empty XML body");
  EXPECT_NE(ErrorOf("   \n").find("no root element"), std::string::npos);
  EXPECT_NE(ErrorOf("<?xml version=\"1.0\"?>").find("no root element"), std::string::npos);
}

TEST(XmlReader, Encodings) {
  // Latin-1 is one of expat's built-ins: text comes back as UTF-8.
  auto latin = MustParse("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\xE9</a>");
  EXPECT_EQ(latin.text, "caf\xC3\xA9");
  // UTF-16 with a BOM (XML 1.0 §4.3.3 requires it be accepted).
  std::string utf16("\xFF\xFE<\0a\0>\0\xE9\0<\0/\0a\0>\0", 18);
  EXPECT_EQ(MustParse(utf16).text, "\xC3\xA9");
  // Anything expat does not know is refused, not guessed.
  EXPECT_NE(ErrorOf("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><a/>").find("encoding"),
            std::string::npos);
  EXPECT_NE(ErrorOf("<?xml version=\"1.0\" encoding=\"EBCDIC-nope\"?><a/>").find("encoding"),
            std::string::npos);
  // A UTF-8 BOM is fine.
  EXPECT_EQ(MustParse("\xEF\xBB\xBF<a>x</a>").text, "x");
}

TEST(XmlReader, ChildReturnsFirstMatch) {
  auto e = MustParse(R"(<a xmlns="urn:a" xmlns:b="urn:b"><x>1</x><b:x>2</b:x><x>3</x></a>)");
  EXPECT_EQ(e.Child("urn:a", "x")->text, "1");
  EXPECT_EQ(e.Child("urn:b", "x")->text, "2");
  EXPECT_EQ(e.Child("", "x"), nullptr);
}

TEST(XmlReader, ElementInXmlNamespaceRoundTrips) {
  auto e = MustParse(R"(<p><xml:odd xml:space="preserve"> </xml:odd></p>)");
  ASSERT_EQ(e.children.size(), 1u);
  EXPECT_EQ(e.children[0].ns, kXmlNs);
  EXPECT_EQ(e.children[0].text, " ");
  ExpectRoundTrip(e);
}

}  // namespace
}  // namespace nubo::dav
