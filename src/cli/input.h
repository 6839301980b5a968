#pragma once
// Where normalize, items and diff read a feed from: a file, stdin, or the archive.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"

namespace feeddiff::cli {

/// A feed's bytes and what to call them in output.
struct FeedInput {
  std::string bytes;   ///< the raw body
  std::string label;   ///< the file name, or `<commit>:<path>`
  std::string commit;  ///< the commit it came from, "" for a file
  std::string source;  ///< the source it belongs to, "" for a file
};

/// All of stdin, as bytes.
std::string read_stdin();

/// Whether diff, items and normalize read `what` as a commit: it is neither `-` (stdin) nor
/// an existing file.
bool names_commit(std::string_view what);

/// Reads `-` (stdin), an existing file, or else a commit of the archive (with source naming
/// which raw body, or the one the commit recorded): the source as of that commit, whichever
/// commit last changed it (see read_source_at).
Result<FeedInput> read_feed_input(const Globals& globals, std::string_view what,
                                  std::string_view source);

/// A source as of a commit: the raw body at its response.xml or response.json in that
/// commit's tree, in the layout the commit keeps it in (a source moved between layouts, or
/// between XML and JSON, is found either way), whichever commit last changed it; nullopt
/// when the commit has no such file (the source was added later, or removed).
Result<std::optional<FeedInput>> read_source_at(const Archive& archive, const CommitInfo& commit,
                                                std::string_view source);

/// The moment a --at, --from or --to gives: parse_moment against current_time.
Result<TimeMs> moment_of(const std::string& when);

/// The change of source in force at moment, for --at, --from and --to: source_version_at.
/// When stderr is a terminal, says there which version that is and by which clock (the
/// observation; the server's Origin-Date, when it differs, is named as not used).
Result<CommitInfo> version_at(const Archive& archive, const std::string& source, TimeMs moment);

/// The sources an export writes: names as given, each a configured source or one with
/// recorded changes (a removed source's history is still there to export; any other name is
/// a typo: Errc::not_found), or every configured source when names is empty.
Result<std::vector<std::string>> sources_to_export(const Archive& archive,
                                                   const std::vector<std::string>& names);

/// version_at(archive, source, moment_of(when)).
Result<CommitInfo> version_at(const Archive& archive, const std::string& source,
                              const std::string& when);

}  // namespace feeddiff::cli
