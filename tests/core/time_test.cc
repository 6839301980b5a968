#include <catch2/catch.hpp>

#include "feeddiff/core.h"

using namespace feeddiff;

TEST_CASE("observed times are written in UTC with milliseconds and read back", "[core]") {
  // 2026-10-01T05:54:04.027Z, computed independently: days from epoch * 86400 + seconds.
  const TimeMs t = 1790834044027;
  CHECK(format_iso8601_ms(t) == "2026-10-01T05:54:04.027Z");
  CHECK(parse_iso8601("2026-10-01T05:54:04.027Z") == t);
  CHECK(parse_iso8601("2026-10-01T05:54:04Z") == t - 27);
  CHECK(format_iso8601_ms(0) == "1970-01-01T00:00:00.000Z");
  CHECK_FALSE(parse_iso8601("2026-13-01T00:00:00Z"));
  CHECK_FALSE(parse_iso8601("yesterday"));
}

TEST_CASE("HTTP dates parse in all three forms the RFC allows", "[core]") {
  const auto expected = parse_iso8601("1994-11-06T08:49:37Z");
  REQUIRE(expected);
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT") == expected);
  CHECK(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT") == expected);
  CHECK(parse_http_date("Sun Nov  6 08:49:37 1994") == expected);
  CHECK(format_http_date(*expected) == "Sun, 06 Nov 1994 08:49:37 GMT");
  CHECK_FALSE(parse_http_date("06 Nov 1994"));
  CHECK_FALSE(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"));
  CHECK_FALSE(parse_http_date(""));
}

TEST_CASE("a day past the end of its month is no date in any form", "[core]") {
  // 2024 is a leap year, 2026 is not, 1900 is not (a century), 2000 is (divisible by 400).
  CHECK(parse_iso8601("2024-02-29T12:00:00Z") ==
        *parse_iso8601("2024-03-01T12:00:00Z") - 86'400'000);
  CHECK(parse_iso8601("2000-02-29T00:00:00Z"));
  CHECK(parse_iso8601("2026-04-30T00:00:00Z"));
  CHECK(parse_iso8601("2026-01-31T00:00:00Z"));
  CHECK(parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT") == parse_iso8601("2024-02-29T12:00:00Z"));
  CHECK(parse_http_date("Thursday, 29-Feb-24 12:00:00 GMT") ==
        parse_iso8601("2024-02-29T12:00:00Z"));
  CHECK(parse_http_date("Thu Feb 29 12:00:00 2024") == parse_iso8601("2024-02-29T12:00:00Z"));
  for (const char* bad : {"2026-02-31T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
                          "1900-02-29T00:00:00Z", "2026-02-30T00:00:00.000Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_iso8601(bad));
  }
  for (const char* bad :
       {"Tue, 31 Feb 2026 00:00:00 GMT", "Sun, 29 Feb 2026 00:00:00 GMT",
        "Fri, 31 Apr 2026 00:00:00 GMT", "Tuesday, 31-Feb-26 00:00:00 GMT",
        "Sunday, 29-Feb-26 00:00:00 GMT", "Friday, 31-Apr-26 00:00:00 GMT",
        "Tue Feb 31 00:00:00 2026", "Sun Feb 29 00:00:00 2026", "Fri Apr 31 00:00:00 2026"}) {
    INFO(bad);
    CHECK_FALSE(parse_http_date(bad));
  }
}

TEST_CASE("durations read the units people write and print back the same", "[core]") {
  CHECK(*parse_duration("90s") == 90'000);
  CHECK(*parse_duration("15m") == 900'000);
  CHECK(*parse_duration("1h30m") == 5'400'000);
  CHECK(*parse_duration("2d") == 172'800'000);
  CHECK(*parse_duration("3600") == 3'600'000);
  CHECK(format_duration(5'400'000) == "1h30m");
  CHECK(format_duration(86'400'000) == "1d");
  CHECK_FALSE(parse_duration("1x"));
  CHECK_FALSE(parse_duration("h"));
  CHECK_FALSE(parse_duration("1h30"));
  CHECK_FALSE(parse_duration(""));
}

TEST_CASE("a duration past 100 years is refused, in any unit and summed", "[core]") {
  // 100 years of 365 days is 36,500 days, 5,214 weeks and 2 days, 3,153,600,000 seconds.
  CHECK(*parse_duration("36500d") == 36'500 * 86'400'000LL);
  CHECK(*parse_duration("5214w2d") == 36'500 * 86'400'000LL);
  CHECK(*parse_duration("3153600000") == 3'153'600'000'000LL);
  for (const char* bad : {"36501d", "5215w", "3153600001", "3153600001s", "36500d1s", "5214w3d",
                          "99999999w", "3000000000h",
                          // Each part under the old per-part limit; the sum past int64.
                          "3000000000w3000000000w3000000000w3000000000w3000000000w3000000000w",
                          "9223372036854775807", "9223372036854775807w"}) {
    INFO(bad);
    auto d = parse_duration(bad);
    REQUIRE_FALSE(d);
    CHECK(d.error().code == Errc::usage);
  }
}

TEST_CASE("numbers get thousands separators", "[core]") {
  CHECK(with_thousands(0) == "0");
  CHECK(with_thousands(999) == "999");
  CHECK(with_thousands(250073) == "250,073");
  CHECK(with_thousands(53758) == "53,758");
  CHECK(with_thousands(1000) == "1,000");
  CHECK(with_thousands(1234567) == "1,234,567");
}

TEST_CASE("source names cannot escape the archive", "[core]") {
  CHECK(check_source_name("pytorch-blog_feed.2"));
  for (const char* bad :
       {"", "../etc", "a/b", "a b", "..", ".hidden", "a..b", "x.lock", "-x", "a\\b", "a\nb", "ü"}) {
    INFO(bad);
    auto r = check_source_name(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == Errc::bad_name);
  }
  CHECK_FALSE(check_source_name(std::string(101, 'a')));
}

TEST_CASE("parse_moment reads ISO 8601 dates, times and offsets, and times ago", "[core]") {
  const TimeMs now = *parse_iso8601("2026-03-12T09:30:00Z");
  auto at = [&](std::string_view text) {
    auto t = parse_moment(text, now);
    INFO(text << ": " << (t ? "" : t.error().message));
    REQUIRE(t);
    return format_iso8601_ms(*t);
  };
  CHECK(at("2026-03-12") == "2026-03-12T00:00:00.000Z");
  CHECK(at("2026-03-12T09:30Z") == "2026-03-12T09:30:00.000Z");
  CHECK(at("2026-03-12 09:30:15") == "2026-03-12T09:30:15.000Z");
  CHECK(at("2026-03-12T09:30:15.250Z") == "2026-03-12T09:30:15.250Z");
  CHECK(at("2026-03-12T10:30:00+01:00") == "2026-03-12T09:30:00.000Z");
  CHECK(at("2026-03-12T04:30-0500") == "2026-03-12T09:30:00.000Z");
  CHECK(at("now") == "2026-03-12T09:30:00.000Z");
  CHECK(at("2 weeks ago") == "2026-02-26T09:30:00.000Z");
  CHECK(at("1 day ago") == "2026-03-11T09:30:00.000Z");
  CHECK(at("90m ago") == "2026-03-12T08:00:00.000Z");
  CHECK(at(" 3 hours ago ") == "2026-03-12T06:30:00.000Z");
}

TEST_CASE("parse_moment refuses what is no time, naming the forms it reads", "[core]") {
  for (std::string_view bad :
       {"", "yesterday", "2026-13-01", "2026-02-30", "2026-03-12T25:00Z", "2026-03-12T09:30+25:00",
        "2 fortnights ago", "-2 days ago", "2026-03-12T09:30:00X", "99999999999 years ago"}) {
    INFO(bad);
    auto t = parse_moment(bad, 0);
    REQUIRE_FALSE(t);
    CHECK(t.error().code == Errc::usage);
    CHECK_THAT(t.error().message, Catch::Contains("ISO 8601"));
  }
}
