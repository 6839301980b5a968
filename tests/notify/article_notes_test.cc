// Article edits (docs/articles.md) through notify, called as a library: article versions
// committed as poll commits them, a PollReport naming them as the article phase does, real
// /bin/sh hooks that write their stdin to a file, a webhook posting to a real loopback
// server. An edit notifies by the item rules (a `changed` item: title, authors, published,
// content); a first capture and an uncertain extraction notify nothing; the digest has a
// section of the source's edits.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/message.h"
#include "feeddiff/notify.h"
#include "feeddiff/render.h"
#include "support/http_server.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace fs = std::filesystem;

namespace {

std::string article_body(const std::string& word) {
  std::string out;
  for (int i = 0; i < 6; ++i)
    out += "Sentence " + (i == 2 ? word : std::to_string(i)) +
           " of the report on the council and the bridge.\n\n";
  return out;
}

// An archive with source news, its [notify] table, and versions of the article of item g-1.
class ArticleNewsroom {
 public:
  explicit ArticleNewsroom(const NotifyConfig& notify) : recorded_("notify-articles", {"news"}) {
    auto archive = recorded_.open();
    Config config;
    SourceConfig news;
    news.name = "news";
    news.url = "https://example.com/news.xml";
    config.sources.push_back(news);
    config.notify = notify;
    CommitRequest request;
    request.message = "feeddiff: hooks\n";
    request.author_time = request.commit_time = *parse_iso8601("2024-12-31T00:00:00Z");
    request.files.push_back({"feeddiff.toml", format_config(config)});
    REQUIRE(archive.commit(request));
    auto hooks = hook_values(archive, config);
    REQUIRE(hooks);
    REQUIRE(trust_hooks(archive, *hooks, {"exec", "webhook"}));
    recorded_.record("news",
                     "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>N"
                     "</title>\n<item><guid>g-1</guid><title>One</title></item>\n"
                     "</channel></rss>\n");
  }

  // kind: "added", "changed" or "uncertain"; the commit's id.
  std::string version(const std::string& kind, const std::string& headline,
                      const std::string& text) {
    auto archive = recorded_.open();
    clock_ += 60'000;
    ++page_;
    const bool uncertain = kind == "uncertain";
    CommitRequest request;
    request.message =
        "news: article " + std::string(uncertain ? "archived, extraction uncertain" : kind) + ": " +
        headline +
        "\n\nSource: news\nChange-Class: " + (uncertain ? "article-uncertain" : "article") +
        "\nArticle-URL: https://example.com/a/1\nItem-Id: g-1\n" +
        (uncertain ? "Extraction-Uncertain: HTTP 404\n" : "") +
        "Observed-At: " + format_iso8601_ms(clock_) + "\nStatus: 200\n";
    request.author_time = request.commit_time = clock_;
    const std::string dir = "articles/news/ab/ab12/";
    request.files.push_back({dir + "page.html", "<html>" + std::to_string(page_) + "</html>"});
    if (!uncertain)
      request.files.push_back(
          {dir + "article.txt", format_article_file({headline, "Jane Doe", "2026-10-01", text})});
    auto made = archive.commit(request);
    REQUIRE(made);
    REQUIRE(made->has_value());
    return **made;
  }

  Archive open() const { return recorded_.open(); }

 private:
  RecordedArchive recorded_;
  TimeMs clock_ = *parse_iso8601("2026-10-01T00:00:00Z");
  int page_ = 0;
};

// The poll's report of one article outcome of item g-1 (result as poll names it).
PollReport article_report(const std::string& result, const std::string& commit = "") {
  PollReport report;
  report.articles.push_back({"news", "g-1", "https://example.com/a/1", result, "", commit});
  return report;
}

NotifyOptions article_options() {
  NotifyOptions o;
  o.connect_timeout = 5'000;
  o.now = *parse_iso8601("2026-10-05T05:00:00Z");
  return o;
}

struct ArticleTold {
  std::vector<std::string> notes;
  std::vector<std::string> problems;
  NotifySinks sinks() {
    return {[this](std::string_view l) { notes.emplace_back(l); },
            [this](std::string_view l) { problems.emplace_back(l); }};
  }
};

// A hook that keeps each commit's stdin and FEEDDIFF_ environment under dir.
NotifyConfig keeping_hook(const std::string& dir) {
  NotifyConfig notify;
  notify.exec = "cat > '" + dir + "/'$FEEDDIFF_COMMIT.json; env | grep ^FEEDDIFF_ | sort > '" +
                dir + "/'$FEEDDIFF_COMMIT.env";
  return notify;
}

std::string article_json_of(const Archive& archive, const std::string& commit) {
  auto view = load_article_change(archive, commit);
  REQUIRE(view);
  return render_article_json(*view);
}

}  // namespace

