// feeddiff sync and poll --sync: pollers that each own a shard meet in one branch of a real
// git remote (git daemon on loopback), under contention and faults.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli_helpers.h"
#include "cli/git_daemon.h"

namespace feeddiff::test {
namespace {

// Quick retries: the tests race pollers on purpose.
const Env kEnv = {{"FEEDDIFF_SYNC_BACKOFF", "5,200"}, {"NO_COLOR", "1"}};

// Every feed /sN, its body one byte longer each round, so that each version's title
// ("sN: changed (B bytes") tells its round.
struct Feeds {
  std::atomic<int> round{1};
  HttpServer server{[this](const RecordedRequest& request) {
    const int r = round.load();
    return Reply{.body = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>" +
                         request.target.substr(1) + "</title><item><guid>1</guid><title>" +
                         std::string(static_cast<std::size_t>(r), 'x') +
                         "</title></item></channel></rss>\n"};
  }};
};

// A fleet: an origin archive whose feeddiff.toml pins source i to shard i % shards, pushed
// to a bare repository that git daemon serves, and one clone per poller.
struct Fleet {
  Feeds feeds;
  std::string base = make_temp_dir("sync-fleet");
  std::optional<GitDaemon> daemon;
  std::vector<std::string> pollers;
  std::vector<std::string> sources;

  Fleet(int shards, int per_shard) {
    CliArchive origin("sync-origin");
    std::string toml;
    for (int i = 0; i < shards * per_shard; ++i) {
      const std::string name = "s" + std::to_string(i);
      sources.push_back(name);
      toml += "[sources." + name + "]\nurl = \"" + feeds.server.url("/" + name) +
              "\"\nshard = " + std::to_string(i % shards) + "\n\n";
    }
    spit(origin.dir() + "/feeddiff.toml", toml);
    REQUIRE(origin.git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "sources"})
                .exit_code == 0);
    REQUIRE(run({"git", "init", "-q", "--bare", base + "/feeds.git"}).exit_code == 0);
    REQUIRE(origin.git({"push", "-q", base + "/feeds.git", "HEAD:refs/heads/main"}).exit_code == 0);
    REQUIRE(run({"git", "-C", base + "/feeds.git", "symbolic-ref", "HEAD", "refs/heads/main"})
                .exit_code == 0);
    daemon.emplace(base);
    daemon->wait_for("feeds.git");
    for (int k = 0; k < shards; ++k) {
      const std::string name = "p" + std::to_string(k);
      auto r = run_feeddiff({"-C", base, "clone", daemon->url("feeds.git"), name});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      pollers.push_back(base + "/" + name);
    }
  }
  std::string remote() const { return base + "/feeds.git"; }

  // Each poller runs `poll --shard K/N --force --sync` at once, on its own thread.
  std::vector<RunResult> poll_all(const std::vector<std::string>& extra = {}) {
    std::vector<RunResult> results(pollers.size());
    std::vector<std::thread> threads;
    const std::string n = std::to_string(pollers.size());
    for (std::size_t k = 0; k < pollers.size(); ++k)
      threads.emplace_back([&, k] {
        std::vector<std::string> args = {
            "-C",      pollers[k], "poll",  "--shard", std::to_string(k) + "/" + n,
            "--force", "--quiet",  "--sync"};
        args.insert(args.end(), extra.begin(), extra.end());
        results[k] = run_feeddiff(args, kEnv);
      });
    for (auto& t : threads) t.join();
    return results;
  }
};

std::vector<std::string> non_empty_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// The byte counts of each source's versions on the remote's branch, oldest first.
std::map<std::string, std::vector<int>> versions_on(const std::string& remote) {
  std::map<std::string, std::vector<int>> out;
  for (const auto& title :
       non_empty_lines(run({"git", "-C", remote, "log", "--reverse", "--format=%s", "main"}).out)) {
    const auto colon = title.find(": ");
    const auto open = title.find(" (");
    if (colon == std::string::npos || open == std::string::npos ||
        (title.find(": added (") == std::string::npos &&
         title.find(": changed (") == std::string::npos))
      continue;
    out[title.substr(0, colon)].push_back(std::stoi(title.substr(open + 2)));
  }
  return out;
}

