// backfill's report for a terminal, called as a library.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/backfill.h"

using namespace feeddiff;

TEST_CASE("backfill_text lists the pages and what was recorded, and a failed stop goes to err",
          "[backfill]") {
  BackfillReport report;
  report.name = "news";
  BackfillPage first;
  first.number = 1;
  first.url = "https://example.com/feed";
  first.items = 10;
  report.pages.push_back(first);
  BackfillPage second;
  second.number = 2;
  second.url = "https://example.com/feed?page=2\x1b[2J";
  second.result = "new";
  second.items = 10;
  second.bytes = 2048;
  second.status = 200;
  report.pages.push_back(second);
  report.stop = BackfillStop::last_page;
  report.stop_line = "backfill: news: page 2 is the last page";
  report.items = 20;
  report.new_items = 10;
  report.oldest = "2020-01-02T00:00:00Z";
  report.newest = "2021-03-04T00:00:00Z";
  report.commit = "0123456789abcdef";

  BackfillText text = backfill_text(report);
  CHECK_FALSE(text.failed);
  CHECK(text.err.empty());
  CHECK(text.out.find("backfill: news: page 1 is the current document (10 items), "
                      "https://example.com/feed\n") != std::string::npos);
  CHECK(text.out.find("page 2 new (10 items, 2,048 bytes, HTTP 200) "
                      "https://example.com/feed?page=2\\x1b[2J\n") != std::string::npos);
  CHECK(
      text.out.ends_with("recorded the publisher's archive in 0123456: 20 items (10 new), "
                         "dated 2020-01-02 to 2021-03-04\n"));

  report.stop = BackfillStop::failed;
  report.stop_line = "backfill: news: page 3 failed: HTTP 500";
  report.warnings = {"backfill: news: archive page 2 changed since it was recorded"};
  text = backfill_text(report);
  CHECK(text.failed);
  CHECK(text.out.find("HTTP 500") == std::string::npos);
  CHECK(text.err ==
        "backfill: news: archive page 2 changed since it was recorded\n"
        "backfill: news: page 3 failed: HTTP 500\n");
}
