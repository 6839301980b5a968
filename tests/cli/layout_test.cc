// The layouts of raw/: flat raw/NAME/ and fan-out raw/hh/NAME/ (docs/layout.md), declared in
// feeddiff.toml, written by poll, changed by `migrate`, and read per commit by every command.

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "cli/cli_helpers.h"
#include "cli/git_daemon.h"

using namespace feeddiff::test;

namespace {

// hashlib.sha1(name.encode()).hexdigest()[:2], as bench/scale/generate files them; computed
// apart from feeddiff so that a wrong bucket cannot agree with itself.
constexpr const char* kAlphaBucket = "be";
constexpr const char* kBetaBucket = "a2";

// Version N of a small RSS feed: one item whose title names the version, per path.
std::string feed_body(const std::string& path, int version) {
  return "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><title>" + path +
         "</title>\n<item><guid>" + path + "-1</guid><title>Post " + std::to_string(version) +
         " of " + path + "</title></item>\n</channel></rss>\n";
}

struct Feeds {
  std::atomic<int> version{1};
  HttpServer server{[this](const RecordedRequest& request) {
    return Reply{.status = 200,
                 .headers = {{"Content-Type", "application/rss+xml"}},
                 .body = feed_body(request.target, version.load())};
  }};
};

// The files of HEAD's tree under raw/.
std::vector<std::string> raw_files(const CliArchive& archive) {
  return lines_of(archive.git({"ls-tree", "-r", "--name-only", "HEAD", "raw"}).out);
}

// `log NAME`'s commit ids, newest first.
std::vector<std::string> log_ids(const CliArchive& archive, const std::string& name) {
  auto r = archive({"log", name, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> ids;
  std::size_t at = 0;
  while ((at = r.out.find("\"id\": \"", at)) != std::string::npos) {
    at += 7;
    ids.push_back(r.out.substr(at, 40));
  }
  return ids;
}

void poll_at(CliArchive& archive, const std::string& now) {
  archive.set_now(now);
  auto r = archive({"poll", "--force"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

// Declares the fan-out layout as a user may by hand: the key before the first table of
// feeddiff.toml, committed with git, not `migrate`.
void declare_fanout_by_hand(CliArchive& archive) {
  const std::string toml = archive.dir() + "/feeddiff.toml";
  spit(toml, "layout = \"fanout\"\n" + slurp(toml));
  REQUIRE(archive
              .git({"-c", "user.name=u", "-c", "user.email=u@example.org", "commit", "-q", "-am",
                    "fan out"})
              .exit_code == 0);
}

}  // namespace

TEST_CASE("a poll into a fan-out archive writes raw/hh/NAME/response.xml", "[cli][layout]") {
  Feeds feeds;
  CliArchive archive("layout-poll");
  REQUIRE(archive({"add", "alpha", feeds.server.url("/alpha")}).exit_code == 0);
  declare_fanout_by_hand(archive);

  poll_at(archive, "2026-10-01T06:00:00.000Z");
  const std::string path = std::string("raw/") + kAlphaBucket + "/alpha/response.xml";
  CHECK(raw_files(archive) == std::vector<std::string>{path});
  CHECK(slurp(archive.dir() + "/" + path) == feed_body("/alpha", 1));

  feeds.version = 2;
  poll_at(archive, "2026-10-01T07:00:00.000Z");
  CHECK(raw_files(archive) == std::vector<std::string>{path});
  CHECK(log_ids(archive, "alpha").size() == 2);
  auto show = archive({"show", "HEAD"});
  INFO(show.out << show.err);
  CHECK(show.exit_code == 0);
  CHECK(show.out.find(path) != std::string::npos);
  CHECK(show.out.find("Post 2 of /alpha") != std::string::npos);
  auto cat = archive({"cat", "HEAD~1"});
  CHECK(cat.exit_code == 0);
  CHECK(cat.out == feed_body("/alpha", 1));
  CHECK(archive({"history", "alpha"}).exit_code == 0);
  CHECK(archive({"status"}).exit_code == 0);
}

TEST_CASE("migrate moves every source in one commit and every command reads both sides",
          "[cli][layout]") {
  Feeds feeds;
  CliArchive archive("layout-migrate");
  REQUIRE(archive({"add", "alpha", feeds.server.url("/alpha")}).exit_code == 0);
  REQUIRE(archive({"add", "beta", feeds.server.url("/beta")}).exit_code == 0);
  poll_at(archive, "2026-10-01T06:00:00.000Z");
  const std::string v1 = archive.head().substr(0, 40);  // beta's v1 is HEAD, alpha's HEAD~1
  feeds.version = 2;
  poll_at(archive, "2026-10-01T07:00:00.000Z");
  const auto before = log_ids(archive, "alpha");
  REQUIRE(before.size() == 2);
  CHECK(raw_files(archive) ==
        std::vector<std::string>{"raw/alpha/response.xml", "raw/beta/response.xml"});
  const std::string commits_before = archive.git({"rev-list", "--count", "HEAD"}).out;

  archive.set_now("2026-10-01T07:30:00.000Z");
  auto migrated = archive({"migrate", "--layout", "fanout"});
  INFO(migrated.out << migrated.err);
  REQUIRE(migrated.exit_code == 0);
  CHECK(migrated.out.find("Moved 2 sources") != std::string::npos);
  const std::string migration = archive.head().substr(0, 40);
  CHECK(std::stoi(archive.git({"rev-list", "--count", "HEAD"}).out) ==
        std::stoi(commits_before) + 1);
  CHECK(archive.git({"log", "-1", "--format=%s"}).out == "migrate: raw/ to the fan-out layout\n");
  CHECK(archive.git({"log", "-1", "--format=%B"}).out.find("Source:") == std::string::npos);
  CHECK(raw_files(archive) ==
        std::vector<std::string>{std::string("raw/") + kBetaBucket + "/beta/response.xml",
                                 std::string("raw/") + kAlphaBucket + "/alpha/response.xml"});
  CHECK(slurp(archive.dir() + "/feeddiff.toml").find("layout = \"fanout\"") != std::string::npos);
  CHECK(!std::filesystem::exists(archive.dir() + "/raw/alpha"));
  CHECK(archive.git({"status", "--porcelain"}).out.empty());
  auto fsck = archive.git({"fsck", "--strict"});
  INFO(fsck.err);
  CHECK(fsck.exit_code == 0);

  // The migration is no change of a source: log NAME runs across it.
  CHECK(log_ids(archive, "alpha") == before);

  feeds.version = 3;
  poll_at(archive, "2026-10-01T08:00:00.000Z");
  CHECK(raw_files(archive) ==
        std::vector<std::string>{std::string("raw/") + kBetaBucket + "/beta/response.xml",
                                 std::string("raw/") + kAlphaBucket + "/alpha/response.xml"});
  CHECK(slurp(archive.dir() + "/raw/" + kAlphaBucket + "/alpha/response.xml") ==
        feed_body("/alpha", 3));
  const auto after = log_ids(archive, "alpha");
  REQUIRE(after.size() == 3);
  CHECK(after[1] == before[0]);
  CHECK(after[2] == before[1]);
  CHECK(std::find(after.begin(), after.end(), migration) == after.end());
  // The source index is a cache: rebuilt from nothing, it says the same.
  std::filesystem::remove_all(archive.dir() + "/.git/feeddiff/index");
  CHECK(log_ids(archive, "alpha") == after);

  // show of a change before the migration and of one after it.
  auto old_show = archive({"show", before[0], "alpha"});
  INFO(old_show.out << old_show.err);
  CHECK(old_show.exit_code == 0);
  CHECK(old_show.out.find("raw/alpha/response.xml") != std::string::npos);
  CHECK(old_show.out.find("Post 2 of /alpha") != std::string::npos);
  auto new_show = archive({"show", after[0]});
  INFO(new_show.out << new_show.err);
  CHECK(new_show.exit_code == 0);
  CHECK(new_show.out.find(std::string("raw/") + kAlphaBucket + "/alpha/response.xml") !=
        std::string::npos);
  CHECK(new_show.out.find("Post 3 of /alpha") != std::string::npos);
  // Item summaries on both sides (the versions cache spans the migration).
  auto items = archive({"log", "alpha", "--items"});
  INFO(items.out << items.err);
  CHECK(items.exit_code == 0);
  const auto item_lines = lines_of(items.out);
  REQUIRE(item_lines.size() == 3);
  CHECK(item_lines[0].find("changed    Post 3 of /alpha") != std::string::npos);
  CHECK(item_lines[1].find("changed    Post 2 of /alpha") != std::string::npos);
  CHECK(item_lines[2].find("added      Post 1 of /alpha") != std::string::npos);
  auto cat = archive({"cat", v1, "beta"});
  CHECK(cat.exit_code == 0);
  CHECK(cat.out == feed_body("/beta", 1));
  CHECK(archive({"items", v1, "beta"}).exit_code == 0);
  CHECK(archive({"diff", v1, "HEAD", "beta"}).exit_code <= 1);
  auto history = archive({"history", "alpha", "--format", "json"});
  CHECK(history.exit_code == 0);
  CHECK(history.out.find("Post 3 of /alpha") != std::string::npos);
  CHECK(archive({"status"}).exit_code == 0);

  // site: a page for each change on both sides, none for the migration.
  const std::string site = make_temp_dir("layout-site");
  auto built = archive({"site", site});
  INFO(built.out << built.err);
  CHECK(built.exit_code == 0);
  for (const std::string& id : after)
    CHECK(std::filesystem::exists(site + "/changes/" + id + ".html"));
  CHECK(!std::filesystem::exists(site + "/changes/" + migration + ".html"));
  // export-sqlite: alpha's three versions of its one item, two of them before the migration.
  const std::string db = make_temp_dir("layout-sqlite") + "/feeds.db";
  auto exported = archive({"export-sqlite", "alpha", "--db", db});
  INFO(exported.out << exported.err);
  CHECK(exported.exit_code == 0);
  auto versions = run({"sqlite3", db, "select count(*) from item_version"});
  CHECK(versions.out == "3\n");

  // Again: nothing to do, no commit.
  const std::string head = archive.head();
  auto again = archive({"migrate", "--layout", "fanout"});
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already") != std::string::npos);
  CHECK(archive.head() == head);

  // And back: flat again, the history still whole.
  auto back = archive({"migrate", "--layout", "flat"});
  INFO(back.out << back.err);
  CHECK(back.exit_code == 0);
  CHECK(raw_files(archive) ==
        std::vector<std::string>{"raw/alpha/response.xml", "raw/beta/response.xml"});
  CHECK(log_ids(archive, "alpha") == after);
  CHECK(archive.git({"fsck", "--strict"}).exit_code == 0);
}

TEST_CASE("a layout that is neither flat nor fanout is a one-line error", "[cli][layout]") {
  CliArchive archive("layout-bad");
  REQUIRE(archive({"add", "alpha", "http://127.0.0.1:1/alpha"}).exit_code == 0);
  const std::string toml = archive.dir() + "/feeddiff.toml";
  spit(toml, "layout = \"x\"\n" + slurp(toml));
  auto r = archive({"status"});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "feeddiff: error: feeddiff.toml line 1: layout must be \"flat\" or \"fanout\"\n");
  auto m = archive({"migrate", "--layout", "x"});
  CHECK(m.exit_code == 2);
  CHECK(m.err.find("--layout must be flat or fanout") != std::string::npos);
}

TEST_CASE("two pollers syncing sources that share a fan-out bucket both keep their versions",
          "[cli][layout][sync]") {
  // s1 and s186 both hash to bucket 64: each poller's replay must merge inside raw/64/, not
  // take the bucket whole from one side.
  Feeds feeds;
  const std::string base = make_temp_dir("layout-sync");
  CliArchive origin("layout-sync-origin");
  spit(origin.dir() + "/feeddiff.toml", "layout = \"fanout\"\n\n[sources.s1]\nurl = \"" +
                                            feeds.server.url("/s1") +
                                            "\"\nshard = 0\n\n[sources.s186]\nurl = \"" +
                                            feeds.server.url("/s186") + "\"\nshard = 1\n");
  REQUIRE(origin.git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "sources"})
              .exit_code == 0);
  REQUIRE(run({"git", "init", "-q", "--bare", base + "/feeds.git"}).exit_code == 0);
  REQUIRE(origin.git({"push", "-q", base + "/feeds.git", "HEAD:refs/heads/main"}).exit_code == 0);
  REQUIRE(run({"git", "-C", base + "/feeds.git", "symbolic-ref", "HEAD", "refs/heads/main"})
              .exit_code == 0);
  GitDaemon daemon(base);
  daemon.wait_for("feeds.git");
  for (const std::string name : {"p0", "p1"})
    REQUIRE(run_feeddiff({"-C", base, "clone", daemon.url("feeds.git"), name}).exit_code == 0);
  const Env env = {{"FEEDDIFF_SYNC_BACKOFF", "5,200"}, {"NO_COLOR", "1"}};
  for (int round = 1; round <= 2; ++round) {
    feeds.version = round;
    for (const std::string k : {"0", "1"}) {  // one after the other: p1 replays onto p0's
      auto r = run_feeddiff(
          {"-C", base + "/p" + k, "poll", "--shard", k + "/2", "--force", "--quiet", "--sync"},
          env);
      INFO(r.out << r.err);
      REQUIRE(r.exit_code == 0);
    }
  }
  const std::string remote = base + "/feeds.git";
  CHECK(lines_of(run({"git", "-C", remote, "ls-tree", "-r", "--name-only", "main", "raw"}).out) ==
        std::vector<std::string>{"raw/64/s1/response.xml", "raw/64/s186/response.xml"});
  CHECK(run({"git", "-C", remote, "show", "main:raw/64/s1/response.xml"}).out ==
        feed_body("/s1", 2));
  CHECK(run({"git", "-C", remote, "show", "main:raw/64/s186/response.xml"}).out ==
        feed_body("/s186", 2));
  CHECK(run({"git", "-C", remote, "fsck", "--strict"}).exit_code == 0);
  REQUIRE(run_feeddiff({"-C", base + "/p0", "sync"}, env).exit_code == 0);
  for (const std::string source : {"s1", "s186"}) {
    auto log = run_feeddiff({"-C", base + "/p0", "log", source});
    INFO(log.out << log.err);
    CHECK(lines_of(log.out).size() == 2);
  }
}

TEST_CASE("a layout declared by hand moves a source with its next new version only",
          "[cli][layout]") {
  Feeds feeds;
  CliArchive archive("layout-by-hand");
  REQUIRE(archive({"add", "alpha", feeds.server.url("/alpha")}).exit_code == 0);
  poll_at(archive, "2026-10-01T06:00:00.000Z");
  declare_fanout_by_hand(archive);
  const std::string declared = archive.head();
  // The same body: no commit, and the source stays where it is.
  poll_at(archive, "2026-10-01T07:00:00.000Z");
  CHECK(archive.head() == declared);
  CHECK(raw_files(archive) == std::vector<std::string>{"raw/alpha/response.xml"});
  // A new version is written where feeddiff.toml says, the old place emptied.
  feeds.version = 2;
  poll_at(archive, "2026-10-01T08:00:00.000Z");
  CHECK(raw_files(archive) ==
        std::vector<std::string>{std::string("raw/") + kAlphaBucket + "/alpha/response.xml"});
  CHECK(log_ids(archive, "alpha").size() == 2);
  auto show = archive({"show", "HEAD"});
  INFO(show.out << show.err);
  CHECK(show.exit_code == 0);
  CHECK(show.out.find("Post 2 of /alpha") != std::string::npos);
}
