// search.html in a real browser: the built site served over HTTP on 127.0.0.1 (the tests'
// scripted server, answering with the site's files), headless Chromium loading
// search.html?q=... and its DOM dumped once search.js has run: the hit (source, title, link
// to the change page) for a word and for a prefix, the "no match" text for a word no item
// holds, and a hostile title shown as text with no script element but the page's own.
//
// CI installs Debian's chromium (scripts/deps --test); without it these tests fail.

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/site.h"
#include "support/http_server.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

// The site's files as a static host serves them; 404 for anything else.
Reply serve_site(const std::string& top, const RecordedRequest& request) {
  std::string path = request.target.substr(0, request.target.find('?'));
  if (path.find("..") != std::string::npos || !path.starts_with("/")) return Reply{.status = 400};
  if (path.ends_with("/")) path += "index.html";
  auto body = read_file(top + path);
  if (!body || !fs::is_regular_file(top + path)) return Reply{.status = 404, .body = "not found"};
  std::string type = "application/octet-stream";
  if (path.ends_with(".html")) type = "text/html; charset=utf-8";
  if (path.ends_with(".js")) type = "text/javascript; charset=utf-8";
  if (path.ends_with(".json")) type = "application/json";
  return Reply{.headers = {{"Content-Type", type}, {"X-Content-Type-Options", "nosniff"}},
               .body = std::move(*body)};
}

// The DOM of url once its scripts ran (virtual time lets the fetches finish first).
std::string browser_dom(const std::string& url) {
  std::string browser;
  for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(candidate, X_OK) == 0) browser = candidate;
  if (browser.empty())
    FAIL("chromium is not installed (scripts/deps --test installs Debian's chromium)");
  auto r = run({"timeout", "120", browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--disable-dev-shm-usage",
                "--user-data-dir=" + make_temp_dir("search-chromium-profile"),
                "--virtual-time-budget=10000", "--dump-dom", url},
               {{"HOME", make_temp_dir("search-chromium-home")}});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("search.html served over HTTP finds an item by word and by prefix in Chromium",
          "[site]") {
  RecordedArchive recorded("site-search-browser", {"blog"});
  const std::string change = recorded.record(
      "blog",
      "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>Blog</title>\n"
      "<item><guid>a</guid><title>Orbital launch window</title>"
      "<description>Rocket boosters tested</description></item>\n"
      "<item><guid>h</guid><title>&lt;script&gt;document.title=\"owned\"&lt;/script&gt; "
      "&lt;img src=x onerror=alert(1)&gt; \"quoted\"</title>"
      "<description>hostilepayload</description></item>\n"
      "</channel></rss>\n");
  SiteOptions options;
  options.dir = make_temp_dir("site-search-browser-out") + "/public";
  REQUIRE(build_site(recorded.open(), options));
  const std::string top = options.dir;
  HttpServer server([&](const RecordedRequest& request) { return serve_site(top, request); });

  for (const std::string query : {"boosters", "BOOST*"}) {
    INFO(query);
    const std::string dom = browser_dom(server.url("/search.html?q=" + query));
    CHECK(dom.find("1 hit, newest first.") != std::string::npos);
    CHECK(dom.find("<strong>blog</strong>") != std::string::npos);
    CHECK(dom.find("<a href=\"changes/" + change + ".html\">Orbital launch window</a>") !=
          std::string::npos);
    CHECK(dom.find("appeared") != std::string::npos);
    CHECK(count(dom, "<li>") == 1);
  }

  const std::string none = browser_dom(server.url("/search.html?q=zeppelin"));
  CHECK(none.find("No match: no item gained or lost all of these words.") != std::string::npos);
  CHECK(none.find("<li>") == std::string::npos);

  const std::string hostile = browser_dom(server.url("/search.html?q=hostilepayload"));
  CHECK(hostile.find("&lt;script&gt;document.title=\"owned\"&lt;/script&gt; &lt;img src=x "
                     "onerror=alert(1)&gt; \"quoted\"") != std::string::npos);
  // The page's own script element is the only one, and no img element came in.
  CHECK(count(hostile, "<script") == 1);
  CHECK(hostile.find("<script src=\"search.js\"></script>") != std::string::npos);
  CHECK(hostile.find("<img") == std::string::npos);
  CHECK(hostile.find("<title>Search · feeddiff archive</title>") != std::string::npos);
}
