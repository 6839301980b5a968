#pragma once
// Part of the core module: the one child-process runner, used by git (sync, clone) and by the
// exec hook of [notify]. A header of its own rather than a section of core.h, which promises
// pure functions only: this one starts processes, sends signals and waits.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/result.h"

namespace feeddiff {

/// Where a child's stdout or stderr goes.
enum class ChildStream {
  capture,    ///< into ChildRun::output or ChildRun::errors
  inherit,    ///< feeddiff's own descriptor
  to_stderr,  ///< feeddiff's stderr (for stdout: a hook's chatter must not mix with the report)
};

/// A child process to run.
struct ChildRequest {
  /// The program, an absolute path (no PATH lookup, no shell unless the program is one).
  std::string program;
  /// Its argv, argv[0] included.
  std::vector<std::string> argv;
  /// The working directory; "" keeps feeddiff's.
  std::string dir;
  /// Set in the child's environment, replacing feeddiff's variables of those names.
  std::vector<std::pair<std::string, std::string>> env;
  /// Written to its stdin without blocking, which is then closed (a child that never reads
  /// it is not waited on); nullopt: stdin is /dev/null.
  std::optional<std::string_view> input;
  ChildStream out = ChildStream::capture;  ///< where stdout goes
  ChildStream err = ChildStream::capture;  ///< where stderr goes
  /// How long it may run: past it, its process group is killed.
  TimeMs timeout_ms = 60'000;
  /// At the deadline, SIGTERM first and SIGKILL this long after (a git may remove its lock
  /// files); 0: SIGKILL at once.
  TimeMs term_grace_ms = 0;
};

/// How a child ended.
struct ChildRun {
  int exit_status = -1;    ///< its exit status when it exited, else -1
  int signal = 0;          ///< the signal that ended it, else 0
  bool timed_out = false;  ///< it ran past the deadline and its group was killed
  std::string output;      ///< stdout, when captured (also what came before a timeout)
  std::string errors;      ///< stderr, when captured
  /// "" when it exited 0; else one line: "exit status 1", "killed by signal 9",
  /// "timed out after 30s, killed".
  std::string why;
  /// Whether it exited 0.
  explicit operator bool() const { return exit_status == 0 && !timed_out; }
};

/// Runs a child in a process group of its own (so that the deadline stops whatever it
/// started too), with an empty signal mask and SIGPIPE at its default. Its pipes are served
/// with poll(2): a child that floods stdout while feeddiff writes its stdin, or never reads
/// stdin at all, cannot hang feeddiff. It is done when it has exited and its captured
/// outputs are closed, or at the deadline. Errc::io when it cannot be started.
Result<ChildRun> run_child(const ChildRequest& request);

// ---- Forked helpers: a share of feeddiff's own work done by a copy of the process (no
// exec), answering through an in-memory file (the index rebuild, the site's source pages).

/// Whether a helper may be forked now: this process has one thread (a lock another thread
/// held would be copied held, for ever) and may run on two CPUs or more.
bool may_fork_helper();

/// In a forked helper, first: it dies with its parent (PR_SET_PDEATHSIG), and exits at once
/// if the parent is gone already. It shares the parent's descriptors (the archive lock, an
/// flock, is held while any copy is open): a helper left behind would hold it for ever.
void die_with_parent(int parent_pid);

/// Writes all of bytes to fd, retrying on EINTR; false on any error.
bool write_whole(int fd, std::string_view bytes);

/// The whole content of fd read from offset 0 (pread), retrying on EINTR; nullopt on error.
std::optional<std::string> read_whole(int fd);

}  // namespace feeddiff
