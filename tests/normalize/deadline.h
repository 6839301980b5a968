#pragma once
// A deadline that only catches a hang: the work runs in a forked child that the kernel stops
// (SIGALRM) after a minute, far past what linear work on the test's input takes on any
// machine and far short of what a quadratic scan of it takes. No wall-clock time is asserted.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <string>

namespace feeddiff::test {

/// Generous: linear work on the inputs these tests use takes well under a second.
inline constexpr unsigned kHangSeconds = 60;

/// Runs `work` in a child process: "finished" when it returned true within `seconds`,
/// "wrong result" when it returned false, else how it ended ("hung: killed after 60 s").
inline std::string run_bounded(const std::function<bool()>& work, unsigned seconds = kHangSeconds) {
  const pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::alarm(seconds);
    ::_exit(work() ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return "waitpid failed";
  if (WIFEXITED(status)) return WEXITSTATUS(status) == 0 ? "finished" : "wrong result";
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return "hung: killed after " + std::to_string(seconds) + " s";
  return "killed by signal " + std::to_string(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace feeddiff::test
