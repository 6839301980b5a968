// A poll stopped by SIGKILL at each named step of its commit sequence
// (include/feeddiff/failpoint.h), not at a random moment: each kill lands exactly where it says.
// After each, the archive passes `git fsck --strict`, keeps every earlier commit, and the next poll
// records the change exactly once and leaves a clean work tree. A test also proves that a normal
// poll reaches every step of the list, in its order, so the list cannot go stale unnoticed. And:
// every rename a poll makes is made durable (directory fsync'd) before the next.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>

#include "feeddiff/failpoint.h"
#include "poll/poll_helpers.h"

using namespace feeddiff::test;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kNames = {"alpha", "beta"};

// Version v of a source's feed.
std::string body_of(const std::string& name, int v) {
  return rss(name + "-version-" + std::to_string(v));
}

// Serves every source at the current version, with an ETag, and answers 304 to a request
// for the version it already has.
class VersionedServer {
 public:
  VersionedServer()
      : server_([this](const RecordedRequest& request) {
          const int v = version_.load();
          const std::string etag = "\"v" + std::to_string(v) + "\"";
          if (request.header("If-None-Match") == etag)
            return Reply{.status = 304, .headers = {{"ETag", etag}}};
          return Reply{.headers = {{"ETag", etag}}, .body = body_of(request.target.substr(1), v)};
        }) {}
  void set_version(int v) { version_ = v; }
  std::string url(const std::string& name) const { return server_.url("/" + name); }

 private:
  std::atomic<int> version_{1};
  HttpServer server_;
};

// 06:00, 08:00, 10:00 ...: two hours apart, so that every source is due each time.
std::string at(int step) {
  return "2026-10-02T" + std::string(step < 2 ? "0" : "") + std::to_string(6 + 2 * step) +
         ":00:00.000Z";
}

// An archive whose sources were polled once, at version 1.
struct Polled {
  VersionedServer server;
  CliArchive archive{"failpoint"};
  std::string head;  // after the complete poll of version 1

  Polled() {
    for (const auto& name : kNames) {
      auto r = archive({"add", name, server.url(name)});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
    }
    archive.set_now(at(0));
    auto r = archive({"poll"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    head = archive.head().substr(0, 40);
  }

  // `feeddiff poll` at the clock's step, with more environment. With a pack limit of 1, each
  // of these polls rolls its pack up with the earlier ones, so that it reaches the
  // consolidation's steps too.
  RunResult poll(int step, const Env& extra) const {
    Env env = {{"FEEDDIFF_NOW", at(step)}, {"NO_COLOR", "1"}, {"FEEDDIFF_PACK_LIMIT", "1"}};
    env.insert(env.end(), extra.begin(), extra.end());
    return run_feeddiff({"-C", archive.dir(), "poll"}, env);
  }
};

// Packs in objects/pack that have no index.
int packs_without_index(const CliArchive& archive) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(archive.dir()) / ".git/objects/pack"))
    if (entry.path().extension() == ".pack" &&
        !fs::exists(fs::path(entry.path()).replace_extension(".idx")))
      ++n;
  return n;
}

// The archive after a poll that recorded version 2 of every source, exactly once, on top of
// the commits of version 1.
void check_version_2_recorded_once(const Polled& p) {
  const CliArchive& archive = p.archive;
  auto fsck = archive.git({"fsck", "--strict"});
  INFO(fsck.out << fsck.err);
  CHECK(fsck.exit_code == 0);
  CHECK(archive.git({"merge-base", "--is-ancestor", p.head, "HEAD"}).exit_code == 0);
  for (const auto& name : kNames) {
    INFO(name);
    const std::string path = "raw/" + name + "/response.xml";
    CHECK(archive.git({"show", p.head + ":" + path}).out == body_of(name, 1));
    CHECK(archive.git({"show", "HEAD:" + path}).out == body_of(name, 2));
    CHECK(slurp(archive.dir() + "/" + path) == body_of(name, 2));
    // Added once, changed once: version 2 is not recorded twice.
    CHECK(archive.git({"rev-list", "--count", "HEAD", "--", path}).out == "2\n");
    // And feeddiff's own history of the source says the same.
    auto log = archive({"log", name});
    INFO(log.out << log.err);
    CHECK(log.exit_code == 0);
    for (const auto& id : lines_of(archive.git({"rev-list", "HEAD", "--", path}).out))
      CHECK(log.out.find(id.substr(0, 7)) != std::string::npos);
  }
  const std::string dirty = archive.git({"status", "--porcelain", "--untracked-files=all"}).out;
  INFO(dirty);
  CHECK(dirty.empty());
  // No leftover of a killed poll: temporary files, a checkout marker.
  const fs::path git_dir = fs::path(archive.dir()) / ".git";
  CHECK_FALSE(fs::exists(git_dir / "feeddiff" / "checkout-pending"));
  for (const auto& dir : {git_dir / "feeddiff", git_dir / "objects" / "pack"})
    for (const auto& entry : fs::directory_iterator(dir)) {
      INFO(entry.path());
      CHECK(entry.path().filename().string().find("tmp") == std::string::npos);
    }
}

