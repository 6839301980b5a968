// The progress line of a long poll: on a terminal only, erased before the poll's own lines.

#include <catch2/catch.hpp>
#include <string>

#include "cli/cli_helpers.h"

namespace feeddiff::test {
namespace {

// A poll of two sources whose server takes 400 ms each: longer than the progress line's
// quiet time, so a terminal sees it.
struct SlowFeeds {
  HttpServer server{[](const RecordedRequest& r) {
    return Reply{
        .body = "<rss version=\"2.0\"><channel><title>" + r.target + "</title></channel></rss>",
        .delay_ms = 400};
  }};
  CliArchive archive{"progress"};
  SlowFeeds() {
    REQUIRE(archive({"add", "one", server.url("/one")}).exit_code == 0);
    REQUIRE(archive({"add", "two", server.url("/two")}).exit_code == 0);
  }
};

// Runs `feeddiff -C DIR args` with its stdin, stdout and stderr on a pseudo-terminal (util-linux
// script), and returns what the terminal showed.
RunResult run_on_terminal(const CliArchive& archive, const std::string& args) {
  const std::string command = std::string(FEEDDIFF_BINARY) + " -C " + archive.dir() + " " + args;
  return run({"script", "-qec", command, "/dev/null"},
             {{"FEEDDIFF_NOW", "2026-10-01T05:54:04.027Z"}, {"NO_COLOR", "1"}, {"TERM", "xterm"}});
}

}  // namespace

TEST_CASE("a long poll on a terminal shows a progress line and erases it before its report",
          "[cli]") {
  SlowFeeds feeds;
  auto r = run_on_terminal(feeds.archive, "poll --per-host 1");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto progress = r.out.find("polling: 2/2 done, 2 changed");
  REQUIRE(progress != std::string::npos);
  const auto erased = r.out.find("\r\x1b[K", progress);
  CHECK(erased != std::string::npos);
  const auto report = r.out.find("one: added");
  REQUIRE(report != std::string::npos);
  CHECK(erased < report);
}

TEST_CASE("no progress line reaches a pipe, and none with --quiet or --no-progress", "[cli]") {
  SlowFeeds feeds;
  auto piped = feeds.archive({"poll", "--per-host", "1"});
  INFO(piped.out << piped.err);
  CHECK(piped.exit_code == 0);
  CHECK(piped.out.find("one: added") != std::string::npos);
  CHECK(piped.err.find("polling:") == std::string::npos);
  CHECK(piped.out.find("polling:") == std::string::npos);

  auto quiet = run_on_terminal(feeds.archive, "poll --force --quiet --per-host 1");
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.find("polling:") == std::string::npos);
  auto none = run_on_terminal(feeds.archive, "poll --force --no-progress --per-host 1");
  CHECK(none.exit_code == 0);
  CHECK(none.out.find("polling:") == std::string::npos);
}

}  // namespace feeddiff::test
