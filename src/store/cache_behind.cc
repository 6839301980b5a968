#include "store/cache_behind.h"

#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <utility>

namespace feeddiff {

CacheBehind::CacheBehind(std::function<void(const std::string&, const std::string&)> write,
                         std::function<void()> idle)
    : write_(std::move(write)),
      idle_(std::move(idle)),
      filter_(static_cast<std::uint64_t*>(std::calloc(kFilterBits / 64, sizeof(std::uint64_t))),
              &std::free),
      thread_([this] { run(); }) {}

namespace {

// The filter's two bits for a path.
std::pair<std::size_t, std::size_t> bits_of(std::string_view path, std::size_t bits) {
  const std::uint64_t h = std::hash<std::string_view>{}(path);
  const std::uint64_t g = (h ^ (h >> 29)) * 0x9E3779B97F4A7C15ull;
  return {static_cast<std::size_t>(h % bits), static_cast<std::size_t>((g >> 17) % bits)};
}

}  // namespace

void CacheBehind::remember(std::string_view path) {
  if (!filter_) return;  // no memory for it: every path may exist
  const auto [a, b] = bits_of(path, kFilterBits);
  filter_[a / 64] |= std::uint64_t{1} << (a % 64);
  filter_[b / 64] |= std::uint64_t{1} << (b % 64);
}

bool CacheBehind::remembered(std::string_view path) const {
  if (!filter_) return true;
  const auto [a, b] = bits_of(path, kFilterBits);
  return (filter_[a / 64] >> (a % 64) & 1) && (filter_[b / 64] >> (b % 64) & 1);
}

void CacheBehind::note(const std::string& path) {
  const std::lock_guard<std::mutex> hold(lock_);
  remember(path);
}

bool CacheBehind::may_exist(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return true;
  const std::string dir = path.substr(0, slash);
  const std::lock_guard<std::mutex> hold(lock_);
  if (listed_.insert(dir).second) {
    DIR* listing = ::opendir(dir.c_str());
    if (!listing) {
      // Not there: nothing in it. Unreadable: say "may exist" for all of it from now on.
      if (errno != ENOENT) listed_.erase(dir), listed_.insert("!" + dir);
    } else {
      std::string name = dir + "/";
      while (const dirent* entry = ::readdir(listing)) {
        name.resize(slash + 1);
        name += entry->d_name;
        remember(name);
      }
      ::closedir(listing);
    }
  }
  if (listed_.count("!" + dir)) return true;
  return remembered(path);
}

CacheBehind::~CacheBehind() {
  {
    const std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void CacheBehind::put(std::string path, std::string value) {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [this] { return queue_.size() < kMaxQueued; });
  remember(path);
  auto& [count, newest] = pending_[path];
  ++count;
  newest = std::make_shared<const std::string>(std::move(value));
  queue_.push_back(std::move(path));
  const bool wake = queue_.size() == kWakeBatch;
  hold.unlock();
  if (wake) changed_.notify_all();
}

std::optional<std::string> CacheBehind::pending(const std::string& path) const {
  const std::lock_guard<std::mutex> hold(lock_);
  const auto it = pending_.find(path);
  if (it == pending_.end()) return std::nullopt;
  return *it->second.second;
}

bool CacheBehind::has(const std::string& path) const {
  const std::lock_guard<std::mutex> hold(lock_);
  return pending_.count(path) > 0;
}

void CacheBehind::drain() {
  std::unique_lock<std::mutex> hold(lock_);
  ++draining_;
  changed_.notify_all();
  changed_.wait(hold, [this] { return queue_.empty() && busy_ == 0; });
  --draining_;
}

void CacheBehind::run() {
  for (;;) {
    std::string path;
    std::shared_ptr<const std::string> value;
    decltype(pending_)::node_type done;
    {
      std::unique_lock<std::mutex> hold(lock_);
      const auto ready = [this] {
        return queue_.size() >= kWakeBatch || stopping_ || (draining_ > 0 && !queue_.empty());
      };
      // Once woken, it writes until the queue is empty; what it wrote since idle() was last
      // called is closed by idle() after kIdleDelay without a write, or when stopping.
      if (queue_.empty()) {
        if (dirty_ && !changed_.wait_for(hold, kIdleDelay, ready)) {
          dirty_ = false;
          ++busy_;
          hold.unlock();
          idle_();
          hold.lock();
          --busy_;
        }
        changed_.wait(hold, ready);
      }
      if (queue_.empty()) {  // stopping, and all written
        if (std::exchange(dirty_, false)) {
          hold.unlock();
          idle_();
        }
        return;
      }
      path = std::move(queue_.front());
      queue_.pop_front();
      value = pending_.at(path).second;
      ++busy_;
    }
    changed_.notify_all();  // room in the queue
    write_(path, *value);
    {
      const std::lock_guard<std::mutex> hold(lock_);
      dirty_ = static_cast<bool>(idle_);
      --busy_;
      // The entry stays pending until its newest write is on disk: a read in between gets
      // the queued value, never the older file.
      if (auto it = pending_.find(path); it != pending_.end() && --it->second.first == 0)
        done = pending_.extract(it);
    }
    changed_.notify_all();
    // What the entry held is freed here, outside the lock: a free of what the caller's thread
    // allocated waits for its malloc arena, and the caller must not wait for the lock then.
  }
}

}  // namespace feeddiff
