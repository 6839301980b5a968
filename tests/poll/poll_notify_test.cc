// [notify] hooks and `poll --digest`: after a poll commits a change, a real /bin/sh command
// gets the change's JSON and its environment, a webhook on a real loopback server gets the
// POST; a hook that fails or hangs never costs the commit and is retried; cosmetic-only
// changes stay quiet unless asked; the digest is readable and inert.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// A feed built at `built` (lastBuildDate, a volatile field) with one item per title.
std::string feed(const std::string& built, const std::vector<std::string>& titles) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel>"
      "<title>Feed</title><link>http://example.com/</link><description>d</description>"
      "<lastBuildDate>" +
      built + "</lastBuildDate>\n";
  for (std::size_t i = 0; i < titles.size(); ++i)
    body += "<item><title>" + titles[i] + "</title><guid>item-" + std::to_string(i) +
            "</guid></item>\n";
  return body + "</channel></rss>\n";
}

const std::string kMonday = "Mon, 05 Oct 2026 05:00:00 GMT";
const std::string kTuesday = "Tue, 06 Oct 2026 05:00:00 GMT";

// Adds source `news`, appends `toml` to feeddiff.toml, commits it and trusts its hooks (a
// hand edit, which runs only once this machine consents: tests/cli/trust_test.cc).

// The source's object in .git/feeddiff/state.json.
nlohmann::json state_of(const CliArchive& archive, const std::string& name) {
  auto doc = nlohmann::json::parse(slurp(archive.dir() + "/.git/feeddiff/state.json"));
  return doc["sources"][name];
}

// A hook script that keeps what it was given: stdin in <dir>/<commit>.json, the FEEDDIFF_
// variables in <dir>/<commit>.env, and the commit appended to <dir>/log.
std::string recording_hook(const std::string& dir) {
  const std::string script = dir + "/hook.sh";
  spit(
      script,
      "#!/bin/sh\n"
      "cat > \"$HOOK_DIR/$FEEDDIFF_COMMIT.json\"\n"
      "env | grep -E '^FEEDDIFF_(COMMIT|SOURCE|URL)=' | sort > \"$HOOK_DIR/$FEEDDIFF_COMMIT.env\"\n"
      "echo \"$FEEDDIFF_COMMIT\" >> \"$HOOK_DIR/log\"\n");
  return "HOOK_DIR='" + dir + "' sh '" + script + "'";
}

std::string hook_log(const std::string& dir) {
  return std::filesystem::exists(dir + "/log") ? slurp(dir + "/log") : "";
}

}  // namespace

