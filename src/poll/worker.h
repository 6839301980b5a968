// Worker: one thread that runs the jobs it is given, in the order given. The poll makes each
// arriving body's item model and blob id on one: a thread started per body cost a cold poll
// of 500 feeds some 30 ms of CPU in thread starts and exits, fresh stacks and their page
// faults, and the jobs are wanted in the order they are given anyway.

#pragma once

#include <future>
#include <limits>
#include <thread>
#include <utility>

#include "poll/hand_off.h"

namespace feeddiff::poll_detail {

/// One thread running jobs that answer an R, in order.
template <class R>
class Worker {
 public:
  /// Starts the thread; throws std::system_error when none can be had.
  Worker()
      : jobs_(std::numeric_limits<std::size_t>::max(), std::numeric_limits<std::size_t>::max()),
        thread_([this] {
          while (auto job = jobs_.pop()) (*job)();
        }) {}
  /// Runs the jobs given, then lets the thread go.
  ~Worker() { stop(true); }
  Worker(const Worker&) = delete;             ///< one thread, one owner
  Worker& operator=(const Worker&) = delete;  ///< one thread, one owner

  /// Queues a job; its answer, once run, in the future. A job given after stop() is dropped:
  /// its future answers std::future_error (broken promise).
  std::future<R> run(std::packaged_task<R()> job) {
    std::future<R> answer = job.get_future();
    jobs_.push(std::move(job), 0);
    return answer;
  }

  /// Lets the thread go once it has run every job given (drain), or only the one it is
  /// running (the rest dropped), and waits for it.
  void stop(bool drain) {
    if (drain)
      jobs_.close();
    else
      jobs_.abandon();
    if (thread_.joinable()) thread_.join();
  }

 private:
  HandOff<std::packaged_task<R()>> jobs_;  // before thread_, which reads it from the start
  std::thread thread_;
};

}  // namespace feeddiff::poll_detail
