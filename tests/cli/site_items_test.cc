// `feeddiff site` writes a page and an Atom feed per edited item (items/SOURCE/KEY.html and
// .atom, KEY a hash of the item's id): the page shows each edit's before and after and links
// to the change pages; the feed has one entry per edit; an item never edited gets neither;
// hostile text stays escaped; a run that does not touch a source leaves its item pages alone,
// and one that does rewrites only the pages of the items it touched.

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli/hostile_change.h"
#include "cli/render_helpers.h"
#include "cli/site_helpers.h"
#include "feeddiff/core.h"
#include "feeddiff/normalize.h"

using namespace feeddiff;
using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

// An archive committed to directly, one commit per recorded version, a minute apart.
class ItemsArchive {
 public:
  ItemsArchive() : dir_(make_temp_dir("site-items") + "/archive") {
    REQUIRE(Archive::init(dir_, clock_));
  }
  void record(const std::string& source, const std::string& body) {
    auto archive = Archive::open(dir_);
    REQUIRE(archive);
    clock_ += 60'000;
    const std::string at = format_iso8601_ms(clock_);
    CommitRequest request;
    request.message = source + ": changed (" + std::to_string(body.size()) +
                      " bytes, HTTP 200)\n\nSource: " + source + "\nObserved-At: " + at +
                      "\nStatus: 200\n";
    request.author_time = request.commit_time = clock_;
    request.files.push_back({"raw/" + source + "/response.xml", body});
    auto made = archive->commit(request);
    REQUIRE(made);
    REQUIRE(*made);
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  TimeMs clock_ = *parse_iso8601("2026-03-01T00:00:00Z");
};

std::string key_of(const std::string& item_id) {
  return sha1_hex(item_id).substr(0, 16);
}

std::size_t files_in(const std::string& dir) {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) ++n;
  return n;
}

}  // namespace

TEST_CASE("an item edited twice gets a page and a feed with both edits, an unchanged one none",
          "[cli][site]") {
  ItemsArchive archive;
  archive.record("alpha", rss({{"a1", "First title"}, {"a2", "Never changes"}}));
  archive.record("alpha", rss({{"a1", "Second title"}, {"a2", "Never changes"}}));
  archive.record("beta", rss({{"b1", "Beta"}}));
  archive.record("alpha", rss({{"a1", "Third title"}, {"a2", "Never changes"}}));
  const std::string site = make_temp_dir("site-items-out") + "/public";
  site_of(archive.dir(), site);

  const std::string dir = site + "/items/alpha/";
  const std::string page_path = dir + key_of("a1") + ".html";
  const std::string feed_path = dir + key_of("a1") + ".atom";
  REQUIRE(fs::exists(page_path));
  REQUIRE(fs::exists(feed_path));
  CHECK_FALSE(fs::exists(dir + key_of("a2") + ".html"));
  CHECK_FALSE(fs::exists(dir + key_of("a2") + ".atom"));
  CHECK(files_in(dir) == 2);
  CHECK_FALSE(fs::exists(site + "/items/beta"));

  // The page: both edits' before and after, each version linking to an existing change page.
  const std::string page = slurp(page_path);
  CHECK(page.find("<del>First title</del>") != std::string::npos);
  CHECK(page.find("<ins>Second title</ins>") != std::string::npos);
  CHECK(page.find("<del>Second title</del>") != std::string::npos);
  CHECK(page.find("<ins>Third title</ins>") != std::string::npos);
  const std::vector<std::string> alpha = commits_of(archive.dir(), "alpha");
  REQUIRE(alpha.size() == 3);
  for (const std::string& id : alpha) {
    const std::string href = "../../changes/" + id + ".html";
    INFO(href);
    CHECK(page.find("href=\"" + href + "\"") != std::string::npos);
    CHECK(fs::exists(dir + href));
  }
  CHECK(page.find("href=\"" + key_of("a1") + ".atom\"") != std::string::npos);

  // The feed: one entry per edit, newest first, unique ids naming the item and the commit.
  const Feed feed = parse_feed(feed_path);
  REQUIRE(feed.items.size() == 2);
  CHECK(feed.items[0].id == "urn:feeddiff:item:" + key_of("a1") + ":" + alpha[0]);
  CHECK(feed.items[1].id == "urn:feeddiff:item:" + key_of("a1") + ":" + alpha[1]);
  CHECK(feed.items[0].content.find("<del>Second title</del>") != std::string::npos);
  CHECK(feed.items[0].content.find("<ins>Third title</ins>") != std::string::npos);
  CHECK(feed.items[1].content.find("<ins>Second title</ins>") != std::string::npos);
  for (const Item& it : feed.items) {
    INFO(it.link);
    CHECK(fs::exists(dir + it.link));
  }

  // The source's page lists the edited item, not the other.
  const std::string source_page = slurp(site + "/sources/alpha.html");
  CHECK(source_page.find("href=\"../items/alpha/" + key_of("a1") + ".html\">Third title</a>") !=
        std::string::npos);
  CHECK(source_page.find(key_of("a2")) == std::string::npos);

  // The change pages that edited a1 link to its page; the first, which added it, does not.
  const std::string item_href = "../items/alpha/" + key_of("a1") + ".html";
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    const std::string change_page = slurp(site + "/changes/" + alpha[i] + ".html");
    INFO(alpha[i]);
    CHECK((change_page.find("href=\"" + item_href + "\">history</a>") != std::string::npos) ==
          (i + 1 < alpha.size()));
    CHECK(fs::exists(site + "/changes/" + item_href));
    CHECK(change_page.find(key_of("a2")) == std::string::npos);
  }
}

