// HandOff: what one thread produces and another consumes, in order, with a bound on what
// waits between them. The poll's transfers run on a thread of their own and hand each
// response to the settling thread through one: the transfers go on while a response is
// committed or a batch is flushed, and the responses waiting stay few and small.

#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace feeddiff::poll_detail {

/// A bounded first-in, first-out queue between one producing and one consuming thread.
template <class T>
class HandOff {
 public:
  /// A queue whose push() waits while `max_items` items wait, or while the next item's
  /// bytes would take the waiting ones past `max_bytes`; an item alone always passes.
  HandOff(std::size_t max_items, std::size_t max_bytes)
      : max_items_(max_items), max_bytes_(max_bytes) {}

  /// Queues `item`, weighing `bytes`, once there is room (see the constructor); drops it
  /// once abandoned.
  void push(T item, std::size_t bytes) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] {
      return abandoned_ || items_.empty() ||
             (items_.size() < max_items_ && bytes_ + bytes <= max_bytes_);
    });
    if (abandoned_) return;
    items_.emplace_back(std::move(item), bytes);
    bytes_ += bytes;
    ready_.notify_one();
  }

  /// The oldest item, waiting for one; nullopt once closed and drained, or abandoned.
  std::optional<T> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return abandoned_ || closed_ || !items_.empty(); });
    if (abandoned_ || items_.empty()) return std::nullopt;
    auto [item, bytes] = std::move(items_.front());
    items_.pop_front();
    bytes_ -= bytes;
    room_.notify_one();
    return std::move(item);
  }

  /// No more items will be pushed: pop() answers nullopt once the queue is empty.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }

  /// The consumer has gone: push() no longer waits, and drops what it is given.
  void abandon() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    items_.clear();
    room_.notify_all();
    ready_.notify_all();
  }

 private:
  const std::size_t max_items_;
  const std::size_t max_bytes_;
  std::mutex mutex_;
  std::condition_variable room_;
  std::condition_variable ready_;
  std::deque<std::pair<T, std::size_t>> items_;
  std::size_t bytes_ = 0;
  bool closed_ = false;
  bool abandoned_ = false;
};

}  // namespace feeddiff::poll_detail
