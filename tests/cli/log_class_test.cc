// `log` tells news from noise: every change shows its class and item summary (from the
// Change-Class and Item-Summary trailers, or for an older commit from the summary cache),
// cosmetic-only changes are folded unless --cosmetic, not-a-feed versions are listed and
// marked, and `log --items` works across every source.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// A feed with one item per id (its title "Title <id>"), built at `built` (lastBuildDate).
std::string feed_of(const std::vector<std::string>& ids, const std::string& built) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>\n"
      "<lastBuildDate>" +
      built + "</lastBuildDate>\n";
  for (const auto& id : ids)
    body += "<item><title>Title " + id + "</title><guid>" + id + "</guid></item>\n";
  return body + "</channel></rss>\n";
}

void poll_now(CliArchive& archive, const std::string& now) {
  archive.set_now(now);
  auto r = archive({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

// The line of `log` output that starts with the commit's short id, or "".
std::string line_of(const std::string& log, const std::string& id) {
  for (const auto& line : lines_of(log))
    if (line.starts_with(id.substr(0, 7) + " ")) return line;
  return "";
}

// Four real polls of one source: its first version, an item added, lastBuildDate alone,
// another item added (lastBuildDate kept, so the summary is the item's alone).
struct FourVersions {
  std::string body = feed_of({"a"}, "Mon, 01 Dec 2025 00:00:00 +0000");
  HttpServer server = serve_changing(&body);
  CliArchive archive{"log-class"};
  std::string first, added, cosmetic, added_again;

  FourVersions() {
    REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
    poll_now(archive, "2026-10-01T06:00:00.000Z");
    first = archive.head().substr(0, 40);
    body = feed_of({"b", "a"}, "Mon, 01 Dec 2025 00:00:00 +0000");
    poll_now(archive, "2026-10-01T07:00:00.000Z");
    added = archive.head().substr(0, 40);
    body = feed_of({"b", "a"}, "Mon, 01 Dec 2025 02:00:00 +0000");
    poll_now(archive, "2026-10-01T08:00:00.000Z");
    cosmetic = archive.head().substr(0, 40);
    body = feed_of({"c", "b", "a"}, "Mon, 01 Dec 2025 02:00:00 +0000");
    poll_now(archive, "2026-10-01T09:00:00.000Z");
    added_again = archive.head().substr(0, 40);
    REQUIRE(first != added);
    REQUIRE(added != cosmetic);
    REQUIRE(cosmetic != added_again);
  }
};

// Commits the working tree's raw/news/<file> as `content`, with this message, by hand (git).
void commit_raw_by_hand(const CliArchive& archive, const std::string& file,
                        const std::string& content, const std::string& message) {
  spit(archive.dir() + "/raw/news/" + file, content);
  REQUIRE(archive.git({"add", "raw/news/" + file}).exit_code == 0);
  REQUIRE(archive
              .git({"-c", "user.name=u", "-c", "user.email=u@example.org", "commit", "-q", "-m",
                    message})
              .exit_code == 0);
}

}  // namespace

TEST_CASE("log marks each change with its class and folds the cosmetic ones", "[cli]") {
  FourVersions feed;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"log"}, std::vector<std::string>{"log", "news"}}) {
    auto log = feed.archive(args);
    INFO(log.out << log.err);
    REQUIRE(log.exit_code == 0);
    CHECK(line_of(log.out, feed.added_again).ends_with(" [items] 1 added"));
    CHECK(line_of(log.out, feed.added).ends_with(" [items] 1 added"));
    CHECK(line_of(log.out, feed.first).ends_with(" [first]"));
    // The lastBuildDate-only version is folded into one line at the end.
    CHECK(line_of(log.out, feed.cosmetic).empty());
    CHECK(log.out.ends_with("… 1 cosmetic change not shown (--cosmetic to list it)\n"));
  }
  // --cosmetic lists it, marked.
  auto all = feed.archive({"log", "--cosmetic"});
  REQUIRE(all.exit_code == 0);
  const std::string cosmetic = line_of(all.out, feed.cosmetic);
  CHECK(cosmetic.find(" [cosmetic] cosmetic only") != std::string::npos);
  CHECK(cosmetic.find("lastBuildDate") != std::string::npos);
  CHECK(all.out.find("not shown") == std::string::npos);
  // -n counts the changes read, folded ones too: the newest two are one listed, one folded.
  auto two = feed.archive({"log", "-n", "2"});
  CHECK(lines_of(two.out).size() == 2);
  CHECK(line_of(two.out, feed.added_again).ends_with(" [items] 1 added"));

  // JSON lists every change with its class and summary.
  auto json = feed.archive({"log", "news", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  REQUIRE(doc["changes"].size() == 4);
  CHECK(doc["changes"][0]["class"] == "items");
  CHECK(doc["changes"][0]["item_summary"] == "1 added");
  CHECK(doc["changes"][1]["class"] == "cosmetic");
  CHECK(doc["changes"][1]["item_summary"].get<std::string>().find("lastBuildDate") !=
        std::string::npos);
  CHECK(doc["changes"][3]["class"] == "first");
  CHECK(doc["changes"][3]["not_a_feed"].is_null());
}

TEST_CASE("log reads the class trailers, and an older commit's class from the summary cache only",
          "[cli]") {
  FourVersions feed;
  // A version whose trailers say what the cache cannot know (the cache has no entry for it).
  commit_raw_by_hand(feed.archive, "response.xml", feed_of({"z"}, "x"),
                     "news: changed (1 bytes, HTTP 200)\n\nSource: news\nStatus: 200\n"
                     "Change-Class: items\nItem-Summary: 7 added, 2 aged out");
  const std::string trailed = feed.archive.head().substr(0, 40);
  // A response that was no feed, kept beside the feed, its reason with an escape in it.
  commit_raw_by_hand(feed.archive, "not-a-feed", "<html><title>Just a moment...</title></html>",
                     "news: not a feed (HTML document, 44 bytes, HTTP 200)\n\nSource: news\n"
                     "Status: 200\nChange-Class: not-a-feed\n"
                     "Not-A-Feed: HTML document \"Just a \x1b[2Jmoment...\" (text/html)");
  const std::string not_a_feed = feed.archive.head().substr(0, 40);
  // A version recorded as poll did before the trailers: no class until its summary is cached.
  commit_raw_by_hand(feed.archive, "response.xml", feed_of({"y", "z"}, "x"),
                     "news: changed (2 bytes, HTTP 200)\n\nSource: news\nStatus: 200");
  const std::string old_style = feed.archive.head().substr(0, 40);

  auto log = feed.archive({"log"});
  INFO(log.out << log.err);
  REQUIRE(log.exit_code == 0);
  CHECK(line_of(log.out, trailed).ends_with(" [items] 7 added, 2 aged out"));
  CHECK(line_of(log.out, not_a_feed)
            .ends_with(" [not a feed] HTML document \"Just a \\x1b[2Jmoment...\" (text/html)"));
  CHECK(line_of(log.out, old_style).ends_with("news: changed (2 bytes, HTTP 200)"));
  // log NAME keeps its records in a cache, where the summary's key is kept: not the class,
  // which the next call reads from the summary cache as it is then.
  CHECK(line_of(feed.archive({"log", "news"}).out, old_style)
            .ends_with("news: changed (2 bytes, HTTP 200)"));
  // `show` caches its summary; then log shows it, and nothing was normalized by log itself.
  REQUIRE(feed.archive({"show", old_style}).exit_code == 0);
  auto after = feed.archive({"log", "news"});
  CHECK(line_of(after.out, old_style).ends_with(" [items] 1 added"));
  CHECK(line_of(after.out, not_a_feed).find("[not a feed]") != std::string::npos);
  // And log over every source finds it through the key show left for the commit.
  CHECK(line_of(feed.archive({"log"}).out, old_style).ends_with(" [items] 1 added"));

  auto json = feed.archive({"log", "-n", "3", "--format", "json"});
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["changes"][1]["class"] == "not-a-feed");
  CHECK(doc["changes"][1]["item_summary"].is_null());
  CHECK(doc["changes"][1]["not_a_feed"].get<std::string>().starts_with("HTML document"));
  CHECK(doc["changes"][2]["item_summary"] == "7 added, 2 aged out");
}

