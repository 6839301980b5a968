// The complete-history set takes in the items of the publisher's own archive (a backfill
// commit, Change-Class: backfill): marked as such, dated by themselves, placed where the
// archive first saw them (after the versions observed before the walk), so that pages sealed
// before the backfill keep their bytes and a site built afresh seals the same pages. Read by
// Debian's feedparser through tests/site/history_feed_reader.py.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/message.h"
#include "feeddiff/site.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

struct BackfillTestItem {
  std::string id, title;
};

std::string backfill_test_rss(const std::vector<BackfillTestItem>& items) {
  std::string out = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n";
  for (const BackfillTestItem& i : items)
    out += "<item><guid isPermaLink=\"false\">" + i.id + "</guid><title>" + i.title +
           "</title><link>https://example.com/" + i.id + "</link></item>\n";
  return out + "</channel></rss>\n";
}

// id -> "entry\tTITLE", "backfilled\tTITLE" or "deleted\tWHEN", as the reader saw the set.
std::map<std::string, std::string> read_backfilled_set(const std::string& kind,
                                                       const std::string& path) {
  const RunResult r =
      run({"/usr/bin/python3", std::string(kSourceDir) + "/tests/site/history_feed_reader.py", kind,
           path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::string> out;
  for (const std::string& line : lines_of(r.out)) {
    if (line.starts_with("documents ")) continue;
    const std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    CHECK(out.emplace(line.substr(0, tab), line.substr(tab + 1)).second);
  }
  return out;
}

std::map<std::string, std::string> backfilled_archive_pages(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("archive-"))
      out[entry.path().filename().string()] = slurp(entry.path().string());
  return out;
}

// A backfill commit as `feeddiff backfill` makes one: the items file under backfill/NAME/,
// Change-Class: backfill, observed at the given time.
void commit_backfill(const std::string& dir, const std::vector<BackfillItem>& items,
                     const std::string& observed) {
  auto archive = Archive::open(dir);
  REQUIRE(archive);
  CommitRequest request;
  request.message =
      "blog: publisher's archive (1 page recorded)\n\nSource: blog\nChange-Class: backfill\n"
      "Observed-At: " +
      observed + "\n";
  request.author_time = request.commit_time = *parse_iso8601(observed);
  request.files.push_back({"backfill/blog/items", format_backfill_items(items)});
  REQUIRE(archive->commit(request));
}

BackfillItem archived(const std::string& date, const std::string& id, const std::string& title) {
  return {date, date, id, "0123456789abcdef0123", title, "https://example.com/" + id};
}

}  // namespace

TEST_CASE(
    "Items of the publisher's archive join the complete-history set once, marked, and "
    "sealed pages keep their bytes",
    "[site]") {
  RecordedArchive recorded("site-backfilled", {"blog"});
  // v1 (00:10): a and b seal page 1. v2 (00:20): c arrives, a ages out.
  REQUIRE_FALSE(
      recorded.record("blog", backfill_test_rss({{"b", "Beta"}, {"a", "Alpha"}})).empty());
  REQUIRE_FALSE(
      recorded.record("blog", backfill_test_rss({{"c", "Gamma"}, {"b", "Beta"}})).empty());
  SiteOptions options;
  options.dir = make_temp_dir("site-backfilled-out") + "/public";
  options.history_page = 2;
  REQUIRE(build_site(recorded.open(), options));
  const std::string history = options.dir + "/sources/blog/history";
  const auto before = backfilled_archive_pages(history);
  REQUIRE(before.size() == 2);  // page 1, Atom and JSON

  // The walk (00:25) finds x and y, which the feed no longer carries, a (observed already)
  // and z, which the feed shows only later (v3, 00:30). The items file lists the newest first.
  commit_backfill(recorded.dir(),
                  {archived("2024-12-01T00:00:00.000Z", "z", "Zeta, as archived"),
                   archived("2024-06-01T00:00:00.000Z", "y", "Upsilon"),
                   archived("2024-03-01T00:00:00.000Z", "a", "Alpha, as archived"),
                   archived("2024-01-01T00:00:00.000Z", "x", "Xi")},
                  "2025-01-01T00:25:00.000Z");
  REQUIRE_FALSE(
      recorded.record("blog", backfill_test_rss({{"z", "Zeta"}, {"c", "Gamma"}})).empty());
  auto second = build_site(recorded.open(), options);
  REQUIRE(second);
  // c with x, then y with z as archived: two pages sealed; z observed is in the current one.
  CHECK(second->sealed == 2);
  auto now = backfilled_archive_pages(history);
  for (const auto& [name, bytes] : before) CHECK(now[name] == bytes);

  const std::map<std::string, std::string> expected = {
      {"a", "entry\tAlpha"},  // observed before the walk: the archive's copy is not taken
      {"b", "entry\tBeta"},         {"c", "entry\tGamma"}, {"x", "backfilled\tXi"},
      {"y", "backfilled\tUpsilon"}, {"z", "entry\tZeta"}};  // observed after it: its observed
                                                            // version wins
  CHECK(read_backfilled_set("atom", history + "/current.atom") == expected);
  CHECK(read_backfilled_set("json", history + "/current.json") == expected);

  // Dated by themselves, with no change page to point to.
  const std::string page2 = slurp(history + "/archive-2.atom");
  CHECK(page2.find("<updated>2024-01-01T00:00:00.000Z</updated>") != std::string::npos);
  CHECK(page2.find("<category scheme=\"urn:feeddiff:origin\" term=\"publisher-archive\"") !=
        std::string::npos);
  const std::size_t xi = page2.find("<id>x</id>");
  REQUIRE(xi != std::string::npos);
  const std::string xi_entry = page2.substr(xi, page2.find("</entry>", xi) - xi);
  CHECK(xi_entry.find("rel=\"via\"") == std::string::npos);
  CHECK(xi_entry.find("publisher-archive") != std::string::npos);

  // A site built afresh, a commit a round, seals the same pages.
  SiteOptions fresh = options;
  fresh.dir = make_temp_dir("site-backfilled-fresh") + "/public";
  fresh.round = 1;
  auto rebuilt = build_site(recorded.open(), fresh);
  INFO((rebuilt ? std::string() : rebuilt.error().message));
  REQUIRE(rebuilt);
  CHECK(backfilled_archive_pages(fresh.dir + "/sources/blog/history") == now);
  CHECK(slurp(fresh.dir + "/sources/blog/history/current.atom") ==
        slurp(history + "/current.atom"));

  // A run with nothing new writes nothing.
  auto idle = build_site(recorded.open(), options);
  REQUIRE(idle);
  CHECK(idle->written == 0);
}
