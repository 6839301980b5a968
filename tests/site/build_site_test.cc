// The site module called as a library, no feeddiff process: build_site over a small archive
// the test records writes the pages, the index lists the change, and a second run with
// nothing new writes nothing.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "feeddiff/core.h"
#include "feeddiff/site.h"
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
