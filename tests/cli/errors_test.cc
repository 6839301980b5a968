// Bad input gets one clear line on stderr, the documented exit code, and leaves the archive
// as it was.

#include <catch2/catch.hpp>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;

namespace {

// The archive's history, work tree and index, to compare before and after.
std::string snapshot(const CliArchive& archive) {
  return archive.head() + archive.git({"status", "--porcelain", "--ignored"}).out +
         slurp(archive.dir() + "/feeddiff.toml");
}

void check_one_error_line(const RunResult& r, int code, const std::string& needle) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == code);
  CHECK(r.err.starts_with("feeddiff: error: "));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(needle) != std::string::npos);
}

}  // namespace

TEST_CASE("commands on an unknown commit or a non-archive fail with one line and exit 2", "[cli]") {
  CliArchive archive("errors-commit");
  const std::string before = snapshot(archive);
  check_one_error_line(archive({"show", "0123456789abcdef"}), 2,
                       "unknown commit or source '0123456789abcdef'");
  check_one_error_line(archive({"cat", "nope"}), 2, "unknown commit 'nope'");
  check_one_error_line(archive({"show", "HEAD", "ghost"}), 2,
                       "source 'ghost' has no change at or before commit");
  CHECK(snapshot(archive) == before);

  const std::string plain = make_temp_dir("errors-plain");
  check_one_error_line(run_feeddiff({"-C", plain, "log"}), 2, "not a feeddiff archive");
  check_one_error_line(run_feeddiff({"-C", plain + "/missing", "poll"}), 2, "is not a directory");
  check_one_error_line(run_feeddiff({"init", archive.dir()}), 2, "already holds a git repository");
}

TEST_CASE("source names that could escape the archive are refused", "[cli]") {
  CliArchive archive("errors-names");
  const std::string before = snapshot(archive);
  for (const char* name : {"a/b", "../up", "..", "has space", ".git", "-rf"}) {
    INFO(name);
    check_one_error_line(archive({"add", "--", name, "http://127.0.0.1:9/feed"}), 2, "source name");
  }
  CHECK(snapshot(archive) == before);
}

TEST_CASE("a duplicate source and an unsupported URL are refused", "[cli]") {
  CliArchive archive("errors-add");
  REQUIRE(archive({"add", "one", "http://127.0.0.1:9/feed"}).exit_code == 0);
  const std::string before = snapshot(archive);
  check_one_error_line(archive({"add", "one", "http://127.0.0.1:9/other"}), 2, "exists already");
  check_one_error_line(archive({"add", "two", "ftp://example.com/feed"}), 2, "ftp");
  check_one_error_line(archive({"add", "three", "file:///etc/passwd"}), 2, "file");
  check_one_error_line(archive({"add", "four", "not a url"}), 2, "not a url");
  check_one_error_line(archive({"add", "five", "http://127.0.0.1:9/", "--every", "5s"}), 2,
                       "at least 1m");
  check_one_error_line(archive({"add", "six"}), 2, "URL is required");
  CHECK(snapshot(archive) == before);
}

TEST_CASE("a failing server makes no commit, exits 1 and the other sources still record", "[cli]") {
  HttpServer server([](const RecordedRequest& request) {
    if (request.target == "/404") return Reply{.status = 404, .body = "not here"};
    if (request.target == "/500") return Reply{.status = 500, .body = "oops"};
    if (request.target == "/reset") return Reply{.reset = true};
    if (request.target == "/silent") return Reply{.silent = true};
    if (request.target == "/empty") return Reply{.status = 200};
    if (request.target == "/short") return Reply{.body = "<rss>", .content_length = 100};
    return Reply{.body = "<rss version=\"2.0\"><channel><title>ok</title></channel></rss>"};
  });
  CliArchive archive("errors-poll");
  for (const char* name : {"f404", "f500", "reset", "silent", "empty", "short", "good"}) {
    std::string path = std::string("/") + (name[0] == 'f' ? name + 1 : name);
    REQUIRE(archive({"add", name, server.url(path)}).exit_code == 0);
  }
  REQUIRE(archive({"add", "refused", "http://127.0.0.1:1/feed"}).exit_code == 0);
  const std::string before = archive.head();

  auto r = archive({"poll", "--timeout", "2s", "--connect-timeout", "2s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("good: added") != std::string::npos);
  CHECK(r.err.find("f404: failed: " + server.url("/404") + ": HTTP 404") != std::string::npos);
  CHECK(r.err.find("f500: failed:") != std::string::npos);
  CHECK(r.err.find("reset: failed:") != std::string::npos);
  CHECK(r.err.find("silent: failed:") != std::string::npos);
  // An empty 200 is archived, as no feed (raw/empty/not-a-feed), and reported as a failure.
  CHECK(r.err.find("empty: not a feed (empty body, HTTP 200) recorded as ") != std::string::npos);
  CHECK(r.err.find("short: failed:") != std::string::npos);
  CHECK(r.err.find("refused: failed:") != std::string::npos);
  // Two commits: the good source's, and the empty body's (as no feed).
  CHECK(archive.git({"rev-list", "--count", before.substr(0, 40) + "..HEAD"}).out == "2\n");
  CHECK(archive.git({"ls-files", "raw"}).out == "raw/empty/not-a-feed\nraw/good/response.xml\n");
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
  CHECK(archive.git({"fsck", "--strict"}).exit_code == 0);

  // The failures are remembered in the state, with their reasons.
  const std::string state = slurp(archive.dir() + "/.git/feeddiff/state.json");
  CHECK(state.find("\"consecutive_failures\": 1") != std::string::npos);
  CHECK(state.find("HTTP 404") != std::string::npos);
}

TEST_CASE("credentials in a URL reach the server but never a commit, the state or output",
          "[cli]") {
  HttpServer server([](const RecordedRequest& request) {
    if (!request.header("Authorization")) return Reply{.status = 401};
    return Reply{.body = "<rss version=\"2.0\"><channel><title>private</title></channel></rss>"};
  });
  CliArchive archive("credentials");
  std::string url = server.url("/private.xml");
  url.insert(url.find("://") + 3, "reader:hunter2@");
  auto add = archive({"add", "private", url});
  REQUIRE(add.exit_code == 0);
  auto poll = archive({"poll", "--verbose"});
  INFO(poll.out << poll.err);
  REQUIRE(poll.exit_code == 0);
  CHECK(server.requests().front().header("Authorization").has_value());
  const std::string everything =
      add.out + add.err + poll.out + poll.err + archive.git({"log", "-p", "--format=%B"}).out +
      slurp(archive.dir() + "/.git/feeddiff/state.json") + archive({"show"}).out;
  CHECK(everything.find("hunter2") == std::string::npos);
}

TEST_CASE("usage errors point at the command's help", "[cli]") {
  auto r = run_feeddiff({"poll", "--no-such-flag"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.starts_with("feeddiff: error: "));
  CHECK(r.err.find("feeddiff poll --help") != std::string::npos);
  auto help = run_feeddiff({"show", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--max-lines") != std::string::npos);
  CHECK(run_feeddiff({}).exit_code == 2);
}
