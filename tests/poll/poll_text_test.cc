// A poll's lines for a terminal, called as a library: what each outcome says, and that a
// server's or a feed's text cannot reach the terminal as control bytes.

#include <catch2/catch.hpp>
#include <string>

#include "feeddiff/poll.h"

using namespace feeddiff;

TEST_CASE("outcome_line names each outcome and escapes what a server sent", "[poll]") {
  SourceOutcome o;
  o.name = "news";
  o.outcome = Outcome::changed;
  o.bytes = 12345;
  o.status = 200;
  o.commit = "0123456789abcdef";
  CHECK(outcome_line(o, 0) == "news: changed (12,345 bytes, HTTP 200) 0123456");

  o.outcome = Outcome::failed;
  o.message = "HTTP 500 \x1b[2Jgone";
  o.next_due = 20 * 60'000;
  CHECK(outcome_line(o, 0) == "news: failed: HTTP 500 \\x1b[2Jgone (retry in 20m)");
  CHECK(is_failure(o.outcome));

  o.outcome = Outcome::not_due;
  o.redirect_note = "moved permanently";
  CHECK(outcome_line(o, 10 * 60'000) == "news: not due (next poll in 10m) [moved permanently]");
  CHECK_FALSE(is_failure(o.outcome));
}

TEST_CASE("article_line gives the headline of an edit and the URL of anything else", "[poll]") {
  ArticleOutcome a;
  a.source = "news";
  a.result = "changed";
  a.message = "Minister \xe2\x80\xae resigns";
  a.commit = "abcdef0123456789";
  a.url = "https://example.com/a";
  CHECK(article_line(a) == "news: article changed: Minister \\u202e resigns abcdef0");
  a.result = "disallowed";
  a.message = "robots.txt disallows /a";
  a.commit.clear();
  CHECK(article_line(a) ==
        "news: article disallowed: robots.txt disallows /a "
        "(https://example.com/a)");
}

TEST_CASE("the packs' lines are empty unless consolidation failed or rolled packs up", "[poll]") {
  PollReport report;
  CHECK(packs_error_line(report).empty());
  CHECK(articles_error_line(report).empty());
  report.articles_error = "disk \x1b[2J full";
  CHECK(articles_error_line(report) ==
        "articles: stopped early, the rest wait for the next poll: disk \\x1b[2J full");
  CHECK(packs_rolled_line(report).empty());
  report.packs_error = "disk full";
  CHECK(packs_error_line(report) ==
        "packs: not consolidated: disk full (the changes are recorded; `feeddiff gc` repacks)");
  report.packs.packs_rolled = 3;
  report.packs.objects = 1500;
  report.packs.packs_after = 4;
  CHECK(packs_rolled_line(report).starts_with("packs: 3 rolled up into one (1,500 objects, "));
}
