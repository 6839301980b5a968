#pragma once
// Where normalize, items and diff read a feed from: a file, stdin, or the archive.

#include <string>
#include <string_view>

#include "cli/command.h"

namespace feeddiff::cli {

/// A feed's bytes and what to call them in output.
struct FeedInput {
  std::string bytes;   ///< the raw body
  std::string label;   ///< the file name, or `<commit>:<path>`
  std::string commit;  ///< the commit it came from, "" for a file
  std::string source;  ///< the source it belongs to, "" for a file
};

/// Reads `-` (stdin), an existing file, or else a commit of the archive (with source naming
/// which raw body, or the one the commit recorded).
Result<FeedInput> read_feed_input(const Globals& globals, std::string_view what,
                                  std::string_view source);

}  // namespace feeddiff::cli
