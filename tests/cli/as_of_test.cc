// `diff A B NAME` and `show C NAME` mean NAME as of A, B or C, whichever commits changed it,
// in an archive of several sources polled for real: `show NAME`, `diff A B` without NAME
// (one source differs, several do: the list and exit 2, or --all), a source added after A,
// the README's `diff HEAD~5 HEAD NAME`, and each error one line with exit 2. Then removals
// classified end to end: a feed that grows by 3 items a poll with a 20-item window ages
// items out, an item pulled from the middle is removed (show, log --items, history).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// An RSS feed of the items with these numbers, newest first, each dated an hour after the
// one before.
std::string feed_of(const std::vector<int>& numbers) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>\n";
  for (int n : numbers)
    body += fmt::format(
        "<item><title>Post {0}</title><guid>item-{0}</guid>"
        "<pubDate>Tue, {1:02} Dec 2026 {2:02}:00:00 +0000</pubDate></item>\n",
        n, 1 + n / 24, n % 24);
  return body + "</channel></rss>\n";
}

// The window of `size` items ending at item `newest`, newest first.
std::vector<int> window(int newest, int size) {
  std::vector<int> out;
  for (int n = newest; n > newest - size && n >= 0; --n) out.push_back(n);
  return out;
}

void poll_now(CliArchive& archive, const std::string& now) {
  archive.set_now(now);
  auto r = archive({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

std::string rev(const CliArchive& archive, const std::string& what) {
  auto r = archive.git({"rev-parse", what});
  REQUIRE(r.exit_code == 0);
  return r.out.substr(0, 40);
}

// An error as the CLI reports it: one line on stderr, exit 2.
void check_one_line_error(const RunResult& r, const std::string& says) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.starts_with("feeddiff: error: "));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(says) != std::string::npos);
}

// alpha and beta polled; then alpha changes alone, then beta alone; then gamma is added.
struct TwoSources {
  std::string alpha = feed_of({2, 1}), beta = feed_of({12, 11}), gamma = feed_of({22, 21});
  HttpServer alpha_server = serve_changing(&alpha);
  HttpServer beta_server = serve_changing(&beta);
  HttpServer gamma_server = serve_changing(&gamma);
  CliArchive archive{"as-of"};
  std::string first;     // the first poll's last commit: alpha v1 and beta v1
  std::string alpha_v2;  // alpha's second version
  std::string beta_v2;   // beta's second version

  TwoSources() {
    REQUIRE(archive({"add", "alpha", alpha_server.url("/feed")}).exit_code == 0);
    REQUIRE(archive({"add", "beta", beta_server.url("/feed")}).exit_code == 0);
    poll_now(archive, "2026-10-01T06:00:00.000Z");
    first = rev(archive, "HEAD");
    alpha = feed_of({3, 2, 1});
    poll_now(archive, "2026-10-01T07:00:00.000Z");
    alpha_v2 = rev(archive, "HEAD");
    beta = feed_of({13, 12, 11});
    poll_now(archive, "2026-10-01T08:00:00.000Z");
    beta_v2 = rev(archive, "HEAD");
    REQUIRE(first != alpha_v2);
    REQUIRE(alpha_v2 != beta_v2);
  }
};

}  // namespace