TEST_CASE("an article edit runs the exec hook with its JSON, a capture and a doubt do not",
          "[notify]") {
  const std::string out = make_temp_dir("notify-articles-exec");
  ArticleNewsroom news(keeping_hook(out));
  const std::string added = news.version("added", "Bridge", article_body("three"));
  const std::string edited = news.version("changed", "Bridge", article_body("four"));
  const std::string doubt = news.version("uncertain", "Bridge", "");
  auto archive = news.open();

  PollReport report;
  report.articles = {{"news", "g-1", "https://example.com/a/1", "added", "", added},
                     {"news", "g-1", "https://example.com/a/1", "changed", "", edited},
                     {"news", "g-1", "https://example.com/a/1", "uncertain", "", doubt}};
  ArticleTold told;
  auto done = notify_changes(archive, report, article_options(), told.sinks());
  REQUIRE(done);
  CHECK(done->failures == 0);
  CHECK(done->delivered == 1);
  CHECK(told.problems.empty());
  CHECK(slurp(out + "/" + edited + ".json") == article_json_of(archive, edited));
  CHECK(slurp(out + "/" + edited + ".json").find("\"kind\": \"article\"") != std::string::npos);
  CHECK(lines_of(slurp(out + "/" + edited + ".env")) ==
        std::vector<std::string>{"FEEDDIFF_COMMIT=" + edited, "FEEDDIFF_KIND=article",
                                 "FEEDDIFF_SOURCE=news",
                                 "FEEDDIFF_URL=https://example.com/news.xml"});
  CHECK_FALSE(fs::exists(out + "/" + added + ".json"));
  CHECK_FALSE(fs::exists(out + "/" + doubt + ".json"));
}

TEST_CASE("a webhook receives an article edit's JSON over HTTP", "[notify]") {
  HttpServer receiver([](const RecordedRequest&) { return Reply{.status = 204}; });
  NotifyConfig notify;
  notify.webhook = receiver.url("/hook");
  ArticleNewsroom news(notify);
  news.version("added", "Bridge", article_body("three"));
  const std::string edited = news.version("changed", "Bridge put off", article_body("three"));
  auto archive = news.open();

  auto done = notify_changes(archive, article_report("changed", edited), article_options(), {});
  REQUIRE(done);
  CHECK(done->delivered == 1);
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].body == article_json_of(archive, edited));
  CHECK(requests[0].body.find("\"headline\": {\n    \"old\": \"Bridge\",\n    \"new\": "
                              "\"Bridge put off\"") != std::string::npos);
}

TEST_CASE("an article edit follows the item rules: kinds, fields and match", "[notify]") {
  const std::string out = make_temp_dir("notify-articles-rules");
  const auto delivered = [&](NotifyConfig notify, const std::string& headline,
                             const std::string& word) {
    ArticleNewsroom news(notify);
    news.version("added", "Bridge", article_body("three"));
    const std::string edited = news.version("changed", headline, article_body(word));
    auto archive = news.open();
    auto done = notify_changes(archive, article_report("changed", edited), article_options(), {});
    REQUIRE(done);
    return done->delivered;
  };
  NotifyConfig notify = keeping_hook(out);
  notify.fields = {"title"};
  CHECK(delivered(notify, "Bridge", "four") == 0);           // the body only
  CHECK(delivered(notify, "Bridge put off", "three") == 1);  // the headline
  notify.fields = {"content"};
  CHECK(delivered(notify, "Bridge", "four") == 1);
  notify.fields.reset();
  notify.kinds = {"added", "removed"};  // an edit is a changed item
  CHECK(delivered(notify, "Bridge put off", "four") == 0);
  notify.kinds = {"changed"};
  notify.match = {"COUNCIL"};
  CHECK(delivered(notify, "Bridge", "four") == 1);
  notify.match = {"tunnel"};
  CHECK(delivered(notify, "Bridge", "four") == 0);
}

