// The commit message of a version: what record_response keeps of a response (redacted),
// and that format and parse are each other's inverse.

#include <catch2/catch.hpp>

#include "feeddiff/message.h"

using namespace feeddiff;

namespace {

RecordedResponse response() {
  RecordedResponse r;
  r.status = 200;
  r.final_url = "https://user:pw@example.com/feed.xml?token=abc&page=2";
  r.redirects = {{301, "https://example.com/old?access_token=xyz"},
                 {302, "https://u:p@[2001:db8::1]:8443/feed.xml"}};
  r.headers = {{"Content-Type", "application/rss+xml"},
               {"ETag", "\"v1\""},
               {"Set-Cookie", "session=do-not-record-me"},
               {"set-cookie2", "other=secret"},
               {"Authorization", "Bearer secret"},
               {"Location", "https://user:pass@example.com/next?token=t0k3n&x=1"},
               {"Content-Location", "https://tok@example.com/c?sig=s1g"},
               {"X-Folded", "one\r\nSource: forged"},
               {"Date", "Thu, 01 Oct 2026 05:54:03 GMT"},
               {"Age", "61"}};
  return r;
}

}  // namespace

TEST_CASE("a recorded response keeps no credential, cookie or token", "[store]") {
  const CommitMessage m = record_response("news", response(), 1790834044027);
  CHECK(m.source == "news");
  CHECK(m.observed_at == "2026-10-01T05:54:04.027Z");
  CHECK(m.origin_date == "2026-10-01T05:53:02.000Z");
  CHECK(m.status == "200");
  CHECK(m.final_url == "https://example.com/feed.xml?token=***&page=2");
  REQUIRE(m.redirects.size() == 2);
  CHECK(m.redirects[0] == RecordedRedirect{301, "https://example.com/old?access_token=***"});
  CHECK(m.redirects[1] == RecordedRedirect{302, "https://[2001:db8::1]:8443/feed.xml"});
  CHECK(*m.header("set-cookie") == "[not recorded]");
  CHECK(*m.header("Set-Cookie2") == "[not recorded]");
  CHECK(*m.header("authorization") == "[not recorded]");
  CHECK(*m.header("location") == "https://example.com/next?token=***&x=1");
  CHECK(*m.header("content-location") == "https://example.com/c?sig=***");
  CHECK(*m.header("etag") == "\"v1\"");
  CHECK(*m.header("x-folded") == "one  Source: forged");
  const std::string text = format_commit_message(m);
  for (const char* secret : {"pw@", "pass", "t0k3n", "xyz", "s1g", "do-not-record-me",
                             "other=secret", "Bearer", "tok@", "u:p@"}) {
    INFO(secret);
    CHECK(text.find(secret) == std::string::npos);
  }
  // A header cannot forge a trailer of its own.
  CHECK(parse_commit_message(text).source == "news");
  CHECK(message_trailers(text).size() == 4 + 1 + 2 + 10);
}

TEST_CASE("Origin-Date is Date minus Age, or Date alone, and absent without a Date", "[store]") {
  CHECK(origin_date_of({{"Date", "Thu, 01 Oct 2026 05:54:03 GMT"}}) ==
        parse_http_date("Thu, 01 Oct 2026 05:54:03 GMT"));
  CHECK(origin_date_of({{"date", "Thu, 01 Oct 2026 05:54:03 GMT"}, {"age", "x"}}) ==
        parse_http_date("Thu, 01 Oct 2026 05:54:03 GMT"));
  CHECK(origin_date_of({{"Age", "61"}}) == std::nullopt);
  CHECK(origin_date_of({{"Date", "yesterday"}}) == std::nullopt);
}

TEST_CASE("a commit message parses back into the fields it was formatted from", "[store]") {
  CommitMessage m = record_response("news", response(), 1790834044027);
  m.title = version_title("news", false, 53758, *m.status);
  CHECK(m.title == "news: changed (53758 bytes, HTTP 200)");
  const std::string text = format_commit_message(m);
  CHECK(
      text.starts_with("news: changed (53758 bytes, HTTP 200)\n\nSource: news\n"
                       "Observed-At: 2026-10-01T05:54:04.027Z\n"
                       "Origin-Date: 2026-10-01T05:53:02.000Z\nStatus: 200\n"));
  CHECK(text.find("\nRedirect: 301 https://example.com/old?access_token=***\n") !=
        std::string::npos);
  CHECK(text.find("\nResponse-Header: ETag: \"v1\"\n") != std::string::npos);
  CHECK(parse_commit_message(text) == m);
  CHECK(format_commit_message(parse_commit_message(text)) == text);

  // The bare trailer block (a fixture's response.headers) reads back the same, less the title.
  CommitMessage block = message_from_trailers(parse_trailer_block(format_trailers(m)));
  block.title = m.title;
  CHECK(block == m);

  // A message with fewer fields round-trips too.
  CommitMessage small;
  small.title = "x: added (1 bytes, HTTP 200)";
  small.status = "200";
  CHECK(parse_commit_message(format_commit_message(small)) == small);
}

