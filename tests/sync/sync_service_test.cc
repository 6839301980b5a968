// The sync service called as a library: archives made with the store, a bare repository made
// with git, sync_archive between them. The end-to-end cases (a fleet of pollers, git daemon,
// faults) are in tests/cli/sync_test.cc.

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "feeddiff/store.h"
#include "feeddiff/sync.h"
#include "support/process.h"

using namespace feeddiff;

namespace {

constexpr TimeMs kCreated = 1'790'834'044'027;

// git -C dir args...; its stdout, and the test stops when git fails.
std::string git_out(const std::string& dir, std::vector<std::string> args) {
  auto r = run_git(args, dir);
  REQUIRE(r);
  INFO(r->errors);
  REQUIRE(*r);
  return r->output;
}

std::string bare_repository(const std::string& hint) {
  const std::string dir = test::make_temp_dir(hint);
  git_out(dir, {"init", "--quiet", "--bare", "-b", "main"});
  return dir;
}

Archive new_archive(const std::string& hint, const std::string& remote) {
  const std::string dir = test::make_temp_dir(hint) + "/archive";
  auto archive = Archive::init(dir, kCreated);
  REQUIRE(archive);
  git_out(dir, {"remote", "add", "origin", remote});
  return std::move(*archive);
}

// A commit that writes raw/<source>/response.xml, titled and trailered as poll titles one.
void change(Archive& archive, const std::string& source, const std::string& body, TimeMs when) {
  CommitRequest r;
  r.message = source + ": changed\n\nSource: " + source + "\n";
  r.author_time = r.commit_time = when;
  r.files.push_back({"raw/" + source + "/response.xml", body});
  auto id = archive.commit(r);
  REQUIRE(id);
  REQUIRE(*id);
}

SyncReport sync(Archive& archive) {
  auto lock = ArchiveLock::acquire(archive, false);
  REQUIRE(lock);
  SyncOptions options;
  options.backoff_ms = 1;
  options.backoff_cap_ms = 5;
  options.git_timeout_ms = 60'000;
  return sync_archive(archive, options, *lock);
}

}  // namespace

TEST_CASE("sync publishes an archive's commits to an empty branch", "[sync]") {
  const std::string bare = bare_repository("sync-lib-first");
  Archive archive = new_archive("sync-lib-first-a", bare);
  change(archive, "s1", "<rss>1</rss>\n", kCreated + 1000);

  const SyncReport report = sync(archive);
  REQUIRE_FALSE(report.error);
  CHECK(report.failure.empty());
  CHECK(report.upstream == "origin/main");
  CHECK(report.tries == 1);
  CHECK(report.fetched == 0);
  CHECK(report.published == 2);  // feeddiff.toml's commit and the change
  CHECK(git_out(bare, {"rev-parse", "main"}) == git_out(archive.work_dir(), {"rev-parse", "HEAD"}));
  CHECK(sync_summary(report) ==
        "Synced with origin/main: fetched 0 commits, replayed 0, pushed 2 (1 try).");
}

TEST_CASE("sync replays local commits onto what another poller published", "[sync]") {
  const std::string bare = bare_repository("sync-lib-two");
  Archive first = new_archive("sync-lib-two-a", bare);
  REQUIRE(sync(first).failure.empty());

  const std::string second_dir = test::make_temp_dir("sync-lib-two-b") + "/archive";
  git_out(test::make_temp_dir("sync-lib-two-c"), {"clone", "--quiet", bare, second_dir});
  auto second = Archive::open(second_dir);
  REQUIRE(second);
  change(*second, "s2", "<rss>2</rss>\n", kCreated + 2000);
  const SyncReport published = sync(*second);
  REQUIRE_FALSE(published.error);
  CHECK(published.failure.empty());
  CHECK(published.published == 1);

  change(first, "s1", "<rss>1</rss>\n", kCreated + 3000);
  const std::string before = git_out(first.work_dir(), {"rev-parse", "HEAD"});
  const SyncReport replayed = sync(first);
  REQUIRE_FALSE(replayed.error);
  CHECK(replayed.failure.empty());
  CHECK(replayed.fetched == 1);
  CHECK(replayed.replayed == 1);
  CHECK(replayed.published == 1);
  REQUIRE(replayed.renamed.size() == 1);
  CHECK(replayed.renamed.begin()->first == before.substr(0, 40));
  // One linear history: the other poller's change, then this one's, on the shared branch.
  CHECK(git_out(bare, {"log", "--format=%s", "main"}) ==
        "s1: changed\ns2: changed\n" + git_out(bare, {"log", "--format=%s", "main~2"}));
}

TEST_CASE("sync without the remote says how to add one", "[sync]") {
  const std::string dir = test::make_temp_dir("sync-lib-no-remote") + "/archive";
  auto archive = Archive::init(dir, kCreated);
  REQUIRE(archive);
  const SyncReport report = sync(*archive);
  REQUIRE(report.error);
  CHECK(report.error->code == Errc::usage);
  CHECK(report.error->message.starts_with("no git remote named 'origin'"));
}

TEST_CASE("sync reports an unreachable remote as a failure, the commits kept", "[sync]") {
  Archive archive = new_archive("sync-lib-unreachable", "/nonexistent/feeddiff-remote.git");
  change(archive, "s1", "<rss>1</rss>\n", kCreated + 1000);
  const SyncReport report = sync(archive);
  REQUIRE_FALSE(report.error);
  CHECK(
      report.failure.starts_with("cannot fetch from origin (/nonexistent/feeddiff-remote.git): "));
}

TEST_CASE("run_git captures git's output and exit status", "[sync]") {
  const std::string dir = test::make_temp_dir("sync-lib-git");
  auto version = run_git({"--version"}, dir);
  REQUIRE(version);
  CHECK(*version);
  CHECK(version->output.starts_with("git version "));

  auto failed = run_git({"rev-parse", "--verify", "no-such-ref"}, dir);
  REQUIRE(failed);
  CHECK_FALSE(*failed);
  CHECK(failed->exit_code == 128);
  CHECK_FALSE(failed->last_error_line().empty());
}

TEST_CASE("mask_url_credentials hides the userinfo of every URL", "[sync]") {
  CHECK(mask_url_credentials("fatal: https://user:secret@example.com/x.git and "
                             "ssh://token@host/y") ==
        "fatal: https://***@example.com/x.git and ssh://***@host/y");
  CHECK(mask_url_credentials("no url here") == "no url here");
}
