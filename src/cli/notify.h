#pragma once
// What poll does after it has committed: the hooks of [notify] (a command, a webhook) for
// each change, and `poll --digest`'s summary. Here in cli, not in poll, because a hook is
// given the change as `show --format json` renders it, and poll does not depend on render.

#include <cstddef>
#include <string>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/poll.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

/// How one hook run ended.
struct HookRun {
  bool ok = false;  ///< exited 0 (exec), answered 2xx (webhook)
  std::string why;  ///< for a failure, one line: "exit status 1", "timed out after 30s", ...
};

/// Runs `/bin/sh -c command` in directory `dir`, in a process group of its own, with `input`
/// on its stdin (its stdout goes to stderr, so that poll's stdout stays poll's) and `env`
/// added to the environment. Written without blocking: a hook that never reads stdin does not hold
/// feeddiff. At `timeout` the whole group is killed (SIGKILL).
HookRun run_exec_hook(const std::string& command, const std::string& dir, const std::string& input,
                      const std::vector<std::pair<std::string, std::string>>& env, TimeMs timeout);

/// POSTs `json` to the webhook URL through fetch (its user agent, no redirects followed),
/// within `timeout`; connect_timeout caps the connection. Messages name the URL's scheme, host
/// and port only: its credentials, path and query (a token, often) are never shown.
HookRun post_webhook(const std::string& url, const std::string& json, TimeMs timeout,
                     TimeMs connect_timeout);

/// Runs the hooks for the changes a poll committed that the source's rules pick (kinds,
/// fields, match; cosmetic and minor ones only when asked; never a response that is not a
/// feed) and for those still pending from earlier polls, records what is still undelivered in
/// the state, and reports each failure on stderr in one line. A rule with `after = N` holds a
/// change in the state until N polls in a row saw it (it is then delivered), or drops it,
/// recorded as reverted, when a poll finds it gone; those lines go to stdout unless quiet.
/// The value is the number of hook failures (0 when all went through).
Result<std::size_t> notify_changes(Archive& archive, const PollReport& report,
                                   TimeMs connect_timeout, bool quiet = false);

/// `poll --digest`: what the poll's commits changed, source by source (items added, changed
/// with their fields, removed), escaped for a terminal; "" when nothing was committed.
std::string poll_digest(const Archive& archive, const PollReport& report);

}  // namespace feeddiff::cli
