#include "dav/xml_writer.h"

#include <array>
#include <cassert>
#include <cstdint>

namespace nubo::dav {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kXmlNamespace = "http://www.w3.org/XML/1998/namespace";

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629 §4: no
// overlongs, no surrogates, nothing above U+10FFFF) and its code point;
// 0 when the bytes there are not one.
size_t DecodeUtf8(std::string_view s, size_t i, uint32_t* cp) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k) { return k < s.size() && (byte(k) & 0xC0) == 0x80; };
  unsigned char b = byte(i);
  if (b < 0x80) {
    *cp = b;
    return 1;
  }
  if (b >= 0xC2 && b <= 0xDF && cont(i + 1)) {
    *cp = (b & 0x1Fu) << 6 | (byte(i + 1) & 0x3Fu);
    return 2;
  }
  if (b >= 0xE0 && b <= 0xEF && cont(i + 1) && cont(i + 2)) {
    uint32_t c = (b & 0x0Fu) << 12 | (byte(i + 1) & 0x3Fu) << 6 | (byte(i + 2) & 0x3Fu);
    if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF)) return 0;
    *cp = c;
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
    uint32_t c = (b & 0x07u) << 18 | (byte(i + 1) & 0x3Fu) << 12 | (byte(i + 2) & 0x3Fu) << 6 |
                 (byte(i + 3) & 0x3Fu);
    if (c < 0x10000 || c > 0x10FFFF) return 0;
    *cp = c;
    return 4;
  }
  return 0;
}

// Bytes that stand for themselves: printable ASCII except the markup
// characters. A double quote is markup only inside an attribute value it
// delimits (XML 1.0 §2.4), so text keeps it as is — an ETag is quoted and
// every listing carries thousands. Everything else takes the slow path.
constexpr auto kPlainText = [] {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[c] = c != '&' && c != '<' && c != '>';
  return t;
}();
constexpr auto kPlainAttribute = [] {
  std::array<bool, 256> t = kPlainText;
  t['"'] = false;
  return t;
}();

}  // namespace

void AppendXmlEscaped(std::string& out, std::string_view text, bool attribute) {
  out.reserve(out.size() + text.size());
  const std::array<bool, 256>& kPlain = attribute ? kPlainAttribute : kPlainText;
  size_t i = 0;
  while (i < text.size()) {
    // Most names are plain ASCII: copy runs, not characters.
    size_t run = i;
    while (run < text.size() && kPlain[static_cast<unsigned char>(text[run])]) ++run;
    if (run > i) {
      out.append(text.data() + i, run - i);
      i = run;
      if (i == text.size()) break;
    }
    uint32_t cp = 0;
    size_t n = DecodeUtf8(text, i, &cp);
    if (n == 0) {
      // One replacement per offending byte: simple, and never swallows a
      // following valid character.
      out += kReplacement;
      ++i;
      continue;
    }
    if (n > 1) {
      // XML 1.0 §2.2 Char excludes U+FFFE and U+FFFF.
      if (cp == 0xFFFE || cp == 0xFFFF) {
        out += kReplacement;
      } else {
        out.append(text.substr(i, n));
      }
      i += n;
      continue;
    }
    char c = text[i++];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";  // also keeps "]]>" out of character data
        break;
      case '"':
        out += "&quot;";
        break;
      case '\r':
        out += "&#13;";  // a literal CR would be normalized to LF (XML 1.0 §2.11)
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += kReplacement;
        } else {
          out += c;
        }
    }
  }
}

