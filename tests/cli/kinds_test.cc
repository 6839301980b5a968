// Item kinds that need a source's history, end to end through poll and the binary: an item
// that leaves and comes back is "reappeared", a version byte for byte an earlier one is
// "reverted to" it, `log [NAME] --items` lists item changes newest first, and `--only`
// filters the listed kinds (unknown ones are a usage error).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// A feed with one item per id (its title "Title <id>").
std::string feed_of(const std::vector<std::string>& ids) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>\n";
  for (const auto& id : ids)
    body += "<item><title>Title " + id + "</title><guid>" + id + "</guid></item>\n";
  return body + "</channel></rss>\n";
}

RunResult poll_now(const CliArchive& archive) {
  auto r = archive({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

// Versions 1 [a, b], 2 [b, c], 3 [a, b] (byte for byte version 1): a leaves and returns.
struct LeaveAndReturn {
  std::string body = feed_of({"a", "b"});
  HttpServer server = serve_changing(&body);
  CliArchive archive{"kinds"};
  std::string v1, v2, v3;

  LeaveAndReturn() {
    REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
    poll_now(archive);
    v1 = archive.head().substr(0, 40);
    body = feed_of({"b", "c"});
    archive.set_now("2026-10-01T07:00:00.000Z");
    poll_now(archive);
    v2 = archive.head().substr(0, 40);
    body = feed_of({"a", "b"});
    archive.set_now("2026-10-01T08:00:00.000Z");
    poll_now(archive);
    v3 = archive.head().substr(0, 40);
    REQUIRE(v1 != v2);
    REQUIRE(v2 != v3);
  }
};

}  // namespace

TEST_CASE("an item absent from one version and back in the next is reappeared, not added",
          "[cli]") {
  LeaveAndReturn feed;
  auto text = feed.archive({"show", feed.v3});
  INFO(text.out << text.err);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("reappeared Title a") != std::string::npos);
  CHECK(text.out.find("added    Title a") == std::string::npos);
  // c, the last (oldest) item, fell off the end as a came back on top: aged out.
  CHECK(text.out.find("Items: 1 aged out, 1 reappeared") != std::string::npos);

  auto json = feed.archive({"show", "--format", "json", feed.v3});
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  const auto& changes = doc["items"]["changes"];
  REQUIRE(changes.size() == 2);
  CHECK(changes[0]["kind"] == "reappeared");
  CHECK(changes[0]["id"] == "a");
  CHECK(changes[1]["kind"] == "removed");

  // Version 2's c was never seen before: added. The cache of versions is rebuilt when gone.
  std::filesystem::remove_all(feed.archive.dir() + "/.git/feeddiff/cache");
  auto second = feed.archive({"show", "--format", "json", feed.v2});
  REQUIRE(second.exit_code == 0);
  const auto doc2 = nlohmann::json::parse(second.out);
  CHECK(doc2["items"]["changes"][0]["kind"] == "added");
  CHECK(doc2["reverted_to"].is_null());
  auto again = feed.archive({"show", "--format", "json", feed.v3});
  CHECK(again.out == json.out);
}

TEST_CASE("show of the newest change leaves the versions before it cached for the next show",
          "[cli]") {
  LeaveAndReturn feed;
  const std::string cache = feed.archive.dir() + "/.git/feeddiff/cache/versions/6e657773";  // news
  std::filesystem::remove_all(feed.archive.dir() + "/.git/feeddiff/cache");
  auto first = feed.archive({"show", "--format", "json", feed.v3});
  REQUIRE(first.exit_code == 0);
  // The two versions before v3, each with its commit, in order.
  const std::vector<std::string> rows = lines_of(slurp(cache));
  // The file is appended to a version at a time (include/feeddiff/changes.h): no closing line.
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == "feeddiff versions 3");
  CHECK(rows[1].rfind("v\t" + feed.v1 + "\t", 0) == 0);
  CHECK(rows[2].rfind("v\t" + feed.v2 + "\t", 0) == 0);
  auto second = feed.archive({"show", "--format", "json", feed.v3});
  CHECK(second.out == first.out);
}

