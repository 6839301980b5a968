// The complete-history feed set of a source (RFC 5005 archived feeds with RFC 6721
// tombstones), built by build_site over a scripted history where items are added, edited,
// pulled while older items stay, aged out of the window and brought back, and read as a
// subscriber reads it: by Debian's feedparser (/usr/bin/python3, a child process) following
// prev-archive from the current document, and through the JSON Feed pages' next_url.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/site.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

struct TestItem {
  std::string id, title, date;
};

// An RSS feed of these items, newest first as feeds list them.
std::string rss(const std::vector<TestItem>& items) {
  std::string out = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n";
  for (const TestItem& i : items)
    out += "<item><guid isPermaLink=\"false\">" + i.id + "</guid><title>" + i.title +
           "</title><link>https://example.com/" + i.id + "</link><pubDate>" + i.date +
           "</pubDate><description>&lt;p&gt;About " + i.id + "&lt;/p&gt;</description></item>\n";
  return out + "</channel></rss>\n";
}

const TestItem kA{"a", "Alpha", "Mon, 01 Dec 2025 10:00:00 +0000"};
const TestItem kB{"b", "Beta", "Tue, 02 Dec 2025 10:00:00 +0000"};
const TestItem kB2{"b", "Beta, corrected", "Tue, 02 Dec 2025 10:00:00 +0000"};
const TestItem kC{"c", "Gamma", "Wed, 03 Dec 2025 10:00:00 +0000"};
const TestItem kD{"d", "Delta", "Thu, 04 Dec 2025 10:00:00 +0000"};
// Markup in feed text: the documents must stay well-formed, the text intact.
const TestItem kE{"e", "Tom &amp; Jerry &lt;script&gt;x&lt;/script&gt;!",
                  "Fri, 05 Dec 2025 10:00:00 +0000"};
const TestItem kF{"f", "Phi", "Sat, 06 Dec 2025 10:00:00 +0000"};

// What history_feed_reader.py saw: id -> "entry\tTITLE" or "deleted\tWHEN", and the count of
// documents it read.
struct SetRead {
  std::map<std::string, std::string> items;
  std::size_t documents = 0;
};

SetRead read_set(const std::string& kind, const std::string& path) {
  const RunResult r =
      run({"/usr/bin/python3", std::string(kSourceDir) + "/tests/site/history_feed_reader.py", kind,
           path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  SetRead out;
  for (const std::string& line : lines_of(r.out)) {
    if (line.starts_with("documents ")) {
      out.documents = std::stoul(line.substr(10));
      continue;
    }
    const std::size_t tab = line.find('\t');
    REQUIRE(tab != std::string::npos);
    // Each id once: the reader keeps one line per id.
    CHECK(out.items.emplace(line.substr(0, tab), line.substr(tab + 1)).second);
  }
  return out;
}

std::map<std::string, std::string> archive_pages(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename().string().starts_with("archive-"))
      out[entry.path().filename().string()] = slurp(entry.path().string());
  return out;
}

}  // namespace

