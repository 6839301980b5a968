// feeddiff clone: a new poller joins through a real git remote (git daemon on loopback),
// and its first poll is conditional.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_helpers.h"
#include "cli/git_daemon.h"

namespace feeddiff::test {
namespace {

// One feed with validators; answers 304 to both of them, and records what it was sent.
struct ValidatingServer {
  HttpServer server{[](const RecordedRequest& request) {
    const std::string etag = "\"abc-1\"";
    const std::string modified = "Tue, 01 Sep 2026 10:00:00 GMT";
    if (request.header("If-None-Match") == etag)
      return Reply{.status = 304, .headers = {{"ETag", etag}}};
    return Reply{
        .headers = {{"ETag", etag}, {"Last-Modified", modified}, {"Cache-Control", "max-age=600"}},
        .body =
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>F</title>"
            "<item><title>one</title><guid>1</guid></item></channel></rss>\n"};
  }};
};

TEST_CASE("a clone from a git remote polls conditionally from the start and makes no commit",
          "[cli][clone]") {
  ValidatingServer feed;
  CliArchive origin("clone-origin");
  REQUIRE(origin({"add", "blog", feed.server.url("/feed")}).exit_code == 0);
  auto first = origin({"poll"});
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);

  const std::string base = make_temp_dir("clone-remote");
  REQUIRE(run({"git", "init", "-q", "--bare", base + "/feeds.git"}).exit_code == 0);
  REQUIRE(origin.git({"push", "-q", base + "/feeds.git", "HEAD:refs/heads/main"}).exit_code == 0);
  REQUIRE(run({"git", "-C", base + "/feeds.git", "symbolic-ref", "HEAD", "refs/heads/main"})
              .exit_code == 0);
  GitDaemon daemon(base);
  daemon.wait_for("feeds.git");

  const std::string work = make_temp_dir("clone-work");
  auto cloned = run_feeddiff({"-C", work, "clone", daemon.url("feeds.git"), "copy"},
                             {{"FEEDDIFF_NOW", "2026-10-01T06:54:04.027Z"}});
  INFO(cloned.out << cloned.err);
  REQUIRE(cloned.exit_code == 0);
  CHECK_THAT(cloned.out, Catch::Contains("1 source, 1 with a recorded version, 1 of them polled "
                                         "conditionally"));
  const std::string copy = work + "/copy";
  const std::string head = run({"git", "-C", copy, "rev-parse", "HEAD"}).out;

  // The state says what the last commit recorded.
  auto status = run_feeddiff({"-C", copy, "status", "--json"});
  REQUIRE(status.exit_code == 0);
  auto doc = nlohmann::json::parse(status.out);
  CHECK(doc["sources"][0]["etag"] == "\"abc-1\"");
  CHECK(doc["sources"][0]["last_modified"] == "Tue, 01 Sep 2026 10:00:00 GMT");
  CHECK(doc["unpublished"]["upstream"] == "origin/main");
  CHECK(doc["unpublished"]["commits"] == 0);