TEST_CASE("four pollers syncing their shards for five rounds leave every version once, in order",
          "[cli][sync]") {
  // 4 x 25 sources (100 versions a round) race as 4 x 200 do: every poller pushes in every
  // round, so pushes collide and replay whatever the size. The 4 x 200 size is measured in
  // bench/sync, not here.
  constexpr int kPerShard = 25;
  constexpr int kPollers = 4, kRounds = 5;
  Fleet fleet(kPollers, kPerShard);
  for (int round = 1; round <= kRounds; ++round) {
    fleet.feeds.round = round;
    const auto results = fleet.poll_all();
    for (std::size_t k = 0; k < results.size(); ++k) {
      INFO("round " << round << " poller " << k << ": " << results[k].out << results[k].err);
      REQUIRE(results[k].exit_code == 0);
    }
  }
  const auto versions = versions_on(fleet.remote());
  REQUIRE(versions.size() == fleet.sources.size());
  for (const auto& [source, sizes] : versions) {
    INFO(source);
    REQUIRE(sizes.size() == static_cast<std::size_t>(kRounds));
    for (std::size_t i = 1; i < sizes.size(); ++i) CHECK(sizes[i] == sizes[i - 1] + 1);
  }
  // No commit twice (by title, and the branch is linear: no merge).
  const auto titles =
      non_empty_lines(run({"git", "-C", fleet.remote(), "log", "--format=%s", "main"}).out);
  CHECK(std::set<std::string>(titles.begin(), titles.end()).size() == titles.size());
  CHECK(run({"git", "-C", fleet.remote(), "rev-list", "--merges", "main"}).out.empty());
  auto fsck = run({"git", "-C", fleet.remote(), "fsck", "--strict"});
  INFO(fsck.err);
  CHECK(fsck.exit_code == 0);

  // One more sync brings each poller the others' last round; then every reader agrees.
  for (const auto& p : fleet.pollers) {
    auto r = run_feeddiff({"-C", p, "sync"}, kEnv);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(run({"git", "-C", p, "rev-parse", "HEAD"}).out ==
          run({"git", "-C", fleet.remote(), "rev-parse", "main"}).out);
    CHECK(run({"git", "-C", p, "status", "--porcelain"}).out.empty());
    auto status = run_feeddiff({"-C", p, "status"});
    CHECK_THAT(status.out, Catch::Contains("every commit is on origin/main"));
    // Replays and fetches leave packs, not a loose file per object.
    auto count = run({"git", "-C", p, "count-objects", "-v"});
    INFO(count.out);
    CHECK_THAT(count.out, Catch::StartsWith("count: 0\n"));
  }
  for (const std::string source : {"s0", "s1", "s2", "s3", "s97"}) {
    INFO(source);
    const std::string& p = fleet.pollers[1];
    auto git_ids = non_empty_lines(
        run({"git", "-C", p, "log", "--format=%H", "--", "raw/" + source + "/"}).out);
    CHECK(git_ids.size() == static_cast<std::size_t>(kRounds));
    auto log = run_feeddiff({"-C", p, "log", source});
    CHECK(non_empty_lines(log.out).size() == git_ids.size());
    for (const auto& id : git_ids) CHECK_THAT(log.out, Catch::Contains(id.substr(0, 7)));
  }
}

TEST_CASE("eight pollers racing to push each publish within their tries", "[cli][sync]") {
  // One round: eight pushes at once, seven of them lose at least one race. (That the tries
  // can run out: "a writer that always wins the race makes sync give up after its tries".)
  Fleet fleet(8, 1);
  // The default backoff (50 ms doubling to 2 s) and tries (10), as installed.
  std::vector<RunResult> results(fleet.pollers.size());
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < fleet.pollers.size(); ++k)
    threads.emplace_back([&, k] {
      results[k] = run_feeddiff({"-C", fleet.pollers[k], "poll", "--shard",
                                 std::to_string(k) + "/8", "--force", "--sync"},
                                {{"NO_COLOR", "1"}});
    });
  for (auto& t : threads) t.join();
  for (std::size_t k = 0; k < results.size(); ++k) {
    INFO("poller " << k << ": " << results[k].out << results[k].err);
    CHECK(results[k].exit_code == 0);
    CHECK_THAT(results[k].out, Catch::Contains("Synced with origin/main"));
  }
  const auto versions = versions_on(fleet.remote());
  CHECK(versions.size() == 8);
  for (const auto& [source, sizes] : versions) CHECK(sizes.size() == 1);
}

