#pragma once
// Half of a step in a forked child, on the second core. Threads would share libgit2's
// process-wide pack and cache locks (docs/index.md: two threads were slower than one); a
// child opens the repository afresh and shares nothing at run time. The caller always
// holds enough to do the child's half itself: whatever becomes of the child (killed, an
// error, a short answer), the result never depends on it.
//
// A child is forked only when the process has one thread (a lock another thread held at the
// fork would never be released in the child) and may run on two CPUs or more. It dies with
// its parent, whose descriptors (the site's lock among them) it shares.

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace feeddiff::site {

// Sources whose pages are written at least, for write_sources to give half of them to a
// child: below it the fork costs more than it saves. Tests lower it.
inline std::size_t fork_min_sources = 64;
// Children that answered, in this process (for the tests).
inline std::size_t fork_answers = 0;
// Tests set it: a child does its work, then exits with a failure instead of answering, as
// one killed after writing its pages would; the parent must write them again.
inline bool fork_child_fails = false;

class ForkedPart {
 public:
  // Forks a child that runs work and exits: its answer is what work returns (nullopt: it
  // failed). nullopt when no child was started.
  static std::optional<ForkedPart> start(const std::function<std::optional<std::string>()>& work);

  ForkedPart(ForkedPart&& other) noexcept;
  ForkedPart(const ForkedPart&) = delete;
  ForkedPart& operator=(const ForkedPart&) = delete;
  ForkedPart& operator=(ForkedPart&&) = delete;
  // A child not waited for is killed and reaped.
  ~ForkedPart();

  // Waits for the child: its answer, or nullopt when it failed in any way.
  std::optional<std::string> finish();

 private:
  ForkedPart(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_;
  int fd_;
};

}  // namespace feeddiff::site
