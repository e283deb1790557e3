#include "dav/xml_writer.h"

#include <gtest/gtest.h>

#include "dav/xml_reader.h"

namespace nubo::dav {
namespace {

constexpr std::string_view kDecl = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n";

std::string Body(XmlWriter& w) { return w.buffer().substr(kDecl.size()); }

std::string Escaped(std::string_view s, bool attribute = false) {
  std::string out;
  AppendXmlEscaped(out, s, attribute);
  return out;
}

TEST(XmlWriter, Declaration) {
  XmlWriter w;
  EXPECT_EQ(w.buffer(), kDecl);
  EXPECT_EQ(w.depth(), 0u);
}

TEST(XmlWriter, MultistatusWithDeclaredPrefixes) {
  XmlWriter w;
  w.Open("DAV:", "multistatus", {{"d", "DAV:"}, {"oc", "http://owncloud.org/ns"}});
  w.Open("DAV:", "response");
  w.Leaf("DAV:", "href", "/dav/a b/");
  w.Open("DAV:", "propstat");
  w.Open("DAV:", "prop");
  w.Leaf("http://owncloud.org/ns", "fileid", "42");
  w.Open("DAV:", "resourcetype");
  w.Empty("DAV:", "collection");
  w.Close();
  w.Close();
  w.Leaf("DAV:", "status", "HTTP/1.1 200 OK");
  w.Close();
  w.Close();
  w.Close();
  EXPECT_EQ(w.depth(), 0u);
  EXPECT_EQ(Body(w),
            "<d:multistatus xmlns:d=\"DAV:\" xmlns:oc=\"http://owncloud.org/ns\">"
            "<d:response><d:href>/dav/a b/</d:href><d:propstat><d:prop>"
            "<oc:fileid>42</oc:fileid><d:resourcetype><d:collection/></d:resourcetype>"
            "</d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>"
            "</d:multistatus>");
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const XmlElement* prop =
      parsed->Child("DAV:", "response")->Child("DAV:", "propstat")->Child("DAV:", "prop");
  ASSERT_NE(prop, nullptr);
  EXPECT_EQ(prop->Child("http://owncloud.org/ns", "fileid")->text, "42");
  EXPECT_NE(prop->Child("DAV:", "resourcetype")->Child("DAV:", "collection"), nullptr);
}

TEST(XmlWriter, UndeclaredNamespaceGetsGeneratedPrefix) {
  XmlWriter w;
  w.Open("DAV:", "prop", {{"d", "DAV:"}});
  w.Empty("urn:x", "color");
  w.Leaf("urn:y", "size", "big");
  w.Open("urn:x", "outer");
  w.Empty("urn:x", "inner");  // reuses the binding on <outer>
  w.Empty("urn:z", "other");  // ns1 is taken here: next free
  w.Close();
  w.Close();
  EXPECT_EQ(Body(w),
            "<d:prop xmlns:d=\"DAV:\">"
            "<ns1:color xmlns:ns1=\"urn:x\"/>"
            "<ns1:size xmlns:ns1=\"urn:y\">big</ns1:size>"
            "<ns1:outer xmlns:ns1=\"urn:x\"><ns1:inner/>"
            "<ns2:other xmlns:ns2=\"urn:z\"/></ns1:outer>"
            "</d:prop>");
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->children[1].ns, "urn:y");
  EXPECT_EQ(parsed->children[2].children[1].ns, "urn:z");
}

TEST(XmlWriter, DefaultNamespaceAndNoNamespace) {
  XmlWriter w;
  w.Open("DAV:", "multistatus", {{"", "DAV:"}});
  w.Leaf("DAV:", "href", "/");
  w.Empty("", "bare");  // must undeclare the default
  w.Open("", "bare2");
  w.Empty("", "bare3");     // already undeclared by the parent
  w.Empty("DAV:", "back");  // the default is gone in here: needs a prefix
  w.Close();
  w.Close();
  EXPECT_EQ(Body(w),
            "<multistatus xmlns=\"DAV:\"><href>/</href><bare xmlns=\"\"/>"
            "<bare2 xmlns=\"\"><bare3/><ns1:back xmlns:ns1=\"DAV:\"/></bare2></multistatus>");
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->children[1].ns, "");
  EXPECT_EQ(parsed->children[2].children[0].ns, "");
  EXPECT_EQ(parsed->children[2].children[1].ns, "DAV:");
}

