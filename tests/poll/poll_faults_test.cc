// Every fault the scripted server can serve, through the built binary: what poll does,
// that no bad body is committed, and that `status` shows it.

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

constexpr const char* kT0 = "2026-10-01T05:54:04.027Z";

// Polls one source that is expected to fail: exit 1, the reason on stderr, no commit, a
// clean work tree, and the failure in `status` (text and JSON).
nlohmann::json poll_fails(const CliArchive& archive, const std::string& name,
                          const std::string& reason, std::vector<std::string> extra = {}) {
  const std::string head = archive.head();
  std::vector<std::string> args = {"poll"};
  if (std::find(extra.begin(), extra.end(), "--timeout") == extra.end())
    args.insert(args.end(), {"--timeout", "2s"});
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = archive(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find(name + ": failed: ") != std::string::npos);
  CHECK(r.err.find(reason) != std::string::npos);
  CHECK(archive.head() == head);
  CHECK_FALSE(in_head(archive, "raw/" + name + "/response.xml"));
  CHECK_FALSE(in_head(archive, "raw/" + name + "/response.json"));
  CHECK(archive.git({"status", "--porcelain", "--untracked-files=all"}).out.empty());
  const std::string line = status_text(archive, name);
  INFO(line);
  CHECK(line.find(name + "  failed") != std::string::npos);
  CHECK(line.find(reason) != std::string::npos);
  auto st = status_json(archive, name);
  CHECK(st["last_result"] == "failed");
  CHECK(st["last_error"].get<std::string>().find(reason) != std::string::npos);
  CHECK(st["consecutive_failures"].get<int>() >= 1);
  CHECK(st["due"] == false);
  return st;
}

// Polls one source that is expected to record its first version.
void poll_adds(const CliArchive& archive, const std::string& name, const std::string& body,
               std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"poll", "--timeout", "2s"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = archive(args);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(name + ": added") != std::string::npos);
  CHECK(archive({"cat", "HEAD", name}).out == body);
  CHECK(slurp(archive.dir() + "/raw/" + name + "/response.xml") == body);
  CHECK(status_json(archive, name)["last_result"] == "added");
}

}  // namespace

TEST_CASE("a body dripped at one byte per second times out and commits nothing", "[poll]") {
  const std::string body = rss("drip");
  HttpServer server(
      [&](const RecordedRequest&) { return Reply{.body = body, .drip_ms_per_byte = 1000}; });
  CliArchive archive("fault-drip");
  REQUIRE(archive({"add", "drip", server.url("/feed")}).exit_code == 0);
  poll_fails(archive, "drip", "timed out after 1 s", {"--timeout", "1s"});
}

TEST_CASE("429 with Retry-After in seconds fails and pushes the next poll that far", "[poll]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{.status = 429, .headers = {{"Retry-After", "7200"}}, .body = "slow down"};
  });
  CliArchive archive("fault-429-seconds", kT0);
  REQUIRE(archive({"add", "busy", server.url("/feed")}).exit_code == 0);
  auto st = poll_fails(archive, "busy", "HTTP 429");
  CHECK(st["last_status"] == 429);
  // The interval (1h) and its backoff are shorter: Retry-After wins.
  CHECK(st["next_due"] == "2026-10-01T07:54:04.027Z");
  CHECK(status_text(archive, "busy").find("next poll in 2h") != std::string::npos);
}

TEST_CASE("429 with Retry-After as an HTTP date counts from the server's Date", "[poll]") {
  HttpServer server([](const RecordedRequest&) {
    // The server's clock is 4 s behind ours; three hours on its clock is three hours on ours.
    return Reply{.status = 429,
                 .headers = {{"Date", "Thu, 01 Oct 2026 05:54:00 GMT"},
                             {"Retry-After", "Thu, 01 Oct 2026 08:54:00 GMT"}}};
  });
  CliArchive archive("fault-429-date", kT0);
  REQUIRE(archive({"add", "busy", server.url("/feed")}).exit_code == 0);
  auto st = poll_fails(archive, "busy", "HTTP 429");
  CHECK(st["next_due"] == "2026-10-01T08:54:04.027Z");
}

