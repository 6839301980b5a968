// Politeness across runs: cron may fire as often as it likes, the server sees a request
// only when one is due. The clock moves through FEEDDIFF_NOW; nothing sleeps.

#include <atomic>
#include <catch2/catch.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

TEST_CASE("five cron runs within the interval make exactly one request", "[poll]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = rss("polite")}; });
  CliArchive archive("polite-interval", "2026-10-01T06:00:00.000Z");
  REQUIRE(archive({"add", "feed", server.url("/feed"), "--every", "1h"}).exit_code == 0);
  for (const char* t :
       {"2026-10-01T06:00:00.000Z", "2026-10-01T06:10:00.000Z", "2026-10-01T06:25:00.000Z",
        "2026-10-01T06:40:00.000Z", "2026-10-01T06:59:59.000Z"}) {
    archive.set_now(t);
    auto r = archive({"poll"});
    INFO(t << "\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }
  CHECK(server.request_count() == 1);
  CHECK(status_json(archive, "feed")["next_due"] == "2026-10-01T07:00:00.000Z");

  // Once due, the next cron run fetches it.
  archive.set_now("2026-10-01T07:00:00.000Z");
  REQUIRE(archive({"poll"}).exit_code == 0);
  CHECK(server.request_count() == 2);
}

TEST_CASE("after 429 with Retry-After 3600 no request comes before that hour is up", "[poll]") {
  std::atomic<bool> limited{true};
  HttpServer server([&](const RecordedRequest&) {
    if (limited) return Reply{.status = 429, .headers = {{"Retry-After", "3600"}}};
    return Reply{.body = rss("finally")};
  });
  CliArchive archive("polite-429", "2026-10-01T06:00:00.000Z");
  // A 15-minute interval: only Retry-After keeps cron from coming back sooner.
  REQUIRE(archive({"add", "limited", server.url("/feed"), "--every", "15m"}).exit_code == 0);
  REQUIRE(archive({"poll"}).exit_code == 1);
  REQUIRE(server.request_count() == 1);
  limited = false;
  for (const char* t : {"2026-10-01T06:15:00.000Z", "2026-10-01T06:30:00.000Z",
                        "2026-10-01T06:45:00.000Z", "2026-10-01T06:59:59.999Z"}) {
    archive.set_now(t);
    auto r = archive({"poll", "--verbose"});
    INFO(t << "\n" << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("limited: not due") != std::string::npos);
  }
  CHECK(server.request_count() == 1);

  archive.set_now("2026-10-01T07:00:00.000Z");
  auto due = archive({"poll"});
  INFO(due.out << due.err);
  CHECK(due.exit_code == 0);
  CHECK(server.request_count() == 2);
  CHECK(due.out.find("limited: added") != std::string::npos);
}

TEST_CASE("Cache-Control max-age minus Age, Expires and <ttl> push the next poll later", "[poll]") {
  HttpServer server([](const RecordedRequest& request) {
    if (request.target == "/max-age")
      return Reply{.headers = {{"Cache-Control", "public, max-age=10800"}, {"Age", "600"}},
                   .body = rss("max-age")};
    if (request.target == "/expires")
      return Reply{.headers = {{"Date", "Thu, 01 Oct 2026 06:00:00 GMT"},
                               {"Expires", "Thu, 01 Oct 2026 10:00:00 GMT"}},
                   .body = rss("expires")};
    std::string body = rss("ttl");
    body.insert(body.find("<item>"), "<ttl>300</ttl>");
    return Reply{.body = body};
  });
  CliArchive archive("polite-hints", "2026-10-01T06:00:00.000Z");
  for (const char* name : {"max-age", "expires", "ttl"})
    REQUIRE(archive({"add", name, server.url(std::string("/") + name)}).exit_code == 0);
  REQUIRE(archive({"poll"}).exit_code == 0);
  CHECK(status_json(archive, "max-age")["next_due"] == "2026-10-01T08:50:00.000Z");
  CHECK(status_json(archive, "expires")["next_due"] == "2026-10-01T10:00:00.000Z");
  CHECK(status_json(archive, "ttl")["next_due"] == "2026-10-01T11:00:00.000Z");
  archive.set_now("2026-10-01T08:00:00.000Z");
  REQUIRE(archive({"poll"}).exit_code == 0);
  CHECK(server.request_count() == 3);
}

TEST_CASE("huge max-age, Age, <ttl> and Retry-After saturate at the longest hint", "[poll]") {
  // Each number times 1000 (or 60,000) is past int64: undefined behaviour before the cap, and
  // in practice a wrapped, negative delay that polled the source again at once.
  const std::string huge = "9223372036854775807";
  HttpServer server([&](const RecordedRequest& request) {
    if (request.target == "/max-age")
      return Reply{.headers = {{"Cache-Control", "max-age=9223372036854776"}},
                   .body = rss("max-age")};
    if (request.target == "/max-age-17-digits")
      return Reply{.headers = {{"Cache-Control", "max-age=99999999999999999"}},
                   .body = rss("max-age-17-digits")};
    if (request.target == "/age")
      return Reply{.headers = {{"Cache-Control", "max-age=10"}, {"Age", huge}}, .body = rss("age")};
    if (request.target == "/retry-after")
      return Reply{.status = 503, .headers = {{"Retry-After", huge}}};
    std::string body = rss("ttl");
    body.insert(body.find("<item>"), "<ttl>" + huge + "</ttl>");
    return Reply{.body = body};
  });
  CliArchive archive("polite-huge-hints", "2026-10-01T06:00:00.000Z");
  for (const char* name : {"max-age", "max-age-17-digits", "age", "ttl", "retry-after"})
    REQUIRE(archive({"add", name, server.url(std::string("/") + name)}).exit_code == 0);
  auto r = archive({"poll"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);  // the 503
  // kMaxHint: a week at most.
  const std::string week = "2026-10-08T06:00:00.000Z";
  CHECK(status_json(archive, "max-age")["next_due"] == week);
  CHECK(status_json(archive, "max-age-17-digits")["next_due"] == week);
  CHECK(status_json(archive, "ttl")["next_due"] == week);
  CHECK(status_json(archive, "retry-after")["next_due"] == week);
  // An Age past max-age: stale already, so the interval alone decides.
  CHECK(status_json(archive, "age")["next_due"] == "2026-10-01T07:00:00.000Z");
}