TEST_CASE("diff A B NAME compares NAME as of A and B, whichever commits changed it", "[cli]") {
  TwoSources s;
  // HEAD changed beta, not alpha: alpha as of each commit all the same.
  auto r = s.archive({"diff", s.first, "HEAD", "alpha"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Items: 1 added") != std::string::npos);
  CHECK(r.out.find("Post 3") != std::string::npos);
  CHECK(r.out.find("Post 13") == std::string::npos);  // nothing of beta
  // The page is that of alpha's latest change at or before B.
  CHECK(r.out.find(s.alpha_v2.substr(0, 7)) != std::string::npos);

  // Both commits after alpha's last change: alpha is the same in each.
  r = s.archive({"diff", "HEAD~1", "HEAD", "alpha"});
  CHECK(r.exit_code == 0);

  // The README's example: HEAD~5 is before alpha's first version (it compares with nothing).
  r = s.archive({"diff", "HEAD~5", "HEAD", "alpha"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Items: 3 added") != std::string::npos);

  // A source added after A: every item added.
  s.archive({"add", "gamma", s.gamma_server.url("/feed")});
  poll_now(s.archive, "2026-10-01T09:00:00.000Z");
  r = s.archive({"diff", s.first, "HEAD", "gamma", "--format", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["items"]["summary"].get<std::string>().starts_with("2 added"));

  // In neither commit: one line, exit 2.
  check_one_line_error(s.archive({"diff", s.first, "HEAD", "nosuch"}),
                       "source 'nosuch' is in neither commit");
}

TEST_CASE("diff A B NAME finds NAME across a move between layouts and from XML to JSON", "[cli]") {
  TwoSources s;
  auto r = s.archive({"migrate", "--layout", "fanout"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // The move is no change: alpha as of the first poll (flat) against HEAD (fanned out).
  r = s.archive({"diff", s.first, "HEAD", "alpha"});
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Items: 1 added") != std::string::npos);
  r = s.archive({"diff", "HEAD~1", "HEAD"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("No source differs") != std::string::npos);
  CHECK(s.archive({"show", "HEAD", "alpha"}).out == s.archive({"show", s.alpha_v2}).out);

  // alpha turns into a JSON Feed with one more item.
  s.alpha = R"({"version": "https://jsonfeed.org/version/1.1", "title": "Feed", "items": [
    {"id": "item-4", "title": "Post 4"}, {"id": "item-3", "title": "Post 3"},
    {"id": "item-2", "title": "Post 2"}, {"id": "item-1", "title": "Post 1"}]})";
  poll_now(s.archive, "2026-10-01T09:00:00.000Z");
  r = s.archive({"diff", s.first, "HEAD", "alpha"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("response.json") != std::string::npos);
  CHECK(r.out.find("Items: 2 added") != std::string::npos);
}

TEST_CASE("diff A B without NAME takes the one source that differs, else lists them", "[cli]") {
  TwoSources s;
  // Only beta differs between alpha's second version and HEAD.
  auto r = s.archive({"diff", s.alpha_v2, "HEAD"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("Post 13") != std::string::npos);
  CHECK(r.out.find("Source") != std::string::npos);
  CHECK(r.out.find("beta") != std::string::npos);

  // Both differ since the first poll: each named with its summary, then a usage error.
  r = s.archive({"diff", s.first, "HEAD"});
  INFO(r.out << r.err);
  check_one_line_error(r, "2 sources differ");
  CHECK(r.err.find("NAME") != std::string::npos);
  CHECK(r.out == "alpha: 1 added\nbeta: 1 added\n");

  // --all: each page, alpha then beta.
  r = s.archive({"diff", s.first, "HEAD", "--all"});
  CHECK(r.exit_code == 1);
  const auto at_alpha = r.out.find("Post 3");
  const auto at_beta = r.out.find("Post 13");
  CHECK(at_alpha != std::string::npos);
  CHECK(at_beta != std::string::npos);
  CHECK(at_alpha < at_beta);

  // Nothing differs.
  r = s.archive({"diff", "HEAD", "HEAD"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("No source differs") != std::string::npos);
}

TEST_CASE("show C NAME is NAME's latest change at or before C, show NAME its latest", "[cli]") {
  TwoSources s;
  const std::string alpha_page = s.archive({"show", s.alpha_v2}).out;
  REQUIRE_FALSE(alpha_page.empty());
  // HEAD changed beta: alpha's latest change at or before it is alpha_v2.
  auto r = s.archive({"show", "HEAD", "alpha"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == alpha_page);
  r = s.archive({"show", "alpha"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == alpha_page);
  // A commit that changed the source is itself.
  r = s.archive({"show", s.alpha_v2, "alpha"});
  CHECK(r.out == alpha_page);
  // Before alpha_v2: the first version.
  r = s.archive({"show", "HEAD~2", "alpha"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("alpha: added") != std::string::npos);
  // The same with the index gone (it is rebuilt) and with no index at all to ask.
  std::filesystem::remove_all(s.archive.dir() + "/.git/feeddiff/index");
  CHECK(s.archive({"show", "HEAD", "alpha"}).out == alpha_page);

  check_one_line_error(s.archive({"show", "nosuch"}), "unknown commit or source 'nosuch'");
  check_one_line_error(s.archive({"show", "HEAD", "nosuch"}), "has no change at or before");
  check_one_line_error(s.archive({"show", "no/such"}), "unknown commit or source 'no/such'");
  check_one_line_error(s.archive({"show", "HEAD~4", "alpha"}), "has no change at or before");

  // A source named as the branch is: `show WORD` is ambiguous, `show HEAD WORD` the source.
  std::string branch = s.archive.git({"rev-parse", "--abbrev-ref", "HEAD"}).out;
  branch.erase(branch.find_last_not_of('\n') + 1);
  REQUIRE(s.archive({"add", branch, s.alpha_server.url("/feed")}).exit_code == 0);
  poll_now(s.archive, "2026-10-01T09:00:00.000Z");
  check_one_line_error(s.archive({"show", branch}), "names both a commit and a source");
  r = s.archive({"show", "HEAD", branch});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(branch + ": added") != std::string::npos);
}

TEST_CASE("a feed growing by 3 items a poll ages items out; one pulled from the middle is removed",
          "[cli]") {
  std::string body = feed_of(window(19, 20));
  HttpServer server = serve_changing(&body);
  CliArchive archive{"aged-out"};
  REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
  poll_now(archive, "2026-10-01T06:00:00.000Z");
  for (int poll = 1; poll <= 10; ++poll) {
    body = feed_of(window(19 + 3 * poll, 20));
    poll_now(archive, fmt::format("2026-10-01T{:02}:00:00.000Z", 6 + poll));
    auto r = archive({"show"});
    INFO(r.out << r.err);
    CHECK(r.out.find("Items: 3 added, 3 aged out\n") != std::string::npos);
  }
  // Item 30 (of 30..49) pulled while older ones stay.
  std::vector<int> pulled = window(49, 20);
  std::erase(pulled, 40);
  body = feed_of(pulled);
  poll_now(archive, "2026-10-01T17:00:00.000Z");
  auto text = archive({"show"});
  INFO(text.out << text.err);
  CHECK(text.out.find("Items: 1 removed\n") != std::string::npos);
  CHECK(text.out.find("removed  Post 40") != std::string::npos);

  auto json = archive({"show", "--format", "json"});
  const auto doc = nlohmann::json::parse(json.out);
  REQUIRE(doc["items"]["changes"].size() == 1);
  CHECK(doc["items"]["changes"][0]["kind"] == "removed");
  CHECK(doc["items"]["changes"][0]["aged_out"] == false);
  json = archive({"show", "HEAD~1", "--format", "json"});
  const auto aged = nlohmann::json::parse(json.out);
  for (const auto& c : aged["items"]["changes"]) {
    if (c["kind"] == "removed") CHECK(c["aged_out"] == true);
    if (c["kind"] != "removed") CHECK(c["aged_out"].is_null());
  }

  // Every removal of the 10 polls aged out; log --items says so line by line.
  auto log = archive({"log", "news", "--items"});
  INFO(log.out);
  std::size_t aged_lines = 0, removed_lines = 0;
  for (std::size_t at = 0; (at = log.out.find("aged out", at)) != std::string::npos; ++at)
    ++aged_lines;
  for (std::size_t at = 0; (at = log.out.find(" removed ", at)) != std::string::npos; ++at)
    ++removed_lines;
  CHECK(aged_lines == 30);
  CHECK(removed_lines == 1);

  // history: item 0 aged out, item 40 was removed.
  auto h = archive({"history", "news", "item-0", "--format", "json"});
  INFO(h.out << h.err);
  const auto life = nlohmann::json::parse(h.out)["item"];
  CHECK(life["events"].back()["kind"] == "removed");
  CHECK(life["events"].back()["aged_out"] == true);
  auto h_text = archive({"history", "news", "item-0"});
  CHECK(h_text.out.find("aged out") != std::string::npos);
  auto pulled_life = nlohmann::json::parse(
      archive({"history", "news", "item-40", "--format", "json"}).out)["item"];
  CHECK(pulled_life["events"].back()["aged_out"] == false);
}

TEST_CASE("a moment given with --at picks the version in force at, just before and after a change",
          "[cli]") {
  TwoSources s;  // alpha observed at 06:00 and 07:00, beta at 06:00 and 08:00
  const std::string alpha_v1 = feed_of({2, 1}), alpha_v2 = feed_of({3, 2, 1});
  auto cat_at = [&](const std::string& when, const std::string& source = "alpha") {
    auto r = s.archive({"cat", "--at", when, source});
    INFO(when << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
  };
  CHECK(cat_at("2026-10-01T06:00:00Z") == alpha_v1);
  CHECK(cat_at("2026-10-01T06:59:59.999Z") == alpha_v1);
  CHECK(cat_at("2026-10-01T07:00:00Z") == alpha_v2);  // at the change itself
  CHECK(cat_at("2026-10-01T07:00:01Z") == alpha_v2);
  CHECK(cat_at("2026-10-01T08:00+01:00") == alpha_v2);  // 07:00 UTC
  CHECK(cat_at("2026-10-01T07:59:59Z", "beta") == feed_of({12, 11}));
  CHECK(cat_at("2026-10-02", "beta") == feed_of({13, 12, 11}));
  // A time ago counts from now (FEEDDIFF_NOW here).
  s.archive.set_now("2026-10-15T06:30:00.000Z");
  CHECK(cat_at("2 weeks ago") == alpha_v1);
  CHECK(cat_at("13 days ago") == alpha_v2);

  // show, items and history at a moment; diff between two.
  auto show = s.archive({"show", "--at", "2026-10-01T07:30Z", "alpha"});
  INFO(show.err);
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find(s.alpha_v2.substr(0, 7)) != std::string::npos);
  auto items = s.archive({"items", "--at", "2026-10-01T06:30Z", "alpha"});
  REQUIRE(items.exit_code == 0);
  CHECK(items.out.find("Post 2") != std::string::npos);
  CHECK(items.out.find("Post 3") == std::string::npos);
  auto history = s.archive({"history", "alpha", "--at", "2026-10-01T06:30Z"});
  REQUIRE(history.exit_code == 0);
  CHECK(history.out.find("Post 2") != std::string::npos);
  CHECK(history.out.find("Post 3") == std::string::npos);
  CHECK(s.archive({"history", "alpha"}).out.find("Post 3") != std::string::npos);
  auto diff =
      s.archive({"diff", "alpha", "--from", "2026-10-01T06:30Z", "--to", "2026-10-01T07:30Z"});
  INFO(diff.out << diff.err);
  CHECK(diff.exit_code == 1);
  CHECK(diff.out.find("Items: 1 added") != std::string::npos);
  CHECK(diff.out.find("Post 3") != std::string::npos);
  CHECK(s.archive({"diff", "beta", "--from", "2026-10-01T06:30Z", "--to", "2026-10-01T07:30Z"})
            .exit_code == 0);
  CHECK(s.archive({"diff", "beta", "--from", "2026-10-01T06:30Z"}).exit_code == 1);  // to now
}

TEST_CASE("a moment before the first version, or no time at all, is a one-line error", "[cli]") {
  TwoSources s;
  check_one_line_error(s.archive({"cat", "--at", "2026-10-01", "alpha"}),
                       "had no version yet at 2026-10-01T00:00:00.000Z: its first was observed "
                       "at 2026-10-01T06:00:00.000Z");
  check_one_line_error(s.archive({"show", "--at", "2026-10-01T05:59:59Z", "beta"}),
                       "had no version yet");
  check_one_line_error(s.archive({"cat", "--at", "last tuesday", "alpha"}), "ISO 8601");
  check_one_line_error(s.archive({"cat", "--at", "2026-10-02", "HEAD", "alpha"}),
                       "--at takes the place of COMMIT");
  check_one_line_error(s.archive({"cat", "--at", "2026-10-02"}), "--at needs the source");
  check_one_line_error(s.archive({"items", "--at", "2026-10-02", "nosuch"}), "nosuch");
  check_one_line_error(s.archive({"diff", "alpha", "--to", "2026-10-02"}), "--to needs --from");
  check_one_line_error(s.archive({"history", "alpha", "--at", "2026-09-30"}), "had no version");
}