TEST_CASE("503 fails, backs off exponentially, and a later 200 clears the failures", "[poll]") {
  std::atomic<bool> healthy{false};
  HttpServer server([&](const RecordedRequest&) {
    if (healthy) return Reply{.body = rss("back")};
    return Reply{.status = 503, .body = "<html>maintenance</html>"};
  });
  CliArchive archive("fault-503", kT0);
  REQUIRE(archive({"add", "flaky", server.url("/feed")}).exit_code == 0);
  auto first = poll_fails(archive, "flaky", "HTTP 503");
  CHECK(first["next_due"] == "2026-10-01T06:54:04.027Z");

  archive.set_now("2026-10-01T06:54:05.000Z");
  auto second = poll_fails(archive, "flaky", "HTTP 503");
  CHECK(second["consecutive_failures"] == 2);
  CHECK(second["next_due"] == "2026-10-01T08:54:05.000Z");  // twice the interval
  CHECK(status_text(archive, "flaky").find("2 failures in a row") != std::string::npos);

  healthy = true;
  archive.set_now("2026-10-01T08:54:06.000Z");
  poll_adds(archive, "flaky", rss("back"));
  auto st = status_json(archive, "flaky");
  CHECK(st["consecutive_failures"] == 0);
  CHECK(st["last_error"].is_null());
  CHECK(server.request_count() == 3);
}

TEST_CASE("a redirect loop fails without a commit", "[poll]") {
  HttpServer server([](const RecordedRequest& request) {
    return Reply{.status = 302, .headers = {{"Location", request.target == "/a" ? "/b" : "/a"}}};
  });
  CliArchive archive("fault-loop");
  REQUIRE(archive({"add", "loop", server.url("/a")}).exit_code == 0);
  poll_fails(archive, "loop", "redirect loop");
  CHECK(slurp(archive.dir() + "/feeddiff.toml").find(server.url("/a")) != std::string::npos);
}

TEST_CASE("a chain of 301 and 308 is adopted after three polls in a row, not before", "[poll]") {
  const std::string body = rss("moved");
  HttpServer server([&](const RecordedRequest& request) {
    if (request.target == "/old") return Reply{.status = 301, .headers = {{"Location", "/mid"}}};
    if (request.target == "/mid") return Reply{.status = 308, .headers = {{"Location", "/new"}}};
    if (request.header("If-None-Match") == "\"m1\"")
      return Reply{.status = 304, .headers = {{"ETag", "\"m1\""}}};
    return Reply{.headers = {{"ETag", "\"m1\""}}, .body = body};
  });
  CliArchive archive("fault-301", kT0);
  const std::string old_url = server.url("/old"), new_url = server.url("/new");
  REQUIRE(archive({"add", "moving", old_url}).exit_code == 0);
  const std::string config_before = slurp(archive.dir() + "/feeddiff.toml");

  // Poll 1: the body is recorded from the final URL; the redirect is noted once.
  auto first = archive({"poll"});
  INFO(first.out << first.err);
  CHECK(first.exit_code == 0);
  CHECK(first.out.find("permanent redirect to " + new_url + " seen 1 poll in a row") !=
        std::string::npos);
  auto st = status_json(archive, "moving");
  CHECK(st["pending_redirect"]["target"] == new_url);
  CHECK(st["pending_redirect"]["seen"] == 1);

  // Poll 2 (a 304 through the redirects): seen twice, still not adopted.
  archive.set_now("2026-10-01T06:54:05.000Z");
  auto second = archive({"poll"});
  CHECK(second.exit_code == 0);
  CHECK(status_json(archive, "moving")["pending_redirect"]["seen"] == 2);
  CHECK(status_text(archive, "moving").find("seen 2 of 3 polls") != std::string::npos);
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == config_before);

  // Poll 3: adopted, in a commit of feeddiff.toml that says why.
  archive.set_now("2026-10-01T07:54:06.000Z");
  auto third = archive({"poll"});
  INFO(third.out << third.err);
  CHECK(third.exit_code == 0);
  CHECK(third.out.find("adopted permanent redirect: " + old_url + " -> " + new_url) !=
        std::string::npos);
  CHECK(archive.git({"log", "-1", "--format=%s"}).out == "moving: moved to " + new_url + "\n");
  CHECK(archive.git({"log", "-1", "--format=%B"})
            .out.find("Redirect-Adopted: " + old_url + " -> " + new_url) != std::string::npos);
  const std::string config_after = slurp(archive.dir() + "/feeddiff.toml");
  CHECK(config_after.find(new_url) != std::string::npos);
  CHECK(config_after.find(old_url) == std::string::npos);
  CHECK(status_json(archive, "moving")["pending_redirect"].is_null());
  CHECK(archive.git({"status", "--porcelain"}).out.empty());

  // Poll 4 goes to the new URL directly.
  const std::size_t before = server.request_count();
  archive.set_now("2026-10-01T08:54:07.000Z");
  CHECK(archive({"poll"}).exit_code == 0);
  auto requests = server.requests();
  REQUIRE(requests.size() == before + 1);
  CHECK(requests.back().target == "/new");
}

