// The JSON and HTML faces of a change page, and the site's pages, from views built in the
// test: limits, stable bytes, escaping of everything that came from a feed.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "feeddiff/render.h"

using namespace feeddiff;
using nlohmann::json;

namespace {

// A view over two small bodies; the bodies live as long as the view's diff is used.
struct Fixture {
  std::string old_body;
  std::string new_body;
  ChangeView view;

  Fixture(std::string before, std::string after,
          std::string title = "src: changed (1 bytes, HTTP 200)")
      : old_body(std::move(before)), new_body(std::move(after)) {
    view.commit_id = "0123456789abcdef0123456789abcdef01234567";
    view.title = std::move(title);
    view.path = "raw/src/response.xml";
    view.path_status = "modified";
    view.source = "src";
    view.stored_bytes = new_body.size();
    view.timestamp_kind = "observed";
    // The rows load_change gives (recorded_header_names, in the store's message.h).
    for (const char* name :
         {"observed_at", "origin_date", "status", "final URL", "etag", "last-modified", "date",
          "age", "cache-control", "cf-cache-status", "content-encoding", "content-length"})
      view.headers.push_back({name, std::nullopt});
    view.headers[2].value = "200";
    view.diff_label = "raw";
    view.diff = diff_lines(old_body, new_body);
  }
};

std::string numbered_lines(int count, const std::string& prefix) {
  std::string out;
  for (int i = 0; i < count; ++i) out += prefix + std::to_string(i) + "\n";
  return out;
}

}  // namespace

TEST_CASE("the JSON page applies the line and character limits and reports them", "[render]") {
  Fixture f(numbered_lines(50, "old "), numbered_lines(50, "new line with some length "));
  RenderOptions options;
  options.max_lines = 10;
  options.max_line_chars = 12;
  const json doc = json::parse(render_json(f.view, options));
  CHECK(doc["lines_added"] == 50);
  CHECK(doc["lines_removed"] == 50);
  CHECK(doc["diff"]["lines_total"] == 101);
  CHECK(doc["diff"]["lines_shown"] == 10);
  CHECK(doc["diff"]["truncated"] == true);
  CHECK(doc["limits"]["max_lines"] == 10);
  CHECK(doc["limits"]["max_line_chars"] == 12);
  REQUIRE(doc["diff"]["hunks"].size() == 1);
  const auto& lines = doc["diff"]["hunks"][0]["lines"];
  REQUIRE(lines.size() == 9);
  CHECK(lines[0]["kind"] == "removed");
  CHECK(lines[0]["text"] == "old 0");
  CHECK(lines[0]["cut"] == false);
  // Removed lines come first: 9 of them fit.
  CHECK(doc["diff"]["lines_cut"] == 0);
  CHECK(doc["diff"]["footer"].get<std::string>().find("stops at 10 lines (101 in all)") !=
        std::string::npos);

  options.max_lines = 400;
  const json all = json::parse(render_json(f.view, options));
  const auto& added = all["diff"]["hunks"][0]["lines"][50];
  CHECK(added["kind"] == "added");
  CHECK(added["text"] == "new line wit");
  CHECK(added["cut"] == true);
  CHECK(all["diff"]["lines_cut"] == 50);
  CHECK(all["diff"]["truncated"] == false);
}

TEST_CASE("the JSON page is the same bytes for the same view and lists items within the limit",
          "[render]") {
  Fixture f("a\nb\n", "a\nc\n");
  ItemDiff items;
  for (int i = 0; i < 5; ++i) {
    ItemChange change;
    change.kind = i % 2 ? ItemChange::Kind::added : ItemChange::Kind::changed;
    change.id = "id" + std::to_string(i);
    change.title = "Title " + std::to_string(i);
    if (change.kind == ItemChange::Kind::changed) {
      change.fields = {"title", "link"};
      change.old_index = static_cast<std::size_t>(i);
    }
    change.new_index = static_cast<std::size_t>(i);
    items.items.push_back(change);
  }
  items.channel_fields = {"lastBuildDate"};
  f.view.items = items;
  RenderOptions options;
  options.max_items = 3;
  const std::string once = render_json(f.view, options);
  CHECK(once == render_json(f.view, options));
  const json doc = json::parse(once);
  CHECK(doc["items"]["total"] == 5);
  CHECK(doc["items"]["listed"] == 3);
  CHECK(doc["items"]["changes"].size() == 3);
  CHECK(doc["items"]["changes"][0]["kind"] == "changed");
  CHECK(doc["items"]["changes"][0]["fields"] == json::array({"title", "link"}));
  CHECK(doc["items"]["changes"][0]["old_index"] == 0);
  CHECK(doc["items"]["changes"][1]["old_index"].is_null());
  CHECK(doc["items"]["channel_fields"] == json::array({"lastBuildDate"}));
  // Items 0, 2 and 4 changed, 1 and 3 added, one channel field changed.
  CHECK(doc["items"]["summary"] == "2 added, 3 changed; channel field changed");
  CHECK(doc["limits"]["max_items"] == 3);
}

