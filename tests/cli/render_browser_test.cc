// The HTML pages in a real browser: headless Chromium renders a change page and a site
// index (screenshots land in <build>/tests/screenshots/), and a hostile feed's page, loaded
// with scripts allowed by the browser, comes back from --dump-dom with no script element,
// no event handler, no javascript: link and the feed's text intact as text.
//
// CI installs Debian's chromium (scripts/deps --test); without it these tests fail.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/hostile_change.h"
#include "cli/render_helpers.h"
#include "feeddiff/render.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

std::string chromium_path() {
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(candidate, X_OK) == 0) return candidate;
  return "";
}

// Runs headless Chromium on a file with a fresh profile and no network of its own.
RunResult chromium(const std::vector<std::string>& extra, const std::string& file) {
  const std::string browser = chromium_path();
  if (browser.empty())
    FAIL("chromium is not installed (scripts/deps --test installs Debian's chromium)");
  std::vector<std::string> argv = {"timeout",
                                   "120",
                                   browser,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--no-first-run",
                                   "--disable-quic",
                                   "--disable-dev-shm-usage",
                                   "--hide-scrollbars",
                                   "--user-data-dir=" + make_temp_dir("chromium-profile")};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("file://" + std::filesystem::absolute(file).string());
  auto r = run(argv, {{"HOME", make_temp_dir("chromium-home")}});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

std::string dump_dom(const std::string& file) {
  return chromium({"--dump-dom"}, file).out;
}

// Width and height from a PNG's IHDR chunk; {0, 0} when it is no PNG.
std::pair<unsigned, unsigned> png_size(const std::string& png) {
  if (png.size() < 24 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return {0, 0};
  auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// A screenshot of the page at this window size; with dom, the same run's --dump-dom too (a
// browser start costs seconds of CPU, so one run does both).
std::string screenshot(const std::string& file, const std::string& name, unsigned width,
                       unsigned height, std::string* dom = nullptr) {
  const std::filesystem::path dir(FEEDDIFF_SCREENSHOT_DIR);
  std::filesystem::create_directories(dir);
  const std::string png = (dir / name).string();
  std::filesystem::remove(png);
  std::vector<std::string> args = {"--screenshot=" + png, "--window-size=" + std::to_string(width) +
                                                              "," + std::to_string(height)};
  if (dom) args.push_back("--dump-dom");
  auto r = chromium(args, file);
  if (dom) *dom = r.out;
  const std::string bytes = slurp(png);
  CHECK(png_size(bytes) == std::make_pair(width, height));
  return png;
}

// A small DOM read back from Chromium's serialization (which closes every non-void
// element, quotes every attribute and escapes text), enough to look at elements,
// attributes and text content.
struct Node {
  std::string name;  // "" for a text node
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;  // a text node's decoded text
  std::vector<std::unique_ptr<Node>> children;

  std::string attribute(const std::string& key) const {
    for (const auto& [k, v] : attributes)
      if (k == key) return v;
    return "";
  }
  std::string text_content() const {
    if (name.empty()) return text;
    std::string out;
    for (const auto& child : children) out += child->text_content();
    return out;
  }
  void walk(const std::function<void(const Node&)>& visit) const {
    visit(*this);
    for (const auto& child : children) child->walk(visit);
  }
  std::vector<const Node*> find(const std::function<bool(const Node&)>& match) const {
    std::vector<const Node*> out;
    walk([&](const Node& n) {
      if (match(n)) out.push_back(&n);
    });
    return out;
  }
};

std::string decode_entities(std::string_view s) {
  static const std::map<std::string, std::string> kNamed = {
      {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", "\xc2\xa0"}};
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const auto semi = s.find(';', i);
    REQUIRE(semi != std::string_view::npos);
    const std::string name(s.substr(i + 1, semi - i - 1));
    if (name.starts_with("#")) {
      const unsigned long cp = name.starts_with("#x") ? std::stoul(name.substr(2), nullptr, 16)
                                                      : std::stoul(name.substr(1));
      REQUIRE(cp < 0x80);  // the pages only escape ASCII numerically
      out += static_cast<char>(cp);
    } else {
      REQUIRE(kNamed.count(name));
      out += kNamed.at(name);
    }
    i = semi;
  }
  return out;
}

std::unique_ptr<Node> parse_dom(const std::string& html) {
  static const std::vector<std::string> kVoid = {"meta", "br",     "img", "link", "input", "hr",
                                                 "base", "source", "wbr", "area", "col",   "embed"};
  auto root = std::make_unique<Node>();
  root->name = "#document";
  std::vector<Node*> stack = {root.get()};
  std::size_t i = 0;
  auto add_text = [&](std::string_view raw) {
    if (raw.empty()) return;
    auto node = std::make_unique<Node>();
    // <style> content is raw text in the serialization.
    node->text = stack.back()->name == "style" ? std::string(raw) : decode_entities(raw);
    stack.back()->children.push_back(std::move(node));
  };
  while (i < html.size()) {
    const auto lt = html.find('<', i);
    if (stack.back()->name == "style") {
      const auto end = html.find("</style>", i);
      REQUIRE(end != std::string::npos);
      add_text(std::string_view(html).substr(i, end - i));
      i = end;
    } else {
      add_text(std::string_view(html).substr(i, (lt == std::string::npos ? html.size() : lt) - i));
      if (lt == std::string::npos) break;
      i = lt;
    }
    if (html.compare(i, 4, "<!--") == 0) {
      i = html.find("-->", i) + 3;
      continue;
    }
    if (html.compare(i, 2, "<!") == 0) {
      i = html.find('>', i) + 1;
      continue;
    }
    if (html.compare(i, 2, "</") == 0) {
      const auto gt = html.find('>', i);
      const std::string name = html.substr(i + 2, gt - i - 2);
      REQUIRE(stack.size() > 1);
      REQUIRE(stack.back()->name == name);
      stack.pop_back();
      i = gt + 1;
      continue;
    }
    // A start tag: name, then attributes, values in double quotes.
    ++i;
    auto node = std::make_unique<Node>();
    while (i < html.size() && !std::isspace(static_cast<unsigned char>(html[i])) &&
           html[i] != '>' && html[i] != '/')
      node->name += static_cast<char>(std::tolower(static_cast<unsigned char>(html[i++])));
    for (;;) {
      while (std::isspace(static_cast<unsigned char>(html[i])) || html[i] == '/') ++i;
      if (html[i] == '>') {
        ++i;
        break;
      }
      std::string key;
      while (html[i] != '=' && html[i] != '>' && !std::isspace(static_cast<unsigned char>(html[i])))
        key += static_cast<char>(std::tolower(static_cast<unsigned char>(html[i++])));
      std::string value;
      if (html[i] == '=') {
        REQUIRE(html[i + 1] == '"');
        const auto close = html.find('"', i + 2);
        value = decode_entities(std::string_view(html).substr(i + 2, close - i - 2));
        i = close + 1;
      }
      node->attributes.emplace_back(key, value);
    }
    Node* raw = node.get();
    stack.back()->children.push_back(std::move(node));
    if (std::find(kVoid.begin(), kVoid.end(), raw->name) == kVoid.end()) stack.push_back(raw);
  }
  return root;
}

bool has_class(const Node& n, const std::string& cls) {
  const std::string all = " " + n.attribute("class") + " ";
  return all.find(" " + cls + " ") != std::string::npos;
}

// Nothing in the page is markup that came from the feed: only the elements feeddiff writes,
// no event handler, no script URL, no trace of a payload having run.
void check_inert(const Node& dom, const std::string& where) {
  INFO(where);
  static const std::vector<std::string> kAllowed = {
      "#document", "html",   "head",    "meta", "title", "style",   "body",    "main", "link",
      "nav",       "header", "p",       "h1",   "h2",    "code",    "a",       "span", "dl",
      "dt",        "dd",     "section", "div",  "table", "thead",   "tbody",   "tr",   "th",
      "td",        "ul",     "li",      "del",  "ins",   "details", "summary", ""};
  std::size_t styles = 0;
  dom.walk([&](const Node& n) {
    INFO("<" << n.name << ">");
    CHECK(std::find(kAllowed.begin(), kAllowed.end(), n.name) != kAllowed.end());
    if (n.name == "style") ++styles;
    for (const auto& [key, value] : n.attributes) {
      INFO(key << "=\"" << value << "\"");
      CHECK_FALSE(key.starts_with("on"));
      CHECK(key != "data-pwned");
      CHECK(key != "src");
      CHECK(key != "style");
      std::string lower = to_lower(trim(value));
      CHECK_FALSE(lower.starts_with("javascript:"));
      CHECK_FALSE(lower.starts_with("data:"));
      if (key == "href") {
        // Relative links, or the forge over https.
        CHECK((lower.find(':') == std::string::npos || lower.starts_with("https://")));
      }
    }
  });
  CHECK(styles == 1);
  const auto csp = dom.find([](const Node& n) {
    return n.name == "meta" && n.attribute("http-equiv") == "Content-Security-Policy";
  });
  REQUIRE(csp.size() == 1);
  CHECK(csp.front()->attribute("content").starts_with("default-src 'none';"));
}

std::string html_archive_page(const std::string& dir, const std::vector<std::string>& args,
                              const std::string& name) {
  std::vector<std::string> argv = {"-C", dir};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_feeddiff(argv);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string file = make_temp_dir("browser-page") + "/" + name;
  spit(file, r.out);
  return file;
}

}  // namespace

TEST_CASE("headless Chromium renders a change page on a desktop and on a phone", "[cli]") {
  const std::string dir = recorded_render_archive("browser-shot");
  REQUIRE(run({"git", "-C", dir, "remote", "add", "origin", "https://github.com/example/feeds.git"})
              .exit_code == 0);
  const std::string page =
      html_archive_page(dir, {"show", "--format", "html", "--max-lines", "60"}, "change.html");
  std::string desktop_dom;
  screenshot(page, "change-desktop.png", 1280, 1600, &desktop_dom);
  screenshot(page, "change-phone.png", 390, 1600);

  const auto dom = parse_dom(desktop_dom);
  check_inert(*dom, "change page");
  const auto h1 = dom->find([](const Node& n) { return n.name == "h1"; });
  REQUIRE(h1.size() == 1);
  const std::string head = run({"git", "-C", dir, "rev-parse", "HEAD"}).out.substr(0, 40);
  CHECK(h1.front()->text_content() == head.substr(0, 7));
  const auto forge = dom->find([&](const Node& n) {
    return n.name == "a" &&
           n.attribute("href") == "https://github.com/example/feeds/commit/" + head;
  });
  CHECK(forge.size() == 1);
  const auto raw = dom->find([&](const Node& n) {
    return n.name == "a" && n.attribute("href") == "https://github.com/example/feeds/blob/" + head +
                                                       "/raw/openai-research/response.xml";
  });
  CHECK(raw.size() == 1);
}

TEST_CASE("headless Chromium renders the site's index and a source's page", "[cli]") {
  const std::string dir = recorded_render_archive("browser-site");
  const std::string site = make_temp_dir("browser-site-out") + "/site";
  auto r = run_feeddiff({"-C", dir, "site", site});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::string index_dom;
  screenshot(site + "/index.html", "site-index-desktop.png", 1280, 900, &index_dom);
  screenshot(site + "/index.html", "site-index-phone.png", 390, 900);
  screenshot(site + "/sources/openai-research.html", "site-source-desktop.png", 1280, 900);
  const auto dom = parse_dom(index_dom);
  check_inert(*dom, "index");
  // Every link of the index leads to a file of the site, so it works from file://.
  const auto links = dom->find([](const Node& n) { return n.name == "a"; });
  CHECK(links.size() >= 3);
  for (const Node* a : links) {
    INFO(a->attribute("href"));
    CHECK(std::filesystem::exists(site + "/" + a->attribute("href")));
  }
}

TEST_CASE("the browser check catches a page that lets a payload run", "[cli]") {
  // The checks below are only worth something if this browser, run this way, executes
  // script on a page that allows it.
  const std::string file = make_temp_dir("browser-control") + "/unsafe.html";
  spit(file, std::string("<!DOCTYPE html><html><head><title>t</title></head><body><p>") +
                 kHostileTitle + "</p></body></html>");
  const auto dom = parse_dom(dump_dom(file));
  const auto pwned = dom->find([](const Node& n) { return !n.attribute("data-pwned").empty(); });
  CHECK(pwned.size() == 1);
  CHECK(dom->find([](const Node& n) { return n.name == "script"; }).size() == 1);
}

TEST_CASE("a hostile feed's change page executes nothing and shows its markup as text", "[cli]") {
  const std::string dir = hostile_html_archive("browser-hostile");
  const std::string page = html_archive_page(dir, {"show", "--format", "html"}, "hostile.html");
  const auto dom = parse_dom(dump_dom(page));
  check_inert(*dom, "hostile change page");

  // The DOM's text is the feed's text, exactly as the JSON page carries it.
  auto json_page = run_feeddiff({"-C", dir, "show", "--format", "json"});
  REQUIRE(json_page.exit_code == 0);
  const auto doc = nlohmann::json::parse(json_page.out);

  const auto title = dom->find([](const Node& n) { return has_class(n, "title"); });
  REQUIRE(title.size() == 1);
  CHECK(title.front()->text_content() == doc["title"]);

  // The page lists the headers the server sent, those JSON has a value for, in its order.
  std::vector<std::string> sent;
  for (const auto& row : doc["headers"])
    if (!row["value"].is_null()) sent.push_back(escape_terminal(row["value"].get<std::string>()));
  const auto header_cells = dom->find([](const Node& n) { return n.name == "td"; });
  REQUIRE(header_cells.size() == sent.size());
  for (std::size_t i = 0; i < header_cells.size(); ++i)
    CHECK(header_cells[i]->text_content() == sent[i]);

  std::vector<std::string> expected_lines, shown_lines;
  for (const auto& hunk : doc["diff"]["hunks"]) {
    expected_lines.push_back(hunk["header"]);
    for (const auto& line : hunk["lines"]) {
      const std::string kind = line["kind"];
      expected_lines.push_back((kind == "added"     ? "+"
                                : kind == "removed" ? "-"
                                                    : " ") +
                               escape_terminal(line["text"].get<std::string>()) +
                               (line["cut"] ? "…" : ""));
    }
  }
  const auto diff = dom->find([](const Node& n) { return has_class(n, "diff"); });
  REQUIRE(diff.size() == 1);
  for (const auto& child : diff.front()->children)
    if (!child->name.empty()) shown_lines.push_back(child->text_content());
  CHECK(shown_lines == expected_lines);
  bool payload_as_text = false;
  for (const auto& line : shown_lines)
    payload_as_text =
        payload_as_text || line.find("&lt;script&gt;document.documentElement") != std::string::npos;
  CHECK(payload_as_text);

  // The item summary shows the decoded title: real angle brackets, as text.
  REQUIRE(doc["items"].is_object());
  const auto items = dom->find([](const Node& n) { return n.name == "li"; });
  bool title_as_text = false;
  for (const Node* li : items)
    title_as_text =
        title_as_text || li->text_content().find(kHostileTitleStart) != std::string::npos;
  CHECK(title_as_text);
}

TEST_CASE("a hostile feed's site pages execute nothing", "[cli]") {
  const std::string dir = hostile_html_archive("browser-hostile-site");
  const std::string site = make_temp_dir("browser-hostile-site-out") + "/site";
  auto r = run_feeddiff({"-C", dir, "site", site});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string head = run({"git", "-C", dir, "rev-parse", "HEAD"}).out.substr(0, 40);
  for (const std::string& page : std::vector<std::string>{"index.html", "sources/hostile.html",
                                                          "changes/" + head + ".html"}) {
    const auto dom = parse_dom(dump_dom(site + "/" + page));
    check_inert(*dom, page);
    if (page.starts_with("changes/")) {
      bool title_as_text = false;
      for (const Node* li : dom->find([](const Node& n) { return n.name == "li"; }))
        title_as_text =
            title_as_text || li->text_content().find(kHostileTitleStart) != std::string::npos;
      CHECK(title_as_text);
    }
  }
}

TEST_CASE("a changed item with hostile text before and after executes nothing in Chromium",
          "[cli]") {
  const std::string dir = both_sides_hostile_archive("browser-both-sides");
  const std::string page = html_archive_page(dir, {"show", "--format", "html"}, "both.html");
  const std::string html = slurp(page);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  const auto dom = parse_dom(dump_dom(page));
  check_inert(*dom, "both sides hostile");

  // Before and after are there as text: the markup, and the controls made visible.
  auto texts = [&](const char* element) {
    std::string all;
    for (const Node* n : dom->find([&](const Node& x) { return x.name == element; }))
      all += n->text_content() + "\n";
    return all;
  };
  const std::string removed = texts("del"), added = texts("ins");
  // The content's escaped markup and ESC are text of the page (kept around the changes).
  const std::string changes = texts("dd");
  CHECK(changes.find("<img src=x onerror=alert(1)>") != std::string::npos);
  CHECK(changes.find("\\x1b[31m") != std::string::npos);
  for (const auto& [side, shown] : {std::pair<std::string, std::string>{"before", removed},
                                    std::pair<std::string, std::string>{"after", added}}) {
    INFO(side << ": " << shown);
    CHECK(shown.find("<script>document.documentElement.setAttribute('data-pwned','" + side +
                     "-title')</script>") != std::string::npos);
    CHECK(shown.find("onerror=\"document.documentElement.setAttribute('data-pwned','" + side +
                     "-img')\">") != std::string::npos);
    CHECK(shown.find("\\x1b[2J\\x1b]0;" + side + "\\x07 \\u202efdp.exe \\u2066" + side) !=
          std::string::npos);
    // The content's word diff (a word is a run of letters, U+202E counting as one): the
    // override made visible, the live script left out (the diff reads the text).
    CHECK(shown.find("\\u202e" + side) != std::string::npos);
    CHECK(shown.find(side + "-content") == std::string::npos);
  }
}

TEST_CASE("the site's raw copy of an XHTML body with a script runs nothing when opened", "[cli]") {
  // A feed's body that a browser runs as a page when it comes as XML: the script marks the
  // document.
  const std::string body =
      "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t"
      "</title></head><body><p>feed</p><script>document.documentElement.setAttribute("
      "'data-pwned', '1')</script></body></html>\n";
  const std::string dir = make_temp_dir("browser-raw") + "/archive";
  {
    auto archive = Archive::init(dir, *parse_iso8601("2025-01-01T00:00:00Z"));
    REQUIRE(archive);
    CommitRequest request;
    request.message =
        "x: added (200 bytes, HTTP 200)\n\nSource: x\nObserved-At: 2025-01-01T00:10:00.000Z\n"
        "Status: 200\n";
    request.author_time = request.commit_time = *parse_iso8601("2025-01-01T00:10:00Z");
    request.files.push_back({"raw/x/response.xml", body});
    REQUIRE(archive->commit(request));
  }
  const std::string site = make_temp_dir("browser-raw-out") + "/site";
  auto r = run_feeddiff({"-C", dir, "site", site});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string head = run({"git", "-C", dir, "rev-parse", "HEAD"}).out.substr(0, 40);
  const std::string raw = site + "/raw/" + head + "/response.xml.txt";
  REQUIRE(slurp(raw) == body);
  const auto pwned = [](const Node& n) { return !n.attribute("data-pwned").empty(); };
  CHECK(parse_dom(dump_dom(raw))->find(pwned).empty());
  // The control: the same bytes under the name the site used to give them run the script.
  const std::string as_xml = make_temp_dir("browser-raw-xml") + "/response.xml";
  spit(as_xml, body);
  CHECK(parse_dom(dump_dom(as_xml))->find(pwned).size() == 1);
}
