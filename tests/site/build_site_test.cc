// The site module called as a library, no feeddiff process: build_site over a small archive
// the test records writes the pages, the index lists the change, and a second run with
// nothing new writes nothing.

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "feeddiff/site.h"
#include "site/site_fork.h"
#include "store/ahead_dirs.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

// An archive with one source and two recorded versions of it; the id of the second.
std::string record_two_versions(RecordedArchive& archive) {
  std::string last;
  for (const std::string title : {"Alpha", "Beta"}) {
    last = archive.record("blog",
                          "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog"
                          "</title>\n<item><guid>" +
                              title + "</guid><title>" + title +
                              "</title></item>\n</channel></rss>\n");
    REQUIRE_FALSE(last.empty());
  }
  return last;
}

}  // namespace

TEST_CASE("build_site writes the pages of a small archive, then nothing when nothing is new",
          "[site]") {
  RecordedArchive recorded("site-library", {"blog"});
  const std::string head = record_two_versions(recorded);
  auto archive = Archive::open(recorded.dir());
  REQUIRE(archive);
  SiteOptions options;
  options.dir = make_temp_dir("site-library-out") + "/public";

  auto first = build_site(*archive, options);
  REQUIRE(first);
  CHECK(first->changes == 2);
  CHECK(first->sources == 1);
  CHECK(first->rendered == 2);
  CHECK(first->full_build);
  CHECK(first->written > 0);
  CHECK(first->unchanged == 0);
  CHECK(first->removed == 0);
  CHECK(first->refused == 0);
  CHECK(first->index == options.dir + "/index.html");
  CHECK(fs::is_regular_file(options.dir + "/index.html"));
  CHECK(fs::is_regular_file(options.dir + "/feed.atom"));
  CHECK(fs::is_regular_file(options.dir + "/sources/blog.html"));
  CHECK(fs::is_regular_file(options.dir + "/changes/" + head + ".html"));
  CHECK(fs::is_regular_file(options.dir + "/raw/" + head + "/response.xml.txt"));
  const auto index = read_file(options.dir + "/index.html");
  REQUIRE(index);
  CHECK(index->find("changes/" + head + ".html") != std::string::npos);
  CHECK(index->find("sources/blog.html") != std::string::npos);

  auto second = build_site(*archive, options);
  REQUIRE(second);
  CHECK(second->changes == 2);
  CHECK_FALSE(second->full_build);
  CHECK(second->rendered == 0);
  CHECK(second->written == 0);
}