TEST_CASE("a poller killed during sync loses nothing and its next sync publishes", "[cli][sync]") {
  Fleet fleet(2, 2);
  REQUIRE(fleet.poll_all()[0].exit_code == 0);
  fleet.feeds.round = 2;
  const std::string& p = fleet.pollers[0];
  REQUIRE(run_feeddiff({"-C", p, "poll", "--shard", "0/2", "--force"}, kEnv).exit_code == 0);
  // Another poller publishes first, so this one's sync replays, and dies with its branch
  // moved but its work tree not yet updated.
  REQUIRE(
      run_feeddiff({"-C", fleet.pollers[1], "poll", "--shard", "1/2", "--force", "--sync"}, kEnv)
          .exit_code == 0);
  Env killed = kEnv;
  killed.emplace_back("FEEDDIFF_FAILPOINT", "branch-moved");
  auto died = run_feeddiff({"-C", p, "sync"}, killed);
  REQUIRE(died.exit_code == 128 + 9);
  auto again = run_feeddiff({"-C", p, "sync"}, kEnv);
  INFO(again.out << again.err);
  REQUIRE(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("pushed 2"));
  const auto versions = versions_on(fleet.remote());
  for (const auto& source : fleet.sources) CHECK(versions.at(source).size() == 2);
  CHECK(run({"git", "-C", p, "status", "--porcelain"}).out.empty());
  CHECK(run({"git", "-C", fleet.remote(), "fsck", "--strict"}).exit_code == 0);
}

TEST_CASE("an unreachable remote makes sync exit 1 in one line and keeps the commits",
          "[cli][sync]") {
  Fleet fleet(1, 1);
  const std::string& p = fleet.pollers[0];
  REQUIRE(run_feeddiff({"-C", p, "poll", "--force"}, kEnv).exit_code == 0);
  const std::string head = run({"git", "-C", p, "rev-parse", "HEAD"}).out;
  REQUIRE(run({"git", "-C", p, "remote", "set-url", "origin",
               "http://alice:s3cret@127.0.0.1:1/feeds.git"})
              .exit_code == 0);
  auto r = run_feeddiff({"-C", p, "sync"}, kEnv);
  CHECK(r.exit_code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::StartsWith("sync: cannot fetch from origin (http://***@127.0.0.1:1/"));
  CHECK_THAT(r.err, Catch::Contains("1 local commit stay"));
  CHECK(r.err.find("s3cret") == std::string::npos);
  CHECK(r.out.empty());
  CHECK(run({"git", "-C", p, "rev-parse", "HEAD"}).out == head);
  // poll --sync: the poll's own result, then the same line; exit 1.
  fleet.feeds.round = 2;
  auto polled = run_feeddiff({"-C", p, "poll", "--force", "--sync"}, kEnv);
  CHECK(polled.exit_code == 1);
  CHECK_THAT(polled.out, Catch::Contains("s0: changed"));
  CHECK_THAT(polled.err, Catch::Contains("2 local commits stay"));
}

