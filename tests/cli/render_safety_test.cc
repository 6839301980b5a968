// A feed is hostile until escaped: whatever bytes it carries, no page feeddiff prints puts a
// control character, an escape sequence or a bidi override on the terminal, and no HTML page
// carries the feed's markup as markup.

#include <catch2/catch.hpp>

#include "cli/hostile_change.h"
#include "cli/render_helpers.h"
#include "feeddiff/render.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

const std::string kEsc = "\x1b";
const std::string kRlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string kLri = "\xe2\x81\xa6";  // U+2066 LEFT-TO-RIGHT ISOLATE
const std::string kCsi8 = "\xc2\x9b";     // U+009B, the 8-bit CSI
const std::string kNel = "\xc2\x85";      // U+0085 NEXT LINE

// An archive whose HEAD~1 records a body that carries raw ESC sequences, a bell and carriage
// returns (not well-formed XML, so only the raw diff shows them), and whose HEAD records a
// well-formed feed whose item titles carry bidi overrides and C1 controls (so the item
// summary shows them too). The response headers carry escape sequences as well.
std::string terminal_hostile_archive() {
  const std::string dir = make_temp_dir("render-terminal") + "/archive";
  auto archive = Archive::init(dir, *parse_iso8601("2026-01-01T00:00:00Z"));
  REQUIRE(archive);
  auto feed = [](const std::string& items) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n"
           "<title>t</title>\n<link>https://example.com/</link>\n<description>d</description>\n" +
           items + "</channel>\n</rss>\n";
  };
  const std::string calm = "<item><guid>a</guid><title>calm</title></item>\n";
  const std::string raw_controls = "<item><guid>b</guid><title>" + kEsc + "[2J" + kEsc +
                                   "]0;pwned\a title" + kEsc +
                                   "[31m red\r overwritten</title>\n"
                                   "<description>bell\a\a and " +
                                   kEsc + "[1;1H home</description></item>\n";
  const std::string bidi = "<item><guid>c</guid><title>invoice " + kRlo + "fdp.exe" + kLri +
                           " and " + kCsi8 + "31m C1 " + kNel + "next</title></item>\n";
  auto commit = [&](const std::string& title, const std::string& trailers, const std::string& body,
                    const char* at) {
    CommitRequest request;
    request.message = title + "\n\nSource: term\nObserved-At: " + at + "\nStatus: 200\n" + trailers;
    request.author_time = request.commit_time = *parse_iso8601(at);
    request.files.push_back({"raw/term/response.xml", body});
    REQUIRE(archive->commit(request));
  };
  commit("term: added (1 bytes, HTTP 200)", "", feed(calm), "2026-01-01T01:00:00.000Z");
  commit("term: changed (2 bytes, HTTP 200)",
         "Response-Header: etag: \"" + kEsc + "]8;;https://evil.example/" + kEsc + "\\\"\n",
         feed(calm + raw_controls), "2026-01-01T02:00:00.000Z");
  commit("term: changed (3 bytes, HTTP 200)",
         "Response-Header: cache-control: max-age=60 " + kRlo + "reversed\n", feed(calm + bidi),
         "2026-01-01T03:00:00.000Z");
  return dir;
}

// The bytes that must never reach a terminal from a feed: C0 controls but tab and line feed,
// DEL, C1 controls (UTF-8 C2 80..9F), bidi marks, embeddings, overrides and isolates.
std::vector<std::string> unsafe_bytes(const std::string& out) {
  std::vector<std::string> found;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F)
      found.push_back("control 0x" + std::to_string(c) + " at " + std::to_string(i));
    if (c == 0xC2 && i + 1 < out.size()) {
      const auto d = static_cast<unsigned char>(out[i + 1]);
      if (d >= 0x80 && d <= 0x9F) found.push_back("C1 at " + std::to_string(i));
    }
    if (c == 0xE2 && i + 2 < out.size()) {
      const auto d = static_cast<unsigned char>(out[i + 1]);
      const auto e = static_cast<unsigned char>(out[i + 2]);
      if ((d == 0x80 && (e == 0x8E || e == 0x8F || (e >= 0xAA && e <= 0xAE))) ||
          (d == 0x81 && e >= 0xA6 && e <= 0xA9))
        found.push_back("bidi at " + std::to_string(i));
    }
  }
  return found;
}

