// Adopting a permanent redirect edits the user's feeddiff.toml: the one url, in place, every
// other byte kept; and never over uncommitted edits, which the commit's checkout would
// overwrite (the redirect then waits, and poll and status say why).

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>

#include "feeddiff/failpoint.h"
#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// /old answers 301 to /new, which serves a new version of the feed each time.
HttpServer moving_server() {
  auto versions = std::make_shared<std::atomic<int>>(0);
  return HttpServer([versions](const RecordedRequest& request) {
    if (request.target == "/old") return Reply{.status = 301, .headers = {{"Location", "/new"}}};
    return Reply{.body = rss("v" + std::to_string(++*versions))};
  });
}

void commit_config(CliArchive& archive, const std::string& text) {
  spit(archive.dir() + "/feeddiff.toml", text);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "my config",
                    "feeddiff.toml"})
              .exit_code == 0);
}

// Polls at the next hour of the three (the sources poll hourly).
RunResult poll_at(CliArchive& archive, const char* now) {
  archive.set_now(now);
  auto r = archive({"poll"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  return r;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

constexpr const char* kTimes[] = {"2026-10-01T06:00:00.000Z", "2026-10-01T07:00:00.000Z",
                                  "2026-10-01T08:00:00.000Z", "2026-10-01T09:00:00.000Z"};

}  // namespace

TEST_CASE("an adopted redirect changes only the url in feeddiff.toml, comments and all kept",
          "[poll]") {
  HttpServer server = moving_server();
  CliArchive archive("redirect-config-bytes", kTimes[0]);
  const std::string old_url = server.url("/old"), new_url = server.url("/new");
  REQUIRE(archive({"add", "moving", old_url}).exit_code == 0);
  const std::string neighbour_url = server.url("/another");
  auto layout = [&](const std::string& url) {
    return "# My feeds, by hand.\n\n[sources.another]   # a neighbour\nurl = '" + neighbour_url +
           "'\nevery=\"1h\"\n\n[sources.moving]\n  # was: url = \"" + old_url +
           "\"\n  url   =   \"" + url + "\"   # keep this comment\n  every = 3600\n";
  };
  const std::string mine = layout(old_url);
  commit_config(archive, mine);

  poll_at(archive, kTimes[0]);
  poll_at(archive, kTimes[1]);
  auto third = poll_at(archive, kTimes[2]);
  CHECK(third.out.find("moving: changed") != std::string::npos);
  CHECK(third.out.find("adopted permanent redirect: " + old_url + " -> " + new_url) !=
        std::string::npos);

  // The url's value changed, not the comment above it that holds the same text.
  const std::string expected = layout(new_url);
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == expected);
  CHECK(archive.git({"show", "HEAD:feeddiff.toml"}).out == expected);
  // The two sources' transfers finish in either order: the adoption is the last commit that
  // touched feeddiff.toml, not always the last commit.
  CHECK(archive.git({"log", "-1", "--format=%s", "--", "feeddiff.toml"}).out ==
        "moving: moved to " + new_url + "\n");
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
  CHECK(status_json(archive, "moving")["url"] == new_url);
  CHECK(status_json(archive, "another")["url"] == neighbour_url);
}

TEST_CASE("a redirect is not adopted over uncommitted edits of feeddiff.toml, and says so",
          "[poll]") {
  HttpServer server = moving_server();
  CliArchive archive("redirect-config-dirty", kTimes[0]);
  const std::string old_url = server.url("/old"), new_url = server.url("/new");
  REQUIRE(archive({"add", "moving", old_url}).exit_code == 0);
  poll_at(archive, kTimes[0]);
  poll_at(archive, kTimes[1]);
  const std::string committed = slurp(archive.dir() + "/feeddiff.toml");

  // Edits in progress, not committed.
  const std::string edited =
      replaced(committed, "every = \"1h\"", "every = \"1h\"  # slower soon?") + "# TODO\n";
  spit(archive.dir() + "/feeddiff.toml", edited);

  // The feed's change is still recorded; the redirect waits.
  const std::string head_before = archive.head();
  auto third = poll_at(archive, kTimes[2]);
  CHECK(third.out.find("moving: changed") != std::string::npos);
  CHECK(third.out.find("permanent redirect to " + new_url +
                       " seen 3 polls in a row, not adopted: feeddiff.toml has uncommitted "
                       "changes (commit or undo them)") != std::string::npos);
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == edited);
  CHECK(archive.git({"show", "HEAD:feeddiff.toml"}).out == committed);
  CHECK(archive.git({"rev-list", "--count", head_before.substr(0, 40) + "..HEAD"}).out == "1\n");
  CHECK(archive.git({"log", "-1", "--format=%s"}).out.starts_with("moving: changed"));
  auto st = status_json(archive, "moving");
  CHECK(st["pending_redirect"]["target"] == new_url);
  CHECK(st["pending_redirect"]["seen"] == 3);
  CHECK(status_text(archive, "moving")
            .find("permanent redirect to " + new_url +
                  " seen 3 polls in a row, not adopted while feeddiff.toml has uncommitted "
                  "changes (commit or undo them)") != std::string::npos);

  // Once the edits are committed, the next poll adopts it, into the edited file.
  commit_config(archive, edited);
  CHECK(status_text(archive, "moving").find("adopted by the next poll that sees it") !=
        std::string::npos);
  auto fourth = poll_at(archive, kTimes[3]);
  CHECK(fourth.out.find("adopted permanent redirect: " + old_url + " -> " + new_url) !=
        std::string::npos);
  CHECK(slurp(archive.dir() + "/feeddiff.toml") == replaced(edited, old_url, new_url));
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
}

