#include "site/site_writer.h"

#include <utility>

namespace feeddiff::site {

namespace fs = std::filesystem;

PageWriter::~PageWriter() {
  Writes ignored;
  (void)finish(ignored);
}

void PageWriter::write(fs::path path, std::string content, bool counted) {
  std::unique_lock lock(mutex_);
  if (failed_) return;  // the run fails at finish(): nothing more is worth writing
  if (!thread_.joinable()) {
    ending_ = false;
    thread_ = std::thread([this] { run(); });
  }
  // One job larger than the bound waits for an empty queue, then goes alone.
  const auto room = [&] { return jobs_.empty() || queued_ + content.size() <= kMaxQueued; };
  if (!room()) {
    waiting_ = true;
    wake_.notify_one();
    room_.wait(lock, room);
    waiting_ = false;
  }
  queued_ += content.size();
  ++pending_[path.native()];
  jobs_.push_back({std::move(path), std::move(content), counted});
  if (jobs_.size() == kWakeBatch) wake_.notify_one();
}

bool PageWriter::queued(const fs::path& path) {
  std::lock_guard lock(mutex_);
  return pending_.count(path.native()) > 0;
}

void PageWriter::run() {
  Writes not_counted;
  for (;;) {
    Job job;
    bool skip = false;
    {
      std::unique_lock lock(mutex_);
      // Once woken, it writes until the queue is empty.
      if (jobs_.empty())
        wake_.wait(lock, [&] { return jobs_.size() >= kWakeBatch || ending_ || waiting_; });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      skip = failed_.has_value();
    }
    // done_ is the thread's alone until finish() has joined it.
    Writes& writes = job.counted ? done_ : not_counted;
    Status ok = skip ? Status(Ok{}) : write_if_changed(job.path, job.content, writes);
    {
      std::lock_guard lock(mutex_);
      queued_ -= job.content.size();
      if (auto it = pending_.find(job.path.native()); it != pending_.end() && --it->second == 0)
        pending_.erase(it);
      if (!ok && !failed_) failed_ = ok.error();
    }
    room_.notify_all();
    // The job's memory is freed here, outside the lock: a free of what the renderer
    // allocated waits for its malloc arena, and the renderer must not wait for the lock
    // meanwhile.
  }
}

Status PageWriter::finish(Writes& writes) {
  {
    std::lock_guard lock(mutex_);
    ending_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  writes.written += std::exchange(done_.written, 0);
  writes.unchanged += std::exchange(done_.unchanged, 0);
  if (failed_) return *failed_;
  return Ok{};
}

}  // namespace feeddiff::site