TEST_CASE("the recorded-header rows come from the trailers, in the page's order", "[store]") {
  const CommitMessage m = record_response("news", response(), 1790834044027);
  const auto rows = header_rows(m);
  REQUIRE(rows.size() == recorded_header_names().size());
  CHECK(rows[0] == std::pair<std::string, std::optional<std::string>>{"observed_at",
                                                                      "2026-10-01T05:54:04.027Z"});
  CHECK(rows[2].second == "200");
  CHECK(rows[3].second == "https://example.com/feed.xml?token=***&page=2");
  CHECK(rows[4] == std::pair<std::string, std::optional<std::string>>{"etag", "\"v1\""});
  CHECK(rows[5].second == std::nullopt);  // no Last-Modified
  CHECK(rows[7].second == "61");
}

TEST_CASE("a trailer block with a line that is no trailer is no trailer block", "[store]") {
  CHECK(parse_trailer_block("Status: 200\nnot a trailer\n").empty());
  CHECK(parse_trailer_block("Status: 200\n: x\n").empty());
  CHECK(message_trailers("title only\n").empty());
  CHECK(message_trailers("t\n\nbody text\n\nStatus: 200\n").size() == 1);
}

TEST_CASE("message_trailer finds the first trailer of a key as message_trailers reads them",
          "[store]") {
  const std::string message =
      "feed-1: changed (10 bytes, HTTP 200)\n\nSource: feed-1\nStatus:  200 \nSource: other\n";
  CHECK(message_trailer(message, "Source") == "feed-1");
  CHECK(message_trailer(message, "Status") == "200");         // trimmed, as message_trailers trims
  CHECK(message_trailer(message, "source") == std::nullopt);  // keys as written
  CHECK(message_trailer(message, "Final-URL") == std::nullopt);
  // A block with a line that is no trailer has none, whatever lines come before it.
  CHECK(message_trailer("t\n\nSource: feed-1\nnot a trailer\n", "Source") == std::nullopt);
  CHECK(message_trailer("t\n\nSource: feed-1\nK\xc3\xa9y: x\n", "Source") == std::nullopt);
  CHECK(message_trailers("t\n\nSource: feed-1\nK\xc3\xa9y: x\n").empty());
  CHECK(message_trailer("Source: feed-1\n", "Source") == std::nullopt);  // a title only
  // Every trailer of a formatted message, as message_trailers has it.
  CommitMessage m;
  m.title = "feed-2: added (5 bytes, HTTP 200)";
  m.source = "feed-2";
  m.status = "200";
  m.final_url = "https://example.com/feed";
  const std::string formatted = format_commit_message(m);
  for (const Trailer& t : message_trailers(formatted)) {
    INFO(t.key);
    CHECK(message_trailer(formatted, t.key) == t.value);
  }
}

TEST_CASE("redact_recorded_url masks secret query values and keeps the rest", "[store]") {
  CHECK(redact_recorded_url("https://example.com/f?page=2&Token=a&key=b&sig=&x#frag") ==
        "https://example.com/f?page=2&Token=***&key=***&sig=&x#frag");
  CHECK(redact_recorded_url("https://example.com/f?X-Amz-Signature=abc") ==
        "https://example.com/f?X-Amz-Signature=***");
  CHECK(redact_recorded_url("https://a:b@example.com/f?monkey=1") ==
        "https://example.com/f?monkey=1");
  CHECK(redact_recorded_url("/relative?token=1") == "/relative?token=***");
}

TEST_CASE("the class, item summary and not-a-feed trailers stay one line each and read back",
          "[store]") {
  CommitMessage m = record_response("news", response(), 1790834044027);
  m.title = not_a_feed_title("news", "HTML document", 5123, "200");
  CHECK(m.title == "news: not a feed (HTML document, 5123 bytes, HTTP 200)");
  m.change_class = "not-a-feed";
  // A reason holds text from the body: a line break in it must not start a trailer.
  m.not_a_feed = "HTML document \"a\nStatus: 500\" (text/html)";
  const std::string text = format_commit_message(m);
  CHECK(text.starts_with(
      "news: not a feed (HTML document, 5123 bytes, HTTP 200)\n\nSource: news\n"
      "Change-Class: not-a-feed\nNot-A-Feed: HTML document \"a Status: 500\" (text/html)\n"));
  const CommitMessage back = parse_commit_message(text);
  CHECK(back.change_class == "not-a-feed");
  CHECK(back.not_a_feed == "HTML document \"a Status: 500\" (text/html)");
  CHECK(back.status == "200");
  CHECK_FALSE(back.item_summary);

  m.title = version_title("news", false, 10, "200");
  m.change_class = "items";
  m.item_summary = "3 added, 2 aged out, 1 changed";
  m.not_a_feed.reset();
  CHECK(parse_commit_message(format_commit_message(m)) == m);
  for (const char* title :
       {"news: added (1 bytes, HTTP 200)", "news: changed (1 bytes, HTTP 200)",
        "news: not a feed (empty body, 0 bytes, HTTP 200)", "news: restored (1 bytes, HTTP 200)"})
    CHECK(is_version_title(title, "news"));
  CHECK_FALSE(is_version_title("news: removed", "news"));
  CHECK_FALSE(is_version_title("newsy: added (1 bytes, HTTP 200)", "news"));
  CHECK(restored_title("news", 7, "200") == "news: restored (7 bytes, HTTP 200)");
}