TEST_CASE("a rewritten remote branch stops sync with a clear error and changes nothing",
          "[cli][sync]") {
  Fleet fleet(2, 1);
  REQUIRE(fleet.poll_all()[0].exit_code == 0);
  const std::string& p = fleet.pollers[0];
  REQUIRE(run_feeddiff({"-C", p, "sync"}, kEnv).exit_code == 0);
  // Someone drops the newest commit from the remote with a force push.
  const std::string other = fleet.pollers[1];
  REQUIRE(run_feeddiff({"-C", other, "sync"}, kEnv).exit_code == 0);
  REQUIRE(run({"git", "-C", other, "push", "-q", "--force", "origin", "HEAD~1:refs/heads/main"})
              .exit_code == 0);
  fleet.feeds.round = 2;
  REQUIRE(run_feeddiff({"-C", p, "poll", "--force", "--shard", "0/2"}, kEnv).exit_code == 0);
  const std::string head = run({"git", "-C", p, "rev-parse", "HEAD"}).out;
  auto r = run_feeddiff({"-C", p, "sync"}, kEnv);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains("origin/main was rewritten"));
  CHECK(run({"git", "-C", p, "rev-parse", "HEAD"}).out == head);
}

TEST_CASE("edits of feeddiff.toml merge per source, and one source edited twice is refused",
          "[cli][sync]") {
  Fleet fleet(2, 1);
  const std::string a = fleet.pollers[0], b = fleet.pollers[1];
  // Different sources: both edits survive.
  REQUIRE(run_feeddiff({"-C", a, "add", "extra-a", fleet.feeds.server.url("/xa")}).exit_code == 0);
  REQUIRE(run_feeddiff({"-C", b, "add", "extra-b", fleet.feeds.server.url("/xb")}).exit_code == 0);
  REQUIRE(run_feeddiff({"-C", a, "sync"}, kEnv).exit_code == 0);
  auto merged = run_feeddiff({"-C", b, "sync"}, kEnv);
  INFO(merged.err);
  REQUIRE(merged.exit_code == 0);
  const std::string toml = run({"git", "-C", fleet.remote(), "show", "main:feeddiff.toml"}).out;
  CHECK_THAT(toml, Catch::Contains("[sources.extra-a]"));
  CHECK_THAT(toml, Catch::Contains("[sources.extra-b]"));
  CHECK_THAT(toml, Catch::Contains("[sources.s0]"));
  REQUIRE(run_feeddiff({"-C", a, "sync"}, kEnv).exit_code == 0);

  // One source, edited on both: refused, naming it.
  REQUIRE(run_feeddiff({"-C", a, "remove", "s1"}).exit_code == 0);
  std::string edited = slurp(b + "/feeddiff.toml");
  const auto at = edited.find("[sources.s1]");
  REQUIRE(at != std::string::npos);
  edited.insert(edited.find('\n', at) + 1, "skip_cosmetic = true\n");
  spit(b + "/feeddiff.toml", edited);
  REQUIRE(run({"git", "-C", b, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam",
               "s1 every 2h"})
              .exit_code == 0);
  REQUIRE(run_feeddiff({"-C", a, "sync"}, kEnv).exit_code == 0);
  const std::string head = run({"git", "-C", b, "rev-parse", "HEAD"}).out;
  auto refused = run_feeddiff({"-C", b, "sync"}, kEnv);
  CHECK(refused.exit_code == 2);
  CHECK(count_lines(refused.err) == 1);
  CHECK_THAT(refused.err, Catch::Contains("source 's1'"));
  CHECK(run({"git", "-C", b, "rev-parse", "HEAD"}).out == head);
}

// The feeddiff command lines of a recipe (docs/recipes/), comments left out, each split into
// its arguments with the recipe's variables replaced.
std::vector<std::vector<std::string>> recipe_commands(
    const std::string& file, const std::map<std::string, std::string>& vars) {
  std::vector<std::vector<std::string>> out;
  for (const auto& raw : non_empty_lines(slurp(file))) {
    const auto first = raw.find_first_not_of(" \t-");
    if (first == std::string::npos || raw[first] == '#') continue;
    if (raw.find("feeddiff clone") == std::string::npos &&
        raw.find(" poll --shard") == std::string::npos)
      continue;
    std::istringstream words(raw.substr(raw.find("feeddiff ") + 9));
    std::vector<std::string> args;
    for (std::string w; words >> w;) {
      if (w.size() >= 2 && w.front() == '"' && w.back() == '"') w = w.substr(1, w.size() - 2);
      if (auto it = vars.find(w); it != vars.end()) w = it->second;
      args.push_back(w);
    }
    out.push_back(args);
  }
  return out;
}