TEST(XmlWriter, NoNamespaceWithoutDefaultNeedsNoDeclaration) {
  XmlWriter w;
  w.Open("DAV:", "prop", {{"d", "DAV:"}});
  w.Empty("", "plain");
  w.Close();
  EXPECT_EQ(Body(w), "<d:prop xmlns:d=\"DAV:\"><plain/></d:prop>");
}

TEST(XmlWriter, ShadowedPrefixIsNotReused) {
  XmlWriter w;
  w.Open("urn:a", "r", {{"p", "urn:a"}});
  w.Open("urn:b", "s", {{"p", "urn:b"}});
  w.Empty("urn:a", "t");  // "p" now means urn:b
  w.Close();
  w.Close();
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << w.buffer();
  EXPECT_EQ(parsed->children[0].ns, "urn:b");
  EXPECT_EQ(parsed->children[0].children[0].ns, "urn:a");
}

TEST(XmlWriter, PrefixFollowsScopeChanges) {
  // The writer remembers the last prefix it looked up; every change of the
  // bindings in scope must be seen.
  XmlWriter w;
  w.Open("DAV:", "multistatus", {{"d", "DAV:"}});
  w.Open("urn:x", "a", {{"p", "urn:x"}});
  w.Empty("urn:x", "b");
  w.Close();
  w.Empty("urn:x", "c");  // p is out of scope now
  w.Open("urn:x", "e", {{"q", "urn:x"}});
  w.Empty("urn:x", "f");
  w.Leaf("DAV:", "g", "1");
  w.Close();
  w.Empty("DAV:", "h");
  w.Close();
  EXPECT_EQ(Body(w),
            "<d:multistatus xmlns:d=\"DAV:\"><p:a xmlns:p=\"urn:x\"><p:b/></p:a>"
            "<ns1:c xmlns:ns1=\"urn:x\"/><q:e xmlns:q=\"urn:x\"><q:f/><d:g>1</d:g></q:e><d:h/>"
            "</d:multistatus>");
}

TEST(XmlWriter, EscapesAtEveryRunBoundary) {
  // Plain runs are copied whole: specials at the start, the end, adjacent
  // and between long runs must still be escaped, and nothing dropped.
  EXPECT_EQ(Escaped("&"), "&amp;");
  EXPECT_EQ(Escaped("&abc"), "&amp;abc");
  EXPECT_EQ(Escaped("abc&"), "abc&amp;");
  EXPECT_EQ(Escaped("<<>>"), "&lt;&lt;&gt;&gt;");
  const std::string run(100, 'x');
  EXPECT_EQ(Escaped(run + "\xC3\xA9" + run + "<" + run), run + "\xC3\xA9" + run + "&lt;" + run);
  EXPECT_EQ(Escaped(run + "\x01"), run + "\xEF\xBF\xBD");
  EXPECT_EQ(Escaped(""), "");
}

