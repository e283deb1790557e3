#include "media/photos.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "search/extract.h"

namespace nubo::media {

namespace {

// Days from 1970-01-01 to y-m-d (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<int64_t> Digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int64_t v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

std::optional<double> Number(std::string_view v, double lo, double hi) {
  std::string s(v);
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (s.empty() || !end || *end != '\0' || !std::isfinite(d) || d < lo || d > hi) {
    return std::nullopt;
  }
  return d;
}

}  // namespace

void ForEachFact(std::string_view facts,
                 const std::function<void(std::string_view, std::string_view)>& fn) {
  while (!facts.empty()) {
    size_t nl = facts.find('\n');
    std::string_view line = facts.substr(0, nl);
    facts.remove_prefix(nl == std::string_view::npos ? facts.size() : nl + 1);
    size_t eq = line.find('=');
    if (eq != std::string_view::npos) fn(line.substr(0, eq), line.substr(eq + 1));
  }
}

bool IsPhoto(std::string_view mime) {
  return mime.rfind("image/", 0) == 0 && mime.rfind("image/svg", 0) != 0;
}

std::optional<int64_t> ParseExifDateTime(std::string_view s) {
  if (s.size() < 19 || s[4] != ':' || s[7] != ':' || s[10] != ' ' || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  auto y = Digits(s, 0, 4), mo = Digits(s, 5, 2), d = Digits(s, 8, 2);
  auto h = Digits(s, 11, 2), mi = Digits(s, 14, 2), se = Digits(s, 17, 2);
  if (!y || !mo || !d || !h || !mi || !se) return std::nullopt;
  if (*y < 1800 || *mo < 1 || *mo > 12 || *d < 1 || *h > 23 || *mi > 59 || *se > 60) {
    return std::nullopt;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  if (*d > kDays[*mo - 1] + (*mo == 2 && leap ? 1 : 0)) return std::nullopt;
  return ((DaysFromCivil(*y, *mo, *d) * 24 + *h) * 60 + *mi) * 60000 + *se * 1000;
}

meta::PhotoRow ParsePhotoFacts(std::string_view facts, const meta::NodeRow& node) {
  meta::PhotoRow p;
  p.node_id = node.id;
  p.drive_id = node.drive_id;
  p.taken_at_ms = node.mtime_ms;
  std::optional<double> lat, lon;
  ForEachFact(facts, [&](std::string_view key, std::string_view value) {
    if (key == "taken") {
      if (auto t = ParseExifDateTime(value)) {
        p.taken_at_ms = *t;
        p.taken_exact = true;
      }
    } else if (key == "camera") {
      std::string cam = search::PlainText(value, 128);
      while (!cam.empty() && cam.back() == ' ') cam.pop_back();
      p.camera = std::move(cam);
    } else if (key == "lat") {
      lat = Number(value, -90, 90);
    } else if (key == "lon") {
      lon = Number(value, -180, 180);
    } else if (key == "width" || key == "height") {
      auto n = Number(value, 0, 1e9);
      if (n) (key == "width" ? p.width : p.height) = static_cast<int64_t>(*n);
    } else if (key == "orientation") {
      auto n = Number(value, 1, 8);
      if (n) p.orientation = static_cast<int>(*n);
    }
  });
  // A position needs both halves; (0, 0) is what broken cameras write.
  if (lat && lon && !(*lat == 0 && *lon == 0)) {
    p.lat = lat;
    p.lon = lon;
  }
  return p;
}

}  // namespace nubo::media
