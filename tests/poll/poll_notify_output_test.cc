// What poll prints around its hooks, byte for byte: the lines of a change held by `after`
// (held, released, changed back, reverted) on stdout, the whole `--digest`, and the line that
// says a hook waits for trust on stderr. The other notify tests look for parts of them; these
// pin all of it, so that moving notify about cannot change a byte unseen.

#include <catch2/catch.hpp>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// An RSS feed with one item, id x, titled `title`, built on `day` (lastBuildDate: volatile).
std::string one_item(const std::string& title, const std::string& day) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
         "<title>Feed</title><link>http://example.com/</link><description>d</description>"
         "<lastBuildDate>" +
         day + ", 05 Oct 2026 05:00:00 GMT</lastBuildDate>\n<item><title>" + title +
         "</title><guid>x</guid><description>t</description></item>\n</channel></rss>\n";
}

std::string head7(const CliArchive& archive) {
  return archive.head().substr(0, 7);
}

}  // namespace

TEST_CASE("poll prints a held change's lines exactly: held, released, changed back, reverted",
          "[poll][notify]") {
  std::string body = one_item("Title A", "Mon");
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-lines-after");
  const std::string hooks = make_temp_dir("notify-lines-after-hook");
  add_news(archive, server.url("/feed"),
           "\n[sources.news.notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + hooks +
               "/log'\"\nafter = 2\n");
  REQUIRE(body.size() < 1000);  // the byte counts below are written without separators
  const std::string size = std::to_string(body.size());

  auto first = poll_forced(archive);
  const std::string c1 = head7(archive);
  CHECK(first.exit_code == 0);
  CHECK(first.err.empty());
  CHECK(first.out == "news: added (" + size + " bytes, HTTP 200) " + c1 + "\nnews: " + c1 +
                         " held: notified if still so after 2 polls (after = 2)\n");

  auto second = poll_forced(archive);
  CHECK(second.exit_code == 0);
  CHECK(second.err.empty());
  CHECK(second.out == "news: " + c1 + " still so after 2 polls: notifying\n");

  body = one_item("Title B", "Tue");
  auto third = poll_forced(archive);
  const std::string c2 = head7(archive);
  CHECK(third.out == "news: changed (" + size + " bytes, HTTP 200) " + c2 + "\nnews: " + c2 +
                         " held: notified if still so after 2 polls (after = 2)\n");

  body = one_item("Title A", "Wed");
  auto fourth = poll_forced(archive);
  const std::string c3 = head7(archive);
  CHECK(fourth.exit_code == 0);
  CHECK(fourth.err.empty());
  CHECK(fourth.out == "news: changed (" + size + " bytes, HTTP 200) " + c3 + "\nnews: " + c3 +
                          " changes back what " + c2 + " changed: recorded, not notified\nnews: " +
                          c2 + " reverted within 2 polls: recorded, not notified\n");

  // --quiet keeps them all off stdout.
  body = one_item("Title C", "Thu");
  auto quiet = poll_forced(archive, {"--quiet"});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.empty());
  CHECK(quiet.err.empty());
}

TEST_CASE("poll --digest's whole text for a change of three items", "[poll][notify]") {
  const auto feed = [](const std::vector<std::pair<std::string, std::string>>& items) {
    std::string body =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
        "<title>Feed</title><link>http://example.com/</link><description>d</description>\n";
    for (const auto& [id, title] : items)
      body += "<item><title>" + title + "</title><guid>" + id +
              "</guid><description>Some words here</description></item>\n";
    return body + "</channel></rss>\n";
  };
  std::string body = feed({{"a", "Alpha"}, {"b", "Beta"}, {"c", "Gamma"}});
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-lines-digest");
  add_news(archive, server.url("/feed"), "");
  auto first = poll_forced(archive, {"--digest"});
  const std::string c1 = head7(archive);
  CHECK(first.exit_code == 0);
  CHECK(first.out == "news: added (" + std::to_string(body.size()) + " bytes, HTTP 200) " + c1 +
                         "\nfeeddiff: 1 source changed\n\nnews (added, commit " + c1 +
                         "): 3 added; channel fields changed\n  added    Alpha\n  added    Beta\n  "
                         "added    Gamma\n");

  body = feed({{"d", "Delta"}, {"a", "Alpha, again"}, {"b", "Beta"}});
  body.replace(body.find("<guid>b</guid><description>Some words here"),
               std::string("<guid>b</guid><description>Some words here").size(),
               "<guid>b</guid><description>Some other words here");
  auto second = poll_forced(archive, {"--digest", "--quiet"});
  const std::string c2 = head7(archive);
  CHECK(second.exit_code == 0);
  CHECK(second.err.empty());
  CHECK(second.out == "feeddiff: 1 source changed\n\nnews (changed, commit " + c2 +
                          "): 1 added, 1 aged out, 2 changed\n"
                          "  added    Delta\n"
                          "  changed  Alpha, again (title)\n"
                          "           title: Alpha -> Alpha, again\n"
                          "  changed  Beta (summary)\n"
                          "           summary: Some {+other +}words here\n"
                          "  aged out Gamma\n");
}

TEST_CASE("poll says on stderr, in one line, which hooks wait for trust", "[poll][notify]") {
  std::string body = rss("one");
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-lines-trust");
  REQUIRE(archive({"add", "news", server.url("/feed")}).exit_code == 0);
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") +
           "\n[notify]\nexec = \"cat > /dev/null\"\nwebhook = \"http://u:p@127.0.0.1:9/h?t=1\"\n");
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "hooks",
                    "feeddiff.toml"})
              .exit_code == 0);
  auto r = poll_forced(archive);
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "notify: not run, not trusted on this machine: exec \"cat > /dev/null\" (for news); "
        "webhook http://127.0.0.1:9 (for news); 1 notification kept pending. A hook that came "
        "with a clone, a sync or a pull, or was edited by hand, runs only once you consent (as "
        "git's safe.directory): review it with `feeddiff trust`, then run `feeddiff trust "
        "--all`\n");
}