TEST_CASE("the JSON page escapes controls and bidi characters and survives invalid UTF-8",
          "[render]") {
  const std::string hostile = "t\x1b[31m\a\r\x7f \xe2\x80\xae rlo \xe2\x81\xa6 lri \xc2\x9b csi";
  Fixture f("x\n", hostile + "\nbad \xff\xfe bytes\n", "src: " + hostile);
  f.view.headers[4].value = hostile;
  const std::string out = render_json(f.view, RenderOptions{});
  for (unsigned char c : out) CHECK((c >= 0x20 || c == '\n'));
  CHECK(out.find("\xe2\x80\xae") == std::string::npos);
  CHECK(out.find("\xe2\x81\xa6") == std::string::npos);
  CHECK(out.find("\xc2\x9b") == std::string::npos);
  CHECK(out.find("\\u001b[31m\\u0007\\r\\u007f \\u202e rlo \\u2066 lri \\u009b csi") !=
        std::string::npos);
  // Parsing gives the characters back; invalid bytes became U+FFFD.
  const json doc = json::parse(out);
  CHECK(doc["title"] == "src: " + hostile);
  CHECK(doc["headers"][4]["value"] == hostile);
  CHECK(doc["diff"]["hunks"][0]["lines"][2]["text"] == "bad \xef\xbf\xbd\xef\xbf\xbd bytes");
}

TEST_CASE("the log as JSON lists each entry with its status as a number", "[render]") {
  std::vector<LogEntry> entries(2);
  entries[0] = {"0123456789abcdef0123456789abcdef01234567",
                "01234567",
                "a: changed",
                "a",
                "2026-10-01T05:03:02.000Z",
                "2026-10-01T05:54:04.027Z",
                "200"};
  entries[1] = {"1123456789abcdef0123456789abcdef01234567",
                "",
                "feeddiff: archive created",
                "",
                "2026-09-01T00:00:00.000Z",
                std::nullopt,
                std::nullopt};
  const json doc = json::parse(render_log_json(entries));
  CHECK(doc["feeddiff"] == "log");
  // Written out: a change of the schema's version must show up here as a failing test.
  CHECK(doc["version"] == 1);
  REQUIRE(doc["changes"].size() == 2);
  CHECK(doc["changes"][0]["short_id"] == "01234567");  // as given (log abbreviates as git does)
  CHECK(doc["changes"][1]["short_id"] == "1123456");   // none given: the first 7
  CHECK(doc["changes"][0]["status"] == 200);
  CHECK(doc["changes"][1]["source"].is_null());
  CHECK(doc["changes"][1]["status"].is_null());
  CHECK(doc["changes"][1]["observed_at"].is_null());
}

TEST_CASE("every piece of feed text in the HTML page is escaped and no link is a script",
          "[render]") {
  const std::string payload = "<script>alert(1)</script></style><img src=x onerror=alert(2)>\"'&";
  Fixture f("a\n", "a\n" + payload + "\n", "src: " + payload);
  f.view.headers[4].value = payload;
  f.view.forge_url = "https://github.com/o/r/commit/0123456789abcdef0123456789abcdef01234567";
  ItemDiff items;
  ItemChange change;
  change.kind = ItemChange::Kind::added;
  change.id = "x";
  change.title = payload;
  items.items.push_back(change);
  f.view.items = items;
  HtmlLinks links;
  links.raw = "javascript:alert(3)";
  links.nav = {{payload, "data:text/html,<script>alert(4)</script>"}, {"Archive", "../index.html"}};
  const std::string html = render_html(f.view, RenderOptions{}, links);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("javascript:") == std::string::npos);
  CHECK(html.find("href=\"data:") == std::string::npos);
  CHECK(html.find("</style>") == html.rfind("</style>"));
  const std::string escaped =
      "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/style&gt;&lt;img src=x onerror=alert(2)&gt;"
      "&quot;&#39;&amp;";
  CHECK(html.find("<p class=\"title\">src: " + escaped + "</p>") != std::string::npos);
  CHECK(html.find(">+" + escaped + "</div>") != std::string::npos);
  CHECK(html.find("<td class=\"mono\">" + escaped + "</td>") != std::string::npos);
  CHECK(html.find("added</span> " + escaped + "</li>") != std::string::npos);
  CHECK(html.find(
            "<a href=\"https://github.com/o/r/commit/0123456789abcdef0123456789abcdef01234567\">"
            "commit on GitHub</a>") != std::string::npos);
  CHECK(html.find("<a href=\"../index.html\">Archive</a>") != std::string::npos);
  CHECK(html.find("Content-Security-Policy") < html.find("<style>"));
}

