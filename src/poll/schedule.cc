#include "poll/schedule.h"

#include <algorithm>
#include <charconv>

namespace feeddiff::schedule {

namespace {

std::optional<long long> parse_number(std::string_view s) {
  s = trim(s);
  long long n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n < 0) return std::nullopt;
  return n;
}

// max-age=N from Cache-Control; s-maxage is for shared caches, not us.
std::optional<long long> max_age(std::string_view cache_control) {
  std::string lower = to_lower(cache_control);
  std::string_view s = lower;
  while (!s.empty()) {
    auto comma = s.find(',');
    std::string_view directive = trim(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    if (directive.starts_with("max-age=")) return parse_number(directive.substr(8));
  }
  return std::nullopt;
}

// <ttl>N</ttl> near the top of an RSS document (minutes).
std::optional<long long> rss_ttl(std::string_view body) {
  std::string_view head = body.substr(0, std::min<std::size_t>(body.size(), 65536));
  auto open = head.find("<ttl>");
  if (open == std::string_view::npos) return std::nullopt;
  auto close = head.find("</ttl>", open);
  if (close == std::string_view::npos) return std::nullopt;
  return parse_number(head.substr(open + 5, close - open - 5));
}

// count units in ms, saturated at kMaxHint: the count is the server's to choose, and a product
// past the range of int64 would be undefined behaviour, not a long delay.
TimeMs capped_ms(long long count, TimeMs unit) {
  if (count <= 0) return 0;
  if (count >= kMaxHint / unit) return kMaxHint;
  return count * unit;
}

}  // namespace

TimeMs freshness_hint(const FetchResponse& r) {
  TimeMs hint = 0;
  long long age = 0;
  if (const Header* h = r.header("age")) age = parse_number(h->value).value_or(0);
  if (const Header* h = r.header("cache-control"))
    if (auto m = max_age(h->value))
      if (*m > age) hint = std::max(hint, capped_ms(*m - age, 1000));
  if (const Header* expires = r.header("expires")) {
    const Header* date = r.header("date");
    auto e = parse_http_date(expires->value);
    auto d = date ? parse_http_date(date->value) : std::nullopt;
    if (e && d) hint = std::max<TimeMs>(hint, *e - *d);
  }
  if (auto ttl = rss_ttl(r.body)) hint = std::max(hint, capped_ms(*ttl, 60'000));
  return std::clamp<TimeMs>(hint, 0, kMaxHint);
}

std::optional<TimeMs> retry_after(const FetchResponse& r, TimeMs now) {
  const Header* h = r.header("retry-after");
  if (!h) return std::nullopt;
  if (auto seconds = parse_number(h->value)) return capped_ms(*seconds, 1000);
  if (auto when = parse_http_date(h->value)) {
    TimeMs base = now;
    if (const Header* date = r.header("date"))
      if (auto d = parse_http_date(date->value)) base = *d;
    return std::clamp<TimeMs>(*when - base, 0, kMaxHint);
  }
  return std::nullopt;
}

TimeMs backoff(TimeMs every, int failures) {
  TimeMs delay = every;
  for (int i = 1; i < failures && delay < kMaxBackoff; ++i) delay *= 2;
  return std::min(delay, std::max(kMaxBackoff, every));
}

}  // namespace feeddiff::schedule
