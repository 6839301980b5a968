#pragma once
// The git command line, for what libgit2 1.5 cannot do as the user configured it: talking to
// a remote. `git clone`, `git fetch` and `git push` use the user's ssh keys, credential
// helpers, proxies and insteadOf rules; libgit2's transports would need each set up again.

#include <string>
#include <vector>

#include "feeddiff/result.h"

namespace feeddiff::cli {

/// What a git command did.
struct GitRun {
  int exit_code = 0;   ///< git's exit status (128 for its fatal errors)
  std::string output;  ///< its stdout
  std::string errors;  ///< its stderr
  /// Whether it exited 0.
  explicit operator bool() const { return exit_code == 0; }
  /// The last non-empty line of stderr, with every `user:password@` of a URL masked, for a
  /// one-line error.
  std::string last_error_line() const;
};

/// Runs `git ARGS...` in dir (no shell: arguments are passed as they are), with stdin
/// closed and GIT_TERMINAL_PROMPT=0, so that a cron job never waits on a password prompt.
/// Errc::io when git cannot be started at all.
Result<GitRun> run_git(const std::vector<std::string>& args, const std::string& dir);

/// The URL with `user:password@` (or `token@`) masked as `***@`, for output.
std::string mask_url_credentials(std::string_view text);

}  // namespace feeddiff::cli