TEST_CASE("The complete-history set of a source gives every item once in its newest version",
          "[site]") {
  RecordedArchive recorded("site-history", {"blog"});
  // v1: three items. v2: d arrives, a ages out of the window. v3: c is pulled while the
  // older b stays, e arrives.
  REQUIRE_FALSE(recorded.record("blog", rss({kC, kB, kA})).empty());
  REQUIRE_FALSE(recorded.record("blog", rss({kD, kC, kB})).empty());
  const std::string pulled_in = recorded.record("blog", rss({kE, kD, kB}));
  REQUIRE_FALSE(pulled_in.empty());
  auto archive = Archive::open(recorded.dir());
  REQUIRE(archive);
  SiteOptions options;
  options.dir = make_temp_dir("site-history-out") + "/public";
  options.history_page = 3;
  const std::string history = options.dir + "/sources/blog/history";

  auto first = build_site(*archive, options);
  REQUIRE(first);
  // a, b, c sealed the first page; d, the tombstone of c and e the second.
  CHECK(first->sealed == 2);
  SetRead atom = read_set("atom", history + "/current.atom");
  CHECK(atom.documents == 3);
  CHECK(atom.items == std::map<std::string, std::string>{
                          {"a", "entry\tAlpha"},  // aged out: still an entry
                          {"b", "entry\tBeta"},
                          {"c", "deleted\t2025-01-01T00:30:00.000Z"},  // pulled in v3
                          {"d", "entry\tDelta"},
                          {"e", "entry\tTom & Jerry <script>x</script>!"}});
  const SetRead json = read_set("json", history + "/current.json");
  CHECK(json.documents == 3);
  CHECK(json.items == atom.items);

  // The tombstone is in the Atom of changes too, for the pulled item only.
  const std::string changes_feed = slurp(options.dir + "/sources/blog/feed.atom");
  CHECK(changes_feed.find("<at:deleted-entry ref=\"c\" when=\"2025-01-01T00:30:00.000Z\">") !=
        std::string::npos);
  CHECK(changes_feed.find("ref=\"a\"") == std::string::npos);
  // The source page announces the set and links it.
  const std::string page = slurp(options.dir + "/sources/blog.html");
  CHECK(page.find("<link rel=\"alternate\" type=\"application/atom+xml\" title=\"blog: every "
                  "item feeddiff recorded\" href=\"blog/history/current.atom\">") !=
        std::string::npos);
  CHECK(page.find("href=\"blog/history/current.json\"") != std::string::npos);

  // A run with nothing new leaves the sealed pages as they are, byte for byte.
  const auto sealed = archive_pages(history);
  REQUIRE(sealed.size() == 4);  // two pages, Atom and JSON
  auto again = build_site(*archive, options);
  REQUIRE(again);
  CHECK(again->written == 0);
  CHECK(archive_pages(history) == sealed);

  // v4: b is edited after its page was sealed. v5: c comes back, f arrives.
  REQUIRE_FALSE(recorded.record("blog", rss({kE, kD, kB2})).empty());
  REQUIRE_FALSE(recorded.record("blog", rss({kF, kE, kD, kC, kB2})).empty());
  auto archive2 = Archive::open(recorded.dir());
  REQUIRE(archive2);
  auto third = build_site(*archive2, options);
  REQUIRE(third);
  CHECK(third->sealed == 1);  // b's new version, c back and f
  auto now = archive_pages(history);
  for (const auto& [name, bytes] : sealed) CHECK(now[name] == bytes);
  CHECK(now.size() == 6);
  atom = read_set("atom", history + "/current.atom");
  CHECK(atom.documents == 4);
  CHECK(atom.items == std::map<std::string, std::string>{
                          {"a", "entry\tAlpha"},
                          {"b", "entry\tBeta, corrected"},  // the newest version wins
                          {"c", "entry\tGamma"},            // back: an entry again
                          {"d", "entry\tDelta"},
                          {"e", "entry\tTom & Jerry <script>x</script>!"},
                          {"f", "entry\tPhi"}});
  CHECK(read_set("json", history + "/current.json").items == atom.items);

  // A site built afresh from the whole history, in rounds of one commit, seals the same
  // pages: they depend on the versions, not on how many each run brought.
  SiteOptions fresh = options;
  fresh.dir = make_temp_dir("site-history-fresh") + "/public";
  fresh.round = 1;
  REQUIRE(build_site(*archive2, fresh));
  CHECK(archive_pages(fresh.dir + "/sources/blog/history") == now);
  CHECK(slurp(fresh.dir + "/sources/blog/history/current.atom") ==
        slurp(history + "/current.atom"));
}

TEST_CASE("The complete-history documents carry the RFC 5005 links and the feed's dates",
          "[site]") {
  RecordedArchive recorded("site-history-links", {"blog"});
  REQUIRE_FALSE(recorded.record("blog", rss({kC, kB, kA})).empty());
  REQUIRE_FALSE(recorded.record("blog", rss({kD, kC, kB})).empty());
  auto archive = Archive::open(recorded.dir());
  REQUIRE(archive);
  SiteOptions options;
  options.dir = make_temp_dir("site-history-links-out") + "/public";
  options.history_page = 2;
  REQUIRE(build_site(*archive, options));
  const std::string dir = options.dir + "/sources/blog/history/";
  // a, b sealed page 1; c, d page 2; the current document is empty.
  const std::string current = slurp(dir + "current.atom");
  CHECK(current.find("<fh:archive/>") == std::string::npos);
  CHECK(current.find("<link rel=\"prev-archive\" type=\"application/atom+xml\" "
                     "href=\"archive-2.atom\"/>") != std::string::npos);
  CHECK(current.find("<entry>") == std::string::npos);
  const std::string second = slurp(dir + "archive-2.atom");
  CHECK(second.find("<fh:archive/>") != std::string::npos);
  CHECK(second.find("rel=\"prev-archive\" type=\"application/atom+xml\" href=\"archive-1.atom\"") !=
        std::string::npos);
  CHECK(second.find("rel=\"next-archive\" type=\"application/atom+xml\" href=\"archive-3.atom\"") !=
        std::string::npos);
  CHECK(second.find("rel=\"current\" type=\"application/atom+xml\" href=\"current.atom\"") !=
        std::string::npos);
  const std::string first = slurp(dir + "archive-1.atom");
  CHECK(first.find("rel=\"prev-archive\"") == std::string::npos);
  // The feed's RFC 822 date as RFC 3339; updated is when feeddiff recorded the version.
  CHECK(first.find("<published>2025-12-01T10:00:00.000Z</published>") != std::string::npos);
  CHECK(first.find("<updated>2025-01-01T00:10:00.000Z</updated>") != std::string::npos);
  CHECK(first.find("<link rel=\"alternate\" href=\"https://example.com/a\"/>") !=
        std::string::npos);
  CHECK(first.find("<summary type=\"html\">&lt;p&gt;About a&lt;/p&gt;</summary>") !=
        std::string::npos);
  // JSON Feed pages chain from the newest to the oldest.
  CHECK(slurp(dir + "current.json").find("\"next_url\": \"archive-2.json\"") != std::string::npos);
  CHECK(slurp(dir + "archive-2.json").find("\"next_url\": \"archive-1.json\"") !=
        std::string::npos);
  CHECK(slurp(dir + "archive-1.json").find("next_url") == std::string::npos);
}
