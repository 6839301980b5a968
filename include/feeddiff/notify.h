#pragma once
// notify: what happens after a poll has committed. The [notify] hooks of feeddiff.toml (an
// exec command, a webhook) run for each change the source's rules pick, with the change as
// `show --format json` renders it; `after = N` holds a change until it has stayed; what did
// not go through is kept pending in poll's state and retried by the next poll. A hook runs
// only when this machine consented to its exact value (`feeddiff trust`), kept in
// .git/feeddiff/trust. And `poll --digest`'s text. A service beside changes: poll does not
// depend on render, and a hook is given rendered JSON. Nothing here writes to a terminal:
// the lines go to the caller's sinks, the digest is returned.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/core.h"
#include "feeddiff/poll.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

// ---- One hook run ----

/// How one hook run ended.
struct HookRun {
  bool ok = false;  ///< exited 0 (exec), answered 2xx (webhook)
  std::string why;  ///< for a failure, one line: "exit status 1", "timed out after 30s", ...
};

/// Runs `/bin/sh -c command` in directory `dir`, in a process group of its own, with `input`
/// on its stdin (its stdout goes to stderr, so that poll's stdout stays poll's) and `env`
/// added to the environment. Written without blocking: a hook that never reads stdin does not
/// hold feeddiff. At `timeout` the whole group is killed (SIGKILL).
HookRun run_exec_hook(const std::string& command, const std::string& dir, const std::string& input,
                      const std::vector<std::pair<std::string, std::string>>& env, TimeMs timeout);

/// POSTs `json` to the webhook URL through fetch (its user agent, no redirects followed),
/// within `timeout`; connect_timeout caps the connection. Messages name the URL's scheme, host
/// and port only: its credentials, path and query (a token, often) are never shown.
HookRun post_webhook(const std::string& url, const std::string& json, TimeMs timeout,
                     TimeMs connect_timeout);

// ---- After a poll ----

/// Where notify_changes tells what it does, one line at a time as it happens (hooks run in
/// between, their own output on stderr): each line without its newline and not escaped for a
/// terminal. An empty sink is not told.
struct NotifySinks {
  /// A change held, released or dropped by `after` (poll prints these on stdout).
  std::function<void(std::string_view)> note;
  /// A hook that failed, a notification dropped, hooks waiting for trust (stderr).
  std::function<void(std::string_view)> problem;
};

/// What notify_changes needs besides the poll's report.
struct NotifyOptions {
  TimeMs connect_timeout = 15'000;  ///< caps a webhook's connection (poll --connect-timeout)
  TimeMs now = 0;                   ///< when a held change found gone is recorded as reverted
};

/// What the hooks after a poll did.
struct NotifyReport {
  /// Hook runs that failed and changes that could not be read, plus one when some hook
  /// waits for trust: 0 when everything due went through.
  std::size_t failures = 0;
  std::size_t delivered = 0;  ///< changes whose hooks all went through
  std::size_t waiting = 0;    ///< notifications kept because a hook waits for trust
};

/// Runs the hooks for the changes a poll committed that the source's rules pick (kinds,
/// fields, match; cosmetic and minor ones only when asked; never a response that is not a
/// feed) and for those still pending from earlier polls, and records what is still
/// undelivered in the state (under the archive's lock, which it takes while it reads and
/// writes the state, never while hooks run). A rule with `after = N` holds a change in the
/// state until N polls in a row saw it (it is then delivered), or drops it, recorded as
/// reverted, when a poll finds it gone. Each failure is told to sinks.problem in one line.
Result<NotifyReport> notify_changes(Archive& archive, const PollReport& report,
                                    const NotifyOptions& options, const NotifySinks& sinks);

/// `poll --digest`: what the poll's commits changed, source by source (items added, changed
/// with their fields, removed), escaped for a terminal; "" when nothing was committed.
std::string poll_digest(const Archive& archive, const PollReport& report);

// ---- Trust: the hooks this machine consents to run ----
// feeddiff.toml is committed and synced, so a hook can arrive with a clone, a sync or a pull,
// written by whoever can push. As git never runs hooks that come with a clone, a hook runs
// only when this machine recorded its exact value (and the contents of the work-tree files
// its command names) in .git/feeddiff/trust, which is never committed.

/// One value of feeddiff.toml that runs something (exec) or receives every change (webhook).
struct HookValue {
  std::string kind;                  ///< "exec" or "webhook"
  std::string value;                 ///< the command line, or the URL
  std::vector<std::string> sources;  ///< the sources whose hooks it is (after overrides)
  /// Files in the archive's work tree that the command names (`sh hooks/notify.sh`): their
  /// contents are part of what is trusted, since a sync can change them too.
  std::vector<std::string> files;
  std::string fingerprint;  ///< SHA-256 of the kind, the value and those files' contents
  bool trusted = false;     ///< whether .git/feeddiff/trust holds the fingerprint
};

/// Every distinct exec and webhook value in the config (global and per source, "" left out),
/// in the order of the file's tables, each with whether this machine trusts it.
Result<std::vector<HookValue>> hook_values(const Archive& archive, const Config& config);

/// Records `values` as trusted: the store then holds exactly those of each kind in `kinds`
/// ("exec", "webhook"), so a value trusted before and since replaced is no longer trusted.
Status trust_hooks(const Archive& archive, const std::vector<HookValue>& values,
                   const std::vector<std::string>& kinds);

/// How a hook is named in messages: an exec command quoted in full, a webhook by its scheme,
/// host and port only (its path and query often carry a token).
std::string hook_label(const HookValue& hook);

/// A hook as `feeddiff trust` lists it: its label, a webhook's redacted URL, the files a
/// command reads and the sources it is for (text from feeddiff.toml: escape it to show it).
std::string hook_description(const HookValue& hook);

/// The hooks feeddiff.toml holds now, each with whether this machine trusts it.
Result<std::vector<HookValue>> current_hooks(const Archive& archive);

/// `feeddiff trust KIND...`: under the archive's lock (Errc::locked when another process
/// holds it), records the current hooks of those kinds as trusted (see trust_hooks) and
/// returns them.
Result<std::vector<HookValue>> trust_current_hooks(const Archive& archive,
                                                   std::vector<std::string> kinds);

}  // namespace feeddiff
