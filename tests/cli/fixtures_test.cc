// `feeddiff fixtures check|update DIR` against a loopback server: check exits 0 while the
// feed is as recorded and 1 once it changed; update records it and check is quiet again; an
// unreachable URL is reported and its fixture left untouched; --offline checks and
// regenerates the canonical documents from the recorded bodies alone.

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

const std::string& body(int version) {
  static const std::string v1 = slurp(fixture_path("feeds/openai-research/0001.xml"));
  static const std::string v2 = slurp(fixture_path("feeds/openai-research/0002.xml"));
  return version == 1 ? v1 : v2;
}

struct VersionedFeed {
  std::atomic<int> version{1};
  HttpServer server{[this](const RecordedRequest& request) {
    const int v = version.load();
    const std::string etag = "\"v" + std::to_string(v) + "\"";
    if (request.header("If-None-Match") == etag) return Reply{.status = 304};
    return Reply{.status = 200,
                 .headers = {{"Content-Type", "application/rss+xml"},
                             {"ETag", etag},
                             {"Date", "Thu, 01 Oct 2026 05:54:03 GMT"},
                             {"Age", "61"}},
                 .body = body(v)};
  }};
};

RunResult fixtures(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"fixtures"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_feeddiff(argv, {{"FEEDDIFF_NOW", "2026-10-01T06:00:00Z"}, {"NO_COLOR", "1"}});
}

}  // namespace

TEST_CASE("fixtures check finds drift, update records it, and check is quiet again", "[cli]") {
  VersionedFeed feed;
  const std::string dir = make_temp_dir("fixtures") + "/fixtures";
  fs::create_directories(dir);
  spit(dir + "/fixtures.toml",
       "[sources.openai]\nurl = \"" + feed.server.url("/feed.xml") + "\"\n");

  auto first = fixtures({"update", dir});
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(slurp(dir + "/openai/response.xml") == body(1));
  const std::string headers = slurp(dir + "/openai/response.headers");
  CHECK(headers.find("Status: 200\n") != std::string::npos);
  CHECK(headers.find("Origin-Date: 2026-10-01T05:53:02.000Z\n") != std::string::npos);
  CHECK(headers.find("Response-Header: ETag: \"v1\"\n") != std::string::npos);
  CHECK(slurp(dir + "/openai/canonical.xml").starts_with("<?xml version=\"1.0\""));

  auto quiet = fixtures({"check", dir});
  INFO(quiet.out << quiet.err);
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.find("openai: unchanged") != std::string::npos);
  // The recorded validator went back: a conditional GET.
  CHECK(feed.server.requests().back().header("If-None-Match") == "\"v1\"");

  feed.version = 2;
  auto drift = fixtures({"check", dir});
  INFO(drift.out << drift.err);
  CHECK(drift.exit_code == 1);
  CHECK(drift.out.find("openai: drifted") != std::string::npos);
  // The same summary `show` gives: title, fields, headers, items, the diff.
  CHECK(drift.out.starts_with("openai: changed (53758 bytes, HTTP 200)\n"));
  CHECK(drift.out.find("Lines added ") != std::string::npos);
  CHECK(drift.out.find("Recorded headers") != std::string::npos);
  CHECK(drift.out.find("\n@@ -") != std::string::npos);
  CHECK(slurp(dir + "/openai/response.xml") == body(1));  // check writes nothing

  auto update = fixtures({"update", dir});
  INFO(update.out << update.err);
  CHECK(update.exit_code == 0);
  CHECK(update.out.find("openai: updated") != std::string::npos);
  CHECK(slurp(dir + "/openai/response.xml") == body(2));
  CHECK(slurp(dir + "/openai/response.headers").find("ETag: \"v2\"") != std::string::npos);
  auto again = fixtures({"check", dir});
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
}

TEST_CASE("an unreachable fixture is reported and left untouched", "[cli]") {
  VersionedFeed feed;
  const std::string dir = make_temp_dir("fixtures-down") + "/fixtures";
  fs::create_directories(dir + "/down");
  spit(dir + "/fixtures.toml",
       "[sources.down]\nurl = \"http://127.0.0.1:1/feed.xml\"\n\n"
       "[sources.up]\nurl = \"" +
           feed.server.url("/feed.xml") + "\"\n");
  spit(dir + "/down/response.xml", body(1));
  spit(dir + "/down/response.headers", "Status: 200\n");
  const auto before = fs::last_write_time(dir + "/down/response.xml");

  for (const char* action : {"update", "check"}) {
    INFO(action);
    auto r = fixtures({action, dir});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("down: failed: ") != std::string::npos);
    CHECK(r.err.find("127.0.0.1:1") != std::string::npos);
    CHECK(slurp(dir + "/down/response.xml") == body(1));
    CHECK(slurp(dir + "/down/response.headers") == "Status: 200\n");
    CHECK(fs::last_write_time(dir + "/down/response.xml") == before);
  }
  // The reachable one was still recorded.
  CHECK(slurp(dir + "/up/response.xml") == body(1));
}

