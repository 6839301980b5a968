// The change page leads with what changed: items, then the diff, then the recorded headers
// (only those the server sent); CRLF feeds show their diff lines as lines.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "feeddiff/render.h"
#include "support/process.h"

using namespace feeddiff;
using feeddiff::test::corpus_path;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A change with one added item, a one-line diff and the headers a response had: those it
// lacked have no value, as the commit message's rows give them.
ChangeView sample_view() {
  ChangeView view;
  view.commit_id = std::string(40, 'a');
  view.title = "s: changed (10 bytes, HTTP 200)";
  view.path = "raw/s/response.xml";
  view.path_status = "modified";
  view.source = "s";
  view.diff_label = "raw";
  view.headers = {{"observed_at", "2026-10-01T05:54:04.027Z"},
                  {"status", "200"},
                  {"age", std::nullopt},
                  {"cf-cache-status", std::nullopt},
                  {"content-type", "application/rss+xml"},
                  {"server", "nginx"}};
  ItemDiff items;
  ItemChange added;
  added.kind = ItemChange::Kind::added;
  added.id = "x";
  added.title = "Fresh item";
  items.items.push_back(added);
  view.items = items;
  return view;
}

}  // namespace

TEST_CASE("the change page lists the items and the diff before the recorded headers", "[render]") {
  static const std::string kOld = "<a>one</a>\n", kNew = "<a>two</a>\n";
  ChangeView view = sample_view();
  view.diff = diff_lines(kOld, kNew);
  const RenderOptions options;
  struct Page {
    std::string name, text, items, diff, headers, null_row;
  };
  const Page pages[] = {
      {"text", render_text(view, options), "Items: 1 added", "+<a>two</a>", "Recorded headers",
       "null\n"},
      {"markdown", render_markdown(view, options), "### Items", "### Diff", "### Recorded headers",
       "| null |"},
      {"html", render_html(view, options), "<section id=\"items\">", "<section id=\"diff\">",
       "<section id=\"headers\">", ">null<"},
  };
  for (const Page& page : pages) {
    INFO(page.name);
    const auto items = page.text.find(page.items);
    const auto diff = page.text.find(page.diff);
    const auto headers = page.text.find(page.headers);
    REQUIRE(items != std::string::npos);
    REQUIRE(diff != std::string::npos);
    REQUIRE(headers != std::string::npos);
    CHECK(items < diff);
    CHECK(diff < headers);
    // Only what the server sent: no `null` rows, and Content-Type and Server are there.
    CHECK(page.text.find(page.null_row) == std::string::npos);
    CHECK(page.text.find("cf-cache-status") == std::string::npos);
    CHECK(page.text.find("application/rss+xml") > headers);
    CHECK(page.text.find("nginx") != std::string::npos);
  }
  // The HTML page folds the headers; JSON keeps every row, the unsent ones as null.
  CHECK(render_html(view, options).find("<details>\n<summary><h2>Recorded headers") !=
        std::string::npos);
  const std::string page_json = render_json(view, options);
  const auto age = page_json.find("\"name\": \"age\"");
  REQUIRE(age != std::string::npos);
  CHECK(page_json.substr(age, 60).find("\"value\": null") != std::string::npos);
}

TEST_CASE("the markdown header table has a header row of its own", "[render]") {
  const std::string page = render_markdown(sample_view(), {});
  CHECK(page.find("### Recorded headers\n\n| header | value |\n|---|---|\n"
                  "| observed\\_at | 2026-10-01T05:54:04.027Z |\n") != std::string::npos);
}

TEST_CASE("a kind label on the HTML page never wraps inside its word", "[render]") {
  ChangeView view = sample_view();
  view.items->items.front().kind = ItemChange::Kind::reappeared;
  const std::string page = render_html(view, {});
  REQUIRE(page.find("<span class=\"kind reappeared\">reappeared</span>") != std::string::npos);
  const auto rule = page.find(".kind{");
  REQUIRE(rule != std::string::npos);
  const std::string css = page.substr(rule, page.find('}', rule) - rule);
  CHECK(css.find("white-space:nowrap") != std::string::npos);
}

TEST_CASE("a CRLF feed's diff lines end as lines, with no \\x0d on each", "[render]") {
  // Two versions of a real CRLF feed (OTC Markets, as the trial polled it).
  const std::string before = read_all(corpus_path("history-otc-markets/0001.xml"));
  const std::string after = read_all(corpus_path("history-otc-markets/0002.xml"));
  REQUIRE(before.find("\r\n") != std::string::npos);
  ChangeView view = sample_view();
  view.items.reset();
  view.diff = diff_lines(before, after);
  REQUIRE(view.diff.added > 0);
  RenderOptions options;
  options.max_line_chars = 100000;
  for (const std::string& page :
       {render_text(view, options), render_markdown(view, options), render_html(view, options)}) {
    CHECK(page.find("\\x0d") == std::string::npos);
    CHECK(page.find('\r') == std::string::npos);
  }
  // JSON keeps the bytes: the CR is in each line's text, JSON-escaped.
  CHECK(render_json(view, options).find("\\r\"") != std::string::npos);
}

TEST_CASE("a CR that ends no line stays escaped", "[render]") {
  ChangeView view = sample_view();
  static const std::string kOld = "a\rb\r\n", kNew = "a\rc\r\n";
  view.diff = diff_lines(kOld, kNew);
  const std::string page = render_text(view, {});
  CHECK(page.find("\n-a\\x0db\n") != std::string::npos);
  CHECK(page.find("\n+a\\x0dc\n") != std::string::npos);
}
