// RFC 4918 §8.2 request bodies through expat. The only file that includes
// expat.h (HOUSE_STYLE: heavy libraries behind one interface).
#include "dav/xml_reader.h"

#include <expat.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <optional>

#include "dav/xml_writer.h"
#include "util/ids.h"

namespace nubo::dav {

namespace {

// Expanded names arrive as "<uri><sep><local>". A space cannot occur in a
// namespace name that expat accepts (it refuses URIs containing the
// separator since 2.4.5, CVE-2022-25236) nor in a local name.
constexpr char kNsSep = ' ';

void SplitExpanded(const XML_Char* expanded, std::string* ns, std::string* local) {
  std::string_view s(expanded);
  size_t sep = s.rfind(kNsSep);
  if (sep == std::string_view::npos) {
    ns->clear();
    local->assign(s);
  } else {
    ns->assign(s.substr(0, sep));
    local->assign(s.substr(sep + 1));
  }
}

bool IsXmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

struct ParseState {
  XML_Parser parser = nullptr;
  const XmlLimits* limits = nullptr;
  std::optional<XmlElement> root;
  // Path from the root to the element being filled. Pointers stay valid: a
  // vector only grows while its owner is the innermost open element.
  std::vector<XmlElement*> stack;
  size_t elements = 0;
  std::optional<Status> error;  // set by a handler before it stops the parser

