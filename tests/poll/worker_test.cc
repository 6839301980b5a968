// Worker, the thread that makes a poll's item models ahead: jobs run in the order given,
// stopping drains or drops what waits, and a dropped job's future says so.

#include "poll/worker.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

using feeddiff::poll_detail::Worker;

TEST_CASE("a worker runs its jobs in the order given and answers each in its future", "[poll]") {
  Worker<int> worker;
  std::vector<int> order;  // written by the worker's thread only
  std::vector<std::future<int>> answers;
  for (int i = 0; i < 200; ++i)
    answers.push_back(worker.run(std::packaged_task<int()>([i, &order] {
      order.push_back(i);
      return i * i;
    })));
  for (int i = 0; i < 200; ++i) CHECK(answers[static_cast<std::size_t>(i)].get() == i * i);
  worker.stop(true);
  REQUIRE(order.size() == 200);
  for (int i = 0; i < 200; ++i) CHECK(order[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("a worker stopped without draining finishes its job, drops the rest and any later",
          "[poll]") {
  Worker<int> worker;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> started{false};
  auto first = worker.run(std::packaged_task<int()>([&] {
    started = true;
    released.wait();
    return 1;
  }));
  auto second = worker.run(std::packaged_task<int()>([] { return 2; }));
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<bool> stopping{false};
  std::thread stopper([&] {
    stopping = true;
    worker.stop(false);  // drops the second job at once, then waits for the first
  });
  while (!stopping) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  release.set_value();
  stopper.join();
  CHECK(first.get() == 1);
  CHECK_THROWS_AS(second.get(), std::future_error);
  auto later = worker.run(std::packaged_task<int()>([] { return 3; }));
  CHECK_THROWS_AS(later.get(), std::future_error);
}
