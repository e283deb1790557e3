#include "util/time.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace nubo {

namespace {
std::atomic<int64_t> g_clock_offset_ms{0};
}  // namespace

int64_t UnixMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count() +
         g_clock_offset_ms.load(std::memory_order_relaxed);
}

void SetClockOffsetForTests(int64_t offset_ms) {
  g_clock_offset_ms.store(offset_ms, std::memory_order_relaxed);
}

int64_t MonotonicNanos() {
  using namespace std::chrono;
  return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

int64_t MonotonicMillis() { return MonotonicNanos() / 1'000'000; }

namespace {
constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int MonthIndex(std::string_view m) {
  for (int i = 0; i < 12; ++i) {
    if (m == kMonths[i]) return i;
  }
  return -1;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int ToInt(std::string_view s) {
  int v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

// Parses "HH:MM:SS".
bool ParseClock(std::string_view s, std::tm& tm) {
  if (s.size() != 8 || s[2] != ':' || s[5] != ':') return false;
  auto h = s.substr(0, 2), m = s.substr(3, 2), sec = s.substr(6, 2);
  if (!AllDigits(h) || !AllDigits(m) || !AllDigits(sec)) return false;
  tm.tm_hour = ToInt(h);
  tm.tm_min = ToInt(m);
  tm.tm_sec = ToInt(sec);
  return tm.tm_hour < 24 && tm.tm_min < 60 && tm.tm_sec <= 60;
}

std::optional<std::time_t> Finish(std::tm& tm) {
  if (tm.tm_mday < 1 || tm.tm_mday > 31) return std::nullopt;
  return timegm(&tm);
}
}  // namespace

namespace {

// The civil UTC fields of `t` (proleptic Gregorian, any year), computed
// without gmtime_r, which takes glibc's time zone lock on every call.
struct Civil {
  long long year;
  unsigned month, day, weekday, hour, minute, second;  // month 1-12, weekday 0 = Sunday
};

Civil ToCivil(std::time_t t) {
  using namespace std::chrono;
  const sys_seconds s{seconds{t}};
  const sys_days d = floor<days>(s);
  const year_month_day ymd{d};
  const hh_mm_ss<seconds> hms{s - d};
  return {static_cast<int>(ymd.year()),
          static_cast<unsigned>(ymd.month()),
          static_cast<unsigned>(ymd.day()),
          weekday{d}.c_encoding(),
          static_cast<unsigned>(hms.hours().count()),
          static_cast<unsigned>(hms.minutes().count()),
          static_cast<unsigned>(hms.seconds().count())};
}

void Append2(std::string& out, unsigned v) {
  out += static_cast<char>('0' + v / 10);
  out += static_cast<char>('0' + v % 10);
}

// At least four digits, as %04lld would write them.
void AppendYear(std::string& out, long long y) {
  if (y >= 0 && y <= 9999) {
    Append2(out, static_cast<unsigned>(y / 100));
    Append2(out, static_cast<unsigned>(y % 100));
    return;
  }
  char buf[24];
  int n = std::snprintf(buf, sizeof buf, "%04lld", y);
  out.append(buf, static_cast<size_t>(n));
}

// "HH:MM:SS", as both formats write it.
void AppendClock(std::string& out, const Civil& c) {
  Append2(out, c.hour);
  out += ':';
  Append2(out, c.minute);
  out += ':';
  Append2(out, c.second);
}

}  // namespace

void AppendHttpDate(std::string& out, std::time_t t) {
  const Civil c = ToCivil(t);
  out += kDays[c.weekday];
  out += ", ";
  Append2(out, c.day);
  out += ' ';
  out += kMonths[c.month - 1];
  out += ' ';
  AppendYear(out, c.year);
  out += ' ';
  AppendClock(out, c);
  out += " GMT";
}

void AppendRfc3339(std::string& out, std::time_t t) {
  const Civil c = ToCivil(t);
  AppendYear(out, c.year);
  out += '-';
  Append2(out, c.month);
  out += '-';
  Append2(out, c.day);
  out += 'T';
  AppendClock(out, c);
  out += 'Z';
}

std::string FormatHttpDate(std::time_t t) {
  std::string out;
  AppendHttpDate(out, t);
  return out;
}

std::optional<std::time_t> ParseHttpDate(std::string_view s) {
  std::tm tm{};
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" (29 chars).
  if (s.size() == 29 && s[3] == ',' && s[4] == ' ' && s.substr(25) == " GMT") {
    auto day = s.substr(5, 2), mon = s.substr(8, 3), year = s.substr(12, 4);
    if (s[7] != ' ' || s[11] != ' ' || s[16] != ' ') return std::nullopt;
    if (!AllDigits(day) || !AllDigits(year)) return std::nullopt;
    tm.tm_mday = ToInt(day);
    tm.tm_mon = MonthIndex(mon);
    tm.tm_year = ToInt(year) - 1900;
    if (tm.tm_mon < 0 || !ParseClock(s.substr(17, 8), tm)) return std::nullopt;
    return Finish(tm);
  }
  // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT".
  if (size_t comma = s.find(", "); comma != std::string_view::npos && comma >= 6 &&
                                   s.size() == comma + 24 && s.substr(s.size() - 4) == " GMT") {
    auto rest = s.substr(comma + 2);  // "06-Nov-94 08:49:37 GMT"
    if (rest[2] != '-' || rest[6] != '-' || rest[9] != ' ') return std::nullopt;
    auto day = rest.substr(0, 2), mon = rest.substr(3, 3), yy = rest.substr(7, 2);
    if (!AllDigits(day) || !AllDigits(yy)) return std::nullopt;
    tm.tm_mday = ToInt(day);
    tm.tm_mon = MonthIndex(mon);
    int y = ToInt(yy);
    // RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is in the past.
    tm.tm_year = (y < 70 ? 2000 + y : 1900 + y) - 1900;
    if (tm.tm_mon < 0 || !ParseClock(rest.substr(10, 8), tm)) return std::nullopt;
    return Finish(tm);
  }
  // asctime: "Sun Nov  6 08:49:37 1994" (24 chars).
  if (s.size() == 24 && s[3] == ' ' && s[7] == ' ' && s[10] == ' ' && s[19] == ' ') {
    auto mon = s.substr(4, 3), year = s.substr(20, 4);
    std::string_view day = s.substr(8, 2);
    if (day[0] == ' ') day.remove_prefix(1);
    if (!AllDigits(day) || !AllDigits(year)) return std::nullopt;
    tm.tm_mday = ToInt(day);
    tm.tm_mon = MonthIndex(mon);
    tm.tm_year = ToInt(year) - 1900;
    if (tm.tm_mon < 0 || !ParseClock(s.substr(11, 8), tm)) return std::nullopt;
    return Finish(tm);
  }
  return std::nullopt;
}

}  // namespace nubo
