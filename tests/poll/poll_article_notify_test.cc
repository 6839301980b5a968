// Article edits reach the hooks and the digest of a real poll (docs/notify.md, "Article
// edits"): the built binary polls a feed whose item links to a page on the scripted server;
// the page's body is edited between polls; `poll --digest` lists the edit and an exec hook
// (a script that keeps its stdin) gets the article's JSON with FEEDDIFF_KIND=article, while
// the first capture notified nothing.

#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

std::string edit_page(const std::string& word) {
  std::string text;
  for (int i = 0; i < 10; ++i)
    text += "Sentence " + (i == 4 ? word : std::to_string(i)) +
            " of the report on the bridge and the council. ";
  return "<!doctype html><html><head><title>Bridge vote</title></head><body><article><h1>"
         "Bridge vote</h1><p>" +
         text + "</p><p>" + text + "</p></article></body></html>";
}

}  // namespace

TEST_CASE("a poll's article edit runs the hook with the article's JSON and is in the digest",
          "[poll][articles]") {
  std::mutex mutex;
  std::string page = edit_page("four");
  std::string base;  // the server's, once it listens
  HttpServer server([&](const RecordedRequest& request) {
    std::lock_guard<std::mutex> lock(mutex);
    if (request.target == "/a/one") return Reply{200, {{"Content-Type", "text/html"}}, page};
    if (request.target == "/feed")
      return Reply{200,
                   {{"Content-Type", "application/rss+xml"}},
                   "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>N</title><link>" +
                       base +
                       "/</link><description>d</description><item><title>one</title><guid>g-one"
                       "</guid><link>" +
                       base + "/a/one</link></item></channel></rss>"};
    return Reply{404, {{"Content-Type", "text/plain"}}, "no"};
  });
  {
    std::lock_guard<std::mutex> lock(mutex);
    base = server.url("");
    if (base.ends_with('/')) base.pop_back();
  }
  CliArchive archive("article-notify", "2026-10-01T06:00:00.000Z");
  const std::string hooks = make_temp_dir("article-notify-hook");
  spit(hooks + "/hook.sh",
       "#!/bin/sh\ncat > \"$HOOK_DIR/$FEEDDIFF_COMMIT.json\"\n"
       "echo \"$FEEDDIFF_KIND $FEEDDIFF_COMMIT\" >> \"$HOOK_DIR/log\"\n");
  REQUIRE(archive({"add", "news", server.url("/feed"), "--articles"}).exit_code == 0);
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") + "\n[sources.news.notify]\nexec = \"HOOK_DIR='" +
           hooks + "' sh '" + hooks + "/hook.sh'\"\nkinds = [\"changed\"]\n");
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "notify",
                    "feeddiff.toml"})
              .exit_code == 0);
  trust_all_hooks(archive);

  const auto poll = [&](const std::string& now) {
    return run_feeddiff({"-C", archive.dir(), "poll", "--timeout", "5s", "--digest"},
                        {{"FEEDDIFF_NOW", now}, {"NO_COLOR", "1"}});
  };
  auto first = poll("2026-10-01T06:00:00.000Z");
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  // The first capture is no edit: the digest has no article section, the hook did not run
  // for it (kinds = ["changed"]: the feed's first version, all added, does not notify either).
  CHECK(first.out.find("(articles)") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(hooks + "/log"));

  {
    std::lock_guard<std::mutex> lock(mutex);
    page = edit_page("five");
  }
  auto second = poll("2026-10-01T13:00:00.000Z");
  INFO(second.out << second.err);
  REQUIRE(second.exit_code == 0);
  const std::string edit = archive.head().substr(0, 40);
  CHECK(archive.git({"log", "-1", "--format=%s"}).out == "news: article changed: Bridge vote\n");
  CHECK(second.out.find("news (articles): 1 edited\n  edited   Bridge vote\n") !=
        std::string::npos);
  CHECK(second.out.find("[-four-]{+five+}") != std::string::npos);
  CHECK(lines_of(slurp(hooks + "/log")) == std::vector<std::string>{"article " + edit});
  auto doc = nlohmann::json::parse(slurp(hooks + "/" + edit + ".json"));
  CHECK(doc["kind"] == "article");
  CHECK(doc["commit"] == edit);
  CHECK(doc["body_changed"] == true);
  auto show = archive({"show", "--format", "json", edit});
  REQUIRE(show.exit_code == 0);
  CHECK(slurp(hooks + "/" + edit + ".json") == show.out);
}