TEST_CASE("the recipes' feeddiff commands run", "[cli][sync]") {
  Fleet fleet(2, 1);
  const std::string recipes = std::string(FEEDDIFF_SOURCE_DIR) + "/docs/recipes/";
  for (const std::string recipe :
       {"github-actions.yml", "feeddiff-fleet@.service", "kubernetes-cronjob.yaml"}) {
    for (int k = 0; k < 2; ++k) {
      INFO(recipe << " shard " << k);
      const std::string dir = fleet.base + "/" + recipe + "-" + std::to_string(k);
      const std::string shard = std::to_string(k) + "/2";
      const auto commands =
          recipe_commands(recipes + recipe, {{"$FEEDDIFF_REMOTE", fleet.daemon->url("feeds.git")},
                                             {"$ARCHIVE", dir},
                                             {"%f", dir},
                                             {"$SHARD", shard},
                                             {"${SHARD}", shard}});
      bool polled = false;
      bool cloned = false;
      for (const auto& args : commands) {
        cloned = cloned || args.at(0) == "clone";
        polled = polled || std::find(args.begin(), args.end(), "--sync") != args.end();
      }
      CHECK(polled);
      if (!cloned)  // systemd: the archive is cloned once, by hand
        REQUIRE(run_feeddiff({"clone", fleet.daemon->url("feeds.git"), dir}, kEnv).exit_code == 0);
      for (const auto& args : commands) {
        auto r = run_feeddiff(args, kEnv);
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
      }
    }
  }
  const auto versions = versions_on(fleet.remote());
  CHECK(versions.size() == 2);
}

// Commits every change of a poller's work tree (a hand edit of feeddiff.toml).
void commit_edit(const std::string& dir, const std::string& message) {
  REQUIRE(run({"git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam",
               message})
              .exit_code == 0);
}

TEST_CASE("a hook that arrives through sync runs only once this poller trusts it", "[cli][sync]") {
  Fleet fleet(2, 1);
  const std::string a = fleet.pollers[0], b = fleet.pollers[1];
  const std::string hooks = make_temp_dir("sync-trust-hook");
  // Poller b (or anyone who can push) adds an exec hook, and trusts it on its own machine.
  spit(b + "/feeddiff.toml", slurp(b + "/feeddiff.toml") +
                                 "\n[notify]\nexec = \"cat > /dev/null; echo $FEEDDIFF_COMMIT "
                                 ">> '" +
                                 hooks + "/log'\"\n");
  commit_edit(b, "a hook");
  REQUIRE(run_feeddiff({"-C", b, "trust", "--all"}, kEnv).exit_code == 0);
  REQUIRE(run_feeddiff({"-C", b, "sync"}, kEnv).exit_code == 0);

  // Poller a's poll --sync takes the hook in before it notifies: it does not run it.
  auto polled = run_feeddiff({"-C", a, "poll", "--shard", "0/2", "--force", "--sync"}, kEnv);
  INFO(polled.out << polled.err);
  CHECK(polled.exit_code == 1);
  CHECK_THAT(slurp(a + "/feeddiff.toml"), Catch::Contains("[notify]"));
  CHECK_FALSE(std::filesystem::exists(hooks + "/log"));
  CHECK_THAT(polled.err, Catch::Contains("notify: not run, not trusted on this machine: exec"));
  auto status = run_feeddiff({"-C", a, "status", "--json", "s0"}, kEnv);
  CHECK(nlohmann::json::parse(status.out)["sources"][0]["hooks_waiting_for_trust"] ==
        nlohmann::json::array({"exec"}));

  // Trusted on a: its next poll delivers the waiting notification, for the commit as synced.
  REQUIRE(run_feeddiff({"-C", a, "trust", "exec"}, kEnv).exit_code == 0);
  auto delivered = run_feeddiff({"-C", a, "poll", "--shard", "0/2"}, kEnv);
  INFO(delivered.out << delivered.err);
  CHECK(delivered.exit_code == 0);
  REQUIRE(std::filesystem::exists(hooks + "/log"));
  CHECK(slurp(hooks + "/log") ==
        run({"git", "-C", a, "log", "-1", "--format=%H", "--", "raw/s0"}).out);
}

