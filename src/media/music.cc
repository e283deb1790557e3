#include "media/music.h"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "files/names.h"
#include "media/photos.h"
#include "search/extract.h"

namespace nubo::media {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return out;
}

std::string Extension(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string() : Lower(name.substr(dot + 1));
}

// The leading number of "3" or "3/12", within 0..9999.
int64_t LeadingNumber(std::string_view v) {
  int64_t n = 0;
  size_t i = 0;
  while (i < v.size() && v[i] == ' ') ++i;
  size_t start = i;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9' && i - start < 5) n = n * 10 + (v[i++] - '0');
  return std::min<int64_t>(n, 9999);
}

std::string Clean(std::string_view v) {
  std::string s = search::PlainText(v, 512);
  size_t b = s.find_first_not_of(' ');
  size_t e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

constexpr std::array<std::string_view, 10> kAudioExt = {"mp3", "flac", "ogg", "oga", "opus",
                                                        "m4a", "aac",  "wav", "wma", "aiff"};

}  // namespace

bool IsAudio(std::string_view name, std::string_view mime) {
  if (mime.rfind("audio/", 0) == 0) return true;
  std::string ext = Extension(name);
  return std::find(kAudioExt.begin(), kAudioExt.end(), ext) != kAudioExt.end();
}

std::string AudioSuffix(std::string_view name) {
  std::string ext = Extension(name);
  return std::find(kAudioExt.begin(), kAudioExt.end(), ext) != kAudioExt.end() ? "." + ext
                                                                               : std::string();
}

meta::TrackRow ParseTrackFacts(std::string_view facts, const meta::NodeRow& node) {
  meta::TrackRow t;
  t.node_id = node.id;
  t.drive_id = node.drive_id;
  ForEachFact(facts, [&](std::string_view key, std::string_view value) {
    if (key == "title") {
      t.title = Clean(value);
    } else if (key == "artist") {
      t.artist = Clean(value);
    } else if (key == "albumartist") {
      t.album_artist = Clean(value);
    } else if (key == "album") {
      t.album = Clean(value);
    } else if (key == "genre") {
      t.genre = Clean(value);
    } else if (key == "track") {
      t.track_no = LeadingNumber(value);
    } else if (key == "disc") {
      t.disc_no = LeadingNumber(value);
    } else if (key == "year") {
      t.year = LeadingNumber(value);
    } else if (key == "duration_ms") {
      int64_t ms = 0;
      for (char c : value) {
        if (c < '0' || c > '9' || ms > 100LL * 3600 * 1000) break;
        ms = ms * 10 + (c - '0');
      }
      t.duration_ms = ms;
    }
  });
  if (t.title.empty()) {
    size_t dot = node.name.rfind('.');
    t.title = dot == std::string::npos || dot == 0 ? node.name : node.name.substr(0, dot);
  }
  if (t.album_artist.empty()) t.album_artist = t.artist;
  t.artist_key = files::NameKey(t.album_artist);
  t.album_key = files::NameKey(t.album);
  return t;
}

}  // namespace nubo::media
