// clone_archive called as a library: an archive made with the store, pushed to a bare
// repository made with git, cloned with its poll state rebuilt. The end-to-end cases (a git
// daemon, the first poll of the clone) are in tests/cli/clone_test.cc.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/poll.h"
#include "feeddiff/store.h"
#include "feeddiff/sync.h"
#include "support/process.h"

using namespace feeddiff;

namespace {

constexpr TimeMs kStart = 1'790'834'044'027;

std::string git_in(const std::string& dir, std::vector<std::string> args) {
  auto r = run_git(args, dir);
  REQUIRE(r);
  INFO(r->errors);
  REQUIRE(*r);
  return r->output;
}

// A bare repository whose main holds an archive of two sources, one recorded with an ETag.
std::string published_archive(const std::string& hint) {
  const std::string base = test::make_temp_dir(hint);
  const std::string bare = base + "/feeds.git";
  git_in(base, {"init", "--quiet", "--bare", "-b", "main", bare});
  auto archive = Archive::init(base + "/origin", kStart);
  REQUIRE(archive);
  CommitRequest sources;
  sources.message = "feeddiff: sources added\n";
  sources.author_time = sources.commit_time = kStart + 1000;
  sources.files.push_back({"feeddiff.toml",
                           "[sources.blog]\nurl = \"https://example.com/blog.xml\"\n\n"
                           "[sources.news]\nurl = \"https://example.com/news.xml\"\n"});
  REQUIRE(archive->commit(sources));
  CommitRequest version;
  version.message =
      "blog: added (20 bytes, HTTP 200)\n\nSource: blog\nObserved-At: 2026-10-01T05:54:04Z\n"
      "Status: 200\nResponse-Header: ETag: \"abc-1\"\n";
  version.author_time = version.commit_time = kStart + 2000;
  version.files.push_back({"raw/blog/response.xml", "<rss version=\"2.0\"/>\n"});
  REQUIRE(archive->commit(version));
  git_in(archive->work_dir(), {"push", "--quiet", bare, "HEAD:refs/heads/main"});
  return bare;
}

}  // namespace

TEST_CASE("clone_archive checks out the archive and rebuilds its poll state", "[sync]") {
  const std::string bare = published_archive("clone-lib");
  const std::string parent = test::make_temp_dir("clone-lib-work");

  auto report = clone_archive({.url = bare, .dir = "", .parent = parent, .git_timeout_ms = 60'000});
  REQUIRE(report);
  CHECK(report->dir == "feeds");
  CHECK(report->branch == "main");
  CHECK(report->sources == 2);
  CHECK(report->recorded == 1);
  CHECK(report->conditional == 1);
  CHECK(report->shown_url == bare);

  auto archive = Archive::open(parent + "/feeds");
  REQUIRE(archive);
  auto state = load_state(*archive);
  REQUIRE(state);
  REQUIRE(state->sources.count("blog") == 1);
  CHECK(state->sources.at("blog").etag == "\"abc-1\"");
}

TEST_CASE("clone_archive of an empty repository fails and leaves no directory", "[sync]") {
  const std::string base = test::make_temp_dir("clone-lib-empty");
  git_in(base, {"init", "--quiet", "--bare", "-b", "main", base + "/empty.git"});

  auto report = clone_archive(
      {.url = base + "/empty.git", .dir = "copy", .parent = base, .git_timeout_ms = 60'000});
  REQUIRE_FALSE(report);
  CHECK(report.error().code == Errc::not_an_archive);
  CHECK(report.error().message.find("has no branch yet") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(base + "/copy"));
}

TEST_CASE("clone_archive names the directory as git clone does, and masks credentials", "[sync]") {
  CHECK(clone_default_dir("https://example.com/me/feeds.git") == "feeds");
  CHECK(clone_default_dir("git@example.com:me/feeds.git/") == "feeds");
  CHECK(clone_default_dir("/srv/feeds/.git") == "feeds");
  CHECK(clone_default_dir("/") == "");

  auto report = clone_archive({.url = "https://example.com:", .dir = ""});
  REQUIRE_FALSE(report);
  CHECK(report.error().code == Errc::usage);
  CHECK(report.error().message.starts_with("cannot tell a directory from that URL"));
}
