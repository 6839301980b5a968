#pragma once
// A first build writes three files per change (its page, its raw copy, its feed entry), and
// making them is a third of its CPU time, nearly all of it in the kernel. PageWriter makes
// them on a thread of its own while the build reads the archive and renders the next pages:
// the thread touches the file system only, never libgit2.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#include "feeddiff/result.h"
#include "site/site_files.h"

namespace feeddiff::site {

class PageWriter {
 public:
  // Bytes waiting at most: the renderer waits past it, so memory stays bounded whatever the
  // round's size.
  static constexpr std::size_t kMaxQueued = 32u << 20;
  // Jobs queued before the thread is woken: it writes faster than pages are rendered, so a
  // wake per job was a futex call and a context switch per file on both cores.
  static constexpr std::size_t kWakeBatch = 64;

  PageWriter() = default;
  PageWriter(const PageWriter&) = delete;
  PageWriter& operator=(const PageWriter&) = delete;
  ~PageWriter();

  // Writes content to path as write_if_changed does, on the thread (started at the first
  // call). counted: whether the run's report counts the file (state files are not).
  void write(std::filesystem::path path, std::string content, bool counted = true);
  // Whether path is queued and not written yet.
  bool queued(const std::filesystem::path& path);
  // Waits until every file queued is written and the thread has ended (a fork needs one
  // thread); adds what it wrote to writes. The first error of any write, if one failed.
  Status finish(Writes& writes);

 private:
  struct Job {
    std::filesystem::path path;
    std::string content;
    bool counted = true;
  };
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;  // the thread: a job or the end
  std::condition_variable room_;  // the renderer: room in the queue
  std::deque<Job> jobs_;
  std::size_t queued_ = 0;                                // bytes in jobs_
  std::unordered_map<std::string, std::size_t> pending_;  // jobs per path, until written
  bool ending_ = false;
  bool waiting_ = false;         // the renderer waits for room: the thread runs whatever is queued
  Writes done_;                  // the thread's, read after join
  std::optional<Error> failed_;  // the first error; later jobs are dropped
  std::thread thread_;
};

}  // namespace feeddiff::site
