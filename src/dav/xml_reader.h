// RFC 4918 §8.2 XML request bodies: PROPFIND, PROPPATCH and LOCK bodies
// parsed into a small immutable tree of plain values. The parser (expat, the
// only file that includes expat.h) is namespace-aware and hostile-input safe:
// no DTD of any kind is accepted, so entity expansion (billion laughs) and
// external entities (XXE, §20.6) cannot happen, and bytes, depth and element
// count are bounded. Thread-safety: ParseXml is pure; an XmlElement is a
// plain value (safe to share read-only).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace nubo::dav {

// The namespace RFC 4918 §21 defines; compared exactly (case-sensitive).
inline constexpr std::string_view kDavNs = "DAV:";
// Bound to the "xml" prefix by the Namespaces spec (xml:lang, RFC 4918 §4.3).
inline constexpr std::string_view kXmlNs = "http://www.w3.org/XML/1998/namespace";

struct XmlElement {
  std::string ns;    // namespace URI ("DAV:" for DAV elements), "" when none
  std::string name;  // local name
  // In document order. The name is "<ns-uri> <local>" (one space) for a
  // namespaced attribute, the plain local name otherwise; namespace
  // declarations (xmlns, xmlns:p) are not attributes.
  std::vector<std::pair<std::string, std::string>> attrs;
  // Character data directly inside this element (not its children's),
  // concatenated. Whitespace-only text of an element that has children is
  // dropped as formatting; any other text is kept exactly, so callers that
  // want a token (href, owner) should Trim it. Mixed content loses the
  // interleaving of text and children (the text is kept, its position is not).
  std::string text;
  std::vector<XmlElement> children;

  // First child with this namespace URI and local name, or null. The pointer
  // lives as long as this element.
  const XmlElement* Child(std::string_view ns, std::string_view name) const;

  // Text + children serialized as a context-free XML fragment (dead property
  // values, RFC 4918 §9.2: PROPPATCH stores it, PROPFIND emits it inside the
  // property element). Every top-level child element declares its namespace
  // with an explicit default-namespace form (xmlns="…", or xmlns="" when it
  // has none), so the fragment means the same inside any enclosing prefixes;
  // namespaced attributes get generated prefixes (a0, a1…) declared on their
  // own element. Original prefixes are not kept, so QNames inside text
  // content lose their binding. ParseXml of `<w>` + InnerXml() + `</w>` gives
  // back this element's text and children exactly.
  std::string InnerXml() const;

  friend bool operator==(const XmlElement&, const XmlElement&) = default;
};

struct XmlLimits {
  size_t max_bytes = 1 << 20;
  size_t max_depth = 32;  // the root element is depth 1
  size_t max_elements = 10000;
};

// Parses a complete XML document into its root element.
//
// On failure returns InvalidArgument whose message says why (safe to show a
// client): malformed XML (with line/column), a DOCTYPE of any kind, an
// undeclared namespace prefix, junk after the root (a second root), an
// encoding expat cannot decode (UTF-8, UTF-16, ISO-8859-1 and US-ASCII are
// accepted, as XML 1.0 requires; text is always returned as UTF-8), or depth
// or element count over `limits`. A body larger than `limits.max_bytes` is
// TooLarge (→ 413). An empty body is InvalidArgument ("empty XML body"):
// whether an empty body is allowed (PROPFIND §9.1 treats it as allprop, LOCK
// §9.10.7 as a refresh) is the caller's decision, made before calling.
Result<XmlElement> ParseXml(std::string_view body, const XmlLimits& limits = {});

}  // namespace nubo::dav
