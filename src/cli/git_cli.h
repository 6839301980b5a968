#pragma once
// The git command line, for what libgit2 1.5 cannot do as the user configured it: talking to
// a remote. `git clone`, `git fetch` and `git push` use the user's ssh keys, credential
// helpers, proxies and insteadOf rules; libgit2's transports would need each set up again.

#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::cli {

/// What a git command did.
struct GitRun {
  int exit_code = 0;   ///< git's exit status (128 for its fatal errors, 128+N for signal N)
  std::string output;  ///< its stdout
  std::string errors;  ///< its stderr
  /// Whether it ran past its deadline, and its process group was killed.
  bool timed_out = false;
  /// Whether it exited 0.
  explicit operator bool() const { return exit_code == 0; }
  /// The last non-empty line of stderr, with every `user:password@` of a URL masked, for a
  /// one-line error.
  std::string last_error_line() const;
};

/// The longest a git command may run when FEEDDIFF_GIT_TIMEOUT does not say: a fetch or
/// push of a large archive over a slow link fits; a remote that stalls does not hold the
/// archive's lock for ever.
inline constexpr long kGitTimeoutMs = 10L * 60 * 1000;

/// The deadline of each git command: FEEDDIFF_GIT_TIMEOUT (a duration: 90s, 10m, 1h), else
/// kGitTimeoutMs. Errc::usage when it is set to anything else.
Result<long> git_timeout_from_env();

/// Runs `git ARGS...` in dir (no shell: arguments are passed as they are), with stdin
/// closed, in a process group of its own that is killed (SIGTERM, then SIGKILL) when it
/// runs past timeout_ms. git is the one found in an absolute directory of PATH, looked up
/// before the chdir (a `git` committed in the work tree never runs), and its PATH keeps only
/// absolute directories. So that a cron job never waits on a person: GIT_TERMINAL_PROMPT=0,
/// ssh in batch mode (GIT_SSH_COMMAND="ssh -o BatchMode=yes" unless GIT_SSH_COMMAND, GIT_SSH
/// or core.sshCommand say otherwise) and an http transfer slower than 1000 bytes/s for 60 s
/// aborted (unless GIT_HTTP_LOW_SPEED_* or http.lowSpeed* are set). Errc::io when git cannot
/// be started at all.
Result<GitRun> run_git(const std::vector<std::string>& args, const std::string& dir,
                       long timeout_ms = kGitTimeoutMs);

/// The URL with `user:password@` (or `token@`) masked as `***@`, for output.
std::string mask_url_credentials(std::string_view text);

}  // namespace feeddiff::cli
