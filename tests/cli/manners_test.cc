// How the command line treats a person: global options after the command, `feeddiff` alone,
// and a mistyped option.

#include <catch2/catch.hpp>

#include "cli/cli_helpers.h"

using namespace feeddiff::test;

TEST_CASE("global options are taken after the command, as git takes them", "[cli]") {
  CliArchive archive("manners-globals");
  REQUIRE(archive({"add", "s", "http://127.0.0.1:1/s"}).exit_code == 0);
  // -C and --color after the command, in both spellings, and between its arguments.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"log", "--color=never", "-C", archive.dir()},
        std::vector<std::string>{"log", "-n", "1", "--color", "never", "-C" + archive.dir()},
        std::vector<std::string>{"show", "--color=never", "HEAD", "-C", archive.dir()}}) {
    auto r = run_feeddiff(args);
    INFO(args.front() << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("s: source added") != std::string::npos);
  }
  // A bad value is still refused, after the command as before it.
  auto bad = run_feeddiff({"log", "--color=sometimes", "-C", archive.dir()});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("sometimes") != std::string::npos);
}

TEST_CASE("feeddiff alone prints how to use it and the commands, and exits 2", "[cli]") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, std::vector<std::string>{"--color=never"}}) {
    auto r = run_feeddiff(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("A subcommand is required") == std::string::npos);
    CHECK(r.err.starts_with("usage: feeddiff [-C DIR] [--color WHEN] COMMAND"));
    CHECK(r.err.find("\n  poll ") != std::string::npos);
    CHECK(r.err.find("\n  log ") != std::string::npos);
    CHECK(r.err.find("List the recorded changes, newest first") != std::string::npos);
    CHECK(r.out.empty());
  }
}

TEST_CASE("a mistyped option is answered with the nearest one", "[cli]") {
  CliArchive archive("manners-typo");
  auto r = archive({"log", "--itmes"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--itmes") != std::string::npos);
  CHECK(r.err.find("did you mean '--items'?") != std::string::npos);
  // A global option mistyped after the command, with a value.
  auto color = archive({"log", "--colour=never"});
  CHECK(color.exit_code == 2);
  CHECK(color.err.find("did you mean '--color'?") != std::string::npos);
  // Nothing near: no guess.
  auto far = archive({"log", "--frobnicate"});
  CHECK(far.exit_code == 2);
  CHECK(far.err.find("did you mean") == std::string::npos);
}