TEST_CASE("a site run that does not touch a source leaves its item pages alone", "[cli][site]") {
  ItemsArchive archive;
  archive.record("alpha", rss({{"a1", "One"}}));
  archive.record("alpha", rss({{"a1", "One, edited"}}));
  archive.record("beta", rss({{"b1", "One"}}));
  const std::string site = make_temp_dir("site-items-incremental") + "/public";
  site_of(archive.dir(), site);
  const std::string page = site + "/items/alpha/" + key_of("a1") + ".html";
  const std::string feed = site + "/items/alpha/" + key_of("a1") + ".atom";
  REQUIRE(fs::exists(page));
  // Were they written again, these would be gone.
  spit(page, "not rewritten");
  spit(feed, "not rewritten");

  archive.record("beta", rss({{"b1", "One, edited"}}));
  site_of(archive.dir(), site);
  CHECK(slurp(page) == "not rewritten");
  CHECK(slurp(feed) == "not rewritten");
  CHECK(parse_feed(site + "/items/beta/" + key_of("b1") + ".atom").items.size() == 1);

  // A change to alpha reads its history again and writes its item's pages.
  archive.record("alpha", rss({{"a1", "One, edited twice"}}));
  site_of(archive.dir(), site);
  CHECK(parse_feed(feed).items.size() == 2);
  CHECK(slurp(page).find("<ins>One, edited twice</ins>") != std::string::npos);
}

