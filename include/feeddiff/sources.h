#pragma once
// sources: changing which sources an archive polls, each change one commit that edits
// feeddiff.toml in place (comments, order and layout stay) under the archive's lock: add,
// remove, import from OPML, and moving every source's raw files to another layout (migrate).
// Credentials in a URL go to .git/feeddiff/credentials, never into a commit. Nothing here
// prints: `add`, `remove`, `import` and `migrate` say what these return.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/config.h"
#include "feeddiff/poll.h"
#include "feeddiff/result.h"
#include "feeddiff/store.h"

namespace feeddiff {

/// The time a commit is dated: the caller's clock (FEEDDIFF_NOW in tests), asked only when a
/// commit is made, so that a change refused earlier never reads it.
using CommitClock = std::function<Result<TimeMs>()>;

/// An archive opened to change its sources: the lock held, and feeddiff.toml read under it.
struct EditedArchive {
  Archive archive;   ///< the archive
  ArchiveLock lock;  ///< taken at once (Errc::locked when another process holds it)
  Config config;     ///< its feeddiff.toml as the branch has it
};

/// Opens the archive at dir, takes its lock without waiting and reads its config: the start
/// of every change of its sources.
Result<EditedArchive> open_for_edit(const std::string& dir);

/// feeddiff.toml as HEAD has it ("" when HEAD has none), for a command that edits it and
/// commits the edit. Errc::conflict, saying what to do, when the work tree's copy has edits
/// not committed: the commit would sweep them in under the command's title, and its checkout
/// would overwrite them (poll's redirect adoption and sync refuse the same way).
Result<std::string> committed_config(const Archive& archive, std::string_view command);

/// A source added.
struct AddedSource {
  SourceConfig source;              ///< as feeddiff.toml now has it (its URL without credentials)
  bool credentials_stored = false;  ///< the URL held credentials, now in .git/feeddiff/credentials
};

/// Adds a source (name, url and every checked by the caller) in one commit "NAME: source
/// added"; Errc::exists when the name is taken. With articles, its table says
/// `articles = true` (poll captures the pages its items link to).
Result<AddedSource> add_source(EditedArchive& edit, const std::string& name, const std::string& url,
                               TimeMs every, const CommitClock& clock, bool articles = false);

/// Removes a source in one commit "NAME: removed", with its raw files wherever they lie
/// (either layout), its poll state and its credentials; the history stays. Errc::not_found
/// for a name that is none.
Status remove_source(EditedArchive& edit, const std::string& name, const CommitClock& clock);

/// What an import does with one feed of the OPML list.
struct ImportEntry {
  /// The three outcomes.
  enum class Kind {
    added,    ///< becomes source `name`
    present,  ///< its URL is source `name` already
    skipped,  ///< cannot be polled: `reason`
  };
  Kind kind = Kind::added;  ///< what became of it
  std::string shown_url;    ///< the feed's URL, credentials redacted
  std::string name;         ///< added, present: the source
  std::string reason;       ///< skipped: why
  SourceConfig source;      ///< added: the new source
  std::string credentials;  ///< added: `user:password` from its URL, kept apart from source
};

/// Which feeds of a list become which sources, in the list's order.
struct ImportPlan {
  std::vector<ImportEntry> entries;  ///< one per feed
  std::size_t added = 0;             ///< entries added
  std::size_t present = 0;           ///< entries present
  std::size_t skipped = 0;           ///< entries skipped
};

/// Plans an import into config: a feed whose URL is already a source (or an earlier feed of
/// the list) is present; one feeddiff cannot fetch, or polled more often than every minute,
/// is skipped; each other becomes a source named by the list (feeddiff:name when it is free
/// and valid) or from its title or URL (source_name_for), polled every feed.every or else
/// default_every. Changes nothing.
ImportPlan plan_import(const Config& config, const std::vector<OpmlFeed>& feeds,
                       TimeMs default_every);

/// Commits the sources the plan adds in one commit "import: N sources from OPML",
/// appended to config_text (committed_config) in the list's order; their credentials go to
/// .git/feeddiff/credentials. Nothing when the plan adds none.
Status commit_import(EditedArchive& edit, const std::string& config_text, const ImportPlan& plan,
                     const CommitClock& clock);

/// What migrate_layout did.
struct MigrateReport {
  bool changed = false;   ///< false: raw/ was in that layout already, nothing was committed
  std::size_t moved = 0;  ///< sources whose files moved
  std::string commit;     ///< the commit made
};

/// Moves every source's raw files to the layout `to` in one commit (files moved by blob id,
/// nothing read or stored again) that also sets feeddiff.toml's `layout`; a file that is no
/// source's stays. The caller holds the lock. Errc::conflict when feeddiff.toml has edits not
/// committed.
Result<MigrateReport> migrate_layout(Archive& archive, const ArchiveLock& lock, Layout to,
                                     const CommitClock& clock);

}  // namespace feeddiff
