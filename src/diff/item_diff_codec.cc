// ItemDiff as text: one record a line, fields separated by tabs, tab, newline and backslash
// escaped. A changed item's line is followed by one `change` line per changed field (its
// values, or its word diff excerpt as kind, skipped, text triples). A version line opens it and an
// end line closes it, so a file cut short by a crash or written by another version reads as nothing
// rather than as a wrong summary.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feeddiff/core.h"
#include "feeddiff/diff.h"

namespace feeddiff {

namespace {

// Raise the number when this format, normalize's item model or diff_items change what a
// summary says: cache names include it, so older entries are then left unread.
// 5: a removal that aged out is written as the kind `aged-out` (ItemChange::aged_out).
constexpr std::string_view kHeader = "feeddiff item-diff 5";
constexpr std::string_view kAgedOut = "aged-out";
constexpr std::string_view kEnd = "end";

void put_number(std::string& out, std::size_t n) {
  append_tab_field(out, n == static_cast<std::size_t>(-1) ? std::string("-") : std::to_string(n));
}

bool number(const std::string& s, std::size_t& out) {
  if (s == "-") {
    out = static_cast<std::size_t>(-1);
    return true;
  }
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

bool flag(const std::string& s, bool& out) {
  if (s != "0" && s != "1") return false;
  out = s == "1";
  return true;
}

}  // namespace

std::string encode_item_diff(const ItemDiff& diff) {
  std::string out(kHeader);
  out += "\nflags";
  append_tab_field(out, diff.cosmetic_only ? "1" : "0");
  append_tab_field(out, diff.ignored_changes ? "1" : "0");
  append_tab_field(out, diff.minor ? "1" : "0");
  out += '\n';
  for (const auto& name : diff.channel_fields) {
    out += "channel";
    append_tab_field(out, name);
    out += '\n';
  }
  for (const auto& item : diff.items) {
    out += "item";
    append_tab_field(out, item.kind == ItemChange::Kind::removed && item.aged_out
                              ? kAgedOut
                              : std::string_view(item_kind_name(item.kind)));
    append_tab_field(out, item.moved ? "1" : "0");
    append_tab_field(out, item.minor ? "1" : "0");
    put_number(out, item.old_index);
    put_number(out, item.new_index);
    append_tab_field(out, item.id);
    append_tab_field(out, item.title);
    for (const auto& field : item.fields) append_tab_field(out, field);
    out += '\n';
    for (const FieldChange& c : item.changes) {
      out += "change";
      append_tab_field(out, c.field);
      append_tab_field(out, c.text ? "1" : "0");
      append_tab_field(out, c.cut ? "1" : "0");
      append_tab_field(out, c.old_value);
      append_tab_field(out, c.new_value);
      put_number(out, c.words.skipped_after);
      put_number(out, c.words.held_back_changes);
      put_number(out, c.words.held_back_chars);
      put_number(out, c.words.not_compared_chars);
      for (const WordRun& run : c.words.runs) {
        append_tab_field(out, word_kind_name(run.kind));
        put_number(out, run.skipped);
        append_tab_field(out, run.text);
      }
      out += '\n';
    }
  }
  out += kEnd;
  out += '\n';
  return out;
}

std::optional<ItemDiff> decode_item_diff(std::string_view text) {
  ItemDiff diff;
  std::vector<std::string> fields;
  bool header = false, flags = false;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return std::nullopt;  // cut short
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (!header) {
      if (line != kHeader) return std::nullopt;
      header = true;
      continue;
    }
    if (line == kEnd) return at == text.size() && flags ? std::optional(diff) : std::nullopt;
    if (!split_tab_fields(line, fields)) return std::nullopt;
    if (fields[0] == "flags" && fields.size() == 4) {
      if (!flag(fields[1], diff.cosmetic_only) || !flag(fields[2], diff.ignored_changes) ||
          !flag(fields[3], diff.minor))
        return std::nullopt;
      flags = true;
    } else if (fields[0] == "channel" && fields.size() == 2) {
      diff.channel_fields.push_back(std::move(fields[1]));
    } else if (fields[0] == "item" && fields.size() >= 8) {
      ItemChange item;
      item.aged_out = fields[1] == kAgedOut;
      const auto kind =
          item.aged_out ? std::optional(ItemChange::Kind::removed) : item_kind_from_name(fields[1]);
      if (!kind) return std::nullopt;
      item.kind = *kind;
      if (!flag(fields[2], item.moved) || !flag(fields[3], item.minor) ||
          !number(fields[4], item.old_index) || !number(fields[5], item.new_index))
        return std::nullopt;
      item.id = std::move(fields[6]);
      item.title = std::move(fields[7]);
      item.fields.assign(std::make_move_iterator(fields.begin() + 8),
                         std::make_move_iterator(fields.end()));
      diff.items.push_back(std::move(item));
    } else if (fields[0] == "change" && fields.size() >= 10 && (fields.size() - 10) % 3 == 0 &&
               !diff.items.empty()) {
      FieldChange c;
      c.field = std::move(fields[1]);
      c.old_value = std::move(fields[4]);
      c.new_value = std::move(fields[5]);
      if (!flag(fields[2], c.text) || !flag(fields[3], c.cut) ||
          !number(fields[6], c.words.skipped_after) ||
          !number(fields[7], c.words.held_back_changes) ||
          !number(fields[8], c.words.held_back_chars) ||
          !number(fields[9], c.words.not_compared_chars))
        return std::nullopt;
      for (std::size_t k = 10; k < fields.size(); k += 3) {
        WordRun run;
        bool known = false;
        for (auto kind : {WordRun::Kind::kept, WordRun::Kind::added, WordRun::Kind::removed})
          if (fields[k] == word_kind_name(kind)) {
            run.kind = kind;
            known = true;
          }
        if (!known || !number(fields[k + 1], run.skipped)) return std::nullopt;
        run.text = std::move(fields[k + 2]);
        c.words.runs.push_back(std::move(run));
      }
      diff.items.back().changes.push_back(std::move(c));
    } else {
      return std::nullopt;
    }
  }
  return std::nullopt;  // no end line
}

std::string item_diff_cache_name(std::string_view old_blob, std::string_view new_blob,
                                 const std::vector<std::string>& ignore,
                                 const Insignificant& insignificant) {
  std::uint64_t h = kFnv1aBasis;
  auto mix = [&h](std::string_view s) {
    h = fnv1a64(s, h);
    h = fnv1a64("\xff", h);  // a separator no UTF-8 text holds
  };
  mix(kHeader);
  mix(FEEDDIFF_VERSION);
  for (const auto& field : ignore) mix(field);
  // The rules, only when set: without them a name is what it was in format 3's first days.
  if (insignificant.any()) {
    mix("insignificant");
    mix(insignificant.whitespace ? "1" : "0");
    mix(insignificant.punctuation ? "1" : "0");
    mix(std::to_string(insignificant.min_words));
    for (const auto& field : insignificant.fields) mix(field);
  }
  std::string name = "items/";
  name += old_blob.empty() ? "none" : old_blob;
  name += '-';
  name += new_blob.empty() ? "none" : new_blob;
  name += '-';
  name += hex_u64(h);
  return name;
}

}  // namespace feeddiff
