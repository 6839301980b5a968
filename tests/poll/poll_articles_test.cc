// The article phase of a poll (docs/articles.md), end to end: a feed whose items link to
// pages served on 127.0.0.1, polled by the built binary. Each version a reader should see is
// a commit of its own after the feed's; page churn, walls and error pages make no edit;
// robots.txt is honoured; nothing about an article delays or fails the feed's commit.

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <map>
#include <mutex>

#include "feeddiff/failpoint.h"
#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

constexpr const char* kStart = "2026-10-01T06:00:00.000Z";

// A body of about 130 words; `edit` changes one word of its third sentence.
std::string body_text(bool edit) {
  std::string out;
  for (int i = 0; i < 12; ++i)
    out += "Sentence " + std::string(i == 2 && edit ? "three" : std::to_string(i)) +
           " of the report says what the council decided about the bridge today. ";
  return out;
}

std::string article_page(const std::string& headline, bool edit, const std::string& nav) {
  return "<!doctype html><html lang=\"en\"><head><title>" + headline +
         "</title><meta name=\"author\" content=\"Jane Doe\"></head><body><nav><a href=\"/\">"
         "Home</a> <a href=\"/x\">" +
         nav + "</a></nav><article><h1>" + headline + "</h1><p>" + body_text(edit) + "</p><p>" +
         body_text(false) +
         "</p></article><aside class=\"related\"><a href=\"/r\">Related: " + nav +
         "</a></aside></body></html>";
}

// The feed links to /a/one, /a/two, /private/three and /a/gone.
std::string feed(const std::string& base) {
  std::string out =
      "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>News</title><link>" + base +
      "/</link><description>d</description>";
  for (const char* id : {"one", "two", "three", "gone"}) {
    const std::string path =
        std::string(id) == "three" ? "/private/three" : "/a/" + std::string(id);
    out += std::string("<item><title>") + id + "</title><guid>g-" + id + "</guid><link>" + base +
           path + "</link></item>";
  }
  return out + "</channel></rss>";
}

// What the server answers, path by path; changed by the test between polls.
struct Site {
  std::mutex mutex;
  std::string base;
  std::map<std::string, feeddiff::test::Reply> pages;
  void set(const std::string& path, feeddiff::test::Reply reply) {
    std::lock_guard<std::mutex> lock(mutex);
    pages[path] = std::move(reply);
  }
};

Reply html(std::string body, std::string etag = "") {
  Reply r{200, {{"Content-Type", "text/html; charset=utf-8"}}, std::move(body)};
  if (!etag.empty()) r.headers.emplace_back("ETag", etag);
  return r;
}

HttpServer serve(Site& site) {
  return HttpServer([&site](const RecordedRequest& request) {
    std::lock_guard<std::mutex> lock(site.mutex);
    auto it = site.pages.find(request.target);
    if (it == site.pages.end())
      return Reply{
          404,
          {{"Content-Type", "text/html"}},
          "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"};
    Reply r = it->second;
    // Conditional GET: the same ETag back gets a 304.
    for (const auto& [name, value] : r.headers)
      if (name == "ETag" && request.header("If-None-Match") == value)
        return Reply{304, {{"ETag", value}}, ""};
    return r;
  });
}

// An archive with one source whose articles are captured, its server, its pages.
struct Newsroom {
  Site site;
  HttpServer server = serve(site);
  CliArchive archive{"articles", kStart};

