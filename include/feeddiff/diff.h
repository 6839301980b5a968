#pragma once
// diff: pure. Lines in, unified hunks out (dtl, with the common prefix and suffix trimmed
// and the worst case bounded); items in, an item-level summary out.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/normalize.h"

namespace feeddiff {

/// Which side a diff line belongs to.
enum class LineKind : char { context = ' ', added = '+', removed = '-' };

/// One line of a hunk. `text` views the input given to diff_lines, without its '\n'.
struct DiffLine {
  LineKind kind = LineKind::context;  ///< context, added or removed
  std::string_view text;              ///< the line, without its line end
  bool no_newline = false;            ///< the input's last line, with no '\n' after it
};

/// `@@ -old_start,old_count +new_start,new_count @@` and its lines.
struct Hunk {
  std::size_t old_start = 0;    ///< 1-based first line in the old text (0 when old_count is 0)
  std::size_t old_count = 0;    ///< lines of the old text the hunk covers
  std::size_t new_start = 0;    ///< 1-based first line in the new text (0 when new_count is 0)
  std::size_t new_count = 0;    ///< lines of the new text the hunk covers
  std::vector<DiffLine> lines;  ///< context, removed and added lines in order
};

/// Knobs of the line diff.
struct DiffOptions {
  std::size_t context = 3;  ///< context lines around each change, as `diff -U3`
  /// Past this many edit steps in one region, the region is reported as replaced whole
  /// instead of searched further; bounds time and memory on inputs that share nothing.
  std::size_t max_edit_cost = 4096;
};

/// A unified diff of two texts.
struct LineDiff {
  std::vector<Hunk> hunks;   ///< in order, with context
  std::size_t added = 0;     ///< lines added in the whole diff
  std::size_t removed = 0;   ///< lines removed in the whole diff
  bool approximate = false;  ///< some region hit max_edit_cost: correct but not minimal
  /// True when the texts are equal.
  bool empty() const { return hunks.empty(); }
};

/// Splits at '\n'; each view keeps no line end. A final line without '\n' is kept; an empty
/// text has no lines.
std::vector<std::string_view> split_lines(std::string_view text);

/// Unified line diff of two texts. Lines compare with their line ends, so a last line that
/// lost its '\n' counts as changed, as git counts it. The result views both inputs: keep
/// them alive while it is used.
LineDiff diff_lines(std::string_view old_text, std::string_view new_text,
                    const DiffOptions& options = {});

}  // namespace feeddiff
