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

  const bool recorded = std::any_of(c.headers.begin(), c.headers.end(),
                                    [](const HeaderRow& row) { return row.value.has_value(); });
  if (recorded) out += "\nRecorded headers\n";
  width = 0;
  for (const auto& row : c.headers) width = std::max(width, row.name.size());
  for (const auto& row : recorded ? c.headers : std::vector<HeaderRow>{})
    out += fmt::format("  {:<{}}  {}\n", row.name, width,
                       row.value ? escape_terminal(*row.value) : std::string("null"));

  if (c.items) {
    out += fmt::format("\nItems: {}\n", page::items_summary(*c.items));
    std::size_t more = 0;
    for (const auto& line : page::item_lines(*c.items, options, &more)) {
      const char* color = line.kind == "added" ? p.added : line.kind == "removed" ? p.removed : "";
      out += fmt::format("  {}{:<8}{} {}\n", color, line.kind, *color ? p.reset : "",
                         escape_terminal(line.label));
    }
    if (more) out += fmt::format("  ... and {} more\n", with_thousands(more));
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
  return out;
}

}  // namespace feeddiff
