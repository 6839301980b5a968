// The site module called as a library, no feeddiff process: build_site over a small archive
// the test records writes the pages, the index lists the change, and a second run with
// nothing new writes nothing.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/site.h"
#include "support/process.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

// An archive with one source and two recorded versions of it; the id of the second.
std::string record_two_versions(const std::string& dir) {
  TimeMs clock = *parse_iso8601("2025-01-01T00:00:00Z");
  auto archive = Archive::init(dir, clock);
  REQUIRE(archive);
  Config config;
  SourceConfig source;
  source.name = "blog";
  source.url = "https://example.com/blog.xml";
  config.sources.push_back(source);
  CommitRequest setup;
  setup.message = "feeddiff: sources added\n";
  setup.author_time = setup.commit_time = clock;
  setup.files.push_back({"feeddiff.toml", format_config(config)});
  REQUIRE(archive->commit(setup));
  std::string last;
  for (const std::string title : {"Alpha", "Beta"}) {
    clock += 600'000;
    const std::string body =
        "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog"
        "</title>\n<item><guid>" +
        title + "</guid><title>" + title + "</title></item>\n</channel></rss>\n";
    CommitRequest request;
    request.message =
        "blog: changed (" + std::to_string(body.size()) +
        " bytes, HTTP 200)\n\nSource: blog\nObserved-At: " + format_iso8601_ms(clock) +
        "\nStatus: 200\n";
    request.author_time = request.commit_time = clock;
    request.files.push_back({"raw/blog/response.xml", body});
    auto made = archive->commit(request);
    REQUIRE(made);
    REQUIRE(made->has_value());
    last = **made;
  }
  return last;
}

}  // namespace

TEST_CASE("build_site writes the pages of a small archive, then nothing when nothing is new",
          "[site]") {
  const std::string root = make_temp_dir("site-library");
  const std::string head = record_two_versions(root + "/archive");
  auto archive = Archive::open(root + "/archive");
  REQUIRE(archive);
  SiteOptions options;
  options.dir = root + "/public";

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
