// robots.txt cached across polls (docs/articles.md, RFC 9309 2.4), end to end: the built
// binary polls a feed whose items link to pages on the scripted server, the clock moved by
// FEEDDIFF_NOW. Within 24 hours the cached copy decides (robots.txt asked once); after them
// it is asked again with its validators; while it is unreachable the copy serves on; a
// disallow keeps blocking from the cache; a missing cache is fetched again.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <mutex>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// Pages by path, changed by a test between polls; a page with an ETag answers 304 to it.
struct RobotsPages {
  std::mutex mutex;
  std::map<std::string, Reply> pages;
  void set(const std::string& path, Reply reply) {
    std::lock_guard<std::mutex> lock(mutex);
    pages[path] = std::move(reply);
  }
};

HttpServer serve_robots_pages(RobotsPages& pages) {
  return HttpServer([&pages](const RecordedRequest& request) {
    std::lock_guard<std::mutex> lock(pages.mutex);
    auto it = pages.pages.find(request.target);
    if (it == pages.pages.end()) return Reply{404, {{"Content-Type", "text/plain"}}, "no"};
    for (const auto& [name, value] : it->second.headers)
      if (name == "ETag" && request.header("If-None-Match") == value)
        return Reply{304, {{"ETag", value}}, ""};
    return it->second;
  });
}

std::string robots_article(const std::string& headline) {
  std::string text;
  for (int i = 0; i < 10; ++i)
    text += "Sentence " + std::to_string(i) + " of the report on the bridge and the council. ";
  return "<!doctype html><html><head><title>" + headline + "</title></head><body><article><h1>" +
         headline + "</h1><p>" + text + "</p><p>" + text + "</p></article></body></html>";
}

// A source with articles: /a/one allowed, /private/two disallowed by robots.txt.
struct RobotsNewsroom {
  RobotsPages pages;
  HttpServer server = serve_robots_pages(pages);
  CliArchive archive{"robots-cache", "2026-10-01T06:00:00.000Z"};
  std::string now = "2026-10-01T06:00:00.000Z";

