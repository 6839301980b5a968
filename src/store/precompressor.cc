#include "store/precompressor.h"

#include <cstring>
#include <utility>

#include "store/pack_codec.h"

namespace feeddiff::pack {

Precompressor::~Precompressor() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Precompressor::submit(const git_oid& id, std::shared_ptr<const std::string> bytes) {
  const std::size_t size = bytes ? bytes->size() : 0;
  if (size < kPrecompressMinBytes) return false;
  {
    std::lock_guard lock(mutex_);
    if (queued_bytes_ + size > kPrecompressMaxQueued || made_.contains(id)) return false;
    made_.emplace(id, std::string());
    queue_.push_back(Job{id, std::move(bytes)});
    queued_bytes_ += size;
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_one();
  return true;
}

std::optional<std::string> Precompressor::take(const git_oid& id) {
  std::unique_lock lock(mutex_);
  auto it = made_.find(id);
  if (it == made_.end()) return std::nullopt;
  done_.wait(lock, [&] {
    it = made_.find(id);
    return it == made_.end() || !it->second.empty();
  });
  if (it == made_.end()) return std::nullopt;  // cleared meanwhile
  std::string out = std::move(it->second);
  made_.erase(it);
  return out;
}

void Precompressor::clear() {
  std::unique_lock lock(mutex_);
  queue_.clear();
  queued_bytes_ = 0;
  // The job in the thread's hands finishes into a map that no longer wants it: wait for it,
  // so nothing of this batch outlives the clear.
  done_.wait(lock, [&] { return !working_; });
  made_.clear();
  done_.notify_all();
}

void Precompressor::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= job.bytes->size();
    working_ = job.id;
    lock.unlock();
    std::string compressed;
    zlib_compress(*job.bytes, compressed);
    lock.lock();
    working_.reset();
    if (auto it = made_.find(job.id); it != made_.end()) it->second = std::move(compressed);
    done_.notify_all();
  }
}

}  // namespace feeddiff::pack
