// The notify service called as a library, no feeddiff process: an archive recorded with the
// store, a PollReport naming its commits, notify_changes running real /bin/sh hooks and
// posting to a real loopback server, the lines it tells collected from its sinks. The
// end-to-end cases (poll's output, timeouts, a hook that hangs) are in tests/poll.

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/notify.h"
#include "feeddiff/render.h"
#include "support/http_server.h"
#include "support/process.h"
#include "support/recorded_archive.h"

using namespace feeddiff;
using namespace feeddiff::test;

namespace {

// An RSS feed with one item per title (ids a, b, c, ...).
std::string feed(const std::vector<std::string>& titles) {
  std::string body = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>News</title>\n";
  for (std::size_t i = 0; i < titles.size(); ++i)
    body += "<item><guid>" + std::string(1, static_cast<char>('a' + i)) + "</guid><title>" +
            titles[i] + "</title></item>\n";
  return body + "</channel></rss>\n";
}

// Commits feeddiff.toml with source `news` and `notify` as its [notify] table; with
// `trusted`, records this machine's consent to its hooks as `feeddiff trust --all` does.
void configure(RecordedArchive& recorded, const NotifyConfig& notify, bool trusted = true) {
  auto archive = recorded.open();
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
  if (!trusted) return;
  auto hooks = hook_values(archive, config);
  REQUIRE(hooks);
  REQUIRE(trust_hooks(archive, *hooks, {"exec", "webhook"}));
}

// A poll's report that committed `commit` for source news (or looked at it, for not_modified).
PollReport report_of(Outcome outcome, const std::string& commit = "") {
  PollReport report;
  SourceOutcome o;
  o.name = "news";
  o.outcome = outcome;
  o.commit = commit;
  report.sources.push_back(o);
  return report;
}

// Sinks that keep what they are told.
struct Told {
  std::vector<std::string> notes;
  std::vector<std::string> problems;
  NotifySinks sinks() {
    return {[this](std::string_view l) { notes.emplace_back(l); },
            [this](std::string_view l) { problems.emplace_back(l); }};
  }
};

NotifyOptions options() {
  NotifyOptions o;
  o.connect_timeout = 5'000;
  o.now = *parse_iso8601("2026-10-05T05:00:00Z");
  return o;
}

std::vector<std::string> pending(const Archive& archive) {
  auto state = load_state(archive);
  REQUIRE(state);
  return state->sources["news"].pending_notifications;
}

// The change as `show --format json COMMIT` prints it.
std::string json_of(const Archive& archive, const std::string& commit) {
  auto change = load_change(archive, {.revision = commit, .source = "news"});
  REQUIRE(change);
  return render_json((*change)->view, RenderOptions{});
}

}  // namespace

TEST_CASE("an exec hook gets the change's JSON on stdin and its commit, source and URL",
          "[notify]") {
  RecordedArchive recorded("notify-lib-exec", {"news"});
  const std::string out = make_temp_dir("notify-lib-exec-out");
  NotifyConfig notify;
  notify.exec = "cat > '" + out + "/stdin'; env | grep ^FEEDDIFF_ | sort > '" + out + "/env'";
  configure(recorded, notify);
  const std::string commit = recorded.record("news", feed({"One", "Two"}));
  auto archive = recorded.open();

  Told told;
  auto done = notify_changes(archive, report_of(Outcome::added, commit), options(), told.sinks());
  REQUIRE(done);
  CHECK(done->failures == 0);
  CHECK(done->delivered == 1);
  CHECK(done->waiting == 0);
  CHECK(told.notes.empty());
  CHECK(told.problems.empty());
  CHECK(slurp(out + "/stdin") == json_of(archive, commit));
  CHECK(lines_of(slurp(out + "/env")) ==
        std::vector<std::string>{"FEEDDIFF_COMMIT=" + commit, "FEEDDIFF_KIND=feed",
                                 "FEEDDIFF_SOURCE=news",
                                 "FEEDDIFF_URL=https://example.com/news.xml"});
  CHECK(pending(archive).empty());
}

TEST_CASE("a webhook that fails is told without its credentials, kept, and delivered later",
          "[notify]") {
  int answer = 500;
  HttpServer receiver([&answer](const RecordedRequest&) { return Reply{.status = answer}; });
  RecordedArchive recorded("notify-lib-webhook", {"news"});
  std::string url = receiver.url("/hook?token=t0ken");
  url.insert(url.find("127.0.0.1"), "user:s3cret@");
  NotifyConfig notify;
  notify.webhook = url;
  configure(recorded, notify);
  const std::string commit = recorded.record("news", feed({"One"}));
  auto archive = recorded.open();

  Told told;
  auto failed = notify_changes(archive, report_of(Outcome::added, commit), options(), told.sinks());
  REQUIRE(failed);
  CHECK(failed->failures == 1);
  CHECK(failed->delivered == 0);
  CHECK(told.problems ==
        std::vector<std::string>{
            "news: notify failed: webhook: http://127.0.0.1:" + std::to_string(receiver.port()) +
            ": HTTP 500 (commit " + commit.substr(0, 7) + "; retried at the next poll)"});
  CHECK(pending(archive) == std::vector<std::string>{commit});

  // The next poll brings nothing new: the pending delivery goes through.
  answer = 204;
  Told again;
  auto delivered =
      notify_changes(archive, report_of(Outcome::not_modified), options(), again.sinks());
  REQUIRE(delivered);
  CHECK(delivered->failures == 0);
  CHECK(delivered->delivered == 1);
  CHECK(again.problems.empty());
  CHECK(pending(archive).empty());
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].method == "POST");
  CHECK(requests[1].target == "/hook?token=t0ken");
  CHECK(requests[1].body == json_of(archive, commit));
}

