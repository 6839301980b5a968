// A source's "Corrections and edits" (docs/site.md), the site module called as a library:
// article versions committed as poll commits them (articles/NAME/hh/key/, Change-Class
// article or article-uncertain), then build_site. Only edits are listed (no first capture,
// no uncertain extraction), newest first, with their diff; a hostile headline and body stay
// text in the page and the feed; a run after new versions reads only those; pages keep a
// fixed size; a reset drops the edits that left the branch.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/site.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

constexpr const char* kDir = "articles/news/ab/ab12/";

std::string body(const std::string& changed_word) {
  std::string out;
  for (int i = 0; i < 8; ++i)
    out += "Sentence " + (i == 3 ? changed_word : std::to_string(i)) +
           " of the report on the council and the bridge it wants to build.\n\n";
  return out;
}

// Article versions of one item, committed as poll commits them, a minute apart.
class Newsroom {
 public:
  Newsroom() : recorded_("site-edits", {"news"}) {
    recorded_.record("news",
                     "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>News</title>"
                     "\n<item><guid>g-1</guid><title>One</title></item>\n</channel></rss>\n");
  }

  // kind: "added", "changed" or "uncertain". Returns the commit's id.
  std::string version(const std::string& kind, const std::string& headline, const std::string& text,
                      const std::string& url = "https://example.com/a/1") {
    auto archive = Archive::open(recorded_.dir());
    REQUIRE(archive);
    clock_ += 60'000;
    ++page_;
    CommitRequest request;
    const bool uncertain = kind == "uncertain";
    request.message =
        "news: article " + std::string(uncertain ? "archived, extraction uncertain" : kind) + ": " +
        headline + "\n\nSource: news\nChange-Class: " +
        std::string(uncertain ? "article-uncertain" : "article") + "\nArticle-URL: " + url +
        "\nItem-Id: g-1\n" + (uncertain ? "Extraction-Uncertain: HTTP 404\n" : "") +
        "Observed-At: " + format_iso8601_ms(clock_) + "\nStatus: " + (uncertain ? "404" : "200") +
        "\n";
    request.author_time = request.commit_time = clock_;
    request.files.push_back(
        {std::string(kDir) + "page.html", "<html>page " + std::to_string(page_) + "</html>"});
    if (!uncertain)
      request.files.push_back({std::string(kDir) + "article.txt",
                               format_article_file({headline, "Jane Doe", "2026-10-01", text})});
    auto made = archive->commit(request);
    REQUIRE(made);
    REQUIRE(made->has_value());
    return **made;
  }

  const std::string& dir() const { return recorded_.dir(); }
  Archive open() const { return recorded_.open(); }

 private:
  RecordedArchive recorded_;
  TimeMs clock_ = *parse_iso8601("2026-10-01T00:00:00Z");
  int page_ = 0;
};