TEST_CASE("a permanent redirect that stops before the third poll is not adopted", "[poll]") {
  std::atomic<int> polls{0};
  HttpServer server([&](const RecordedRequest& request) {
    if (request.target == "/old" && polls != 2)
      return Reply{.status = 301, .headers = {{"Location", "/new"}}};
    return Reply{.body = rss("x")};
  });
  CliArchive archive("fault-301-broken", kT0);
  REQUIRE(archive({"add", "wavering", server.url("/old")}).exit_code == 0);
  const std::string config_before = slurp(archive.dir() + "/feeddiff.toml");
  const char* times[] = {kT0, "2026-10-01T06:54:05.000Z", "2026-10-01T07:54:06.000Z",
                         "2026-10-01T08:54:07.000Z"};
  for (int i = 0; i < 4; ++i) {
    polls = i + 1;
    archive.set_now(times[i]);
    REQUIRE(archive({"poll"}).exit_code == 0);
  }
  // Polls 1, 3 and 4 saw it, but not three in a row.
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == config_before);
  CHECK(status_json(archive, "wavering")["pending_redirect"]["seen"] == 2);
}

TEST_CASE("302 and 307 are followed every time and never adopted", "[poll]") {
  HttpServer server([](const RecordedRequest& request) {
    if (request.target == "/temp") return Reply{.status = 302, .headers = {{"Location", "/t2"}}};
    if (request.target == "/t2") return Reply{.status = 307, .headers = {{"Location", "/real"}}};
    return Reply{.body = rss("temp")};
  });
  CliArchive archive("fault-302", kT0);
  REQUIRE(archive({"add", "temp", server.url("/temp")}).exit_code == 0);
  const std::string config_before = slurp(archive.dir() + "/feeddiff.toml");
  poll_adds(archive, "temp", rss("temp"));
  const char* times[] = {"2026-10-01T06:54:05.000Z", "2026-10-01T07:54:06.000Z",
                         "2026-10-01T08:54:07.000Z", "2026-10-01T09:54:08.000Z"};
  for (const char* t : times) {
    archive.set_now(t);
    REQUIRE(archive({"poll"}).exit_code == 0);
  }
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == config_before);
  CHECK(status_json(archive, "temp")["pending_redirect"].is_null());
  int to_temp = 0;
  for (const auto& r : server.requests()) to_temp += r.target == "/temp";
  CHECK(to_temp == 5);
  CHECK(archive.git({"log", "-1", "--format=%B"}).out.find("Redirect: 302 ") != std::string::npos);
}

