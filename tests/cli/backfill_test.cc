// feeddiff backfill and add --backfill end to end: the built binary against a publisher's
// archive on the scripted server; every reader of feed versions says after a backfill
// exactly what it said before.

#include <catch2/catch.hpp>
#include <filesystem>

#include "backfill/archive_server.h"

using namespace feeddiff::test;

namespace {

// What the readers of feed versions print about source `name`.
std::vector<std::string> readers(const CliArchive& cli, const std::string& name) {
  std::vector<std::string> out;
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"log", name},
                                             {"log", name, "--format", "json"},
                                             {"log", "--items", name},
                                             {"status", name},
                                             {"status", "--json"},
                                             {"history", name},
                                             {"history", name, "urn:e12"},
                                             {"show", name},
                                             {"items", "HEAD", name}}) {
    auto r = cli(args);
    INFO(args[0] << ": " << r.err);
    CHECK(r.exit_code == 0);
    out.push_back(r.out);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "backfill records the publisher's archive as its own kind of commit, and no reader "
    "of feed versions counts it",
    "[cli]") {
  ArchiveServer server;
  serve_rfc5005(server);
  CliArchive cli("cli-backfill");
  add_and_poll(cli, server, "blog", "/feed.atom");
  const auto before = readers(cli, "blog");

  auto r = cli({"backfill", "blog", "--delay", "0"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("backfill: blog: page 1 is the current document (4 items)") !=
        std::string::npos);
  CHECK(r.out.find("backfill: blog: page 5 new (3 items") != std::string::npos);
  CHECK(r.out.find("page 5 has no link to older entries: the end of the archive") !=
        std::string::npos);
  CHECK(r.out.find("9 items (9 new), dated 2020-01-01 to 2020-01-09") != std::string::npos);

  // log, status, history, items, show NAME: as before.
  CHECK(readers(cli, "blog") == before);
  // The global log marks it [backfill] with its summary.
  r = cli({"log"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("blog: publisher's archive (4 pages recorded, 9 items) [backfill] 4 pages "
                   "walked (4 new, 0 changed), 9 items (9 new), 2020-01-01 to 2020-01-09") !=
        std::string::npos);
  // show of the commit: its pages and items, not changes of the feed.
  r = cli({"show", "HEAD"});
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Pages (4;") != std::string::npos);
  CHECK(r.out.find("     5  new        prev-archive  " + server.url("/archive/1.atom")) !=
        std::string::npos);
  CHECK(r.out.find("Oldest      2020-01-01T10:00:00.000Z") != std::string::npos);
  CHECK(r.out.find("added") == std::string::npos);
  r = cli({"show", "HEAD", "--format", "json"});
  CHECK(r.out.find("\"kind\": \"backfill\"") != std::string::npos);
  CHECK(r.out.find("\"items\": 9") != std::string::npos);

  // The source index rebuilt from nothing: the same answers.
  std::filesystem::remove_all(cli.dir() + "/.git/feeddiff/index");
  std::filesystem::remove_all(cli.dir() + "/.git/feeddiff/cache");
  CHECK(readers(cli, "blog") == before);

  // A second poll: the feed's second version is compared with its first, not with a page of
  // the archive.
  server.page("/feed.atom", atom_page({13, 12, 11, 10}, {{"prev-archive", "archive/4.atom"}}));
  cli.set_now("2026-10-01T08:00:00.000Z");
  r = cli({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("changed") != std::string::npos);
  r = cli({"log", "blog"});
  CHECK(count_lines(r.out) == 2);
  CHECK(r.out.find("[items] 1 added, 1 aged out") != std::string::npos);
  CHECK(r.out.find("backfill") == std::string::npos);
  r = cli({"show", "blog"});
  CHECK(r.out.find("Entry 13") != std::string::npos);
  CHECK(r.out.find("Entry 8") == std::string::npos);
  CHECK(cli.git({"fsck", "--strict"}).exit_code == 0);
  CHECK(cli.git({"status", "--porcelain"}).out.empty());
}

TEST_CASE(
    "add --backfill polls the new source, then walks its archive; a failed page after "
    "others exits 1",
    "[cli]") {
  ArchiveServer server;
  server.page("/feed.atom", atom_page({4, 3}, {{"prev-archive", "/old/2.atom"}}));
  server.page("/old/2.atom", atom_page({2}, {{"prev-archive", "/old/1.atom"}}, true));
  // /old/1.atom is not served: 404.
  CliArchive cli("cli-add-backfill");
  auto r = cli({"add", "blog", server.url("/feed.atom"), "--backfill"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Added blog") != std::string::npos);
  CHECK(r.out.find("blog: added") != std::string::npos);
  CHECK(r.out.find("backfill: blog: page 2 new (1 items") != std::string::npos);
  CHECK(r.err.find("backfill: blog: page 3 (" + server.url("/old/1.atom") +
                   "): HTTP 404; stopped") != std::string::npos);
  // Both the version and the archive are recorded, each as what it is.
  r = cli({"log"});
  CHECK(r.out.find("blog: added") != std::string::npos);
  CHECK(r.out.find("[backfill]") != std::string::npos);
  CHECK(cli.git({"cat-file", "-e", "HEAD:backfill/blog/items"}).exit_code == 0);
}

TEST_CASE("backfill of a source with no archive says so and records nothing", "[cli]") {
  ArchiveServer server;
  server.page("/feed.atom", atom_page({2, 1}, {{"self", "/feed.atom"}}));
  CliArchive cli("cli-backfill-none");
  add_and_poll(cli, server, "blog", "/feed.atom");
  const std::string head = cli.head();
  auto r = cli({"backfill", "blog"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("the feed links to no archive: nothing recorded") != std::string::npos);
  CHECK(cli.head() == head);
  r = cli({"backfill", "nosuch"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no source named 'nosuch'") != std::string::npos);
}
