// The backfill service called as a library against a publisher's archive served on
// 127.0.0.1: RFC 5005 archives, paged feeds, JSON Feed pages, loops, the page cap, pages
// that are no feed, reruns, and where a feed's links may lead.

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "backfill/archive_server.h"
#include "feeddiff/backfill.h"
#include "feeddiff/message.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

BackfillOptions walk_options(const std::string& name) {
  BackfillOptions options;
  options.name = name;
  options.delay = 0;
  options.now = *parse_iso8601("2026-10-01T06:00:00.000Z");
  options.limits.total_timeout_ms = 5000;
  return options;
}

Result<BackfillReport> walk(const CliArchive& cli, const BackfillOptions& options) {
  auto archive = Archive::open(cli.dir());
  REQUIRE(archive);
  return backfill(*archive, options);
}

std::vector<BackfillItem> items_at_head(const CliArchive& cli, const std::string& name) {
  auto r = cli.git({"show", "HEAD:backfill/" + name + "/items"});
  REQUIRE(r.exit_code == 0);
  return parse_backfill_items(r.out);
}

}  // namespace

TEST_CASE(
    "An RFC 5005 archive of five pages is recorded with every item once and no request "
    "past its last page",
    "[backfill]") {
  ArchiveServer server;
  serve_rfc5005(server);
  CliArchive cli("backfill-rfc5005");
  add_and_poll(cli, server, "blog", "/feed.atom");
  const std::string before = cli.head();

  auto report = walk(cli, walk_options("blog"));
  REQUIRE(report);
  CHECK(report->stop == BackfillStop::last_page);
  REQUIRE(report->pages.size() == 5);
  CHECK(report->pages[0].result == "current");
  for (std::size_t i = 1; i < 5; ++i) {
    CHECK(report->pages[i].result == "new");
    CHECK(report->pages[i].via == BackfillLink::prev_archive);
  }
  CHECK(report->pages[1].url == server.url("/archive/4.atom"));
  CHECK(report->pages[4].url == server.url("/archive/1.atom"));
  // The archive pages hold entries 1 to 9, 9, 7, 5 and 3 twice each.
  CHECK(report->items == 9);
  CHECK(report->new_items == 9);
  CHECK(report->oldest == "2020-01-01T10:00:00.000Z");
  CHECK(report->newest == "2020-01-09T10:00:00.000Z");
  CHECK_FALSE(report->commit.empty());
  CHECK(report->stop_line.find("page 5 has no link to older entries") != std::string::npos);

  // The poll's one request, then each archive page once; nothing past /archive/1.atom.
  CHECK(server.paths() == std::vector<std::string>{"/feed.atom", "/archive/4.atom",
                                                   "/archive/3.atom", "/archive/2.atom",
                                                   "/archive/1.atom"});
  // One commit on top of the poll's.
  CHECK(cli.git({"rev-parse", "HEAD~1"}).out == before);
  const auto items = items_at_head(cli, "blog");
  REQUIRE(items.size() == 9);
  std::set<std::string> ids;
  for (const auto& item : items) ids.insert(item.id);
  CHECK(ids.size() == 9);
  // Dated by the items, newest first: entry 9's own date, not the walk's.
  CHECK(items.front().id == "urn:e9");
  CHECK(items.front().date == "2020-01-09T10:00:00.000Z");
  CHECK(items.back().id == "urn:e1");
  // Each page byte for byte, with its headers, under its own directory; raw/ untouched.
  auto files = cli.git({"show", "--name-only", "--format=", "HEAD"});
  CHECK(count_lines(files.out) == 4 * 2 + 1);
  CHECK(files.out.find("raw/") == std::string::npos);
  CHECK(cli.git({"fsck", "--strict"}).exit_code == 0);
  CHECK(cli.git({"status", "--porcelain"}).out.empty());
}

