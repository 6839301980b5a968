#pragma once
// The hooks this machine consents to run. feeddiff.toml is committed and synced, so a
// `[notify]` exec or webhook can arrive with a clone, a sync or a pull, written by whoever
// can push. As git never runs hooks that come with a clone, feeddiff runs a hook only when
// this machine recorded its exact value (and the contents of the work-tree files its command
// names) in .git/feeddiff/trust, which is never committed: `feeddiff trust` records them.

#include <string>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/store.h"

namespace feeddiff::cli {

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

}  // namespace feeddiff::cli