TEST_CASE("a hook this machine has not trusted does not run, and its notification waits",
          "[notify]") {
  RecordedArchive recorded("notify-lib-untrusted", {"news"});
  const std::string out = make_temp_dir("notify-lib-untrusted-out");
  NotifyConfig notify;
  notify.exec = "touch '" + out + "/ran'";
  configure(recorded, notify, /*trusted=*/false);
  const std::string commit = recorded.record("news", feed({"One"}));
  auto archive = recorded.open();

  Told told;
  auto done = notify_changes(archive, report_of(Outcome::added, commit), options(), told.sinks());
  REQUIRE(done);
  CHECK(done->waiting == 1);
  CHECK(done->failures == 1);
  CHECK(done->delivered == 0);
  CHECK_FALSE(std::filesystem::exists(out + "/ran"));
  REQUIRE(told.problems.size() == 1);
  CHECK(told.problems[0].starts_with("notify: not run, not trusted on this machine: exec \"touch"));
  CHECK(pending(archive) == std::vector<std::string>{commit});

  auto config = load_config(archive);
  REQUIRE(config);
  auto hooks = hook_values(archive, *config);
  REQUIRE(hooks);
  REQUIRE(hooks->size() == 1);
  CHECK_FALSE((*hooks)[0].trusted);
  CHECK((*hooks)[0].sources == std::vector<std::string>{"news"});
  REQUIRE(trust_hooks(archive, *hooks, {"exec"}));
  auto delivered = notify_changes(archive, report_of(Outcome::not_modified), options(), {});
  REQUIRE(delivered);
  CHECK(delivered->delivered == 1);
  CHECK(std::filesystem::exists(out + "/ran"));
}

TEST_CASE("after = 2 holds a change, tells the note sink, and delivers it at the next look",
          "[notify]") {
  RecordedArchive recorded("notify-lib-after", {"news"});
  const std::string out = make_temp_dir("notify-lib-after-out");
  NotifyConfig notify;
  notify.exec = "cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + out + "/log'";
  notify.after = 2;
  configure(recorded, notify);
  const std::string commit = recorded.record("news", feed({"One"}));
  auto archive = recorded.open();

  Told held;
  auto first = notify_changes(archive, report_of(Outcome::added, commit), options(), held.sinks());
  REQUIRE(first);
  CHECK(first->delivered == 0);
  CHECK(held.notes == std::vector<std::string>{"news: " + commit.substr(0, 7) +
                                               " held: notified if still so after 2 polls "
                                               "(after = 2)"});
  CHECK_FALSE(std::filesystem::exists(out + "/log"));

  Told released;
  auto second =
      notify_changes(archive, report_of(Outcome::not_modified), options(), released.sinks());
  REQUIRE(second);
  CHECK(second->delivered == 1);
  CHECK(released.notes == std::vector<std::string>{"news: " + commit.substr(0, 7) +
                                                   " still so after 2 polls: notifying"});
  CHECK(lines_of(slurp(out + "/log")) == std::vector<std::string>{commit});
}

TEST_CASE("poll_digest lists what a poll's commit changed, and nothing for no commit", "[notify]") {
  RecordedArchive recorded("notify-lib-digest", {"news"});
  recorded.record("news", feed({"One", "Two"}));
  const std::string commit = recorded.record("news", feed({"One, edited", "Two", "Three"}));
  auto archive = recorded.open();

  const std::string digest = poll_digest(archive, report_of(Outcome::changed, commit));
  CHECK(digest.starts_with("feeddiff: 1 source changed\n\nnews (changed, commit " +
                           commit.substr(0, 7) + "): "));
  CHECK(digest.find("\n  added    Three\n") != std::string::npos);
  CHECK(digest.find("\n  changed  One, edited (title)\n           title: One -> One, edited\n") !=
        std::string::npos);
  CHECK(poll_digest(archive, report_of(Outcome::not_modified)).empty());
}

TEST_CASE("post_webhook names only the origin of a URL that carries credentials and a token",
          "[notify]") {
  HttpServer receiver([](const RecordedRequest&) { return Reply{.status = 404}; });
  std::string url = receiver.url("/hook?token=t0ken");
  url.insert(url.find("127.0.0.1"), "user:s3cret@");
  const HookRun run = post_webhook(url, "{}", 5'000, 5'000);
  CHECK_FALSE(run.ok);
  CHECK(run.why == "http://127.0.0.1:" + std::to_string(receiver.port()) + ": HTTP 404");
  CHECK(receiver.requests().at(0).body == "{}");
}