TEST_CASE("the HTML page shows controls and bidi overrides as visible escapes", "[render]") {
  Fixture f("a\n", "a\nx\x1b[2J\a\r\xe2\x80\xae\n", "t\x1b]0;x\a");
  const std::string html = render_html(f.view, RenderOptions{});
  for (unsigned char c : html) CHECK((c >= 0x20 || c == '\n'));
  CHECK(html.find("\xe2\x80\xae") == std::string::npos);
  CHECK(html.find("+x\\x1b[2J\\x07\\x0d\\u202e") != std::string::npos);
  CHECK(html.find("t\\x1b]0;x\\x07") != std::string::npos);
}

TEST_CASE("the site's pages escape names and titles, and the Atom feed has an entry per change",
          "[render]") {
  SiteChange change;
  change.id = "0123456789abcdef0123456789abcdef01234567";
  change.title = "a<b>: changed";
  change.source = "a<b>";
  change.observed_at = "2026-10-01T05:54:04.027Z";
  change.added = 1234;
  change.removed = 5;
  change.items = "1 added & 2 <moved>";
  change.href = "changes/" + change.id + ".html";
  SiteChange older = change;
  older.id = "1123456789abcdef0123456789abcdef01234567";
  older.href = "changes/" + older.id + ".html";
  older.observed_at = "2026-09-30T05:54:04.027Z";
  SiteSource source;
  source.name = "a<b>";
  source.url = "javascript:alert(1)";
  source.status = "failed: <oops>";
  source.changes = {change, older};
  source.href = "sources/x.html";

  const std::string index = render_site_index({source}, {change, older});
  CHECK(index.find("<script") == std::string::npos);
  CHECK(index.find("a&lt;b&gt;") != std::string::npos);
  CHECK(index.find("failed: &lt;oops&gt;") != std::string::npos);
  CHECK(index.find("<td class=\"num\">2</td>") != std::string::npos);
  CHECK(index.find("href=\"" + change.href + "\"") != std::string::npos);

  const std::string page = render_source_page(source);
  CHECK(page.find("href=\"javascript:") == std::string::npos);
  CHECK(page.find("href=\"../" + older.href + "\"") != std::string::npos);
  CHECK(page.find("+1,234") != std::string::npos);
  CHECK(page.find("1 added &amp; 2 &lt;moved&gt;") != std::string::npos);

  const std::string atom =
      render_site_atom({change, older}, "urn:feeddiff:archive:x", "https://example.org/feeds/");
  CHECK(atom.find("<id>urn:feeddiff:commit:" + change.id + "</id>") != std::string::npos);
  CHECK(atom.find("<id>urn:feeddiff:commit:" + older.id + "</id>") != std::string::npos);
  CHECK(atom.find("<updated>2026-10-01T05:54:04.027Z</updated>") <
        atom.find("<entry>"));  // the feed's time is its newest change's
  CHECK(atom.find("href=\"https://example.org/feeds/" + change.href + "\"") != std::string::npos);
  CHECK(atom.find("<title>a&lt;b&gt;: changed</title>") != std::string::npos);
  std::size_t entries = 0;
  for (std::size_t at = 0; (at = atom.find("<entry>", at)) != std::string::npos; ++at) ++entries;
  CHECK(entries == 2);
}

TEST_CASE("render_change picks the page by its format's name, text for any other", "[render]") {
  Fixture f("<a/>\n", "<b/>\n");
  RenderOptions options;
  CHECK(render_change(f.view, options, "json") == render_json(f.view, options));
  CHECK(render_change(f.view, options, "markdown") == render_markdown(f.view, options));
  HtmlLinks links;
  links.raw = "https://example.com/raw";
  const std::string html = render_change(f.view, options, "html", links);
  CHECK(html == render_html(f.view, options, links));
  CHECK(html.find("https://example.com/raw") != std::string::npos);
  options.color = true;
  CHECK(render_change(f.view, options, "text") == render_text(f.view, options));
  CHECK(render_change(f.view, options, "anything") == render_text(f.view, options));
}
