#include "render/page.h"

#include <fmt/format.h>

#include "feeddiff/core.h"

namespace feeddiff {

namespace page {

std::vector<std::pair<std::string, std::string>> fields(const ChangeView& c) {
  return {
      {"Source", c.source},
      {"Lines added", fmt::format("+{}", c.diff.added)},
      {"Lines removed", fmt::format("-{}", c.diff.removed)},
      {"Stored bytes at this commit", with_thousands(c.stored_bytes)},
      {"Timestamp", c.timestamp_kind},
      {"Raw artifact at this commit", c.path},
  };
}

std::string items_summary(const ItemDiff& items) {
  if (items.empty()) return "no item changed";
  if (items.cosmetic_only) {
    std::string fields;
    for (const auto& f : items.channel_fields) fields += (fields.empty() ? "" : ", ") + f;
    return fields.empty() ? "cosmetic only" : fmt::format("cosmetic only ({})", fields);
  }
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& item : items.items) ++counts[static_cast<int>(item.kind)];
  static constexpr const char* kWords[] = {"added", "removed", "changed", "moved"};
  std::string out;
  for (int k = 0; k < 4; ++k)
    if (counts[k]) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", counts[k], kWords[k]);
  if (!items.channel_fields.empty())
    out += fmt::format("{}channel {}", out.empty() ? "" : "; ",
                       items.channel_fields.size() == 1 ? "field changed" : "fields changed");
  return out.empty() ? "only ignored fields changed" : out;
}

std::vector<ItemLine> item_lines(const ItemDiff& items, const RenderOptions& options,
                                 std::size_t* more) {
  static constexpr const char* kWords[] = {"added", "removed", "changed", "moved"};
  std::vector<ItemLine> out;
  std::size_t total = items.items.size() + (items.channel_fields.empty() ? 0 : 1);
  for (const auto& item : items.items) {
    if (out.size() >= options.max_items) break;
    std::string title = item.title.empty() ? item.id : item.title;
    for (char& c : title)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    bool cut = false;
    std::string label(cut_chars(title, 100, &cut));
    if (cut) label += "…";
    if (!item.fields.empty()) {
      std::string fields;
      for (const auto& f : item.fields) fields += (fields.empty() ? "" : ", ") + f;
      label += fmt::format(" ({}{})", fields, item.moved ? "; moved" : "");
    }
    out.push_back({kWords[static_cast<int>(item.kind)], std::move(label), &item});
  }
  if (!items.channel_fields.empty() && out.size() < options.max_items) {
    std::string fields;
    for (const auto& f : items.channel_fields) fields += (fields.empty() ? "" : ", ") + f;
    out.push_back({"channel", fields});
  }
  if (more) *more = total - out.size();
  return out;
}

std::string held_back_note(const WordExcerpt& words) {
  if (words.held_back_changes)
    return fmt::format(
        "{} more change{} ({} characters) held back", with_thousands(words.held_back_changes),
        words.held_back_changes == 1 ? "" : "s", with_thousands(words.held_back_chars));
  if (words.held_back_chars)
    return fmt::format("{} more characters held back", with_thousands(words.held_back_chars));
  return "";
}

Padded padded(std::string_view text) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  std::size_t b = 0, e = text.size();
  while (b < e && blank(text[b])) ++b;
  while (e > b && blank(text[e - 1])) --e;
  return {text.substr(0, b), text.substr(b, e - b), text.substr(e)};
}

std::string hunk_header(const Hunk& h) {
  auto range = [](std::size_t start, std::size_t count) {
    return count == 1 ? fmt::format("{}", start) : fmt::format("{},{}", start, count);
  };
  return fmt::format("@@ -{} +{} @@", range(h.old_start, h.old_count),
                     range(h.new_start, h.new_count));
}

ShownDiff shown(const LineDiff& diff, const RenderOptions& options) {
  ShownDiff out;
  for (const Hunk& hunk : diff.hunks) {
    out.total_lines += 1 + hunk.lines.size();
    if (out.lines.size() < options.max_lines) {
      ShownLine header;
      header.kind = '@';
      header.header = hunk_header(hunk);
      out.lines.push_back(std::move(header));
    }
    for (const DiffLine& line : hunk.lines) {
      if (out.lines.size() >= options.max_lines) break;
      ShownLine shown_line;
      shown_line.kind = static_cast<char>(line.kind);
      shown_line.text = cut_chars(line.text, options.max_line_chars, &shown_line.cut);
      shown_line.no_newline = line.no_newline;
      if (shown_line.cut) ++out.cut_lines;
      out.lines.push_back(shown_line);
    }
  }
  return out;
}

std::string footer(const ShownDiff& diff, const RenderOptions& options) {
  std::string out;
  if (diff.total_lines > diff.lines.size())
    out = fmt::format(
        "Diff display stops at {} lines ({} in all). The line counts above are from the whole "
        "diff.",
        with_thousands(options.max_lines), with_thousands(diff.total_lines));
  if (diff.cut_lines) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{} line{} shown {} cut at {} characters.", with_thousands(diff.cut_lines),
                       diff.cut_lines == 1 ? "" : "s", diff.cut_lines == 1 ? "was" : "were",
                       with_thousands(options.max_line_chars));
  }
  return out;
}

}  // namespace page
}  // namespace feeddiff
