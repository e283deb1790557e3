// Fuzzes the DAV XML reader (RFC 4918 §8.2 bodies) and the writer's
// escaping: nothing crashes, every accepted document survives a round trip
// through InnerXml (what PROPPATCH stores and PROPFIND re-emits), and
// anything the writer escapes stays well-formed.
#include <cstdint>
#include <string>
#include <string_view>

#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo::dav;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const XmlLimits limits;
  // The re-serialized form is bigger (escapes, declarations) and one level
  // deeper (the wrapper), so it gets room for exactly that.
  XmlLimits roomy;
  roomy.max_bytes = SIZE_MAX;
  roomy.max_depth = limits.max_depth + 1;
  roomy.max_elements = limits.max_elements + 1;

  auto r = ParseXml(in, limits);
  if (r.ok()) {
    XmlElement holder;
    holder.children.push_back(*r);
    std::string doc = "<w>" + holder.InnerXml() + "</w>";
    auto again = ParseXml(doc, roomy);
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->text.empty());
    FUZZ_CHECK(again->children.size() == 1);
    FUZZ_CHECK(again->children[0] == *r);
  } else {
    FUZZ_CHECK(!r.status().message().empty());
  }

  // Arbitrary bytes as text and as a namespace URI: the writer's output
  // must always parse.
  XmlWriter w;
  w.Open("DAV:", "multistatus", {{"d", "DAV:"}});
  w.Leaf("DAV:", "href", in);
  // Open's contract excludes the xmlns namespace (never a parsed element's);
  // the reader refuses URIs containing its separator (a space, which no URI
  // contains).
  bool usable_ns = !in.empty() && in != "http://www.w3.org/2000/xmlns/" &&
                   in.find(' ') == std::string_view::npos;
  w.Empty(usable_ns ? in : "urn:x", "p");
  w.Close();
  auto out = ParseXml(w.buffer(), roomy);
  FUZZ_CHECK(out.ok());
  FUZZ_CHECK(out->children.size() == 2);
  return 0;
}