namespace {

// A poll as if the source's own URL were on the Internet: a build made for tests counts the
// address the source's URL connects to (127.0.0.1 here) as public when
// FEEDDIFF_TEST_PUBLIC_ORIGIN is set (src/fetch/transfer.cc). Only loopback is ever reached.
RunResult poll_from_public(const CliArchive& archive, const char* now) {
  return run_feeddiff(
      {"-C", archive.dir(), "poll", "--force"},
      {{"FEEDDIFF_NOW", now}, {"NO_COLOR", "1"}, {"FEEDDIFF_TEST_PUBLIC_ORIGIN", "1"}});
}

}  // namespace

TEST_CASE(
    "a redirect from a public origin into loopback is refused: nothing fetched there is "
    "committed, and the redirect is never adopted",
    "[poll]") {
  if (!feeddiff::failpoints_built()) {
    WARN("a build not made for tests ignores FEEDDIFF_TEST_PUBLIC_ORIGIN: nothing to check");
    return;
  }
  auto target = std::make_shared<std::string>();
  HttpServer server([target](const RecordedRequest& request) {
    if (request.target == "/old") return Reply{.status = 301, .headers = {{"Location", *target}}};
    return Reply{.body = rss("inside")};
  });
  // By a name that resolves to 127.0.0.1 (a new connection, refused before it is made), and
  // to the origin's own host and port (libcurl re-uses the connection: the answer is refused
  // before its body is read).
  const std::string by_name = "http://localhost:" + std::to_string(server.port()) + "/inside";
  for (const std::string& inside : {by_name, server.url("/inside")}) {
    INFO(inside);
    *target = inside;
    CliArchive archive("redirect-private", kTimes[0]);
    const std::string old_url = server.url("/old");
    REQUIRE(archive({"add", "moving", old_url}).exit_code == 0);
    const std::size_t requests_before = server.request_count();
    for (const char* now : kTimes) {
      auto r = poll_from_public(archive, now);
      INFO(r.out << r.err);
      CHECK(r.exit_code == 1);
      // localhost may be tried as ::1 and as 127.0.0.1: the message names the last refused.
      const std::string said = r.out + r.err;
      CHECK(said.find(old_url + ": refused to follow the redirect to " + inside +
                      ": it leads to ") != std::string::npos);
      CHECK((said.find("it leads to 127.0.0.1, a loopback address") != std::string::npos ||
             said.find("it leads to ::1, a loopback address") != std::string::npos));
      CHECK(said.find("(a source whose feed really moved there can allow it: "
                      "allow_private_redirects = true)") != std::string::npos);
    }
    if (inside == by_name) {
      // Nothing was sent there: only /old was asked, once a poll.
      const auto seen = server.requests();
      CHECK(seen.size() - requests_before == 4);
      for (std::size_t i = requests_before; i < seen.size(); ++i) CHECK(seen[i].target == "/old");
    }
    CHECK(archive.git({"log", "--format=%s", "--", "raw/"}).out.empty());
    CHECK(archive.git({"show", "HEAD:feeddiff.toml"}).out.find("url = \"" + old_url + "\"") !=
          std::string::npos);
    auto st = status_json(archive, "moving");
    CHECK(st["url"] == old_url);
    CHECK((!st.contains("pending_redirect") || st["pending_redirect"].is_null()));
  }
}

TEST_CASE("a source with allow_private_redirects = true follows a redirect into loopback",
          "[poll]") {
  if (!feeddiff::failpoints_built()) {
    WARN("a build not made for tests ignores FEEDDIFF_TEST_PUBLIC_ORIGIN: nothing to check");
    return;
  }
  auto target = std::make_shared<std::string>();
  HttpServer server([target](const RecordedRequest& request) {
    if (request.target == "/old") return Reply{.status = 302, .headers = {{"Location", *target}}};
    return Reply{.body = rss("inside")};
  });
  *target = "http://localhost:" + std::to_string(server.port()) + "/inside";
  CliArchive archive("redirect-private-allowed", kTimes[0]);
  REQUIRE(archive({"add", "moving", server.url("/old")}).exit_code == 0);
  // The key goes in the file's one table, [sources.moving].
  commit_config(archive,
                slurp(archive.dir() + "/feeddiff.toml") + "allow_private_redirects = true\n");

  auto r = poll_from_public(archive, kTimes[0]);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(archive.git({"log", "--format=%s", "--", "raw/"}).out.starts_with("moving: "));
  REQUIRE(server.request_count() == 2);
  CHECK(server.requests().back().target == "/inside");
}