TEST_CASE("fixtures --offline checks and regenerates canonical documents from the bodies",
          "[cli]") {
  const std::string dir = make_temp_dir("fixtures-offline") + "/fixtures";
  fs::create_directories(dir + "/openai");
  // No server at all: the URL is never fetched offline.
  spit(dir + "/fixtures.toml", "[sources.openai]\nurl = \"http://127.0.0.1:1/feed.xml\"\n");
  spit(dir + "/openai/response.xml", body(2));

  auto stale = fixtures({"check", dir, "--offline"});
  INFO(stale.out << stale.err);
  CHECK(stale.exit_code == 1);
  CHECK(stale.out.find("openai: canonical.xml is stale") != std::string::npos);

  auto regen = fixtures({"update", dir, "--offline"});
  INFO(regen.out << regen.err);
  CHECK(regen.exit_code == 0);
  const std::string canonical = slurp(dir + "/openai/canonical.xml");
  CHECK(canonical.find("<title>DALL·E 3</title>") != std::string::npos);
  CHECK(slurp(dir + "/openai/response.xml") == body(2));

  auto ok = fixtures({"check", dir, "--offline"});
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find("openai: up to date") != std::string::npos);

  spit(dir + "/openai/canonical.xml", canonical + "<!-- hand edit -->\n");
  CHECK(fixtures({"check", dir, "--offline"}).exit_code == 1);
}

TEST_CASE("feeddiff's own fixtures pass `feeddiff fixtures check --offline fixtures`", "[cli]") {
  // fixtures/fixtures.toml lists the recorded feeds this project keeps with the command; a
  // change to the normalizer that alters their canonical documents fails here until
  // `feeddiff fixtures update --offline fixtures` regenerates them and the diff is reviewed.
  auto r = fixtures({"check", fixture_path(""), "--offline"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("openai-research: up to date") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("fixtures record a response's trailers exactly as a poll commits them, redacted alike",
          "[cli]") {
  HttpServer server{[](const RecordedRequest&) {
    return Reply{.status = 200,
                 .headers = {{"Content-Type", "application/rss+xml"},
                             {"ETag", "\"v1\""},
                             {"Content-Location",
                              "https://user:pass@feeds.example.com/feed.xml?token=t0k3n&page=1"},
                             {"Location", "https://s3cr3t@feeds.example.com/?access_token=4cc3ss"},
                             {"Set-Cookie", "session=do-not-record-me"},
                             {"Date", "Thu, 01 Oct 2026 05:54:03 GMT"}},
                 .body = body(1)};
  }};
  const std::string url = server.url("/feed.xml");

  // A poll at the same clock as the fixtures run below.
  CliArchive archive("fixtures-as-poll", "2026-10-01T06:00:00Z");
  auto added = archive({"add", "openai", url});
  INFO(added.out << added.err);
  REQUIRE(added.exit_code == 0);
  auto polled = archive({"poll"});
  INFO(polled.out << polled.err);
  REQUIRE(polled.exit_code == 0);
  const std::string message = archive.git({"log", "-1", "--format=%B"}).out;
  REQUIRE(message.starts_with("openai: added ("));
  std::string committed = message.substr(message.find("\n\n") + 2);
  while (committed.ends_with("\n\n")) committed.pop_back();
  // What the commit says of the version (its class, its item summary) is no part of the
  // response: fixtures record the response's trailers.
  for (const std::string key : {"Change-Class: ", "Item-Summary: ", "Not-A-Feed: "})
    if (const auto at = committed.find("\n" + key); at != std::string::npos)
      committed.erase(at + 1, committed.find('\n', at + 1) - at);

  const std::string dir = make_temp_dir("fixtures-as-poll") + "/fixtures";
  fs::create_directories(dir);
  spit(dir + "/fixtures.toml", "[sources.openai]\nurl = \"" + url + "\"\n");
  auto update = fixtures({"update", dir});
  INFO(update.out << update.err);
  REQUIRE(update.exit_code == 0);
  const std::string recorded = slurp(dir + "/openai/response.headers");

  CHECK(recorded == committed);
  // Origin-Date from Date alone (no Age), and Set-Cookie's row kept but not its value.
  CHECK(recorded.find("Origin-Date: 2026-10-01T05:54:03.000Z\n") != std::string::npos);
  CHECK(recorded.find("Response-Header: Set-Cookie: [not recorded]\n") != std::string::npos);
  CHECK(recorded.find("Response-Header: Content-Location: "
                      "https://feeds.example.com/feed.xml?token=***&page=1\n") !=
        std::string::npos);
  CHECK(recorded.find("Response-Header: Location: "
                      "https://feeds.example.com/?access_token=***\n") != std::string::npos);
  for (const char* secret : {"user:pass", "pass@", "t0k3n", "s3cr3t", "4cc3ss", "do-not-record"}) {
    INFO(secret);
    CHECK(recorded.find(secret) == std::string::npos);
    CHECK(message.find(secret) == std::string::npos);
    CHECK(update.out.find(secret) == std::string::npos);
  }
}
