#pragma once
// Cache writes on a thread of their own (Archive::write_cache_behind): a site's first build
// writes two cache entries a change, and on its main thread that was a sixth of the build
// (each was then a new file renamed into a directory of a hundred thousand; they are rows of
// the entries file now, entry_db.h, committed a batch each time the queue runs dry).
// Internal to store.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace feeddiff {

/// Writes queued (path, value) pairs in order on its own thread with the function given;
/// a value queued and not yet written reads back from the queue.
class CacheBehind {
 public:
  /// Starts the thread; write(path, value) is what it calls for each entry, and idle()
  /// (when given) what it calls after writes once kIdleDelay passed without another, and
  /// before it stops (the entries file's transaction commits there).
  explicit CacheBehind(std::function<void(const std::string&, const std::string&)> write,
                       std::function<void()> idle = {});
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
  /// Whether path may be on disk: false only when its directory, listed once when first
  /// asked about, did not hold its name and no write of it was queued since (or another
  /// process wrote it after the listing: the caller recomputes what it then misses). A
  /// first build's reads all miss, and a miss looked up on disk waited for this thread's
  /// lock on the directory it was creating entries in.
  bool may_exist(const std::string& path);
  /// Notes that path was written by other means (an append): it may exist.
  void note(const std::string& path);

  /// Writes queued at most.
  static constexpr std::size_t kMaxQueued = 4096;
  /// Writes queued before the thread is woken (a wake per write was a futex call and a
  /// context switch per entry on both cores); drain() and the destructor wake it at once.
  static constexpr std::size_t kWakeBatch = 64;
  /// The quiet after which idle() is called: a transaction committed each time the queue ran
  /// dry was a commit per 64 entries, and a site's first build of 100,000 changes took 20%
  /// longer than with a file per entry. A transaction is open for at most EntryDb::kBatch
  /// writes or this long after the last.
  static constexpr std::chrono::milliseconds kIdleDelay{50};

 private:
  void run();

  std::function<void(const std::string&, const std::string&)> write_;
  std::function<void()> idle_;
  mutable std::mutex lock_;
  std::condition_variable changed_;
  std::deque<std::string> queue_;  // the paths to write, in order
  // Per path: how many of its writes are queued or under way, and the newest value (what
  // each of them writes: a later value makes the earlier writes moot).
  std::unordered_map<std::string, std::pair<std::size_t, std::shared_ptr<const std::string>>>
      pending_;
  // The names listed or queued: a filter of 2^25 bits (4 MB), two bits a path; a false "may
  // exist" costs a read, never a wrong answer (about 1 in 1,800 at 400,000 names, the cache
  // of 100,000 changes; 1 in 22 at four million).
  static constexpr std::size_t kFilterBits = std::size_t{1} << 25;
  void remember(std::string_view path);
  bool remembered(std::string_view path) const;
  // calloc'd: the kernel's zero pages until a bit is set (a vector would write all of it).
  std::unique_ptr<std::uint64_t[], void (*)(void*)> filter_;
  std::unordered_set<std::string> listed_;  // directories listed into the filter
  std::size_t busy_ = 0;                    // writes taken from the queue and not finished
  std::size_t draining_ = 0;                // callers of drain() waiting
  bool dirty_ = false;                      // written since idle() was last called
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace feeddiff
