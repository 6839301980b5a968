#pragma once
// Cache writes on a thread of their own (Archive::write_cache_behind): a site's first build
// writes two cache entries a change, each a new file renamed into a directory of a hundred
// thousand, and on its main thread that was a sixth of the build. Internal to store.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

namespace feeddiff {

/// Writes queued (path, value) pairs in order on its own thread with the function given;
/// a value queued and not yet written reads back from the queue.
class CacheBehind {
 public:
  /// Starts the thread; write(path, value) is what it calls for each entry.
  explicit CacheBehind(std::function<void(const std::string&, const std::string&)> write);
  /// Writes what is queued, then stops the thread.
  ~CacheBehind();
  CacheBehind(const CacheBehind&) = delete;
  CacheBehind& operator=(const CacheBehind&) = delete;

  /// Queues a write; waits while kMaxQueued are queued (memory stays bounded).
  void put(std::string path, std::string value);
  /// The newest value queued for path and not yet written; nullopt when none is.
  std::optional<std::string> pending(const std::string& path) const;
  /// Whether a write of path is queued or under way.
  bool has(const std::string& path) const;
  /// Waits until everything queued is written.
  void drain();

  /// Writes queued at most.
  static constexpr std::size_t kMaxQueued = 4096;

 private:
  void run();

  std::function<void(const std::string&, const std::string&)> write_;
  mutable std::mutex lock_;
  std::condition_variable changed_;
  std::deque<std::pair<std::string, std::string>> queue_;
  // Per path: how many of its writes are queued or under way, and the newest value.
  std::unordered_map<std::string, std::pair<std::size_t, std::string>> pending_;
  std::size_t busy_ = 0;  // writes taken from the queue and not finished
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace feeddiff