  void Fail(std::string message) {
    if (!error) error = Status::InvalidArgument(std::move(message));
    XML_StopParser(parser, XML_FALSE);
  }
};

void XMLCALL OnStart(void* ud, const XML_Char* name, const XML_Char** atts) {
  auto* st = static_cast<ParseState*>(ud);
  if (st->error) return;
  if (++st->elements > st->limits->max_elements) {
    st->Fail("XML body has more than " + std::to_string(st->limits->max_elements) + " elements");
    return;
  }
  if (st->stack.size() + 1 > st->limits->max_depth) {
    st->Fail("XML body nests deeper than " + std::to_string(st->limits->max_depth) + " levels");
    return;
  }
  XmlElement* e;
  if (st->stack.empty()) {
    st->root.emplace();
    e = &*st->root;
  } else {
    e = &st->stack.back()->children.emplace_back();
  }
  SplitExpanded(name, &e->ns, &e->name);
  // expat already names a namespaced attribute "<uri> <local>".
  for (const XML_Char** a = atts; *a != nullptr; a += 2) e->attrs.emplace_back(a[0], a[1]);
  st->stack.push_back(e);
}

void XMLCALL OnEnd(void* ud, const XML_Char* /*name*/) {
  auto* st = static_cast<ParseState*>(ud);
  if (st->error || st->stack.empty()) return;
  XmlElement* e = st->stack.back();
  // Indentation between child elements is formatting, not a value
  // (RFC 4918 §8.2 bodies are element-only content except leaves).
  if (!e->children.empty() && std::all_of(e->text.begin(), e->text.end(), IsXmlSpace)) {
    e->text.clear();
    e->text.shrink_to_fit();
  }
  st->stack.pop_back();
}

void XMLCALL OnText(void* ud, const XML_Char* s, int len) {
  auto* st = static_cast<ParseState*>(ud);
  if (st->error || st->stack.empty()) return;
  st->stack.back()->text.append(s, static_cast<size_t>(len));
}

// RFC 4918 §20.6: entities are the XXE / billion-laughs attack surface and
// no DAV client sends a DTD, so any DOCTYPE ends the parse before expat
// reads a single declaration from it.
void XMLCALL OnDoctype(void* ud, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  static_cast<ParseState*>(ud)->Fail("XML body must not contain a DOCTYPE (RFC 4918 §20.6)");
}

// Belt and braces: unreachable while OnDoctype refuses every DTD.
void XMLCALL OnEntityDecl(void* ud, const XML_Char*, int, const XML_Char*, int, const XML_Char*,
                          const XML_Char*, const XML_Char*, const XML_Char*) {
  static_cast<ParseState*>(ud)->Fail("XML body must not declare entities (RFC 4918 §20.6)");
}

int XMLCALL OnExternalEntityRef(XML_Parser, const XML_Char*, const XML_Char*, const XML_Char*,
                                const XML_Char*) {
  return XML_STATUS_ERROR;  // never fetch anything
}

struct ParserDeleter {
  void operator()(XML_Parser p) const { XML_ParserFree(p); }
};

// ---- InnerXml ----

void AppendName(std::string& out, std::string_view prefix, std::string_view local) {
  if (!prefix.empty()) {
    out += prefix;
    out += ':';
  }
  out += local;
}

// `parent_ns` is the default namespace in effect where `e` is written, or
// nullopt at the top of a fragment (unknown context: always declare).
void Serialize(const XmlElement& e, const std::optional<std::string>& parent_ns, std::string& out) {
  // Elements in the xml namespace must use the reserved prefix; that
  // namespace cannot be declared as a default (Namespaces in XML §3).
  bool xml_prefixed = e.ns == kXmlNs;
  std::string start;
  AppendName(start, xml_prefixed ? "xml" : "", e.name);
  std::optional<std::string> default_ns = parent_ns;
  if (!xml_prefixed && (!parent_ns || *parent_ns != e.ns)) {
    start += " xmlns=\"";
    AppendXmlEscaped(start, e.ns, /*attribute=*/true);
    start += '"';
    default_ns = e.ns;
  }
  // Namespaced attributes: one generated prefix per distinct URI, declared
  // here (a default namespace never applies to attributes).
  std::vector<std::string> attr_uris;
  std::string attrs;
  for (const auto& [qname, value] : e.attrs) {
    std::string_view q(qname);
    size_t sep = q.rfind(kNsSep);
    attrs += ' ';
    if (sep == std::string_view::npos) {
      attrs += q;
    } else {
      std::string_view uri = q.substr(0, sep);
      if (uri == kXmlNs) {
        AppendName(attrs, "xml", q.substr(sep + 1));
      } else {
        size_t idx = std::find(attr_uris.begin(), attr_uris.end(), uri) - attr_uris.begin();
        if (idx == attr_uris.size()) attr_uris.emplace_back(uri);
        AppendName(attrs, "a" + std::to_string(idx), q.substr(sep + 1));
      }
    }
    attrs += "=\"";
    AppendXmlEscaped(attrs, value, /*attribute=*/true);
    attrs += '"';
  }
  for (size_t i = 0; i < attr_uris.size(); ++i) {
    start += " xmlns:a" + std::to_string(i) + "=\"";
    AppendXmlEscaped(start, attr_uris[i], /*attribute=*/true);
    start += '"';
  }
  out += '<';
  out += start;
  out += attrs;
  if (e.text.empty() && e.children.empty()) {
    out += "/>";
    return;
  }
  out += '>';
  AppendXmlEscaped(out, e.text);
  for (const auto& c : e.children) Serialize(c, default_ns, out);
  out += "</";
  AppendName(out, xml_prefixed ? "xml" : "", e.name);
  out += '>';
}

}  // namespace

const XmlElement* XmlElement::Child(std::string_view want_ns, std::string_view want_name) const {
  for (const auto& c : children) {
    if (c.ns == want_ns && c.name == want_name) return &c;
  }
  return nullptr;
}

std::string XmlElement::InnerXml() const {
  std::string out;
  AppendXmlEscaped(out, text);
  for (const auto& c : children) Serialize(c, std::nullopt, out);
  return out;
}

Result<XmlElement> ParseXml(std::string_view body, const XmlLimits& limits) {
  if (body.empty()) return Status::InvalidArgument("empty XML body");
  if (body.size() > limits.max_bytes) {
    return Status::TooLarge("XML body is larger than " + std::to_string(limits.max_bytes) +
                            " bytes");
  }
  // expat takes an int length; max_bytes is normally far below, but a
  // caller-raised limit must not truncate silently.
  if (body.size() > static_cast<size_t>(INT_MAX)) return Status::TooLarge("XML body too large");

  // Encoding: nullptr lets expat follow the BOM / declaration (UTF-8,
  // UTF-16, ISO-8859-1, US-ASCII); anything else is UNKNOWN_ENCODING since no
  // unknown-encoding handler is installed.
  // One parser per thread, reset for each body: creating one allocates
  // its tables anew, a cost every PROPFIND of a polling client paid.
  // XML_ParserReset clears the handlers (set again below) and every state
  // of the previous document, and keeps the namespace separator.
  thread_local std::unique_ptr<XML_ParserStruct, ParserDeleter> parser;
  if (!parser || !XML_ParserReset(parser.get(), nullptr)) {
    parser.reset(XML_ParserCreateNS(nullptr, kNsSep));
  }
  if (!parser) return Status::ResourceExhausted("cannot allocate XML parser");
  XML_Parser p = parser.get();
  // The salt of expat's name hash tables keeps a client from choosing names
  // that collide. Without one, every document starts by drawing a new salt
  // from getrandom(2): a system call on every PROPFIND of a polling client.
  // A salt drawn once per thread and never sent anywhere defends the same.
  thread_local const unsigned long salt = [] {
    unsigned long v = 0;
    while (v == 0) RandomBytes(&v, sizeof v);  // 0 would mean "draw one"
    return v;
  }();
  XML_SetHashSalt(p, salt);

  ParseState st;
  st.parser = p;
  st.limits = &limits;
  XML_SetUserData(p, &st);
  XML_SetElementHandler(p, OnStart, OnEnd);
  XML_SetCharacterDataHandler(p, OnText);
  XML_SetStartDoctypeDeclHandler(p, OnDoctype);
  XML_SetEntityDeclHandler(p, OnEntityDecl);
  XML_SetExternalEntityRefHandler(p, OnExternalEntityRef);
  XML_SetParamEntityParsing(p, XML_PARAM_ENTITY_PARSING_NEVER);

  XML_Status rc = XML_Parse(p, body.data(), static_cast<int>(body.size()), XML_TRUE);
  if (st.error) return *st.error;
  if (rc != XML_STATUS_OK) {
    XML_Error code = XML_GetErrorCode(p);
    std::string where = " at line " + std::to_string(XML_GetCurrentLineNumber(p)) + ", column " +
                        std::to_string(XML_GetCurrentColumnNumber(p) + 1);
    switch (code) {
      case XML_ERROR_UNBOUND_PREFIX:
        return Status::InvalidArgument("XML body uses an undeclared namespace prefix" + where);
      case XML_ERROR_JUNK_AFTER_DOC_ELEMENT:
        return Status::InvalidArgument("XML body has content after the root element" + where);
      case XML_ERROR_UNKNOWN_ENCODING:
      case XML_ERROR_INCORRECT_ENCODING:
        return Status::InvalidArgument(
            "XML body declares an unsupported or wrong encoding (use UTF-8)");
      case XML_ERROR_UNDEFINED_ENTITY:
        return Status::InvalidArgument(
            "XML body references an undefined entity (entities are not supported)" + where);
      case XML_ERROR_NO_ELEMENTS:
        return Status::InvalidArgument("XML body has no root element or is truncated" + where);
      default:
        return Status::InvalidArgument(std::string("malformed XML body: ") + XML_ErrorString(code) +
                                       where);
    }
  }
  if (!st.root) return Status::InvalidArgument("XML body has no root element");
  return std::move(*st.root);
}

}  // namespace nubo::dav
