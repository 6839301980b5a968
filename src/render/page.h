#pragma once
// What every renderer shares: the field list and the diff cut to the display limits.

#include <string>
#include <utility>
#include <vector>

#include "feeddiff/render.h"

namespace feeddiff::page {

/// The field list of a change page, label and value, in the reference page's order.
std::vector<std::pair<std::string, std::string>> fields(const ChangeView& change);

/// One diff line as shown: its kind (' ', '+', '-', or '@' for a hunk header) and text,
/// cut to the line limit.
struct ShownLine {
  char kind = ' ';        ///< ' ', '+', '-' or '@'
  std::string_view text;  ///< the line (cut), unescaped, without a CR that ended it
  bool cut = false;       ///< the line was longer than the limit
  /// The line ended in CR LF: the CR is the line end's, so the pages show it as one (not
  /// as `\x0d` on every line of a CRLF feed); JSON writes it back into the text.
  bool cr = false;
  std::string header;       ///< for '@': the whole `@@ -a,b +c,d @@` line
  bool no_newline = false;  ///< the input's last line had no '\n'
};

/// The diff as shown within the limits, with the counts the footer needs.
struct ShownDiff {
  std::vector<ShownLine> lines;  ///< at most max_lines
  std::size_t total_lines = 0;   ///< lines of the whole diff, hunk headers included
  std::size_t cut_lines = 0;     ///< shown lines that were cut
};

/// Cuts the diff to the options' limits. A CR just before a line's end is taken off the
/// line (ShownLine::cr) before it is cut; a CR anywhere else stays in the text, escaped.
ShownDiff shown(const LineDiff& diff, const RenderOptions& options);

/// The footer sentence(s), or "" when nothing was held back.
std::string footer(const ShownDiff& diff, const RenderOptions& options);

/// The recorded-header rows the server sent (those with a value), in the view's order:
/// the text, markdown and HTML pages list only these; JSON keeps every row.
std::vector<HeaderRow> sent_headers(const ChangeView& change);

/// The one-line summary of an item diff: "2 added, 3 aged out, 1 removed, 3 changed" (kinds
/// in kItemKinds order, aged-out removals counted apart, before the others) or "cosmetic only
/// (lastBuildDate)" or "no item changed".
std::string items_summary(const ItemDiff& items);

/// Whether an item change is listed under the options' `only` kinds.
bool listed(const ItemChange& item, const RenderOptions& options);
/// Item changes the options' `only` kinds leave out.
std::size_t filtered_out(const ItemDiff& items, const RenderOptions& options);
/// "3 item changes not listed (--only added,changed)", or "" without `only`.
std::string filtered_note(const ItemDiff& items, const RenderOptions& options);

/// One listed item change: its kind word and a one-line label (title cut to 100
/// characters, the changed fields in parentheses), unescaped.
struct ItemLine {
  std::string kind;                    ///< item_change_word ("aged out" too), or channel
  std::string label;                   ///< what to show after the kind
  const ItemChange* change = nullptr;  ///< the item change (none for the channel line)
};

/// What a word diff excerpt held back, as the pages say it ("3 more changes (120
/// characters) held back"), or "" when it shows everything.
std::string held_back_note(const WordExcerpt& words);

/// A piece of a changed run split for display: markers (colour, <del>, ~~) go around `core`
/// only, so that they never open or close on a space.
struct Padded {
  std::string_view lead;   ///< whitespace before the core
  std::string_view core;   ///< the run less its leading and trailing whitespace
  std::string_view trail;  ///< whitespace after the core
};

/// Splits a run's text into Padded.
Padded padded(std::string_view text);

/// The item changes to list (those of the `only` kinds), at most options.max_items of them;
/// `more` gets the count of the rest of those kinds.
std::vector<ItemLine> item_lines(const ItemDiff& items, const RenderOptions& options,
                                 std::size_t* more);

/// `@@ -a,b +c,d @@`.
std::string hunk_header(const Hunk& hunk);

/// An item change's fields before and after, as the text page lists them under the item.
std::string text_field_changes(const ItemChange& change, bool color);
/// The same as the markdown page lists them.
std::string markdown_field_changes(const ItemChange& change);
/// The same as the HTML page lists them (a <dl>, or "" when there is none).
std::string html_field_changes(const ItemChange& change);
/// A word diff as the markdown page writes it inline: ~~removed~~ and **added** text, … where
/// unchanged text was left out, and what was held back.
std::string markdown_words(const WordExcerpt& words);
/// The same as the HTML pages write it: <del> and <ins>, escaped.
std::string html_words(const WordExcerpt& words);
/// Text as the markdown page writes it inline (escaped for terminals and markdown).
std::string markdown_inline(std::string_view text);

/// An Atom date construct's time: the ISO-8601 time, or the epoch when there is none (Atom
/// requires one).
inline std::string xml_time(const std::string& iso) {
  return iso.empty() ? "1970-01-01T00:00:00Z" : iso;
}

/// An item's position when it has none in that version (ItemChange's old_index/new_index).
inline constexpr std::size_t kNoIndex = static_cast<std::size_t>(-1);

}  // namespace feeddiff::page
