#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "feeddiff/core.h"

namespace feeddiff {

namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm): no time zone, no
// locale, no mktime.
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct Civil {
  std::int64_t year;
  unsigned month, day, hour, minute, second, millisecond, weekday;
};

Civil civil_from_ms(TimeMs t) {
  std::int64_t ms = t % 1000;
  std::int64_t secs = t / 1000;
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  Civil c{};
  c.year = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2);
  c.month = m;
  c.day = d;
  c.hour = static_cast<unsigned>(rem / 3600);
  c.minute = static_cast<unsigned>(rem / 60 % 60);
  c.second = static_cast<unsigned>(rem % 60);
  c.millisecond = static_cast<unsigned>(ms);
  c.weekday = static_cast<unsigned>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  return c;
}

constexpr const char* kWeekdays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

int days_in_month(std::int64_t y, int mo) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
  return mo == 2 && leap ? 29 : kDays[mo - 1];
}

// A day past the month's end (31 February) is no date: days_from_civil would silently roll it
// into the next month.
bool valid_civil(std::int64_t y, int mo, int d, int h, int mi, int s) {
  return y >= 1 && y <= 9999 && mo >= 1 && mo <= 12 && d >= 1 && d <= days_in_month(y, mo) &&
         h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 60;
}

TimeMs to_ms(std::int64_t y, int mo, int d, int h, int mi, int s, int ms) {
  return ((days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400) +
          h * 3600 + mi * 60 + s) *
             1000 +
         ms;
}

int month_index(std::string_view name) {
  for (int i = 0; i < 12; ++i)
    if (name == kMonths[i]) return i + 1;
  return 0;
}

// Reads digits at s[pos..pos+n) into out.
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

TimeMs now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string format_iso8601_ms(TimeMs t) {
  const Civil c = civil_from_ms(t);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ",
                static_cast<long long>(c.year), c.month, c.day, c.hour, c.minute, c.second,
                c.millisecond);
  return buf;
}

std::optional<TimeMs> parse_iso8601(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.mmm]Z
  int y, mo, d, h, mi, sec, ms = 0;
  if (!digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || s[10] != 'T' || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return std::nullopt;
  std::size_t pos = 19;
  if (s[pos] == '.') {
    if (!digits(s, pos + 1, 3, ms)) return std::nullopt;
    pos += 4;
  }
  if (pos + 1 != s.size() || s[pos] != 'Z') return std::nullopt;
  if (!valid_civil(y, mo, d, h, mi, sec)) return std::nullopt;
  return to_ms(y, mo, d, h, mi, sec, ms);
}

std::string format_http_date(TimeMs t) {
  const Civil c = civil_from_ms(t);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04lld %02u:%02u:%02u GMT", kWeekdays[c.weekday],
                c.day, kMonths[c.month - 1], static_cast<long long>(c.year), c.hour, c.minute,
                c.second);
  return buf;
}

std::optional<TimeMs> parse_http_date(std::string_view text) {
  std::string_view s = trim(text);
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  auto comma = s.find(',');
  if (comma != std::string_view::npos) {
    std::string_view rest = s.substr(comma + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.size() >= 20 && rest[2] == ' ') {
      // IMF-fixdate: "01 Oct 2026 05:54:03 GMT"
      if (!digits(rest, 0, 2, d)) return std::nullopt;
      mo = month_index(rest.substr(3, 3));
      if (rest[6] != ' ' || !digits(rest, 7, 4, y) || rest[11] != ' ' || !digits(rest, 12, 2, h) ||
          rest[14] != ':' || !digits(rest, 15, 2, mi) || rest[17] != ':' ||
          !digits(rest, 18, 2, sec) || trim(rest.substr(20)) != "GMT")
        return std::nullopt;
    } else if (rest.size() >= 22 && rest[2] == '-') {
      // RFC 850: "Thursday, 01-Oct-26 05:54:03 GMT"
      int yy;
      if (!digits(rest, 0, 2, d)) return std::nullopt;
      mo = month_index(rest.substr(3, 3));
      if (rest[6] != '-' || !digits(rest, 7, 2, yy) || rest[9] != ' ' || !digits(rest, 10, 2, h) ||
          rest[12] != ':' || !digits(rest, 13, 2, mi) || rest[15] != ':' ||
          !digits(rest, 16, 2, sec) || trim(rest.substr(18)) != "GMT")
        return std::nullopt;
      y = yy < 70 ? 2000 + yy : 1900 + yy;
    } else {
      return std::nullopt;
    }
  } else {
    // asctime: "Thu Oct  1 05:54:03 2026"
    if (s.size() != 24 || s[3] != ' ' || s[7] != ' ') return std::nullopt;
    mo = month_index(s.substr(4, 3));
    int dd = 0;
    if (s[8] == ' ') {
      if (!digits(s, 9, 1, dd)) return std::nullopt;
    } else if (!digits(s, 8, 2, dd)) {
      return std::nullopt;
    }
    d = dd;
    if (s[10] != ' ' || !digits(s, 11, 2, h) || s[13] != ':' || !digits(s, 14, 2, mi) ||
        s[16] != ':' || !digits(s, 17, 2, sec) || s[19] != ' ' || !digits(s, 20, 4, y))
      return std::nullopt;
  }
  if (mo == 0 || !valid_civil(y, mo, d, h, mi, sec)) return std::nullopt;
  return to_ms(y, mo, d, h, mi, sec == 60 ? 59 : sec, 0);
}

// The longest duration accepted, in ms: 100 years of 365 days.
constexpr TimeMs kMaxDuration = 100LL * 365 * 86'400'000;