TEST_CASE("log --items without NAME lists every source's item changes, each naming its source",
          "[cli]") {
  std::string one = feed_of({"a"}, "x"), two = feed_of({"p"}, "x");
  HttpServer first = serve_changing(&one), second = serve_changing(&two);
  CliArchive archive("log-items-all");
  REQUIRE(archive({"add", "one", first.url("/feed")}).exit_code == 0);
  REQUIRE(archive({"add", "two", second.url("/feed")}).exit_code == 0);
  poll_now(archive, "2026-10-01T06:00:00.000Z");
  one = feed_of({"b", "a"}, "x");
  two = feed_of({"q", "p"}, "x");
  poll_now(archive, "2026-10-01T07:00:00.000Z");

  auto log = archive({"log", "--items"});
  INFO(log.out << log.err);
  REQUIRE(log.exit_code == 0);
  const auto lines = lines_of(log.out);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].find(" 2026-10-01 07:00 added      ") != std::string::npos);
  CHECK(log.out.find("added      one: Title b\n") != std::string::npos);
  CHECK(log.out.find("added      two: Title q\n") != std::string::npos);
  CHECK(log.out.find("added      one: Title a\n") != std::string::npos);
  CHECK(log.out.find("added      two: Title p\n") != std::string::npos);
  // -n counts lines: the newest commit's.
  auto newest = archive({"log", "--items", "-n", "1"});
  REQUIRE(newest.exit_code == 0);
  REQUIRE(lines_of(newest.out).size() == 1);
  CHECK(newest.out == lines[0] + "\n");
}

TEST_CASE("the site's index marks a not-a-feed version as such", "[cli]") {
  FourVersions feed;
  commit_raw_by_hand(feed.archive, "not-a-feed", "<html><title>Just a moment...</title></html>",
                     "news: not a feed (HTML document, 44 bytes, HTTP 200)\n\nSource: news\n"
                     "Status: 200\nChange-Class: not-a-feed\n"
                     "Not-A-Feed: HTML document \"Just a <moment>\" (text/html)");
  const std::string site = make_temp_dir("log-class-site") + "/site";
  auto r = feed.archive({"site", site});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string index = slurp(site + "/index.html");
  CHECK(index.find("not a feed: HTML document &quot;Just a &lt;moment&gt;&quot; (text/html)") !=
        std::string::npos);
  // The other changes keep their summaries.
  CHECK(index.find("cosmetic only") != std::string::npos);
}