TEST_CASE("410 Gone disables the source until `feeddiff enable`", "[poll]") {
  std::atomic<bool> back{false};
  HttpServer server([&](const RecordedRequest&) {
    if (back) return Reply{.body = rss("alive")};
    return Reply{.status = 410, .body = "gone for good"};
  });
  CliArchive archive("fault-410", kT0);
  REQUIRE(archive({"add", "old", server.url("/feed")}).exit_code == 0);
  const std::string head = archive.head();
  auto r = archive({"poll"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("old: HTTP 410 Gone: disabled until `feeddiff enable old`") !=
        std::string::npos);
  CHECK(archive.head() == head);
  auto st = status_json(archive, "old");
  CHECK(st["disabled"] == true);
  CHECK(st["last_result"] == "gone");
  CHECK(st["due"] == false);
  CHECK(status_text(archive, "old").find("disabled: HTTP 410 Gone") != std::string::npos);

  // Neither time nor --force brings it back.
  archive.set_now("2026-10-09T00:00:00.000Z");
  auto later = archive({"poll", "--force", "--verbose"});
  CHECK(later.exit_code == 0);
  CHECK(later.out.find("old: HTTP 410 Gone") != std::string::npos);
  CHECK(server.request_count() == 1);

  back = true;
  auto enabled = archive({"enable", "old"});
  CHECK(enabled.exit_code == 0);
  CHECK(enabled.out == "Enabled old: the next `feeddiff poll` fetches it\n");
  CHECK(status_json(archive, "old")["disabled"] == false);
  poll_adds(archive, "old", rss("alive"));
  CHECK(server.request_count() == 2);

  auto unknown = archive({"enable", "nope"});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err == "feeddiff: error: no source named 'nope' (see `feeddiff status`)\n");
}

TEST_CASE("a gzip body is accepted and stored decoded", "[poll]") {
  const std::string body = rss("compressed");
  const std::string gz = gzip_bytes(body);
  HttpServer server([&](const RecordedRequest& request) {
    if (request.header("Accept-Encoding").value_or("").find("gzip") == std::string::npos)
      return Reply{.status = 406};
    return Reply{.headers = {{"Content-Encoding", "gzip"}, {"Content-Type", "application/rss+xml"}},
                 .body = gz};
  });
  CliArchive archive("fault-gzip");
  REQUIRE(archive({"add", "gz", server.url("/feed")}).exit_code == 0);
  poll_adds(archive, "gz", body);
  CHECK(archive.git({"log", "-1", "--format=%s"}).out ==
        "gz: added (" + std::to_string(body.size()) + " bytes, HTTP 200)\n");
}