// Removes the colour sequences feeddiff itself writes with --color always.
std::string without_own_colours(std::string out) {
  for (const char* code : {"\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[1m", "\x1b[2m", "\x1b[0m"}) {
    for (std::size_t at; (at = out.find(code)) != std::string::npos;)
      out.erase(at, std::string_view(code).size());
  }
  return out;
}

}  // namespace

TEST_CASE(
    "ESC sequences, bells, carriage returns and bidi overrides from a feed reach the "
    "text and markdown pages escaped",
    "[cli]") {
  const std::string dir = terminal_hostile_archive();
  struct Case {
    std::vector<std::string> args;
    bool colours;
  };
  const std::vector<Case> cases = {
      {{"--color", "never", "show", "HEAD~1"}, false},
      {{"--color", "always", "show", "HEAD~1"}, true},
      {{"show", "HEAD~1", "--format", "markdown"}, false},
      {{"--color", "never", "show", "HEAD"}, false},
      {{"--color", "always", "show", "HEAD"}, true},
      {{"show", "HEAD", "--format", "markdown"}, false},
      {{"show", "HEAD", "--format", "json"}, false},
      {{"show", "HEAD~1", "--format", "json"}, false},
      {{"show", "HEAD", "--format", "html"}, false},
      {{"show", "HEAD~1", "--format", "html"}, false},
      {{"log"}, false},
      {{"log", "--format", "json"}, false},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"-C", dir};
    args.insert(args.end(), c.args.begin(), c.args.end());
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    INFO(joined);
    auto r = run_feeddiff(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string out = c.colours ? without_own_colours(r.out) : r.out;
    const auto found = unsafe_bytes(out);
    CHECK(found.empty());
    if (!found.empty()) INFO(found.front());
  }

  // The escaped forms are there, so the reader sees what the feed held.
  auto raw = run_feeddiff({"-C", dir, "--color", "never", "show", "HEAD~1"});
  CHECK(raw.out.find("\\x1b[2J\\x1b]0;pwned\\x07 title\\x1b[31m red\\x0d overwritten") !=
        std::string::npos);
  CHECK(raw.out.find("bell\\x07\\x07 and \\x1b[1;1H home") != std::string::npos);
  CHECK(raw.out.find("\"\\x1b]8;;https://evil.example/\\x1b\\\"") != std::string::npos);
  auto md = run_feeddiff({"-C", dir, "show", "HEAD~1", "--format", "markdown"});
  CHECK(md.out.find("\\x1b[2J\\x1b]0;pwned\\x07 title\\x1b[31m red\\x0d overwritten") !=
        std::string::npos);
  auto bidi = run_feeddiff({"-C", dir, "--color", "never", "show", "HEAD"});
  CHECK(bidi.out.find("invoice \\u202efdp.exe\\u2066 and \\u009b31m C1 \\u0085next") !=
        std::string::npos);
  CHECK(bidi.out.find("max-age=60 \\u202ereversed") != std::string::npos);
  auto bidi_md = run_feeddiff({"-C", dir, "show", "HEAD", "--format", "markdown"});
  CHECK(bidi_md.out.find("\\u202efdp.exe\\u2066") != std::string::npos);
  // JSON keeps the text exactly, as escapes: parsing gives the feed's characters back.
  auto shown = run_feeddiff({"-C", dir, "show", "HEAD", "--format", "json"});
  CHECK(shown.out.find("\\u202efdp.exe\\u2066") != std::string::npos);
  const auto doc = nlohmann::json::parse(shown.out);
  bool title_back = false;
  for (const auto& hunk : doc["diff"]["hunks"])
    for (const auto& line : hunk["lines"])
      if (line["text"].get<std::string>().find("invoice " + kRlo + "fdp.exe" + kLri) !=
          std::string::npos)
        title_back = true;
  CHECK(title_back);
  auto raw_json = run_feeddiff({"-C", dir, "show", "HEAD~1", "--format", "json"});
  CHECK(raw_json.out.find("\\u001b[2J\\u001b]0;pwned\\u0007 title") != std::string::npos);
}

