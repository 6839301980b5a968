// `feeddiff site` writes an Atom feed per source (sources/NAME/feed.atom): one entry per
// change of that source, newest first, at most kSourceFeedEntries, each holding the item
// changes with their before and after; hostile feed text stays escaped in it; a run after
// one more change rewrites only the feed of the source it touched.

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <sstream>

#include "cli/hostile_change.h"
#include "cli/render_helpers.h"
#include "cli/site_helpers.h"
#include "feeddiff/normalize.h"
#include "feeddiff/render.h"

using namespace feeddiff;
using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

// An archive committed to directly, one commit per recorded version, a minute apart.
class FeedArchive {
 public:
  FeedArchive() : dir_(make_temp_dir("site-feed") + "/archive") {
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

// The commit each entry names by its id (urn:feeddiff:commit:ID).
std::vector<std::string> ids_of(const Feed& feed) {
  constexpr std::string_view kPrefix = "urn:feeddiff:commit:";
  std::vector<std::string> out;
  for (const Item& it : feed.items) {
    CHECK(it.id.starts_with(kPrefix));
    out.push_back(it.id.substr(std::min(it.id.size(), kPrefix.size())));
  }
  return out;
}

}  // namespace

TEST_CASE("each source's Atom feed lists its changes newest first with their before and after",
          "[cli][site]") {
  FeedArchive archive;
  archive.record("alpha", rss({{"a1", "Old title"}, {"a2", "Second"}}));
  archive.record("beta", rss({{"b1", "Beta one"}}));
  archive.record("alpha", rss({{"a1", "New title"}, {"a2", "Second"}}));
  archive.record("beta", rss({{"b1", "Beta one"}, {"b2", "Beta two"}}));
  archive.record("alpha", rss({{"a1", "New title"}, {"a2", "Second"}, {"a3", "Third"}}));
  const std::string site = make_temp_dir("site-feed-out") + "/public";
  site_of(archive.dir(), site);

  const Feed alpha = parse_feed(site + "/sources/alpha/feed.atom");
  const std::vector<std::string> alpha_commits = commits_of(archive.dir(), "alpha");
  REQUIRE(alpha_commits.size() == 3);
  CHECK(ids_of(alpha) == alpha_commits);
  CHECK(std::set<std::string>(alpha_commits.begin(), alpha_commits.end()).size() == 3);
  const Feed beta = parse_feed(site + "/sources/beta/feed.atom");
  CHECK(ids_of(beta) == commits_of(archive.dir(), "beta"));

  // The title edit is the middle entry: its content names the item, before and after.
  REQUIRE(alpha.items.size() == 3);
  const Item& edit = alpha.items[1];
  INFO(edit.content);
  CHECK(edit.title.starts_with("alpha: changed"));
  CHECK(edit.content.find("<del>Old title</del> → <ins>New title</ins>") != std::string::npos);
  CHECK(alpha.items[0].content.find("Third") != std::string::npos);
  // Each entry links to its change page, relative to the feed's directory.
  for (const Item& it : alpha.items) {
    INFO(it.link);
    CHECK(it.link.starts_with("../../changes/"));
    CHECK(fs::exists(site + "/sources/alpha/" + it.link));
  }
  // The feed's own id names the source; the channel links to the source's page.
  const std::string text = slurp(site + "/sources/alpha/feed.atom");
  CHECK(text.find(":source:alpha</id>") != std::string::npos);
  CHECK(text.find("href=\"../../sources/alpha.html\"") != std::string::npos);

  // The source's page announces its feed and links to it.
  const std::string page = slurp(site + "/sources/alpha.html");
  CHECK(page.find("<link rel=\"alternate\" type=\"application/atom+xml\" title=\"alpha · "
                  "feeddiff archive\" href=\"alpha/feed.atom\">") != std::string::npos);
  CHECK(page.find("<a href=\"alpha/feed.atom\">") != std::string::npos);

  // A base URL makes every link absolute, in every source's feed (not only the touched).
  site_of(archive.dir(), site, {"--base-url", "https://example.org/feeds"});
  for (const char* source : {"alpha", "beta"}) {
    const std::string feed = slurp(site + "/sources/" + source + "/feed.atom");
    CHECK(feed.find("href=\"https://example.org/feeds/changes/") != std::string::npos);
    CHECK(feed.find("href=\"../../") == std::string::npos);
    CHECK(feed.find("<link rel=\"self\" type=\"application/atom+xml\" "
                    "href=\"https://example.org/feeds/sources/" +
                    std::string(source) + "/feed.atom\"/>") != std::string::npos);
  }
}

TEST_CASE("a site run after one more change rewrites only the feed of the source it touched",
          "[cli][site]") {
  FeedArchive archive;
  archive.record("alpha", rss({{"a1", "One"}}));
  archive.record("beta", rss({{"b1", "One"}}));
  const std::string site = make_temp_dir("site-feed-incremental") + "/public";
  site_of(archive.dir(), site);
  const std::string beta_feed = site + "/sources/beta/feed.atom";
  REQUIRE(parse_feed(beta_feed).items.size() == 1);
  // Were beta's feed written again, this would be gone.
  spit(beta_feed, "not rewritten");

  archive.record("alpha", rss({{"a1", "One, edited"}}));
  site_of(archive.dir(), site);
  CHECK(slurp(beta_feed) == "not rewritten");
  const Feed alpha = parse_feed(site + "/sources/alpha/feed.atom");
  REQUIRE(alpha.items.size() == 2);
  CHECK(alpha.items[0].id ==
        "urn:feeddiff:commit:" +
            run({"git", "-C", archive.dir(), "rev-parse", "HEAD"}).out.substr(0, 40));
  CHECK(alpha.items[0].content.find("<del>One</del> → <ins>One, edited</ins>") !=
        std::string::npos);

  // A feed that is missing is written again.
  fs::remove(beta_feed);
  site_of(archive.dir(), site);
  CHECK(parse_feed(beta_feed).items.size() == 1);
}

TEST_CASE("a source's feed holds its newest changes only", "[cli][site]") {
  FeedArchive archive;
  const std::size_t changes = kSourceFeedEntries + 3;
  for (std::size_t i = 0; i < changes; ++i)
    archive.record("alpha", rss({{"a1", "Version " + std::to_string(i)}}));
  const std::string site = make_temp_dir("site-feed-bounded") + "/public";
  site_of(archive.dir(), site);
  const Feed alpha = parse_feed(site + "/sources/alpha/feed.atom");
  std::vector<std::string> newest = commits_of(archive.dir(), "alpha");
  REQUIRE(newest.size() == changes);
  newest.resize(kSourceFeedEntries);
  CHECK(ids_of(alpha) == newest);
}

TEST_CASE("hostile text in a change's before and after stays escaped in its source's feed",
          "[cli][site]") {
  const std::string dir = both_sides_hostile_archive("site-feed-hostile");
  const std::string site = make_temp_dir("site-feed-hostile-out") + "/public";
  site_of(dir, site);
  const std::string path = site + "/sources/both/feed.atom";
  const std::string bytes = slurp(path);
  // No control character (XML forbids them, a reader would pass them on) nor bidi control.
  for (char c : bytes) {
    INFO(static_cast<int>(static_cast<unsigned char>(c)));
    CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
  }
  CHECK(bytes.find(kHostileRlo) == std::string::npos);
  CHECK(bytes.find(kHostileLri) == std::string::npos);
  CHECK(bytes.find("<script") == std::string::npos);

  // The HTML a reader gets (the content, XML-unescaped once) holds the feed's markup as text.
  const Feed feed = parse_feed(path);
  REQUIRE(feed.items.size() == 2);
  const std::string& html = feed.items[0].content;
  INFO(html);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  for (const char* side_name : {"before", "after"}) {
    const std::string side = side_name;
    CHECK(
        html.find("&lt;script&gt;document.documentElement.setAttribute(&#39;data-pwned&#39;,&#39;" +
                  side + "-title&#39;)&lt;/script&gt;") != std::string::npos);
    CHECK(html.find("\\x1b[2J\\x1b]0;" + side + "\\x07 \\u202efdp.exe \\u2066" + side) !=
          std::string::npos);
  }
  CHECK(html.find("<del>") != std::string::npos);
  CHECK(html.find("<ins>") != std::string::npos);
}