TEST_CASE("a gzip bomb stops at the body limit and commits nothing", "[poll]") {
  const std::string bomb = gzip_zeros(20'000'000);
  REQUIRE(bomb.size() < 100'000);
  HttpServer server([&](const RecordedRequest&) {
    return Reply{.headers = {{"Content-Encoding", "gzip"}}, .body = bomb};
  });
  CliArchive archive("fault-bomb");
  REQUIRE(archive({"add", "bomb", server.url("/feed")}).exit_code == 0);
  poll_fails(archive, "bomb", "body exceeds the 1 MiB limit", {"--max-body", "1MiB"});
}

TEST_CASE("a Content-Length larger than the body is a truncated body, not a version", "[poll]") {
  const std::string body = rss("short");
  HttpServer server([&](const RecordedRequest&) {
    return Reply{.body = body, .content_length = body.size() + 1000};
  });
  CliArchive archive("fault-short");
  REQUIRE(archive({"add", "short", server.url("/feed")}).exit_code == 0);
  poll_fails(archive, "short", "body truncated");
}

TEST_CASE("a connection closed halfway through the body commits nothing", "[poll]") {
  HttpServer server(
      [](const RecordedRequest&) { return Reply{.body = rss("half"), .close_early = true}; });
  CliArchive archive("fault-close-early");
  REQUIRE(archive({"add", "half", server.url("/feed")}).exit_code == 0);
  poll_fails(archive, "half", "body truncated");
}

TEST_CASE("an empty 200 is archived as no feed and fails, never as an empty version", "[poll]") {
  HttpServer server([](const RecordedRequest&) { return Reply{}; });
  CliArchive archive("fault-empty");
  REQUIRE(archive({"add", "empty", server.url("/feed")}).exit_code == 0);
  auto r = archive({"poll", "--timeout", "2s"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("empty: not a feed (empty body, HTTP 200) recorded as ") != std::string::npos);
  CHECK(r.out.find("added") == std::string::npos);
  CHECK(archive.git({"ls-files", "raw"}).out == "raw/empty/not-a-feed\n");
  CHECK_FALSE(in_head(archive, "raw/empty/response.xml"));
  const auto st = status_json(archive, "empty");
  CHECK(st["last_result"] == "not-a-feed");
  CHECK(st["not_a_feed"]["reason"] == "empty body");
  CHECK(st["consecutive_failures"] == 1);
}

TEST_CASE("a body over the limit fails, declared or chunked", "[poll]") {
  const std::string big = rss(std::string(1'200'000, 'x'));
  HttpServer server([&](const RecordedRequest& request) {
    return Reply{.body = big, .chunked = request.target == "/chunked"};
  });
  CliArchive archive("fault-big");
  REQUIRE(archive({"add", "declared", server.url("/declared")}).exit_code == 0);
  poll_fails(archive, "declared",
             "body exceeds the 1 MiB limit (Content-Length: " + std::to_string(big.size()) + ")",
             {"--max-body", "1MiB", "declared"});
  REQUIRE(archive({"add", "chunked", server.url("/chunked")}).exit_code == 0);
  poll_fails(archive, "chunked", "body exceeds the 1 MiB limit", {"--max-body", "1MiB", "chunked"});
}

TEST_CASE("a reset connection fails without a commit", "[poll]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.reset = true}; });
  CliArchive archive("fault-reset");
  REQUIRE(archive({"add", "reset", server.url("/feed")}).exit_code == 0);
  poll_fails(archive, "reset", "connection reset by the server");
}

TEST_CASE("a server that never answers times out", "[poll]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.silent = true}; });
  CliArchive archive("fault-silent");
  REQUIRE(archive({"add", "silent", server.url("/feed")}).exit_code == 0);
  poll_fails(archive, "silent", "timed out after 1 s", {"--timeout", "1s"});
}

TEST_CASE("a good feed under the wrong Content-Type is accepted", "[poll]") {
  const std::string body = rss("html-labelled");
  HttpServer server([&](const RecordedRequest&) {
    return Reply{.headers = {{"Content-Type", "text/html; charset=iso-8859-1"}}, .body = body};
  });
  CliArchive archive("fault-content-type");
  REQUIRE(archive({"add", "mislabelled", server.url("/feed")}).exit_code == 0);
  poll_adds(archive, "mislabelled", body);
  CHECK(archive.git({"log", "-1", "--format=%B"})
            .out.find("Response-Header: Content-Type: text/html") != std::string::npos);
}

TEST_CASE("a 304 carrying a new ETag stores it and sends it back next time", "[poll]") {
  HttpServer server([](const RecordedRequest& request) {
    const auto sent = request.header("If-None-Match");
    if (sent == "\"v1\"") return Reply{.status = 304, .headers = {{"ETag", "\"v2\""}}};
    if (sent == "\"v2\"") return Reply{.status = 304, .headers = {{"ETag", "\"v2\""}}};
    return Reply{.headers = {{"ETag", "\"v1\""}}, .body = rss("etag")};
  });
  CliArchive archive("fault-304-etag", kT0);
  REQUIRE(archive({"add", "etag", server.url("/feed")}).exit_code == 0);
  poll_adds(archive, "etag", rss("etag"));
  CHECK(status_json(archive, "etag")["etag"] == "\"v1\"");
  const std::string head = archive.head();

  archive.set_now("2026-10-01T06:54:05.000Z");
  auto second = archive({"poll", "--verbose"});
  CHECK(second.exit_code == 0);
  CHECK(second.out.find("etag: not modified (HTTP 304)") != std::string::npos);
  auto st = status_json(archive, "etag");
  CHECK(st["etag"] == "\"v2\"");
  CHECK(st["last_result"] == "not-modified");
  CHECK(status_text(archive, "etag").find("not-modified just now (HTTP 304)") != std::string::npos);
  CHECK(archive.head() == head);

  archive.set_now("2026-10-01T07:54:06.000Z");
  REQUIRE(archive({"poll"}).exit_code == 0);
  REQUIRE(server.request_count() == 3);
  CHECK(server.requests().back().header("If-None-Match") == "\"v2\"");
  CHECK(archive.head() == head);
}
