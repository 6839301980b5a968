// The change page for a terminal.

#include <fmt/format.h>
#include <algorithm>

#include "feeddiff/core.h"
#include "feeddiff/render.h"
#include "render/page.h"

namespace feeddiff {

namespace {

struct Palette {
  const char* added = "";
  const char* removed = "";
  const char* hunk = "";
  const char* bold = "";
  const char* dim = "";
  const char* reset = "";
};

Palette palette(bool color) {
  if (!color) return {};
  return {"\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[1m", "\x1b[2m", "\x1b[0m"};
}

// A value as the before/after line shows it: empty ones say so.
std::string shown_value(const std::string& value) {
  return value.empty() ? std::string("(empty)") : escape_terminal(value);
}

// The before and after of each changed field, under the item's line. Without colour the word
// diff is written as wdiff does, [-removed-]{+added+}.
std::string field_changes(const ItemChange& item, const Palette& p) {
  std::string out;
  for (const FieldChange& c : item.changes) {
    out += fmt::format("           {}: ", escape_terminal(c.field));
    if (!c.text) {
      out += fmt::format("{}{}{} -> {}{}{}\n", p.removed, shown_value(c.old_value),
                         *p.removed ? p.reset : "", p.added, shown_value(c.new_value),
                         *p.added ? p.reset : "");
      continue;
    }
    if (c.words.runs.empty()) {
      out += "markup only, the text reads the same\n";
      continue;
    }
    for (const WordRun& run : c.words.runs) {
      if (run.skipped) out += "…";
      if (run.kind == WordRun::Kind::kept) {
        out += escape_terminal(run.text);
        continue;
      }
      const bool added = run.kind == WordRun::Kind::added;
      const page::Padded text = page::padded(run.text);
      out += escape_terminal(text.lead);
      if (*p.added)
        out +=
            fmt::format("{}{}{}", added ? p.added : p.removed, escape_terminal(text.core), p.reset);
      else
        out += fmt::format("{}{}{}", added ? "{+" : "[-", escape_terminal(text.core),
                           added ? "+}" : "-]");
      out += escape_terminal(text.trail);
    }
    if (c.words.skipped_after) out += "…";
    if (const std::string note = page::held_back_note(c.words); !note.empty())
      out += fmt::format(" {}({}){}", p.dim, note, p.reset);
    out += '\n';
  }
  return out;
}

}  // namespace

std::string render_text(const ChangeView& c, const RenderOptions& options) {
  const Palette p = palette(options.color);
  std::string out;
  if (!c.commit_id.empty()) {
    out += fmt::format("{}Change {}{}\n", p.bold, c.commit_id.substr(0, 7), p.reset);
    out += c.commit_id;
    if (c.forge_url)
      out += fmt::format(" · commit on the forge: {}", escape_terminal(*c.forge_url));
    out += '\n';
  }
  out += fmt::format("{}{}{}\n", p.bold, escape_terminal(c.title), p.reset);
  out += fmt::format("{} {}\n\n", escape_terminal(c.path), c.path_status);

  const auto fields = page::fields(c);
  std::size_t width = 0;
  for (const auto& [label, value] : fields) width = std::max(width, label.size());
  for (const auto& [label, value] : fields)
    out += fmt::format("{:<{}}  {}\n", label, width, escape_terminal(value));

  if (c.items) {
    out += fmt::format("\nItems: {}\n", page::items_summary(*c.items));
    std::size_t more = 0;
    for (const auto& line : page::item_lines(*c.items, options, &more)) {
      // An item that aged out is the window moving on, not news: it goes uncoloured.
      const char* color = line.kind == "added" || line.kind == "reappeared" ? p.added
                          : line.kind == "removed"                          ? p.removed
                                                                            : "";
      out += fmt::format("  {}{:<8}{} {}\n", color, line.kind, *color ? p.reset : "",
                         escape_terminal(line.label));
      if (line.change) out += field_changes(*line.change, p);
    }
    if (more) out += fmt::format("  ... and {} more\n", with_thousands(more));
    if (auto note = page::filtered_note(*c.items, options); !note.empty())
      out += fmt::format("  {}({}){}\n", p.dim, note, p.reset);
  } else if (!c.items_note.empty()) {
    out += fmt::format("\nItems: {}\n", escape_terminal(c.items_note));
  }

  const page::ShownDiff diff = page::shown(c.diff, options);
  out += '\n';
  if (c.diff.empty()) out += fmt::format("No difference in the {} body.\n", c.diff_label);
  for (const auto& line : diff.lines) {
    if (line.kind == '@') {
      out += fmt::format("{}{}{}\n", p.hunk, line.header, p.reset);
      continue;
    }
    const char* color = line.kind == '+' ? p.added : line.kind == '-' ? p.removed : "";
    out += fmt::format("{}{}{}{}{}\n", color, line.kind, escape_terminal(line.text),
                       line.cut ? "…" : "", *color ? p.reset : "");
    if (line.no_newline) out += "\\ No newline at end of file\n";
  }
  if (auto f = page::footer(diff, options); !f.empty())
    out += fmt::format("\n{}{}{}\n", p.dim, f, p.reset);

  // What changed comes first; the response's headers are the record's fine print.
  const std::vector<HeaderRow> headers = page::sent_headers(c);
  if (!headers.empty()) out += "\nRecorded headers\n";
  width = 0;
  for (const auto& row : headers) width = std::max(width, row.name.size());
  for (const auto& row : headers)
    out += fmt::format("  {:<{}}  {}\n", row.name, width, escape_terminal(*row.value));
  return out;
}

namespace page {

std::string text_field_changes(const ItemChange& change, bool color) {
  return field_changes(change, palette(color));
}

}  // namespace page

}  // namespace feeddiff
