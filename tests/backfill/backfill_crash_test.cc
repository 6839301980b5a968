// A `feeddiff backfill` killed (SIGKILL) at each step of its commit (include/feeddiff/failpoint.h)
// leaves an archive git fsck accepts, with the poll's version intact, and the next backfill
// records the archive exactly once.

#include <catch2/catch.hpp>

#include "backfill/archive_server.h"
#include "feeddiff/failpoint.h"

using namespace feeddiff::test;

TEST_CASE(
    "A backfill killed at any step of its commit leaves a consistent archive, and the "
    "next one records the archive once",
    "[backfill]") {
  if (!feeddiff::failpoints_built()) {
    WARN("failpoints are not built in (FEEDDIFF_FAILPOINTS): skipped");
    return;
  }
  ArchiveServer server;
  serve_rfc5005(server);
  for (const char* step : {"pack-written", "pack-renamed", "pack-in-place", "checkout-marked",
                           "branch-locked", "branch-moved", "checkout-done", "flushed"}) {
    INFO(step);
    CliArchive cli(std::string("backfill-kill-") + step);
    add_and_poll(cli, server, "blog", "/feed.atom");
    const std::string polled = cli.head();
    auto killed =
        run_feeddiff({"-C", cli.dir(), "backfill", "blog", "--delay", "0"},
                     {{"FEEDDIFF_NOW", "2026-10-01T06:00:00.000Z"}, {"FEEDDIFF_FAILPOINT", step}});
    CHECK(killed.exit_code == 128 + 9);
    CHECK(cli.git({"fsck", "--strict"}).exit_code == 0);
    // The poll's version is where it was, whether or not the branch moved.
    CHECK(cli.git({"cat-file", "-e", polled.substr(0, 40)}).exit_code == 0);
    CHECK(cli.git({"merge-base", "--is-ancestor", polled.substr(0, 40), "HEAD"}).exit_code == 0);

    auto again = cli({"backfill", "blog", "--delay", "0"});
    INFO(again.out << again.err);
    CHECK(again.exit_code == 0);
    auto log = cli.git({"log", "--format=%s"});
    std::size_t walks = 0;
    for (std::size_t at = log.out.find("publisher's archive"); at != std::string::npos;
         at = log.out.find("publisher's archive", at + 1))
      ++walks;
    CHECK(walks == 1);
    CHECK(cli.git({"show", "HEAD:backfill/blog/items"}).out.size() > 0);
    CHECK(cli.git({"status", "--porcelain"}).out.empty());
    CHECK(cli.git({"fsck", "--strict"}).exit_code == 0);
    auto log_blog = cli({"log", "blog"});
    CHECK(count_lines(log_blog.out) == 1);
  }
}
