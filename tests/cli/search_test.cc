// feeddiff search end to end: a feed polled for real from the scripted server, a phrase that
// came and went, the text and JSON pages, feed text escaped in both, hostile queries refused
// in one line, and the index rebuilt (with one line on stderr) when deleted or truncated.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/render_helpers.h"
#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

std::string feed_of(const std::vector<std::pair<std::string, std::string>>& items, int built) {
  std::string body = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>"
      "<lastBuildDate>{}</lastBuildDate>\n",
      built);
  for (const auto& [title, text] : items)
    body += fmt::format(
        "<item><title>{0}</title><guid>{0}</guid><description>{1}</description></item>\n", title,
        text);
  return body + "</channel></rss>\n";
}

void poll_at(CliArchive& archive, const std::string& now) {
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

void check_one_line_error(const RunResult& r, const std::string& says) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.starts_with("feeddiff: error: "));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.find(says) != std::string::npos);
  CHECK(r.err.find("SQL") == std::string::npos);
  CHECK(r.err.find("fts5") == std::string::npos);
}

// news polled seven times an hour apart: "open weights" in the post from the 3rd poll to the
// 6th, edited out by the 7th.
struct Polled {
  std::string body;
  HttpServer server = serve_changing(&body);
  CliArchive archive{"search"};
  std::vector<std::string> versions;

  Polled() {
    REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
    for (int v = 1; v <= 7; ++v) {
      const std::string text = v >= 3 && v <= 6 ? "we release open weights today" : "we release";
      body = feed_of({{"Post", text}, {"Other", "nothing new"}}, v);
      poll_at(archive, fmt::format("2026-10-01T{:02}:00:00.000Z", 5 + v));
      versions.push_back(rev(archive, "HEAD"));
    }
  }
};

}  // namespace