TEST_CASE("after = 2 holds an article edit until the article is fetched again, still edited",
          "[notify]") {
  const std::string out = make_temp_dir("notify-articles-after");
  NotifyConfig notify = keeping_hook(out);
  notify.after = 2;
  ArticleNewsroom news(notify);
  news.version("added", "Bridge", article_body("three"));
  const std::string edited = news.version("changed", "Bridge", article_body("four"));
  auto archive = news.open();

  ArticleTold held;
  auto first =
      notify_changes(archive, article_report("changed", edited), article_options(), held.sinks());
  REQUIRE(first);
  CHECK(first->delivered == 0);
  CHECK(held.notes == std::vector<std::string>{"news: " + edited.substr(0, 7) +
                                               " held: notified if still so after 2 polls "
                                               "(after = 2)"});
  // A poll that did not fetch the article again tells nothing.
  PollReport feed_only;
  SourceOutcome looked;
  looked.name = "news";
  looked.outcome = Outcome::not_modified;
  feed_only.sources.push_back(looked);
  auto nothing = notify_changes(archive, feed_only, article_options(), {});
  REQUIRE(nothing);
  CHECK(nothing->delivered == 0);
  CHECK_FALSE(fs::exists(out + "/" + edited + ".json"));
  // The article fetched again, its text the same: the edit stayed.
  ArticleTold released;
  auto second =
      notify_changes(archive, article_report("unchanged"), article_options(), released.sinks());
  REQUIRE(second);
  CHECK(second->delivered == 1);
  CHECK(fs::exists(out + "/" + edited + ".json"));
}

TEST_CASE("an article edit changed back within after = 2 is recorded, never notified", "[notify]") {
  const std::string out = make_temp_dir("notify-articles-flip");
  NotifyConfig notify = keeping_hook(out);
  notify.after = 2;
  ArticleNewsroom news(notify);
  news.version("added", "Bridge", article_body("three"));
  const std::string edited = news.version("changed", "Bridge", article_body("four"));
  auto archive = news.open();
  REQUIRE(notify_changes(archive, article_report("changed", edited), article_options(), {}));

  const std::string back = news.version("changed", "Bridge", article_body("three"));
  archive = news.open();
  ArticleTold told;
  auto done =
      notify_changes(archive, article_report("changed", back), article_options(), told.sinks());
  REQUIRE(done);
  CHECK(done->delivered == 0);
  CHECK(told.notes ==
        std::vector<std::string>{
            "news: " + back.substr(0, 7) + " changes back what " + edited.substr(0, 7) +
                " changed: recorded, not notified",
            "news: " + edited.substr(0, 7) + " reverted within 2 polls: recorded, not notified"});
  CHECK_FALSE(fs::exists(out + "/" + edited + ".json"));
  CHECK_FALSE(fs::exists(out + "/" + back + ".json"));
}

TEST_CASE("the digest has a section of a source's article edits, escaped and capped", "[notify]") {
  ArticleNewsroom news(NotifyConfig{});
  const std::string added = news.version("added", "Bridge", article_body("three"));
  const std::string edited =
      news.version("changed", "Bridge \x1b]0;owned\x07 put off", article_body("four"));
  auto archive = news.open();

  PollReport report;
  report.articles = {{"news", "g-1", "https://example.com/a/1", "added", "", added},
                     {"news", "g-1", "https://example.com/a/1", "changed", "", edited}};
  const std::string digest = poll_digest(archive, report);
  CHECK(digest ==
        "feeddiff: 1 source changed\n\nnews (articles): 1 edited\n"
        "  edited   Bridge \\x1b]0;owned\\x07 put off\n"
        "           url: https://example.com/a/1\n"
        "           headline: Bridge -> Bridge \\x1b]0;owned\\x07 put off\n"
        "           body: ... the bridge. Sentence 1 of the report on the council and the "
        "bridge. Sentence [-three-]{+four+} of the report on the ...\n");
  // A first capture alone is no edit: nothing to tell.
  CHECK(poll_digest(archive, article_report("added", added)).empty());

  PollReport many;
  for (int i = 0; i < 22; ++i)
    many.articles.push_back({"news", "g-1", "https://example.com/a/1", "changed", "", edited});
  const std::string capped = poll_digest(archive, many);
  CHECK(capped.find("news (articles): 22 edited\n") != std::string::npos);
  CHECK(capped.find("  ... and 2 more\n") != std::string::npos);
  std::size_t shown = 0;
  for (auto at = capped.find("  edited   "); at != std::string::npos;
       at = capped.find("  edited   ", at + 1))
    ++shown;
  CHECK(shown == 20);
}