std::string read_page(const std::string& path) {
  auto text = read_file(path);
  REQUIRE(text);
  return *text;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("the corrections page lists each article edit with its diff, newest first", "[site]") {
  Newsroom news;
  news.version("added", "Bridge vote delayed", body("three"));
  const std::string first_edit = news.version("changed", "Bridge vote delayed", body("four"));
  news.version("uncertain", "Bridge vote delayed", "");
  const std::string second_edit = news.version("changed", "Bridge vote put off", body("four"));
  auto archive = news.open();
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-out") + "/public";
  REQUIRE(build_site(archive, options));

  const std::string page = read_page(options.dir + "/sources/news/edits.html");
  // Two edits: the first capture and the uncertain version are archived, not edits.
  CHECK(count_of(page, "<article class=\"edit\">") == 2);
  CHECK(page.find("2 edits of the articles") != std::string::npos);
  CHECK(page.find("1 article first captured and 1 version whose extraction was uncertain") !=
        std::string::npos);
  // Newest first; each with its URL, time and diff.
  const auto newer = page.find(second_edit.substr(0, 7));
  const auto older = page.find(first_edit.substr(0, 7));
  REQUIRE(newer != std::string::npos);
  REQUIRE(older != std::string::npos);
  CHECK(newer < older);
  CHECK(page.find("<del>Bridge vote delayed</del> → <ins>Bridge vote put off</ins>") !=
        std::string::npos);
  CHECK(page.find("<del>three</del>") != std::string::npos);
  CHECK(page.find("<ins>four</ins>") != std::string::npos);
  CHECK(page.find("<a href=\"https://example.com/a/1\">") != std::string::npos);
  CHECK(page.find("2026-10-01 00:02") != std::string::npos);
  CHECK(page.find("edits.atom") != std::string::npos);

  const std::string feed = read_page(options.dir + "/sources/news/edits.atom");
  CHECK(count_of(feed, "<entry>") == 2);
  CHECK(feed.find("<id>urn:feeddiff:commit:" + second_edit + "</id>") <
        feed.find("<id>urn:feeddiff:commit:" + first_edit + "</id>"));
  CHECK(feed.find("&lt;del&gt;three&lt;/del&gt;") != std::string::npos);

  // The source page links both and announces the feed.
  const std::string source = read_page(options.dir + "/sources/news.html");
  CHECK(source.find("href=\"news/edits.html\"") != std::string::npos);
  CHECK(source.find("rel=\"alternate\" type=\"application/atom+xml\"") != std::string::npos);
  CHECK(source.find("href=\"news/edits.atom\"") != std::string::npos);
}

TEST_CASE("a source without article versions gets no corrections page and no link", "[site]") {
  Newsroom news;
  auto archive = news.open();
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-none") + "/public";
  REQUIRE(build_site(archive, options));
  CHECK_FALSE(fs::exists(options.dir + "/sources/news/edits.html"));
  CHECK_FALSE(fs::exists(options.dir + "/sources/news/edits.atom"));
  CHECK(read_page(options.dir + "/sources/news.html").find("edits.html") == std::string::npos);
}

TEST_CASE("a hostile headline and body stay text on the corrections page and in its feed",
          "[site]") {
  Newsroom news;
  const std::string hostile =
      "<script>alert(1)</script> ]]> \xe2\x80\xae"
      "evil";
  news.version("added", "Calm", body("three"));
  news.version("changed", hostile, body("<img src=x onerror=alert(2)>]]>"), "javascript:alert(3)");
  auto archive = news.open();
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-hostile") + "/public";
  REQUIRE(build_site(archive, options));

  const std::string page = read_page(options.dir + "/sources/news/edits.html");
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("\xe2\x80\xae") == std::string::npos);  // the bidi override made visible
  CHECK(page.find("\\u202e") != std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("href=\"javascript:") == std::string::npos);  // not a web address: text
  CHECK(page.find("javascript:alert(3)") != std::string::npos);

  const std::string feed = read_page(options.dir + "/sources/news/edits.atom");
  CHECK(feed.find("<script") == std::string::npos);
  CHECK(feed.find("<img") == std::string::npos);
  CHECK(feed.find("]]>") == std::string::npos);
  CHECK(feed.find("\xe2\x80\xae") == std::string::npos);
  CHECK(feed.find("href=\"javascript:") == std::string::npos);
  // The content is HTML escaped once more as XML text: the page's markup shows as text.
  CHECK(feed.find("&amp;lt;script&amp;gt;") != std::string::npos);
  auto parsed = run({"/usr/bin/python3", "-c",
                     "import sys, xml.etree.ElementTree as E; "
                     "t = E.parse(sys.argv[1]); "
                     "print(len(t.findall('{http://www.w3.org/2005/Atom}entry')))",
                     options.dir + "/sources/news/edits.atom"});
  CHECK(parsed.exit_code == 0);
  CHECK(parsed.out == "1\n");
}

TEST_CASE("a site run after new article versions reads those only and rewrites little", "[site]") {
  Newsroom news;
  news.version("added", "Bridge", body("three"));
  news.version("changed", "Bridge", body("four"));
  auto archive = news.open();
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-again") + "/public";
  REQUIRE(build_site(archive, options));

  auto nothing_new = build_site(news.open(), options);
  REQUIRE(nothing_new);
  CHECK(nothing_new->written == 0);

  const std::string third = news.version("changed", "Bridge", body("five"));
  auto again = build_site(news.open(), options);
  REQUIRE(again);
  // The front page, its feed and page 1 of the edits (the source page reads the same); no
  // change page (an article version is no feed change).
  CHECK(again->rendered == 0);
  CHECK(again->written == 3);
  const std::string page = read_page(options.dir + "/sources/news/edits.html");
  CHECK(count_of(page, "<article class=\"edit\">") == 2);
  CHECK(page.find(third.substr(0, 7)) < page.find("<del>three</del>"));
  const std::string state = read_page(options.dir + "/.feeddiff-site/edits/news/state");
  CHECK(state.find("tip\t" + third + "\n") != std::string::npos);
  CHECK(state.find("count\t2\n") != std::string::npos);
}

