#include "derive/office_text.h"

#include <archive.h>
#include <archive_entry.h>
#include <expat.h>

#include <memory>
#include <vector>

namespace nubo::derive {

namespace {

// Which parts hold text, and how: OOXML keeps runs of text in elements
// named "t" (w:t, a:t, and the shared strings' t), OpenDocument in every
// character of its content.xml.
enum class Part { kNone, kOoxml, kOdf };

Part PartFor(std::string_view name) {
  auto starts = [&](std::string_view p) { return name.substr(0, p.size()) == p; };
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.substr(name.size() - s.size()) == s;
  };
  if (name == "word/document.xml" || starts("word/header") || starts("word/footer") ||
      name == "word/footnotes.xml" || name == "xl/sharedStrings.xml" ||
      (starts("ppt/slides/slide") && ends(".xml"))) {
    return Part::kOoxml;
  }
  if (name == "content.xml") return Part::kOdf;
  return Part::kNone;
}

std::string_view LocalName(const XML_Char* qname) {
  std::string_view n(qname);
  size_t sep = n.rfind('\x1f');  // namespace separator set below
  return sep == std::string_view::npos ? n : n.substr(sep + 1);
}

struct ParseState {
  Part part = Part::kNone;
  std::string* out = nullptr;
  size_t max = 0;
  int in_text = 0;  // depth inside OOXML "t" elements
  bool full = false;
};

void Append(ParseState& st, std::string_view s) {
  if (st.full) return;
  if (st.out->size() + s.size() > st.max) {
    // Cut on a character boundary.
    size_t room = st.max - st.out->size();
    while (room > 0 && (static_cast<unsigned char>(s[room]) & 0xC0) == 0x80) --room;
    st.out->append(s.substr(0, room));
    st.full = true;
    return;
  }
  st.out->append(s);
}

void Separate(ParseState& st) {
  if (!st.out->empty() && st.out->back() != ' ' && st.out->back() != '\n') Append(st, " ");
}

void XMLCALL OnStart(void* ud, const XML_Char* name, const XML_Char**) {
  auto& st = *static_cast<ParseState*>(ud);
  std::string_view local = LocalName(name);
  if (st.part == Part::kOoxml && local == "t") ++st.in_text;
  if (local == "tab" || local == "br" || local == "s") Separate(st);
}

void XMLCALL OnEnd(void* ud, const XML_Char* name) {
  auto& st = *static_cast<ParseState*>(ud);
  std::string_view local = LocalName(name);
  if (st.part == Part::kOoxml && local == "t" && st.in_text > 0) --st.in_text;
  // Paragraphs, table cells, shared strings and slides' paragraphs end a word.
  if (local == "p" || local == "h" || local == "si" || local == "tc" || local == "table-cell") {
    Separate(st);
  }
}

void XMLCALL OnText(void* ud, const XML_Char* s, int len) {
  auto& st = *static_cast<ParseState*>(ud);
  if (st.part == Part::kOdf || st.in_text > 0)
    Append(st, std::string_view(s, static_cast<size_t>(len)));
}

// Refuses any DTD: office parts never have one, and entities are how XML
// bombs work.
void XMLCALL OnDoctype(void* ud, const XML_Char*, const XML_Char*, const XML_Char*, int) {
  auto& st = *static_cast<ParseState*>(ud);
  st.full = true;
}

}  // namespace

Result<std::string> OfficeText(std::string_view data, const OfficeLimits& limits) {
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  archive_read_support_format_zip(a.get());
  if (archive_read_open_memory(a.get(), data.data(), data.size()) != ARCHIVE_OK) {
    return Status::InvalidArgument("not a ZIP archive");
  }
  std::string out;
  size_t total = 0;
  bool any_part = false;
  std::vector<char> buf(64 << 10);
  archive_entry* entry = nullptr;
  for (;;) {
    int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) break;  // damaged: keep what was read
    const char* path = archive_entry_pathname(entry);
    Part part = path ? PartFor(path) : Part::kNone;
    if (part == Part::kNone) continue;
    any_part = true;
    std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> p(
        XML_ParserCreateNS(nullptr, '\x1f'), XML_ParserFree);
    ParseState st{part, &out, limits.max_text};
    XML_SetUserData(p.get(), &st);
    XML_SetElementHandler(p.get(), OnStart, OnEnd);
    XML_SetCharacterDataHandler(p.get(), OnText);
    XML_SetStartDoctypeDeclHandler(p.get(), OnDoctype);
    XML_SetParamEntityParsing(p.get(), XML_PARAM_ENTITY_PARSING_NEVER);
    size_t part_bytes = 0;
    for (;;) {
      la_ssize_t n = archive_read_data(a.get(), buf.data(), buf.size());
      if (n <= 0) break;
      part_bytes += static_cast<size_t>(n);
      total += static_cast<size_t>(n);
      if (part_bytes > limits.max_part_bytes || total > limits.max_total_bytes) break;
      if (XML_Parse(p.get(), buf.data(), static_cast<int>(n), 0) != XML_STATUS_OK) break;
      if (st.full) break;
    }
    Separate(st);
    if (out.size() >= limits.max_text || total > limits.max_total_bytes) break;
  }
  if (!any_part) return Status::InvalidArgument("no text part in the archive");
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

}  // namespace nubo::derive
