// feeddiff article through the binary: a file, stdin, a URL, --json, and what a page's
// text may not do to a terminal.

#include <catch2/catch.hpp>
#include <string>

#include "cli/cli_helpers.h"
#include "support/http_server.h"

using namespace feeddiff::test;

namespace {

const std::string kPage = R"(<!DOCTYPE html><html lang="en"><head>
<title>Library stays open on Sundays | The Town Crier</title>
<meta name="author" content="Ann Example">
<meta property="article:published_time" content="2026-03-01T08:30:00Z"></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Library stays open on Sundays</h1>
<p>The town council met on Tuesday evening, and after a long debate it voted to keep the
central library open on Sundays, which residents had asked for in a petition last spring.</p>
<p>Librarians said they would need two more staff, and the council agreed to fund them.</p>
</article><footer>Copyright The Town Crier</footer></body></html>)";

std::string write_page(std::string_view hint, std::string_view html) {
  const std::string path = make_temp_dir(hint) + "/page.html";
  spit(path, html);
  return path;
}

}  // namespace

TEST_CASE("article prints the title, byline, date and language, then the body", "[cli]") {
  auto r = run_feeddiff({"article", write_page("article-file", kPage)});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(
      r.out.starts_with("title: Library stays open on Sundays\nbyline: Ann Example\n"
                        "published: 2026-03-01T08:30:00Z\nlanguage: en\n\n"));
  CHECK(r.out.find("voted to keep the central library open on Sundays") != std::string::npos);
  CHECK(r.out.find("last spring.\n\nLibrarians said") != std::string::npos);
  CHECK(r.out.find("Home") == std::string::npos);
  CHECK(r.out.find("Copyright") == std::string::npos);
  // stdin reads the same page.
  auto piped = run({FEEDDIFF_BINARY, "article", "-"}, {}, kPage);
  CHECK(piped.exit_code == 0);
  CHECK(piped.out == r.out);
}

TEST_CASE("article --json prints the fields and the blocks", "[cli]") {
  auto r = run_feeddiff({"article", "--json", write_page("article-json", kPage)});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(
      r.out.starts_with("{\n  \"schema\": \"feeddiff.article/1\",\n  \"title\": \"Library "
                        "stays open on Sundays\",\n  \"byline\": \"Ann Example\",\n"));
  CHECK(r.out.find("\"kind\": \"paragraph\"") != std::string::npos);
  CHECK(r.out.find("\"language\": \"en\"") != std::string::npos);
  CHECK(r.out.find("\"text\": \"The town council met") != std::string::npos);
}

TEST_CASE("article escapes control and bidi characters of the page", "[cli]") {
  // The parser makes a raw ESC U+FFFD; a character reference to one gets through it.
  const std::string page =
      "<html><head><title>Evil \x1b]0;owned\x07 title</title></head><body><article><p>A "
      "paragraph long enough to be the article, with an escape &#x1b;[2J and a bidi override "
      "\xE2\x80\xAE here, which must not reach the terminal as they are.</p></article></body>"
      "</html>";
  auto r = run_feeddiff({"article", write_page("article-escape", page)});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK(r.out.find("\xE2\x80\xAE") == std::string::npos);
  CHECK(r.out.find("\\x1b[2J") != std::string::npos);
  CHECK(r.out.find("\\u202e") != std::string::npos);
}

TEST_CASE("article fetches a URL with one GET", "[cli]") {
  HttpServer server([](const RecordedRequest&) {
    return Reply{200, {{"Content-Type", "text/html; charset=utf-8"}}, kPage};
  });
  auto r = run_feeddiff({"article", server.url("/story")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.starts_with("title: Library stays open on Sundays\n"));
  CHECK(server.request_count() == 1);
  CHECK(server.requests()[0].method == "GET");

  HttpServer missing([](const RecordedRequest&) { return Reply{404, {}, "gone"}; });
  auto gone = run_feeddiff({"article", missing.url("/story")});
  CHECK(gone.exit_code == 2);
  CHECK(gone.err == "feeddiff: error: " + missing.url("/story") + ": HTTP 404\n");
}

TEST_CASE("article's errors are one line with exit 2", "[cli]") {
  const std::string dir = make_temp_dir("article-errors");
  auto missing = run_feeddiff({"article", dir + "/nope.html"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.starts_with("feeddiff: error: "));
  CHECK(missing.err.find(dir + "/nope.html") != std::string::npos);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
  CHECK(missing.out.empty());

  auto empty = run_feeddiff({"article", write_page("article-empty", "<html><body></body></html>")});
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.ends_with(": the page has no text to read\n"));

  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<div>";
  auto nested = run_feeddiff({"article", write_page("article-deep", deep)});
  CHECK(nested.exit_code == 2);
  CHECK(nested.err.ends_with(": elements nested deeper than 1000 levels\n"));
}
