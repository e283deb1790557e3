// A small streaming XML writer for DAV responses (RFC 4918 §13 multistatus,
// §9.10 lock discovery, §16 error bodies). Output accumulates in a string the
// caller drains between rows, so a PROPFIND over a large folder is written
// while rows stream (ARCHITECTURE.md invariant 9) instead of built as a tree.
// Thread-safety: none; one writer per response.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nubo::dav {

// Appends `text` escaped for XML 1.0 character data, or for a double-quoted
// attribute value when `attribute`. Escapes & < > " and CR (which a parser
// would otherwise normalize away); in attributes also TAB and LF (attribute
// value normalization would turn them into spaces). Anything XML 1.0 cannot
// carry (control characters other than TAB/CR/LF, U+FFFE/U+FFFF, invalid
// UTF-8, encoded surrogates) becomes U+FFFD, so a hostile file name cannot
// break the document.
void AppendXmlEscaped(std::string& out, std::string_view text, bool attribute = false);

class XmlWriter {
 public:
  // Writes the XML declaration.
  XmlWriter();

  // Starts <name> in namespace `ns` ("" for none). `declare` lists (prefix,
  // uri) bindings written on this element and in scope until its Close, e.g.
  // {{"d", "DAV:"}, {"oc", "http://owncloud.org/ns"}}; prefix "" declares the
  // default namespace. An element whose namespace has no binding in scope
  // gets one on itself with a generated prefix (ns1, ns2…, the lowest not in
  // scope). The XML namespace always uses its reserved "xml" prefix. `name`
  // and prefixes must be valid XML names and `ns` must not be the xmlns
  // namespace (they come from our code or from parsed XML, never from file
  // names).
  void Open(std::string_view ns, std::string_view name,
            std::vector<std::pair<std::string, std::string>> declare = {});
  // Closes the innermost open element. Closing with nothing open is a bug
  // (asserts in debug builds, ignored otherwise).
  void Close();
  // <name>text</name>, text escaped by AppendXmlEscaped.
  void Leaf(std::string_view ns, std::string_view name, std::string_view text);
  // <name/>
  void Empty(std::string_view ns, std::string_view name);
  // Pre-serialized XML appended verbatim (dead property values from
  // XmlElement::InnerXml, which are context-free). The caller vouches for it.
  void Raw(std::string_view xml);
  // Whether `prefix` names namespace `uri` here (in scope, not shadowed):
  // then text written with Raw may use it.
  bool Bound(std::string_view prefix, std::string_view uri);

  // Bytes written so far and not yet taken; the caller may swap or clear it
  // between rows (the writer only ever appends).
  std::string& buffer() { return out_; }
  const std::string& buffer() const { return out_; }
  // Number of open elements; 0 when the document is complete.
  size_t depth() const { return open_.size(); }

 private:
  struct Binding {
    std::string prefix;  // "" is the default namespace
    std::string uri;
  };
  struct OpenElement {
    size_t qname_at;      // where this element's qname starts in names_
    size_t bindings = 0;  // bindings_.size() before this element's declarations
  };

  // Writes "<qname" plus declarations and leaves the qname in qname_.
  void StartTag(std::string_view ns, std::string_view name,
                const std::vector<std::pair<std::string, std::string>>& declare);
  // The index of the binding of `uri` in scope and not shadowed, or -1.
  long FindPrefix(std::string_view uri);
  bool PrefixInScope(std::string_view prefix) const;
  // Drops the bindings past `size` (those of elements just ended).
  void PopBindings(size_t size);

  // A multistatus writes tens of elements per row: nothing below allocates
  // once the buffers have grown, and a run of elements in one namespace
  // looks its prefix up once.
  std::string out_;
  std::vector<Binding> bindings_;  // in scope, outermost first
  uint64_t bindings_gen_ = 0;      // bumped whenever bindings_ changes
  std::vector<OpenElement> open_;
  std::string names_;  // the open elements' qnames, concatenated (a stack)
  std::string qname_;  // the qname of the last start tag
  // FindPrefix's last answer, valid while bindings_gen_ is unchanged.
  std::string cached_uri_;
  long cached_index_ = -1;
  uint64_t cached_gen_ = ~uint64_t{0};
};

}  // namespace nubo::dav
