// Fuzzes the text extractors of the full-text index: the in-server plain
// text and HTML readers (search/extract.h) and the office-document reader
// of the media helper (derive/office_text.h), the query builder
// (search/query.h), and the parsers of the helper's photo and audio facts
// (media/photos.h, media/music.h). Each must stay bounded and return valid
// UTF-8 without control characters, whatever the bytes.
#include <cstdint>
#include <string>
#include <string_view>

#include "derive/office_text.h"
#include "fuzz/fuzz_check.h"
#include "media/music.h"
#include "media/photos.h"
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
  nubo::meta::NodeRow node;
  node.id = 1;
  node.name = "f.mp3";
  node.mtime_ms = 5;
  const nubo::meta::PhotoRow photo = media::ParsePhotoFacts(in, node);
  FUZZ_CHECK(photo.orientation >= 1 && photo.orientation <= 8);
  FUZZ_CHECK(photo.lat.has_value() == photo.lon.has_value());
  if (photo.lat)
    FUZZ_CHECK(*photo.lat >= -90 && *photo.lat <= 90 && *photo.lon >= -180 && *photo.lon <= 180);
  FUZZ_CHECK(photo.taken_exact || photo.taken_at_ms == 5);
  FUZZ_CHECK(ValidUtf8(photo.camera) && photo.camera.size() <= 128);
  const nubo::meta::TrackRow track = media::ParseTrackFacts(in, node);
  FUZZ_CHECK(!track.title.empty());
  FUZZ_CHECK(track.track_no >= 0 && track.track_no <= 9999 && track.disc_no <= 9999);
  FUZZ_CHECK(ValidUtf8(track.title) && ValidUtf8(track.album_artist) && ValidUtf8(track.genre));
  return 0;
}
