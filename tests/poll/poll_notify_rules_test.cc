// Notification rules ([notify] kinds, fields, match, after): real polls of a loopback feed,
// and an exec hook that records each commit it was run for. A rule picks which item changes
// notify; `after` holds a change until it has stayed, and a flip that reverts in time is
// recorded and reported, never notified.

#include <catch2/catch.hpp>
#include <filesystem>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

struct Entry {
  std::string id;
  std::string title;
  std::string text;
};

// An RSS feed of these items, built at `built` (lastBuildDate: volatile, cosmetic).
std::string feed_of(const std::vector<Entry>& entries, const std::string& built = "Mon") {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>"
      "<lastBuildDate>" +
      built + ", 05 Oct 2026 05:00:00 GMT</lastBuildDate>\n";
  for (const Entry& e : entries)
    body += "<item><title>" + e.title + "</title><guid>" + e.id + "</guid><description>" + e.text +
            "</description></item>\n";
  return body + "</channel></rss>\n";
}

// Source `news` with a recording exec hook and `rules` in its [sources.news.notify] table,
// committed and trusted; the hook appends each commit it runs for to <hooks>/log.
void add_news(const CliArchive& archive, const std::string& url, const std::string& hooks,
              const std::string& rules) {
  add_news(archive, url,
           "\n[sources.news.notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + hooks +
               "/log'\"\n" + rules);
}