// `feeddiff log NAME` and `log NAME -n 1` (from the source index) list what `git log --
// raw/NAME/` lists.
void check_log_agrees(const CliArchive& archive) {
  for (const auto& name : kNames) {
    INFO("log " << name);
    std::vector<std::string> expected =
        lines_of(archive.git({"log", "--format=%H", "--", "raw/" + name + "/"}).out);
    for (const std::string limit : {"0", "1"}) {
      auto r = archive({"log", name, "-n", limit, "--format", "json"});
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      std::vector<std::string> ids;
      const auto doc = nlohmann::json::parse(r.out);  // the range below must not dangle
      for (const auto& change : doc["changes"]) ids.push_back(change["id"].get<std::string>());
      CHECK(ids == (limit == "1" ? std::vector<std::string>(expected.begin(), expected.begin() + 1)
                                 : expected));
    }
  }
}

}  // namespace

TEST_CASE(
    "a poll killed at each step of its commit sequence loses nothing, and the next poll "
    "records the change once",
    "[poll]") {
  for (const std::string_view step : feeddiff::kFailpointNames) {
    // Reached only by a poll that captures articles: poll_articles_test.cc kills one there.
    if (step.starts_with("articles-")) continue;
    INFO("failpoint " << step);
    Polled p;
    p.server.set_version(2);
    const std::string trace = make_temp_dir("failpoint-trace") + "/trace";
    auto killed =
        p.poll(1, {{"FEEDDIFF_FAILPOINT", std::string(step)}, {"FEEDDIFF_FAILPOINT_TRACE", trace}});
    INFO(killed.out << killed.err);
    if (!feeddiff::failpoints_built()) {
      // A build not made for tests (release, installed) never reads the variables.
      CHECK(killed.exit_code == 0);
      CHECK_FALSE(fs::exists(trace));
      check_version_2_recorded_once(p);
      CHECK(packs_without_index(p.archive) == 0);
      continue;
    }
    REQUIRE(killed.exit_code == 128 + SIGKILL);
    // It died at that step, not before.
    const auto reached = lines_of(slurp(trace));
    REQUIRE_FALSE(reached.empty());
    CHECK(reached.back() == step);

    // Sound as it was left, before any feeddiff process tidies up.
    auto fsck = p.archive.git({"fsck", "--strict"});
    INFO(fsck.out << fsck.err);
    CHECK(fsck.exit_code == 0);
    CHECK(p.archive.git({"merge-base", "--is-ancestor", p.head, "HEAD"}).exit_code == 0);
    for (const auto& name : kNames)
      CHECK(p.archive.git({"show", p.head + ":raw/" + name + "/response.xml"}).out ==
            body_of(name, 1));
    // What the killed poll left of the source index is caught up, or set aside, by a reader.
    check_log_agrees(p.archive);

    auto next = p.poll(2, {});
    INFO(next.out << next.err);
    CHECK(next.exit_code == 0);
    check_version_2_recorded_once(p);
    check_log_agrees(p.archive);

    // Killed between the pack's rename and its index's, the poll leaves a pack that nothing
    // can read (git and libgit2 find objects through indexes; fsck passed above). It is
    // not removed at the next poll: a pack without its index is also what a `git repack`
    // running beside feeddiff shows for an instant, so only `feeddiff gc`, which replaces
    // every pack, removes it.
    // Killed while it consolidated, the poll left the old packs beside the new one (all or
    // some): the next poll rolls them up again when the geometry asks for it (all three
    // after consolidate-written; the one left after consolidate-pruned is half the size of
    // the new one, a progression already, and waits for more packs).
    if (step.starts_with("consolidate-")) {
      const auto fsck_next = p.archive.git({"fsck", "--strict"});
      CHECK(fsck_next.exit_code == 0);
      int packs = 0;
      for (const auto& e : fs::directory_iterator(p.archive.dir() + "/.git/objects/pack"))
        if (e.path().extension() == ".pack") ++packs;
      CHECK(packs == (step == "consolidate-written" ? 1 : 2));
    }
    if (step == "pack-renamed") {
      CHECK(packs_without_index(p.archive) == 1);
      // A young one may be a writer at work: gc leaves it; an hour old, gc removes it.
      CHECK(p.archive({"gc"}).exit_code == 0);
      CHECK(packs_without_index(p.archive) == 1);
      for (const auto& e :
           std::filesystem::directory_iterator(p.archive.dir() + "/.git/objects/pack"))
        std::filesystem::last_write_time(
            e.path(), std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
      auto gc = p.archive({"gc"});
      INFO(gc.out << gc.err);
      CHECK(gc.exit_code == 0);
    }
    CHECK(packs_without_index(p.archive) == 0);
  }
}

TEST_CASE(
    "a poll killed in the checkout of a flush in its middle loses nothing, and the next poll "
    "records each source once",
    "[poll]") {
  if (!feeddiff::failpoints_built()) return;  // the kill needs a test build (see the case above)
  // Five feeds of 9 MB: the batch is flushed once 32 MB are settled, with a feed still to
  // come; the kill lands in that first flush, which the case above never reaches (its feeds
  // are small: one flush, at the batch's end).
  const std::vector<std::string> names = {"big1", "big2", "big3", "big4", "big5"};
  const auto big_body = [](const std::string& name, int v) {
    return rss(name + "-v" + std::to_string(v) + "-" + std::string(9 << 19, 'x'));  // twice
  };
  HttpServer server([&](const RecordedRequest& request) {
    return Reply{.body = big_body(request.target.substr(1), 1)};
  });
  for (const std::string_view step : {"checkout-done", "flushed"}) {
    INFO("failpoint " << step);
    CliArchive archive{"failpoint-middle"};
    for (const auto& name : names)
      REQUIRE(archive({"add", name, server.url("/" + name)}).exit_code == 0);
    const std::string trace = make_temp_dir("failpoint-middle-trace") + "/trace";
    auto killed =
        run_feeddiff({"-C", archive.dir(), "poll"}, {{"FEEDDIFF_NOW", at(0)},
                                                     {"FEEDDIFF_FAILPOINT", std::string(step)},
                                                     {"FEEDDIFF_FAILPOINT_TRACE", trace}});
    INFO(killed.out << killed.err);
    REQUIRE(killed.exit_code == 128 + SIGKILL);
    CHECK(lines_of(slurp(trace)).back() == step);
    // The four flushed versions are on the branch, whole, and git finds nothing wrong.
    auto fsck = archive.git({"fsck", "--strict"});
    INFO(fsck.out << fsck.err);
    CHECK(fsck.exit_code == 0);
    int recorded = 0;
    for (const auto& name : names)
      if (archive.git({"show", "HEAD:raw/" + name + "/response.xml"}).out == big_body(name, 1))
        ++recorded;
    CHECK(recorded == 4);

    auto next = run_feeddiff({"-C", archive.dir(), "poll"}, {{"FEEDDIFF_NOW", at(1)}});
    INFO(next.out << next.err);
    CHECK(next.exit_code == 0);
    for (const auto& name : names) {
      INFO(name);
      const std::string path = "raw/" + name + "/response.xml";
      CHECK(archive.git({"rev-list", "--count", "HEAD", "--", path}).out == "1\n");
      CHECK(slurp(archive.dir() + "/" + path) == big_body(name, 1));
    }
    CHECK(archive.git({"status", "--porcelain", "--untracked-files=all"}).out.empty());
    CHECK_FALSE(fs::exists(fs::path(archive.dir()) / ".git/feeddiff/checkout-pending"));
  }
}

TEST_CASE("a poll that records changes reaches every failpoint, in the order listed", "[poll]") {
  Polled p;
  p.server.set_version(2);
  const std::string trace = make_temp_dir("failpoint-trace") + "/trace";
  auto r = p.poll(1, {{"FEEDDIFF_FAILPOINT_TRACE", trace}});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  check_version_2_recorded_once(p);
  if (!feeddiff::failpoints_built()) {
    CHECK_FALSE(fs::exists(trace));
    return;
  }
  // Each step once in that order (summary-cached once a flush: both changes' summaries are
  // one transaction).
  std::vector<std::string> expected;
  for (const auto name : feeddiff::kFailpointNames) {
    if (name.starts_with("articles-")) continue;  // no source here captures articles
    expected.emplace_back(name);
  }
  CHECK(lines_of(slurp(trace)) == expected);
}