TEST_CASE(
    "a hook gets the change's JSON on stdin and its commit, source and URL in its "
    "environment",
    "[poll]") {
  std::string body = feed(kMonday, {"one", "two"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-exec");
  const std::string hooks = make_temp_dir("notify-exec-hook");
  add_news(archive, server.url("/feed"),
           "\n[sources.news.notify]\nexec = \"" + recording_hook(hooks) + "\"\n");

  auto first = poll_forced(archive);
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  const std::string added = archive.head().substr(0, 40);
  body = feed(kTuesday, {"one", "two changed", "three"});
  auto second = poll_forced(archive);
  INFO(second.out << second.err);
  REQUIRE(second.exit_code == 0);
  const std::string changed = archive.head().substr(0, 40);
  REQUIRE(changed != added);

  CHECK(lines_of(hook_log(hooks)) == std::vector<std::string>{added, changed});
  for (const std::string& commit : {added, changed}) {
    auto show = archive({"show", "--format", "json", commit});
    REQUIRE(show.exit_code == 0);
    CHECK(slurp(hooks + "/" + commit + ".json") == show.out);
    CHECK(lines_of(slurp(hooks + "/" + commit + ".env")) ==
          std::vector<std::string>{"FEEDDIFF_COMMIT=" + commit, "FEEDDIFF_SOURCE=news",
                                   "FEEDDIFF_URL=" + server.url("/feed")});
  }
  auto doc = nlohmann::json::parse(slurp(hooks + "/" + changed + ".json"));
  CHECK(doc["source"] == "news");
  CHECK_FALSE(state_of(archive, "news").contains("pending_notifications"));
}

TEST_CASE("a hook that fails is reported and kept pending, and the next poll delivers it",
          "[poll]") {
  std::string body = feed(kMonday, {"one"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-fail");
  const std::string hooks = make_temp_dir("notify-fail-hook");
  // Fails until the file `ok` exists; logs every attempt.
  add_news(archive, server.url("/feed"),
           "\n[notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + hooks +
               "/log'; test -e '" + hooks + "/ok'\"\n");
  const int commits_before = commit_count(archive);

  auto failing = poll_forced(archive);
  INFO(failing.out << failing.err);
  CHECK(failing.exit_code == 1);
  const std::string commit = archive.head().substr(0, 40);
  CHECK(commit_count(archive) == commits_before + 1);  // the commit is there all the same
  CHECK(failing.out.find("news: added") != std::string::npos);
  CHECK(failing.err.find("news: notify failed: exec: exit status 1 (commit " + commit.substr(0, 7) +
                         "; retried at the next poll)\n") != std::string::npos);
  auto st = state_of(archive, "news");
  CHECK(st["pending_notifications"] == nlohmann::json::array({commit}));
  CHECK(st["notify_error"].get<std::string>().find("exit status 1") != std::string::npos);
  CHECK(st["last_result"] == "added");

  // Still failing: retried (the feed answers 304, no new commit), still pending.
  auto again = poll_forced(archive);
  CHECK(again.exit_code == 1);
  CHECK(commit_count(archive) == commits_before + 1);
  CHECK(state_of(archive, "news")["pending_notifications"] == nlohmann::json::array({commit}));

  spit(hooks + "/ok", "");
  auto delivered = poll_forced(archive);
  INFO(delivered.out << delivered.err);
  CHECK(delivered.exit_code == 0);
  CHECK(delivered.err.empty());
  CHECK(lines_of(hook_log(hooks)) == std::vector<std::string>{commit, commit, commit});
  st = state_of(archive, "news");
  CHECK_FALSE(st.contains("pending_notifications"));
  CHECK_FALSE(st.contains("notify_error"));

  // Delivered means done: the next poll runs nothing.
  CHECK(poll_forced(archive).exit_code == 0);
  CHECK(lines_of(hook_log(hooks)).size() == 3);
}

TEST_CASE(
    "a hook that hangs past its timeout is killed with what it started, and the commit "
    "stays",
    "[poll]") {
  // Its JSON is larger than a pipe holds (64 KiB on Linux): a blocking write to a hook that
  // never reads would hang feeddiff past any timeout.
  std::vector<std::string> titles;
  for (int i = 0; i < 300; ++i) titles.push_back(std::to_string(i) + std::string(400, 'x'));
  std::string body = feed(kMonday, titles);
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-hang");
  const std::string hooks = make_temp_dir("notify-hang-hook");
  // Never reads stdin, starts a child of its own that holds a lock for as long as it lives,
  // says so once the lock is held, and waits far past the timeout.
  const std::string lock = hooks + "/lock";
  add_news(archive, server.url("/feed"),
           "\n[notify]\nexec = \"flock '" + lock + "' sleep 600 & while flock -n '" + lock +
               "' true; do :; done; echo $! > '" + hooks + "/child'; wait\"\ntimeout = \"1s\"\n");

  auto r = poll_forced(archive);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("news: notify failed: exec: timed out after 1s, killed") != std::string::npos);
  CHECK(in_head(archive, "raw/news/response.xml"));
  CHECK(state_of(archive, "news")["pending_notifications"].size() == 1);
  CHECK(archive({"show", "--format", "json"}).out.size() > 65536);
  // The shell's child was in the hook's process group: killed too. It held the lock while
  // it ran, so the lock is free once it is dead (a zombie holds no lock); a child that
  // survived would hold it for ten minutes. The wait only lets the kill land.
  REQUIRE(std::filesystem::exists(hooks + "/child"));  // the child ran and held the lock
  const int fd = ::open(lock.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  bool freed = false;
  for (int tries = 0; tries < 200 && !freed; ++tries) {
    freed = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!freed) ::usleep(50'000);
  }
  ::close(fd);
  CHECK(freed);
}

TEST_CASE("no hook runs for a cosmetic-only change unless cosmetic = true", "[poll]") {
  std::string body = feed(kMonday, {"one"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-cosmetic");
  const std::string hooks = make_temp_dir("notify-cosmetic-hook");
  add_news(
      archive, server.url("/feed"),
      "\n[notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT >> '" + hooks + "/log'\"\n");
  REQUIRE(poll_forced(archive).exit_code == 0);
  CHECK(lines_of(hook_log(hooks)).size() == 1);

  // Only lastBuildDate moves: a commit (skip_cosmetic is off), no hook.
  body = feed(kTuesday, {"one"});
  const int before = commit_count(archive);
  REQUIRE(poll_forced(archive).exit_code == 0);
  CHECK(commit_count(archive) == before + 1);
  CHECK(lines_of(hook_log(hooks)).size() == 1);
  CHECK_FALSE(state_of(archive, "news").contains("pending_notifications"));

  // The source asks for cosmetic changes too.
  spit(archive.dir() + "/feeddiff.toml",
       slurp(archive.dir() + "/feeddiff.toml") + "\n[sources.news.notify]\ncosmetic = true\n");
  body = feed("Wed, 07 Oct 2026 05:00:00 GMT", {"one"});
  REQUIRE(poll_forced(archive).exit_code == 0);
  CHECK(lines_of(hook_log(hooks)) ==
        std::vector<std::string>{lines_of(hook_log(hooks)).at(0), archive.head().substr(0, 40)});
}

TEST_CASE(
    "a webhook receives the change's JSON as a POST, and its credentials are never "
    "printed",
    "[poll]") {
  std::string body = feed(kMonday, {"one"});
  HttpServer server = serve_changing(&body);
  int answer = 500;
  HttpServer receiver([&answer](const RecordedRequest&) { return Reply{.status = answer}; });
  CliArchive archive("notify-webhook");
  std::string hook_url = receiver.url("/hook?token=t0ken");
  hook_url.insert(hook_url.find("127.0.0.1"), "user:s3cret@");
  add_news(archive, server.url("/feed"), "\n[notify]\nwebhook = \"" + hook_url + "\"\n");

  auto failing = poll_forced(archive);
  INFO(failing.out << failing.err);
  CHECK(failing.exit_code == 1);
  CHECK(failing.err.find("news: notify failed: webhook: ") != std::string::npos);
  CHECK(failing.err.find("HTTP 500") != std::string::npos);
  CHECK(failing.err.find(
            "news: notify failed: webhook: http://127.0.0.1:" + std::to_string(receiver.port()) +
            ": HTTP 500 (commit ") != std::string::npos);
  const std::string state = slurp(archive.dir() + "/.git/feeddiff/state.json");
  for (const char* secret : {"s3cret", "t0ken"}) {
    CHECK(failing.err.find(secret) == std::string::npos);
    CHECK(state.find(secret) == std::string::npos);
  }

  answer = 200;
  auto ok = poll_forced(archive);
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 2);
  const std::string commit = archive.head().substr(0, 40);
  auto show = archive({"show", "--format", "json", commit});
  for (const auto& request : requests) {
    CHECK(request.method == "POST");
    CHECK(request.target == "/hook?token=t0ken");
    CHECK(request.header("Content-Type") == "application/json");
    CHECK(request.header("Authorization").has_value());  // user:s3cret went as Basic auth
    CHECK(request.body == show.out);
  }
  CHECK_FALSE(state_of(archive, "news").contains("pending_notifications"));
}

TEST_CASE(
    "a webhook without a path at a closed port fails, is reported and retried, and the poll "
    "finishes with the change committed",
    "[poll]") {
  std::string body = feed(kMonday, {"one"});
  HttpServer server = serve_changing(&body);
  // A port nothing listens on: a server's, once it is gone.
  auto gone = std::make_unique<HttpServer>([](const RecordedRequest&) { return Reply{}; });
  const std::string port = std::to_string(gone->port());
  gone.reset();
  CliArchive archive("notify-webhook-down");
  // No path, not even "/": the URL is its own origin, and credentials go unprinted.
  add_news(archive, server.url("/feed"),
           "\n[notify]\nwebhook = \"http://user:s3cret@127.0.0.1:" + port + "\"\n");
  const int commits_before = commit_count(archive);

  // Killed after a minute at the latest: a poll that spins in notify fails here instead
  // of hanging the suite.
  auto r = run({"timeout", "-s", "KILL", "60", FEEDDIFF_BINARY, "-C", archive.dir(), "poll",
                "--force", "--timeout", "5s"},
               {{"FEEDDIFF_NOW", "2026-10-01T05:54:04.027Z"}, {"NO_COLOR", "1"}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 1);
  const std::string commit = archive.head().substr(0, 40);
  CHECK(commit_count(archive) == commits_before + 1);
  CHECK(in_head(archive, "raw/news/response.xml"));
  CHECK(r.out.find("news: added") != std::string::npos);
  const std::string reported = "news: notify failed: webhook: http://127.0.0.1:" + port + ": ";
  const auto at = r.err.find(reported);
  REQUIRE(at != std::string::npos);
  CHECK(r.err.find("(commit " + commit.substr(0, 7) + "; retried at the next poll)\n", at) !=
        std::string::npos);
  auto st = state_of(archive, "news");
  CHECK(st["pending_notifications"] == nlohmann::json::array({commit}));
  CHECK(st["notify_error"].get<std::string>().starts_with("webhook: http://127.0.0.1:" + port +
                                                          ": "));
  CHECK(r.err.find("s3cret") == std::string::npos);
  CHECK(slurp(archive.dir() + "/.git/feeddiff/state.json").find("s3cret") == std::string::npos);
}

TEST_CASE("poll --digest summarizes what changed, and a hostile title stays inert", "[poll]") {
  std::string body = feed(kMonday, {"calm", "stays", "leaves"});
  HttpServer server = serve_changing(&body);
  CliArchive archive("notify-digest");
  add_news(archive, server.url("/feed"), "");
  auto first = poll_forced(archive, {"--digest", "--quiet"});
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out.starts_with("feeddiff: 1 source changed\n\nnews (added, commit "));
  CHECK(first.out.find("  added    calm\n") != std::string::npos);

  // item-0's title turns hostile, item-2 leaves, item-3 arrives.
  const std::string evil =
      "\x1b]0;pwned\x07 \xc2\x9b"
      "31m \xe2\x80\xae"
      "fdp.exe";
  body = feed(kTuesday, {evil, "stays", "arrives"});
  body.replace(body.find("<guid>item-2</guid>"), 19, "<guid>item-3</guid>");
  auto r = poll_forced(archive, {"--digest", "--quiet"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string commit = archive.head().substr(0, 7);
  // item-2, the last (oldest), went while the others stay: it aged out of the window.
  CHECK(r.out.find("news (changed, commit " + commit + "): 1 added, 1 aged out, 1 changed") !=
        std::string::npos);
  CHECK(r.out.find("  added    arrives\n") != std::string::npos);
  CHECK(r.out.find("  aged out leaves\n") != std::string::npos);
  // The parser drops the C0 controls XML forbids; the C1 CSI and the bidi override it keeps
  // come out as visible escapes.
  CHECK(r.out.find("  changed  ]0;pwned \\u009b31m \\u202efdp.exe (title)\n") != std::string::npos);
  CHECK(r.out.find("           title: calm -> ]0;pwned \\u009b31m \\u202efdp.exe\n") !=
        std::string::npos);
  for (const char* raw : {"\x1b", "\x07", "\xc2\x9b", "\xe2\x80\xae"})
    CHECK(r.out.find(raw) == std::string::npos);

  // Nothing changed: the digest says nothing (cron mails nothing).
  auto quiet = poll_forced(archive, {"--digest", "--quiet"});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.out.empty());
}
