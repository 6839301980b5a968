// `status` shows what a cron user must act on: hooks that fail (and the notifications kept
// for the next poll), and, with hooks, that a page that is no feed notifies nothing while
// the feed's return notifies its true item changes once.

#include <catch2/catch.hpp>
#include <mutex>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

std::string titled_feed(const std::vector<std::string>& titles) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>\n";
  for (const std::string& t : titles)
    body += "<item><title>" + t + "</title><guid>" + t + "</guid></item>\n";
  return body + "</channel></rss>\n";
}

// Adds source `news` with the [notify] table given, committed and trusted.

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    out.push_back(text.substr(at, nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("a failing hook and its kept notifications are shown by status and status --json",
          "[poll]") {
  std::string body = titled_feed({"one"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("status-hook-failing");
  add_news(archive, server.url("/feed"),
           "\n[notify]\nexec = \"cat > /dev/null; echo broken >&2; exit 3\"\n");
  auto r = archive({"poll", "--force", "--timeout", "5s"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const std::string commit = archive.head().substr(0, 40);

  const std::string line = status_text(archive, "news");
  CHECK(line.find("hooks failing: exec: exit status 3") != std::string::npos);
  CHECK(line.find("(1 notification kept, retried by the next poll)") != std::string::npos);
  const auto st = status_json(archive, "news");
  CHECK(st["notify_error"].get<std::string>().starts_with("exec: exit status 3"));
  CHECK(st["pending_notifications"] == 1);
  CHECK(st["pending_notification_commits"] == nlohmann::json::array({commit}));

  // A healthy source says nothing of hooks.
  CliArchive quiet("status-hook-none");
  REQUIRE(quiet({"add", "news", server.url("/feed")}).exit_code == 0);
  REQUIRE(quiet({"poll", "--force", "--timeout", "5s"}).exit_code == 0);
  CHECK(status_text(quiet, "news").find("hook") == std::string::npos);
  CHECK(status_json(quiet, "news")["notify_error"].is_null());
}

TEST_CASE("hooks stay quiet for a page that is no feed and its restoration, and hear the return",
          "[poll]") {
  std::mutex mutex;
  std::string body = titled_feed({"one", "two"});
  HttpServer server([&](const RecordedRequest&) {
    std::lock_guard<std::mutex> lock(mutex);
    return Reply{.body = body};
  });
  auto serve = [&](std::string b) {
    std::lock_guard<std::mutex> lock(mutex);
    body = std::move(b);
  };
  CliArchive archive("status-hook-not-a-feed");
  const std::string dir = make_temp_dir("status-hook-log");
  // Logs the commit and the item summary of each change it hears of.
  add_news(archive, server.url("/feed"),
           "\n[notify]\nexec = \"grep -o '\\\"summary\\\": *\\\"[^\\\"]*\\\"' | head -1 | "
           "sed \\\"s/^/$FEEDDIFF_COMMIT /\\\" >> '" +
               dir + "/log'\"\n");
  auto poll = [&] { return archive({"poll", "--force", "--timeout", "5s"}); };
  REQUIRE(poll().exit_code == 0);  // added: heard
  serve("<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>");
  CHECK(poll().exit_code == 1);  // not a feed: not heard
  serve(titled_feed({"one", "two"}));
  auto restored = poll();
  INFO(restored.out << restored.err);
  CHECK(restored.out.find("news: restored") != std::string::npos);  // not heard
  serve("");
  CHECK(poll().exit_code == 1);  // an empty body: not heard
  serve(titled_feed({"three", "one", "two"}));
  REQUIRE(poll().exit_code == 0);  // the return: heard, with one item added
  const auto heard = lines(slurp(dir + "/log"));
  INFO(slurp(dir + "/log"));
  REQUIRE(heard.size() == 2);
  CHECK(heard[1].starts_with(archive.head().substr(0, 40)));
  CHECK(heard[1].find("1 added") != std::string::npos);
  CHECK(heard[1].find("removed") == std::string::npos);
  CHECK(heard[1].find("reappeared") == std::string::npos);
}