TEST_CASE("a webhook the remote changes is not called, and a moved URL gets no credentials",
          "[cli][sync]") {
  Fleet fleet(2, 1);
  const std::string a = fleet.pollers[0], b = fleet.pollers[1];
  std::vector<std::string> stolen;  // what reached the other server: targets and Authorization
  std::mutex mutex;
  HttpServer thief([&](const RecordedRequest& request) {
    std::lock_guard<std::mutex> hold(mutex);
    stolen.push_back(request.target + " " + request.header("Authorization").value_or("-"));
    return Reply{.body = "<rss version=\"2.0\"><channel><title>t</title></channel></rss>\n"};
  });
  // a: a source with credentials, and a webhook, both its own (trusted, bound to their origin).
  const std::string feed = fleet.feeds.server.url("/private");
  REQUIRE(run_feeddiff({"-C", a, "add", "private", "http://reader:s3cret@" + feed.substr(7)}, kEnv)
              .exit_code == 0);
  spit(a + "/feeddiff.toml", slurp(a + "/feeddiff.toml") + "\n[notify]\nwebhook = \"" +
                                 fleet.feeds.server.url("/hook") + "\"\n");
  commit_edit(a, "a webhook");
  REQUIRE(run_feeddiff({"-C", a, "trust", "--all"}, kEnv).exit_code == 0);
  REQUIRE(run_feeddiff({"-C", a, "sync"}, kEnv).exit_code == 0);

  // b moves the webhook and the source's URL to its own server, and pushes.
  REQUIRE(run_feeddiff({"-C", b, "sync"}, kEnv).exit_code == 0);
  std::string toml = slurp(b + "/feeddiff.toml");
  for (const std::string path : {"/hook", "/private"}) {
    const std::string from = fleet.feeds.server.url(path);
    toml.replace(toml.find(from), from.size(), thief.url(path));
  }
  spit(b + "/feeddiff.toml", toml);
  commit_edit(b, "moved");
  REQUIRE(run_feeddiff({"-C", b, "sync"}, kEnv).exit_code == 0);

  // a syncs, then polls the source: the thief gets the feed request without the secret, and
  // no webhook call.
  REQUIRE(run_feeddiff({"-C", a, "sync"}, kEnv).exit_code == 0);
  auto polled = run_feeddiff({"-C", a, "poll", "--force", "private"}, kEnv);
  INFO(polled.out << polled.err);
  CHECK_THAT(polled.out, Catch::Contains("credentials not sent"));
  CHECK_THAT(polled.err, Catch::Contains("not trusted on this machine: webhook http://127.0.0.1:" +
                                         std::to_string(thief.port())));
  std::lock_guard<std::mutex> hold(mutex);
  CHECK(stolen == std::vector<std::string>{"/private -"});
}