  Newsroom() {
    site.base = server.url("");
    if (site.base.ends_with('/')) site.base.pop_back();
    site.set("/feed", Reply{200, {{"Content-Type", "application/rss+xml"}}, feed(site.base)});
    site.set("/robots.txt",
             Reply{200, {{"Content-Type", "text/plain"}}, "User-agent: *\nDisallow: /private/\n"});
    site.set("/a/one", html(article_page("Bridge vote delayed", false, "Sport"), "\"one-1\""));
    site.set("/a/two", html(article_page("Council meets", false, "Weather")));
    auto r = archive({"add", "news", server.url("/feed"), "--articles"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }

  RunResult poll(std::vector<std::string> extra = {},
                 std::vector<std::pair<std::string, std::string>> env = {}) {
    std::vector<std::string> args = {"-C", archive.dir(), "poll"};
    if (extra.empty()) extra = {"--timeout", "5s"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_feeddiff(args, [&] {
      std::vector<std::pair<std::string, std::string>> all = {{"FEEDDIFF_NOW", now},
                                                              {"NO_COLOR", "1"}};
      all.insert(all.end(), env.begin(), env.end());
      return all;
    }());
  }

  std::size_t requests_for(const std::string& target) const {
    std::size_t n = 0;
    for (const auto& r : server.requests()) n += r.target == target;
    return n;
  }

  std::string trailer(const std::string& rev, const std::string& key) const {
    auto r = archive.git({"log", "-1", "--format=%(trailers:key=" + key + ",valueonly)", rev});
    std::string v = r.out;
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    return v;
  }

  std::string now = kStart;
};

std::vector<std::string> titles(const CliArchive& archive, std::string range) {
  range.erase(std::remove(range.begin(), range.end(), '\n'), range.end());
  std::vector<std::string> out;
  std::string all = archive.git({"log", "--format=%s", range}).out;
  std::size_t at = 0;
  while (at < all.size()) {
    const std::size_t eol = all.find('\n', at);
    out.push_back(all.substr(at, eol - at));
    at = eol == std::string::npos ? all.size() : eol + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("articles are captured after the feed's commit, one commit per page, robots.txt honoured",
          "[poll][articles]") {
  Newsroom n;
  const std::string before = n.archive.head();
  auto r = n.poll();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);  // a 404 and a disallowed page are no failure of the poll
  // The feed's commit first, then one commit per article version, oldest first.
  const auto made = titles(n.archive, before + "..HEAD");
  REQUIRE(made.size() == 4);
  CHECK(made.back() ==
        "news: added (" + std::to_string(feed(n.site.base).size()) + " bytes, HTTP 200)");
  // Articles are committed as their fetches complete: in any order.
  std::vector<std::string> pages(made.begin(), made.end() - 1);
  std::sort(pages.begin(), pages.end());
  CHECK(pages[0] == "news: article added: Bridge vote delayed");
  CHECK(pages[1] == "news: article added: Council meets");
  CHECK(pages[2].starts_with("news: article archived, extraction uncertain: "));
  // robots.txt: asked once for the host, the disallowed page never fetched, and said why.
  CHECK(n.requests_for("/robots.txt") == 1);
  CHECK(n.requests_for("/private/three") == 0);
  CHECK(r.out.find("news: article disallowed: robots.txt of " + n.site.base +
                   " disallows /private/three for feeddiff") != std::string::npos);
  // The page byte for byte, the readable text beside it, the trailers.
  std::string rev;
  for (const char* at : {"HEAD", "HEAD~1", "HEAD~2"})
    if (n.trailer(at, "Item-Id") == "g-one") rev = at;
  REQUIRE_FALSE(rev.empty());
  const std::string one = n.trailer(rev, "Article-URL");
  CHECK(one == n.site.base + "/a/one");
  CHECK(n.trailer(rev, "Change-Class") == "article");
  CHECK(n.trailer(rev, "Status") == "200");
  auto files = n.archive.git({"show", "--format=", "--name-only", rev}).out;
  CHECK(files.find("articles/news/") == 0);
  CHECK(files.find("/page.html\n") != std::string::npos);
  const std::string first_file = files.substr(0, files.find('\n'));
  const std::string dir = first_file.substr(0, first_file.rfind('/') + 1);
  CHECK(n.archive.git({"show", "HEAD:" + dir + "page.html"}).out ==
        article_page("Bridge vote delayed", false, "Sport"));
  const std::string text = n.archive.git({"show", "HEAD:" + dir + "article.txt"}).out;
  CHECK(text.starts_with("Title: Bridge vote delayed\nByline: Jane Doe\nPublished: \n\n"));
  CHECK(text.find("Sentence 2 of the report") != std::string::npos);
  CHECK(text.find("Sport") == std::string::npos);  // the navigation is no part of it
  // The 404: archived, marked, not an edit.
  std::string gone;
  for (const char* at : {"HEAD", "HEAD~1", "HEAD~2"})
    if (n.trailer(at, "Item-Id") == "g-gone") gone = at;
  REQUIRE_FALSE(gone.empty());
  CHECK(n.trailer(gone, "Change-Class") == "article-uncertain");
  CHECK(n.trailer(gone, "Extraction-Uncertain") == "HTTP 404");
  CHECK(n.archive.git({"fsck", "--strict"}).exit_code == 0);
}

TEST_CASE(
    "an edited article body gives exactly one commit that show names, and rotated boilerplate "
    "gives none",
    "[poll][articles]") {
  Newsroom n;
  REQUIRE(n.poll().exit_code == 0);
  const std::string after_first = n.archive.head();
  // Seven hours later the articles are due again (every 6 h while young); the feed is not.
  n.now = "2026-10-01T13:00:00.000Z";
  n.site.set("/a/one", html(article_page("Bridge vote delayed", true, "Sport"), "\"one-2\""));
  n.site.set("/a/two", html(article_page("Council meets", false, "Markets")));
  auto r = n.poll();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto made = titles(n.archive, after_first + "..HEAD");
  REQUIRE(made.size() == 1);
  CHECK(made[0] == "news: article changed: Bridge vote delayed");
  CHECK(n.trailer("HEAD", "Article-Summary") == "body: 1 edit (+1 -1 words)");
  CHECK(r.out.find("news: article noted: page changed") != std::string::npos);
  // The recheck was conditional: the ETag of the first fetch went back.
  bool conditional = false;
  for (const auto& req : n.server.requests())
    if (req.target == "/a/one" && req.header("If-None-Match") == "\"one-1\"") conditional = true;
  CHECK(conditional);

  auto shown = n.archive({"show"});
  INFO(shown.err);
  REQUIRE(shown.exit_code == 0);
  CHECK(shown.out.find("Headline    Bridge vote delayed\n") != std::string::npos);
  CHECK(shown.out.find("Sentence [-2-]{+three+} of the report") != std::string::npos);
  auto json = n.archive({"show", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["kind"] == "article");
  CHECK(doc["body_changed"] == true);
  auto markdown = n.archive({"show", "--format", "markdown"});
  REQUIRE(markdown.exit_code == 0);
  CHECK(markdown.out.find("Sentence ~~2~~**three** of the report") != std::string::npos);
  auto page = n.archive({"show", "--format", "html"});
  REQUIRE(page.exit_code == 0);
  CHECK(page.out.find("Sentence <del>2</del><ins>three</ins> of the report") != std::string::npos);
  auto log = n.archive({"log", "news"});
  CHECK(log.out.find("news: article changed: Bridge vote delayed [article] body: 1 edit") !=
        std::string::npos);
  // history NAME ITEM lists the article's versions beside the item's events.
  auto history = n.archive({"history", "news", "g-one"});
  INFO(history.err);
  REQUIRE(history.exit_code == 0);
  const auto listed = history.out.find("Its article's versions, oldest first\n");
  REQUIRE(listed != std::string::npos);
  const auto added = history.out.find("added       ", listed);
  const auto changed = history.out.find("changed     body: 1 edit (+1 -1 words) http", listed);
  CHECK(added != std::string::npos);
  CHECK(changed != std::string::npos);
  CHECK(added < changed);
  // search finds the edited sentence in the article, from the version the edit made.
  auto found = n.archive({"search", "\"Sentence three of the report\""});
  INFO(found.err);
  REQUIRE(found.exit_code == 0);
  CHECK(found.out.find("news: Bridge vote delayed\n  item     g-one\n  article  " + n.site.base +
                       "/a/one\n") != std::string::npos);
  CHECK(found.out.find("gone     still there") != std::string::npos);
  CHECK(found.out.find("matched  2026-10-01T13:00:00.000Z (" + n.archive.head().substr(0, 7) +
                       ")") != std::string::npos);
  auto history_json = n.archive({"history", "news", "g-one", "--format", "json"});
  REQUIRE(history_json.exit_code == 0);
  const auto item = nlohmann::json::parse(history_json.out)["item"];
  REQUIRE(item["articles"].size() == 2);
  CHECK(item["articles"][1]["result"] == "changed");
  // export-sqlite keeps every article version with its text, once: as many as git counts
  // (the two first captures, the 404 archived as uncertain, the edit).
  const std::string db = make_temp_dir("articles-sqlite") + "/feeds.db";
  auto exported = n.archive({"export-sqlite", "--db", db});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  const auto article_commits =
      lines_of(n.archive.git({"log", "--format=%H", "--", "articles/news/"}).out).size();
  CHECK(article_commits >= 3);
  CHECK(exported.out.find("; " + std::to_string(article_commits) + " article versions\n") !=
        std::string::npos);
  auto rows = run(
      {"sqlite3", db, "SELECT item_id, result, summary, title FROM article_version ORDER BY _id"});
  REQUIRE(rows.exit_code == 0);
  const auto lines = lines_of(rows.out);
  REQUIRE(lines.size() == article_commits);
  CHECK(lines.back() == "g-one|changed|body: 1 edit (+1 -1 words)|Bridge vote delayed");
  auto again = n.archive({"export-sqlite", "--db", db});
  REQUIRE(again.exit_code == 0);
  CHECK(again.out.find("article version") == std::string::npos);
  // Another item's history lists only its own article's versions.
  auto other = n.archive({"history", "news", "g-two", "--format", "json"});
  REQUIRE(other.exit_code == 0);
  CHECK(nlohmann::json::parse(other.out)["item"]["articles"].size() == 1);

  // Once more, nothing changed: a 304 and an identical page make nothing.
  n.now = "2026-10-01T20:00:00.000Z";
  const std::string head = n.archive.head();
  REQUIRE(n.poll().exit_code == 0);
  CHECK(n.archive.head() == head);
}

TEST_CASE("a consent wall between two versions is archived as uncertain, never as an edit",
          "[poll][articles]") {
  Newsroom n;
  REQUIRE(n.poll().exit_code == 0);
  n.now = "2026-10-01T13:00:00.000Z";
  n.site.set("/a/one", html("<html><head><title>Before you continue</title></head><body><div>"
                            "We use cookies. We value your privacy. Accept all or Reject all."
                            "</div></body></html>"));
  const std::string before = n.archive.head();
  auto r = n.poll();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(titles(n.archive, before + "..HEAD").size() == 1);
  CHECK(n.trailer("HEAD", "Change-Class") == "article-uncertain");
  CHECK(n.trailer("HEAD", "Extraction-Uncertain") == "the page is a consent wall");
  // The last trusted text stays: article.txt untouched by that commit.
  auto files = n.archive.git({"show", "--format=", "--name-only", "HEAD"}).out;
  CHECK(files.find("page.html") != std::string::npos);
  CHECK(files.find("article.txt") == std::string::npos);
  auto shown = n.archive({"show"});
  CHECK(shown.out.find("Extraction uncertain: the page is a consent wall.") != std::string::npos);
  CHECK(shown.out.find("{+") == std::string::npos);

  // The article back as it was: no edit (compared with the last trusted text).
  n.now = "2026-10-01T20:00:00.000Z";
  n.site.set("/a/one", html(article_page("Bridge vote delayed", false, "Sport")));
  const std::string walled = n.archive.head();
  r = n.poll();
  REQUIRE(r.exit_code == 0);
  CHECK(n.archive.head() == walled);
  CHECK(r.out.find("news: article noted: page changed") != std::string::npos);
}

TEST_CASE("the feed's commit lands when every article fetch hangs past the timeout",
          "[poll][articles]") {
  Newsroom n;
  n.site.set("/robots.txt", Reply{404});
  n.site.set("/a/one", Reply{.silent = true});
  n.site.set("/a/two", Reply{.silent = true});
  const std::string before = n.archive.head();
  auto r = n.poll({"--timeout", "1s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const auto made = titles(n.archive, before + "..HEAD");
  REQUIRE_FALSE(made.empty());
  CHECK(made.back().starts_with("news: added ("));
  CHECK(r.out.find("news: added (") != std::string::npos);
  CHECK(r.out.find("news: article failed: ") != std::string::npos);
  // Only the two 404s are archived (no robots.txt: everything allowed); the hung pages
  // wait for a retry.
  CHECK(made.size() == 3);
  CHECK(n.archive.git({"fsck", "--strict"}).exit_code == 0);
}

TEST_CASE(
    "a poll killed after its article commits leaves a sound archive, and the next poll "
    "records nothing twice",
    "[poll][articles]") {
  if (!feeddiff::failpoints_built()) return;
  Newsroom n;
  const std::string before = n.archive.head();
  auto killed = n.poll({}, {{"FEEDDIFF_FAILPOINT", "articles-committed"}});
  INFO(killed.out << killed.err);
  REQUIRE(killed.exit_code == 128 + SIGKILL);
  auto fsck = n.archive.git({"fsck", "--strict"});
  CHECK(fsck.exit_code == 0);
  const auto made = titles(n.archive, before + "..HEAD");
  CHECK(made.size() == 4);
  // The articles' book was not saved: the next poll fetches them again, unconditionally, and
  // finds the archive holds them already.
  const std::string head = n.archive.head();
  auto next = n.poll();
  INFO(next.out << next.err);
  CHECK(next.exit_code == 0);
  CHECK(n.archive.head() == head);
  CHECK(n.requests_for("/a/one") == 2);
}

TEST_CASE("with article commits in the history every other command keeps working",
          "[poll][articles]") {
  Newsroom n;
  REQUIRE(n.poll().exit_code == 0);
  n.now = "2026-10-01T13:00:00.000Z";
  n.site.set("/a/one", html(article_page("Bridge vote delayed", true, "Sport")));
  REQUIRE(n.poll().exit_code == 0);
  // log NAME lists the feed's version as a feed version, and the articles beside it.
  auto log = n.archive({"log", "news", "--format", "json"});
  INFO(log.err);
  REQUIRE(log.exit_code == 0);
  const auto doc = nlohmann::json::parse(log.out);
  REQUIRE(doc["changes"].size() == 5);
  CHECK(doc["changes"][0]["class"] == "article");
  CHECK(doc["changes"][4]["class"] == "first");
  // show NAME is the feed's latest version, not an article.
  auto show = n.archive({"show", "news"});
  CHECK(show.exit_code == 0);
  CHECK(show.out.find("news: added (") != std::string::npos);
  // The source index, rebuilt from scratch, agrees.
  std::filesystem::remove_all(n.archive.dir() + "/.git/feeddiff/index");
  std::filesystem::remove_all(n.archive.dir() + "/.git/feeddiff/cache");
  auto again = n.archive({"log", "news", "-n", "1"});
  CHECK(again.out.find("news: article changed") != std::string::npos);
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"log"},
           {"log", "--items"},
           {"history", "news"},
           {"items", "HEAD"},
           {"status"},
           {"gc"},
           {"site", n.archive.dir() + "/../site"},
           {"export-sqlite", "--db", n.archive.dir() + "/../x.db"}}) {
    auto r = n.archive(args);
    INFO(args[0] << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
  }
  auto items = n.archive({"log", "--items"});
  CHECK(items.out.find("article") == std::string::npos);  // no article is an item change
  CHECK(n.archive.git({"fsck", "--strict"}).exit_code == 0);
}

TEST_CASE(
    "a feed from the Internet cannot make the poller fetch its loopback: the links are refused "
    "before a byte is sent, and the feed's commit lands",
    "[poll][articles]") {
  if (!feeddiff::failpoints_built()) {
    WARN("a build not made for tests ignores FEEDDIFF_TEST_PUBLIC_ORIGIN: nothing to check");
    return;
  }
  Newsroom n;
  const std::string before = n.archive.head();
  // The feed counts as one from the Internet (src/fetch/transfer.cc); its links lead to
  // 127.0.0.1, as a hostile feed's links to the poller's own services or to the cloud's
  // metadata address would.
  auto r = n.poll({"--timeout", "5s"}, {{"FEEDDIFF_TEST_PUBLIC_ORIGIN", "1"}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto made = titles(n.archive, before + "..HEAD");
  REQUIRE(made.size() == 1);
  CHECK(made[0].starts_with("news: added ("));
  CHECK(n.requests_for("/robots.txt") == 0);
  CHECK(n.requests_for("/a/one") == 0);
  CHECK(n.requests_for("/a/two") == 0);
  CHECK(r.out.find("refused to fetch this link: it leads to 127.0.0.1, a loopback address") !=
        std::string::npos);
}