TEST(XmlWriter, EscapesText) {
  EXPECT_EQ(Escaped("a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d\"e'f");
  // A double quote is markup only in an attribute value (XML 1.0 §2.4).
  EXPECT_EQ(Escaped("a\"b", true), "a&quot;b");
  EXPECT_EQ(Escaped("\"0123456789abcdef\""), "\"0123456789abcdef\"");
  EXPECT_EQ(Escaped("]]>"), "]]&gt;");
  EXPECT_EQ(Escaped("t\ta\nb\rc"), "t\ta\nb&#13;c");
  EXPECT_EQ(Escaped("t\ta\nb\rc", true), "t&#9;a&#10;b&#13;c");
  EXPECT_EQ(Escaped("caf\xC3\xA9 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xF0\x9F\x98\x80");
}

TEST(XmlWriter, ReplacesCharactersXmlCannotCarry) {
  const std::string r = "\xEF\xBF\xBD";
  EXPECT_EQ(Escaped(std::string("a\0b", 3)), "a" + r + "b");
  EXPECT_EQ(Escaped("\x01\x08\x0B\x0C\x1F\x7F"), r + r + r + r + r + "\x7F");
  EXPECT_EQ(Escaped("\xFF"), r);                          // not UTF-8
  EXPECT_EQ(Escaped("\xC3"), r);                          // truncated sequence
  EXPECT_EQ(Escaped("\xC0\xAF"), r + r);                  // overlong "/"
  EXPECT_EQ(Escaped("\xED\xA0\x80"), r + r + r);          // encoded surrogate
  EXPECT_EQ(Escaped("\xF4\x90\x80\x80"), r + r + r + r);  // above U+10FFFF
  EXPECT_EQ(Escaped("\xEF\xBF\xBE\xEF\xBF\xBF"), r + r);  // U+FFFE, U+FFFF
  EXPECT_EQ(Escaped("\xC3(x"), r + "(x");                 // next character survives
}

TEST(XmlWriter, HostileFileNameCannotBreakDocument) {
  std::string hostile = std::string("</d:href><d:evil/>&\x01\x1b[31m\xFF\0]]><!--", 30);
  XmlWriter w;
  w.Open("DAV:", "multistatus", {{"d", "DAV:"}});
  w.Open("DAV:", "response");
  w.Leaf("DAV:", "href", hostile);
  w.Leaf("DAV:", "displayname", hostile);
  w.Close();
  w.Close();
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const XmlElement* resp = parsed->Child("DAV:", "response");
  ASSERT_NE(resp, nullptr);
  ASSERT_EQ(resp->children.size(), 2u);
  EXPECT_EQ(resp->Child("DAV:", "evil"), nullptr);
  EXPECT_EQ(resp->children[0].text.substr(0, 18), "</d:href><d:evil/>");
}

TEST(XmlWriter, RawDeadPropertyRoundTrip) {
  auto in = ParseXml(
      R"(<D:prop xmlns:D="DAV:" xmlns:Z="urn:z"><Z:authors><Z:a Z:role="x">Jim</Z:a><b xmlns="">2</b></Z:authors></D:prop>)");
  ASSERT_TRUE(in.ok());
  const XmlElement& prop = in->children[0];
  XmlWriter w;
  w.Open("DAV:", "prop", {{"", "DAV:"}});  // a default namespace around the raw fragment
  w.Open(prop.ns, prop.name);
  w.Raw(prop.InnerXml());
  w.Close();
  w.Close();
  auto out = ParseXml(w.buffer());
  ASSERT_TRUE(out.ok()) << out.status().ToString() << w.buffer();
  ASSERT_EQ(out->children.size(), 1u);
  EXPECT_EQ(out->children[0], prop) << w.buffer();
}

TEST(XmlWriter, EscapesNamespaceUris) {
  XmlWriter w;
  w.Empty("urn:a&b\"c", "x");
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << w.buffer();
  EXPECT_EQ(parsed->ns, "urn:a&b\"c");
}

TEST(XmlWriter, XmlNamespaceUsesReservedPrefix) {
  XmlWriter w;
  w.Open("DAV:", "prop", {{"d", "DAV:"}});
  w.Leaf(kXmlNs, "odd", "x");
  w.Close();
  EXPECT_EQ(Body(w), "<d:prop xmlns:d=\"DAV:\"><xml:odd>x</xml:odd></d:prop>");
  auto parsed = ParseXml(w.buffer());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->children[0].ns, kXmlNs);
}

TEST(XmlWriter, CallerDrainsBuffer) {
  XmlWriter w;
  std::string sent;
  w.Open("DAV:", "multistatus", {{"d", "DAV:"}});
  for (int i = 0; i < 3; ++i) {
    w.Open("DAV:", "response");
    w.Leaf("DAV:", "href", "/f" + std::to_string(i));
    w.Close();
    sent += w.buffer();
    w.buffer().clear();  // flushed to the socket
  }
  w.Close();
  sent += w.buffer();
  auto parsed = ParseXml(sent);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->children.size(), 3u);
  EXPECT_EQ(parsed->children[2].Child("DAV:", "href")->text, "/f2");
}

TEST(XmlWriter, BoundSeesScopeAndShadowing) {
  XmlWriter w;
  EXPECT_FALSE(w.Bound("d", "DAV:"));
  w.Open("DAV:", "multistatus", {{"d", "DAV:"}, {"C", "urn:ietf:params:xml:ns:caldav"}});
  EXPECT_TRUE(w.Bound("d", "DAV:"));
  EXPECT_FALSE(w.Bound("C", "DAV:"));
  EXPECT_FALSE(w.Bound("d", "urn:ietf:params:xml:ns:caldav"));
  // An inner element rebinding "d" shadows it for DAV: until it closes.
  w.Open("urn:x", "inner", {{"d", "urn:x"}});
  EXPECT_FALSE(w.Bound("d", "DAV:"));
  EXPECT_TRUE(w.Bound("d", "urn:x"));
  w.Close();
  EXPECT_TRUE(w.Bound("d", "DAV:"));
  w.Close();
  EXPECT_FALSE(w.Bound("d", "DAV:"));
}

}  // namespace
}  // namespace nubo::dav