// An executable script at path.
void script(const std::string& path, const std::string& text) {
  spit(path, "#!/bin/sh\n" + text);
  REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

// Whether a process whose command line holds text is still running, waiting up to 10 s for
// the last to go (a killed process takes a moment to be reaped).
bool process_with(const std::string& text) {
  for (int i = 0; i < 200; ++i) {
    bool found = false;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(e.path() / "cmdline", std::ios::binary);
      const std::string cmdline((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
      found = found || cmdline.find(text) != std::string::npos;
    }
    if (!found) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

TEST_CASE("a remote that never answers stops sync at its git deadline with nothing left running",
          "[cli][sync]") {
  Fleet fleet(1, 1);
  const std::string& p = fleet.pollers[0];
  // A listening socket nobody accepts from: connections complete, then nothing is said.
  // It closes after 60 s (a sync without a deadline then fails otherwise, not hangs).
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 16) == 0);
  socklen_t len = sizeof addr;
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/feeds.git";
  std::mutex m;
  std::condition_variable done_cv;
  bool done = false;
  std::thread closer([&] {
    std::unique_lock lock(m);
    done_cv.wait_for(lock, std::chrono::seconds(60), [&] { return done; });
    ::close(listener);
  });
  REQUIRE(run({"git", "-C", p, "remote", "set-url", "origin", url}).exit_code == 0);
  Env env = kEnv;
  env.emplace_back("FEEDDIFF_GIT_TIMEOUT", "2s");

  auto r = run_feeddiff({"-C", p, "poll", "--force", "--sync"}, env);
  const bool left = process_with(url);
  // The lock went with the process: the next sync runs (and fails the same way, quickly),
  // while the listener still says nothing.
  auto again = run_feeddiff({"-C", p, "sync"}, env);
  {
    std::lock_guard lock(m);
    done = true;
  }
  done_cv.notify_all();
  closer.join();

  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::StartsWith("sync: cannot fetch from origin"));
  CHECK_THAT(r.err, Catch::Contains("git fetch ran past its deadline of 2s"));
  CHECK_FALSE(left);  // git-remote-http, git's child, went with it
  INFO(again.err);
  CHECK_THAT(again.err, Catch::Contains("ran past its deadline"));
}

TEST_CASE("a sync over an edit of feeddiff.toml not committed refuses and keeps the edit",
          "[cli][sync]") {
  Fleet fleet(2, 1);
  const std::string a = fleet.pollers[0], b = fleet.pollers[1];
  REQUIRE(run_feeddiff({"-C", b, "add", "extra-b", fleet.feeds.server.url("/xb")}).exit_code == 0);
  REQUIRE(run_feeddiff({"-C", b, "sync"}, kEnv).exit_code == 0);
  const std::string edited = slurp(a + "/feeddiff.toml") + "# mine, not committed yet\n";
  spit(a + "/feeddiff.toml", edited);
  const std::string head = run({"git", "-C", a, "rev-parse", "HEAD"}).out;

  auto r = run_feeddiff({"-C", a, "sync"}, kEnv);

  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains("feeddiff.toml has edits not committed"));
  CHECK(slurp(a + "/feeddiff.toml") == edited);
  CHECK(run({"git", "-C", a, "rev-parse", "HEAD"}).out == head);
  // Committed, it is merged with the remote's as any local edit is.
  REQUIRE(
      run({"git", "-C", a, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "note"})
          .exit_code == 0);
  auto merged = run_feeddiff({"-C", a, "sync"}, kEnv);
  INFO(merged.err);
  CHECK(merged.exit_code == 0);
  CHECK_THAT(slurp(a + "/feeddiff.toml"), Catch::Contains("[sources.extra-b]"));
}

TEST_CASE("a push the remote refuses by policy fails at once with the remote's reason",
          "[cli][sync]") {
  Fleet fleet(1, 1);
  const std::string& p = fleet.pollers[0];
  REQUIRE(run_feeddiff({"-C", p, "poll", "--force"}, kEnv).exit_code == 0);
  const std::string tries = fleet.base + "/hook-runs";
  script(fleet.remote() + "/hooks/pre-receive",
         "echo run >> '" + tries +
             "'\n"
             "printf 'pushes are frozen \\033]0;pwned\\007until Monday\\n' >&2\nexit 1\n");

  auto r = run_feeddiff({"-C", p, "sync", "--tries", "5"}, kEnv);

  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::StartsWith("sync: origin ("));
  CHECK_THAT(r.err, Catch::Contains("refused the push: [remote rejected] (pre-receive hook "
                                    "declined): pushes are frozen"));
  CHECK_THAT(r.err, Catch::Contains("1 local commit stay"));
  CHECK(r.err.find('\x1b') == std::string::npos);  // the server's words, escaped
  CHECK(count_lines(slurp(tries)) == 1);           // one try, no retry
}

