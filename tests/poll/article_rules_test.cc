// The pure rules of the article phase: robots.txt, where an article lives, and when its
// extraction is in doubt (docs/articles.md).

#include <catch2/catch.hpp>
#include <filesystem>

#include "feeddiff/poll.h"
#include "support/process.h"

using feeddiff::article_doubt;
using feeddiff::robots_allows;

namespace {

std::string words(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += "word ";
  return out;
}

}  // namespace

TEST_CASE("robots.txt: feeddiff's own group wins over *, the longest rule decides, Allow on a tie",
          "[poll][articles]") {
  const std::string robots =
      "# comment\nUser-agent: *\nDisallow: /\n\nUser-agent: Feeddiff\nUser-agent: other\n"
      "Disallow: /news/private\nAllow: /news/private/public\nDisallow: /*.pdf$\n";
  CHECK(robots_allows(robots, "feeddiff", "/news/story"));
  CHECK_FALSE(robots_allows(robots, "feeddiff", "/news/private/x"));
  CHECK(robots_allows(robots, "feeddiff", "/news/private/public/x"));
  CHECK_FALSE(robots_allows(robots, "feeddiff", "/files/a.pdf"));
  CHECK(robots_allows(robots, "feeddiff", "/files/a.pdf?x=1"));
  CHECK_FALSE(robots_allows(robots, "somebot", "/news/story"));  // the * group
  CHECK(robots_allows("User-agent: *\nDisallow: /a\nAllow: /a\n", "feeddiff", "/a"));
  CHECK(robots_allows("User-agent: *\nDisallow:\n", "feeddiff", "/anything"));
  CHECK(robots_allows("", "feeddiff", "/"));
  CHECK_FALSE(robots_allows("user-agent: *\r\ndisallow: /x\r\n", "feeddiff", "/x/y"));
  // A group for feeddiff with no rule allows everything, whatever * says.
  CHECK(robots_allows("User-agent: *\nDisallow: /\nUser-agent: feeddiff\nCrawl-delay: 5\n",
                      "feeddiff", "/a"));
  // A hostile pattern ends quickly.
  CHECK_FALSE(robots_allows("User-agent: *\nDisallow: " + std::string(5000, '*') + "x\n",
                            "feeddiff", std::string(5000, 'a') + "x"));
}

TEST_CASE("an article lives at articles/SOURCE/HH/KEY/, fanned out by a hash of its item id",
          "[poll][articles]") {
  const std::string dir = feeddiff::article_dir("news", "g-one");
  // printf %s g-one | sha1sum
  const std::string sha = feeddiff::sha1_hex("g-one");
  CHECK(dir == "articles/news/" + sha.substr(0, 2) + "/" + sha.substr(0, 20) + "/");
  CHECK(feeddiff::article_dir("news", "g-two") != dir);
}

TEST_CASE("extraction is in doubt for walls, challenges, error pages, short and shrunk texts",
          "[poll][articles]") {
  const std::string text = words(300);
  CHECK(article_doubt(200, "<html></html>", "A story", text, 0).empty());
  CHECK(article_doubt(200, "<html></html>", "A story", text, 400).empty());
  CHECK(article_doubt(404, "<html></html>", "A story", text, 0) == "HTTP 404");
  CHECK(article_doubt(200, "<html></html>", "A story", words(20), 0) == "only 20 words");
  CHECK(article_doubt(200, "<html></html>", "A story", "", 0) == "the page has no text to read");
  CHECK(article_doubt(200, "<html></html>", "A story", words(120), 300) ==
        "the text shrank from 300 words to 120");
  CHECK(article_doubt(200, "<html></html>", "Before you continue to YouTube", words(80), 0) ==
        "the page is a consent wall");
  CHECK(article_doubt(200, "<html></html>", "A story",
                      words(60) + " Subscribe to continue reading.", 0) == "the page is a paywall");
  CHECK(article_doubt(200, "<html></html>", "Page not found", words(60), 0) ==
        "the page is an error page");
  CHECK(article_doubt(200, "<html><noscript>Please enable JavaScript</noscript></html>", "App", "",
                      0) == "the page needs JavaScript to show its text");
  // A long article about a paywall or a 404 is still the article.
  CHECK(article_doubt(200, "<html></html>", "Why the 404 error page matters",
                      text + " subscribe to continue", 0)
            .empty());
  // Every Cloudflare challenge page of the corpus is one.
  std::size_t pages = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           feeddiff::test::corpus_path("non-feed-responses/cloudflare-challenges"))) {
    // requested_page.html is the page behind a challenge once passed ("Success"): no challenge.
    if (entry.path().extension() != ".html" || entry.path().filename() == "requested_page.html")
      continue;
    ++pages;
    INFO(entry.path().filename().string());
    CHECK(article_doubt(200, feeddiff::test::slurp(entry.path().string()), "", text, 0) ==
          "the page is a bot challenge");
  }
  CHECK(pages >= 10);
}
