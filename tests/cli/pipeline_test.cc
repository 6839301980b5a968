// The whole pipeline through the built binary: init, add, poll, log, show, cat, against a
// real loopback HTTP server and a real git repository.

#include <atomic>
#include <catch2/catch.hpp>
#include <sstream>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;

namespace {

const std::string& v1() {
  static const std::string body = slurp(fixture_path("feeds/openai-research/0001.xml"));
  return body;
}
const std::string& v2() {
  static const std::string body = slurp(fixture_path("feeds/openai-research/0002.xml"));
  return body;
}

// Serves version `version` of the feed with the validators and cache headers of a CDN.
struct FeedServer {
  std::atomic<int> version{1};
  HttpServer server{[this](const RecordedRequest& request) {
    const int v = version.load();
    const std::string etag = v == 1 ? "\"etag-v1-5a30369b\"" : "W/\"etag-v2-61c8a52d\"";
    if (request.header("If-None-Match") == etag)
      return Reply{.status = 304,
                   .headers = {{"ETag", etag}, {"Date", "Thu, 01 Oct 2026 06:00:00 GMT"}}};
    return Reply{.status = 200,
                 .headers = {{"Content-Type", "application/rss+xml"},
                             {"ETag", etag},
                             {"Last-Modified", v == 1 ? "Wed, 30 Sep 2026 16:45:20 GMT"
                                                      : "Thu, 01 Oct 2026 04:00:00 GMT"},
                             {"Date", "Thu, 01 Oct 2026 05:54:03 GMT"},
                             {"Age", "3061"},
                             {"Cache-Control", "public, max-age=60"},
                             {"Set-Cookie", "session=do-not-record-me"}},
                 .body = v == 1 ? v1() : v2()};
  }};
};

std::string field(const std::string& page, const std::string& label) {
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line))
    if (line.starts_with(label + " ")) {
      auto value = line.substr(label.size());
      return value.substr(value.find_first_not_of(' '));
    }
  return "<missing " + label + ">";
}

}  // namespace

TEST_CASE("two polls record added then changed, a third gets 304 and commits nothing", "[cli]") {
  FeedServer feed;
  CliArchive archive("pipeline");
  const std::string url = feed.server.url("/feed.xml");
  REQUIRE(archive({"add", "openai", url}).exit_code == 0);

  auto first = archive({"poll"});
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.find("openai: added (53,758 bytes, HTTP 200)") != std::string::npos);

  feed.version = 2;
  archive.set_now("2026-10-01T07:00:00.500Z");  // past the 1h interval: due again
  auto second = archive({"poll"});
  INFO(second.out << second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(second.out.find("openai: changed") != std::string::npos);

  auto titles = archive.git({"log", "--format=%s"});
  CHECK(titles.out ==
        "openai: changed (53758 bytes, HTTP 200)\n"
        "openai: added (53758 bytes, HTTP 200)\n"
        "openai: source added\n"
        "feeddiff: archive created\n");
  const std::string head = archive.head();

  archive.set_now("2026-10-01T08:00:01.000Z");
  auto third = archive({"poll"});
  INFO(third.out << third.err);
  REQUIRE(third.exit_code == 0);
  REQUIRE(feed.server.request_count() == 3);
  // The stored ETag goes back byte for byte, weak prefix and quotes included.
  CHECK(feed.server.requests().back().header("If-None-Match") == "W/\"etag-v2-61c8a52d\"");
  CHECK(feed.server.requests().back().header("If-Modified-Since") ==
        "Thu, 01 Oct 2026 04:00:00 GMT");
  CHECK(archive.head() == head);
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
  auto fsck = archive.git({"fsck", "--strict"});
  INFO(fsck.err);
  CHECK(fsck.exit_code == 0);

  // The raw body is stored byte for byte, and cat gives it back.
  CHECK(slurp(archive.dir() + "/raw/openai/response.xml") == v2());
  CHECK(archive({"cat", "HEAD"}).out == v2());
  CHECK(archive({"cat", "HEAD~1", "openai"}).out == v1());

  // The commit records the observation as trailers; secrets stay out.
  auto message = archive.git({"log", "-1", "--format=%B"}).out;
  CHECK(message.find("Observed-At: 2026-10-01T07:00:00.500Z\n") != std::string::npos);
  CHECK(message.find("Origin-Date: 2026-10-01T05:03:02.000Z\n") != std::string::npos);
  CHECK(message.find("Status: 200\n") != std::string::npos);
  CHECK(message.find("Final-URL: " + url + "\n") != std::string::npos);
  CHECK(message.find("Response-Header: Age: 3061\n") != std::string::npos);
  CHECK(message.find("do-not-record-me") == std::string::npos);
  // The commit's timestamp is origin_date (Date − Age), the committer's is observed_at.
  CHECK(archive.git({"log", "-1", "--format=%aI %cI"}).out ==
        "2026-10-01T05:03:02+00:00 2026-10-01T07:00:00+00:00\n");

  auto show = archive({"show", "HEAD"});
  INFO(show.err);
  REQUIRE(show.exit_code == 0);
  const std::string id = head.substr(0, 40);
  CHECK(show.out.starts_with("Change " + id.substr(0, 7) + "\n" + id + "\n"));
  CHECK(show.out.find("openai: changed (53758 bytes, HTTP 200)\n") != std::string::npos);
  CHECK(show.out.find("raw/openai/response.xml modified\n") != std::string::npos);
  CHECK(field(show.out, "Source") == "openai");
  CHECK(field(show.out, "Stored bytes at this commit") == "53,758");
  CHECK(field(show.out, "Timestamp") == "origin");
  CHECK(field(show.out, "Raw artifact at this commit") == "raw/openai/response.xml");
  CHECK(show.out.find("Recorded headers\n") != std::string::npos);
  CHECK(field(show.out, "  etag") == "W/\"etag-v2-61c8a52d\"");
  // Only headers the server sent: no `null` row for one it did not.
  CHECK(show.out.find("cf-cache-status") == std::string::npos);
  CHECK(field(show.out, "  observed_at") == "2026-10-01T07:00:00.500Z");

  // Lines added and removed are git's own count of the same change.
  auto numstat =
      archive.git({"diff", "--numstat", "HEAD~1", "HEAD", "--", "raw/openai/response.xml"});
  std::istringstream counts(numstat.out);
  std::string added, removed;
  counts >> added >> removed;
  CHECK(field(show.out, "Lines added") == "+" + added);
  CHECK(field(show.out, "Lines removed") == "-" + removed);
  CHECK(show.out.find("\n@@ -") != std::string::npos);

  auto log = archive({"log", "openai"});
  CHECK(count_lines(log.out) == 2);
  CHECK(log.out.find("openai: changed") < log.out.find("openai: added"));
  CHECK(count_lines(archive({"log", "-n", "1"}).out) == 1);
}

TEST_CASE("a byte-identical body makes no commit even without validators", "[cli]") {
  HttpServer server([](const RecordedRequest&) { return Reply{.body = "<rss version=\"2.0\"/>"}; });
  CliArchive archive("identical");
  REQUIRE(archive({"add", "same", server.url("/")}).exit_code == 0);
  REQUIRE(archive({"poll"}).exit_code == 0);
  const std::string head = archive.head();
  auto again = archive({"poll", "--force", "--verbose"});
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("same: unchanged") != std::string::npos);
  CHECK(archive.head() == head);
}
