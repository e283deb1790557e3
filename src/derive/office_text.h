// The text of an office document (OOXML: DOCX, XLSX, PPTX; OpenDocument:
// ODT, ODS, ODP): a ZIP archive whose text sits in a few XML parts. Read
// with libarchive (entries streamed, their sizes bounded) and expat (no
// DTDs, no external entities). Runs inside the isolated media helper.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo::derive {

struct OfficeLimits {
  size_t max_text = 1 << 20;           // bytes of text returned
  size_t max_part_bytes = 64 << 20;    // uncompressed bytes read per XML part
  size_t max_total_bytes = 256 << 20;  // uncompressed bytes read in all
};

// `archive` is the whole file in memory (the helper maps it). InvalidArgument
// when it is not a ZIP or has no text part.
Result<std::string> OfficeText(std::string_view archive, const OfficeLimits& limits = {});

}  // namespace nubo::derive