TEST_CASE("corrections come in pages of a fixed size, page 1 the oldest", "[site]") {
  Newsroom news;
  news.version("added", "Bridge", body("w0"));
  std::string last;
  for (int i = 1; i <= 51; ++i)
    last = news.version("changed", "Bridge", body("w" + std::to_string(i)));
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-pages") + "/public";
  REQUIRE(build_site(news.open(), options));
  const std::string top = options.dir + "/sources/news/";
  const std::string one = read_page(top + "edits/1.html");
  CHECK(count_of(one, "<article class=\"edit\">") == 50);
  CHECK(one.find("edits 1 to 50, newest first") != std::string::npos);
  CHECK(one.find("Older: page") == std::string::npos);
  const std::string two = read_page(top + "edits/2.html");
  CHECK(count_of(two, "<article class=\"edit\">") == 1);
  CHECK(two.find(last.substr(0, 7)) != std::string::npos);
  CHECK(two.find("href=\"1.html\"") != std::string::npos);
  const std::string front = read_page(top + "edits.html");
  CHECK(count_of(front, "<article class=\"edit\">") == 50);
  CHECK(front.find("href=\"edits/2.html\"") != std::string::npos);
  CHECK(front.find("<ins>w51</ins>") != std::string::npos);
  CHECK(front.find("<ins>w1</ins>") == std::string::npos);  // the oldest is on page 1 only
  CHECK(count_of(read_page(top + "edits.atom"), "<entry>") == 50);

  // A full page never changes: the next edit lands on page 2.
  const auto before = fs::last_write_time(top + "edits/1.html");
  news.version("changed", "Bridge", body("w52"));
  REQUIRE(build_site(news.open(), options));
  CHECK(fs::last_write_time(top + "edits/1.html") == before);
  CHECK(count_of(read_page(top + "edits/2.html"), "<article class=\"edit\">") == 2);
}

TEST_CASE("after a reset the corrections list only the edits still on the branch", "[site]") {
  Newsroom news;
  news.version("added", "Bridge", body("three"));
  const std::string kept = news.version("changed", "Bridge", body("four"));
  const std::string dropped = news.version("changed", "Bridge", body("five"));
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-reset") + "/public";
  REQUIRE(build_site(news.open(), options));
  CHECK(read_page(options.dir + "/sources/news/edits.html").find(dropped.substr(0, 7)) !=
        std::string::npos);

  auto reset = run({"git", "-C", news.dir(), "reset", "-q", "--hard", kept});
  REQUIRE(reset.exit_code == 0);
  REQUIRE(build_site(news.open(), options));
  const std::string page = read_page(options.dir + "/sources/news/edits.html");
  CHECK(page.find(dropped.substr(0, 7)) == std::string::npos);
  CHECK(page.find(kept.substr(0, 7)) != std::string::npos);
  CHECK(count_of(page, "<article class=\"edit\">") == 1);
}

TEST_CASE("the corrections feed has absolute links with a base URL, and a new base rewrites it",
          "[site]") {
  Newsroom news;
  news.version("added", "Bridge", body("three"));
  news.version("changed", "Bridge", body("four"));
  SiteOptions options;
  options.dir = make_temp_dir("site-edits-base") + "/public";
  REQUIRE(build_site(news.open(), options));
  const std::string feed_path = options.dir + "/sources/news/edits.atom";
  CHECK(read_page(feed_path).find("href=\"../../sources/news/edits.html\"") != std::string::npos);
  CHECK(read_page(feed_path).find("rel=\"self\"") == std::string::npos);

  options.base_url = "https://example.org/archive";
  REQUIRE(build_site(news.open(), options));
  const std::string feed = read_page(feed_path);
  CHECK(feed.find("<link rel=\"self\" type=\"application/atom+xml\" "
                  "href=\"https://example.org/archive/sources/news/edits.atom\"/>") !=
        std::string::npos);
  CHECK(feed.find("href=\"https://example.org/archive/sources/news/edits.html\"") !=
        std::string::npos);
}