Result<TimeMs> parse_duration(std::string_view text) {
  std::string_view s = trim(text);
  if (s.empty()) return Error{Errc::usage, "empty duration"};
  TimeMs total = 0;
  std::size_t pos = 0;
  bool bare = true;
  while (pos < s.size()) {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), n);
    if (ec != std::errc() || end == s.data() + pos || n < 0)
      return Error{Errc::usage,
                   "bad duration '" + std::string(s) + "' (use e.g. 90s, 15m, 1h, 1h30m, 2d)"};
    pos = static_cast<std::size_t>(end - s.data());
    TimeMs unit = 1000;
    if (pos < s.size()) {
      bare = false;
      switch (s[pos++]) {
        case 's':
          unit = 1000;
          break;
        case 'm':
          unit = 60'000;
          break;
        case 'h':
          unit = 3'600'000;
          break;
        case 'd':
          unit = 86'400'000;
          break;
        case 'w':
          unit = 7 * 86'400'000LL;
          break;
        default:
          return Error{Errc::usage, "bad duration '" + std::string(s) + "' (units: s, m, h, d, w)"};
      }
    } else if (!bare) {
      return Error{Errc::usage, "bad duration '" + std::string(s) + "': a number lacks its unit"};
    }
    // Compared in ms, this part and the running total: n alone is in the unit's count, and
    // n * unit or the sum could pass the range of int64.
    if (n > kMaxDuration / unit || n * unit > kMaxDuration - total)
      return Error{Errc::usage,
                   "duration '" + std::string(s) + "' is too long (100 years at most)"};
    total += n * unit;
  }
  return total;
}

std::string format_duration(TimeMs ms) {
  if (ms <= 0) return "0s";
  std::string out;
  TimeMs secs = ms / 1000;
  const std::pair<TimeMs, char> units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
  for (auto [size, name] : units) {
    if (secs >= size) {
      out += std::to_string(secs / size);
      out += name;
      secs %= size;
    }
  }
  return out.empty() ? "0s" : out;
}

namespace {

// "2 weeks ago", "90m ago": a count and a unit (word or parse_duration's letter), then "ago".
std::optional<TimeMs> time_ago(std::string_view s, TimeMs now) {
  if (!s.ends_with(" ago")) return std::nullopt;
  s = trim(s.substr(0, s.size() - 4));
  if (auto short_form = parse_duration(s); short_form && s.find(' ') == std::string_view::npos)
    return now - *short_form;
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || n < 0) return std::nullopt;
  std::string_view unit = trim(s.substr(static_cast<std::size_t>(end - s.data())));
  if (unit.size() > 1 && unit.back() == 's') unit.remove_suffix(1);
  // A month and a year by their mean length: "3 months ago" is a rough moment anyway.
  static constexpr std::pair<std::string_view, TimeMs> kUnits[] = {
      {"second", 1000},          {"minute", 60'000},         {"hour", 3'600'000},
      {"day", 86'400'000},       {"week", 7 * 86'400'000LL}, {"month", 2'629'746'000LL},
      {"year", 31'556'952'000LL}};
  for (const auto& [name, ms] : kUnits)
    if (unit == name) {
      if (n > kMaxDuration / ms) return std::nullopt;
      return now - n * ms;
    }
  return std::nullopt;
}

// ISO 8601: a date (midnight UTC), or a date and time to the minute, second or millisecond
// with `Z` or an offset (`+02:00`, `-0500`); `T` or one space between them; no zone is UTC.
std::optional<TimeMs> iso_moment(std::string_view s) {
  int y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
  if (!digits(s, 0, 4, y) || s.size() < 10 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d))
    return std::nullopt;
  std::size_t pos = 10;
  if (pos < s.size()) {
    if ((s[pos] != 'T' && s[pos] != ' ') || !digits(s, pos + 1, 2, h) || s.size() < pos + 6 ||
        s[pos + 3] != ':' || !digits(s, pos + 4, 2, mi))
      return std::nullopt;
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!digits(s, pos + 1, 2, sec)) return std::nullopt;
      pos += 3;
      if (pos < s.size() && s[pos] == '.') {
        if (!digits(s, pos + 1, 3, ms)) return std::nullopt;
        pos += 4;
      }
    }
  }
  TimeMs offset = 0;
  if (pos < s.size()) {
    const std::string_view zone = s.substr(pos);
    int oh = 0, om = 0;
    if (zone == "Z") {
    } else if ((zone[0] == '+' || zone[0] == '-') && digits(zone, 1, 2, oh) &&
               ((zone.size() == 6 && zone[3] == ':' && digits(zone, 4, 2, om)) ||
                (zone.size() == 5 && digits(zone, 3, 2, om)) || zone.size() == 3) &&
               oh < 24 && om < 60) {
      offset = (zone[0] == '+' ? 1 : -1) * (oh * 3'600'000LL + om * 60'000LL);
    } else {
      return std::nullopt;
    }
  }
  if (!valid_civil(y, mo, d, h, mi, sec)) return std::nullopt;
  return to_ms(y, mo, d, h, mi, sec, ms) - offset;
}

}  // namespace

Result<TimeMs> parse_moment(std::string_view text, TimeMs now) {
  const std::string_view s = trim(text);
  if (s == "now") return now;
  if (auto t = iso_moment(s)) return *t;
  if (auto t = time_ago(s, now)) return *t;
  return Error{Errc::usage, "'" + std::string(s.substr(0, 60)) +
                                "' is no time: give ISO 8601 (2026-03-12, 2026-03-12T09:30:00Z, "
                                "2026-03-12T10:30+01:00) or a time ago (2 weeks ago, 90m ago)"};
}

}  // namespace feeddiff
