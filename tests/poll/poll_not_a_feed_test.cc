// A response that is not a feed (a challenge page, an empty 200, a login page) is archived
// byte for byte at raw/NAME/not-a-feed, recorded and reported as such, and the feed's next
// version is compared with its last real version: no removed/reappeared storm across the gap.

#include <catch2/catch.hpp>
#include <mutex>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// Three items; the second version adds a fourth on top.
std::string feed_version(int v) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>\n";
  if (v == 2) body += "<item><title>four</title><guid>g4</guid></item>\n";
  for (const char* tag : {"three", "two", "one"})
    body += std::string("<item><title>") + tag + "</title><guid>g-" + tag + "</guid></item>\n";
  return body + "</channel></rss>\n";
}

// Serves whatever *body is, with its content type.
struct Served {
  std::mutex mutex;
  std::string body;
  std::string type = "application/rss+xml";
  void set(std::string b, std::string t) {
    std::lock_guard<std::mutex> lock(mutex);
    body = std::move(b);
    type = std::move(t);
  }
};

HttpServer serve(Served& s) {
  return HttpServer([&s](const RecordedRequest&) {
    std::lock_guard<std::mutex> lock(s.mutex);
    return Reply{200, {{"Content-Type", s.type}}, s.body};
  });
}

RunResult poll_once(const CliArchive& archive) {
  auto r = archive({"poll", "--force", "--timeout", "10s"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  return r;
}

std::string trailer(const CliArchive& archive, const std::string& rev, const std::string& key) {
  auto r = archive.git({"log", "-1", "--format=%(trailers:key=" + key + ",valueonly)", rev});
  std::string v = r.out;
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

std::string blob_at(const CliArchive& archive, const std::string& rev, const std::string& path) {
  auto r = archive.git({"show", rev + ":" + path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// The Items section of `show`'s text page (from "Items:" to the blank line after it).
std::string items_section(const CliArchive& archive, const std::string& rev) {
  auto r = archive({"show", rev});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto at = r.out.find("Items:");
  REQUIRE(at != std::string::npos);
  return r.out.substr(at, r.out.find("\n\n", at) - at);
}

}  // namespace

TEST_CASE("a feed, then a page that is no feed, then the feed: the gap is recorded, never diffed",
          "[poll]") {
  const std::string challenge =
      slurp(corpus_path("non-feed-responses/cloudflare-challenges/js_challenge_02_11_2021.html"));
  struct Interloper {
    std::string name, body, type, kind;
  };
  const std::vector<Interloper> interlopers = {
      {"challenge", challenge, "text/html; charset=UTF-8", "HTML document"},
      {"empty", "", "application/rss+xml", "empty body"},
      {"login", slurp(fixture_path("not-a-feed/login-page.html")), "text/html", "HTML document"},
  };

  // The control: the two feed versions polled back to back, no gap.
  Served control_body;
  control_body.set(feed_version(1), "application/rss+xml");
  HttpServer control_server = serve(control_body);
  CliArchive control("not-a-feed-control");
  REQUIRE(control({"add", "src", control_server.url("/feed")}).exit_code == 0);
  REQUIRE(poll_once(control).exit_code == 0);
  control_body.set(feed_version(2), "application/rss+xml");
  REQUIRE(poll_once(control).exit_code == 0);
  const std::string expected_items = items_section(control, "HEAD");
  CHECK(expected_items.find("1 added") != std::string::npos);

  for (const Interloper& in : interlopers) {
    DYNAMIC_SECTION(in.name) {
      Served served;
      served.set(feed_version(1), "application/rss+xml");
      HttpServer server = serve(served);
      CliArchive archive("not-a-feed-" + in.name);
      REQUIRE(archive({"add", "src", server.url("/feed")}).exit_code == 0);
      REQUIRE(poll_once(archive).exit_code == 0);
      CHECK(trailer(archive, "HEAD", "Change-Class") == "first");

      served.set(in.body, in.type);
      auto bad = poll_once(archive);
      CHECK(bad.exit_code == 1);  // a failure for cron, as a failed fetch is
      CHECK(bad.err.find("src: not a feed (" + in.kind) != std::string::npos);
      CHECK(bad.err.find(" recorded as ") != std::string::npos);
      CHECK(bad.err.find("(retry in ") != std::string::npos);
      CHECK(bad.out.find("removed") == std::string::npos);
      CHECK(trailer(archive, "HEAD", "Change-Class") == "not-a-feed");
      CHECK(trailer(archive, "HEAD", "Not-A-Feed").starts_with(in.kind));
      CHECK(archive.git({"log", "-1", "--format=%s"})
                .out.starts_with("src: not a feed (" + in.kind + ", "));
      // Every byte archived, and the feed's last version kept beside it.
      CHECK(blob_at(archive, "HEAD", "raw/src/not-a-feed") == in.body);
      CHECK(blob_at(archive, "HEAD", "raw/src/response.xml") == feed_version(1));
      // status names it while it lasts, in text and JSON.
      CHECK(status_text(archive, "src").find("not a feed since ") != std::string::npos);
      const auto st = status_json(archive, "src");
      CHECK(st["last_result"] == "not-a-feed");
      CHECK(st["not_a_feed"]["reason"].get<std::string>().starts_with(in.kind));
      // show of it: why, and no item section of removed items.
      auto shown = archive({"show", "HEAD"});
      CHECK(shown.exit_code == 0);
      CHECK(shown.out.find("Items: not a feed: " + in.kind) != std::string::npos);
      CHECK(shown.out.find("3 removed") == std::string::npos);

      // The same page again: nothing new to record.
      const std::string gap = archive.head();
      auto again = poll_once(archive);
      CHECK(again.exit_code == 1);
      CHECK(archive.head() == gap);

      served.set(feed_version(2), "application/rss+xml");
      auto back = poll_once(archive);
      CHECK(back.exit_code == 0);
      CHECK(back.out.find("src: changed") != std::string::npos);
      CHECK(trailer(archive, "HEAD", "Change-Class") == "items");
      CHECK(trailer(archive, "HEAD", "Item-Summary") == "1 added");
      CHECK_FALSE(in_head(archive, "raw/src/not-a-feed"));
      CHECK(blob_at(archive, "HEAD", "raw/src/response.xml") == feed_version(2));
      // The item diff across the gap is the diff of the two feed versions.
      CHECK(items_section(archive, "HEAD") == expected_items);
      CHECK(items_section(archive, "HEAD").find("reappeared") == std::string::npos);
      CHECK(status_text(archive, "src").find("not a feed") == std::string::npos);
      CHECK(status_json(archive, "src")["not_a_feed"].is_null());
      auto fsck = archive.git({"fsck", "--strict"});
      INFO(fsck.err);
      CHECK(fsck.exit_code == 0);
    }
  }
}

TEST_CASE("a feed back byte for byte after a gap makes a restored commit that only drops the page",
          "[poll]") {
  Served served;
  served.set(feed_version(1), "application/rss+xml");
  HttpServer server = serve(served);
  CliArchive archive("not-a-feed-restored");
  REQUIRE(archive({"add", "src", server.url("/feed")}).exit_code == 0);
  REQUIRE(poll_once(archive).exit_code == 0);
  served.set("<html><head><title>Down for maintenance</title></head></html>", "text/html");
  REQUIRE(poll_once(archive).exit_code == 1);
  served.set(feed_version(1), "application/rss+xml");
  auto back = poll_once(archive);
  CHECK(back.exit_code == 0);
  CHECK(back.out.find("src: restored (") != std::string::npos);
  CHECK(trailer(archive, "HEAD", "Change-Class") == "restored");
  auto files = archive.git({"diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD"});
  CHECK(files.out == "D\traw/src/not-a-feed\n");
  CHECK(archive({"cat", "HEAD", "src"}).out == feed_version(1));
  auto shown = archive({"show", "HEAD"});
  CHECK(shown.exit_code == 0);
  CHECK(shown.out.find("Items: restored") != std::string::npos);
  CHECK(shown.out.find("3 removed") == std::string::npos);
}

TEST_CASE("a first poll that gets an HTML page records it as no feed, and status says so",
          "[poll]") {
  Served served;
  served.set("<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head></html>",
             "text/html");
  HttpServer server = serve(served);
  CliArchive archive("not-a-feed-first");
  REQUIRE(archive({"add", "src", server.url("/")}).exit_code == 0);
  auto r = poll_once(archive);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("src: not a feed (HTML document \"Welcome to nginx!\" (text/html), HTTP 200) "
                   "recorded as ") != std::string::npos);
  CHECK(r.out.find("added") == std::string::npos);
  CHECK(trailer(archive, "HEAD", "Change-Class") == "not-a-feed");
  CHECK(in_head(archive, "raw/src/not-a-feed"));
  CHECK_FALSE(in_head(archive, "raw/src/response.xml"));
  const std::string line = status_text(archive, "src");
  CHECK(line.find("not a feed since ") != std::string::npos);
  CHECK(line.find("Welcome to nginx!") != std::string::npos);
  CHECK(line.find("added") == std::string::npos);
  // Then the right feed: its first version.
  served.set(feed_version(1), "application/rss+xml");
  auto fixed = poll_once(archive);
  CHECK(fixed.exit_code == 0);
  CHECK(fixed.out.find("src: added") != std::string::npos);
  CHECK(trailer(archive, "HEAD", "Change-Class") == "first");
  CHECK_FALSE(in_head(archive, "raw/src/not-a-feed"));
}

TEST_CASE("a not-a-feed title and reason from the body reach the terminal escaped", "[poll]") {
  Served served;
  served.set("<html><title>evil\x1b]0;pwned\x07 page</title></html>", "text/html");
  HttpServer server = serve(served);
  CliArchive archive("not-a-feed-escape");
  REQUIRE(archive({"add", "src", server.url("/")}).exit_code == 0);
  auto r = poll_once(archive);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find('\x07') == std::string::npos);
  CHECK(status_text(archive, "src").find('\x1b') == std::string::npos);
}

TEST_CASE("a clone rebuilds a source's not-a-feed state from its last commit's trailers",
          "[poll]") {
  Served served;
  served.set(feed_version(1), "application/rss+xml");
  HttpServer server = serve(served);
  CliArchive archive("not-a-feed-clone");
  REQUIRE(archive({"add", "src", server.url("/feed")}).exit_code == 0);
  REQUIRE(poll_once(archive).exit_code == 0);
  served.set("<html><head><title>Sign in</title></head></html>", "text/html");
  REQUIRE(poll_once(archive).exit_code == 1);

  const std::string work = make_temp_dir("not-a-feed-clone-work");
  auto cloned = run_feeddiff({"-C", work, "clone", archive.dir(), "copy"},
                             {{"FEEDDIFF_NOW", "2026-10-01T06:00:00Z"}});
  INFO(cloned.out << cloned.err);
  REQUIRE(cloned.exit_code == 0);
  auto r = run_feeddiff({"-C", work + "/copy", "status", "--json", "src"});
  REQUIRE(r.exit_code == 0);
  const auto st = nlohmann::json::parse(r.out)["sources"][0];
  CHECK(st["last_result"] == "not-a-feed");
  CHECK(st["not_a_feed"]["reason"] == "HTML document \"Sign in\" (text/html)");
  CHECK(st["etag"].is_null());  // the first poll asks for the feed unconditionally
  auto line = run_feeddiff({"-C", work + "/copy", "status", "src"});
  CHECK(line.out.find("not a feed since ") != std::string::npos);
}
