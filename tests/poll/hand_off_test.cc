// HandOff, the queue between a poll's transfers and its settling: order, the bound on what
// waits (items and bytes, one large item alone), closing and abandoning. Whether a producer
// is held is read from what it has pushed, after giving it time to push more: a bound that
// did not hold shows as an extra push, never as a late one.

#include "poll/hand_off.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using feeddiff::poll_detail::HandOff;

namespace {

// Waits (up to 10 s) until `count` reaches `want`; false if it never did.
bool reaches(const std::atomic<int>& count, int want) {
  for (int i = 0; i < 10000 && count.load() < want; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return count.load() >= want;
}

// Whether `count` reached `want` and stayed there for as long as a producer that was not
// held would take to push again.
bool held_at(const std::atomic<int>& count, int want) {
  if (!reaches(count, want)) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return count.load() == want;
}

// A producer pushing each (item, bytes) in turn, counting what it has pushed.
std::thread producer(HandOff<int>& queue, std::vector<std::pair<int, std::size_t>> items,
                     std::atomic<int>& pushed) {
  return std::thread([&queue, &pushed, items = std::move(items)] {
    for (const auto& [item, bytes] : items) {
      queue.push(item, bytes);
      ++pushed;
    }
  });
}

}  // namespace

TEST_CASE("a hand-off passes every item in order and ends once closed and drained", "[poll]") {
  HandOff<std::string> queue(4, 1 << 20);
  std::thread producer([&] {
    for (int i = 0; i < 1000; ++i) queue.push(std::to_string(i), 10);
    queue.close();
  });
  std::vector<std::string> got;
  while (auto item = queue.pop()) got.push_back(std::move(*item));
  producer.join();
  REQUIRE(got.size() == 1000);
  for (int i = 0; i < 1000; ++i) CHECK(got[static_cast<std::size_t>(i)] == std::to_string(i));
  CHECK_FALSE(queue.pop());
}

TEST_CASE("a hand-off holds its producer once as many items as its bound wait", "[poll]") {
  HandOff<int> queue(2, 1 << 20);
  std::atomic<int> pushed{0};
  std::thread pushing = producer(queue, {{0, 1}, {1, 1}, {2, 1}}, pushed);
  CHECK(held_at(pushed, 2));
  CHECK(queue.pop() == 0);
  CHECK(reaches(pushed, 3));
  pushing.join();
  CHECK(queue.pop() == 1);
  CHECK(queue.pop() == 2);
}

TEST_CASE("a hand-off lets an item larger than its byte bound through alone", "[poll]") {
  HandOff<int> queue(8, 100);
  std::atomic<int> pushed{0};
  // The first is over the bound but nothing waits: through. The second would make 1001
  // bytes wait: held until the large one is taken.
  std::thread pushing = producer(queue, {{1, 1000}, {2, 1}}, pushed);
  CHECK(held_at(pushed, 1));
  CHECK(queue.pop() == 1);
  CHECK(reaches(pushed, 2));
  pushing.join();
  CHECK(queue.pop() == 2);
}

TEST_CASE("an abandoned hand-off lets its held producer go and drops what it holds", "[poll]") {
  HandOff<int> queue(1, 1 << 20);
  std::atomic<int> pushed{0};
  std::vector<std::pair<int, std::size_t>> items;
  for (int i = 0; i < 100; ++i) items.emplace_back(i, 1);
  std::thread pushing = producer(queue, std::move(items), pushed);
  CHECK(held_at(pushed, 1));
  queue.abandon();
  CHECK(reaches(pushed, 100));
  pushing.join();
  CHECK_FALSE(queue.pop());
}