TEST_CASE("a version byte for byte an earlier one says which it reverted to", "[cli]") {
  LeaveAndReturn feed;
  auto text = feed.archive({"show", feed.v3});
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("Reverted to") != std::string::npos);
  CHECK(text.out.find(feed.v1.substr(0, 7) + " (byte for byte an earlier version)") !=
        std::string::npos);
  const auto doc = nlohmann::json::parse(feed.archive({"show", "--format", "json", feed.v3}).out);
  CHECK(doc["reverted_to"] == feed.v1);
  for (const char* format : {"markdown", "html"}) {
    auto page = feed.archive({"show", "--format", format, feed.v3});
    CHECK(page.out.find("Reverted to") != std::string::npos);
    CHECK(page.out.find("reappeared") != std::string::npos);
  }
  // Version 2 is no earlier version's copy.
  CHECK(feed.archive({"show", feed.v2}).out.find("Reverted to") == std::string::npos);
}

TEST_CASE("log NAME --items lists item changes newest first, and -n counts lines", "[cli]") {
  LeaveAndReturn feed;
  auto log = feed.archive({"log", "news", "--items"});
  INFO(log.out << log.err);
  REQUIRE(log.exit_code == 0);
  const auto lines = lines_of(log.out);
  REQUIRE(lines.size() == 7);
  const std::string s3 = feed.v3.substr(0, 7), s2 = feed.v2.substr(0, 7), s1 = feed.v1.substr(0, 7);
  CHECK(lines[0] == s3 + " 2026-10-01 08:00 reverted   " + feed.v1.substr(0, 7));
  CHECK(lines[1] == s3 + " 2026-10-01 08:00 reappeared Title a");
  CHECK(lines[2] == s3 + " 2026-10-01 08:00 aged out   Title c");
  CHECK(lines[3] == s2 + " 2026-10-01 07:00 added      Title c");
  CHECK(lines[4] == s2 + " 2026-10-01 07:00 removed    Title a");
  // The first version's items are all new.
  CHECK(lines[5] == s1 + " 2026-10-01 05:54 added      Title a");
  CHECK(lines[6] == s1 + " 2026-10-01 05:54 added      Title b");

  auto two = feed.archive({"log", "news", "--items", "-n", "2"});
  REQUIRE(two.exit_code == 0);
  CHECK(lines_of(two.out) == std::vector<std::string>{lines[0], lines[1]});

  // Without NAME, the same lines across every source, each naming its source.
  auto nameless = feed.archive({"log", "--items", "-n", "2"});
  INFO(nameless.err);
  REQUIRE(nameless.exit_code == 0);
  CHECK(lines_of(nameless.out) ==
        std::vector<std::string>{s3 + " 2026-10-01 08:00 reverted   news: " + s1,
                                 s3 + " 2026-10-01 08:00 reappeared news: Title a"});
}

TEST_CASE("show --only lists the kinds asked for, says how many it left out, and refuses others",
          "[cli]") {
  LeaveAndReturn feed;
  auto only = feed.archive({"show", feed.v3, "--only", "removed"});
  INFO(only.out << only.err);
  REQUIRE(only.exit_code == 0);
  CHECK(only.out.find("aged out Title c") != std::string::npos);
  CHECK(only.out.find("reappeared Title a") == std::string::npos);
  // The summary still counts every change.
  CHECK(only.out.find("Items: 1 aged out, 1 reappeared") != std::string::npos);
  CHECK(only.out.find("1 item change not listed (--only removed)") != std::string::npos);

  const auto doc = nlohmann::json::parse(
      feed.archive({"show", "--format", "json", feed.v3, "--only", "reappeared,added"}).out);
  CHECK(doc["items"]["total"] == 2);
  CHECK(doc["items"]["listed"] == 1);
  CHECK(doc["items"]["filtered_out"] == 1);
  CHECK(doc["items"]["only"] == nlohmann::json::array({"reappeared", "added"}));
  CHECK(doc["items"]["changes"][0]["kind"] == "reappeared");

  auto bad = feed.archive({"show", feed.v3, "--only", "added,bogus"});
  CHECK(bad.exit_code == 2);
  CHECK(lines_of(bad.err).size() == 1);
  CHECK(bad.err.find("unknown kind 'bogus'") != std::string::npos);
  CHECK(bad.out.empty());
  auto diff_bad = feed.archive({"diff", feed.v1, feed.v2, "news", "--only", "nope"});
  CHECK(diff_bad.exit_code == 2);
  auto diff_only = feed.archive({"diff", feed.v1, feed.v2, "news", "--only", "added"});
  CHECK(diff_only.exit_code == 1);
  CHECK(diff_only.out.find("added    Title c") != std::string::npos);
  CHECK(diff_only.out.find("removed  Title a") == std::string::npos);
}