XmlWriter::XmlWriter() { out_ = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"; }

long XmlWriter::FindPrefix(std::string_view uri) {
  if (cached_gen_ == bindings_gen_ && cached_uri_ == uri) return cached_index_;
  long found = -1;
  // Innermost first; a prefix rebound further in shadows its outer binding.
  for (size_t i = bindings_.size(); i-- > 0 && found < 0;) {
    const Binding& b = bindings_[i];
    if (b.uri != uri) continue;
    bool shadowed = false;
    for (size_t j = i + 1; j < bindings_.size(); ++j) {
      if (bindings_[j].prefix == b.prefix) shadowed = true;
    }
    if (!shadowed) found = static_cast<long>(i);
  }
  cached_uri_.assign(uri);
  cached_index_ = found;
  cached_gen_ = bindings_gen_;
  return found;
}

bool XmlWriter::PrefixInScope(std::string_view prefix) const {
  for (const auto& b : bindings_) {
    if (b.prefix == prefix) return true;
  }
  return false;
}

void XmlWriter::PopBindings(size_t size) {
  if (bindings_.size() == size) return;
  bindings_.resize(size);
  ++bindings_gen_;
}

void XmlWriter::StartTag(std::string_view ns, std::string_view name,
                         const std::vector<std::pair<std::string, std::string>>& declare) {
  // Declarations on an element are in scope for its own name (Namespaces
  // in XML §6.1), so they are bound before the name is resolved; the new
  // bindings from `first` on are written in the start tag.
  const size_t first = bindings_.size();
  for (const auto& [prefix, uri] : declare) bindings_.push_back({prefix, uri});
  if (!declare.empty()) ++bindings_gen_;
  qname_.clear();
  if (ns.empty()) {
    // No namespace: legal only where no default namespace is in effect.
    const std::string* def = nullptr;
    for (size_t i = bindings_.size(); i-- > 0;) {
      if (bindings_[i].prefix.empty()) {
        def = &bindings_[i].uri;
        break;
      }
    }
    if (def != nullptr && !def->empty()) {
      bindings_.push_back({"", ""});  // written as xmlns=""
      ++bindings_gen_;
    }
    qname_ = name;
  } else if (ns == kXmlNamespace) {
    qname_ = "xml:";  // bound by definition, never declarable
    qname_ += name;
  } else if (long i = FindPrefix(ns); i >= 0) {
    const std::string& prefix = bindings_[static_cast<size_t>(i)].prefix;
    if (!prefix.empty()) {
      qname_ = prefix;
      qname_ += ':';
    }
    qname_ += name;
  } else {
    std::string prefix;
    for (int n = 1;; ++n) {
      prefix = "ns" + std::to_string(n);
      if (!PrefixInScope(prefix)) break;
    }
    qname_ = prefix + ":";
    qname_ += name;
    bindings_.push_back({std::move(prefix), std::string(ns)});
    ++bindings_gen_;
  }
  out_ += '<';
  out_ += qname_;
  for (size_t i = first; i < bindings_.size(); ++i) {
    const Binding& b = bindings_[i];
    if (b.prefix.empty()) {
      out_ += " xmlns=\"";
    } else {
      out_ += " xmlns:";
      out_ += b.prefix;
      out_ += "=\"";
    }
    AppendXmlEscaped(out_, b.uri, /*attribute=*/true);
    out_ += '"';
  }
}

void XmlWriter::Open(std::string_view ns, std::string_view name,
                     std::vector<std::pair<std::string, std::string>> declare) {
  size_t before = bindings_.size();
  StartTag(ns, name, declare);
  out_ += '>';
  open_.push_back({names_.size(), before});
  names_ += qname_;
}

void XmlWriter::Close() {
  assert(!open_.empty() && "XmlWriter::Close with no open element");
  if (open_.empty()) return;
  const OpenElement& e = open_.back();
  out_ += "</";
  out_.append(names_, e.qname_at, std::string::npos);
  out_ += '>';
  names_.resize(e.qname_at);
  PopBindings(e.bindings);
  open_.pop_back();
}

void XmlWriter::Leaf(std::string_view ns, std::string_view name, std::string_view text) {
  size_t before = bindings_.size();
  StartTag(ns, name, {});
  out_ += '>';
  AppendXmlEscaped(out_, text);
  out_ += "</";
  out_ += qname_;
  out_ += '>';
  PopBindings(before);
}

void XmlWriter::Empty(std::string_view ns, std::string_view name) {
  size_t before = bindings_.size();
  StartTag(ns, name, {});
  out_ += "/>";
  PopBindings(before);
}

void XmlWriter::Raw(std::string_view xml) { out_.append(xml); }

bool XmlWriter::Bound(std::string_view prefix, std::string_view uri) {
  const long i = FindPrefix(uri);
  return i >= 0 && bindings_[static_cast<size_t>(i)].prefix == prefix;
}

}  // namespace nubo::dav