TEST_CASE("a writer that always wins the race makes sync give up after its tries", "[cli][sync]") {
  Fleet fleet(1, 1);
  const std::string& p = fleet.pollers[0];
  REQUIRE(run_feeddiff({"-C", p, "poll", "--force"}, kEnv).exit_code == 0);
  const std::string tries = fleet.base + "/hook-runs";
  // Each push finds the branch moved under it: the hook commits on top first.
  script(
      fleet.remote() + "/hooks/pre-receive",
      "unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES\n"
      "export GIT_AUTHOR_NAME=racer GIT_AUTHOR_EMAIL=r@r GIT_COMMITTER_NAME=racer "
      "GIT_COMMITTER_EMAIL=r@r\n"
      "echo run >> '" +
          tries +
          "'\n"
          "tip=$(git rev-parse refs/heads/main)\n"
          "git update-ref refs/heads/main $(git commit-tree -p $tip -m racer $tip^{tree}) $tip\n");

  auto r = run_feeddiff({"-C", p, "sync", "--tries", "2"}, kEnv);

  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains("origin/main rejected 2 pushes in a row"));
  CHECK_THAT(r.err, Catch::Contains("1 local commit stay"));
  CHECK(count_lines(slurp(tries)) == 2);
}

TEST_CASE("a git file in the work tree never runs, even with . in PATH", "[cli][sync]") {
  Fleet fleet(1, 1);
  const std::string& p = fleet.pollers[0];
  const std::string marker = fleet.base + "/committed-git-ran";
  script(p + "/git", "touch '" + marker + "'\n");
  REQUIRE(run({"git", "-C", p, "add", "git"}).exit_code == 0);
  REQUIRE(run({"git", "-C", p, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm",
               "a git of its own"})
              .exit_code == 0);
  for (const std::string path : {".:", ":"}) {
    Env env = kEnv;
    env.emplace_back("PATH", path + std::getenv("PATH"));

    auto r = run_feeddiff({"-C", p, "sync"}, env);

    INFO(path << ": " << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(std::filesystem::exists(marker));
  }
  CHECK(run({"git", "-C", fleet.remote(), "cat-file", "-e", "main:git"}).exit_code == 0);
}

TEST_CASE("pending notifications follow the replayed commits even when the sync dies after",
          "[cli][sync]") {
  Fleet fleet(2, 1);
  const std::string& p = fleet.pollers[0];
  // A hook that fails: the change's notification stays pending, by commit id.
  spit(p + "/feeddiff.toml", slurp(p + "/feeddiff.toml") + "[notify]\nexec = \"exit 3\"\n");
  REQUIRE(
      run({"git", "-C", p, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "a hook"})
          .exit_code == 0);
  REQUIRE(run_feeddiff({"-C", p, "poll", "--shard", "0/2", "--force"}, kEnv).exit_code == 1);
  const std::string before = run({"git", "-C", p, "rev-parse", "HEAD"}).out.substr(0, 40);
  const std::string state = p + "/.git/feeddiff/state.json";
  REQUIRE_THAT(slurp(state), Catch::Contains(before));
  // Another poller publishes first, so this sync replays; then it dies before the push.
  REQUIRE(
      run_feeddiff({"-C", fleet.pollers[1], "poll", "--shard", "1/2", "--force", "--sync"}, kEnv)
          .exit_code == 0);
  const std::string bin = fleet.base + "/bin";
  std::filesystem::create_directories(bin);
  const std::string real_git = run({"sh", "-c", "command -v git"}).out;
  script(bin + "/git",
         "for a in \"$@\"; do [ \"$a\" = push ] && { kill -9 $PPID; exit 1; }; "
         "done\nexec " +
             real_git.substr(0, real_git.find('\n')) + " \"$@\"\n");
  Env env = kEnv;
  env.emplace_back("PATH", bin + ":" + std::getenv("PATH"));

  auto died = run_feeddiff({"-C", p, "sync"}, env);

  REQUIRE(died.exit_code == 128 + 9);
  const std::string after = run({"git", "-C", p, "rev-parse", "HEAD"}).out.substr(0, 40);
  REQUIRE(after != before);  // replayed
  CHECK_THAT(slurp(state), Catch::Contains(after));
  CHECK(slurp(state).find(before) == std::string::npos);
}

}  // namespace
}  // namespace feeddiff::test