TEST_CASE("markup from a feed and its headers is escaped in every part of the HTML page", "[cli]") {
  const std::string dir = hostile_html_archive("render-html-hostile");
  auto page = run_feeddiff({"-C", dir, "show", "--format", "html"});
  INFO(page.err);
  REQUIRE(page.exit_code == 0);
  const std::string& html = page.out;
  // One script-free policy, one stylesheet (ours), no script element, no event handler.
  CHECK(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                  "style-src 'unsafe-inline'; img-src 'none'; script-src 'none';") !=
        std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<style") == html.rfind("<style"));
  CHECK(html.find("</style") == html.rfind("</style"));
  CHECK(html.find("onerror=\"") == std::string::npos);
  CHECK(html.find("href=\"javascript:") == std::string::npos);
  // The text is there, escaped.
  CHECK(html.find("&lt;script&gt;document.documentElement.setAttribute(&#39;data-pwned&#39;,"
                  "&#39;1&#39;)&lt;/script&gt;&lt;/style&gt;&lt;img src=x onerror=&quot;") !=
        std::string::npos);
  CHECK(html.find("&lt;/style&gt;&lt;style&gt;body{display:none}&lt;/style&gt;") !=
        std::string::npos);
  CHECK(html.find("javascript:alert(7)") != std::string::npos);  // shown as text, not linked
}

TEST_CASE("hostile text in a changed item's before and after stays inert in every format",
          "[cli]") {
  const std::string dir = make_temp_dir("render-before-after") + "/archive";
  auto archive = Archive::init(dir, *parse_iso8601("2026-01-01T00:00:00Z"));
  REQUIRE(archive);
  auto feed = [](const std::string& title, const std::string& content) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n"
           "<title>t</title>\n<link>https://example.com/</link>\n<description>d</description>\n"
           "<item><guid>a</guid><title>" +
           title + "</title><description>" + content +
           "</description></item>\n</channel>\n</rss>\n";
  };
  // The title is text, the description HTML whose text holds markup (escaped twice).
  const std::string evil_title =
      "calm &lt;script&gt;alert(1)&lt;/script&gt; " + kRlo + "fdp.exe " + kCsi8 + "31m" + kNel;
  const std::string evil_content =
      "&lt;p&gt;calm words &amp;lt;script&amp;gt;alert(2)&amp;lt;/script&amp;gt; " + kLri +
      "isolated " + kCsi8 + "2J here&lt;/p&gt;";
  auto commit = [&](const std::string& body, const char* at) {
    CommitRequest request;
    request.message = std::string("ba: changed (1 bytes, HTTP 200)\n\nSource: ba\nObserved-At: ") +
                      at + "\nStatus: 200\n";
    request.author_time = request.commit_time = *parse_iso8601(at);
    request.files.push_back({"raw/ba/response.xml", body});
    REQUIRE(archive->commit(request));
  };
  commit(feed("calm", "&lt;p&gt;calm words here&lt;/p&gt;"), "2026-01-01T01:00:00.000Z");
  commit(feed(evil_title, evil_content), "2026-01-01T02:00:00.000Z");

  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--color", "never", "show"},
                                             {"--color", "always", "show"},
                                             {"show", "--format", "markdown"},
                                             {"show", "--format", "json"}}) {
    std::vector<std::string> all = {"-C", dir};
    all.insert(all.end(), args.begin(), args.end());
    auto r = run_feeddiff(all);
    INFO(args[1] << " " << args.back() << "\n" << r.out);
    REQUIRE(r.exit_code == 0);
    const auto found = unsafe_bytes(args[1] == "always" ? without_own_colours(r.out) : r.out);
    CHECK(found.empty());
  }
  auto text = run_feeddiff({"-C", dir, "--color", "never", "show"});
  CHECK(text.out.find(
            "title: calm -> calm <script>alert(1)</script> \\u202efdp.exe \\u009b31m\\u0085") !=
        std::string::npos);
  CHECK(text.out.find("{+<script>alert(2)</script> \\u2066isolated \\u009b2J+}") !=
        std::string::npos);
  auto md = run_feeddiff({"-C", dir, "show", "--format", "markdown"});
  for (std::size_t at = md.out.find("<script"); at != std::string::npos;
       at = md.out.find("<script", at + 1))
    CHECK(md.out[at - 1] == '\\');  // only the escaped form, \<script\>
  CHECK(md.out.find("\\<script\\>alert(2)\\</script\\>") != std::string::npos);
  // JSON gives the characters back exactly.
  const auto doc = nlohmann::json::parse(run_feeddiff({"-C", dir, "show", "--format", "json"}).out);
  const auto& changes = doc["items"]["changes"][0]["field_changes"];
  CHECK(changes[0]["new"].get<std::string>().find("<script>alert(1)</script> " + kRlo) !=
        std::string::npos);
  auto page = run_feeddiff({"-C", dir, "show", "--format", "html"});
  REQUIRE(page.exit_code == 0);
  CHECK(page.out.find("<script") == std::string::npos);
  CHECK(
      page.out.find("<ins>&lt;script&gt;alert(2)&lt;/script&gt; \\u2066isolated \\u009b2J</ins>") !=
      std::string::npos);
  CHECK(page.out.find("<ins>calm &lt;script&gt;alert(1)&lt;/script&gt; \\u202efdp.exe") !=
        std::string::npos);
}