  RobotsNewsroom() {
    std::string base = server.url("");
    if (base.ends_with('/')) base.pop_back();
    pages.set(
        "/feed",
        Reply{200,
              {{"Content-Type", "application/rss+xml"}},
              "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>N</title><link>" + base +
                  "/</link><description>d</description><item><title>one</title>"
                  "<guid>g-one</guid><link>" +
                  base +
                  "/a/one</link></item><item><title>two"
                  "</title><guid>g-two</guid><link>" +
                  base +
                  "/private/two</link></item>"
                  "</channel></rss>"});
    pages.set("/robots.txt", Reply{200,
                                   {{"Content-Type", "text/plain"}, {"ETag", "\"r1\""}},
                                   "User-agent: *\nDisallow: /private/\n"});
    pages.set("/a/one", Reply{200, {{"Content-Type", "text/html"}}, robots_article("Bridge")});
    auto r = archive({"add", "news", server.url("/feed"), "--articles"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }

  RunResult poll() {
    return run_feeddiff({"-C", archive.dir(), "poll", "--timeout", "5s"},
                        {{"FEEDDIFF_NOW", now}, {"NO_COLOR", "1"}});
  }

  std::size_t requests_for(const std::string& target) const {
    std::size_t n = 0;
    for (const auto& r : server.requests()) n += r.target == target;
    return n;
  }

  // The If-None-Match of the last robots.txt request, "" when it sent none.
  std::string last_robots_validator() const {
    std::string out;
    for (const auto& r : server.requests())
      if (r.target == "/robots.txt") out = r.header("If-None-Match").value_or("");
    return out;
  }
};

}  // namespace

TEST_CASE("robots.txt is asked once a day: the cached copy decides within 24 hours",
          "[poll][articles]") {
  RobotsNewsroom n;
  auto first = n.poll();
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(n.requests_for("/robots.txt") == 1);
  CHECK(n.requests_for("/a/one") == 1);
  CHECK(n.requests_for("/private/two") == 0);
  CHECK(n.last_robots_validator().empty());
  // The cache lives under .git/feeddiff/cache/robots/, never in the archive's tree.
  const std::string cache = n.archive.dir() + "/.git/feeddiff/cache/robots";
  CHECK(std::distance(std::filesystem::directory_iterator(cache),
                      std::filesystem::directory_iterator()) == 1);
  CHECK(n.archive.git({"ls-tree", "-r", "--name-only", "HEAD"}).out.find("robots") ==
        std::string::npos);

  // 7 hours on, the article is rechecked: robots.txt comes from the cache, and still blocks.
  n.now = "2026-10-01T13:00:00.000Z";
  auto second = n.poll();
  INFO(second.out << second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(n.requests_for("/a/one") == 2);
  CHECK(n.requests_for("/robots.txt") == 1);
  CHECK(n.requests_for("/private/two") == 0);
  CHECK(second.out.find("disallows /private/two for feeddiff") != std::string::npos);

  // Past 24 hours it is asked again, with its ETag: a 304 keeps the copy, which still blocks.
  n.now = "2026-10-02T07:00:00.000Z";
  auto third = n.poll();
  INFO(third.out << third.err);
  REQUIRE(third.exit_code == 0);
  CHECK(n.requests_for("/robots.txt") == 2);
  CHECK(n.last_robots_validator() == "\"r1\"");
  CHECK(n.requests_for("/a/one") == 3);
  CHECK(n.requests_for("/private/two") == 0);
}

TEST_CASE("a robots.txt that changed is read at the first poll past the day, not before",
          "[poll][articles]") {
  RobotsNewsroom n;
  REQUIRE(n.poll().exit_code == 0);
  // The site now disallows everything: the cached copy still allows /a/one for the day.
  n.pages.set("/robots.txt", Reply{200,
                                   {{"Content-Type", "text/plain"}, {"ETag", "\"r2\""}},
                                   "User-agent: *\nDisallow: /\n"});
  n.now = "2026-10-01T13:00:00.000Z";
  REQUIRE(n.poll().exit_code == 0);
  CHECK(n.requests_for("/a/one") == 2);
  n.now = "2026-10-02T07:00:00.000Z";
  auto r = n.poll();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(n.requests_for("/robots.txt") == 2);
  CHECK(n.requests_for("/a/one") == 2);  // disallowed now
  CHECK(r.out.find("disallows /a/one for feeddiff") != std::string::npos);
}

TEST_CASE(
    "an unreachable robots.txt: the cached copy serves on, and without one nothing is fetched",
    "[poll][articles]") {
  RobotsNewsroom n;
  REQUIRE(n.poll().exit_code == 0);
  n.pages.set("/robots.txt", Reply{503, {{"Content-Type", "text/plain"}}, "down"});
  n.now = "2026-10-02T07:00:00.000Z";
  auto served = n.poll();
  INFO(served.out << served.err);
  REQUIRE(served.exit_code == 0);
  CHECK(n.requests_for("/robots.txt") == 2);
  CHECK(n.requests_for("/a/one") == 2);        // the copy allows it
  CHECK(n.requests_for("/private/two") == 0);  // and still disallows this

  // The cache removed (it is only a cache): a 503 now fetches nothing from the host.
  std::filesystem::remove_all(n.archive.dir() + "/.git/feeddiff/cache/robots");
  n.now = "2026-10-02T14:00:00.000Z";
  auto blind = n.poll();
  INFO(blind.out << blind.err);
  REQUIRE(blind.exit_code == 0);
  CHECK(n.requests_for("/robots.txt") == 3);
  CHECK(n.requests_for("/a/one") == 2);
  CHECK(blind.out.find("could not be read") != std::string::npos);
}
