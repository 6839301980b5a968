#pragma once
// Internal to notify: how the rules of a [notify] table judge a change (rules.cc), what a
// later poll finds of a change held by `after`, and a webhook's origin for messages.

#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/config.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff::notify_detail {

/// A webhook URL as messages name it: its scheme, host and port (its path and query, often a
/// token, and its credentials left out).
std::string webhook_origin(const std::string& url);

/// An item change a notification rests on: what a later poll checks is still so.
struct Selected {
  std::string kind;                 ///< a kNotifyKinds word
  std::string id;                   ///< the item's identity
  std::vector<std::string> fields;  ///< for "changed": the fields the rules care about
};

/// What the rules make of a loaded change: whether it notifies, and the item changes it
/// rests on (all of them, minor ones only when `minor = true`, when no rule narrows them).
struct Verdict {
  bool notify = false;             ///< the rules pick it
  std::vector<Selected> selected;  ///< the item changes they pick
};

/// Judges a loaded change by a source's notify settings.
Verdict judge(const LoadedChange& change, const NotifySettings& settings);

/// A change of a commit, judged, and its JSON, for the hooks of one commit.
struct Rendered {
  bool notify = false;  ///< the rules pick it (never a response that is not a feed)
  std::string json;     ///< exactly what `show --format json COMMIT` prints
};

/// Loads, judges and renders the change a commit made to a source.
Result<Rendered> render_change(const Archive& archive, const std::string& commit,
                               const std::string& source, const NotifySettings& settings);

/// What a later poll finds of a held change.
enum class Still { there, gone, unknown };

/// Whether the change a commit made, as the rules select it, is still in the source's version
/// at HEAD (rules.cc says how each kind is checked); `unknown` when HEAD tells nothing.
Result<Still> still_there(const Archive& archive, const std::string& commit,
                          const std::string& source, const NotifySettings& settings);

/// Whether the change of commit `fresh` undoes the held change of commit `held`, found gone
/// in this poll: the flip back of A-B-A, which is recorded and never notified.
Result<bool> undoes(const Archive& archive, const std::string& held, const std::string& fresh,
                    const std::string& source, const NotifySettings& settings);

}  // namespace feeddiff::notify_detail
