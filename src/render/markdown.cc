// The change page as markdown, laid out like the reference page but leading with what
// changed: the field list, the items, the diff in a fence, then the recorded headers table.

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/render.h"
#include "render/page.h"

namespace feeddiff {

namespace {

// Inline markdown: the characters that open emphasis, code, links, HTML, table cells or
// entities mid-line are escaped; values never start a line, so block markers need none.
std::string inline_text(std::string_view text) {
  std::string safe = escape_terminal(text);
  std::string out;
  for (char ch : safe) {
    if (std::string_view("\\`*_[]<>|~&").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

// The before and after of each changed field, as a list under the item's line: short values
// `old -> new`, the word diff with ~~removed~~ and **added** text.
std::string markdown_changes(const ItemChange& item) {
  std::string out;
  for (const FieldChange& c : item.changes) {
    out += fmt::format("  - {}: ", inline_text(c.field));
    if (!c.text) {
      out += fmt::format("{} -> {}\n", c.old_value.empty() ? "(empty)" : inline_text(c.old_value),
                         c.new_value.empty() ? "(empty)" : inline_text(c.new_value));
      continue;
    }
    if (c.words.runs.empty()) {
      out += "markup only, the text reads the same\n";
      continue;
    }
    out += page::markdown_words(c.words) + '\n';
  }
  return out;
}

// A fence longer than any run of backticks in the content, so content cannot close it.
std::string fence_for(const page::ShownDiff& diff) {
  std::size_t longest = 0;
  for (const auto& line : diff.lines) {
    std::size_t run = 0;
    for (char ch : line.text) {
      run = ch == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

}  // namespace

std::string render_markdown(const ChangeView& c, const RenderOptions& options) {
  std::string out = "# Change\n\n";
  out += fmt::format("**{}**\n\n", c.commit_id.substr(0, 7));
  out += fmt::format("`{}`", c.commit_id);
  if (c.forge_url)
    out += fmt::format(" · [commit on the forge](<{}>)", escape_terminal(*c.forge_url));
  out += "\n\n";
  out += fmt::format("## {}\n\n", inline_text(c.title));
  out += fmt::format("{} {}\n\n", inline_text(c.path), c.path_status);
  for (const auto& [label, value] : page::fields(c))
    out += fmt::format("- **{}**: {}\n", label, inline_text(value));

  if (c.items) {
    out += fmt::format("\n### Items\n\n{}\n\n", inline_text(page::items_summary(*c.items)));
    std::size_t more = 0;
    for (const auto& line : page::item_lines(*c.items, options, &more)) {
      out += fmt::format("- **{}** {}\n", line.kind, inline_text(line.label));
      if (line.change) out += markdown_changes(*line.change);
    }
    if (more) out += fmt::format("- ... and {} more\n", more);
    if (auto note = page::filtered_note(*c.items, options); !note.empty())
      out += fmt::format("\n({})\n", inline_text(note));
  } else if (!c.items_note.empty()) {
    out += fmt::format("\n### Items\n\n{}\n", inline_text(c.items_note));
  }

  const page::ShownDiff diff = page::shown(c.diff, options);
  out += fmt::format("\n### Diff ({})\n\n", c.diff_label);
  if (c.diff.empty()) {
    out += fmt::format("No difference in the {} body.\n", c.diff_label);
  } else {
    const std::string fence = fence_for(diff);
    out += fence + "diff\n";
    for (const auto& line : diff.lines) {
      if (line.kind == '@') {
        out += line.header + "\n";
        continue;
      }
      out += fmt::format("{}{}{}\n", line.kind, escape_terminal(line.text), line.cut ? "…" : "");
      if (line.no_newline) out += "\\ No newline at end of file\n";
    }
    out += fence + "\n";
  }
  if (auto f = page::footer(diff, options); !f.empty()) out += "\n" + f + "\n";

  // What changed comes first; the response's headers follow, as a table with a real header
  // row (a table's first row is its header in markdown, so a data row must not be it).
  const std::vector<HeaderRow> headers = page::sent_headers(c);
  if (!headers.empty()) {
    out += "\n### Recorded headers\n\n| header | value |\n|---|---|\n";
    for (const auto& row : headers)
      out += fmt::format("| {} | {} |\n", inline_text(row.name), inline_text(*row.value));
  }
  return out;
}

namespace page {

std::string markdown_words(const WordExcerpt& words) {
  std::string out;
  for (const WordRun& run : words.runs) {
    if (run.skipped) out += "…";
    if (run.kind == WordRun::Kind::kept) {
      out += inline_text(run.text);
      continue;
    }
    const page::Padded text = page::padded(run.text);
    const char* mark = run.kind == WordRun::Kind::added ? "**" : "~~";
    out += inline_text(text.lead);
    if (!text.core.empty()) out += fmt::format("{0}{1}{0}", mark, inline_text(text.core));
    out += inline_text(text.trail);
  }
  if (words.skipped_after) out += "…";
  if (const std::string note = page::held_back_note(words); !note.empty())
    out += fmt::format(" ({})", note);
  return out;
}

std::string markdown_field_changes(const ItemChange& change) {
  return markdown_changes(change);
}

std::string markdown_inline(std::string_view text) {
  return inline_text(text);
}

}  // namespace page

}  // namespace feeddiff
