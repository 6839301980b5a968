#pragma once
// render: one recorded change as a page, for a terminal (text), as markdown, JSON or HTML.
// Every renderer escapes what came from a feed: no control character, escape sequence or
// bidi override reaches a terminal, and no markup reaches a page unescaped.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/diff.h"

namespace feeddiff {

/// One row of the "Recorded headers" table; value nullopt when the response lacked it.
struct HeaderRow {
  std::string name;                  ///< observed_at, origin_date, status, final URL, etag, ...
  std::optional<std::string> value;  ///< as recorded
};

/// Everything a change page shows, gathered from the archive by the caller.
struct ChangeView {
  std::string commit_id;    ///< full id
  std::string title;        ///< commit title: `<source>: changed (<bytes> bytes, HTTP <status>)`
  std::string path;         ///< the raw artifact's path
  std::string path_status;  ///< "modified", "added" or "deleted"
  std::string source;       ///< source name
  std::uint64_t stored_bytes = 0;        ///< size of the artifact at this commit
  std::string timestamp_kind;            ///< "origin" or "observed"
  std::vector<HeaderRow> headers;        ///< the 12 recorded-header rows, in the seed's order
  std::optional<std::string> forge_url;  ///< the commit on GitHub/GitLab/Codeberg, if known
  std::string diff_label;                ///< what was diffed: "raw" or "normalized"
  LineDiff diff;                         ///< the line diff; views bodies the caller keeps alive
};

/// Display limits; the counts shown always come from the whole diff.
struct RenderOptions {
  std::size_t max_lines = 400;       ///< diff lines shown at most (hunk headers count)
  std::size_t max_line_chars = 300;  ///< characters of one line shown at most
  bool color = false;                ///< ANSI colour (text only)
};

/// The page for a terminal.
std::string render_text(const ChangeView& change, const RenderOptions& options);
/// The page as markdown, laid out like the reference page.
std::string render_markdown(const ChangeView& change, const RenderOptions& options);

/// Escapes text for a terminal: C0/C1 controls (but tab), DEL, bidi and other invisible
/// format characters, and invalid UTF-8 become visible `\x1b`, `\u202e` forms.
std::string escape_terminal(std::string_view text);

/// Cuts text to at most max_chars characters (code points), never inside a UTF-8
/// sequence; true in `cut` when it did.
std::string_view cut_chars(std::string_view text, std::size_t max_chars, bool* cut);

/// The names of the recorded-header rows, in the reference page's order.
const std::vector<std::string>& recorded_header_names();

}  // namespace feeddiff
