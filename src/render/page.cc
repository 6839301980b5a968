#include "render/page.h"

#include <fmt/format.h>
#include <algorithm>
#include <iterator>

#include "feeddiff/core.h"

namespace feeddiff {

namespace page {

std::vector<std::pair<std::string, std::string>> fields(const ChangeView& c) {
  std::vector<std::pair<std::string, std::string>> out = {
      {"Source", c.source},
      {"Lines added", fmt::format("+{}", c.diff.added)},
      {"Lines removed", fmt::format("-{}", c.diff.removed)},
      {"Stored bytes at this commit", with_thousands(c.stored_bytes)},
      {"Timestamp", c.timestamp_kind},
      {"Raw artifact at this commit", c.path},
  };
  if (c.reverted_to)
    out.emplace_back("Reverted to", fmt::format("{} (byte for byte an earlier version)",
                                                c.reverted_to->substr(0, 7)));
  return out;
}

std::vector<HeaderRow> sent_headers(const ChangeView& c) {
  std::vector<HeaderRow> out;
  for (const HeaderRow& row : c.headers)
    if (row.value) out.push_back(row);
  return out;
}

bool listed(const ItemChange& item, const RenderOptions& options) {
  return options.only.empty() ||
         std::find(options.only.begin(), options.only.end(), item.kind) != options.only.end();
}

std::size_t filtered_out(const ItemDiff& items, const RenderOptions& options) {
  std::size_t n = 0;
  for (const ItemChange& item : items.items)
    if (!listed(item, options)) ++n;
  return n;
}

std::string filtered_note(const ItemDiff& items, const RenderOptions& options) {
  const std::size_t n = filtered_out(items, options);
  if (options.only.empty()) return "";
  std::string kinds;
  for (ItemChange::Kind k : options.only)
    kinds += (kinds.empty() ? "" : ",") + std::string(item_kind_name(k));
  return fmt::format("{} item change{} not listed (--only {})", with_thousands(n),
                     n == 1 ? "" : "s", kinds);
}

std::string items_summary(const ItemDiff& items) {
  if (items.empty()) return "no item changed";
  if (items.cosmetic_only) {
    std::string fields;
    for (const auto& f : items.channel_fields) fields += (fields.empty() ? "" : ", ") + f;
    return fields.empty() ? "cosmetic only" : fmt::format("cosmetic only ({})", fields);
  }
  constexpr std::size_t kinds = std::size(kItemKinds);
  std::size_t counts[kinds] = {};
  std::size_t aged_out = 0;  // counted apart from the other removals, just before them
  for (const auto& item : items.items) {
    if (item.kind == ItemChange::Kind::removed && item.aged_out)
      ++aged_out;
    else
      ++counts[static_cast<std::size_t>(item.kind)];
  }
  std::string out;
  for (std::size_t k = 0; k < kinds; ++k) {
    if (kItemKinds[k] == ItemChange::Kind::removed && aged_out)
      out += fmt::format("{}{} aged out", out.empty() ? "" : ", ", aged_out);
    if (counts[k])
      out +=
          fmt::format("{}{} {}", out.empty() ? "" : ", ", counts[k], item_kind_name(kItemKinds[k]));
  }
  if (!items.channel_fields.empty())
    out += fmt::format("{}channel {}", out.empty() ? "" : "; ",
                       items.channel_fields.size() == 1 ? "field changed" : "fields changed");
  if (out.empty()) return "only ignored fields changed";
  return items.minor ? out + " (minor)" : out;
}

std::vector<ItemLine> item_lines(const ItemDiff& items, const RenderOptions& options,
                                 std::size_t* more) {
  std::vector<ItemLine> out;
  // With --only, the channel line is listed only when every kind is.
  const bool channel = !items.channel_fields.empty() && options.only.empty();
  std::size_t total = items.items.size() - filtered_out(items, options) + (channel ? 1 : 0);
  for (const auto& item : items.items) {
    if (!listed(item, options)) continue;
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
    if (item.kind == ItemChange::Kind::duplicate)
      label += item.new_index == static_cast<std::size_t>(-1) ? " (an extra copy went)"
                                                              : " (an extra copy of an id)";
    if (item.minor) label += " [minor]";
    out.push_back({item_change_word(item), std::move(label), &item});
  }
  if (channel && out.size() < options.max_items) {
    std::string fields;
    for (const auto& f : items.channel_fields) fields += (fields.empty() ? "" : ", ") + f;
    out.push_back({"channel", fields});
  }
  if (more) *more = total - out.size();
  return out;
}

std::string held_back_note(const WordExcerpt& words) {
  std::string out;
  if (words.held_back_changes)
    out = fmt::format(
        "{} more change{} ({} characters) held back", with_thousands(words.held_back_changes),
        words.held_back_changes == 1 ? "" : "s", with_thousands(words.held_back_chars));
  else if (words.held_back_chars)
    out = fmt::format("{} more characters held back", with_thousands(words.held_back_chars));
  if (words.not_compared_chars) {
    if (!out.empty()) out += "; ";
    out += fmt::format(
        "the word diff stops after {} MiB of changed text: {} more characters of the two "
        "versions not compared",
        kMaxWordDiffBytes >> 20, with_thousands(words.not_compared_chars));
  }
  return out;
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
      std::string_view text = line.text;
      if (text.ends_with('\r')) {
        text.remove_suffix(1);
        shown_line.cr = true;
      }
      shown_line.text = cut_chars(text, options.max_line_chars, &shown_line.cut);
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
