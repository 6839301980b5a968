#include "store/cache_behind.h"

namespace feeddiff {

CacheBehind::CacheBehind(std::function<void(const std::string&, const std::string&)> write)
    : write_(std::move(write)), thread_([this] { run(); }) {}

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
  auto& [count, newest] = pending_[path];
  ++count;
  newest = value;
  queue_.emplace_back(std::move(path), std::move(value));
  hold.unlock();
  changed_.notify_all();
}

std::optional<std::string> CacheBehind::pending(const std::string& path) const {
  const std::lock_guard<std::mutex> hold(lock_);
  const auto it = pending_.find(path);
  if (it == pending_.end()) return std::nullopt;
  return it->second.second;
}

bool CacheBehind::has(const std::string& path) const {
  const std::lock_guard<std::mutex> hold(lock_);
  return pending_.count(path) > 0;
}

void CacheBehind::drain() {
  std::unique_lock<std::mutex> hold(lock_);
  changed_.wait(hold, [this] { return queue_.empty() && busy_ == 0; });
}

void CacheBehind::run() {
  std::unique_lock<std::mutex> hold(lock_);
  for (;;) {
    changed_.wait(hold, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and all written
    auto [path, value] = std::move(queue_.front());
    queue_.pop_front();
    ++busy_;
    hold.unlock();
    changed_.notify_all();  // room in the queue
    write_(path, value);
    hold.lock();
    --busy_;
    // The entry stays pending until its newest write is on disk: a read in between gets the
    // queued value, never the older file.
    if (auto it = pending_.find(path); it != pending_.end() && --it->second.first == 0)
      pending_.erase(it);
    changed_.notify_all();
  }
}

}  // namespace feeddiff