TEST_CASE("hostile text in both the before and the after value reaches a terminal escaped",
          "[cli]") {
  const std::string dir = both_sides_hostile_archive("render-both-sides");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--color", "never", "show"},
                                             {"--color", "always", "show"},
                                             {"show", "--format", "markdown"}}) {
    std::vector<std::string> all = {"-C", dir};
    all.insert(all.end(), args.begin(), args.end());
    auto r = run_feeddiff(all);
    INFO(args[1] << " " << args.back() << "\n" << r.out);
    REQUIRE(r.exit_code == 0);
    const auto found = unsafe_bytes(args[1] == "always" ? without_own_colours(r.out) : r.out);
    CHECK(found.empty());
  }
  // The controls reached the item model (a JSON Feed carries U+001B) and are shown visibly,
  // on both sides of the title's change and in the content's word diff.
  auto text = run_feeddiff({"-C", dir, "--color", "never", "show"});
  INFO(text.out);
  for (const char* side_name : {"before", "after"}) {
    const std::string side = side_name;
    CHECK(text.out.find(side + " <script>document.documentElement.setAttribute('data-pwned','" +
                        side + "-title')</script>") != std::string::npos);
    CHECK(text.out.find("\\x1b[2J\\x1b]0;" + side + "\\x07 \\u202efdp.exe \\u2066" + side) !=
          std::string::npos);
    CHECK(text.out.find("\\u202e" + side) != std::string::npos);
  }
  // "31mbefore" is one word (letters and digits): the ESC before it stays, visible.
  CHECK(text.out.find("\\x1b[[-31mbefore-]{+31mafter+}") != std::string::npos);
  // The JSON page gives the characters back exactly, so the escaping above is the renderer's.
  const auto doc = nlohmann::json::parse(run_feeddiff({"-C", dir, "show", "--format", "json"}).out);
  const auto& title = doc["items"]["changes"][0]["field_changes"][0];
  CHECK(title["field"] == "title");
  CHECK(title["old"] == hostile_item_title("before"));
  CHECK(title["new"] == hostile_item_title("after"));
}
