#pragma once
// status: where each source stands between polls, gathered for `feeddiff status` from the
// poll state, feeddiff.toml, the hooks' trust on this machine and the stored credentials.
// Nothing is fetched and nothing printed: the command formats these as text or JSON.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/notify.h"
#include "feeddiff/poll.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// What `status` is asked.
struct StatusRequest {
  std::vector<std::string> names;  ///< only these sources (empty: all)
  std::string shard;               ///< `K/N`: also each source's shard ("": none)
};

/// Stored credentials by source name.
using CredentialsBySource = std::map<std::string, StoredCredentials>;

/// What status reads of the archive besides its sources.
struct StatusData {
  Config config;                                                   ///< feeddiff.toml
  State state;                                                     ///< state.json
  std::optional<Shard> shard;                                      ///< the request's shard
  std::optional<std::pair<std::string, std::size_t>> unpublished;  ///< upstream, commits ahead
  std::vector<HookValue> hooks;                                    ///< with their trust here
  CredentialsBySource credentials;                                 ///< by source
};

/// Reads the config, the state, the shard asked for (Errc::usage when it is no K/N), how far
/// the branch is ahead of its upstream, the hooks with their trust and the credentials.
Result<StatusData> read_status(const Archive& archive, const StatusRequest& request);

/// The sources named, in the order named, or all of them in config order; Errc::not_found
/// for a name that is none. The pointers are into config.
Result<std::vector<const SourceConfig*>> chosen_sources(const Config& config,
                                                        const std::vector<std::string>& names);

/// A source's state, or the empty state of a source never polled.
SourceState state_of(const StatusData& data, const std::string& source);

/// What this machine holds back from a source: hooks it has not trusted (notify.h) and
/// credentials given for another origin than its URL's.
struct Withheld {
  std::vector<std::string> hooks;  ///< "exec", "webhook": waiting for `feeddiff trust`
  const StoredCredentials* credentials = nullptr;  ///< stored for the source, or nullptr
  bool credentials_sent = false;                   ///< bound to the URL's origin (or not bound yet)
};

/// What is held back from source; its credentials point into `credentials`.
Withheld withheld(const SourceConfig& source, const std::vector<HookValue>& hooks,
                  const CredentialsBySource& credentials);

/// The counts under the sources' lines.
struct StatusCounts {
  std::size_t failing = 0;    ///< failed last time, not disabled
  std::size_t disabled = 0;   ///< disabled (410 Gone, or by hand)
  std::size_t due = 0;        ///< not disabled, due at now
  std::size_t in_shard = 0;   ///< in the request's shard
  std::size_t untrusted = 0;  ///< hooks of feeddiff.toml not trusted here
};

/// Counts the sources' states at now, and the untrusted hooks.
StatusCounts count_status(const StatusData& data, const std::vector<const SourceConfig*>& sources,
                          TimeMs now);

/// Whether feeddiff.toml has uncommitted changes that hold back a redirect poll would adopt
/// (see poll): git is asked only when some redirect has been seen often enough.
bool redirect_held_by_edit(const Archive& archive, const State& state);

/// `status`'s text: a line per source (its last result, why it fails or is no feed, when it
/// is next due, redirects, notifications waiting, credentials held back), escaped for a
/// terminal, then the counts, the shard, untrusted hooks and what is not yet published.
std::string status_text(const Archive& archive, const StatusData& data,
                        const std::vector<const SourceConfig*>& sources, TimeMs now);

/// `status --json`: the sources' states at now (docs/json.md), keys in a fixed order so that
/// the same state gives the same bytes; bytes that are not valid UTF-8 (an ETag is whatever a
/// server sent) become U+FFFD.
std::string status_json(const StatusData& data, const std::vector<const SourceConfig*>& sources,
                        TimeMs now);

}  // namespace feeddiff
