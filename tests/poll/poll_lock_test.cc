// One writer at a time: a second poll fails at once with a clear message, or waits with
// --wait. Ordering is checked by cause and effect (did the first poll finish?), not by clocks.

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "poll/poll_helpers.h"

using namespace feeddiff::test;

namespace {

// A poll of one slow source, run on a thread; `done` turns true when it has exited.
struct SlowPoll {
  explicit SlowPoll(const CliArchive& archive)
      : thread([this, &archive] {
          result = archive({"poll"});
          done = true;
        }) {}
  ~SlowPoll() {
    if (thread.joinable()) thread.join();
  }
  std::atomic<bool> done{false};
  RunResult result;
  std::thread thread;
};

// Lets a held reply go when the test ends early (a failed REQUIRE), so nothing hangs.
struct Release {
  std::atomic<bool>& flag;
  ~Release() { flag = true; }
};

void wait_for_first_request(const HttpServer& server) {
  // The poll takes the lock before it fetches, so a request means the lock is held.
  for (int i = 0; i < 2000 && server.request_count() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(server.request_count() == 1);
}

}  // namespace

TEST_CASE("a second poll while one runs exits at once with exit 2 and says why", "[poll]") {
  // The reply is held until the test has tried every other writer, so the first poll holds
  // the lock throughout however slowly a loaded machine starts processes.
  std::atomic<bool> released{false};
  HttpServer server([&released](const RecordedRequest&) {
    for (int i = 0; i < 6000 && !released; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return Reply{.body = rss("slow")};
  });
  CliArchive archive("lock-busy");
  REQUIRE(archive({"add", "slow", server.url("/feed")}).exit_code == 0);
  SlowPoll first(archive);
  Release release{released};
  wait_for_first_request(server);

  auto second = archive({"poll"});
  const bool first_was_done = first.done;
  CHECK_FALSE(first_was_done);  // the second did not wait for the first
  CHECK(second.exit_code == 2);
  CHECK(second.err ==
        "feeddiff: error: another feeddiff process is writing this archive (retry later, or "
        "pass --wait)\n");
  CHECK(second.out.empty());
  // Other writers are refused the same way.
  CHECK(archive({"add", "other", server.url("/other")}).exit_code == 2);
  CHECK(archive({"enable", "slow"}).exit_code == 2);

  released = true;
  first.thread.join();
  INFO(first.result.out << first.result.err);
  CHECK(first.result.exit_code == 0);
  CHECK(first.result.out.find("slow: added") != std::string::npos);
  CHECK(server.request_count() == 1);
}

TEST_CASE("poll --wait waits for the running poll, then runs", "[poll]") {
  HttpServer server(
      [](const RecordedRequest&) { return Reply{.body = rss("slow"), .delay_ms = 1000}; });
  CliArchive archive("lock-wait");
  REQUIRE(archive({"add", "slow", server.url("/feed")}).exit_code == 0);
  SlowPoll first(archive);
  wait_for_first_request(server);

  auto second = archive({"poll", "--wait", "--verbose"});
  INFO(second.out << second.err);
  CHECK(second.exit_code == 0);
  // It read the state the first poll saved when it let go of the lock: nothing was due any
  // more. (Not `first.done`: that flag is set only after the first thread has reaped its
  // child, which a loaded machine can schedule after the second poll has already finished.)
  CHECK(second.out.find("slow: not due") != std::string::npos);
  CHECK(server.request_count() == 1);
  first.thread.join();
  CHECK(first.result.exit_code == 0);
}