  const std::size_t before = feed.server.request_count();
  auto poll = run_feeddiff({"-C", copy, "poll", "--force", "-v"},
                           {{"FEEDDIFF_NOW", "2026-10-01T06:54:04.027Z"}});
  INFO(poll.out << poll.err);
  REQUIRE(poll.exit_code == 0);
  auto requests = feed.server.requests();
  REQUIRE(requests.size() == before + 1);
  CHECK(requests.back().header("If-None-Match") == "\"abc-1\"");
  CHECK(requests.back().header("If-Modified-Since") == "Tue, 01 Sep 2026 10:00:00 GMT");
  CHECK_THAT(poll.out, Catch::Contains("not modified") || Catch::Contains("not-modified"));
  CHECK(run({"git", "-C", copy, "rev-parse", "HEAD"}).out == head);
}

TEST_CASE("a clone's next poll is scheduled from the recorded Cache-Control", "[cli][clone]") {
  ValidatingServer feed;
  CliArchive origin("clone-due");
  REQUIRE(origin({"add", "blog", feed.server.url("/feed"), "--every", "1m"}).exit_code == 0);
  REQUIRE(origin({"poll"}).exit_code == 0);
  const std::string work = make_temp_dir("clone-due-work");
  auto cloned = run_feeddiff({"-C", work, "clone", origin.dir(), "copy"});
  INFO(cloned.err);
  REQUIRE(cloned.exit_code == 0);
  auto status = run_feeddiff({"-C", work + "/copy", "status", "--json"},
                             {{"FEEDDIFF_NOW", "2026-10-01T05:54:04.027Z"}});
  REQUIRE(status.exit_code == 0);
  auto doc = nlohmann::json::parse(status.out);
  const std::string observed = doc["sources"][0]["last_change"];
  const std::string due = doc["sources"][0]["next_due"];
  // Observed at the origin's clock, 05:54:04; max-age=600 beats the 1m interval: 06:04:04.
  CHECK(observed == "2026-10-01T05:54:04.027Z");
  CHECK(due == "2026-10-01T06:04:04.027Z");
}

TEST_CASE("status counts the local commits the clone's upstream lacks", "[cli][clone]") {
  ValidatingServer feed;
  CliArchive origin("clone-ahead");
  REQUIRE(origin({"add", "blog", feed.server.url("/feed")}).exit_code == 0);
  const std::string work = make_temp_dir("clone-ahead-work");
  REQUIRE(run_feeddiff({"-C", work, "clone", origin.dir(), "copy"}).exit_code == 0);
  auto poll = run_feeddiff({"-C", work + "/copy", "poll"});
  INFO(poll.out << poll.err);
  REQUIRE(poll.exit_code == 0);
  auto status = run_feeddiff({"-C", work + "/copy", "status"});
  REQUIRE(status.exit_code == 0);
  CHECK_THAT(status.out, Catch::Contains("1 local commit not yet on origin/"));
}

TEST_CASE("a clone that fails says so in one line and never prints the URL's credentials",
          "[cli][clone]") {
  const std::string work = make_temp_dir("clone-fail");
  auto r = run_feeddiff(
      {"-C", work, "clone", "http://alice:s3cret-token@127.0.0.1:1/feeds.git", "copy"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("feeddiff: error: git clone http://***@127.0.0.1:1/"));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find("s3cret") == std::string::npos);
  CHECK(r.out.find("s3cret") == std::string::npos);

  auto not_archive = run_feeddiff({"-C", work, "clone", "/nonexistent/repo.git"});
  CHECK(not_archive.exit_code == 2);
}

TEST_CASE("a cloned repository that is no archive is named as such", "[cli][clone]") {
  const std::string base = make_temp_dir("clone-plain");
  REQUIRE(run({"git", "init", "-q", base + "/plain"}).exit_code == 0);
  spit(base + "/plain/README", "hi\n");
  REQUIRE(run({"git", "-C", base + "/plain", "add", "README"}).exit_code == 0);
  REQUIRE(run({"git", "-C", base + "/plain", "-c", "user.name=t", "-c", "user.email=t@t", "commit",
               "-qm", "x"})
              .exit_code == 0);
  auto r = run_feeddiff({"-C", base, "clone", base + "/plain", "copy"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("is a git repository, not a feeddiff archive: none of its "
                                    "branches"));
  CHECK(count_lines(r.err) == 1);
  CHECK_FALSE(std::filesystem::exists(base + "/copy"));  // nothing left behind
}

TEST_CASE("a clone of a bare repository whose HEAD is master checks out the archive's branch",
          "[cli][clone]") {
  ValidatingServer feed;
  CliArchive origin("clone-master");
  REQUIRE(origin({"add", "blog", feed.server.url("/feed")}).exit_code == 0);
  const std::string base = make_temp_dir("clone-master-remote");
  const std::string bare = base + "/feeds.git";
  // What plain `git init --bare` makes with git's default branch name: HEAD at master,
  // which nobody pushes; feeddiff's sync pushes main.
  REQUIRE(run({"git", "-c", "init.defaultBranch=master", "init", "-q", "--bare", bare}).exit_code ==
          0);
  REQUIRE(run({"git", "-C", bare, "symbolic-ref", "HEAD"}).out == "refs/heads/master\n");
  REQUIRE(origin.git({"push", "-q", bare, "HEAD:refs/heads/main"}).exit_code == 0);

  const std::string work = make_temp_dir("clone-master-work");
  auto cloned = run_feeddiff({"-C", work, "clone", bare, "copy"});
  INFO(cloned.out << cloned.err);
  REQUIRE(cloned.exit_code == 0);
  const std::string copy = work + "/copy";
  CHECK(run({"git", "-C", copy, "symbolic-ref", "--short", "HEAD"}).out == "main\n");
  CHECK(run({"git", "-C", copy, "rev-parse", "HEAD"}).out == origin.head());
  CHECK(std::filesystem::exists(copy + "/feeddiff.toml"));
  auto status = run_feeddiff({"-C", copy, "status", "--json"});
  REQUIRE(status.exit_code == 0);
  CHECK(nlohmann::json::parse(status.out)["unpublished"]["upstream"] == "origin/main");

  // The archive on another branch only, and HEAD at a branch that does not exist: that one.
  const std::string other = base + "/other.git";
  REQUIRE(
      run({"git", "-c", "init.defaultBranch=master", "init", "-q", "--bare", other}).exit_code ==
      0);
  REQUIRE(origin.git({"push", "-q", other, "HEAD:refs/heads/feeds"}).exit_code == 0);
  auto again = run_feeddiff({"-C", work, "clone", other, "copy2"});
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("(branch feeds)"));
  CHECK(run({"git", "-C", work + "/copy2", "symbolic-ref", "--short", "HEAD"}).out == "feeds\n");
}

TEST_CASE("a clone of an empty bare repository fails in one line and leaves no directory",
          "[cli][clone]") {
  const std::string base = make_temp_dir("clone-empty");
  REQUIRE(run({"git", "init", "-q", "--bare", base + "/empty.git"}).exit_code == 0);
  auto r = run_feeddiff({"-C", base, "clone", base + "/empty.git", "copy"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("has no branch yet") && Catch::Contains("HEAD:refs/heads/main"));
  CHECK(count_lines(r.err) == 1);
  CHECK_FALSE(std::filesystem::exists(base + "/copy"));
  // An empty directory given as DIR stays, empty.
  std::filesystem::create_directory(base + "/mine");
  CHECK(run_feeddiff({"-C", base, "clone", base + "/empty.git", "mine"}).exit_code == 2);
  CHECK(std::filesystem::is_empty(base + "/mine"));
}

}  // namespace
}  // namespace feeddiff::test