std::vector<std::string> hook_lines(const std::string& hooks) {
  std::vector<std::string> out;
  if (!std::filesystem::exists(hooks + "/log")) return out;
  const std::string text = slurp(hooks + "/log");
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("a title-only rule does not fire on a content edit and fires on a title edit",
          "[poll][notify]") {
  std::string body = feed_of({{"a", "First", "body one"}, {"b", "Second", "body two"}});
  HttpServer server = serve_changing(&body);
  CliArchive archive("rules-title");
  const std::string hooks = make_temp_dir("rules-title-hook");
  add_news(archive, server.url("/feed"), hooks, "fields = [\"title\"]\n");
  poll_ok(archive);  // the first version: every item added, no title changed
  CHECK(hook_lines(hooks).empty());

  body = feed_of({{"a", "First", "body one, edited"}, {"b", "Second", "body two"}});
  poll_ok(archive);
  const std::string content_edit = archive.head().substr(0, 40);
  CHECK(hook_lines(hooks).empty());

  // An added item is no title change either.
  body = feed_of(
      {{"c", "Third", "new"}, {"a", "First", "body one, edited"}, {"b", "Second", "body two"}});
  poll_ok(archive);
  CHECK(hook_lines(hooks).empty());

  body = feed_of({{"c", "Third", "new"},
                  {"a", "First, retitled", "body one, edited"},
                  {"b", "Second", "body two"}});
  poll_ok(archive);
  const std::string title_edit = archive.head().substr(0, 40);
  REQUIRE(title_edit != content_edit);
  CHECK(hook_lines(hooks) == std::vector<std::string>{title_edit});
}

TEST_CASE("kinds picks the item changes that notify: only added items", "[poll][notify]") {
  std::string body = feed_of({{"a", "First", "x"}});
  HttpServer server = serve_changing(&body);
  CliArchive archive("rules-kinds");
  const std::string hooks = make_temp_dir("rules-kinds-hook");
  add_news(archive, server.url("/feed"), hooks, "kinds = [\"added\"]\n");
  poll_ok(archive);  // the first version: its items are added
  const std::string first = archive.head().substr(0, 40);
  CHECK(hook_lines(hooks) == std::vector<std::string>{first});

  body = feed_of({{"a", "First, edited", "x"}});  // changed only
  poll_ok(archive);
  body = feed_of({});  // removed only
  poll_ok(archive);
  CHECK(hook_lines(hooks).size() == 1);

  body = feed_of({{"n", "New", "y"}});
  poll_ok(archive);
  CHECK(hook_lines(hooks) == std::vector<std::string>{first, archive.head().substr(0, 40)});
}

TEST_CASE("a match rule notifies only for items whose title or text holds the words",
          "[poll][notify]") {
  std::string body = feed_of({{"a", "Release notes", "nothing to see"}});
  HttpServer server = serve_changing(&body);
  CliArchive archive("rules-match");
  const std::string hooks = make_temp_dir("rules-match-hook");
  add_news(archive, server.url("/feed"), hooks,
           "kinds = [\"added\"]\nmatch = [\"security\", \"CVE-\"]\n");
  poll_ok(archive);
  CHECK(hook_lines(hooks).empty());  // no item of the first version matches

  body = feed_of({{"b", "Weekly digest", "more of the same"}, {"a", "Release notes", "x"}});
  poll_ok(archive);
  CHECK(hook_lines(hooks).empty());

  // In the text, markup stripped, letters compared without case.
  body = feed_of({{"c", "Update 2.4", "fixes &lt;b&gt;cve-&lt;/b&gt;2026-0001"},
                  {"b", "Weekly digest", "more of the same"},
                  {"a", "Release notes", "x"}});
  poll_ok(archive);
  const std::string in_text = archive.head().substr(0, 40);
  CHECK(hook_lines(hooks) == std::vector<std::string>{in_text});

  body = feed_of({{"d", "SECURITY advisory", "read it"},
                  {"c", "Update 2.4", "fixes &lt;b&gt;cve-&lt;/b&gt;2026-0001"},
                  {"b", "Weekly digest", "more of the same"},
                  {"a", "Release notes", "x"}});
  poll_ok(archive);
  CHECK(hook_lines(hooks) == std::vector<std::string>{in_text, archive.head().substr(0, 40)});
}

TEST_CASE("after = 2 does not fire for an A-B-A flip and fires once for a change that stays",
          "[poll][notify]") {
  const std::vector<Entry> a = {{"x", "Title A", "t"}};
  const std::vector<Entry> b = {{"x", "Title B", "t"}};
  std::string body = feed_of(a, "Mon");
  HttpServer server = serve_changing(&body);
  CliArchive archive("rules-after");
  const std::string hooks = make_temp_dir("rules-after-hook");
  add_news(archive, server.url("/feed"), hooks, "after = 2\n");

  poll_ok(archive);  // the first version, held
  const std::string first = archive.head().substr(0, 40);
  CHECK(hook_lines(hooks).empty());
  poll_ok(archive);  // still so: notified
  CHECK(hook_lines(hooks) == std::vector<std::string>{first});

  // A-B-A: B is recorded and held; A comes back (lastBuildDate moved on, so it is a new
  // version, not a byte-identical one) before the second poll: nothing is notified.
  body = feed_of(b, "Tue");
  poll_ok(archive);
  const std::string flip = archive.head().substr(0, 40);
  body = feed_of(a, "Wed");
  auto back = poll_ok(archive);
  CHECK_THAT(back.out, Catch::Contains(flip.substr(0, 7) + " reverted within 2 polls"));
  poll_ok(archive);
  CHECK(hook_lines(hooks) == std::vector<std::string>{first});
  CHECK_THAT(status_text(archive, "news"),
             Catch::Contains("last held change " + flip.substr(0, 7) + " reverted after 1 poll"));
  CHECK(status_json(archive, "news")["held_notifications"] == 0);

  // A change that stays: held at its poll, notified at the next, once.
  body = feed_of(b, "Thu");
  poll_ok(archive);
  const std::string stays = archive.head().substr(0, 40);
  CHECK(status_json(archive, "news")["held_notifications"] == 1);
  CHECK(hook_lines(hooks) == std::vector<std::string>{first});
  poll_ok(archive);
  poll_ok(archive);
  CHECK(hook_lines(hooks) == std::vector<std::string>{first, stays});
}
