// SIGKILL at random moments while poll commits 100 changed sources. After each kill the
// archive passes `git fsck --strict`, no commit of an earlier complete poll is lost, and the
// next poll completes and records every source's current version.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// 100 sources make a poll long enough for a kill to land in each of its stages (fetching,
// writing the pack, moving the branch, saving state); the delay is drawn over the measured
// length of a whole poll, so fewer sources do not move the kills. Twelve kills, each followed by
// fsck and a complete poll; the failpoint test kills at every step deterministically.
constexpr int kSources = 100;
constexpr int kRuns = 12;

std::string name_of(int i) {
  return "s" + std::to_string(1000 + i);
}

// Version v of source i: a few hundred bytes, different for every source and version.
std::string body_of(int i, int v) {
  return rss(name_of(i) + "-version-" + std::to_string(v) + std::string(200 + i % 50, '.'));
}

}  // namespace

TEST_CASE("a poll killed at random moments leaves a sound archive and loses no commit", "[poll]") {
  std::atomic<int> version{0};
  HttpServer server([&](const RecordedRequest& request) {
    const int v = version.load();
    const int i = std::stoi(request.target.substr(2)) - 1000;  // "/s1234"
    const std::string etag = "\"" + std::to_string(v) + "\"";
    if (request.header("If-None-Match") == etag)
      return Reply{.status = 304, .headers = {{"ETag", etag}}};
    return Reply{.headers = {{"ETag", etag}}, .body = body_of(i, v)};
  });
  CliArchive archive("crash");
  std::string config = "# feeddiff sources\n";
  for (int i = 0; i < kSources; ++i)
    config += "\n[sources." + name_of(i) + "]\nurl = \"" + server.url("/" + name_of(i)) +
              "\"\nevery = \"1h\"\n";
  spit(archive.dir() + "/feeddiff.toml", config);
  REQUIRE(archive
              .git({"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m",
                    "100 sources", "feeddiff.toml"})
              .exit_code == 0);

  // The day advances two hours per run so that every source is due.
  int hour = 6;
  auto now = [&] {
    char buf[48];
    std::snprintf(buf, sizeof buf, "2026-10-%02dT%02d:00:00.000Z", 1 + hour / 24, hour % 24);
    return std::string(buf);
  };
  // How long the first complete poll's process ran (not the checks after it): the kills
  // below land at random moments within about that span.
  std::chrono::steady_clock::duration one_poll{};
  auto complete_poll = [&](int v) {
    archive.set_now(now());
    const auto started = std::chrono::steady_clock::now();
    auto r = archive({"poll", "--wait", "--quiet"});
    if (one_poll == std::chrono::steady_clock::duration{})
      one_poll = std::chrono::steady_clock::now() - started;
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string dirty = archive.git({"status", "--porcelain", "--untracked-files=all"}).out;
    INFO(dirty);
    CHECK(dirty.empty());
    // Every source's current version is recorded: no validator outlived a lost commit.
    for (int i = 0; i < kSources; i += 7)
      CHECK(slurp(archive.dir() + "/raw/" + name_of(i) + "/response.xml") == body_of(i, v));
    return archive.head();
  };

  std::vector<std::string> complete_heads = {complete_poll(0)};
  const auto span_us =
      std::max<long>(1000, std::chrono::duration_cast<std::chrono::microseconds>(one_poll).count());

  std::mt19937 rng(4242);
  int killed_mid_poll = 0;
  for (int run = 1; run <= kRuns; ++run) {
    INFO("run " << run);
    version = run;
    hour += 2;
    const pid_t pid = start_feeddiff({"-C", archive.dir(), "poll", "--quiet"},
                                     {{"FEEDDIFF_NOW", now()}, {"NO_COLOR", "1"}});
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (span_us * 5 / 4)));
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    killed_mid_poll += WIFSIGNALED(status);

    auto fsck = archive.git({"fsck", "--strict", "--no-dangling"});
    INFO(fsck.out << fsck.err);
    CHECK(fsck.exit_code == 0);
    // The branch only ever moves forward, so the newest complete poll's head being an
    // ancestor covers the ones before it; the first is checked too, for good measure.
    for (const auto& head : {complete_heads.front(), complete_heads.back()})
      CHECK(archive.git({"merge-base", "--is-ancestor", head.substr(0, 40), "HEAD"}).exit_code ==
            0);

    hour += 2;
    complete_heads.push_back(complete_poll(run));
  }
  // Most kills landed while the poll was still running (the rest found it finished).
  CHECK(killed_mid_poll >= kRuns / 2);
  auto fsck = archive.git({"fsck", "--strict"});
  CHECK(fsck.exit_code == 0);
}