TEST_CASE("a first build keeps feed entries only for changes its sources' feeds can show",
          "[site]") {
  RecordedArchive recorded("site-entries", {"blog"});
  std::vector<std::string> ids;
  const std::size_t count = kSourceFeedEntries + 3;
  for (std::size_t n = 0; n < count; ++n) {
    ids.push_back(recorded.record("blog",
                                  "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>"
                                  "Blog</title>\n<item><guid>g</guid><title>Version " +
                                      std::to_string(n) + "</title></item>\n</channel></rss>\n"));
    REQUIRE_FALSE(ids.back().empty());
  }
  SiteOptions options;
  options.dir = make_temp_dir("site-entries-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const fs::path entries = fs::path(options.dir) / ".feeddiff-site" / "entries";
  // Fifty later changes of its source push the oldest three out of the feed for good.
  for (std::size_t n = 0; n < count; ++n)
    CHECK(fs::exists(entries / (ids[n] + ".html")) == (n >= 3));
  const std::string feed = *read_file(options.dir + "/sources/blog/feed.atom");
  CHECK(feed.find(ids[3]) != std::string::npos);
  CHECK(feed.find(ids[2]) == std::string::npos);

  // A reset brings them back into the feed: their entries are made from the archive.
  REQUIRE(run({"git", "-C", recorded.dir(), "reset", "-q", "--hard", ids[count - 6]}).exit_code ==
          0);
  REQUIRE(build_site(recorded.open(), options));
  const std::string after = *read_file(options.dir + "/sources/blog/feed.atom");
  CHECK(after.find(ids[0]) != std::string::npos);
  CHECK(fs::exists(entries / (ids[0] + ".html")));
  SiteOptions fresh = options;
  fresh.dir = make_temp_dir("site-entries-fresh") + "/public";
  REQUIRE(build_site(recorded.open(), fresh));
  CHECK(*read_file(fresh.dir + "/sources/blog/feed.atom") == after);
}

TEST_CASE(
    "a site whose source pages a forked child wrote, or wrote and died before answering, or "
    "whose source directories were read back from their file, is byte for byte the site one "
    "process wrote",
    "[site]") {
  RecordedArchive recorded("site-fork", {"alpha", "beta", "gamma", "delta"});
  for (int n = 0; n < 3; ++n)
    for (const std::string source : {"alpha", "beta", "gamma", "delta"})
      REQUIRE_FALSE(
          recorded
              .record(source, "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>" +
                                  source + "</title>\n<item><guid>g" + std::to_string(n) +
                                  "</guid><title>Item " + std::to_string(n) +
                                  "</title></item>\n</channel></rss>\n")
              .empty());
  const auto files_of = [](const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().filename() != ".feeddiff-site.lock")
        out[fs::relative(entry.path(), dir).string()] = *read_file(entry.path().string());
    return out;
  };
  const std::size_t kept = site::fork_min_sources;
  const std::size_t answers = site::fork_answers;
  SiteOptions split;
  split.dir = make_temp_dir("site-fork-split") + "/public";
  site::fork_min_sources = 2;
  auto forked = build_site(recorded.open(), split);
  SiteOptions alone = split;
  alone.dir = make_temp_dir("site-fork-alone") + "/public";
  site::fork_min_sources = std::size_t(-1);
  auto single = build_site(recorded.open(), alone);
  site::fork_min_sources = kept;
  REQUIRE(forked);
  REQUIRE(single);
  // One child answered for two of the four sources, and its counts joined the run's.
  CHECK(site::fork_answers == answers + 1);
  CHECK(forked->written == single->written);
  CHECK(forked->mementos == single->mementos);
  const auto pages = files_of(alone.dir);
  CHECK(pages.count("sources/gamma/feed.atom") == 1);
  CHECK(files_of(split.dir) == pages);

  // A child that wrote its pages and died before answering: the parent writes its sources
  // again, and the site is the same.
  SiteOptions failed = split;
  failed.dir = make_temp_dir("site-fork-failed") + "/public";
  site::fork_min_sources = 2;
  site::fork_child_fails = true;
  auto redone = build_site(recorded.open(), failed);
  site::fork_child_fails = false;
  site::fork_min_sources = kept;
  REQUIRE(redone);
  CHECK(site::fork_answers == answers + 1);
  CHECK(files_of(failed.dir) == pages);

  // The directories read ahead kept two at a time in memory, the rest read back from their
  // file (store/ahead_dirs.h), by the parent and by the child, through its own descriptor.
  SiteOptions spilled = split;
  spilled.dir = make_temp_dir("site-fork-spilled") + "/public";
  spilled.round = 3;  // each round's directories read ahead apart
  const std::size_t in_memory = AheadDirs::kInMemory;
  const std::size_t reads_back = AheadDirs::reads_back;
  AheadDirs::kInMemory = 2;
  site::fork_min_sources = 2;
  auto from_file = build_site(recorded.open(), spilled);
  AheadDirs::kInMemory = in_memory;
  site::fork_min_sources = kept;
  REQUIRE(from_file);
  CHECK(AheadDirs::reads_back > reads_back);
  CHECK(site::fork_answers == answers + 2);
  CHECK(files_of(spilled.dir) == pages);
}

TEST_CASE("a change page the writer thread cannot write fails the run, and the next run writes it",
          "[site]") {
  RecordedArchive recorded("site-writer-error", {"blog"});
  record_two_versions(recorded);
  SiteOptions options;
  options.dir = make_temp_dir("site-writer-error-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const std::string next = recorded.record(
      "blog",
      "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n<item>"
      "<guid>Gamma</guid><title>Gamma</title></item>\n</channel></rss>\n");
  REQUIRE_FALSE(next.empty());
  // A directory where the new change's page goes: no write can make that file (root's
  // permissions notwithstanding).
  const std::string page = options.dir + "/changes/" + next + ".html";
  fs::create_directories(page + "/in-the-way");

  auto failed = build_site(recorded.open(), options);
  REQUIRE_FALSE(failed);
  CHECK(failed.error().message.find(next + ".html") != std::string::npos);

  fs::remove_all(page);
  auto again = build_site(recorded.open(), options);
  REQUIRE(again);
  CHECK(fs::is_regular_file(page));
  const auto index = read_file(options.dir + "/index.html");
  REQUIRE(index);
  CHECK(index->find("changes/" + next + ".html") != std::string::npos);
}
