// skip_cosmetic: a change in volatile parts alone (lastBuildDate, generator, ...) makes no
// commit when the source asks for it, and still does by default.

#include <catch2/catch.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// A feed whose channel was rebuilt at `built` with one item per tag.
std::string rebuilt_feed(const std::string& built, const std::vector<std::string>& tags) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>"
      "<lastBuildDate>" +
      built + "</lastBuildDate><generator>gen " + built + "</generator>\n";
  for (const auto& tag : tags)
    body += "<item><title>" + tag + "</title><guid>" + tag + "</guid></item>\n";
  return body + "</channel></rss>\n";
}

// Adds the source, sets skip_cosmetic as asked in feeddiff.toml and commits that.
void add_source(const CliArchive& archive, const std::string& url, bool skip_cosmetic) {
  REQUIRE(archive({"add", "news", url}).exit_code == 0);
  if (!skip_cosmetic) return;
  std::string toml = slurp(archive.dir() + "/feeddiff.toml");
  toml += "skip_cosmetic = true\n";
  spit(archive.dir() + "/feeddiff.toml", toml);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m",
                    "skip_cosmetic", "feeddiff.toml"})
              .exit_code == 0);
}

// `poll --verbose`, which prints unchanged and not-modified sources too.
RunResult poll_verbose(const CliArchive& archive) {
  auto r = archive({"poll", "--force", "--verbose", "--timeout", "5s"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  return r;
}

}  // namespace

TEST_CASE("with skip_cosmetic a lastBuildDate-only change makes no commit, a real change does",
          "[poll]") {
  std::string body = rebuilt_feed("Thu, 01 Oct 2026 05:00:00 GMT", {"one", "two"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("cosmetic-skip");
  add_source(archive, server.url("/feed"), true);
  const std::string toml = slurp(archive.dir() + "/feeddiff.toml");
  REQUIRE(toml.find("skip_cosmetic = true") != std::string::npos);

  auto first = poll_verbose(archive);
  CHECK(first.out.find("news: added") != std::string::npos);
  const std::string first_version = archive({"cat", "HEAD", "news"}).out;
  CHECK(first_version == body);
  const std::string head = archive.head();

  // Only lastBuildDate and generator move: no commit, the state says why.
  body = rebuilt_feed("Thu, 01 Oct 2026 06:00:00 GMT", {"one", "two"});
  auto cosmetic = poll_verbose(archive);
  INFO(cosmetic.out);
  CHECK(cosmetic.out.find("news: unchanged (cosmetic only: lastBuildDate, generator;") !=
        std::string::npos);
  CHECK(archive.head() == head);
  CHECK(archive({"cat", "HEAD", "news"}).out == first_version);
  auto st = status_json(archive, "news");
  CHECK(st["last_result"] == "unchanged (cosmetic only)");
  CHECK(archive.git({"status", "--porcelain", "--untracked-files=all"}).out.empty());

  // The validators are the cosmetic version's: polling it again is a 304.
  auto again = poll_verbose(archive);
  CHECK(again.out.find("news: not modified") != std::string::npos);
  CHECK(archive.head() == head);

  // A new item is a real change: committed, with the newest lastBuildDate.
  body = rebuilt_feed("Thu, 01 Oct 2026 07:00:00 GMT", {"zero", "one", "two"});
  auto real = poll_verbose(archive);
  CHECK(real.out.find("news: changed") != std::string::npos);
  CHECK(archive.head() != head);
  CHECK(archive({"cat", "HEAD", "news"}).out == body);
  CHECK(status_json(archive, "news")["last_result"] == "changed");
}

TEST_CASE("without skip_cosmetic a lastBuildDate-only change is committed", "[poll]") {
  std::string body = rebuilt_feed("Thu, 01 Oct 2026 05:00:00 GMT", {"one"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("cosmetic-default");
  add_source(archive, server.url("/feed"), false);
  poll_verbose(archive);
  const std::string head = archive.head();

  body = rebuilt_feed("Thu, 01 Oct 2026 06:00:00 GMT", {"one"});
  auto r = poll_verbose(archive);
  CHECK(r.out.find("news: changed") != std::string::npos);
  CHECK(archive.head() != head);
  CHECK(archive({"cat", "HEAD", "news"}).out == body);
}

TEST_CASE("with skip_cosmetic a body that does not parse is committed, as no feed", "[poll]") {
  std::string body = rebuilt_feed("Thu, 01 Oct 2026 05:00:00 GMT", {"one"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("cosmetic-broken");
  add_source(archive, server.url("/feed"), true);
  poll_verbose(archive);
  const std::string head = archive.head();

  // Not skipped as cosmetic: archived at raw/news/not-a-feed (docs/not-a-feed.md), a failure.
  body = "<rss><channel><title>broken</chan";
  auto r = archive({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("news: not a feed (XML that does not parse: ") != std::string::npos);
  CHECK(archive.head() != head);
  CHECK(archive.git({"show", "HEAD:raw/news/not-a-feed"}).out == body);
}