TEST_CASE(
    "A loop in the archive links stops the walk with one clear line and keeps what it "
    "found",
    "[backfill]") {
  ArchiveServer server;
  serve_rfc5005(server);
  // Page 3 (/archive/3.atom, the third page walked) links back to page 2.
  server.page("/archive/3.atom",
              atom_page({7, 6, 5}, {{"prev-archive", server.url("/archive/4.atom")}}, true));
  CliArchive cli("backfill-loop");
  add_and_poll(cli, server, "blog", "/feed.atom");
  auto report = walk(cli, walk_options("blog"));
  REQUIRE(report);
  CHECK(report->stop == BackfillStop::loop);
  CHECK(report->stop_line == "backfill: blog: archive links loop at " +
                                 server.url("/archive/4.atom") + " (page 2); stopped");
  CHECK(report->pages.size() == 3);
  CHECK(report->items == 5);  // 9 to 5
  CHECK_FALSE(report->commit.empty());
  CHECK(server.paths().size() == 3);  // the poll, pages 2 and 3: page 2 not asked again
  CHECK(cli.git({"fsck", "--strict"}).exit_code == 0);
}

TEST_CASE("A paged feed is walked by its next links, and a JSON Feed by next_url", "[backfill]") {
  ArchiveServer server;
  SECTION("paged Atom: rel=next leads to older entries") {
    server.page("/paged", atom_page({6, 5}, {{"next", "/paged?page=2"}}));
    server.page("/paged?page=2", atom_page({4, 3}, {{"previous", "/paged"}, {"next", "?page=3"}}));
    server.page("/paged?page=3", atom_page({2, 1}, {{"previous", "/paged?page=2"}}));
    CliArchive cli("backfill-paged");
    add_and_poll(cli, server, "paged", "/paged");
    auto report = walk(cli, walk_options("paged"));
    REQUIRE(report);
    CHECK(report->stop == BackfillStop::last_page);
    REQUIRE(report->pages.size() == 3);
    CHECK(report->pages[1].via == BackfillLink::next_page);
    CHECK(report->pages[2].url == server.url("/paged?page=3"));
    CHECK(report->items == 4);
    CHECK(server.paths().size() == 3);
  }
  SECTION("JSON Feed: next_url") {
    server.page("/feed.json", json_page({9, 8}, server.url("/feed.json?p=2")),
                "application/feed+json");
    server.page("/feed.json?p=2", json_page({7, 6}, "/feed.json?p=3"), "application/feed+json");
    server.page("/feed.json?p=3", json_page({5}, ""), "application/feed+json");
    CliArchive cli("backfill-json");
    add_and_poll(cli, server, "jf", "/feed.json");
    auto report = walk(cli, walk_options("jf"));
    REQUIRE(report);
    CHECK(report->stop == BackfillStop::last_page);
    REQUIRE(report->pages.size() == 3);
    CHECK(report->pages[1].via == BackfillLink::next_url);
    CHECK(report->items == 3);
    CHECK(report->oldest == "2021-03-05T08:00:00.000Z");
    auto files = cli.git({"show", "--name-only", "--format=", "HEAD"});
    CHECK(files.out.find("response.json") != std::string::npos);
  }
}

TEST_CASE("The page cap stops the walk and says so", "[backfill]") {
  ArchiveServer server;
  serve_rfc5005(server);
  CliArchive cli("backfill-cap");
  add_and_poll(cli, server, "blog", "/feed.atom");
  auto options = walk_options("blog");
  options.max_pages = 2;
  auto report = walk(cli, options);
  REQUIRE(report);
  CHECK(report->stop == BackfillStop::page_cap);
  CHECK(report->pages.size() == 3);
  CHECK(report->stop_line.find("page cap (2 pages") != std::string::npos);
  CHECK(report->stop_line.find(server.url("/archive/2.atom") + " not fetched") !=
        std::string::npos);
  CHECK(server.paths().size() == 3);
  CHECK_FALSE(report->commit.empty());
}

