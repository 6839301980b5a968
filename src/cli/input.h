#pragma once
// Where normalize, items and diff read a feed from: a file, stdin, or the archive.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command.h"
#include "feeddiff/changes.h"

namespace feeddiff::cli {

/// All of stdin, as bytes.
std::string read_stdin();

/// Whether diff, items and normalize read `what` as a commit: it is neither `-` (stdin) nor
/// an existing file.
bool names_commit(std::string_view what);

/// Reads `-` (stdin), an existing file, or else a commit of the archive (with source naming
/// which raw body, or the one the commit recorded): the source as of that commit, whichever
/// commit last changed it (see feed_input_at).
Result<FeedInput> read_feed_input(const Globals& globals, std::string_view what,
                                  std::string_view source);

/// The moment a --at, --from or --to gives: parse_moment against current_time.
Result<TimeMs> moment_of(const std::string& when);

/// The change of source in force at moment, for --at, --from and --to: source_version_at.
/// When stderr is a terminal, says there which version that is and by which clock (the
/// observation; the server's Origin-Date, when it differs, is named as not used).
Result<CommitInfo> version_at(const Archive& archive, const std::string& source, TimeMs moment);

/// version_at(archive, source, moment_of(when)).
Result<CommitInfo> version_at(const Archive& archive, const std::string& source,
                              const std::string& when);

}  // namespace feeddiff::cli
