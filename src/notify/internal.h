#pragma once
// Internal to notify: how the rules of a [notify] table judge a change (rules.cc), what a
// later poll finds of a change held by `after`, and a webhook's origin for messages.

#include <optional>
#include <string>
#include <vector>

#include "feeddiff/changes.h"
#include "feeddiff/config.h"
#include "feeddiff/poll.h"
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
  bool notify = false;        ///< the rules pick it (never a response that is not a feed)
  std::string json;           ///< exactly what `show --format json COMMIT` prints
  std::string kind = "feed";  ///< "feed", or "article" for an article edit (FEEDDIFF_KIND)
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

// ---- Article edits (article_notes.cc): a `changed` item change of the item that links to
// the article, its fields title (headline), authors (byline), published and content (body) ----

/// Whether the commit records an article version (docs/articles.md).
bool is_article_version(const Archive& archive, const std::string& commit);

/// render_change for an article version: it notifies only as an edit the rules pick (never a
/// first capture or an uncertain extraction); its JSON is `show --format json COMMIT`'s,
/// "kind": "article".
Result<Rendered> render_article_change(const Archive& archive, const std::string& commit,
                                       const NotifySettings& settings);

/// still_there for an article edit: gone when a part of the text the rules selected reads
/// otherwise at HEAD (changed back, or changed again).
Result<Still> article_still_there(const Archive& archive, const std::string& commit,
                                  const NotifySettings& settings);

/// undoes for article versions: from the text before the held edit to the fresh version's,
/// nothing the rules select changed.
Result<bool> article_undoes(const Archive& archive, const std::string& held,
                            const std::string& fresh, const NotifySettings& settings);

/// The Item-Id an article version records (nullopt for any other commit): a held edit is
/// judged by a poll that fetched that article again.
Result<std::optional<std::string>> article_item_id(const Archive& archive,
                                                   const std::string& commit);

/// The digest's sections of article edits, one per source with an edit in the report (in
/// the report's order): each edit's headline, URL, changed parts and a short word diff of
/// the body, escaped for a terminal, at most 20 a source.
std::vector<std::string> article_digest(const Archive& archive, const PollReport& report);

/// A word diff as plain text, `[-removed-]{+added+}`, `... ` where an excerpt left text out
/// (the digest's notation; escape it for a terminal).
std::string plain_words(const std::vector<WordRun>& runs);

}  // namespace feeddiff::notify_detail