TEST_CASE(
    "A rerun asks conditionally, records nothing when nothing changed, and says when an "
    "archive page changed",
    "[backfill]") {
  ArchiveServer server;
  serve_rfc5005(server);
  CliArchive cli("backfill-rerun");
  add_and_poll(cli, server, "blog", "/feed.atom");
  REQUIRE(walk(cli, walk_options("blog")));
  const std::string head = cli.head();

  auto again = walk(cli, walk_options("blog"));
  REQUIRE(again);
  CHECK(again->commit.empty());
  CHECK(cli.head() == head);
  for (std::size_t i = 1; i < again->pages.size(); ++i)
    CHECK(again->pages[i].result == "unchanged");
  CHECK(again->items == 9);
  CHECK(again->new_items == 0);
  const auto requests = server.requests();
  // The second walk sent back each page's ETag.
  for (std::size_t i = 5; i < requests.size(); ++i) CHECK(requests[i].header("If-None-Match"));

  // An archive document that changed (it never should): recorded, and said.
  server.page("/archive/2.atom", atom_page({5, 4, 3, 13}, {{"prev-archive", "1.atom"}}, true));
  auto changed = walk(cli, walk_options("blog"));
  REQUIRE(changed);
  CHECK_FALSE(changed->commit.empty());
  REQUIRE(changed->warnings.size() == 1);
  CHECK(changed->warnings[0].find("archive page 4 (" + server.url("/archive/2.atom") +
                                  ") changed since it was recorded") != std::string::npos);
  CHECK(changed->pages[3].result == "changed");
  CHECK(changed->new_items == 1);
  CHECK(changed->items == 10);
  auto files = cli.git({"show", "--name-only", "--format=", "HEAD"});
  CHECK(count_lines(files.out) == 3);  // that page, its headers, the items
}

TEST_CASE("A page that is no feed stops the walk with a line saying so; what came before is kept",
          "[backfill]") {
  ArchiveServer server;
  serve_rfc5005(server);
  server.page("/archive/3.atom",
              "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>checking"
              "</body></html>",
              "text/html");
  CliArchive cli("backfill-challenge");
  add_and_poll(cli, server, "blog", "/feed.atom");
  auto report = walk(cli, walk_options("blog"));
  REQUIRE(report);
  CHECK(report->stop == BackfillStop::not_a_feed);
  CHECK(report->stop_line.starts_with("backfill: blog: page 3 (" + server.url("/archive/3.atom") +
                                      ") is not a feed: HTML"));
  CHECK(report->stop_line.find("Just a moment") != std::string::npos);
  CHECK(report->partial);
  CHECK(report->pages.size() == 2);
  CHECK(report->items == 3);
  CHECK_FALSE(report->commit.empty());
  CHECK(server.paths().size() == 3);
}

TEST_CASE("An archive link reaches loopback only when the feed came from loopback", "[backfill]") {
  ArchiveServer server;
  serve_rfc5005(server);
  CliArchive cli("backfill-link-from");
  add_and_poll(cli, server, "blog", "/feed.atom");
  auto options = walk_options("blog");
  options.feed_class = AddressClass::global;  // as if the feed had come from the Internet
  auto report = walk(cli, options);
  REQUIRE(report);
  CHECK(report->stop == BackfillStop::failed);
  CHECK(report->stop_line.find("loopback") != std::string::npos);
  CHECK_FALSE(report->partial);
  CHECK(report->commit.empty());
  CHECK(server.paths().size() == 1);  // the poll's request only
}

TEST_CASE("A source never polled has nothing to walk from", "[backfill]") {
  ArchiveServer server;
  CliArchive cli("backfill-unpolled");
  REQUIRE(cli({"add", "blog", server.url("/feed.atom")}).exit_code == 0);
  auto report = walk(cli, walk_options("blog"));
  REQUIRE_FALSE(report);
  CHECK(report.error().code == Errc::not_found);
  CHECK(report.error().message.find("poll it first") != std::string::npos);
  CHECK(server.paths().empty());
}