TEST_CASE("search says when a phrase appeared and when it was gone, as text and as JSON", "[cli]") {
  Polled p;
  auto r = p.archive({"search", "\"open weights\""});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // The first search built the index, and said so in one line.
  CHECK(r.err == "feeddiff: search index missing: built it from the history\n");
  CHECK(r.out.find("news: Post\n") == 0);
  CHECK(r.out.find(fmt::format(
            "  matched  2026-10-01T08:00:00.000Z ({}) to 2026-10-01T11:00:00.000Z "
            "({}), 4 versions\n",
            p.versions[2].substr(0, 7), p.versions[5].substr(0, 7))) != std::string::npos);
  CHECK(
      r.out.find(fmt::format("  gone     2026-10-01T12:00:00.000Z ({}): the item's text changed\n",
                             p.versions[6].substr(0, 7))) != std::string::npos);
  CHECK(r.out.find("we release **open weights** today") != std::string::npos);
  CHECK(r.out.ends_with("1 hit.\n"));

  r = p.archive({"search", "nothing", "--format", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());  // the index was up to date
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(schema_validator("search.schema.json").validate(doc).empty());
  CHECK(doc["feeddiff"] == "search");
  CHECK(doc["version"] == 1);
  CHECK(doc["index"] == p.versions.back());
  REQUIRE(doc["hits"].size() == 1);
  const auto& hit = doc["hits"][0];
  CHECK(hit["source"] == "news");
  CHECK(hit["item"]["id"] == "Other");
  CHECK(hit["first"]["commit"] == p.versions.front());
  CHECK(hit["last"]["commit"] == p.versions.back());
  CHECK(hit["versions"] == 7);
  CHECK(hit["gone"].is_null());
  CHECK(hit["snippet"][0]["text"] == "nothing");
  CHECK(hit["snippet"][0]["match"] == true);

  // Filters: another source is refused, --until before the phrase finds nothing.
  check_one_line_error(p.archive({"search", "weights", "--source", "gone"}), "gone");
  r = p.archive({"search", "weights", "--until", "2026-10-01T07:30:00Z"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == "No match.\n");
  r = p.archive({"search", "--source", "news", "weights", "--since", "2026-10-01T11:30:00Z",
                 "--source", "news"});
  CHECK(r.out.find("news: Post") != std::string::npos);
  // A hit that is gone, against the schema too.
  r = p.archive({"search", "weights", "--format", "json"});
  const auto gone = nlohmann::json::parse(r.out);
  CHECK(schema_validator("search.schema.json").validate(gone).empty());
  CHECK(gone["hits"][0]["gone"]["commit"] == p.versions[6]);
  CHECK(gone["hits"][0]["gone_because"] == "edited");
}

TEST_CASE("search escapes feed text on the terminal and in JSON", "[cli]") {
  // A JSON Feed: XML cannot carry these characters at all (normalize drops them).
  std::string body = R"({"version": "https://jsonfeed.org/version/1.1", "title": "F", "items": [
    {"id": "evil", "title": "Evil \u001b]0;owned\u0007 \u001b[31mred \u202eecalp",
     "content_text": "a \u001b[2J clear screen"}]})";
  HttpServer server = serve_changing(&body);
  CliArchive archive{"search-escape"};
  REQUIRE(archive({"add", "evil", server.url("/feed")}).exit_code == 0);
  poll_at(archive, "2026-10-01T06:00:00.000Z");

  for (const char* color : {"never", "always"}) {
    auto r = archive({"--color", color, "search", "clear OR red"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Control characters never reach the index (each is a space there); what is left that
    // a terminal would act on, a bidi override, is escaped.
    CHECK(r.out.find("Evil  ]0;owned   [31mred \\u202eecalp") != std::string::npos);
    CHECK(r.out.find("a  [2J ") != std::string::npos);
    // The only escape sequences are feeddiff's own bold, with colour.
    std::string rest = r.out;
    for (const char* own : {"\x1b[1m", "\x1b[0m"})
      for (std::size_t at; (at = rest.find(own)) != std::string::npos;) rest.erase(at, 4);
    CHECK(rest.find('\x1b') == std::string::npos);
    CHECK(rest.find('\x07') == std::string::npos);
  }
  auto r = archive({"search", "clear", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["hits"][0]["item"]["title"] ==
        "Evil  ]0;owned   [31mred \u202e"
        "ecalp");
  CHECK(doc["hits"][0]["snippet"][1]["text"] == "clear");
}

TEST_CASE("a hostile search query is one line on stderr and exit 2, never SQL", "[cli]") {
  CliArchive archive{"search-hostile"};
  check_one_line_error(archive({"search", "\"a\" OR *"}), "'*' must end a word");
  check_one_line_error(archive({"search", "NEAR("}), "'(' is never closed");
  check_one_line_error(archive({"search", "\"open weights"}), "never ends");
  check_one_line_error(archive({"search", "title:x OR"}), "OR needs something");
  check_one_line_error(archive({"search", "NOT x"}), "NOT needs something");
  // As long as an argument may be (128 KiB): refused before anything is read.
  check_one_line_error(archive({"search", std::string(100'000, 'x')}),
                       "100000 bytes; at most 1024");
  check_one_line_error(archive({"search", "x", "--since", "someday"}), "someday");
  check_one_line_error(archive({"search", "x", "--source", "../etc"}), "../etc");
  // Quoted, FTS5's syntax is only text: no error, no match.
  auto r = archive({"search", "a:b ^c +d NEAR/2 e\"\"f"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "No match.\n");
}

TEST_CASE("search rebuilds a deleted or truncated index with one line, and follows a reset",
          "[cli]") {
  Polled p;
  REQUIRE(p.archive({"search", "weights"}).exit_code == 0);
  const std::string index = p.archive.dir() + "/.git/feeddiff/cache/search.sqlite";
  REQUIRE(std::filesystem::exists(index));
  const std::string before = p.archive({"search", "release"}).out;

  std::filesystem::resize_file(index, std::filesystem::file_size(index) / 3);
  auto r = p.archive({"search", "release"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.starts_with("feeddiff: search index unreadable ("));
  CHECK(r.out == before);

  std::filesystem::remove(index);
  r = p.archive({"search", "release"});
  CHECK(r.err == "feeddiff: search index missing: built it from the history\n");
  CHECK(r.out == before);

  // Back to the 2nd version: the phrase never appeared, and the post is still there.
  REQUIRE(p.archive.git({"reset", "-q", "--hard", p.versions[1]}).exit_code == 0);
  r = p.archive({"search", "weights"});
  CHECK(r.err.empty());
  CHECK(r.out == "No match.\n");
  r = p.archive({"search", "release", "--format", "json"});
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["hits"].size() == 1);
  CHECK(doc["hits"][0]["last"]["commit"] == p.versions[1]);
  CHECK(doc["hits"][0]["gone"].is_null());
}