TEST_CASE(
    "a change to a source rewrites the pages of the items it touched, and a new base URL all "
    "of them",
    "[cli][site]") {
  ItemsArchive archive;
  archive.record("alpha", rss({{"a1", "One"}, {"a2", "Two"}}));
  archive.record("alpha", rss({{"a1", "One, edited"}, {"a2", "Two, edited"}}));
  const std::string site = make_temp_dir("site-items-touched") + "/public";
  site_of(archive.dir(), site);
  const std::string dir = site + "/items/alpha/";
  for (const char* id : {"a1", "a2"}) {
    REQUIRE(fs::exists(dir + key_of(id) + ".html"));
    spit(dir + key_of(id) + ".html", "not rewritten");
    spit(dir + key_of(id) + ".atom", "not rewritten");
  }

  // Only a2 changes: a1's page and feed stay; a2's get the edit; the list names both.
  archive.record("alpha", rss({{"a1", "One, edited"}, {"a2", "Two, edited twice"}}));
  site_of(archive.dir(), site);
  CHECK(slurp(dir + key_of("a1") + ".html") == "not rewritten");
  CHECK(slurp(dir + key_of("a1") + ".atom") == "not rewritten");
  CHECK(slurp(dir + key_of("a2") + ".html").find("<ins>Two, edited twice</ins>") !=
        std::string::npos);
  CHECK(parse_feed(dir + key_of("a2") + ".atom").items.size() == 2);
  const std::string source_page = slurp(site + "/sources/alpha.html");
  CHECK(source_page.find(key_of("a1")) != std::string::npos);
  CHECK(source_page.find(key_of("a2")) != std::string::npos);

  // A page that went missing is written again though its item did not change.
  fs::remove(dir + key_of("a1") + ".atom");
  archive.record("alpha", rss({{"a1", "One, edited"}, {"a2", "Two, edited thrice"}}));
  site_of(archive.dir(), site);
  CHECK(parse_feed(dir + key_of("a1") + ".atom").items.size() == 1);

  // The feeds' links change with the base URL: every item's page and feed is written.
  spit(dir + key_of("a1") + ".html", "not rewritten");
  auto r = run_feeddiff({"-C", archive.dir(), "site", site, "--base-url", "https://x.example/"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(dir + key_of("a1") + ".html") != "not rewritten");
  CHECK(slurp(dir + key_of("a1") + ".atom").find("https://x.example/") != std::string::npos);
}

TEST_CASE("hostile text in an edited item stays escaped on its page and in its feed",
          "[cli][site]") {
  const std::string dir = both_sides_hostile_archive("site-items-hostile");
  const std::string site = make_temp_dir("site-items-hostile-out") + "/public";
  site_of(dir, site);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(site + "/items/both")) files.push_back(e.path());
  REQUIRE(files.size() == 2);
  for (const fs::path& path : files) {
    const std::string bytes = slurp(path.string());
    INFO(path.string());
    CHECK(bytes.find("<script") == std::string::npos);
    CHECK(bytes.find("<img") == std::string::npos);
    CHECK(bytes.find(kHostileRlo) == std::string::npos);
    CHECK(bytes.find(kHostileLri) == std::string::npos);
    CHECK(bytes.find('\x1b') == std::string::npos);
    CHECK(bytes.find("\\u202efdp.exe") != std::string::npos);
    if (path.extension() == ".atom") {
      const Feed feed = parse_feed(path.string());
      REQUIRE(feed.items.size() == 1);
      const std::string& html = feed.items[0].content;
      INFO(html);
      CHECK(html.find("<script") == std::string::npos);
      CHECK(html.find("&lt;script&gt;document.documentElement") != std::string::npos);
    }
  }
  const std::string source_page = slurp(site + "/sources/both.html");
  CHECK(source_page.find("<script") == std::string::npos);
  CHECK(source_page.find(kHostileRlo) == std::string::npos);
}

TEST_CASE("the versions cache grows by the versions a run learnt and is never rewritten whole",
          "[cli][site]") {
  ItemsArchive archive;
  archive.record("alpha", rss({{"a1", "One"}}));
  archive.record("alpha", rss({{"a1", "One"}, {"a2", "Two"}}));
  archive.record("alpha", rss({{"a2", "Two"}, {"a3", "Three"}}));
  const std::string site = make_temp_dir("site-items-versions") + "/public";
  site_of(archive.dir(), site);
  // .git/feeddiff/cache/versions/<the name in hex>
  const std::string cache = archive.dir() + "/.git/feeddiff/cache/versions/616c706861";
  const std::string before = slurp(cache);
  struct stat was {};
  REQUIRE(::stat(cache.c_str(), &was) == 0);

  // A feed that rotates its ids: the run after one more version costs that version.
  archive.record("alpha", rss({{"a3", "Three"}, {"a4", "Four"}}));
  site_of(archive.dir(), site);
  const std::string after = slurp(cache);
  struct stat is {};
  REQUIRE(::stat(cache.c_str(), &is) == 0);
  CHECK(is.st_ino == was.st_ino);  // appended to, not replaced
  CHECK(after.starts_with(before));
  REQUIRE(after.size() > before.size());
  // One more version line, whose keys are 128 bits (32 hex digits).
  const std::string added = after.substr(before.size());
  CHECK(std::count(added.begin(), added.end(), '\n') == 1);
  CHECK(before.starts_with("feeddiff versions 3\n"));
  std::istringstream lines(after);
  std::size_t keys = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("v\t")) continue;
    std::istringstream fields(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(fields, cell, '\t');) cells.push_back(cell);
    for (std::size_t i = 3; i < cells.size(); ++i, ++keys) {
      INFO(line);
      CHECK(cells[i].size() == 32);
    }
  }
  CHECK(keys >= 3);
}