TEST_CASE(
    "Archive links are read from Atom, from atom:link in RSS and from JSON Feed, and "
    "resolved against the page",
    "[backfill]") {
  const std::string base = "https://example.com/blog/feed.xml";
  SECTION("Atom") {
    const auto links = archive_links(
        atom_page({1}, {{"prev-archive", "archive/2019.xml"}, {"next", "/blog/feed.xml?p=2"}}),
        base);
    CHECK(links.prev_archive == "https://example.com/blog/archive/2019.xml");
    CHECK(links.next_page == "https://example.com/blog/feed.xml?p=2");
    CHECK(next_archive_link(links)->second == BackfillLink::prev_archive);
  }
  SECTION("RSS with atom:link") {
    const auto links = archive_links(
        "<rss version=\"2.0\" xmlns:atom=\"http://www.w3.org/2005/Atom\"><channel><title>t</title>"
        "<atom:link rel=\"prev-archive\" href=\"../old.rss\"/><item><guid>a</guid></item>"
        "</channel></rss>",
        base);
    CHECK(links.prev_archive == "https://example.com/old.rss");
  }
  SECTION("the last page links nowhere") {
    CHECK_FALSE(next_archive_link(archive_links(atom_page({1}, {{"self", "x"}}), base)));
    CHECK_FALSE(next_archive_link(archive_links("not a feed", base)));
  }
  SECTION("resolve_url") {
    CHECK(resolve_url(base, "//cdn.example.org/a") ==
          "https:"
          "//cdn.example.org/a");
    CHECK(resolve_url(base, "?page=3") == "https://example.com/blog/feed.xml?page=3");
    CHECK(resolve_url(base, "./a/../b.xml#top") == "https://example.com/blog/b.xml");
    CHECK(resolve_url(base, "http://other.example/x") == "http://other.example/x");
  }
}

TEST_CASE("The items file reads back what was written, tabs and line breaks included",
          "[backfill]") {
  const std::vector<BackfillItem> items = {
      {"2020-01-01T00:00:00.000Z", "Wed, 01 Jan 2020 00:00:00 GMT", "id\t1", "abc", "Two\nlines",
       "http://x/\\"},
      {"", "", "id2", "def", "", ""}};
  CHECK(parse_backfill_items(format_backfill_items(items)) == items);
  CHECK(parse_backfill_items("garbage\n").empty());
}

TEST_CASE("The source's credentials go to archive pages on their own origin only", "[backfill]") {
  ArchiveServer server;
  const std::string base = server.url("/");
  const std::string port(*split_url(base).port);
  server.page("/feed.atom", atom_page({4, 3}, {{"prev-archive", "/archive/2.atom"}}));
  // The same server under another name: another origin.
  server.page(
      "/archive/2.atom",
      atom_page({3, 2}, {{"prev-archive", "http://localhost:" + port + "/archive/1.atom"}}, true));
  server.page("/archive/1.atom", atom_page({1}, {}, true));
  CliArchive cli("backfill-credentials");
  std::string url = server.url("/feed.atom");
  url.insert(url.find("://") + 3, "me:secret@");
  REQUIRE(cli({"add", "blog", url}).exit_code == 0);
  REQUIRE(cli({"poll", "--force", "--timeout", "5s"}).exit_code == 0);
  auto report = walk(cli, walk_options("blog"));
  REQUIRE(report);
  CHECK(report->stop == BackfillStop::last_page);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 3);
  CHECK(requests[0].header("Authorization"));  // the poll's
  CHECK(requests[1].header("Authorization"));  // /archive/2.atom: the same origin
  CHECK(requests[1].target == "/archive/2.atom");
  CHECK_FALSE(requests[2].header("Authorization"));  // localhost: another origin
  CHECK(requests[2].target == "/archive/1.atom");
  // Nothing recorded carries them.
  CHECK(cli.git({"grep", "-q", "secret", "HEAD"}).exit_code == 1);
}
