// Fuzzes the text extractors of the full-text index: the in-server plain
// text and HTML readers (search/extract.h) and the office-document reader
// of the media helper (derive/office_text.h), and the query builder
// (search/query.h). Each must stay bounded and return valid UTF-8 without
// control characters, whatever the bytes.
#include <cstdint>
#include <string>
#include <string_view>

#include "derive/office_text.h"
#include "fuzz/fuzz_check.h"
#include "search/extract.h"
#include "search/query.h"

namespace {

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80             ? 1
               : (c & 0xE0) == 0xC0 ? 2
               : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4
                                    : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    if (n == 1 && c < 0x20 && c != '\n' && c != '\t') return false;
    i += n;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nubo;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string plain = search::PlainText(in, 1000);
  FUZZ_CHECK(plain.size() <= 1000);
  FUZZ_CHECK(ValidUtf8(plain));
  const std::string html = search::HtmlText(in, 1000);
  FUZZ_CHECK(html.size() <= 1000);
  FUZZ_CHECK(ValidUtf8(html));
  derive::OfficeLimits limits;
  limits.max_text = 1000;
  auto office = derive::OfficeText(in, limits);
  if (office.ok()) FUZZ_CHECK(office->size() <= 1000);
  // Whatever the text, the query is phrases only: balanced quotes.
  const std::string q = search::FtsQuery(in);
  size_t quotes = 0;
  for (char c : q) quotes += c == '"';
  FUZZ_CHECK(quotes % 2 == 0);
  for (const search::Segment& s : search::SplitSnippet(in)) {
    FUZZ_CHECK(s.text.find('\x02') == std::string::npos &&
               s.text.find('\x03') == std::string::npos);
  }
  return 0;
}
